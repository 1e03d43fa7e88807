"""Port of the PyTorch tutorial "Parametrizations Tutorial" (pytorch/tutorials
``intermediate_source/parametrizations.py``): a symmetric linear layer by hand, then
``torch.nn.utils.parametrize``: ``register_parametrization`` (``Symmetric``, ``Skew`` on a
``Conv2d``), the ``parametrizations`` ``ModuleDict`` and ``original``, ``cached()``,
concatenated parametrizations (the Cayley map, ``matrix_exp``), ``right_inverse``
initialisation, a pruning parametrization, and ``remove_parametrizations`` with and
without ``leave_parametrized``.

Ported by changing the imports (``import pyad as torch``). The stored text's
``torch.solve(B, A).solution`` (removed from torch) is the current tutorial's
``torch.linalg.solve(A, B)``, and its ``CayleyMap.right_inverse`` the current one's
(``A``, not the module-level ``X``). ``run`` returns every value the tutorial prints or
asserts (by name; its ``print`` is ``log``); ``parametrize`` is ``torch``'s.

Run it with ``python examples/ported/parametrizations.py``.
"""


def run(torch, log=print):
    """Return a dict of every value the tutorial prints."""
    nn = torch.nn
    parametrize = torch.nn.utils.parametrize
    r = {}

    def symmetric(X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    X = torch.rand(3, 3)
    A = symmetric(X)
    assert torch.allclose(A, A.T)  # A is symmetric
    log(A)                         # Quick visual check
    r["symmetric_A"] = A

    class LinearSymmetric(nn.Module):
        def __init__(self, n_features):
            super().__init__()
            self.weight = nn.Parameter(torch.rand(n_features, n_features))

        def forward(self, x):
            A = symmetric(self.weight)
            return x @ A

    layer = LinearSymmetric(3)
    out = layer(torch.rand(8, 3))
    r["linear_symmetric_out"] = out

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())

    A = layer.weight
    assert torch.allclose(A, A.T)  # A is symmetric
    log(A)                         # Quick visual check
    r["parametrized_A"] = A

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

    cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
    parametrize.register_parametrization(cnn, "weight", Skew())
    # Print a few kernels
    log(cnn.weight[0, 1])
    log(cnn.weight[2, 2])
    r["cnn_kernels"] = (cnn.weight[0, 1], cnn.weight[2, 2])

    layer = nn.Linear(3, 3)
    log(f"Unparametrized:\n{layer}")
    r["unparametrized_repr"] = repr(layer)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    log(f"\nParametrized:\n{layer}")
    r["parametrized_repr"] = repr(layer)

    log(layer.parametrizations)
    log(layer.parametrizations.weight)
    r["parametrizations_repr"] = repr(layer.parametrizations)
    r["parametrizations_weight_repr"] = repr(layer.parametrizations.weight)

    log(layer.parametrizations.weight[0])
    r["parametrizations_weight_0_repr"] = repr(layer.parametrizations.weight[0])

    log(dict(layer.named_parameters()))
    r["named_parameters"] = dict(layer.named_parameters())

    log(layer.parametrizations.weight.original)
    r["original"] = layer.parametrizations.weight.original

    symmetric = Symmetric()
    weight_orig = layer.parametrizations.weight.original
    log(torch.dist(layer.weight, symmetric(weight_orig)))
    r["dist_symmetric"] = torch.dist(layer.weight, symmetric(weight_orig))

    class NoisyParametrization(nn.Module):
        def forward(self, X):
            log("Computing the Parametrization")
            return X

    layer = nn.Linear(4, 4)
    parametrize.register_parametrization(layer, "weight", NoisyParametrization())
    log("Here, layer.weight is recomputed every time we call it")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
    with parametrize.cached():
        log("Here, it is computed just the first time layer.weight is called")
        foo = layer.weight + layer.weight.T
        bar = layer.weight.sum()
    r["cached_foo_bar"] = (foo, bar)

    class CayleyMap(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("Id", torch.eye(n))

        def forward(self, X):
            # (I + X)(I - X)^{-1}
            return torch.linalg.solve(self.Id - X, self.Id + X)

    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Skew())
    parametrize.register_parametrization(layer, "weight", CayleyMap(3))
    X = layer.weight
    log(torch.dist(X.T @ X, torch.eye(3)))  # X is orthogonal
    r["cayley_X"] = X
    r["cayley_dist"] = torch.dist(X.T @ X, torch.eye(3))

    class MatrixExponential(nn.Module):
        def forward(self, X):
            return torch.matrix_exp(X)

    layer_orthogonal = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
    parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
    X = layer_orthogonal.weight
    log(torch.dist(X.T @ X, torch.eye(3)))         # X is orthogonal
    r["expm_orthogonal_X"] = X
    r["expm_orthogonal_original"] = layer_orthogonal.parametrizations.weight.original
    r["expm_orthogonal_dist"] = torch.dist(X.T @ X, torch.eye(3))

    layer_spd = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_spd, "weight", Symmetric())
    parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
    X = layer_spd.weight
    log(torch.dist(X, X.T))                        # X is symmetric
    log((torch.linalg.eigvalsh(X) > 0.).all())  # X is positive definite
    r["spd_X"] = X
    r["spd_original"] = layer_spd.parametrizations.weight.original
    r["spd_dist"] = torch.dist(X, X.T)
    r["spd_positive"] = (torch.linalg.eigvalsh(X) > 0.).all()

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            # We assume that A is skew-symmetric
            # We take the upper-triangular elements, as these are those used in the forward
            return A.triu(1)

    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Skew())
    X = torch.rand(3, 3)
    X = X - X.T                             # X is now skew-symmetric
    layer.weight = X                        # Initialize layer.weight to be X
    log(torch.dist(layer.weight, X))        # layer.weight == X
    r["skew_init_dist"] = torch.dist(layer.weight, X)
    r["skew_init_original"] = layer.parametrizations.weight.original

    class CayleyMap(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("Id", torch.eye(n))

        def forward(self, X):
            # Assume X skew-symmetric
            # (I + X)(I - X)^{-1}
            return torch.linalg.solve(self.Id - X, self.Id + X)

        def right_inverse(self, A):
            # Assume A orthogonal
            # See https://en.wikipedia.org/wiki/Cayley_transform#Matrix_map
            # (A - I)(A + I)^{-1}
            return torch.linalg.solve(A + self.Id, self.Id - A)

    layer_orthogonal = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
    parametrize.register_parametrization(layer_orthogonal, "weight", CayleyMap(3))
    # Sample an orthogonal matrix with positive determinant
    X = torch.empty(3, 3)
    nn.init.orthogonal_(X)
    if X.det() < 0.:
        X[0].neg_()
    layer_orthogonal.weight = X
    log(torch.dist(layer_orthogonal.weight, X))  # layer_orthogonal.weight == X
    r["cayley_init_X"] = X
    r["cayley_init_dist"] = torch.dist(layer_orthogonal.weight, X)
    r["cayley_init_original"] = layer_orthogonal.parametrizations.weight.original

    layer_orthogonal.weight = nn.init.orthogonal_(layer_orthogonal.weight)
    r["cayley_reinit_weight"] = layer_orthogonal.weight

    class PruningParametrization(nn.Module):
        def __init__(self, X, p_drop=0.2):
            super().__init__()
            # sample zeros with probability p_drop
            mask = torch.full_like(X, 1.0 - p_drop)
            self.mask = torch.bernoulli(mask)

        def forward(self, X):
            return X * self.mask

        def right_inverse(self, A):
            return A

    layer = nn.Linear(3, 4)
    X = torch.rand_like(layer.weight)
    log(f"Initialization matrix:\n{X}")
    parametrize.register_parametrization(layer, "weight", PruningParametrization(layer.weight))
    layer.weight = X
    log(f"\nInitialized weight:\n{layer.weight}")
    r["pruning_X"] = X
    r["pruning_mask"] = layer.parametrizations.weight[0].mask
    r["pruning_weight"] = layer.weight

    for leave_parametrized in (True, False):
        layer = nn.Linear(3, 3)
        log("Before:")
        log(layer)
        log(layer.weight)
        before = (repr(layer), layer.weight.detach().clone())
        parametrize.register_parametrization(layer, "weight", Skew())
        log("\nParametrized:")
        log(layer)
        log(layer.weight)
        parametrized = (repr(layer), layer.weight)
        if leave_parametrized:
            parametrize.remove_parametrizations(layer, "weight")
            log("\nAfter. Weight has skew-symmetric values but it is unconstrained:")
        else:
            parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
            log("\nAfter. Same as Before:")
        log(layer)
        log(layer.weight)
        r["remove_%s" % leave_parametrized] = (before, parametrized,
                                              (repr(layer), layer.weight,
                                               type(layer.weight).__name__))
    return r


if __name__ == "__main__":
    import pyad as torch
    run(torch)

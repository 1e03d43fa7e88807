"""Port of the PyTorch tutorial "Neural Tangent Kernels" (pytorch/tutorials
``intermediate_source/neural_tangent_kernels.py``): the empirical NTK of a small CNN by
Jacobian contraction (``vmap(jacrev(fnet_single))`` and ``einsum``; full, trace and
diagonal) and by NTK-vector products (``vjp``, ``jvp`` and nested ``vmap``), checked
against each other with the tutorial's ``allclose``.

Ported by changing the imports (``import pyad as torch``); ``from torch.func import
functional_call, vmap, vjp, jvp, jacrev`` is written ``functional_call, vmap, vjp, jvp,
jacrev = torch.func.functional_call, ...``, so it reads the namespace ``run`` is given.
Other changes: ``device`` is ``'cpu'``; the numbers of training and test images (20
and 5) are ``run``'s keyword arguments. ``run`` returns every NTK the tutorial
computes.

Run it with ``python examples/ported/neural_tangent_kernels.py``.
"""


def run(torch, init=None, log=print, n_train=20, n_test=5):
    """Return a dict of the NTKs."""
    nn = torch.nn
    functional_call, vmap, vjp, jvp, jacrev = (torch.func.functional_call, torch.func.vmap,
                                               torch.func.vjp, torch.func.jvp,
                                               torch.func.jacrev)
    device = 'cpu'
    results = {}

    class CNN(nn.Module):
        def __init__(self):
            super(CNN, self).__init__()
            self.conv1 = nn.Conv2d(3, 32, (3, 3))
            self.conv2 = nn.Conv2d(32, 32, (3, 3))
            self.conv3 = nn.Conv2d(32, 32, (3, 3))
            self.fc = nn.Linear(21632, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = x.relu()
            x = self.conv2(x)
            x = x.relu()
            x = self.conv3(x)
            x = x.flatten(1)
            x = self.fc(x)
            return x

    x_train = torch.randn(n_train, 3, 32, 32, device=device)
    x_test = torch.randn(n_test, 3, 32, 32, device=device)

    net = CNN().to(device)
    if init is not None:
        init(net)

    # Detaching the parameters because we won't be calling Tensor.backward().
    params = {k: v.detach() for k, v in net.named_parameters()}

    def fnet_single(params, x):
        return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

    def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
        # Compute J(x1)
        jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = jac1.values()
        jac1 = [j.flatten(2) for j in jac1]

        # Compute J(x2)
        jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = jac2.values()
        jac2 = [j.flatten(2) for j in jac2]

        # Compute J(x1) @ J(x2).T
        result = torch.stack([torch.einsum('Naf,Mbf->NMab', j1, j2) for j1, j2 in zip(jac1, jac2)])
        result = result.sum(0)
        return result

    result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
    log(result.shape)
    results["contraction"] = result

    def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute='full'):  # noqa: F811
        # Compute J(x1)
        jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = jac1.values()
        jac1 = [j.flatten(2) for j in jac1]

        # Compute J(x2)
        jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = jac2.values()
        jac2 = [j.flatten(2) for j in jac2]

        # Compute J(x1) @ J(x2).T
        einsum_expr = None
        if compute == 'full':
            einsum_expr = 'Naf,Mbf->NMab'
        elif compute == 'trace':
            einsum_expr = 'Naf,Maf->NM'
        elif compute == 'diagonal':
            einsum_expr = 'Naf,Maf->NMa'
        else:
            assert False

        result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
        result = result.sum(0)
        return result

    result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'trace')
    log(result.shape)
    results["contraction_trace"] = result
    results["contraction_diagonal"] = empirical_ntk_jacobian_contraction(
        fnet_single, params, x_train, x_test, 'diagonal')

    def empirical_ntk_ntk_vps(func, params, x1, x2, compute='full'):
        def get_ntk(x1, x2):
            def func_x1(params):
                return func(params, x1)

            def func_x2(params):
                return func(params, x2)

            output, vjp_fn = vjp(func_x1, params)

            def get_ntk_slice(vec):
                # This computes vec @ J(x2).T
                # `vec` is some unit vector (a single slice of the Identity matrix)
                vjps = vjp_fn(vec)
                # This computes J(X1) @ vjps
                _, jvps = jvp(func_x2, (params,), vjps)
                return jvps

            # Here's our identity matrix
            basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
            return vmap(get_ntk_slice)(basis)

        # get_ntk(x1, x2) computes the NTK for a single data point x1, x2
        # Since the x1, x2 inputs to empirical_ntk_ntk_vps are batched,
        # we actually wish to compute the NTK between every pair of data points
        # between {x1} and {x2}. That's what the vmaps here do.
        result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

        if compute == 'full':
            return result
        if compute == 'trace':
            return torch.einsum('NMKK->NM', result)
        if compute == 'diagonal':
            return torch.einsum('NMKK->NMK', result)

    result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params, x_test, x_train)
    result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_test, x_train)
    assert torch.allclose(result_from_jacobian_contraction, result_from_ntk_vps, atol=1e-5)
    results["test_train_contraction"] = result_from_jacobian_contraction
    results["test_train_ntk_vps"] = result_from_ntk_vps
    log("the two NTKs agree")
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, n_train=2, n_test=1)

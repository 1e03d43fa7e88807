"""Port of the PyTorch tutorial "Jacobians, Hessians, hvp, vhp, and more: composing
function transforms" (pytorch/tutorials ``intermediate_source/jacobians_hessians.py``):
the jacobian of ``F.linear(x, weight, bias).tanh()`` row by row with
``torch.autograd.grad``, by ``vmap(vjp_fn)``, by ``jacrev`` and ``jacfwd``; hessians by
``hessian``, ``jacfwd(jacfwd)`` and ``jacrev(jacrev)``; batch jacobians and hessians by
``vmap``; hessian-vector products by ``jvp(grad(f))`` and ``vjp(grad(f))``.

Ported by changing the imports (``import pyad as torch``); the tutorial's
``from torch.func import vmap, vjp`` lines are written ``vmap, vjp = torch.func.vmap,
torch.func.vjp``, so they read the namespace ``run`` is given. Left out: the ``torch.utils.benchmark.Timer`` timings and
``get_perf``. The sizes of each section (``D``, ``Din``/``Dout``, the batch) are
``run``'s keyword arguments, the originals by default; ``run`` returns every value the
tutorial computes, by name.

Run it with ``python examples/ported/jacobians_hessians.py``.
"""
from functools import partial


def run(torch, init=None, log=print, D=16, rect=((32, 2048), (2048, 32)), hess_dims=(512, 32),
        batch_dims=(64, 31, 33), hvp_size=2048):
    """Return a dict of every jacobian, hessian and hvp the tutorial computes."""
    F = torch.nn.functional
    results = {}
    _ = torch.manual_seed(0)

    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()

    weight = torch.randn(D, D)
    bias = torch.randn(D)
    x = torch.randn(D)  # feature vector

    def compute_jac(xp):
        jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                         for vec in unit_vectors]
        return torch.stack(jacobian_rows)

    xp = x.clone().requires_grad_()
    unit_vectors = torch.eye(D)

    jacobian = compute_jac(xp)

    log(jacobian.shape)
    log(jacobian[0])  # show first row
    results["jacobian"] = jacobian

    vmap, vjp = torch.func.vmap, torch.func.vjp

    _, vjp_fn = vjp(partial(predict, weight, bias), x)

    ft_jacobian, = vmap(vjp_fn)(unit_vectors)

    # let's confirm both methods compute the same result
    assert torch.allclose(ft_jacobian, jacobian)
    results["vmap_vjp_jacobian"] = ft_jacobian

    jacrev = torch.func.jacrev

    ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)

    # confirm
    assert torch.allclose(ft_jacobian, jacobian)
    results["jacrev_jacobian"] = ft_jacobian

    # note the change in input via argnums params of 0,1 to map to weight and bias
    ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
    results["jac_weight"], results["jac_bias"] = ft_jac_weight, ft_jac_bias

    jacrev, jacfwd = torch.func.jacrev, torch.func.jacfwd

    for Din, Dout in rect:
        weight = torch.randn(Dout, Din)
        bias = torch.randn(Dout)
        x = torch.randn(Din)
        log(weight.shape)
        results["jacfwd %dx%d" % (Dout, Din)] = jacfwd(predict, argnums=2)(weight, bias, x)
        results["jacrev %dx%d" % (Dout, Din)] = jacrev(predict, argnums=2)(weight, bias, x)

    hessian = torch.func.hessian

    # lets reduce the size in order not to blow out colab. Hessians require
    # significant memory:
    Din, Dout = hess_dims
    weight = torch.randn(Dout, Din)
    bias = torch.randn(Dout)
    x = torch.randn(Din)

    hess_api = hessian(predict, argnums=2)(weight, bias, x)
    hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
    hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)

    log(torch.allclose(hess_api, hess_fwdfwd))
    results["hess_api"], results["hess_fwdfwd"] = hess_api, hess_fwdfwd
    results["hess_revrev"] = hess_revrev

    batch_size, Din, Dout = batch_dims

    weight = torch.randn(Dout, Din)
    log(f"weight shape = {weight.shape}")

    bias = torch.randn(Dout)

    x = torch.randn(batch_size, Din)

    compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
    batch_jacobian0 = compute_batch_jacobian(weight, bias, x)

    def predict_with_output_summed(weight, bias, x):
        return predict(weight, bias, x).sum(0)

    batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
    assert torch.allclose(batch_jacobian0, batch_jacobian1)
    results["batch_jacobian0"], results["batch_jacobian1"] = batch_jacobian0, batch_jacobian1

    compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))

    batch_hess = compute_batch_hessian(weight, bias, x)
    log(batch_hess.shape)
    results["batch_hess"] = batch_hess

    jvp, grad, vjp = torch.func.jvp, torch.func.grad, torch.func.vjp

    def hvp(f, primals, tangents):
        return jvp(grad(f), primals, tangents)[1]

    def f(x):
        return x.sin().sum()

    x = torch.randn(hvp_size)
    tangent = torch.randn(hvp_size)

    result = hvp(f, (x,), (tangent,))

    def hvp_revrev(f, primals, tangents):
        _, vjp_fn = vjp(grad(f), *primals)
        return vjp_fn(*tangents)

    result_hvp_revrev = hvp_revrev(f, (x,), (tangent,))
    assert torch.allclose(result, result_hvp_revrev[0])
    results["hvp"], results["hvp_revrev"] = result, result_hvp_revrev[0]
    return results


if __name__ == "__main__":
    import pyad as torch
    # the tutorial's sizes but a smaller hessian and batch (pyad's jacobians take one
    # backward pass per output entry)
    out = run(torch, hess_dims=(64, 32), batch_dims=(8, 31, 33))
    print("computed", len(out), "values; hvp[:3] =", out["hvp"][:3])

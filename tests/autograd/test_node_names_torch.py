"""The names of the nodes ops record, against torch 2.13's on the same calls.

torch prints them (``grad_fn=<SelectBackward0>``, ``<MseLossBackward0 object at ...>``)
and its tests and tutorials read them with ``grad_fn.name()``. pyad's names drop torch's
overload digit (SPEC); where pyad records an op with a node class shared with other ops
(``x[0]`` and ``x[[0, 1]]`` are both index nodes, ``t()`` a permute, ``mse_loss`` a mean
at its end) the node still carries torch's name: a field-less alias class, or a name
set on the op's last node (pyad/_engine.pyx ``_retype_node``, ``_name_grad_fn``).
"""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

# expressions in terms of T (pyad or torch), x (3, 4, 5) float64 requiring grad, W (2, 5)
# and B (2,)
EXPRESSIONS = [
    "x[0]", "x[:, 0]", "x[0, 1:]", "x[1:, 0]", "x[:]", "x[..., 0]", "x[None]", "x[1:]",
    "x[:, :, 1:]", "x[0, 0]", "x[[0, 1]]", "x[x > 0]", "x[0][1]", "x[:, [0, 1]]",
    "x[:, None]", "x[None, :, 0]", "x[0, None]", "x[0, :]",
    "x.T", "x.mT", "x[0].t()", "x[0].T", "x.transpose(0, 1)", "x.swapaxes(0, 1)",
    "x.permute(2, 0, 1)", "x.unsqueeze(0)", "x.squeeze()", "x[None].squeeze(0)",
    "x.view(60)", "x.reshape(60)", "x.flatten()", "x.expand(2, 3, 4, 5)",
    "x.narrow(0, 0, 2)", "x.select(0, 1)", "x.chunk(2)[0]", "x.split(2)[0]",
    "x.unbind(0)[0]", "x.diagonal()", "x.movedim(0, 1)", "x.clone()", "x.flip(0)",
    "x.roll(1)", "x.repeat(2, 1, 1)", "T.cat([x, x])", "T.stack([x, x])",
    "x.masked_fill(x > 0, 0)", "x.gather(0, T.zeros(1, 4, 5, dtype=T.long))",
    "x.index_select(0, T.tensor([0]))", "x.take(T.tensor([0]))", "x.sort()[0]",
    "x.topk(2)[0]", "x.max(0)[0]", "x.amax(0)", "x.cumsum(0)",
    "x[0] @ x[0].t()", "x @ x.transpose(1, 2)", "T.bmm(x, x.transpose(1, 2))",
    "x[0, 0] @ x[0, 0]", "x[0] @ x[0, 0]", "x[0, 0] @ x[0].t()", "T.mm(x[0], x[0].t())",
    "T.mv(x[0], x[0, 0])", "T.dot(x[0, 0], x[0, 1])",
    "T.nn.functional.linear(x[0], W)", "T.nn.functional.linear(x[0], W, B)",
    "T.nn.functional.linear(x, W, B)", "T.nn.functional.linear(x[0, 0], W, B)",
    "T.nn.Linear(5, 2).double()(x[0])",
    "T.addmm(T.ones(4, 4, dtype=T.float64), x[0], x[0].t())",
    "T.baddbmm(T.ones(3, 4, 4, dtype=T.float64), x, x.transpose(1, 2))",
    "T.nn.functional.pad(x, (1, 1))", "x.tril()", "x[0].triu()",
    "T.nn.functional.embedding(T.tensor([0]), x[0])",
    "T.nn.functional.layer_norm(x, (5,))", "T.nn.functional.group_norm(x, 1)",
    "T.nn.functional.batch_norm(x, None, None, training=True)",
    "T.nn.functional.mse_loss(x, x.detach() + 1)",
    "T.nn.functional.mse_loss(x, x.detach() + 1, reduction='none')",
    "T.nn.functional.cross_entropy(x[0], T.tensor([0, 1, 2, 3]))",
    "T.nn.functional.cross_entropy(x[0], T.tensor([0, 1, 2, 3]), reduction='none')",
    "T.nn.functional.nll_loss(x[0], T.tensor([0, 1, 2, 3]))",
    "T.nn.functional.nll_loss(x[0], T.tensor([0, 1, 2, 3]), reduction='sum')",
    "T.nn.functional.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid())",
    "T.nn.functional.binary_cross_entropy_with_logits(x, x.detach().sigmoid())",
    "T.nn.functional.smooth_l1_loss(x, x.detach() + 1)",
    "T.nn.functional.huber_loss(x, x.detach() + 1)",
    "T.nn.functional.soft_margin_loss(x, T.ones(3, 4, 5, dtype=T.float64))",
    "T.nn.functional.conv1d(x, T.ones(1, 4, 2, dtype=T.float64))",
    "T.nn.functional.conv2d(x[None], T.ones(1, 3, 2, 2, dtype=T.float64))",
    "T.nn.functional.max_pool2d(x[None], 2)", "T.nn.functional.avg_pool2d(x[None], 2)",
    "T.nn.functional.hardsigmoid(x)", "x.norm()", "x.norm(dim=1)", "T.linalg.norm(x)",
    "T.linalg.vector_norm(x, 1)", "x.std()", "x.mean()", "x.sum(0)", "x.prod()",
    "x ** 2", "2 ** x", "x.softmax(0)", "x.clamp(0, 1)", "T.where(x > 0, x, x * 2)",
    "x.to(T.float32)",
]


def _name(lib, expression):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4, 5)), requires_grad=True)
    scope = {"T": lib, "x": x, "W": lib.tensor(rng.standard_normal((2, 5))),
             "B": lib.tensor(rng.standard_normal(2))}
    out = eval(expression, scope)
    return out.grad_fn.name().rstrip("0123456789")


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_node_name_is_torchs(expression):
    name = _name(pyad, expression)
    assert name == _name(torch, expression)
    # the Variable's repr and the node's show it too
    rng = np.random.default_rng(0)
    x = pyad.tensor(rng.standard_normal((3, 4, 5)), requires_grad=True)
    out = eval(expression, {"T": pyad, "x": x, "W": pyad.tensor(rng.standard_normal((2, 5))),
                            "B": pyad.tensor(rng.standard_normal(2))})
    assert "grad_fn=<%s>" % name in repr(out)
    assert repr(out.grad_fn).startswith("<%s object at " % name)


def test_renamed_nodes_compute_what_their_class_does():
    # an alias changes the name only: gradients (real and complex, where matmul's nodes
    # take the conjugation rule), double backward and freeing are the base class's
    rng = np.random.default_rng(1)
    for dtype in (np.float64, np.complex128):
        a = rng.standard_normal((3, 4)).astype(dtype)
        b = rng.standard_normal((4, 2)).astype(dtype)
        if dtype == np.complex128:
            a = a + 1j * rng.standard_normal((3, 4))
            b = b + 1j * rng.standard_normal((4, 2))
        grads = []
        for lib in (pyad, torch):
            x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
            out = (x @ y).t()[1:].unsqueeze(0)
            loss = (out * out.conj()).real.sum() if dtype == np.complex128 else \
                (out ** 2).sum()
            grads.append([g.detach().numpy() for g in lib.autograd.grad(loss, (x, y))])
        for g, tg in zip(*grads):
            np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-12)
    x = pyad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert pyad.autograd.gradcheck(lambda v: (v @ v.t())[0].unsqueeze(1), (x,))
    assert pyad.autograd.gradgradcheck(lambda v: (v @ v.t())[0].unsqueeze(1), (x,))
    out = (x @ x.t()).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()


def test_a_name_is_set_only_on_the_ops_own_node():
    # an op that records nothing new (its result is its input) leaves the input's node
    # alone: F.linear's name is not written onto the matmul before it
    x = pyad.ones(3, requires_grad=True)
    y = x * 2
    assert pyad._engine._name_grad_fn(y, y, "Other").grad_fn.name() == "MulBackward"
    z = pyad.nn.functional.mse_loss(y, pyad.zeros(3))
    assert z.grad_fn.name() == "MseLossBackward" and y.grad_fn.name() == "MulBackward"
    assert pyad.nn.functional.mse_loss(pyad.ones(3), pyad.zeros(3)).grad_fn is None

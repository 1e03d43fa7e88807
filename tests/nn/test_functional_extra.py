"""More pyad.nn.functional activations and losses, and their modules, against torch:
relu6, hardsigmoid, hardswish, selu, celu, mish, softsign, tanhshrink, softshrink,
hardshrink, threshold, glu, pairwise_distance, margin_ranking_loss,
hinge_embedding_loss, soft_margin_loss, triplet_margin_loss, poisson_nll_loss,
gaussian_nll_loss, cosine_embedding_loss."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad import nn
from _nn_helpers import Case, standard_nn_tests

_2D = dict(zero_d=[()], empty=[(0, 4)])
SIGNS = np.array([1.0, -1.0, -1.0, 1.0])
SIGNS34 = np.array([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]])
COUNTS34 = np.array([[0.0, 1.0, 3.0, 2.0], [5.0, 0.0, 1.0, 4.0], [2.0, 2.0, 7.0, 0.0]])
VAR34 = np.random.default_rng(3).uniform(0.2, 2.0, (3, 4))
Y3 = np.array([1.0, -1.0, 1.0])

CASES = [
    # activations, scaled so that inputs cross their kinks (|x| in [0.5, 1.5] by default)
    Case("relu6", lambda L, x: L.F.relu6(x * 5), [(3, 4)], **_2D),
    Case("hardswish", lambda L, x: L.F.hardswish(x * 3), [(3, 4)], **_2D),
    Case("selu", lambda L, x: L.F.selu(x), [(3, 4)], **_2D),
    Case("celu_alpha", lambda L, x: L.F.celu(x, 2.5), [(3, 4)], **_2D),
    Case("mish", lambda L, x: L.F.mish(x * 2), [(3, 4)], **_2D),
    Case("softsign", lambda L, x: L.F.softsign(x), [(3, 4)], **_2D),
    Case("tanhshrink", lambda L, x: L.F.tanhshrink(x), [(3, 4)], **_2D),
    Case("softshrink", lambda L, x: L.F.softshrink(x, 0.7), [(3, 4)], **_2D),
    Case("hardshrink", lambda L, x: L.F.hardshrink(x * x, 1.0), [(3, 4)], **_2D),
    Case("threshold", lambda L, x: L.F.threshold(x, 0.2, -3.0), [(3, 4)], **_2D),
    Case("glu_last", lambda L, x: L.F.glu(x), [(3, 4)], empty=[(0, 4)]),
    Case("glu_dim0", lambda L, x: L.F.glu(x, 0), [(4, 3)], empty=[(4, 0)]),
    # distances and losses
    Case("pairwise_distance", lambda L, a, b: L.F.pairwise_distance(a, b), [(3, 4), (3, 4)],
         empty=[(0, 4), (0, 4)]),
    Case("pairwise_distance_p3_keepdim",
         lambda L, a, b: L.F.pairwise_distance(a, b, 3.0, keepdim=True), [(3, 4), (4,)]),
    Case("margin_ranking", lambda L, a, b: L.F.margin_ranking_loss(a, b, L.c(SIGNS), 0.3),
         [(4,), (4,)]),
    Case("margin_ranking_none",
         lambda L, a, b: L.F.margin_ranking_loss(a, b, L.c(SIGNS), reduction="none"),
         [(4,), (4,)]),
    Case("hinge_embedding", lambda L, x: L.F.hinge_embedding_loss(x, L.c(SIGNS34), 1.2),
         [(3, 4)]),
    Case("hinge_embedding_sum",
         lambda L, x: L.F.hinge_embedding_loss(x, L.c(SIGNS34), reduction="sum"), [(3, 4)]),
    Case("soft_margin", lambda L, x: L.F.soft_margin_loss(x, L.c(SIGNS34)), [(3, 4)]),
    Case("triplet", lambda L, a, p, n: L.F.triplet_margin_loss(a, p, n),
         [(3, 4), (3, 4), (3, 4)]),
    Case("triplet_swap_none", lambda L, a, p, n: L.F.triplet_margin_loss(
        a, p, n, margin=2.0, swap=True, reduction="none"), [(3, 4), (3, 4), (3, 4)]),
    Case("poisson_log_input", lambda L, x: L.F.poisson_nll_loss(x, L.c(COUNTS34)), [(3, 4)]),
    Case("poisson_rate_full", lambda L, x: L.F.poisson_nll_loss(
        x * x, L.c(COUNTS34), log_input=False, full=True, reduction="none"), [(3, 4)]),
    Case("gaussian_nll", lambda L, x, v: L.F.gaussian_nll_loss(x, L.c(VAR34), v * v),
         [(3, 4), (3, 4)]),
    Case("gaussian_nll_one_var_per_sample_full", lambda L, x, v: L.F.gaussian_nll_loss(
        x, L.c(VAR34), v * v, full=True, reduction="sum"), [(3, 4), (3,)]),
    Case("cosine_embedding", lambda L, a, b: L.F.cosine_embedding_loss(a, b, L.c(Y3), 0.1),
         [(3, 4), (3, 4)]),
]

test_matches_torch_and_finite_differences, test_variant = standard_nn_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


KINKS = np.array([-7.0, -6.0, -3.0, -1.5, -0.5, 0.0, 0.5, 1.5, 3.0, 6.0, 7.0])


@pytest.mark.parametrize("name, args", [
    ("relu6", ()), ("hardsigmoid", ()), ("hardswish", ()), ("selu", ()), ("celu", (2.0,)),
    ("softshrink", (0.5,)), ("softshrink", (3.0,)), ("hardshrink", (0.5,)),
    ("hardshrink", (3.0,)), ("threshold", (3.0, -1.0)), ("threshold", (0.0, 2.0)),
])
def test_values_and_gradients_at_the_kinks_match_torch(name, args):
    # torch's conventions at the kinks (e.g. hardswish: 0 at -3, 1 at 3; relu6: 0 at 0
    # and 6); torch computes some in float32 constants, hence rtol 1e-6
    torch = _torch()
    x = pyad.tensor(KINKS, requires_grad=True)
    y = getattr(F, name)(x, *args)
    y.sum().backward()
    tx = torch.tensor(KINKS, requires_grad=True)
    ty = getattr(torch.nn.functional, name)(tx, *args)
    ty.sum().backward()
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-6, atol=1e-12)


def test_hardsigmoid_first_and_second_derivatives():
    # (outside the Case table: torch 2.13 has no double backward for hardsigmoid)
    torch = _torch()
    data = np.random.default_rng(2).uniform(-5.0, 5.0, (3, 4))
    x = pyad.tensor(data, requires_grad=True)
    assert pyad.autograd.gradcheck(lambda v: F.hardsigmoid(v * 1.5), (x,))
    assert pyad.autograd.gradgradcheck(lambda v: F.hardsigmoid(v * 1.5) * v, (x,))
    tx = torch.tensor(data, requires_grad=True)
    (g,) = pyad.autograd.grad(F.hardsigmoid(x).sum(), [x])
    (tg,) = torch.autograd.grad(torch.nn.functional.hardsigmoid(tx).sum(), [tx])
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish", "selu", "celu",
                                  "mish", "threshold"])
def test_inplace_forms_write_into_the_input(name):
    args = (0.1, 0.0) if name == "threshold" else ()
    x = pyad.tensor(KINKS)
    expected = getattr(F, name)(x, *args)
    y = getattr(F, name)(x, *args, inplace=True)
    assert y is x and x._version == 1
    np.testing.assert_array_equal(x.data, expected.data)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.glu(pyad.ones(3, 3)), RuntimeError, r"glu\(\).*even"),
    (lambda: F.glu(pyad.tensor(1.0)), RuntimeError, r"glu\(\)"),
    (lambda: F.glu(pyad.ones(2, 2), 2), IndexError, r"glu\(\)"),
    (lambda: F.softshrink(pyad.ones(2), -1.0), RuntimeError, r"softshrink\(\)"),
    (lambda: F.celu(pyad.ones(2), 0.0), RuntimeError, r"celu\(\)"),
    (lambda: F.gaussian_nll_loss(pyad.ones(2, 3), pyad.ones(2, 3), -pyad.ones(2, 3)),
     ValueError, r"gaussian_nll_loss\(\).*negative"),
    (lambda: F.gaussian_nll_loss(pyad.ones(2, 3), pyad.ones(2, 3), pyad.ones(4)),
     ValueError, r"gaussian_nll_loss\(\).*size"),
    (lambda: F.triplet_margin_loss(pyad.ones(2), pyad.ones(2), pyad.ones(2), margin=0.0),
     ValueError, r"triplet_margin_loss\(\)"),
    (lambda: F.margin_ranking_loss(pyad.ones(2), pyad.ones(2, 1), pyad.ones(2)),
     RuntimeError, r"margin_ranking_loss\(\)"),
    (lambda: F.cosine_embedding_loss(pyad.ones(2, 3), pyad.ones(2, 3), pyad.ones(2, 1)),
     RuntimeError, r"cosine_embedding_loss\(\)"),
    (lambda: F.soft_margin_loss(pyad.ones(2), pyad.ones(2), reduction="avg"), ValueError,
     r"soft_margin_loss\(\)"),
])
def test_bad_arguments_raise_naming_the_function(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- modules ----------------------------------------------------------------------------

def _zoo(n):
    return [n.LeakyReLU(), n.LeakyReLU(0.2, True), n.ELU(), n.ELU(0.5, True), n.CELU(2.0),
            n.SELU(), n.SELU(True), n.SiLU(), n.Mish(), n.ReLU6(), n.ReLU6(True),
            n.Hardswish(), n.Hardsigmoid(), n.Softplus(), n.Softplus(2.0, 10.0),
            n.Hardtanh(), n.Hardtanh(-2.0, 3.0, True), n.LogSigmoid(), n.Softsign(),
            n.Tanhshrink(), n.Softshrink(), n.Hardshrink(0.3), n.Threshold(0.1, 20),
            n.GLU(), n.GLU(0), n.L1Loss(), n.SmoothL1Loss(beta=0.5), n.HuberLoss(delta=2.0),
            n.BCELoss(), n.BCEWithLogitsLoss(), n.NLLLoss(ignore_index=1),
            n.KLDivLoss(reduction="batchmean", log_target=True)]


def test_module_reprs_and_state_dicts_match_torch():
    torch = _torch()
    for mine, theirs in zip(_zoo(nn), _zoo(torch.nn)):
        assert repr(mine) == repr(theirs)
        assert list(mine.state_dict()) == list(theirs.state_dict())


ACTIVATION_MODULES = [
    ("LeakyReLU", (0.2,), "leaky_relu", (0.2,)), ("ELU", (0.5,), "elu", (0.5,)),
    ("CELU", (2.0,), "celu", (2.0,)), ("SELU", (), "selu", ()), ("SiLU", (), "silu", ()),
    ("Mish", (), "mish", ()), ("ReLU6", (), "relu6", ()),
    ("Hardswish", (), "hardswish", ()), ("Hardsigmoid", (), "hardsigmoid", ()),
    ("Softplus", (2.0, 3.0), "softplus", (2.0, 3.0)),
    ("Hardtanh", (-2.0, 3.0), "hardtanh", (-2.0, 3.0)),
    ("LogSigmoid", (), "logsigmoid", ()), ("Softsign", (), "softsign", ()),
    ("Tanhshrink", (), "tanhshrink", ()), ("Softshrink", (0.3,), "softshrink", (0.3,)),
    ("Hardshrink", (0.3,), "hardshrink", (0.3,)),
    ("Threshold", (0.1, 20.0), "threshold", (0.1, 20.0)), ("GLU", (0,), "glu", (0,)),
]


@pytest.mark.parametrize("module, margs, function, fargs", ACTIVATION_MODULES,
                         ids=[m[0] for m in ACTIVATION_MODULES])
def test_activation_modules_apply_their_function(module, margs, function, fargs):
    x = pyad.tensor(np.linspace(-7.0, 7.0, 24).reshape(4, 6), requires_grad=True)
    np.testing.assert_array_equal(getattr(nn, module)(*margs)(x).data,
                                  getattr(F, function)(x, *fargs).data)


def test_loss_modules_match_torch():
    torch = _torch()
    rng = np.random.default_rng(4)
    x, t = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    p, b = rng.uniform(0.1, 0.9, (3, 4)), (rng.uniform(size=(3, 4)) > 0.5) * 1.0
    idx = np.array([0, 3, 1])
    pairs = [
        (lambda n: n.L1Loss(reduction="sum"), x, t),
        (lambda n: n.SmoothL1Loss(beta=0.5), x, t),
        (lambda n: n.HuberLoss(delta=0.7), x, t),
        (lambda n: n.BCELoss(), p, b),
        (lambda n: n.BCEWithLogitsLoss(pos_weight=(pyad if n is nn else torch).tensor(
            [1.0, 2.0, 0.5, 1.5], dtype=(pyad if n is nn else torch).float64)), x, b),
        (lambda n: n.NLLLoss(ignore_index=3), x, idx),
        (lambda n: n.KLDivLoss(reduction="batchmean"), x, p),
    ]
    for make, a, target in pairs:
        mine = make(nn)(pyad.tensor(a, requires_grad=True), pyad.tensor(target))
        theirs = make(torch.nn)(torch.tensor(a, requires_grad=True), torch.tensor(target))
        np.testing.assert_allclose(mine.data, theirs.detach().numpy(), rtol=1e-12)


def test_linear_bias_of_another_dtype_follows_torchs_contiguity_rule():
    # torch folds a contiguous (or 2-D) input into one addmm, which refuses a bias of
    # another dtype; a non-contiguous input of 3+ dims takes matmul and an in-place add,
    # which casts the bias to the product's dtype (and its gradient back)
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    x0, w0 = rng.standard_normal((3, 2, 4)), rng.standard_normal((5, 4))
    b0 = rng.standard_normal(5).astype(np.float16)
    results = []
    for lib, F_ in ((pyad, pyad.nn.functional), (torch, torch.nn.functional)):
        w = lib.tensor(w0)
        b = lib.tensor(b0).requires_grad_()
        with pytest.raises(RuntimeError, match="same dtype"):
            F_.linear(lib.tensor(x0), w, b)                     # contiguous 3-D
        with pytest.raises(RuntimeError, match="same dtype"):
            F_.linear(lib.tensor(x0[0]).t().t(), w, b)          # 2-D
        out = F_.linear(lib.tensor(x0).transpose(0, 1), w, b)   # non-contiguous 3-D
        (out * lib.tensor(np.arange(30.0).reshape(2, 3, 5))).sum().backward()
        results.append((str(out.dtype).replace("torch.", ""), out.detach().numpy(),
                        str(b.grad.dtype).replace("torch.", ""), b.grad.numpy()))
    (pd, po, pgd, pg), (td, to, tgd, tg) = results
    assert pd == td == "float64" and pgd == tgd == "float16"
    np.testing.assert_allclose(po, to, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(pg, tg)

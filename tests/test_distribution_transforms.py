"""`pyad.distributions.transforms` and `TransformedDistribution` against
torch.distributions 2.13 on the same inputs: forward and inverse maps,
log_abs_det_jacobian and their gradients, log_prob (and its gradients in the
parameters), rsample gradients on the same base noise, shapes, cdf/icdf, expand, KL."""
import numpy as np
import pytest

import pyad
import pyad.distributions as D
from pyad.distributions import transforms as T

torch = pytest.importorskip("torch")
TD = torch.distributions
TT = torch.distributions.transforms


def _p(a, grad=False):
    return pyad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _t(a, grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _close(ours, theirs, rtol=1e-12, atol=1e-13):
    theirs = theirs.detach() if isinstance(theirs, torch.Tensor) else torch.as_tensor(theirs)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.data), theirs.numpy(), rtol=rtol, atol=atol)


X = [[0.3, -1.2, 2.0], [-0.4, 0.9, 0.05]]
XPOS = [[0.3, 1.2, 2.0], [0.4, 0.9, 0.05]]
XUNIT = [[0.3, 0.7, 0.01], [0.45, 0.9, 0.5]]
XPM1 = [[0.3, -0.7, 0.01], [-0.45, 0.9, 0.5]]
LOC = [0.5, -1.0, 2.0]
SCALE = [2.0, -0.5, 1.5]
EXPONENT = [0.5, 2.0, -1.5]

# (name, pyad maker, torch maker, x, y-in-codomain)
CASES = [
    ("exp", lambda: T.ExpTransform(), lambda: TT.ExpTransform(), X, XPOS),
    ("affine", lambda: T.AffineTransform(_p(LOC), _p(SCALE)),
     lambda: TT.AffineTransform(_t(LOC), _t(SCALE)), X, X),
    ("affine_numbers", lambda: T.AffineTransform(1.5, -3.0),
     lambda: TT.AffineTransform(1.5, -3.0), X, X),
    ("affine_event1", lambda: T.AffineTransform(_p(LOC), _p(SCALE), event_dim=1),
     lambda: TT.AffineTransform(_t(LOC), _t(SCALE), event_dim=1), X, X),
    ("sigmoid", lambda: T.SigmoidTransform(), lambda: TT.SigmoidTransform(), X, XUNIT),
    ("tanh", lambda: T.TanhTransform(), lambda: TT.TanhTransform(), X, XPM1),
    ("power", lambda: T.PowerTransform(_p(EXPONENT)),
     lambda: TT.PowerTransform(_t(EXPONENT)), XPOS, XPOS),
    ("compose", lambda: T.ComposeTransform([T.AffineTransform(_p(LOC), _p(SCALE)),
                                            T.TanhTransform()]),
     lambda: TT.ComposeTransform([TT.AffineTransform(_t(LOC), _t(SCALE)),
                                  TT.TanhTransform()]), X, XPM1),
    ("compose_event", lambda: T.ComposeTransform([T.ExpTransform(),
                                                  T.AffineTransform(0.5, 2.0, event_dim=1)]),
     lambda: TT.ComposeTransform([TT.ExpTransform(), TT.AffineTransform(0.5, 2.0, event_dim=1)]),
     X, XPOS),
]


@pytest.mark.parametrize("name,ours,theirs,x,y", CASES, ids=[c[0] for c in CASES])
def test_transform_call_inv_log_abs_det_jacobian(name, ours, theirs, x, y):
    t, tt = ours(), theirs()
    xp, xt = _p(x, grad=True), _t(x, grad=True)
    yp, yt = t(xp), tt(xt)
    _close(yp, yt)
    _close(t.inv(_p(y)), tt.inv(_t(y)))
    lp, lt = t.log_abs_det_jacobian(xp, yp), tt.log_abs_det_jacobian(xt, yt)
    _close(lp, lt)
    # gradients of the map and of the Jacobian term in x
    (gp,) = pyad.autograd.grad((yp.sum() + lp.sum()), [xp])
    (gt,) = torch.autograd.grad((yt.sum() + lt.sum()), [xt])
    _close(gp, gt, 1e-10, 1e-12)
    # the inverse's Jacobian term is minus the forward one at swapped arguments
    yp2, yt2 = _p(y), _t(y)
    _close(t.inv.log_abs_det_jacobian(yp2, t.inv(yp2)),
           tt.inv.log_abs_det_jacobian(yt2, tt.inv(yt2)), 1e-12, 1e-12)


@pytest.mark.parametrize("name,ours,theirs,x,y", CASES, ids=[c[0] for c in CASES])
def test_transform_properties(name, ours, theirs, x, y):
    t, tt = ours(), theirs()
    assert t.bijective == tt.bijective
    assert t.domain.event_dim == tt.domain.event_dim
    assert t.codomain.event_dim == tt.codomain.event_dim
    assert t.inv.inv is t
    assert t.inv.domain.event_dim == tt.codomain.event_dim
    assert t.forward_shape((4, 2, 3)) == tuple(tt.forward_shape(torch.Size((4, 2, 3))))
    sign, tsign = t.sign, tt.sign
    if isinstance(tsign, torch.Tensor):
        _close(sign, tsign)
    else:
        assert sign == tsign


def test_affine_transform_parameter_gradients():
    loc, scale = _p(LOC, grad=True), _p(SCALE, grad=True)
    tloc, tscale = _t(LOC, grad=True), _t(SCALE, grad=True)
    x = _p(X)
    t, tt = T.AffineTransform(loc, scale), TT.AffineTransform(tloc, tscale)
    out = (t(x) ** 2).sum() + t.log_abs_det_jacobian(x, t(x)).sum()
    tout = (tt(_t(X)) ** 2).sum() + tt.log_abs_det_jacobian(_t(X), tt(_t(X))).sum()
    for g, tg in zip(pyad.autograd.grad(out, [loc, scale]),
                     torch.autograd.grad(tout, [tloc, tscale])):
        _close(g, tg)


def test_abs_and_softmax_transforms():
    xp, xt = _p(X, grad=True), _t(X, grad=True)
    _close(T.AbsTransform()(xp), TT.AbsTransform()(xt))
    _close(T.AbsTransform().inv(_p(XPOS)), TT.AbsTransform().inv(_t(XPOS)))
    assert not T.AbsTransform().bijective and not T.SoftmaxTransform().bijective
    sp, st = T.SoftmaxTransform()(xp), TT.SoftmaxTransform()(xt)
    _close(sp, st)
    w = [[1.0, 2.0, -3.0], [0.5, 0.0, 4.0]]
    (gp,) = pyad.autograd.grad((sp * _p(w)).sum(), [xp])
    (gt,) = torch.autograd.grad((st * _t(w)).sum(), [xt])
    _close(gp, gt, 1e-12, 1e-14)
    _close(T.SoftmaxTransform().inv(_p(XUNIT)), TT.SoftmaxTransform().inv(_t(XUNIT)))
    assert T.SoftmaxTransform().domain.event_dim == 1
    assert T.SoftmaxTransform().codomain.event_dim == 1


def test_identity_transform():
    x = _p(X)
    assert T.identity_transform(x) is x
    _close(T.identity_transform.log_abs_det_jacobian(x, x), torch.zeros(2, 3,
                                                                        dtype=torch.float64))
    assert T.identity_transform.bijective and T.identity_transform.sign == 1
    assert T.identity_transform == T.ComposeTransform([])
    assert T.identity_transform != T.ComposeTransform([T.ExpTransform()])
    assert T.identity_transform.domain.event_dim == 0


def _dists():
    # (id, pyad maker(params), torch maker(params), params, value)
    return [
        ("normal_exp", lambda l, s: D.TransformedDistribution(D.Normal(l, s), [T.ExpTransform()]),
         lambda l, s: TD.TransformedDistribution(TD.Normal(l, s), [TT.ExpTransform()]),
         [LOC, [0.5, 1.5, 0.7]], XPOS),
        ("normal_affine_sigmoid",
         lambda l, s: D.TransformedDistribution(
             D.Normal(l, s), [T.AffineTransform(0.5, -2.0), T.SigmoidTransform()]),
         lambda l, s: TD.TransformedDistribution(
             TD.Normal(l, s), [TT.AffineTransform(0.5, -2.0), TT.SigmoidTransform()]),
         [LOC, [0.5, 1.5, 0.7]], XUNIT),
        ("normal_tanh_affine_param",
         lambda l, s: D.TransformedDistribution(
             D.Normal(_p(0.0), _p(1.0)), [T.AffineTransform(l, s), T.TanhTransform()]),
         lambda l, s: TD.TransformedDistribution(
             TD.Normal(_t(0.0), _t(1.0)), [TT.AffineTransform(l, s), TT.TanhTransform()]),
         [LOC, [0.5, 1.5, 0.7]], XPM1),
        ("normal_affine_event1",
         lambda l, s: D.TransformedDistribution(
             D.Normal(l, s), T.AffineTransform(_p(LOC), _p(SCALE), event_dim=1)),
         lambda l, s: TD.TransformedDistribution(
             TD.Normal(l, s), TT.AffineTransform(_t(LOC), _t(SCALE), event_dim=1)),
         [[[0.1, 0.2, 0.3]], [0.5, 1.5, 0.7]], X),
        ("exponential_power",
         lambda l, s: D.TransformedDistribution(D.Exponential(s), [T.PowerTransform(l)]),
         lambda l, s: TD.TransformedDistribution(TD.Exponential(s), [TT.PowerTransform(l)]),
         [[0.5, 2.0, 1.5], [0.5, 1.5, 0.7]], XPOS),
    ]


@pytest.mark.parametrize("case", _dists(), ids=lambda c: c[0])
def test_transformed_distribution_log_prob_and_grad(case):
    _, ours, theirs, (a, b), value = case
    pa, pb, ta, tb = _p(a, True), _p(b, True), _t(a, True), _t(b, True)
    d, td = ours(pa, pb), theirs(ta, tb)
    assert d.batch_shape == tuple(td.batch_shape)
    assert d.event_shape == tuple(td.event_shape)
    assert d.has_rsample == td.has_rsample
    assert d.support.event_dim == td.support.event_dim
    lp, lt = d.log_prob(_p(value)), td.log_prob(_t(value))
    _close(lp, lt, 1e-12, 1e-12)
    for g, tg in zip(pyad.autograd.grad(lp.sum(), [pa, pb]),
                     torch.autograd.grad(lt.sum(), [ta, tb])):
        _close(g, tg, 1e-10, 1e-12)
    assert d.sample((4,)).shape == tuple(td.sample((4,)).shape)
    assert bool(d.support.check(d.sample((5,))).all())


def test_transformed_distribution_rsample_grad():
    # the same base noise on both sides: eps recovered from pyad's draw
    loc, scale, a, b = [0.2, -0.4], [0.5, 1.5], [1.0, 0.0], [2.0, -0.5]
    pl, ps, pa, pb = (_p(v, True) for v in (loc, scale, a, b))
    tl, ts, ta, tb = (_t(v, True) for v in (loc, scale, a, b))
    d = D.TransformedDistribution(D.Normal(pl, ps), [T.AffineTransform(pa, pb),
                                                      T.ExpTransform()])
    y = d.rsample((3,))
    assert y.shape == (3, 2) and y.requires_grad
    ynp = np.asarray(y.data)
    eps = ((np.log(ynp) - np.asarray(a)) / np.asarray(b) - np.asarray(loc)) / np.asarray(scale)
    ty = torch.exp(ta + tb * (tl + ts * torch.tensor(eps)))
    _close(y, ty, 1e-12, 1e-12)
    for g, tg in zip(pyad.autograd.grad((y * y).sum(), [pl, ps, pa, pb]),
                     torch.autograd.grad((ty * ty).sum(), [tl, ts, ta, tb])):
        _close(g, tg, 1e-10, 1e-12)
    assert not d.sample().requires_grad


def test_transformed_distribution_cdf_icdf():
    # decreasing transform: torch's _monotonize_cdf
    for scale in (2.0, -2.0):
        d = D.TransformedDistribution(D.Normal(_p([0.3, -1.0]), _p([1.0, 0.5])),
                                      [T.AffineTransform(1.0, scale)])
        td = TD.TransformedDistribution(TD.Normal(_t([0.3, -1.0]), _t([1.0, 0.5])),
                                        [TT.AffineTransform(1.0, scale)])
        _close(d.cdf(_p([0.5, 2.0])), td.cdf(_t([0.5, 2.0])), 1e-12, 1e-14)
        _close(d.icdf(_p([0.2, 0.9])), td.icdf(_t([0.2, 0.9])), 1e-12, 1e-12)
    d = D.TransformedDistribution(D.Normal(_p(0.0), _p(1.0)), [T.ExpTransform()])
    td = TD.TransformedDistribution(TD.Normal(_t(0.0), _t(1.0)), [TT.ExpTransform()])
    _close(d.cdf(_p([0.5, 2.0])), td.cdf(_t([0.5, 2.0])), 1e-12, 1e-14)


def test_transformed_distribution_expand():
    d = D.TransformedDistribution(D.Normal(_p([0.3, -1.0]), _p([1.0, 0.5])),
                                  [T.ExpTransform()]).expand((4, 2))
    td = TD.TransformedDistribution(TD.Normal(_t([0.3, -1.0]), _t([1.0, 0.5])),
                                    [TT.ExpTransform()]).expand((4, 2))
    assert d.batch_shape == tuple(td.batch_shape) == (4, 2)
    assert d.base_dist.batch_shape == (4, 2)
    v = np.linspace(0.2, 3.0, 8).reshape(4, 2)
    _close(d.log_prob(_p(v)), td.log_prob(_t(v)), 1e-12, 1e-12)
    assert d.sample().shape == (4, 2)


def test_transformed_distribution_event_from_transform():
    # a vector transform on a scalar base makes the base Independent
    d = D.TransformedDistribution(D.Normal(_p([0.0, 1.0, 2.0]), _p([1.0, 1.0, 2.0])),
                                  [T.AffineTransform(0.0, 3.0, event_dim=1)])
    td = TD.TransformedDistribution(TD.Normal(_t([0.0, 1.0, 2.0]), _t([1.0, 1.0, 2.0])),
                                    [TT.AffineTransform(0.0, 3.0, event_dim=1)])
    assert d.batch_shape == () and d.event_shape == (3,)
    assert isinstance(d.base_dist, D.Independent)
    _close(d.log_prob(_p([0.5, -1.0, 2.0])), td.log_prob(_t([0.5, -1.0, 2.0])), 1e-12, 1e-12)


def test_transformed_distribution_errors():
    with pytest.raises(ValueError):
        D.TransformedDistribution(D.Normal(0.0, 1.0), "exp")
    with pytest.raises(ValueError):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [T.ExpTransform(), 1])
    with pytest.raises(ValueError):
        D.TransformedDistribution(D.Normal(_p([0.0]), _p([1.0])), [T.ExpTransform()],
                                  validate_args=True).log_prob(_p([-1.0]))


def test_kl_transformed_transformed():
    t = T.AffineTransform(_p(1.0), _p(2.0))
    p = D.TransformedDistribution(D.Normal(_p([0.0, 0.5]), _p([1.0, 0.3])), [t])
    q = D.TransformedDistribution(D.Normal(_p([1.0, 0.0]), _p([2.0, 1.0])), [t])
    tt = TT.AffineTransform(_t(1.0), _t(2.0))
    tp = TD.TransformedDistribution(TD.Normal(_t([0.0, 0.5]), _t([1.0, 0.3])), [tt])
    tq = TD.TransformedDistribution(TD.Normal(_t([1.0, 0.0]), _t([2.0, 1.0])), [tt])
    _close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq))
    # equal (not identical) transforms also match, as torch's __eq__
    q2 = D.TransformedDistribution(D.Normal(_p([1.0, 0.0]), _p([2.0, 1.0])),
                                   [T.AffineTransform(_p(1.0), _p(2.0))])
    _close(D.kl_divergence(p, q2), TD.kl_divergence(tp, tq))
    other = D.TransformedDistribution(D.Normal(_p([1.0, 0.0]), _p([2.0, 1.0])),
                                      [T.ExpTransform()])
    with pytest.raises(NotImplementedError):
        D.kl_divergence(p, other)

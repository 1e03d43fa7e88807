"""A twelfth batch of ports of PyTorch's own nn tests to pyad (CPU, float32 / float64 and
the bfloat16 comparisons pyad can run): from ``test/nn/test_pooling.py`` the checks torch
runs on CUDA only that have a CPU meaning (odd-stride 3-d pooling, the avg_pool3d
backward with an odd-stride gradient), the invalid adaptive output sizes and the bfloat16
pooling against float32; from ``test/nn/test_embedding.py`` the max-norm backward; from
``test/test_nn.py`` the LSTM cell with one output gradient, the LSTM / GRU gradcheck and
gradgradcheck (torch: CUDA, here CPU float64), batch-norm gradcheck, channels-last
group-norm (pyad's one layout) against torch, the BCE-with-logits pos_weight checks, the
margin-loss size warning, layer-norm second order with ``create_graph``, the
TransformerEncoder eval path with a padding mask, the 2-d cross-entropy out-of-bounds
class index (torch checks it on CUDA; CPU raises too); from ``test/nn/test_module_hooks.py``
the state-dict post hooks and the global buffer / submodule / parameter registration
hooks.

Left out: sparse embedding gradients (pyad has no sparse layout), the meta-device
``test_pack_sequence_batch_sizes_throw`` (no meta device), ``test_pool3d_large_size_int64``
and the other large-tensor / cuDNN / nested-tensor fast-path checks (no GPU kernels of
their own in pyad, and their point is 64-bit indexing or a cuDNN path), channels_last
memory-format assertions (pyad arrays have one C-order layout), and ``native_dropout``
(not a pyad name).

The tests keep torch's names and the meaning of their assertions.  Expected values are
torch 2.13's on the same inputs (copied through numpy), torch's literal values, or
gradcheck -- never pyad's own output.
"""
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import _close, _close32, _eq, _np, _rng, twin  # noqa: E402


@pytest.fixture(autouse=True)
def _seeded():
    pyad.manual_seed(0)
    torch.manual_seed(0)
    yield


def _pair(a, requires_grad=False):
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


# ------------------------------------------------------------------ pooling


@pytest.mark.parametrize("name", ["max_pool3d", "avg_pool3d"])
def test_pool3d_size_one_feature_dim(name):
    # torch (CUDA vs CPU): a size-1 channel dim with a huge stride must not disturb the
    # pooling; here pyad on the same odd-strided view against torch's CPU result
    base = _rng(1).standard_normal(7 * 1234)
    strides = [30, 1234, 6, 2, 1]
    bt = torch.tensor(base).as_strided((7, 1, 5, 3, 2), strides)
    bp = pyad.tensor(base).as_strided((7, 1, 5, 3, 2), strides)
    ft = getattr(tF, name)
    fp = getattr(F, name)
    _close(fp(bp, (5, 1, 1), stride=(5, 1, 1)), ft(bt, (5, 1, 1), stride=(5, 1, 1)))


def test_AvgPool3d_backward_after_cat_dim1_device():
    # batch 1, and the incoming gradient is a view with a doubled batch stride
    x_np = _rng(2).standard_normal((1, 3, 4, 4, 4))
    xt, xp = _pair(x_np, requires_grad=True)
    yt = tF.avg_pool3d(xt, kernel_size=3, padding=1, stride=2)
    yp = F.avg_pool3d(xp, kernel_size=3, padding=1, stride=2)
    _close(yp, yt)
    g_np = _rng(3).standard_normal((2,) + tuple(yt.shape[1:]))[:1]
    yt.backward(torch.tensor(g_np))
    yp.backward(pyad.tensor(g_np))
    _close(xp.grad, xt.grad)


@pytest.mark.parametrize("dims,output_size", [(1, (-1,)), (2, (-1, 0)), (3, (-1, 0, 2))])
def test_adaptive_pool_invalid(dims, output_size):
    shape = (1,) * (dims + 2)
    mt = getattr(tnn, f"AdaptiveAvgPool{dims}d")(output_size)
    mp = getattr(nn, f"AdaptiveAvgPool{dims}d")(output_size)
    with pytest.raises(RuntimeError, match="output_size"):
        mt(torch.randn(*shape))
    with pytest.raises(RuntimeError, match="output_size"):
        mp(pyad.randn(*shape))
    # torch checks the output size before the input's empty dims
    empty = (1, 1) + (0,) * dims
    with pytest.raises(RuntimeError, match="output_size"):
        mt(torch.randn(*empty))
    with pytest.raises(RuntimeError, match="output_size"):
        mp(pyad.randn(*empty))


_BF16_POOLS = [
    ("AvgPool1d", (3,), {"stride": 2}, (8, 4, 16)),
    ("AvgPool2d", (3,), {"stride": 2}, (4, 4, 8, 8)),
    ("AvgPool3d", (3,), {"stride": 2}, (2, 2, 6, 6, 6)),
    ("AdaptiveAvgPool1d", (3,), {}, (8, 4, 16)),
    ("AdaptiveAvgPool2d", ((3, 5),), {}, (4, 4, 8, 8)),
    ("AdaptiveAvgPool3d", ((3, 5, 2),), {}, (2, 2, 6, 6, 6)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", _BF16_POOLS,
                         ids=[c[0] for c in _BF16_POOLS])
def test_pooling_bfloat16(name, args, kwargs, shape):
    # torch's _test_bfloat16_ops: the bfloat16 module against the float32 one (prec 0.05),
    # values and input gradients; shapes cut from torch's (8, 4, 16, 16[, 16])
    x_np = _rng(4).random(shape).astype(np.float32)
    m = getattr(nn, name)(*args, **kwargs)
    x32 = pyad.tensor(x_np, requires_grad=True)
    y32 = m(x32)
    g_np = _rng(5).standard_normal(tuple(y32.shape)).astype(np.float32)
    y32.backward(pyad.tensor(g_np))
    x16 = pyad.tensor(x_np).to(dtype=pyad.bfloat16).detach().requires_grad_()
    y16 = m(x16)
    assert y16.dtype == pyad.bfloat16
    y16.backward(pyad.tensor(g_np).to(dtype=pyad.bfloat16))
    assert x16.grad.dtype == pyad.bfloat16
    _close(y16.float(), y32, atol=0.05, rtol=0.05)
    _close(x16.grad.float(), x32.grad, atol=0.05, rtol=0.05)
    # and the bfloat16 result is torch's bfloat16 result (torch's CPU avg_pool3d has no
    # bfloat16 kernel: there the float32 comparison above is the whole check)
    mt = getattr(tnn, name)(*args, **kwargs)
    xt = torch.tensor(x_np).bfloat16().requires_grad_()
    if name == "AvgPool3d":
        with pytest.raises(NotImplementedError):
            mt(xt)
        return
    yt = mt(xt)
    yt.backward(torch.tensor(g_np).bfloat16())
    _close(y16.float(), yt.float(), atol=1e-2, rtol=1.6e-2)
    _close(x16.grad.float(), xt.grad.float(), atol=1e-2, rtol=1.6e-2)


# ---------------------------------------------------------------- embedding


def test_embedding_max_norm_backward():
    w_np = (_rng(6).standard_normal((4, 4)) * 2).astype(np.float32)
    wt, wp = _pair(w_np, requires_grad=True)
    idx = [0, 1, 2, 2]
    tF.embedding(torch.tensor(idx), wt, max_norm=1.0).sum().backward()
    F.embedding(pyad.tensor(idx), wp, max_norm=1.0).sum().backward()
    expected = np.broadcast_to(np.array([[1.0], [1.0], [2.0], [0.0]], np.float32), (4, 4))
    _eq(wp.grad, expected)
    _eq(wp.grad, wt.grad)
    # the in-place renorm of the used rows is torch's
    _close32(wp.detach(), wt.detach())


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_adaptive_max_pool_bfloat16_as_torch(dims):
    # an extension of test_pooling_bfloat16 to the adaptive max pools, whose CPU kernels
    # take bfloat16 in torch: values, indices and the input gradient are torch's
    x_np = _rng(7).random((2, 3) + (6,) * dims).astype(np.float32)
    size = (3, 2, 4)[:dims]
    mt = getattr(tnn, f"AdaptiveMaxPool{dims}d")(size, return_indices=True)
    mp = getattr(nn, f"AdaptiveMaxPool{dims}d")(size, return_indices=True)
    xt = torch.tensor(x_np).bfloat16().requires_grad_()
    xp = pyad.tensor(x_np).to(dtype=pyad.bfloat16).detach().requires_grad_()
    yt, it = mt(xt)
    yp, ip = mp(xp)
    assert yp.dtype == pyad.bfloat16
    _eq(yp.float(), yt.float())
    _eq(ip, it)
    g_np = _rng(8).standard_normal(tuple(yt.shape)).astype(np.float32)
    yt.backward(torch.tensor(g_np).bfloat16())
    yp.backward(pyad.tensor(g_np).to(dtype=pyad.bfloat16))
    _eq(xp.grad.float(), xt.grad.float())


# -------------------------------------------------------------------- RNNs


def test_lstmcell_backward_only_one_output_grad():
    # a gradient through only h or only c of an LSTMCell reaches the input
    for dtype in ("float32", "float64"):
        mt = tnn.LSTMCell(2, 3).to(getattr(torch, dtype))
        mp = nn.LSTMCell(2, 3).to(dtype=getattr(pyad, dtype))
        mp.load_state_dict({k: pyad.tensor(v.detach().numpy().copy())
                            for k, v in mt.state_dict().items()})
        s_np = _rng(9).standard_normal((1, 2)).astype(dtype)
        st, sp = _pair(s_np, requires_grad=True)
        for i in range(2):
            mt(st)[i].sum().backward()
            mp(sp)[i].sum().backward()
            assert sp.grad is not None and float(sp.grad.abs().sum()) != 0
            if dtype == "float32":
                _close32(sp.grad, st.grad)
            else:
                _close(sp.grad, st.grad)


def _rnn_flat(mod, inp):
    out = mod(inp)
    return tuple([t if isinstance(t, pyad.Variable) else tt for t in out for tt in t])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("bias", [True, False])
def test_LSTM_GRU_grad_and_gradgrad(kind, bias):
    # torch's test_LSTM_grad_and_gradgrad / test_GRU_grad_and_gradgrad (run on CUDA
    # there): gradcheck and gradgradcheck of every output w.r.t. the input, float64
    hsize = 4
    inp_np = _rng(10).random((1, 3, hsize))
    mt = getattr(tnn, kind)(hsize, hsize, bias=bias)
    mp = getattr(nn, kind)(hsize, hsize, bias=bias)
    mt, mp = twin(mt, mp)
    inp = pyad.tensor(inp_np, requires_grad=True)
    assert gradcheck(lambda x: _rnn_flat(mp, x), (inp,))
    assert gradgradcheck(lambda x: _rnn_flat(mp, x), (inp,))
    # and the same outputs and input gradients as torch
    from _port_helpers import compare
    compare(mt, mp, [inp_np])


# -------------------------------------------------------------- batch norm


@pytest.mark.parametrize("training", [False, True])
def test_batchnorm_grad(training):
    # F.batch_norm's gradcheck and gradgradcheck in float64 on torch's arange inputs
    bs, n_feat, size_feat = 4, 5, 6

    def args(lib):
        inp = lib.arange(bs * n_feat * size_feat, dtype=lib.float64).view(
            bs, n_feat, size_feat).requires_grad_()
        weight = lib.arange(1, n_feat + 1, dtype=lib.float64).requires_grad_()
        bias = lib.arange(n_feat, dtype=lib.float64).requires_grad_()
        rm = 1 - lib.arange(n_feat, dtype=lib.float64)
        rv = 2 * lib.arange(n_feat, dtype=lib.float64)
        return inp, rm, rv, weight, bias

    inp, rm, rv, w, b = args(pyad)

    def fn(i, ww, bb):
        return F.batch_norm(i, rm.clone(), rv.clone(), ww, bb, training, 0.1, 0.0001)
    assert gradcheck(fn, (inp, w, b))
    assert gradgradcheck(fn, (inp, w, b))
    # values, running statistics and first-order gradients against torch
    ti, trm, trv, tw, tb = args(torch)
    yt = tF.batch_norm(ti, trm, trv, tw, tb, training, 0.1, 0.0001)
    yp = F.batch_norm(inp, rm, rv, w, b, training, 0.1, 0.0001)
    _close(yp, yt)
    _close(rm, trm)
    _close(rv, trv)
    g = _rng(11).standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g))
    yp.backward(pyad.tensor(g))
    for p, t in ((inp, ti), (w, tw), (b, tb)):
        _close(p.grad, t.grad, atol=1e-8, rtol=1e-7)


@pytest.mark.parametrize("shape,groups", [((4, 8, 6, 6), 4), ((2, 6, 3, 5), 3),
                                          ((1, 4, 3, 1), 2), ((3, 8, 4, 4), 8)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_groupnorm_nhwc(shape, groups, dtype):
    # torch compares a channels_last GroupNorm with the contiguous one; pyad has one
    # layout, so here the module on a channels-last-strided view (a permuted array)
    # against torch's contiguous result: values and every gradient
    n, c, h, w = shape
    x_np = _rng(12).standard_normal((n, h, w, c)).astype(dtype).transpose(0, 3, 1, 2)
    mt = tnn.GroupNorm(groups, c).to(getattr(torch, dtype))
    with torch.no_grad():
        mt.weight.uniform_(-1, 1)
        mt.bias.uniform_(-1, 1)
    mp = nn.GroupNorm(groups, c).to(dtype=getattr(pyad, dtype))
    mp.load_state_dict({k: pyad.tensor(v.detach().numpy().copy())
                        for k, v in mt.state_dict().items()})
    xt = torch.tensor(np.ascontiguousarray(x_np), requires_grad=True)
    xp = pyad.tensor(x_np, requires_grad=True)
    yt, yp = mt(xt), mp(xp)
    check = _close32 if dtype == "float32" else _close
    check(yp, yt)
    g = _rng(13).standard_normal(shape).astype(dtype)
    yt.backward(torch.tensor(g))
    yp.backward(pyad.tensor(g))
    check(xp.grad, xt.grad)
    check(mp.weight.grad, mt.weight.grad)
    check(mp.bias.grad, mt.bias.grad)


def test_layer_norm_grads_with_create_graph_flag():
    x_np = _rng(14).standard_normal((4, 4, 16)).astype(np.float32)
    x = pyad.tensor(x_np, requires_grad=True)
    ln = nn.LayerNorm((16,), 1e-5, True)
    with pyad.no_grad():
        ln.weight = nn.Parameter(0.1 * pyad.ones_like(ln.weight))
    g1 = pyad.autograd.grad(ln(x).sum(), x, create_graph=False)[0]
    g2 = pyad.autograd.grad(ln(x).sum(), x, create_graph=True)[0]
    _close(g1, g2, atol=1e-5, rtol=1e-3)
    assert g2.requires_grad and not g1.requires_grad
    xt = torch.tensor(x_np, requires_grad=True)
    lt = tnn.LayerNorm((16,), 1e-5, True)
    with torch.no_grad():
        lt.weight = tnn.Parameter(0.1 * torch.ones_like(lt.weight))
    gt = torch.autograd.grad(lt(xt).sum(), xt, create_graph=True)[0]
    _close32(g2, gt)
    # and the second-order step the flag exists for
    (gt * gt).sum().backward()
    (g2 * g2).sum().backward()
    _close(x.grad, xt.grad, atol=1e-5, rtol=1e-3)


# ------------------------------------------------------------------- losses


def test_bce_with_logits_ones_in_pos_weights_are_the_same_as_none():
    rng = _rng(15)
    target = rng.random((64, 4)).astype(np.float32)
    output = (rng.random((64, 4)) - 0.5).astype(np.float32)
    pw = np.ones((64, 4), np.float32)
    a = nn.BCEWithLogitsLoss()(pyad.tensor(output), pyad.tensor(target))
    b = nn.BCEWithLogitsLoss(pos_weight=pyad.tensor(pw))(pyad.tensor(output),
                                                         pyad.tensor(target))
    _close32(a, b)
    _close32(b, tnn.BCEWithLogitsLoss(pos_weight=torch.tensor(pw))(
        torch.tensor(output), torch.tensor(target)))


def test_bce_with_logits_broadcasts_pos_weights():
    rng = _rng(16)
    target = rng.random((64, 4)).astype(np.float32)
    output = (rng.random((64, 4)) - 0.5).astype(np.float32)
    pw = rng.random(4).astype(np.float32)
    outs = []
    for w in (pw, np.broadcast_to(pw, (1, 4)), np.broadcast_to(pw, (64, 4))):
        op = pyad.tensor(output, requires_grad=True)
        loss = nn.BCEWithLogitsLoss(pos_weight=pyad.tensor(np.array(w)))(
            op, pyad.tensor(target))
        loss.backward()
        outs.append((loss, op.grad))
    for loss, grad in outs[1:]:
        _close32(loss, outs[0][0])
        _close32(grad, outs[0][1])
    ot = torch.tensor(output, requires_grad=True)
    lt = tnn.BCEWithLogitsLoss(pos_weight=torch.tensor(pw))(ot, torch.tensor(target))
    lt.backward()
    _close32(outs[0][0], lt)
    _close32(outs[0][1], ot.grad)


def test_bce_with_logits_stability():
    output = pyad.tensor([0.0, -120.0])
    target = pyad.tensor([0.0, 1.0])
    pos_weight = pyad.tensor([1.0, 1.0])
    out1 = nn.BCEWithLogitsLoss()(output, target)
    assert bool(pyad.isfinite(out1).all())
    out2 = nn.BCEWithLogitsLoss(pos_weight=pos_weight)(output, target)
    assert bool(pyad.isfinite(out2).all())
    t1 = tnn.BCEWithLogitsLoss()(torch.tensor([0.0, -120.0]), torch.tensor([0.0, 1.0]))
    t2 = tnn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 1.0]))(
        torch.tensor([0.0, -120.0]), torch.tensor([0.0, 1.0]))
    _close32(out1, t1)
    _close32(out2, t2)


def test_MarginLoss_warnings(capfd):
    # a MultiMarginLoss forward and backward print nothing (no size warning on stderr)
    rng = _rng(17)
    mt = tnn.Linear(128, 22)
    mp = nn.Linear(128, 22)
    mt, mp = twin(mt, mp)
    x = rng.random((56, 128))
    tg = rng.integers(0, 22, size=(56,))
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lp = nn.MultiMarginLoss()(mp(pyad.tensor(x)), pyad.tensor(tg))
        lp.backward()
    assert capfd.readouterr().err == ""
    lt = tnn.MultiMarginLoss()(mt(torch.tensor(x)), torch.tensor(tg))
    lt.backward()
    _close(lp, lt)
    _close(mp.weight.grad, mt.weight.grad)
    _close(mp.bias.grad, mt.bias.grad)


@pytest.mark.parametrize("bad", [5, -3])
def test_cross_entropy_loss_2d_out_of_bounds_class_index(bad):
    # torch checks this on CUDA (a device assert); its CPU kernel raises IndexError
    x_np = _rng(18).standard_normal((2, 5, 3, 3)).astype(np.float32)
    tg = np.zeros((2, 3, 3), np.int64)
    tg[1, 2, 0] = bad
    with pytest.raises(IndexError) as et:
        tF.cross_entropy(torch.tensor(x_np), torch.tensor(tg))
    with pytest.raises(type(et.value), match="out of bounds"):
        F.cross_entropy(pyad.tensor(x_np), pyad.tensor(tg))


# ------------------------------------------------------------ module hooks


def _load_post_hook_scenario(lib):
    """torch's test_load_state_dict_post_hook, written once for ``lib``; returns what
    it observed, so torch's and pyad's runs can be compared."""
    seen = []
    calls = [0]

    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = lib.nn.Parameter(lib.rand(10))

        def my_post_load_hook(self, module, incompatible_keys):
            assert module is self
            incompatible_keys.missing_keys.append("foo")
            incompatible_keys.unexpected_keys.append("bar")
            calls[0] += 1

    nested = MyModule()
    wrapped = lib.nn.ModuleList([nested])
    handle = nested.register_load_state_dict_post_hook(nested.my_post_load_hook)
    ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)   # through a wrapper
    seen.append((calls[0], list(ret.missing_keys), list(ret.unexpected_keys)))
    try:
        wrapped.load_state_dict(wrapped.state_dict(), strict=True)
        seen.append("no error")
    except RuntimeError as e:
        # the strict error names the keys the hook added
        seen.append(("RuntimeError", "foo" in str(e) and "bar" in str(e)))
    seen.append(calls[0])
    handle.remove()
    ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)
    seen.append((calls[0], list(ret.missing_keys), list(ret.unexpected_keys)))

    def clear(module, incompatible_keys):
        incompatible_keys.missing_keys.clear()
        incompatible_keys.unexpected_keys.clear()
    nested.register_load_state_dict_post_hook(clear)
    sd = wrapped.state_dict()
    sd["extra"] = lib.ones(1)
    ret = wrapped.load_state_dict(sd, strict=True)       # cleared: strict does not raise
    seen.append((list(ret.missing_keys), list(ret.unexpected_keys)))
    return seen


def test_load_state_dict_post_hook():
    got = _load_post_hook_scenario(pyad)
    assert got == _load_post_hook_scenario(torch)
    assert got[0] == (1, ["foo"], ["bar"]) and got[1] == ("RuntimeError", True)
    assert got[2] == 2 and got[3] == (2, [], []) and got[4] == ([], [])


def _state_dict_post_hook_scenario(lib):
    """torch's test_register_state_dict_post_hook: a post hook sees the finished dict,
    and may edit it in place (its return value is ignored -- torch warns or refuses a
    non-None one)."""
    log = []
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))

    def post(module, state_dict, prefix, local_metadata):
        log.append((type(module).__name__, prefix, sorted(state_dict)))
        state_dict[prefix + "added"] = lib.zeros(1)

    h0 = m.register_state_dict_post_hook(post)
    h2 = m[2].register_state_dict_post_hook(post)
    sd = m.state_dict()
    keys = list(sd)
    h0.remove()
    h2.remove()
    after = list(m.state_dict())
    return log, keys, after


def test_register_state_dict_post_hook():
    got = _state_dict_post_hook_scenario(pyad)
    assert got == _state_dict_post_hook_scenario(torch)
    assert "added" in got[1] and "2.added" in got[1] and "added" not in got[2]


def _create_basic_net(lib):
    nn_ = lib.nn

    class Layer(nn_.Module):
        def __init__(self):
            super().__init__()
            self.layer_dummy_param = nn_.Parameter(lib.empty(3, 5))
            self.layer_dummy_buf = nn_.Buffer(lib.zeros(1, 3, 3, 7))

    class Net(nn_.Module):
        def __init__(self):
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn_.Parameter(lib.empty(3, 5))
            self.dummy_buf = nn_.Buffer(lib.zeros(7, 3, 3, 1))

    layer = Layer()
    net = Net()
    return layer, net, nn_.Sequential(net, net)


def _registration_scenario(lib, kind, return_value):
    """torch's test_hook_{buffer,submodule,parameter}_registration for ``lib``: the
    global registration hook marks every value (and, for submodules, the owner) it
    sees; returns the marks found on the Sequential's buffers / modules / parameters,
    and the calls seen after the handle is removed."""
    register = getattr(lib.nn.modules.module, f"register_module_{kind}_registration_hook")
    calls = []

    def hook(module, name, value):
        calls.append((type(module).__name__, name))
        value.registered = True
        if kind == "module":
            module.registered = True
        if return_value:
            return value
    handle = register(hook)
    try:
        _, _, s = _create_basic_net(lib)
        items = {"buffer": s.buffers, "module": s.modules, "parameter": s.parameters}[kind]
        marks = [getattr(v, "registered", False) for v in items()]
    finally:
        handle.remove()
    n_calls = len(calls)
    _create_basic_net(lib)
    return marks, calls, len(calls) == n_calls


@pytest.mark.parametrize("return_value", [True, False])
@pytest.mark.parametrize("kind", ["buffer", "module", "parameter"])
def test_hook_registration(kind, return_value):
    # torch's test_hook_buffer_registration / test_hook_submodule_registration /
    # test_hook_parameter_registration
    got = _registration_scenario(pyad, kind, return_value)
    assert got == _registration_scenario(torch, kind, return_value)
    assert got[0] and all(got[0]) and got[2]


def test_hook_registration_result_replaces_the_value():
    # a non-None result of a registration hook is what gets registered (torch's
    # register_buffer / register_parameter / add_module loops)
    def run(lib):
        rep = {"buffer": lib.ones(2), "parameter": lib.nn.Parameter(lib.full((2,), 3.0)),
               "module": lib.nn.Tanh()}
        mm = lib.nn.modules.module
        hs = [mm.register_module_buffer_registration_hook(lambda m, n, v: rep["buffer"]),
              mm.register_module_parameter_registration_hook(
                  lambda m, n, v: rep["parameter"]),
              mm.register_module_module_registration_hook(lambda m, n, v: rep["module"])]
        try:
            m = lib.nn.Module()
            m.register_buffer("b", lib.zeros(2))
            m.register_parameter("p", lib.nn.Parameter(lib.zeros(2)))
            m.add_module("c", lib.nn.ReLU())
            m.d = lib.nn.Sigmoid()
            m.q = lib.nn.Parameter(lib.zeros(2))
            m.b = lib.zeros(2)
        finally:
            for h in hs:
                h.remove()
        return (m.b is rep["buffer"], m.p is rep["parameter"], m.q is rep["parameter"],
                type(m.c).__name__, type(m.d).__name__)
    assert run(pyad) == run(torch) == (True, True, True, "Tanh", "Tanh")

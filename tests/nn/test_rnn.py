"""Recurrent layers and nn.utils.rnn against torch, from torch's weights (float64)."""
import numpy as np
import pytest

import pyad
from pyad import nn
from pyad.autograd import gradcheck, gradgradcheck
from pyad.nn.utils import rnn as prnn
from _port_helpers import torch, twin, compare

RNG = np.random.default_rng(17)


def _layer(name, *args, **kw):
    torch.manual_seed(0)
    return twin(getattr(torch.nn, name)(*args, **kw), getattr(nn, name)(*args, **kw))


CONFIGS = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2)),
    ("RNN", dict(bias=False, bidirectional=True)),
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(batch_first=True, bias=False)),
    ("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True)),
    ("GRU", dict()),
    ("GRU", dict(num_layers=3, batch_first=True)),
    ("GRU", dict(bidirectional=True, bias=False)),
]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=lambda c: str(c))
@pytest.mark.parametrize("shape", [(5, 3), (1, 1), (4, 1), (1, 2), (3, 0)])
def test_recurrent_layer_matches_torch(name, kw, shape):
    t, p = _layer(name, 3, 5, **kw)
    L, N = shape
    x = RNG.standard_normal((N, L, 3) if kw.get("batch_first") else (L, N, 3))
    compare(t, p, [x])


@pytest.mark.parametrize("name,kw", CONFIGS, ids=lambda c: str(c))
def test_recurrent_layer_initial_state_matches_torch(name, kw):
    t, p = _layer(name, 3, 5, **kw)
    D = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    H = kw.get("proj_size") or 5
    x = RNG.standard_normal((2, 4, 3) if kw.get("batch_first") else (4, 2, 3))
    h0 = RNG.standard_normal((D, 2, H))
    if name == "LSTM":
        c0 = RNG.standard_normal((D, 2, 5))
        compare(t, p, [x, h0, c0], call=lambda m, x, h, c: m(x, (h, c)))
    else:
        compare(t, p, [x, h0])


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(name):
    t, p = _layer(name, 3, 4, num_layers=2, bidirectional=True)
    x = RNG.standard_normal((6, 3))
    compare(t, p, [x])
    h0 = RNG.standard_normal((4, 4))
    if name == "LSTM":
        compare(t, p, [x, h0, h0 * 0.5], call=lambda m, x, h, c: m(x, (h, c)))
    else:
        compare(t, p, [x, h0])


@pytest.mark.parametrize("name,kw", CONFIGS, ids=lambda c: str(c))
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequence_matches_torch(name, kw, enforce_sorted):
    t, p = _layer(name, 3, 5, **kw)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    bf = kw.get("batch_first", False)
    x = RNG.standard_normal((4, 5, 3) if bf else (5, 4, 3))

    def call(m, x):
        mod = torch.nn.utils.rnn if m is t else prnn
        packed = mod.pack_padded_sequence(x, lengths, batch_first=bf,
                                          enforce_sorted=enforce_sorted)
        out, h = m(packed)
        padded, lens = mod.pad_packed_sequence(out, batch_first=bf, total_length=6)
        assert list(lens.tolist()) == lengths
        return padded, h
    compare(t, p, [x], call=call)


def test_packed_sequence_with_initial_state():
    t, p = _layer("LSTM", 2, 3, bidirectional=True)
    x = RNG.standard_normal((4, 3, 2))
    h0 = RNG.standard_normal((2, 3, 3))
    c0 = RNG.standard_normal((2, 3, 3))

    def call(m, x, h, c):
        mod = torch.nn.utils.rnn if m is t else prnn
        packed = mod.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        out, hc = m(packed, (h, c))
        return mod.pad_packed_sequence(out)[0], hc
    compare(t, p, [x, h0, c0], call=call)


@pytest.mark.parametrize("name,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")),
                                     ("LSTMCell", {}), ("LSTMCell", dict(bias=False)),
                                     ("GRUCell", {}), ("GRUCell", dict(bias=False))])
@pytest.mark.parametrize("batch", [None, 1, 3])
def test_cells_match_torch(name, kw, batch):
    t, p = _layer(name, 3, 4, **kw)
    shape = (3,) if batch is None else (batch, 3)
    hshape = (4,) if batch is None else (batch, 4)
    x = RNG.standard_normal(shape)
    compare(t, p, [x])
    h = RNG.standard_normal(hshape)
    if name == "LSTMCell":
        compare(t, p, [x, h, h * 0.3], call=lambda m, x, h, c: m(x, (h, c)))
    else:
        compare(t, p, [x, h])


def test_lstm_cell_trajectory_like_the_time_sequence_example():
    t, p = _layer("LSTMCell", 1, 6)
    x = RNG.standard_normal((3, 7, 1))

    def call(m, x):
        h = c = None
        outs = []
        for step in (x.unbind(1) if m is t else pyad.unbind(x, 1)):
            h, c = m(step, None if h is None else (h, c))
            outs.append(h)
        return outs
    compare(t, p, [x], call=call)


@pytest.mark.parametrize("name,kw", [("LSTM", dict(bidirectional=True)),
                                     ("LSTM", dict(proj_size=1)),
                                     ("GRU", dict(num_layers=2)), ("RNN", {})])
def test_gradcheck_and_gradgradcheck(name, kw):
    _, p = _layer(name, 2, 3, **kw)
    params = list(p.parameters())
    x = pyad.tensor(RNG.standard_normal((3, 2, 2)), requires_grad=True)

    def f(x, *ps):
        for param, value in zip(params, ps):
            param.data = value.data
        return p(x)[0]
    # gradients w.r.t. the input through the module
    assert gradcheck(lambda x: p(x)[0], (x,))
    assert gradgradcheck(lambda x: p(x)[0], (x,))


def test_fused_lstm_step_second_order_wrt_weights():
    from pyad.nn.rnn import _LSTMStep
    xw = pyad.tensor(RNG.standard_normal((2, 8)), requires_grad=True)
    h = pyad.tensor(RNG.standard_normal((2, 2)), requires_grad=True)
    c = pyad.tensor(RNG.standard_normal((2, 2)), requires_grad=True)
    w = pyad.tensor(RNG.standard_normal((8, 2)), requires_grad=True)
    assert gradcheck(lambda *a: _LSTMStep.apply(*a), (xw, h, c, w))
    assert gradgradcheck(lambda *a: _LSTMStep.apply(*a), (xw, h, c, w))


def test_lstm_double_backward_matches_torch():
    t, p = _layer("LSTM", 2, 3)
    x = RNG.standard_normal((3, 2, 2))
    tx = torch.tensor(x, requires_grad=True)
    px = pyad.tensor(x, requires_grad=True)
    tg, = torch.autograd.grad((t(tx)[0] ** 2).sum(), tx, create_graph=True)
    pg, = pyad.autograd.grad((p(px)[0] ** 2).sum(), px, create_graph=True)
    np.testing.assert_allclose(pg.data, tg.detach().numpy(), atol=1e-10)
    (tg ** 2).sum().backward()
    (pg ** 2).sum().backward()
    np.testing.assert_allclose(px.grad.data, tx.grad.numpy(), atol=1e-10)
    for tp, pp in zip(t.parameters(), p.parameters()):
        np.testing.assert_allclose(pp.grad.data, tp.grad.numpy(), atol=1e-10)


def test_parameter_names_shapes_and_init_bounds():
    for kw in [dict(num_layers=2, bidirectional=True, proj_size=3), dict(bias=False)]:
        tm = torch.nn.LSTM(4, 6, **kw)
        pm = nn.LSTM(4, 6, **kw)
        assert [(n, tuple(v.shape)) for n, v in tm.named_parameters()] == \
            [(n, tuple(v.shape)) for n, v in pm.named_parameters()]
        bound = 1 / np.sqrt(6)
        for v in pm.parameters():
            assert v.dtype == pyad.float32
            assert np.all(np.abs(v.data) <= bound)
    assert repr(nn.LSTM(4, 6, num_layers=2, batch_first=True)) == \
        repr(torch.nn.LSTM(4, 6, num_layers=2, batch_first=True))
    assert repr(nn.GRUCell(3, 2, bias=False)) == repr(torch.nn.GRUCell(3, 2, bias=False))
    assert repr(nn.RNN(3, 2, nonlinearity="relu")) == repr(torch.nn.RNN(3, 2,
                                                                      nonlinearity="relu"))


def test_float32_lstm_close_to_torch():
    torch.manual_seed(1)
    tm = torch.nn.LSTM(3, 4, num_layers=2)
    pm = nn.LSTM(3, 4, num_layers=2)
    pm.load_state_dict({k: pyad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = RNG.standard_normal((6, 2, 3)).astype(np.float32)
    out = pm(pyad.tensor(x))[0]
    assert out.dtype == pyad.float32
    np.testing.assert_allclose(out.data, tm(torch.tensor(x))[0].detach().numpy(), atol=1e-6)


def test_dropout_between_layers_train_and_eval():
    p = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = pyad.randn(5, 2, 3)
    pyad.manual_seed(0)
    a = p(x)[0]
    pyad.manual_seed(1)
    b = p(x)[0]
    assert not np.allclose(a.data, b.data)
    p.eval()
    assert np.allclose(p(x)[0].data, p(x)[0].data)
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.2)


def test_bad_input_raises_torch_exception_types():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        lstm(pyad.randn(0, 2, 3))
    with pytest.raises(ValueError, match=r"input dtype \(float64\) does not match weight "
                                         r"dtype \(float32\)"):
        lstm(pyad.randn(5, 2, 3, dtype=pyad.float64))
    with pytest.raises(ValueError):
        torch.nn.LSTM(3, 4)(torch.randn(5, 2, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="input_size. Expected 3, got 2"):
        lstm(pyad.randn(5, 2, 2))
    with pytest.raises(ValueError, match=r"LSTM\(\): Expected input to be 2D or 3D, got 4D"):
        lstm(pyad.randn(5, 2, 3, 1))
    with pytest.raises(RuntimeError, match=r"LSTM\(\): Expected hidden\[0\] size"):
        lstm(pyad.randn(5, 2, 3), (pyad.zeros(2, 2, 4), pyad.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\)"):
        nn.GRU(3, 4)(pyad.randn(5, 2, 3), pyad.zeros(1, 3, 4))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.RNNBase("GRU", 3, 4, proj_size=2)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match=r"LSTMCell\(\): Expected input to be 1D or 2D"):
        nn.LSTMCell(3, 4)(pyad.randn(2, 2, 3))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size"):
        nn.GRUCell(3, 4)(pyad.randn(2, 5))
    with pytest.raises(RuntimeError, match="batch size"):
        nn.RNNCell(3, 4)(pyad.randn(2, 3), pyad.zeros(3, 4))
    # torch raises the same types for the same mistakes
    with pytest.raises(RuntimeError):
        torch.nn.LSTM(3, 4)(torch.randn(5, 2, 2))
    with pytest.raises(ValueError):
        torch.nn.LSTM(3, 4)(torch.randn(5, 2, 3, 1))
    with pytest.raises(ValueError):
        torch.nn.LSTM(3, 4, proj_size=4)


# -- nn.utils.rnn --------------------------------------------------------------------


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, side):
    seqs = [RNG.standard_normal((n, 2)) for n in (3, 1, 4)]
    t = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first,
                                        -1.0, padding_side=side)
    pv = [pyad.tensor(s, requires_grad=True) for s in seqs]
    p = prnn.pad_sequence(pv, batch_first, -1.0, padding_side=side)
    np.testing.assert_array_equal(p.data, t.numpy())
    p.sum().backward()
    assert all(np.all(v.grad.data == 1) for v in pv)


def test_pack_sequence_and_unpack_round_trip():
    seqs = [RNG.standard_normal((n, 2)) for n in (4, 2, 1)]
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs])
    pp = prnn.pack_sequence([pyad.tensor(s) for s in seqs])
    np.testing.assert_array_equal(pp.data.data, tp.data.numpy())
    assert pp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert pp.sorted_indices is None and pp.unsorted_indices is None
    back = prnn.unpack_sequence(pp)
    for s, b in zip(seqs, back):
        np.testing.assert_array_equal(b.data, s)
    unsorted = prnn.pack_sequence([pyad.tensor(s) for s in seqs[::-1]], enforce_sorted=False)
    tu = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs[::-1]],
                                          enforce_sorted=False)
    assert unsorted.sorted_indices.tolist() == tu.sorted_indices.tolist()
    assert unsorted.unsorted_indices.tolist() == tu.unsorted_indices.tolist()


def test_pack_errors():
    x = pyad.randn(3, 2, 1)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        prnn.pack_padded_sequence(x, [1, 3])
    with pytest.raises(RuntimeError, match="greater than 0"):
        prnn.pack_padded_sequence(x, [3, 0])
    with pytest.raises(RuntimeError):
        torch.nn.utils.rnn.pack_padded_sequence(torch.randn(3, 2, 1), [1, 3])
    packed = prnn.pack_padded_sequence(x, [3, 2])
    with pytest.raises(ValueError, match="total_length"):
        prnn.pad_packed_sequence(packed, total_length=2)


def test_fused_lstm_layer_first_and_second_order():
    from pyad.nn.rnn import _LSTMLayer
    xw = pyad.tensor(RNG.standard_normal((3, 2, 8)), requires_grad=True)
    h = pyad.tensor(RNG.standard_normal((2, 2)), requires_grad=True)
    c = pyad.tensor(RNG.standard_normal((2, 2)), requires_grad=True)
    w = pyad.tensor(RNG.standard_normal((8, 2)), requires_grad=True)
    assert gradcheck(lambda *a: _LSTMLayer.apply(*a), (xw, h, c, w))
    assert gradgradcheck(lambda *a: _LSTMLayer.apply(*a), (xw, h, c, w))


def test_fused_gru_layer_first_and_second_order():
    from pyad.nn.rnn import _GRULayer
    xw = pyad.tensor(RNG.standard_normal((3, 2, 6)), requires_grad=True)
    h = pyad.tensor(RNG.standard_normal((2, 2)), requires_grad=True)
    w = pyad.tensor(RNG.standard_normal((6, 2)), requires_grad=True)
    b = pyad.tensor(RNG.standard_normal(6), requires_grad=True)
    assert gradcheck(lambda *a: _GRULayer.apply(*a), (xw, h, w, b))
    assert gradgradcheck(lambda *a: _GRULayer.apply(*a), (xw, h, w, b))
    assert gradcheck(lambda *a: _GRULayer.apply(*a, None), (xw, h, w))


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_fused_and_step_paths_agree(name):
    _, p = _layer(name, 3, 4, num_layers=2, bidirectional=True)
    x = pyad.tensor(RNG.standard_normal((5, 2, 3)), requires_grad=True)
    last = (lambda o: o[1][1]) if name == "LSTM" else (lambda o: o[1])
    fused = p(x)
    (fused[0].sum() + last(fused).sum()).backward()
    g_fused = [x.grad.data.copy()] + [q.grad.data.copy() for q in p.parameters()]
    x.grad = None
    p.zero_grad()
    type(p)._fused = False
    try:
        step = p(x)
        (step[0].sum() + last(step).sum()).backward()
    finally:
        del type(p)._fused
    np.testing.assert_allclose(step[0].data, fused[0].data, atol=1e-12)
    g_step = [x.grad.data] + [q.grad.data for q in p.parameters()]
    for a, b in zip(g_fused, g_step):
        np.testing.assert_allclose(a, b, atol=1e-12)

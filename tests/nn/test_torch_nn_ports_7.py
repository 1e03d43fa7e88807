"""A seventh batch of ports of PyTorch's own nn tests to pyad: the recurrent tests of
``test/test_nn.py`` (packed variable-length sequences through a bidirectional two-layer
LSTM, retained graphs, dropout between layers), ``test/nn/test_packed_sequence.py``,
``test/nn/test_pooling.py`` (memory formats, float16, fractional / 3-d adaptive pools,
large and odd sizes) and the functional pieces of ``test_nn.py`` (nearest / nearest-exact /
bicubic / trilinear interpolation, grid_sample, affine_grid, one_hot, gumbel_softmax) --
CPU, float16/32/64, without device/dtype decorators.  CUDA, cuDNN, sparse, quantization,
dynamo, meta tensors, nested tensors and torchscript are left out.

The tests keep torch's names and the meaning of their assertions.  Expected values are the
literal values of torch's tests, hand math, or come from torch 2.13 run in the test on the
same inputs (copied through numpy) -- never from pyad itself.
"""
import copy
import itertools
import math
import pickle
import random
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
import pyad.nn.utils.rnn as rnn_utils
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional
trnn = torch.nn.utils.rnn

from _port_helpers import _close, _close32, _eq, _np, _rng  # noqa: E402


@pytest.fixture(autouse=True)
def _seeded():
    pyad.manual_seed(0)
    torch.manual_seed(0)
    random.seed(0)
    yield


def _close16(p, t):
    # torch's assertEqual tolerances for float16
    _close(p, t, atol=1e-5, rtol=1e-3)


def _t(a, requires_grad=False):
    return torch.tensor(np.asarray(a), requires_grad=requires_grad)


def _p(a, requires_grad=False):
    return pyad.tensor(np.asarray(a), requires_grad=requires_grad)


# ------------------------------------------------------------ test/nn/test_packed_sequence.py


def test_pad_sequence_with_non_iterable_sequences():
    msg = r"Expected iterable for input sequences, but got arg of type"
    with pytest.raises(RuntimeError, match=msg):
        rnn_utils.pad_sequence(5)


def test_pack_padded_sequence():
    def generate_test_case(sorted_lengths, should_shuffle):
        def pad(a, length):
            return np.concatenate([a, np.zeros((length - a.shape[0],) + a.shape[1:])])

        max_length = sorted_lengths[0]
        batch_sizes = [sum(map(bool, filter(lambda x: x >= i, sorted_lengths)))
                       for i in range(1, max_length + 1)]
        padded = np.concatenate(
            [pad(i * 100 + np.arange(1.0, 5 * l + 1).reshape(l, 1, 5), max_length)
             for i, l in enumerate(sorted_lengths, 1)], 1)
        expected_data = [[np.arange(1.0, 6) + (i + 1) * 100 + 5 * n for i in range(bs)]
                         for n, bs in enumerate(batch_sizes)]
        expected_data = np.stack(list(itertools.chain.from_iterable(expected_data)), 0)
        if should_shuffle:
            permutation = list(range(len(sorted_lengths)))
            random.shuffle(permutation)
            unsorted_indices = np.array(permutation)
            padded = padded[:, unsorted_indices]
            lengths = pyad.tensor(np.array(sorted_lengths)[unsorted_indices])
        else:
            unsorted_indices = None
            lengths = sorted_lengths
        return (pyad.tensor(padded, requires_grad=True), lengths, expected_data, batch_sizes,
                unsorted_indices)

    test_cases = [
        [[10, 8, 4, 2, 2, 2, 1], False],
        [[11, 10, 8, 6, 4, 3, 1], False],
        [[11, 10, 8, 6, 4, 3, 1], True],
    ]
    rng = _rng()
    for test_case, batch_first in itertools.product(test_cases, (True, False)):
        sorted_lengths, should_shuffle = test_case
        padded, lengths, expected_data, batch_sizes, unsorted_indices = \
            generate_test_case(sorted_lengths, should_shuffle)
        src = padded
        if batch_first:
            src = src.transpose(0, 1)
        packed = rnn_utils.pack_padded_sequence(src, lengths, batch_first=batch_first,
                                                enforce_sorted=not should_shuffle)
        _eq(packed.data, expected_data)
        _eq(packed.batch_sizes, np.array(batch_sizes))
        if unsorted_indices is None:
            assert packed.unsorted_indices is None
        else:
            _eq(packed.unsorted_indices, unsorted_indices)

        unpacked, unpacked_len = rnn_utils.pad_packed_sequence(packed, batch_first=batch_first)
        _eq(unpacked, src)
        _eq(unpacked_len, _np(lengths) if isinstance(lengths, pyad.Variable)
            else np.array(lengths))

        padded.grad = None
        grad_output = rng.standard_normal(tuple(unpacked.shape))
        unpacked.backward(pyad.tensor(grad_output))
        if batch_first:
            grad_output = grad_output.transpose(1, 0, 2)
        g = _np(padded.grad)
        for i, l in enumerate(_np(lengths) if isinstance(lengths, pyad.Variable)
                              else lengths):
            _eq(g[:l, i], grad_output[:l, i])
            if l < 10:
                assert np.abs(g[l:, i]).sum() == 0

    with pytest.raises(RuntimeError, match="You can pass `enforce_sorted=False`"):
        rnn_utils.pack_padded_sequence(pyad.randn(3, 3), [1, 3, 2])
    with pytest.raises(RuntimeError, match="empty tensor"):
        rnn_utils.pack_padded_sequence(pyad.randn(0, 0), [])
    with pytest.raises(RuntimeError, match="empty tensor"):
        rnn_utils.pack_padded_sequence(pyad.randn(0, 1, 10), pyad.randn(11, 14, 14, 2), True)


def test_to_memory_format():
    m = nn.Conv2d(in_channels=16, out_channels=32, kernel_size=2, bias=True)
    m = m.to(memory_format=pyad.channels_last)
    for param in m.parameters():
        if param.dim() == 4:
            assert param.is_contiguous(memory_format=pyad.channels_last)


# ------------------------------------------------------------------ test_nn.py recurrent


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_variable_sequence(dtype):
    # torch's dtype2prec_DONTUSE: 1e-5 for float and double
    prec = 1e-5
    pdt = getattr(pyad, dtype)

    def pad(var, length):
        if var.shape[0] == length:
            return var
        return pyad.cat([var, pyad.zeros((length - var.shape[0],) + tuple(var.shape[1:]),
                                         dtype=var.dtype)])

    def maybe_index_tuple(maybe_tuple, index):
        if maybe_tuple is None:
            return None
        return tuple(maybe_tuple[j][:, index:index + 1, :].contiguous() for j in range(2))

    def check_lengths(lengths, enforce_sorted, use_default_hiddens, proj_size):
        input_size, hidden_size, num_layers, bidirectional = 3, 4, 2, True
        max_length = max(lengths)
        x_leaf = pyad.randn(max_length, len(lengths), input_size, dtype=pdt,
                            requires_grad=True)
        num_directions = 2
        lstm = nn.LSTM(input_size, hidden_size, bidirectional=bidirectional,
                       num_layers=num_layers, proj_size=proj_size).to(pdt)
        lstm2 = copy.deepcopy(lstm).to(pdt)
        x = x_leaf
        hidden0 = None
        if not use_default_hiddens:
            real_hidden_size = hidden_size if proj_size == 0 else proj_size
            hidden0 = (pyad.randn(num_directions * num_layers, len(lengths), real_hidden_size,
                                  dtype=pdt),
                       pyad.randn(num_directions * num_layers, len(lengths), hidden_size,
                                  dtype=pdt))
        seq_outs, seq_hiddens = [], []
        for i, l in enumerate(lengths):
            out, hid = lstm2(x[:l, i:i + 1], maybe_index_tuple(hidden0, i))
            seq_outs.append(pad(out, max_length))
            seq_hiddens.append(hid)
        seq_out = pyad.cat(seq_outs, 1)
        seq_hidden = tuple(pyad.cat(list(h), 1) for h in zip(*seq_hiddens))

        packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        packed_out, packed_hidden = lstm(packed, hidden0)
        unpacked, unpacked_len = rnn_utils.pad_packed_sequence(packed_out)

        for a, b in zip(packed_hidden, seq_hidden):
            _close(a, b, atol=prec, rtol=0)
        _close(unpacked, seq_out, atol=prec, rtol=0)
        _eq(unpacked_len, np.array(lengths))

        seq_out.sum().backward()
        grad_x = _np(x_leaf.grad).copy()
        x_leaf.grad = None
        unpacked.sum().backward()
        _close(x_leaf.grad, grad_x, atol=prec, rtol=0)
        for p1, p2 in zip(lstm.parameters(), lstm2.parameters()):
            _close(p1.grad, p2.grad, atol=prec, rtol=0)

    tests = [
        [True, [5]],
        [False, [5]],
        [True, [10, 10, 6, 2, 2, 1, 1]],
        [False, [10, 10, 6, 2, 2, 1, 1]],
        [False, [2, 1, 3, 2, 10, 5, 3]],
    ]
    for enforce_sorted, seq_lens in tests:
        for use_default_hiddens in (True, False):
            for proj_size in [0, 2]:
                check_lengths(seq_lens, enforce_sorted, use_default_hiddens, proj_size)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_retain_variables(dtype):
    pdt = getattr(pyad, dtype)
    rnns = [nn.LSTM(10, 20, num_layers=2).to(pdt),
            nn.GRU(10, 20, num_layers=2).to(pdt),
            nn.RNN(10, 20, num_layers=2).to(pdt)]
    for rnn in rnns:
        inp = pyad.randn(5, 6, 10, dtype=pdt, requires_grad=True)
        output = rnn(inp)
        output[0].sum().backward(retain_graph=True)
        grads = [_np(inp.grad).copy()] + [_np(p.grad).copy() for p in rnn.parameters()]
        for _ in range(4):
            rnn.zero_grad()
            inp.grad = pyad.zeros_like(inp.grad)
            output[0].sum().backward(retain_graph=True)
            grads2 = [_np(inp.grad)] + [_np(p.grad) for p in rnn.parameters()]
            for a, b in zip(grads, grads2):
                _eq(a, b)


def test_RNN_dropout():
    # checking the assumption that the dropout sits between the RNN layers
    for p in (0, 0.276, 0.731, 1):
        for train in (True, False):
            rnn = nn.RNN(10, 1000, 2, bias=False, dropout=p, nonlinearity="relu")
            rnn.train(train)
            with pyad.no_grad():
                rnn.weight_ih_l0.fill_(1)
                rnn.weight_hh_l0.fill_(1)
                rnn.weight_ih_l1.fill_(1)
                rnn.weight_hh_l1.fill_(1)
            inp = pyad.ones(1, 1, 10)
            hx = pyad.zeros(2, 1, 1000)
            output, hy = rnn(inp, hx)
            out = _np(output)
            assert out.min() == out.max()
            output_val = float(out[0, 0, 0])
            if p == 0 or not train:
                assert output_val == 10000
            elif p == 1:
                assert output_val == 0
            else:
                assert 8000 < output_val < 12000
                denorm_mod = (output_val * (1 - p)) % 10
                assert min(denorm_mod, 10 - denorm_mod) < 1e-2
            h = _np(hy)
            assert h[0].min() == h[0].max()
            assert h[1].min() == h[1].max()
            assert h[0, 0, 0] == 10
            assert h[1, 0, 0] == output_val


def test_RNN_dropout_state():
    for p in (0, 0.1234):
        for train in (True, False):
            rnn = nn.RNN(100, 100, 2, bias=False, dropout=p, nonlinearity="relu")
            rnn.train(train)
            inp = pyad.rand(1, 1, 100)
            hx = pyad.rand(2, 1, 100)
            output1, hy1 = rnn(inp, hx)
            output2, hy2 = rnn(inp, hx)
            # torch.save pickles the module; pyad.save stores data only (Variables, arrays
            # and containers of them, SPEC), so the module goes through pickle here
            rnn2 = pickle.loads(pickle.dumps(rnn))
            rnn2.flatten_parameters()
            output3, hy3 = rnn2(inp, hx)
            if p == 0 or not train:
                _eq(output1, output2)
                _eq(output1, output3)
                _eq(hy1, hy2)
                _eq(hy1, hy3)
            else:
                assert not np.array_equal(_np(output1), _np(output2))
                assert not np.array_equal(_np(output1), _np(output3))
                assert not np.array_equal(_np(hy1), _np(hy2))
                assert not np.array_equal(_np(hy1), _np(hy3))


# ------------------------------------------------------------------ test/nn/test_pooling.py


def test_adaptive_pooling_size_overflow():
    with pytest.raises(RuntimeError):
        nn.AdaptiveMaxPool1d(0x3FFFFFFFFFFFFFFF)(pyad.empty([2, 2, 2]))


def test_adaptive_pooling_lower_precision():
    # float16 only: pyad has no bfloat16 dtype (SPEC: float16/32/64)
    def helper(mod, memory_format):
        inp = pyad.randint(1, 10, (3, 19, 8, 8), dtype=pyad.float32)
        inp = inp.contiguous(memory_format=memory_format).requires_grad_()
        pool = mod((7, 7))
        inp2 = inp.detach().clone().to(pyad.float16).requires_grad_(True)
        out = pool(inp)
        out.sum().backward()
        out2 = pool(inp2)
        out2.sum().backward()
        assert out2.is_contiguous(memory_format=memory_format)
        assert out2.dtype == pyad.float16
        assert inp2.grad.dtype == pyad.float16
        _close(out, out2.float(), atol=0.1, rtol=0)
        _close(inp.grad, inp2.grad.float(), atol=0.1, rtol=0)

    for mod in (nn.AdaptiveAvgPool2d, nn.AdaptiveMaxPool2d):
        for mf in (pyad.contiguous_format, pyad.channels_last):
            helper(mod, mf)


def test_max_unpool3d_input_check():
    x = pyad.ones(1, 3, 1, 1, 1)
    with pytest.raises(RuntimeError):
        F.max_unpool3d(x, pyad.zeros(x.shape, dtype=pyad.int64), [1, 1])


def test_FractionalMaxPool2d_zero_batch():
    mod = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
    inp = pyad.ones(0, 16, 50, 32)
    out = mod(inp.requires_grad_())
    assert tuple(out.shape)[:2] == (0, 16)
    with pytest.raises(RuntimeError, match="Expected input"):
        mod(pyad.randn(1, 0, 50, 32))


def test_FractionalMaxPool3d_zero_batch():
    mod = nn.FractionalMaxPool3d(3, output_ratio=(0.5, 0.5, 0.5))
    inp = pyad.ones(0, 16, 50, 32, 32)
    out = mod(inp.requires_grad_())
    assert tuple(out.shape)[:2] == (0, 16)
    with pytest.raises(RuntimeError, match="Expected input"):
        mod(pyad.randn(1, 0, 50, 32, 32))


def test_FractionalMaxPool2d_zero_out_size():
    mod = nn.FractionalMaxPool2d([2, 2], output_size=[0, 1])
    out = mod(pyad.rand([16, 50, 32, 32]))
    assert tuple(out.shape) == (16, 50, 0, 1)


def test_FractionalMaxPool3d_zero_out_size():
    mod = nn.FractionalMaxPool3d([3, 2, 2], output_size=[0, 1, 1])
    out = mod(pyad.rand([16, 50, 32, 32]))
    assert tuple(out.shape) == (16, 0, 1, 1)


def test_FractionalMaxPool2d_zero_samples():
    samples = pyad.rand([0, 16, 2])
    mod = nn.FractionalMaxPool2d([2, 2], output_size=[1, 1], _random_samples=samples)
    out = mod(pyad.randn([0, 16, 32, 32]))
    assert tuple(out.shape) == (0, 16, 1, 1)
    with pytest.raises(RuntimeError, match="Expect _random_samples"):
        mod(pyad.randn([1, 16, 32, 32]))


def test_FractionalMaxPool3d_zero_samples():
    samples = pyad.rand([0, 16, 3])
    mod = nn.FractionalMaxPool3d([3, 2, 2], output_size=[1, 1, 1], _random_samples=samples)
    out = mod(pyad.randn([0, 16, 50, 32, 32]))
    assert tuple(out.shape) == (0, 16, 1, 1, 1)
    with pytest.raises(RuntimeError, match="Expect _random_samples"):
        mod(pyad.randn([1, 16, 50, 32, 32]))


def test_fractional_max_pool2d():
    x = pyad.randn(1, 2, 7, 7, dtype=pyad.float64, requires_grad=True)
    samples = pyad.rand(1, 2, 2, dtype=pyad.float64)

    def func(x):
        return F.fractional_max_pool2d(x, (2, 2), output_size=(3, 3), _random_samples=samples)

    assert tuple(func(x).shape) == (1, 2, 3, 3)
    assert gradcheck(func, [x])
    assert gradgradcheck(func, [x])


def test_fractional_max_pool3d():
    x = pyad.randn(1, 2, 7, 7, 7, dtype=pyad.float64, requires_grad=True)
    samples = pyad.rand(1, 2, 3, dtype=pyad.float64)

    def func(x):
        return F.fractional_max_pool3d(x, (2, 2, 2), output_size=(3, 3, 3),
                                       _random_samples=samples)

    assert tuple(func(x).shape) == (1, 2, 3, 3, 3)
    assert gradcheck(func, [x])
    assert gradgradcheck(func, [x])


def test_fractional_max_pool_nan_inf():
    for num_dim in [2, 3]:
        fn = getattr(nn, f"FractionalMaxPool{num_dim}d")(kernel_size=2, output_size=1)
        x = pyad.full([1, 1] + num_dim * [3], float("nan"), requires_grad=True)
        res = fn(x)
        res.backward(pyad.randn(*res.shape))
        assert math.isnan(res.item())
        x2 = pyad.full([1, 1] + num_dim * [3], -float("inf"), requires_grad=True)
        res2 = fn(x2)
        res2.backward(pyad.randn(*res2.shape))
        assert math.isinf(res2.item())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool3d_ndhwc(dtype):
    pdt = getattr(pyad, dtype)
    rng = _rng()

    def helper(n, c, h, w, d, kernel_size, stride=None):
        batch = n or 1
        x = rng.standard_normal((batch, c, d, h, w)).astype(dtype)
        inp = pyad.tensor(x).contiguous(memory_format=pyad.channels_last_3d)
        if not n:
            inp = inp.squeeze(0).detach().clone()
        inp.requires_grad_()
        if isinstance(kernel_size, int):
            kernel_size = [kernel_size] * 3
        if stride is None:
            stride = kernel_size
        elif isinstance(stride, int):
            stride = [stride] * 3
        g = rng.standard_normal((batch, c, (d - kernel_size[0]) // stride[0] + 1,
                                 (h - kernel_size[1]) // stride[1] + 1,
                                 (w - kernel_size[2]) // stride[2] + 1)).astype(dtype)
        grad = pyad.tensor(g).contiguous(memory_format=pyad.channels_last_3d)
        if not n:
            grad = grad.squeeze(0)
        pool = nn.MaxPool3d(kernel_size, stride, return_indices=True)
        ref_input = torch.tensor(_np(inp), requires_grad=True)
        ref_pool = tnn.MaxPool3d(kernel_size, stride, return_indices=True)
        out, ind = pool(inp)
        out.backward(grad)
        ref_out, ref_ind = ref_pool(ref_input)
        ref_out.backward(torch.tensor(_np(grad)))
        if out.dim() == 4:
            assert out.unsqueeze(0).is_contiguous(memory_format=pyad.channels_last_3d)
            assert ind.unsqueeze(0).is_contiguous(memory_format=pyad.channels_last_3d)
        else:
            assert out.is_contiguous(memory_format=pyad.channels_last_3d)
            assert ind.is_contiguous(memory_format=pyad.channels_last_3d)
        _eq(out, ref_out)
        _eq(ind, ref_ind)
        _close(inp.grad, ref_input.grad)

    helper(4, 8, 8, 8, 8, 7)
    helper(4, 8, 8, 8, 8, (5, 6, 7))
    helper(1, 8, 8, 8, 8, (5, 6, 7))
    helper(0, 6, 12, 13, 14, (5, 6, 7))
    helper(4, 8, 7, 7, 7, 3, stride=1)
    helper(10, 128, 19, 19, 19, 3, stride=2)
    helper(10, 128, 19, 19, 19, (1, 2, 3), stride=2)
    helper(1, 128, 19, 19, 19, (1, 2, 3), stride=2)
    helper(0, 128, 19, 19, 19, (1, 2, 3), stride=2)
    helper(1, 79, 4, 4, 4, 3, stride=2)
    helper(0, 79, 4, 4, 4, 3, stride=2)


def test_max_pool_bfloat16_half():
    # float16 only: pyad has no bfloat16 dtype (SPEC: float16/32/64)
    dtype = pyad.float16

    def helper(shape, kernel_size, stride, memory_format):
        inp = pyad.randn(*shape).to(dtype).contiguous(memory_format=memory_format)
        inp.requires_grad_()
        cls = nn.MaxPool2d if len(shape) == 4 else nn.MaxPool3d
        pool = cls(kernel_size, stride, return_indices=True)
        inp2 = inp.detach().clone().float().requires_grad_(True)
        out, ind = pool(inp)
        out.sum().backward()
        out2, ind2 = pool(inp2)
        out2.sum().backward()
        assert out.is_contiguous(memory_format=memory_format)
        assert out.dtype == dtype
        assert inp.grad.dtype == dtype
        _close16(out, out2.to(dtype))
        _eq(ind, ind2)
        _close16(inp.grad, inp2.grad.to(dtype))

    cl, cl3, cf = pyad.channels_last, pyad.channels_last_3d, pyad.contiguous_format
    helper((4, 30, 8, 8), 7, 1, cf)
    helper((4, 65, 8, 8), 7, 1, cl)
    helper((1, 19, 20, 10), 8, 2, cf)
    helper((1, 19, 20, 10), 8, 2, cl)
    helper((1, 19, 10, 10, 10), 8, 2, cf)
    helper((1, 19, 10, 9, 14), 8, 2, cl3)
    helper((4, 10, 3, 8, 8), 3, 1, cf)
    helper((4, 10, 8, 8, 8), 7, 1, cl3)


def test_avg_pool2d_reduced_floating():
    # float16 only: pyad has no bfloat16 dtype (SPEC: float16/32/64)
    dtype = pyad.float16

    def helper(n, c, h, w, kernel_size, stride, memory_format):
        inp = pyad.randn(n, c, h, w).to(dtype).contiguous(memory_format=memory_format)
        inp.requires_grad_()
        pool = nn.AvgPool2d(kernel_size, stride)
        inp2 = inp.detach().clone().float().requires_grad_(True)
        out = pool(inp)
        out.sum().backward()
        out2 = pool(inp2)
        out2.sum().backward()
        assert out.is_contiguous(memory_format=memory_format)
        assert out.dtype == dtype
        assert inp.grad.dtype == dtype
        _close16(out, out2.to(dtype))
        _close16(inp.grad, inp2.grad.to(dtype))

    helper(4, 30, 8, 8, 7, 1, pyad.contiguous_format)
    helper(4, 65, 8, 8, 7, 1, pyad.channels_last)
    helper(1, 19, 20, 10, 8, 2, pyad.contiguous_format)
    helper(1, 19, 20, 10, 8, 2, pyad.channels_last)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pooling_max_nhwc(dtype):
    pdt = getattr(pyad, dtype)

    def helper(n, c, h, w, kernel_size, stride, padding, dilation, contig):
        oh = math.floor((h + 2 * padding[0] - dilation[0] * (kernel_size[0] - 1) - 1)
                        / stride[0] + 1)
        ow = math.floor((w + 2 * padding[1] - dilation[1] * (kernel_size[1] - 1) - 1)
                        / stride[1] + 1)
        inp = pyad.randint(1, 10, (n, c, h, w), dtype=pdt)
        inp = inp.contiguous(memory_format=pyad.channels_last)
        grad = pyad.randint(1, 10, (n, c, oh, ow), dtype=pdt)
        grad = grad.contiguous(memory_format=pyad.channels_last)
        if not contig:
            inp = inp[:, ::2, :, :]
            grad = grad[:, ::2, :, :]
        inp.requires_grad_(True)
        pool = nn.MaxPool2d(kernel_size, stride, padding, dilation, return_indices=True,
                            ceil_mode=False)
        ref_input = torch.tensor(_np(inp), requires_grad=True)
        ref_pool = tnn.MaxPool2d(kernel_size, stride, padding, dilation, return_indices=True,
                                 ceil_mode=False)
        out, ind = pool(inp)
        out.backward(grad)
        ref_out, ref_ind = ref_pool(ref_input)
        ref_out.backward(torch.tensor(_np(grad)))
        assert out.is_contiguous(memory_format=pyad.channels_last)
        assert ind.is_contiguous(memory_format=pyad.channels_last)
        _eq(out, ref_out)
        _eq(ind, ref_ind)
        _eq(inp.grad, ref_input.grad)

    for contig in [True, False]:
        helper(4, 8, 10, 10, (2, 2), (1, 1), (1, 1), (2, 2), contig)
        helper(4, 8, 9, 14, (2, 2), (1, 1), (1, 1), (2, 2), contig)
        helper(4, 8, 11, 11, (4, 4), (2, 2), (2, 2), (2, 2), contig)


def test_AdaptiveMaxPool3d_indices():
    module = nn.AdaptiveMaxPool3d(2, return_indices=True)
    inp = pyad.arange(1, 4 ** 4 + 1, dtype=pyad.float32).view(2, 2, 4, 4, 4)
    inp.requires_grad_()
    output, indices = module(inp)
    assert output.requires_grad
    assert not indices.requires_grad
    output.backward(pyad.ones(*output.shape))
    expected = np.zeros((2, 2, 4, 4, 4), dtype=np.float32)
    expected[:, :, 1::2, 1::2, 1::2] = 1
    _eq(inp.grad, expected)


def test_maxpool_indices_no_batch_dim():
    """Check that indices with no batch dim is consistent with a single batch."""
    max_pool_cases = [
        (nn.MaxPool1d(3, return_indices=True), pyad.randn(3, 5)),
        (nn.MaxPool2d(3, return_indices=True), pyad.randn(3, 5, 6)),
        (nn.MaxPool3d(3, return_indices=True), pyad.randn(3, 5, 6, 7)),
        (nn.AdaptiveMaxPool1d(3, return_indices=True), pyad.randn(3, 5)),
        (nn.AdaptiveMaxPool2d(3, return_indices=True), pyad.randn(3, 5, 6)),
        (nn.AdaptiveMaxPool3d(3, return_indices=True), pyad.randn(3, 5, 6, 7)),
    ]
    for module, inp in max_pool_cases:
        _, indices_no_batch = module(inp)
        _, indices_single_batch = module(inp.unsqueeze(0))
        _eq(indices_no_batch, indices_single_batch.squeeze(0))


def test_pool_large_size():
    for op in ("max", "avg"):
        for num_dim in [1, 2, 3]:
            fn = getattr(F, f"{op}_pool{num_dim}d")
            # 16777217 is the smallest integer not expressible in float32
            x = pyad.ones(*([1, 1, 16777217] + (num_dim - 1) * [1]))
            res = fn(x, 1, stride=1, padding=0)
            assert x.shape[2] == res.shape[2]


def test_maxpool3d_non_square_backward():
    # every position gets its gradient whichever dimension is the long one
    for dim in (2, 3, 4):
        shape = tuple(32 if i != dim else 256 for i in range(4))
        x = pyad.randn(*shape, requires_grad=True)
        F.max_pool3d(x, kernel_size=(1, 1, 1)).sum().backward()
        _eq(x.grad, np.ones(shape, dtype=np.float32))


def test_adaptive_pool_odd_size():
    # torch's slow test pools (11, 5873, 3693) images to (3527, 2219) and only checks that
    # nothing crashes; the same odd-size ratio on smaller odd sizes, compared with torch.
    Ih, Iw, Oh, Ow = 587, 369, 353, 222
    imgs = np.random.default_rng(0).integers(0, 256, size=(3, Ih, Iw)).astype(np.float32)
    for pf, tf in ((F.adaptive_avg_pool2d, tF.adaptive_avg_pool2d),
                   (F.adaptive_max_pool2d, tF.adaptive_max_pool2d)):
        _close32(pf(pyad.tensor(imgs), (Oh, Ow)), tf(torch.tensor(imgs), (Oh, Ow)))
    Id, Ih, Iw, Od, Oh, Ow = 3, 117, 73, 3, 71, 43
    imgs = np.random.default_rng(1).integers(0, 256, size=(3, Id, Ih, Iw)).astype(np.float32)
    _close32(F.adaptive_avg_pool3d(pyad.tensor(imgs), (Od, Oh, Ow)),
             tF.adaptive_avg_pool3d(torch.tensor(imgs), (Od, Oh, Ow)))


# ------------------------------------------------------ test_nn.py: interpolate / upsample


@pytest.mark.parametrize("isize, osize", [(20, 11), (10, 15)])
def test_upsamplingNearest1d_correctness(isize, osize):
    # the output matches OpenCV's INTER_NEAREST-like result
    in_t = pyad.arange(isize, dtype=pyad.float32).unsqueeze(0).unsqueeze(0)
    out_t = F.interpolate(in_t, size=(osize,), recompute_scale_factor=False, mode="nearest")
    expected = np.zeros((1, 1, osize), dtype=np.float32)
    scale = 1.0 * isize / osize
    for o in range(osize):
        expected[0, 0, o] = _np(in_t)[0, 0, int(o * scale)]
    _eq(out_t, expected)


@pytest.mark.parametrize("isize, osize", [(20, 11), (10, 15)])
def test_upsamplingNearestExact1d_correctness(isize, osize):
    # the output matches Scikit-Image/Scipy-like result
    in_t = pyad.arange(isize, dtype=pyad.float32).unsqueeze(0).unsqueeze(0)
    out_t = F.interpolate(in_t, size=(osize,), recompute_scale_factor=False,
                          mode="nearest-exact")
    expected = np.zeros((1, 1, osize), dtype=np.float32)
    scale = 1.0 * isize / osize
    for o in range(osize):
        i = int((o + 0.5) * scale)
        expected[0, 0, o] = _np(in_t)[0, 0, i]
    _eq(out_t, expected)


def test_upsamplingNearestExact1d_rescale():
    # https://github.com/pytorch/pytorch/issues/62237
    isize = 20
    in_t = pyad.arange(isize, dtype=pyad.float32).unsqueeze(0).unsqueeze(0)
    for s in [1.00001]:
        out_t = F.interpolate(in_t, scale_factor=s, recompute_scale_factor=False,
                              mode="nearest-exact")
        _eq(out_t, in_t)
    # data duplication if output_size == 2 * input_size
    for s in [2.00001]:
        out_t = F.interpolate(in_t, scale_factor=s, recompute_scale_factor=False,
                              mode="nearest-exact")
        _eq(out_t, np.repeat(_np(in_t), 2, axis=-1))


def _nearest_nd_expected(in_np, osize, exact):
    isize = in_np.shape[-1]
    scale = 1.0 * isize / osize
    idx = [min(int(((o + 0.5) if exact else o) * scale), isize - 1) for o in range(osize)]
    out = in_np
    for ax in range(2, in_np.ndim):
        out = np.take(out, idx, axis=ax)
    return out


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("isize, osize", [(20, 11), (10, 15)])
def test_upsamplingNearest2d_correctness(memory_format, isize, osize):
    mf = getattr(pyad, memory_format)
    in_t = pyad.arange(isize * isize, dtype=pyad.float32).reshape(1, 1, isize, isize)
    in_t = in_t.contiguous(memory_format=mf)
    out_t = F.interpolate(in_t, size=(osize, osize), recompute_scale_factor=False,
                          mode="nearest")
    _eq(out_t, _nearest_nd_expected(_np(in_t), osize, False))


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("isize, osize", [(20, 11), (10, 15)])
def test_upsamplingNearestExact2d_correctness(memory_format, isize, osize):
    mf = getattr(pyad, memory_format)
    in_t = pyad.arange(isize * isize, dtype=pyad.float32).reshape(1, 1, isize, isize)
    in_t = in_t.contiguous(memory_format=mf)
    out_t = F.interpolate(in_t, size=(osize, osize), recompute_scale_factor=False,
                          mode="nearest-exact")
    _eq(out_t, _nearest_nd_expected(_np(in_t), osize, True))


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last_3d"])
@pytest.mark.parametrize("isize, osize", [(20, 11), (10, 15)])
def test_upsamplingNearest3d_correctness(memory_format, isize, osize):
    mf = getattr(pyad, memory_format)
    in_t = pyad.arange(isize * isize * isize, dtype=pyad.float32)
    in_t = in_t.reshape(1, 1, isize, isize, isize).contiguous(memory_format=mf)
    out_t = F.interpolate(in_t, size=(osize, osize, osize), recompute_scale_factor=False,
                          mode="nearest")
    _eq(out_t, _nearest_nd_expected(_np(in_t), osize, False))


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last_3d"])
@pytest.mark.parametrize("isize, osize", [(20, 11), (10, 15)])
def test_upsamplingNearestExact3d_correctness(memory_format, isize, osize):
    mf = getattr(pyad, memory_format)
    in_t = pyad.arange(isize * isize * isize, dtype=pyad.float32)
    in_t = in_t.reshape(1, 1, isize, isize, isize).contiguous(memory_format=mf)
    out_t = F.interpolate(in_t, size=(osize, osize, osize), recompute_scale_factor=False,
                          mode="nearest-exact")
    _eq(out_t, _nearest_nd_expected(_np(in_t), osize, True))


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
def test_upsamplingBicubic2d_correctness(memory_format):
    # align_corners=False result must match opencv (torch's literal values)
    mf = getattr(pyad, memory_format)
    in_t = pyad.arange(8.0).view(1, 2, 2, 2).contiguous(memory_format=mf)
    expected = np.array(
        [[[[-0.31641, 0.01562, 0.56250, 0.89453],
           [0.34766, 0.67969, 1.22656, 1.55859],
           [1.44141, 1.77344, 2.32031, 2.65234],
           [2.10547, 2.43750, 2.98438, 3.31641]],
          [[3.68359, 4.01562, 4.56250, 4.89453],
           [4.34766, 4.67969, 5.22656, 5.55859],
           [5.44141, 5.77344, 6.32031, 6.65234],
           [6.10547, 6.43750, 6.98438, 7.31641]]]], dtype=np.float32)
    out_t = F.interpolate(in_t, scale_factor=2, mode="bicubic", align_corners=False)
    _close(out_t, expected, atol=1e-5, rtol=0)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("antialias", [True, False])
def test_upsamplingBiMode2d(mode, align_corners, memory_format, antialias):
    mf = getattr(pyad, memory_format)
    kwargs = dict(mode=mode, align_corners=align_corners, antialias=antialias)
    for scale_factor in [0.5, 1.5, 2]:
        in_t = pyad.ones(2, 3, 8, 8, dtype=pyad.float64).contiguous(memory_format=mf)
        in_t.requires_grad_()
        out_size = int(math.floor(in_t.shape[-1] * scale_factor))
        with warnings.catch_warnings(record=True):
            out_t = F.interpolate(in_t, scale_factor=scale_factor, **kwargs)
        # torch's assertEqual float64 tolerances (bicubic weights sum to 1 up to rounding)
        _close(out_t, np.ones((2, 3, out_size, out_size)), atol=1e-7, rtol=1e-7)
        assert out_t.is_contiguous(memory_format=mf)
        out_t.backward(pyad.randn(*out_t.shape, dtype=pyad.float64))
        assert in_t.grad.is_contiguous(memory_format=mf)
        # (torch checks the gradients on the (2, 3, 8, 8) input; a (1, 2, 6, 6) one takes
        # every path, a tenth of the finite differences)
        inp = pyad.randn(1, 2, 6, 6, dtype=pyad.float64).contiguous(memory_format=mf)
        inp.requires_grad_()
        size = int(math.floor(6 * scale_factor))
        assert gradcheck(lambda x: F.interpolate(x, size, **kwargs), [inp])
        assert gradgradcheck(lambda x: F.interpolate(x, size, **kwargs), [inp])


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last_3d"])
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_upsamplingNearest3d(memory_format, mode):
    mf = getattr(pyad, memory_format)
    m = nn.Upsample(size=4, mode=mode)
    in_t = pyad.ones(1, 2, 2, 2, 2, dtype=pyad.float64).contiguous(memory_format=mf)
    in_t.requires_grad_()
    # torch also runs a uint8 input; pyad's interpolate is for floating Variables
    with warnings.catch_warnings(record=True):
        out_t = m(in_t)
    _eq(out_t, np.ones((1, 2, 4, 4, 4)))
    assert out_t.is_contiguous(memory_format=mf)
    out_t.backward(pyad.randn(*out_t.shape, dtype=pyad.float64))
    assert in_t.grad.is_contiguous(memory_format=mf)
    inp = pyad.randn(1, 2, 2, 2, 2, dtype=pyad.float64).contiguous(memory_format=mf)
    inp.requires_grad_()
    assert gradcheck(lambda x: F.interpolate(x, 4, mode=mode), [inp])
    assert gradgradcheck(lambda x: F.interpolate(x, 4, mode=mode), [inp])


@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last_3d"])
def test_upsamplingTrilinear3d(align_corners, memory_format):
    mf = getattr(pyad, memory_format)
    kwargs = dict(mode="trilinear", align_corners=align_corners)
    for scale_factor in [0.5, 1.5, 2]:
        m = nn.Upsample(scale_factor=scale_factor, **kwargs)
        in_t = pyad.ones(1, 2, 4, 4, 4, dtype=pyad.float64).contiguous(memory_format=mf)
        in_t.requires_grad_()
        out_size = int(math.floor(in_t.shape[-1] * scale_factor))
        with warnings.catch_warnings(record=True):
            out_t = m(in_t)
        _close(out_t, np.ones((1, 2, out_size, out_size, out_size)), atol=1e-7, rtol=1e-7)
        assert out_t.is_contiguous(memory_format=mf)
        grad_out = pyad.randn(*out_t.shape, dtype=pyad.float64).contiguous(memory_format=mf)
        in_t.grad = None
        out_t.backward(grad_out)
        grad_in = in_t.grad
        assert grad_in.is_contiguous(memory_format=mf)
        if memory_format == "channels_last_3d":
            # the channels-last result equals the contiguous one
            in_t2 = pyad.ones(1, 2, 4, 4, 4, dtype=pyad.float64, requires_grad=True)
            out_t2 = m(in_t2)
            out_t2.backward(grad_out.contiguous())
            _eq(out_t, out_t2)
            _eq(grad_in, in_t2.grad)
        inp = pyad.randn(1, 2, 4, 4, 4, dtype=pyad.float64).contiguous(memory_format=mf)
        inp.requires_grad_()
        assert gradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [inp])
        assert gradgradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [inp])


@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
def test_upsamplingBilinear2d_aa_correctness(memory_format):
    # torch expands the batch past CUDA's grid limit (23000); a batch of 2 on the CPU
    shape = [2, 3, 8, 8]
    t_in = np.arange(3 * 8 * 8, dtype=np.float32).reshape(1, *shape[1:])
    t_in = np.broadcast_to(t_in, shape).copy()
    expected = tF.interpolate(torch.tensor(t_in), size=(2, 2), mode="bilinear",
                              align_corners=False, antialias=True)
    p_in = pyad.tensor(t_in).contiguous(memory_format=getattr(pyad, memory_format))
    t_out = F.interpolate(p_in, size=(2, 2), mode="bilinear", align_corners=False,
                          antialias=True)
    _close32(t_out, expected)


def test_interpolate_illegal_memory_access():
    in_s, out_s = 45, 14
    inp = pyad.ones((1, 1, in_s), requires_grad=True)
    # grad_output is a slice of a larger buffer, so an out of bound read would show
    grad = pyad.ones((1, 1, out_s * 2))[:, :, :out_s]
    input_ref = torch.ones((1, 1, in_s), requires_grad=True)
    grad_ref = torch.ones((1, 1, out_s * 2))[:, :, :out_s]
    out = F.interpolate(inp, size=(out_s,), mode="nearest")
    out.backward(grad)
    out_ref = tF.interpolate(input_ref, size=(out_s,), mode="nearest")
    out_ref.backward(grad_ref)
    _eq(out, out_ref)
    _eq(inp.grad, input_ref.grad)


# ------------------------------------------------------- test_nn.py: grid_sample / affine


def _rotate_2d(angle_rad, input_size, output_size, seed=0):
    # torch compares affine_grid + grid_sample (border padding, align_corners=True) for a
    # rotation against scipy.ndimage.affine_transform; here against torch's own pipeline
    # on the same input and rotation
    x = np.random.default_rng(seed).random(input_size).astype(np.float32)
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    theta = np.array([[[c, -s, 0.0], [s, c, 0.0]]], dtype=np.float32)
    with warnings.catch_warnings():
        # both warn about unit-size grids with align_corners=True (the [1, 6] output)
        warnings.simplefilter("ignore")
        tg = tF.affine_grid(torch.tensor(theta), output_size, align_corners=True)
        pg = F.affine_grid(pyad.tensor(theta), output_size, align_corners=True)
    to = tF.grid_sample(torch.tensor(x), tg, padding_mode="border", align_corners=True)
    po = F.grid_sample(pyad.tensor(x), pg, padding_mode="border", align_corners=True)
    _close32(pg, tg)
    _close32(po.mean(), to.mean())
    _close32(po, to)


def test_affine_2d_rotate0():
    _rotate_2d(0.0, [1, 1, 3, 3], [1, 1, 5, 5])


def test_affine_2d_rotate90():
    for input_size2dsq, output_size2dsq in itertools.product([[3, 3], [4, 4]],
                                                             [[3, 3], [4, 4]]):
        _rotate_2d(math.pi / 2, [1, 1] + input_size2dsq, [1, 1] + output_size2dsq)


def test_affine_2d_rotate45():
    _rotate_2d(math.pi / 4, [1, 1, 3, 3], [1, 1, 3, 3])


def test_affine_2d_rotateRandom():
    rng = np.random.default_rng(3)
    for angle_rad, input_size2d, output_size2d in itertools.product(
            rng.random(3) * 2 * math.pi, [[2, 4], [3, 3], [5, 2]], [[5, 3], [3, 3], [1, 6]]):
        _rotate_2d(float(angle_rad), [1, 1] + input_size2d, [1, 1] + output_size2d)


def test_affine_3d_rotateRandom():
    rng = np.random.default_rng(4)
    for angle_rad, axis_vector, input_size3d, output_size3d in itertools.product(
            rng.random(2) * 2 * math.pi, rng.random((2, 3)).tolist(),
            [[2, 3, 4], [3, 3, 3]], [[4, 3, 2], [3, 3, 3]]):
        a = np.array(axis_vector) / np.linalg.norm(axis_vector)
        K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
        R = np.eye(3) + math.sin(angle_rad) * K + (1 - math.cos(angle_rad)) * K @ K
        theta = np.concatenate([R, np.zeros((3, 1))], 1)[None].astype(np.float32)
        x = rng.random([1, 1] + input_size3d).astype(np.float32)
        size = [1, 1] + output_size3d
        tg = tF.affine_grid(torch.tensor(theta), size, align_corners=True)
        to = tF.grid_sample(torch.tensor(x), tg, padding_mode="border", align_corners=True)
        pg = F.affine_grid(pyad.tensor(theta), size, align_corners=True)
        po = F.grid_sample(pyad.tensor(x), pg, padding_mode="border", align_corners=True)
        _close32(po.mean(), to.mean())
        _close32(po, to)


def test_grid_sample_nan_inf():
    for dtype in ("float32", "float64"):
        inp = pyad.zeros([1, 1, 3, 3], dtype=getattr(pyad, dtype))
        grid = pyad.tensor(np.array([[[[np.nan, 0], [0, np.inf]]]], dtype=dtype))
        for padding_mode in ("reflection", "border", "zeros"):
            sample = F.grid_sample(input=inp, grid=grid, mode="nearest",
                                   padding_mode=padding_mode, align_corners=False)
            _eq(sample, np.zeros([1, 1, 1, 2], dtype=dtype))


def test_affine_grid():
    # known input
    inp = pyad.arange(1.0, 7).view(1, 2, 3)
    output = F.affine_grid(inp, [1, 1, 2, 2], align_corners=True)
    groundtruth = np.array([[[0., -3.], [2., 5.]], [[4., 7.], [6., 15.]]],
                           dtype=np.float32).reshape(1, 2, 2, 2)
    _close32(output, groundtruth)
    output = F.affine_grid(inp, [1, 1, 2, 2], align_corners=False)
    groundtruth = np.array([[[1.5, 1.5], [2.5, 5.5]], [[3.5, 6.5], [4.5, 10.5]]],
                           dtype=np.float32).reshape(1, 2, 2, 2)
    _close32(output, groundtruth)
    for align_corners in (True, False):
        N, C, H, W = (random.randint(1, 8) for _ in range(4))
        sz = [N, C, H, W]
        inp = pyad.randn(N, 2, 3, dtype=pyad.float64, requires_grad=True)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            assert gradcheck(lambda i: F.affine_grid(i, sz, align_corners=align_corners),
                             (inp,))


@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_backward_cl_cf_consistency(align_corners):
    # https://github.com/pytorch/pytorch/issues/124154
    for dtype in (pyad.float32, pyad.float64):
        theta = pyad.rand(6, 2, 3, dtype=dtype, requires_grad=True)
        size = [6, 3, 1024, 1024]
        grid = F.affine_grid(theta, size, align_corners=align_corners)
        grad_tensor = pyad.rand(*grid.shape, dtype=dtype)
        grad_tensor_cl = grad_tensor.contiguous(memory_format=pyad.channels_last)
        theta.grad = None
        grid.backward(grad_tensor_cl, retain_graph=True)
        theta_grad_cl = _np(theta.grad).copy()
        theta.grad = None
        grid.backward(grad_tensor)
        _eq(theta.grad, theta_grad_cl)


def _grid_grad_close(pg, tg):
    # pyad's grid_sample is differentiable in the grid for the interpolating modes only
    # (its docstring); 'nearest' leaves grid.grad None where torch's is all zeros
    if pg.grad is None:
        assert not np.any(tg.grad.numpy())
    else:
        _close(pg.grad, tg.grad)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample(mode):
    # torch's test compares known inputs against literal outputs for every mode and padding
    # mode, gradchecks random shapes and compares CPU against CUDA; here the same inputs
    # against torch's CPU outputs and gradients, plus the gradchecks.
    rng = _rng()

    def run(N, C, IH, IW, H, W, mode, padding_mode, align_corners):
        x = rng.standard_normal((N, C, IH, IW))
        g = rng.uniform(-1.2, 1.2, size=(N, H, W, 2))
        w = rng.standard_normal((N, C, H, W))
        tx, tg = _t(x, True), _t(g, True)
        px, pg = _p(x, True), _p(g, True)
        to = tF.grid_sample(tx, tg, mode=mode, padding_mode=padding_mode,
                            align_corners=align_corners)
        po = F.grid_sample(px, pg, mode=mode, padding_mode=padding_mode,
                           align_corners=align_corners)
        _close(po, to)
        (to * _t(w)).sum().backward()
        (po * _p(w)).sum().backward()
        _close(px.grad, tx.grad)
        _grid_grad_close(pg, tg)

    for padding_mode in ("zeros", "border", "reflection"):
        for align_corners in (True, False):
            run(2, 3, 5, 7, 4, 6, mode, padding_mode, align_corners)
            run(1, 1, 1, 1, 3, 2, mode, padding_mode, align_corners)
            # test known input: the identity grid of a 1x1x5x5 input
            inp = pyad.arange(1.0, 26).view(1, 1, 5, 5)
            grid = F.affine_grid(pyad.tensor([[[1.0, 0, 0], [0, 1, 0]]]), [1, 1, 5, 5],
                                 align_corners=align_corners)
            tinp = torch.arange(1.0, 26).view(1, 1, 5, 5)
            tgrid = tF.affine_grid(torch.tensor([[[1.0, 0, 0], [0, 1, 0]]]),
                                   [1, 1, 5, 5], align_corners=align_corners)
            _close32(F.grid_sample(inp, grid, mode=mode, padding_mode=padding_mode,
                                   align_corners=align_corners),
                     tF.grid_sample(tinp, tgrid, mode=mode, padding_mode=padding_mode,
                                    align_corners=align_corners))
            if mode != "nearest":
                x = pyad.randn(1, 2, 3, 4, dtype=pyad.float64, requires_grad=True)
                g = pyad.tensor(rng.uniform(-1, 1, size=(1, 2, 3, 2)), requires_grad=True)
                assert gradcheck(
                    lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode,
                                               align_corners=align_corners), (x, g))


def test_grid_sample_3d():
    rng = _rng(1)
    for mode in ("bilinear", "nearest"):
        for padding_mode in ("zeros", "border", "reflection"):
            for align_corners in (True, False):
                x = rng.standard_normal((2, 3, 4, 5, 3))
                g = rng.uniform(-1.2, 1.2, size=(2, 3, 2, 4, 3))
                w = rng.standard_normal((2, 3, 3, 2, 4))
                tx, tg = _t(x, True), _t(g, True)
                px, pg = _p(x, True), _p(g, True)
                to = tF.grid_sample(tx, tg, mode=mode, padding_mode=padding_mode,
                                    align_corners=align_corners)
                po = F.grid_sample(px, pg, mode=mode, padding_mode=padding_mode,
                                   align_corners=align_corners)
                _close(po, to)
                (to * _t(w)).sum().backward()
                (po * _p(w)).sum().backward()
                _close(px.grad, tx.grad)
                _grid_grad_close(pg, tg)
                if mode == "bilinear":
                    a = pyad.randn(1, 1, 2, 3, 2, dtype=pyad.float64, requires_grad=True)
                    b = pyad.tensor(rng.uniform(-1, 1, size=(1, 2, 2, 1, 3)),
                                    requires_grad=True)
                    assert gradcheck(
                        lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode,
                                                   align_corners=align_corners), (a, b))


# ------------------------------------------------------------ test_nn.py: one_hot, gumbel


def test_one_hot():
    with pytest.raises(RuntimeError):
        F.one_hot(pyad.tensor([3, 4, -1, 0]), -1)
    with pytest.raises(RuntimeError):
        F.one_hot(pyad.tensor([3, 4, 1, 0]), 3)

    expected = np.array([[0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [0, 1, 0, 0, 0], [1, 0, 0, 0, 0]])
    _eq(F.one_hot(pyad.tensor([3, 4, 1, 0])), expected)
    _eq(F.one_hot(pyad.tensor([3, 4, 1, 0]), -1), expected)
    t = F.one_hot(pyad.tensor([3, 4, 1, 0]), 6)
    _eq(t, np.array([[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 0],
                     [1, 0, 0, 0, 0, 0]]))
    t = F.one_hot(pyad.tensor([[3, 4], [1, 0]]))
    _eq(t, np.array([[[0, 0, 0, 1, 0], [0, 0, 0, 0, 1]], [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]]))
    _eq(F.one_hot(pyad.tensor(4)), np.array([0, 0, 0, 0, 1]))
    t = F.one_hot(pyad.empty([4, 0], dtype=pyad.int64), 100)
    _eq(t, np.empty([4, 0, 100], dtype=np.int64))
    assert t.dtype == pyad.int64
    with pytest.raises(RuntimeError):
        F.one_hot(pyad.empty([4, 0], dtype=pyad.int64))
    with pytest.raises(RuntimeError):
        F.one_hot(pyad.tensor([3, 4, 1, 0]), -2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gumbel_softmax(dtype):
    pdt = getattr(pyad, dtype)
    eps = float(np.finfo(dtype).eps)

    def st_shapes(shape, dim, count_expected):
        logits = pyad.randn(*shape).to(pdt)
        y_draw = F.gumbel_softmax(logits, hard=True, dim=dim)
        assert float(y_draw.detach().min()) >= 0
        assert tuple(y_draw.shape) == tuple(logits.shape)
        _close(y_draw.sum(), np.array(count_expected, dtype=dtype), atol=eps, rtol=0)

    def straight_through():
        num_draws = 100
        logits = pyad.tensor([[0.2, 0.8, 0.1]]).reshape([1, 3]).to(pdt).requires_grad_()
        probs = logits.softmax(dim=-1)
        counts = pyad.zeros_like(logits)
        for _ in range(num_draws):
            y_draw = F.gumbel_softmax(logits, hard=True)
            counts = counts + y_draw
        assert float(y_draw.detach().min()) >= 0
        _close(counts.sum(), np.array(num_draws, dtype=dtype), atol=eps, rtol=0)
        expected = probs * num_draws
        z = (counts - expected) / (expected * (1 - probs)).sqrt()
        assert float(z.abs().max().item()) < 2.58

    def grad():
        # "hard" and "not hard" propagate the same gradient
        logits_soft = pyad.zeros(10, 10, dtype=pdt, requires_grad=True)
        logits_hard = pyad.zeros(10, 10, dtype=pdt, requires_grad=True)
        seed = pyad.get_rng_state()
        y_soft = F.gumbel_softmax(logits_soft, hard=False)
        pyad.set_rng_state(seed)
        y_hard = F.gumbel_softmax(logits_hard, hard=True)
        y_soft.sum().backward()
        y_hard.sum().backward()
        _close(logits_soft.grad, logits_hard.grad, atol=2 * eps, rtol=0)

    st_shapes([5], 0, 1)
    st_shapes([5], -1, 1)
    st_shapes([5, 4], 1, 5)
    st_shapes([5, 4, 3], 1, 5 * 3)
    st_shapes([5, 4, 3], -1, 5 * 4)
    straight_through()
    grad()

"""More of PyTorch's own autograd tests (``test/test_autograd.py``, the tests after
``test_unused_output``), translated to pyad.

Each test keeps torch's name and the meaning of its assertions; ``torch.randn`` becomes a
fixed-seed NumPy draw, op and node names become pyad's ("mul", "MulBackward"). Expected
values come from torch's test (hand math) or from torch 2.13 run on the same inputs,
never from pyad's output. Where the stored test and torch 2.13 disagree, torch 2.13 wins.
"""
import gc
import math
import warnings

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import Function, gradcheck, gradgradcheck
from pyad.autograd.profiler import profile, record_function
from pyad.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg

from _ported_helpers import SeededRandom, assert_equal, double_default_dtype  # noqa: F401

_random = SeededRandom(100)
randn, rand = _random.randn, _random.rand


def test_gc_in_destructor():
    # A legacy Function whose destructor runs a collection must not free a Variable twice.
    class CollectOnDelete(Function):
        def forward(self, x):
            return x

        def backward(self, grad_output):
            return grad_output

        def __del__(self):
            gc.collect()

    for _ in range(10):
        CollectOnDelete().forward(randn(1, requires_grad=True)).backward()


def test_naughty_autograd_function_stashing_ctx_after_retained_backward():
    # torch's test_naughty_autograd_function_stashing_ctx, first half: while the graph is
    # alive (retain_graph=True and the output still referenced), the stashed ctx reads.
    saved_ctx = []

    class Id(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad_x):
            saved_ctx.append(ctx)
            return ctx.saved_tensors

    p = pyad.zeros(1, requires_grad=True)
    loss = Id.apply(p)
    loss.backward(retain_graph=True)
    assert len(saved_ctx[0].saved_tensors) == 1
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        saved_ctx[0].saved_tensors


def test_detach_then_inplace_raises_in_autograd():
    x = Variable(np.array(0.5), requires_grad=True)
    y = x ** 2          # saves x
    z = x.detach()
    z.zero_()
    with pytest.raises(RuntimeError, match="has been modified by an inplace"):
        y.backward()


def _test_type_conversion_backward():
    fvar = Variable(np.random.default_rng(0).standard_normal((5, 5)).astype(np.float32),
                    requires_grad=True)
    fvar.double().sum().backward()
    assert_equal(fvar.grad, np.ones((5, 5)))
    assert fvar.grad.dtype == pyad.float32 and type(fvar.grad) is type(fvar)
    dvar = Variable(np.random.default_rng(1).standard_normal((5, 5)), requires_grad=True)
    dvar.float().sum().backward()
    assert_equal(dvar.grad, np.ones((5, 5)))
    assert dvar.grad.dtype == pyad.float64 and type(dvar.grad) is type(dvar)


def test_type_conversions():
    # torch's test checks the legacy tensor types (torch.FloatTensor, ...); pyad has
    # dtypes only, so the same conversions are checked through .dtype.
    x = randn(5, 5)
    assert x.float().dtype == pyad.float32
    assert x.int().dtype == pyad.int32
    for dtype in (pyad.float64, pyad.float32, pyad.int32, pyad.uint8):
        y = pyad.randint(5, (5, 5), dtype=dtype)
        assert x.type_as(y).dtype == dtype
        assert x.to(dtype).dtype == dtype
    _test_type_conversion_backward()


def test_variable_traverse():
    def get_out_and_unrefed_cycle():
        inp = randn(10, requires_grad=True)
        tmp = inp.view(10, 1)
        out = tmp.view(10)
        # a reference cycle that holds an intermediate Variable of the graph
        my_list = []
        my_list.append(tmp)
        my_list.append(my_list)
        return out

    out = get_out_and_unrefed_cycle()
    gc.collect()
    out.backward(randn(*out.size()))      # would crash if something was freed wrongly


def test_pow_zero_tensor_gradient():
    def run_test(input_size, exponent):
        input = pyad.zeros(*input_size, requires_grad=True)
        input.pow(exponent).sum().backward()
        assert input.grad.abs().sum().item() == 0

    run_test((10,), pyad.zeros(10))
    run_test((10, 10), pyad.zeros(10, 10))
    run_test((10,), 0)


def test_profiler():
    x = randn(10, 10)
    with profile() as p:
        y = x * 2 + 4
    names = ["mul", "add"]
    found = {names.index(evt.name) for evt in p.function_events if evt.name in names}
    assert len(found) == len(names)


def test_profiler_seq_nr():
    with profile() as p:
        x = randn(10, 10, requires_grad=True)
        y = randn(10, 10, requires_grad=True)
        z = x + y
        s = z.sum()
        s.backward()
    add_seq_nr = sum_seq_nr = -1
    found_add = found_sum = found_bwd_add = found_bwd_sum = False
    for e in p.function_events:
        if e.name == "add":
            add_seq_nr = e.sequence_nr
            assert not found_add
            found_add = True
        elif e.name == "sum":
            sum_seq_nr = e.sequence_nr
            assert not found_sum
            found_sum = True
        elif "Add" in e.name and "Backward" in e.name:
            assert e.sequence_nr == add_seq_nr
            assert not found_bwd_add
            found_bwd_add = True
        elif "Sum" in e.name and "Backward" in e.name:
            assert e.sequence_nr == sum_seq_nr
            assert not found_bwd_sum
            found_bwd_sum = True
    assert add_seq_nr >= 0 and sum_seq_nr >= 0 and add_seq_nr != sum_seq_nr
    assert found_add and found_sum and found_bwd_add and found_bwd_sum


def test_record_function_callbacks():
    x = randn(10, 10)
    with profile() as p:
        with record_function("foo"):
            y = x * 2 + 4
    foo_event = [event for event in p.function_events if "foo" in event.name][0]
    assert foo_event.count == 1


def test_profiler_aggregation_fake():
    events = EventList()
    ids = [0]

    def get_id():
        ids[0] += 1
        return ids[0]

    # [[thread_id, [(start, end, id), ...]], ...]
    threads = [
        [1, [(0, 1, get_id()), (1, 2, get_id())]],
        [0, [(0, 2, get_id()), (1, 2, get_id()), (1, 3, get_id())]],
    ]
    for thread, ranges in threads:
        for r in ranges:
            events.append(FunctionEvent(id=r[2], node_id=0, name="", thread=thread,
                                        start_us=r[0], end_us=r[1]))
    if not hasattr(events, "_populate_cpu_children"):
        pytest.skip("pyad's EventList has no _populate_cpu_children (a private torch "
                    "helper; pyad fills cpu_children when the profiler stops)")
    events._populate_cpu_children()
    # [1, 3] pushes out [0, 2] first; then [1, 2] is recorded as a child of [1, 3]
    assert [[c.id for c in e.cpu_children] for e in events] == [[], [], [], [], [4]]


def test_profiler_aggregation_table():
    x = randn(1024)
    with profile() as prof:
        pyad.einsum("i->", x)
    assert str(prof) == prof.table()


def test_profiler_function_event_avg():
    avg = FunctionEventAvg()
    avg.add(FunctionEvent(id=0, node_id=0, name="foo", thread=0, start_us=10, end_us=15))
    avg.add(FunctionEvent(id=1, node_id=0, name="foo", thread=0, start_us=20, end_us=30))
    avg.add(avg)
    assert avg.key == "foo"
    assert avg.count == 4
    assert avg.cpu_time_total == 30
    assert avg.self_cpu_time_total == 30
    assert avg.cpu_time == 7.5


def test_profiler_shapes():
    layer1 = pyad.nn.Linear(20, 30)
    layer2 = pyad.nn.Linear(30, 40)
    input = randn(128, 20)      # float64 as the layers (torch's test; linear needs one dtype)
    with profile(record_shapes=True) as prof:
        layer2(layer1(input))
    expected = [[[128, 20], [30, 20], [30]], [[128, 30], [40, 30], [40]]]
    found = set()
    for event in prof.function_events:
        if event.name == "linear":
            assert event.input_shapes in expected
            found.add(expected.index(event.input_shapes))
    assert len(found) == len(expected)


def test_record_function():
    x = randn(10, 10)

    def forward(x):
        with record_function("outer"):
            y = x * 2 + 4
            with record_function("inner"):
                y = y - 1
        y = y / 1

    forward(x)
    with profile() as p:
        forward(x)
    important_events = ["outer", "mul", "add", "inner", "sub", "div"]
    idx = 0
    for info in p.function_events:
        if info.name == important_events[idx]:
            idx += 1
        if idx == len(important_events):
            break
    assert idx == len(important_events)

    @record_function("my_func")
    def f(x, y):
        return x + y

    with profile() as p:
        f(1, 2)
    assert "my_func" in str(p)


def test_record_function_multithreaded():
    rf = record_function("outer")
    rf.__enter__()
    with record_function("inner"):
        # exiting a range after starting another one does not raise
        rf.__exit__(None, None, None)
    with record_function("inner"):
        rf.__enter__()
    # nor does exiting one after another one ended
    rf.__exit__(None, None, None)


def test_dir():
    x = randn(10, 10)
    keys = dir(x)
    assert "shape" in keys
    # real and imag are only implemented for complex Variables
    y = pyad.randn(10, 10, dtype=pyad.cfloat)
    with pytest.raises(RuntimeError):
        hasattr(x, "imag")
    assert hasattr(y, "imag")
    keys.remove("imag")
    for key in keys:
        assert hasattr(x, key), key


def test_inplace_on_view_saved_output():
    # An in-place op on a view whose node saves its output created a reference cycle.
    dealloc = [0]

    class IncrementOnDelete:
        def __del__(self):
            dealloc[0] += 1

    def run():
        root = randn(3, 3, requires_grad=True)
        copy = root.clone()
        copy.grad_fn.register_hook(IncrementOnDelete())
        view = copy.view(9)
        pyad.nn.functional.relu(view, inplace=True)

    run()
    assert dealloc[0] == 1


def test_inplace_on_view_leaf_errors():
    x = pyad.zeros(1, requires_grad=True)
    y = x.view_as(x)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad "
                                           "is being used in an in-place operation."):
        y.add_(1)


def test_inplace_on_view_backward():
    nn = pyad.nn
    net = nn.Sequential(nn.InstanceNorm2d(2), nn.ReLU(True))
    x = pyad.tensor([[[[1.0, 1.0]]]], requires_grad=True)
    g, = pyad.autograd.grad(net(x).pow(2), [x], grad_outputs=x.new_ones(x.shape),
                            create_graph=True)
    pyad.autograd.grad(g.sum(), [x])
    assert_equal(x, np.array([[[[1.0, 1.0]]]]))

    inputs = pyad.ones((1, 3, 16, 16), requires_grad=True)
    tmp1 = (inputs + 1).view_as(inputs)
    tmp2 = pyad.nn.functional.threshold(tmp1, 0.0, 0.0, True)
    prob_interpolated = pyad.sigmoid(tmp2)
    gradients = pyad.autograd.grad(outputs=prob_interpolated, inputs=inputs,
                                   grad_outputs=pyad.ones(*prob_interpolated.size()),
                                   create_graph=True, retain_graph=True)[0]
    gradient_penalty = gradients.sum()
    gradient_penalty.backward()
    # d/dx sum(s'(x + 1)) = s''(2) everywhere (torch's value on the same inputs)
    s = 1 / (1 + math.exp(-2.0))
    assert_equal(inputs.grad, np.full((1, 3, 16, 16), s * (1 - s) * (1 - 2 * s)))


def test_inplace_on_view_weak_grad_fn():
    a = pyad.arange(10.0, requires_grad=True)
    b = a.narrow(0, 0, 2).clone().view(-1)
    b.relu_()
    c = b.clone()
    del b
    gc.collect()
    s = c.sum()
    s.backward()
    assert s.item() == 1.0

    a = rand(10, requires_grad=True).narrow(0, 0, 10)
    with pytest.raises(RuntimeError):
        a.relu_()


def test_diagonal_derivative_requires_grad():
    a = randn(5, 6, requires_grad=True)
    b = pyad.diagonal(a) ** 2
    c = b.sum()
    d, = pyad.autograd.grad(c, a, retain_graph=True, create_graph=True)
    assert d.requires_grad


def test_anomaly_detect_nan():
    size = 10

    class MyFunc(Function):
        @staticmethod
        def forward(ctx, inp1, inp2, fail_0th):
            ctx.fail_0th = fail_0th
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, gO):
            gI = gO.clone().expand(size).clone()
            gI[0] = 0
            with np.errstate(invalid="ignore"):
                gI[0] /= 0                      # a nan
            if ctx.fail_0th:
                return gI, None, None
            return None, gI, None

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, True)
    out.backward()                              # no anomaly mode: no error

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, True)
    with pytest.raises(RuntimeError, match="Function 'MyFuncBackward' returned nan values "
                                           "in its 0th output."):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pyad.autograd.detect_anomaly():
                out.backward()

    inp = rand(size, requires_grad=True)
    with pytest.raises(RuntimeError, match="Function 'MyFuncBackward' returned nan values "
                                           "in its 1th output.") as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pyad.autograd.detect_anomaly():
                out = MyFunc.apply(inp, inp, False)
                out.backward()
    # torch shows the forward call in a warning; pyad puts it into the error's text
    assert "MyFunc.apply" in str(info.value)


def test_nested_anomaly_detect_nan():
    size = 10

    class MyFunc(Function):
        @staticmethod
        def forward(ctx, inp1, fail_0th):
            ctx.fail_0th = fail_0th
            ctx.save_for_backward(inp1)
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, gO):
            inp, = ctx.saved_tensors
            g = gO.clone().expand(size)
            gI = MyFunc2.apply(g * inp, g + inp, ctx.fail_0th)
            return gI, None

    class MyFunc2(Function):
        @staticmethod
        def forward(ctx, inp1, inp2, fail_0th):
            ctx.fail_0th = fail_0th
            return inp1 * 2.0 + inp2

        @staticmethod
        def backward(ctx, gO):
            g1 = gO.clone()
            g2 = gO.clone()
            g1[0] = 0
            g2[0] = 0
            with np.errstate(invalid="ignore"):
                if ctx.fail_0th:
                    g1[0] /= 0
                else:
                    g2[0] /= 0
            return g1, g2, None

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, True)
    ginp, = pyad.autograd.grad(out, (inp,), create_graph=True)
    ginp.sum().backward()                       # no anomaly mode: no error

    inp = rand(size, requires_grad=True)
    out = MyFunc.apply(inp, True)
    ginp, = pyad.autograd.grad(out, (inp,), create_graph=True)
    gsum = ginp.sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Function 'MyFunc2Backward' returned nan "
                                               "values in its 0th output."):
            with pyad.autograd.detect_anomaly():
                gsum.backward()


def test_detach_disallows_metadata_change():
    # The stored torch test expects resize_ of a detached Variable to raise; torch 2.13
    # allows it (the detached Variable does not require grad), and pyad follows 2.13.
    x = Variable(np.array(0.5), requires_grad=True)
    detached = x.detach()
    detached.resize_(3, 3)
    assert detached.shape == (3, 3) and x.shape == ()


def test_profiler_unboxed_only():
    x = rand(3, 4)
    with profile():
        x.resize_([3, 2])
    assert x.shape == (3, 2)

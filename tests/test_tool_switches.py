"""The engine's switches for the later tools: the profiler callbacks and anomaly mode.

Both are internal APIs (pyad._engine._set_profiler, _set_anomaly_enabled); the pure
Python tools (pyad.autograd.profiler, detect_anomaly) are built on them later.
"""
import numpy as np
import pytest

import pyad
from pyad import _engine


class RecordingProfiler:
    def __init__(self):
        self.events = []

    def op_begin(self, name, inputs, next_seq):
        self.events.append(("op_begin", name, len(inputs)))
        return name

    def op_end(self, token, outputs, seq):
        self.events.append(("op_end", token, type(outputs).__name__))

    def node_begin(self, name, seq):
        self.events.append(("node_begin", name, seq))
        return name

    def node_end(self, token, grads):
        self.events.append(("node_end", token))


@pytest.fixture
def profiler():
    recorder = RecordingProfiler()
    previous = _engine._set_profiler(recorder)
    try:
        yield recorder
    finally:
        _engine._set_profiler(previous)


def test_profiler_sees_each_forward_op_once_with_begin_before_end(profiler):
    x = pyad.Variable(np.array([1.0, 2.0]), requires_grad=True)
    y = (x * 2).tanh().sum()
    names = [e[1] for e in profiler.events if e[0] == "op_begin"]
    assert names == ["mul", "tanh", "sum"]
    assert profiler.events[0] == ("op_begin", "mul", 2)
    assert profiler.events[1] == ("op_end", "mul", "Variable")
    assert y.item() == pytest.approx(np.tanh([2.0, 4.0]).sum())


def test_profiler_reports_ops_called_inside_an_op_nested_in_it(profiler):
    x = pyad.Variable(np.ones((2, 3)), requires_grad=True)
    x.t()           # t() is implemented with permute()
    assert [e[:2] for e in profiler.events] == [
        ("op_begin", "t"), ("op_begin", "permute"), ("op_end", "permute"), ("op_end", "t")]


def test_profiler_op_end_is_called_when_the_op_raises(profiler):
    x = pyad.Variable(np.ones((2, 3)))
    with pytest.raises(RuntimeError):
        pyad.matmul(x, x)
    assert [e[:2] for e in profiler.events] == [("op_begin", "matmul"), ("op_end", "matmul")]
    assert pyad.mul(x, 2).shape == (2, 3)     # the bypass flag did not leak
    assert [e[1] for e in profiler.events[2:]] == ["mul", "mul"]


def test_profiler_sees_each_backward_node_with_its_sequence_number(profiler):
    x = pyad.Variable(np.array([1.0, 2.0]), requires_grad=True)
    y = (x * 2).tanh().sum()
    profiler.events.clear()
    y.backward()
    nodes = [e[1] for e in profiler.events if e[0] == "node_begin"]
    assert nodes == ["_GraphRoot", "SumBackward", "TanhBackward", "MulBackward",
                     "AccumulateGrad"]
    ends = [e for e in profiler.events if e[0] == "node_end"]
    assert len(ends) == len(nodes)
    np.testing.assert_allclose(x.grad.data, 2 * (1 - np.tanh([2.0, 4.0]) ** 2))


def test_profiler_off_records_nothing():
    recorder = RecordingProfiler()
    previous = _engine._set_profiler(recorder)
    _engine._set_profiler(previous)
    x = pyad.Variable(np.ones(2), requires_grad=True)
    (x * 3).sum().backward()
    assert recorder.events == []


def test_set_profiler_returns_the_previous_one():
    a, b = RecordingProfiler(), RecordingProfiler()
    assert _engine._set_profiler(a) is None
    assert _engine._set_profiler(b) is a
    assert _engine._set_profiler(None) is b


@pytest.fixture
def anomaly():
    previous = _engine._set_anomaly_enabled(True)
    try:
        yield
    finally:
        _engine._set_anomaly_enabled(*previous)


def test_anomaly_nan_gradient_names_node_output_and_forward_line(anomaly):
    x = pyad.Variable(np.array([0.0, 1.0]), requires_grad=True)
    y = pyad.sqrt(x)      # the forward line the report must show
    z = (y * 0.0).sum()
    with pytest.raises(RuntimeError) as info, np.errstate(divide="ignore", invalid="ignore"):
        z.backward()
    message = str(info.value)
    assert "Function 'SqrtBackward' returned nan values in its 0th output" in message
    assert "y = pyad.sqrt(x)      # the forward line the report must show" in message


def test_anomaly_error_inside_a_backward_carries_the_forward_trace(anomaly):
    class Broken(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("broken backward")

    x = pyad.Variable(np.ones(2), requires_grad=True)
    out = Broken.apply(x).sum()   # forward call of the broken Function
    with pytest.raises(ValueError) as info:
        out.backward()
    message = str(info.value)
    assert "broken backward" in message
    assert "Error detected in BrokenBackward" in message
    assert "out = Broken.apply(x).sum()   # forward call of the broken Function" in message


def test_anomaly_double_backward_reports_the_inducing_node(anomaly):
    class BrokenSecond(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return Fail.apply(grad * 2 * x)

    class Fail(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, g):
            return g * 1.0

        @staticmethod
        def backward(ctx, grad):
            raise RuntimeError("second order fails")

    x = pyad.Variable(np.ones(2), requires_grad=True)
    g, = pyad.grad(BrokenSecond.apply(x).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError) as info:
        g.sum().backward()
    message = str(info.value)
    assert "Error detected in FailBackward" in message
    assert "Previous calculation was induced by BrokenSecondBackward" in message


def test_anomaly_off_nan_gradients_pass_silently():
    x = pyad.Variable(np.array([0.0, 1.0]), requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        (pyad.sqrt(x) * 0.0).sum().backward()
    assert np.isnan(x.grad.data[0])


def test_nodes_record_no_stack_when_anomaly_is_off():
    x = pyad.Variable(np.ones(2), requires_grad=True)
    assert _engine._is_anomaly_enabled() is False
    y = x * 2
    assert y.grad_fn is not None


def test_version_error_names_consumer_input_and_producer():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    a = x * 2
    b = a * x
    a.add_(1)
    with pytest.raises(RuntimeError) as info:
        b.sum().backward()
    message = str(info.value)
    assert "which is input 0 of MulBackward (output 0 of MulBackward)" in message
    assert "is at version 1; expected version 0 instead" in message


def test_anomaly_version_error_shows_where_the_inplace_change_happened(anomaly):
    x = pyad.Variable(np.ones(3), requires_grad=True)
    y = pyad.exp(x * 2)
    z = y * 1.0
    y.mul_(3.0)   # the in-place change the report must point at
    with pytest.raises(RuntimeError) as info:
        z.sum().backward()
    message = str(info.value)
    assert "The last in-place change was made here" in message
    assert "y.mul_(3.0)   # the in-place change the report must point at" in message


def test_event_log_is_filled_by_the_engine():
    import threading
    log = _engine._EventLog()
    previous = _engine._set_profiler(log)
    try:
        x = pyad.Variable(np.ones((2, 3)), requires_grad=True)
        y = x.t().sum()
        y.backward()
    finally:
        _engine._set_profiler(previous)
    rows = [(r[0], r[5]) for r in log.records]
    assert rows == [("t", 0), ("permute", 0), ("sum", 0), ("_GraphRoot", 1),
                    ("SumBackward", 1), ("TBackward", 1), ("AccumulateGrad", 1)]
    t, permute = log.records[0], log.records[1]
    assert t[2] <= permute[2] <= permute[3] <= t[3]          # nested in time
    assert t[4] == permute[4] >= 0                           # t's node is permute's
    assert log.records[5][4] == t[4]                         # TBackward
    assert log.records[6][4] == -1                           # AccumulateGrad
    assert {r[1] for r in log.records} == {threading.get_native_id()}
    assert all(r[3] >= r[2] > 0 for r in log.records)

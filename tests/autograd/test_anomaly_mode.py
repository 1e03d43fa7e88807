"""Anomaly detection: detect_anomaly / set_detect_anomaly, compared with torch."""
import threading
import warnings

import numpy as np
import pytest

import pyad

try:
    import torch
except ImportError:
    torch = None

LIBS = [pyad] + ([torch] if torch is not None else [])


@pytest.fixture(autouse=True)
def _quiet_and_reset():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield
    pyad.autograd.set_detect_anomaly(False)


def _nan_backward(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()                                  # the line anomaly mode must point at
    (y * 0).sum().backward()
    return x


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_nan_in_backward_names_the_node_and_output(lib):
    with lib.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0?' returned nan "
                                               r"values in its 0th output"):
            _nan_backward(lib)


def test_nan_error_carries_the_forward_line():
    with pyad.autograd.detect_anomaly():
        with pytest.raises(RuntimeError) as info:
            _nan_backward(pyad)
    text = str(info.value)
    assert "Traceback of forward call that caused the error" in text
    assert "y = x.sqrt()" in text and "_nan_backward" in text


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_check_nan_false_lets_nan_through(lib):
    with lib.autograd.detect_anomaly(check_nan=False):
        x = _nan_backward(lib)
    assert np.isnan(np.asarray(x.grad.tolist())[0])


def test_without_anomaly_mode_nan_passes_silently():
    x = _nan_backward(pyad)
    assert np.isnan(x.grad.tolist()[0])


def test_error_inside_a_custom_backward_carries_the_forward_line():
    class Boom(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    x = pyad.ones(2, requires_grad=True)
    with pyad.autograd.detect_anomaly():
        out = Boom.apply(x)                        # made here
        with pytest.raises(ValueError, match="boom in backward") as info:
            out.sum().backward()
    assert "out = Boom.apply(x)" in str(info.value)


def test_double_backward_error_shows_the_inducing_node():
    class BadGrad(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("second order fails")

    x = pyad.ones(2, requires_grad=True)
    with pyad.autograd.detect_anomaly():
        y = (x * x).sum()
        g, = pyad.autograd.grad(y, x, create_graph=True)
        z = BadGrad.apply(g)
        with pytest.raises(RuntimeError, match="second order fails") as info:
            z.sum().backward()
    assert "z = BadGrad.apply(g)" in str(info.value)


def test_inplace_error_under_anomaly_shows_where_the_change_was_made():
    x = pyad.ones(3, requires_grad=True)
    with pyad.autograd.detect_anomaly():
        h = x * 2
        out = (h * h).sum()
        h.add_(1)                                  # the culprit line
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            out.backward()
    assert "h.add_(1)" in str(info.value)


def test_anomaly_mode_is_per_thread():
    seen = []
    with pyad.autograd.detect_anomaly():
        assert pyad.autograd.is_anomaly_enabled()
        worker = threading.Thread(target=lambda: seen.append(pyad.is_anomaly_enabled()))
        worker.start()
        worker.join()
    assert seen == [False]
    assert not pyad.autograd.is_anomaly_enabled()


def test_decorator_and_restoring_after_an_exception():
    @pyad.autograd.detect_anomaly()
    def inside():
        assert pyad.autograd.is_anomaly_enabled()
        raise KeyError("x")

    with pytest.raises(KeyError):
        inside()
    assert not pyad.autograd.is_anomaly_enabled()
    with pytest.raises(KeyError):
        with pyad.autograd.detect_anomaly(check_nan=False):
            assert not pyad.autograd.is_anomaly_check_nan_enabled()
            raise KeyError("y")
    assert not pyad.autograd.is_anomaly_enabled()
    assert pyad.autograd.is_anomaly_check_nan_enabled()


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_set_detect_anomaly_sets_at_once_and_restores_in_a_with_block(lib):
    lib.autograd.set_detect_anomaly(True)
    assert lib.is_anomaly_enabled()
    lib.autograd.set_detect_anomaly(False)
    assert not lib.is_anomaly_enabled()
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        assert lib.is_anomaly_enabled()
        assert not lib.is_anomaly_check_nan_enabled()
    assert not lib.is_anomaly_enabled()


def test_detect_anomaly_warns_like_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pyad.autograd.detect_anomaly():
            pass
    assert any("Anomaly Detection has been enabled" in str(w.message) for w in caught)


def test_names_are_in_pyad_and_pyad_autograd():
    for name in ("detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
                 "is_anomaly_check_nan_enabled"):
        assert getattr(pyad, name) is getattr(pyad.autograd, name)


def test_forward_traceback_lists_the_same_frames_and_lines_as_python():
    # Frames are captured as code objects and bytecode offsets; the lines are looked up
    # when the error is formatted and must be the ones Python itself reports there.
    import re
    import traceback
    x = pyad.tensor([0.0, 1.0], requires_grad=True)
    with pyad.autograd.detect_anomaly():
        y, expected = x.sqrt(), traceback.extract_stack()
        with pytest.raises(RuntimeError) as info:
            (y * 0).sum().backward()
    got = re.findall(r'  File "(.*)", line (\d+), in (.*)\n', str(info.value))
    assert [(f, int(n), name) for f, n, name in got] == \
        [(f.filename, f.lineno, f.name) for f in expected]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("strided", [False, True])
def test_nan_check_sees_nan_in_contiguous_and_strided_gradients(dtype, strided):
    x = pyad.tensor(np.ones((3, 2), dtype=dtype), requires_grad=True)
    g = np.ones((2, 3), dtype=dtype)
    g[1, 2] = np.nan
    with pyad.autograd.detect_anomaly():
        y = x.t() if strided else x * 1.0           # TBackward returns a strided view
        with pytest.raises(RuntimeError, match="returned nan values in its 0th output"):
            y.backward(pyad.Variable(g if strided else g.T.copy()))
        y = x.t() if strided else x * 1.0
        y.backward(pyad.Variable(np.ones((2, 3) if strided else (3, 2), dtype=dtype)))
    assert not np.isnan(x.grad.data).any()

"""Pieces of torch's API that ported scripts reach for, each run on pyad and, when
torch is installed, on torch with the same code: the legacy typed-tensor constructors
and type strings, the anomaly-mode warning for a NaN gradient, det's gradient at a
singular matrix, math constants, optimizer kernel options, Embedding.from_pretrained,
Module.get_submodule and friends, and the old scheduler base class name."""
import math
import warnings

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck
from _torch_compare import LIBS, as_np

IDS = [lib.__name__ for lib in LIBS]


# -- legacy typed tensors ---------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_legacy_constructors_build_their_dtype(lib):
    x = lib.FloatTensor([1, 2])
    assert str(x.dtype).endswith("float32")
    np.testing.assert_array_equal(as_np(x), [1.0, 2.0])
    assert tuple(lib.LongTensor(2, 3).shape) == (2, 3)
    assert str(lib.LongTensor(2, 3).dtype).endswith("int64")
    assert tuple(lib.DoubleTensor().shape) == (0,)
    assert str(lib.ByteTensor([1, 2]).dtype).endswith("uint8")
    assert str(lib.BoolTensor([True]).dtype).endswith("bool")
    assert isinstance(x, lib.FloatTensor) and not isinstance(x, lib.DoubleTensor)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_type_strings_and_conversions(lib):
    x = lib.ones(2)
    assert x.type() == "torch.FloatTensor"
    assert lib.ones(2, dtype=lib.int64).type() == "torch.LongTensor"
    y = x.type("torch.DoubleTensor")
    assert y.type() == "torch.DoubleTensor"
    assert x.type(lib.LongTensor).type() == "torch.LongTensor"
    assert str(x.type(lib.float64).dtype).endswith("float64")


# -- anomaly mode --------------------------------------------------------------------

class _NaNGradient(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


def test_anomaly_mode_warns_and_raises_for_a_nan_gradient():
    # as torch's test_anomaly_detect_nan: the error names the node and output index,
    # and a UserWarning says where the forward ran (here: without anomaly mode)
    x = pyad.ones(2, requires_grad=True)
    out = _NaNGradient.apply(x).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"Function '_NaNGradientBackward' returned "
                                               r"nan values in its 0th output"):
            with pyad.autograd.detect_anomaly():
                out.backward()
    assert any("No forward pass information" in str(w.message) for w in caught)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pyad.autograd.detect_anomaly():
            out = _NaNGradient.apply(x).sum()
            with pytest.raises(RuntimeError, match="returned nan values"):
                out.backward()
    assert any("Error detected in _NaNGradientBackward" in str(w.message) for w in caught)


# -- det at a singular matrix ----------------------------------------------------------

SINGULAR = {
    "rank 1": [[1.0, 2.0], [2.0, 4.0]],
    "zeros": [[0.0, 0.0, 0.0]] * 3,
    "rank 2 of 3": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.0, 0.0, 0.0]],   # a zero column
}


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("case", list(SINGULAR), ids=list(SINGULAR))
def test_det_gradient_at_a_singular_matrix_is_zero_as_torch(lib, case):
    # torch's det backward solves with the LU factors against det * g = 0, which gives
    # 0 (not the cofactor matrix, the derivative's limit) where det is exactly 0
    a = lib.tensor(SINGULAR[case], dtype=lib.float64, requires_grad=True)
    if float(lib.linalg.det(a.detach())) != 0.0:
        pytest.skip("rounding made this matrix's LU determinant nonzero here")
    (lib.linalg.det(a) * 2.0).backward()
    np.testing.assert_array_equal(as_np(a.grad), np.zeros_like(as_np(a.grad)))


def test_det_gradient_in_a_batch_with_one_singular_matrix():
    rng = np.random.default_rng(5)
    regular = rng.standard_normal((2, 2))
    a = pyad.tensor(np.stack([regular, np.array(SINGULAR["rank 1"])]),
                    dtype=pyad.float64, requires_grad=True)
    pyad.linalg.det(a).sum().backward()
    expected0 = np.linalg.det(regular) * np.linalg.inv(regular).T
    np.testing.assert_allclose(a.grad.data[0], expected0, rtol=1e-9)
    np.testing.assert_array_equal(a.grad.data[1], np.zeros((2, 2)))


def test_det_gradient_still_checks_against_finite_differences():
    a = pyad.Variable(np.random.default_rng(6).standard_normal((2, 3, 3)),
                      requires_grad=True)
    assert gradcheck(pyad.linalg.det, (a,))


# -- small pieces ------------------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_math_constants(lib):
    assert lib.pi == math.pi and lib.e == math.e
    assert lib.inf == math.inf and math.isnan(lib.nan)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_float32_matmul_precision_round_trips(lib):
    before = lib.get_float32_matmul_precision()
    try:
        lib.set_float32_matmul_precision("high")
        assert lib.get_float32_matmul_precision() == "high"
    finally:
        lib.set_float32_matmul_precision(before)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("name, kwargs", [
    ("SGD", dict(lr=0.1, momentum=0.9, foreach=None, fused=None, differentiable=False)),
    ("Adam", dict(lr=0.1, foreach=None, fused=None, capturable=False, differentiable=False)),
    ("AdamW", dict(lr=0.1, foreach=False, fused=None, capturable=False)),
])
def test_optimizers_accept_torch_kernel_options(lib, name, kwargs):
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64))
    opt = getattr(lib.optim, name)([w], **kwargs)
    for key in kwargs:
        assert opt.param_groups[0][key] == kwargs[key]
    (w * w).sum().backward()
    opt.step()
    assert np.all(np.abs(as_np(w)) < [1.0, 2.0])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained(lib, freeze):
    weights = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    emb = lib.nn.Embedding.from_pretrained(weights, freeze=freeze)
    assert emb.weight.requires_grad is not freeze
    np.testing.assert_array_equal(as_np(emb(lib.tensor([2, 0]))), [[5.0, 6.0], [1.0, 2.0]])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_get_submodule_parameter_and_buffer(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.BatchNorm1d(3)))
    assert model.get_submodule("1.0") is model[1][0]
    assert model.get_submodule("") is model
    assert model.get_parameter("0.weight") is model[0].weight
    assert model.get_buffer("1.0.running_mean") is model[1][0].running_mean
    with pytest.raises(AttributeError):
        model.get_submodule("2")
    with pytest.raises(AttributeError):
        model.get_parameter("0.nothing")


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_old_scheduler_base_class_name(lib):
    class Warmup(lib.optim.lr_scheduler._LRScheduler):
        def get_lr(self):
            return [base * min(1.0, (self.last_epoch + 1) / 4) for base in self.base_lrs]

    w = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([w], lr=0.4)
    sched = Warmup(opt)
    seen = []
    for _ in range(5):
        seen.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    np.testing.assert_allclose(seen, [0.1, 0.2, 0.3, 0.4, 0.4])


# -- factories and conversions: torch's results and error types ------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_arange_takes_0d_variables_and_checks_its_range(lib):
    r = lib.arange(lib.tensor(3))
    assert str(r.dtype).endswith("int64") and as_np(r).tolist() == [0, 1, 2]
    assert str(lib.arange(lib.tensor(3.0)).dtype).endswith("float32")
    assert as_np(lib.arange(5, 0, -2)).tolist() == [5, 3, 1]
    assert as_np(lib.arange(0, 5, 1.5, dtype=lib.int64)).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        lib.arange(0, 1, 0)
    with pytest.raises(ValueError, match="step must be nonzero"):
        lib.arange(0, 1, 0.3, dtype=lib.int64)           # the step truncates to 0
    for bounds in ((5, 0), (0, -5)):
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            lib.arange(*bounds)
    with pytest.raises(RuntimeError, match="unsupported range"):
        lib.arange(float("nan"))


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_factory_size_errors(lib):
    with pytest.raises(RuntimeError, match="negative"):
        lib.zeros(-1)
    with pytest.raises(RuntimeError, match="negative"):
        lib.ones(2, -3)
    with pytest.raises(TypeError):
        lib.zeros(2.0)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_python_number_conversions_of_several_elements(lib):
    x = lib.ones(2)
    for convert in (float, int, complex):
        with pytest.raises(ValueError, match="only one element"):
            convert(x)
    with pytest.raises(TypeError, match="only integer"):
        [1, 2, 3][lib.tensor([1, 2])]
    assert float(lib.ones(1)) == 1.0 and complex(lib.tensor([1.5])) == 1.5
    assert [1, 2, 3][lib.tensor(2)] == 3


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_item_assignment_of_a_shape_that_does_not_broadcast(lib):
    x = lib.zeros(4)
    with pytest.raises(RuntimeError):
        x[0:2] = lib.ones(3)
    with pytest.raises(IndexError):
        x[7] = 1.0

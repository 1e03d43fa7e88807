"""Tests of gradcheck and gradgradcheck themselves: they must pass correct gradients,
and fail, clearly and boundedly, on wrong ones."""

import warnings

import numpy as np
import pytest

import pyad
from pyad.autograd import Function
from pyad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck


def variable(shape, low=0.5, high=1.5, seed=0, requires_grad=True):
    data = np.random.default_rng(seed).uniform(low, high, size=shape)
    return pyad.Variable(data, requires_grad=requires_grad)


# --- Functions with deliberately broken backward passes -----------------------

class SquareMissingFactorTwo(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x


class SumIgnoringGradOutput(Function):
    # For a scalar output a one-hot grad_output is 1, so only a zero grad_output
    # can reveal that the backward ignores it.
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sum()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return pyad.Variable(np.ones(x.shape))


class SquareWithDriftingBackward(Function):
    # Right to within 1e-6, but every backward call returns a slightly different value.
    calls = 0

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        SquareWithDriftingBackward.calls += 1
        return grad_output * (2 * x + 1e-9 * SquareWithDriftingBackward.calls)


class CubeWithConstantDerivative(Function):
    # First derivative right, but 3 x**2 is computed from `.data`, so it is a
    # constant to the recorded backward graph: d(grad)/dx comes out as 0, not 6 x g.
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * pyad.Variable(3 * x.data ** 2)


class CubeWithUnrecordedBackward(Function):
    # The whole backward runs on arrays: its result has no graph at all.
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return pyad.Variable(grad_output.data * 3 * x.data ** 2)


class CubeWithRecordedBackward(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x * x


# --- gradcheck passes correct gradients ------------------------------------------

def test_gradcheck_is_exported_from_pyad_autograd():
    assert pyad.autograd.gradcheck is gradcheck
    assert pyad.autograd.gradgradcheck is gradgradcheck
    assert issubclass(GradcheckError, RuntimeError)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_passes_elementwise_square(fast_mode):
    x = variable((3, 4))
    assert gradcheck(lambda a: a * a, (x,), fast_mode=fast_mode) is True


@pytest.mark.parametrize("fast_mode", [False, True])
def test_passes_sum_of_product_of_two_inputs(fast_mode):
    x, y = variable((5,), seed=1), variable((5,), seed=2)
    assert gradcheck(lambda a, b: (a * b).sum(), (x, y), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_passes_tuple_outputs(fast_mode):
    x, y = variable((2, 3), seed=1), variable((2, 3), seed=2)
    assert gradcheck(lambda a, b: (a * b, a + b, (a * a).sum()), (x, y),
                     fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_passes_zero_dimensional_input(fast_mode):
    x = pyad.Variable(np.array(1.5), requires_grad=True)
    assert gradcheck(lambda a: a * a * a, x, fast_mode=fast_mode)


def test_accepts_a_single_variable_and_a_list_of_inputs():
    x, y = variable((3,), seed=1), variable((3,), seed=2)
    assert gradcheck(lambda a: a * a, x)
    assert gradcheck(lambda a, b: a * b, [x, y])


def test_non_variable_inputs_are_passed_through():
    x = variable((3,))
    assert gradcheck(lambda a, k, arr: a * k + arr, (x, 3.0, np.arange(3.0)))


def test_only_inputs_requiring_grad_are_checked():
    x = variable((3,), seed=1)
    y = variable((3,), seed=2, requires_grad=False)
    assert gradcheck(lambda a, b: a * b, (x, y))


def test_outputs_that_are_not_differentiable_are_skipped():
    x = variable((3,))
    assert gradcheck(lambda a: (a * a, pyad.Variable(np.arange(3))), (x,))


def test_constant_output_without_grad_passes():
    x = variable((3,))
    assert gradcheck(lambda a: pyad.Variable(np.ones(3)), (x,))


def test_detached_output_that_depends_on_input_fails():
    x = variable((3,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: a.detach() * 2, (x,))


def test_works_when_called_under_no_grad():
    x = variable((3,))
    with pyad.no_grad():
        assert gradcheck(lambda a: a * a, (x,))


@pytest.mark.parametrize("fast_mode", [False, True])
def test_inputs_are_restored_exactly(fast_mode):
    x = variable((4, 3))
    before = x.data.copy()
    gradcheck(lambda a: a * a, (x,), fast_mode=fast_mode)
    gradcheck(SquareMissingFactorTwo.apply, (x,), fast_mode=fast_mode, raise_exception=False)
    np.testing.assert_array_equal(x.data, before)


# --- gradcheck fails wrong gradients, clearly ----------------------------------

def test_wrong_backward_raises_gradcheck_error_naming_output_and_input():
    x, y = variable((3,), seed=1), variable((3,), seed=2)
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda a, b: (a + b, SquareMissingFactorTwo.apply(b)), (x, y))
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 1 with respect to input 1,")
    assert "numerical" in message and "analytical" in message


def test_raise_exception_false_returns_false():
    x = variable((3,))
    assert gradcheck(SquareMissingFactorTwo.apply, (x,), raise_exception=False) is False


def test_failure_message_lists_only_the_worst_entries_of_a_large_jacobian():
    # 400 inputs: a 400 x 400 Jacobian, of which the message may show only a few entries.
    x = pyad.Variable(np.linspace(0.1, 2.0, 400).reshape(20, 20), requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareMissingFactorTwo.apply, (x,))
    message = str(info.value)
    entry_lines = [line for line in message.splitlines() if "numerical " in line
                   and "analytical " in line]
    assert 1 <= len(entry_lines) <= 10
    assert len(message) < 3000
    # The error of the diagonal entry is x itself, so the largest x comes first.
    assert "output[19, 19] / input[19, 19]" in entry_lines[0]
    assert "(400, 400)" in message
    assert "400 of 160000 entries exceed" in message


def test_warns_on_float32_inputs():
    x = pyad.Variable(np.linspace(0.5, 1.5, 3).astype(np.float32), requires_grad=True)
    with pytest.warns(UserWarning, match="float32"):
        gradcheck(lambda a: a * a, (x,), eps=1e-3, atol=1e-2, rtol=1e-2,
                  raise_exception=False)


def test_no_warning_for_float64_inputs():
    x = variable((3,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gradcheck(lambda a: a * a, (x,))


def test_no_input_requiring_grad_is_an_error():
    x = variable((3,), requires_grad=False)
    with pytest.raises(ValueError, match="requires_grad"):
        gradcheck(lambda a: a * a, (x,))


def test_zero_stride_input_is_an_error():
    overlapping = np.lib.stride_tricks.as_strided(np.ones(3), shape=(4, 3), strides=(0, 8))
    x = pyad.Variable(overlapping, requires_grad=True)
    with pytest.raises(RuntimeError, match="stride 0"):
        gradcheck(lambda a: a * a, (x,))


def test_backward_ignoring_grad_output_fails_the_undefined_grad_check():
    x = variable((4,))
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(SumIgnoringGradOutput.apply, (x,))
    # torch 2.13 runs this check whatever check_undefined_grad says (checked there)
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(SumIgnoringGradOutput.apply, (x,), check_undefined_grad=False)


def test_nondeterministic_backward_fails_unless_nondet_tol_allows_it():
    x = variable((3,))
    with pytest.raises(GradcheckError, match="not reentrant"):
        gradcheck(SquareWithDriftingBackward.apply, (x,))
    assert gradcheck(SquareWithDriftingBackward.apply, (x,), nondet_tol=1e-6)


def test_check_backward_ad_false_is_rejected():
    x = variable((3,))
    with pytest.raises(AssertionError, match="Expected at least one of check_forward_ad"):
        gradcheck(lambda a: a * a, (x,), check_backward_ad=False)


def test_ignored_torch_keywords_are_accepted():
    x = variable((3,))
    assert gradcheck(lambda a: a * a, (x,), check_batched_grad=True, masked=None,
                     check_grad_dtypes=True)


# --- fast mode ------------------------------------------------------------------------

@pytest.mark.parametrize("func", [
    lambda a, b: a * b,
    lambda a, b: (a * b).sum(),
    lambda a, b: (a * a, a * b * b),
    lambda a, b: (a + SquareMissingFactorTwo.apply(b)),
    lambda a, b: SquareMissingFactorTwo.apply(a) * b,
], ids=["product", "sum", "tuple", "wrong-second", "wrong-first"])
def test_fast_mode_agrees_with_slow_mode(func):
    x, y = variable((3, 2), seed=1), variable((3, 2), seed=2)
    slow = gradcheck(func, (x, y), raise_exception=False)
    fast = gradcheck(func, (x, y), fast_mode=True, raise_exception=False)
    assert fast == slow


def test_fast_mode_failure_reports_slow_mode_entries():
    x = variable((3,))
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareMissingFactorTwo.apply, (x,), fast_mode=True)
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,")
    assert "fast mode" in message
    assert "output[" in message and "/ input[" in message


# --- gradgradcheck -------------------------------------------------------------------

@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradgradcheck_passes_on_cube(fast_mode):
    x = variable((2, 3))
    assert gradgradcheck(lambda a: a ** 3, (x,), fast_mode=fast_mode)


def test_gradgradcheck_passes_with_two_inputs_and_scalar_output():
    x, y = variable((4,), seed=1), variable((4,), seed=2)
    assert gradgradcheck(lambda a, b: (a * b * b).sum(), (x, y))


def test_gradgradcheck_passes_on_function_with_recorded_backward():
    x = variable((3,))
    assert gradgradcheck(CubeWithRecordedBackward.apply, (x,))


def test_gradgradcheck_accepts_grad_outputs_and_non_contiguous_ones():
    x = variable((2, 3))
    grad_output = pyad.Variable(np.full((2, 3), 0.7), requires_grad=True)
    assert gradgradcheck(lambda a: a * a * a, (x,), grad_outputs=grad_output)
    assert gradgradcheck(lambda a: a * a * a, (x,), gen_non_contig_grad_outputs=True)


def test_gradgradcheck_catches_backward_treating_its_input_as_constant():
    x = variable((3,))
    # The first derivative is right...
    assert gradcheck(CubeWithConstantDerivative.apply, (x,))
    # ...its derivative with respect to x is not.
    with pytest.raises(GradcheckError,
                       match="Jacobian mismatch for output 0 with respect to input 0,"):
        gradgradcheck(CubeWithConstantDerivative.apply, (x,))
    assert gradgradcheck(CubeWithConstantDerivative.apply, (x,),
                         raise_exception=False) is False


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradgradcheck_catches_backward_without_graph(fast_mode):
    x = variable((3,))
    assert gradcheck(CubeWithUnrecordedBackward.apply, (x,), fast_mode=fast_mode)
    with pytest.raises(GradcheckError, match="does not require grad"):
        gradgradcheck(CubeWithUnrecordedBackward.apply, (x,), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradgradcheck_catches_one_gradient_without_graph_among_others(fast_mode):
    # The gradient for x keeps its graph, the one for y loses it. torch's
    # gradgradcheck would skip the second silently; ours must not.
    x, y = variable((3,), seed=1), variable((3,), seed=2)

    def func(a, b):
        return a * CubeWithUnrecordedBackward.apply(b)

    assert gradcheck(func, (x, y), fast_mode=fast_mode)
    with pytest.raises(GradcheckError, match="Output 1 does not require grad.*not recorded"):
        gradgradcheck(func, (x, y), fast_mode=fast_mode)

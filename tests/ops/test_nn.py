"""Neural-net building blocks: pyad.log_softmax(x, dim)."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, standard_op_tests)

CASES = [
    Case("log_softmax_1d", lambda L, a: L.log_softmax(a, 0), [(5,)]),
    Case("log_softmax_dim1", lambda L, a: L.log_softmax(a, 1), [(3, 4)]),
    Case("log_softmax_dim0", lambda L, a: L.log_softmax(a, 0), [(3, 4)]),
    Case("log_softmax_dim_neg1_3d", lambda L, a: L.log_softmax(a, -1), [(2, 3, 4)]),
    Case("log_softmax_middle_dim_3d", lambda L, a: L.log_softmax(a, 1), [(2, 3, 4)]),
    Case("log_softmax_of_linear", lambda L, a, w: L.log_softmax(L.matmul(a, w), 1),
         [(3, 4), (4, 5)]),
    Case("nll_like_loss", lambda L, a: -L.sum(L.getitem(L.log_softmax(a, 1),
                                                        (np.arange(3), np.array([1, 0, 3])))),
         [(3, 4)]),
]



(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


def test_log_softmax_method_matches_function():
    x = pyad.Variable(np.random.default_rng(0).standard_normal((2, 3)))
    np.testing.assert_array_equal(x.log_softmax(1).data, pyad.log_softmax(x, 1).data)


def test_log_softmax_rows_exponentiate_to_one():
    x = pyad.Variable(np.random.default_rng(0).standard_normal((4, 6)) * 10)
    np.testing.assert_allclose(np.exp(pyad.log_softmax(x, 1).data).sum(1), 1.0, rtol=1e-12)


def test_log_softmax_is_stable_for_large_inputs():
    x = pyad.Variable(np.array([1000.0, 0.0, -1000.0]), requires_grad=True)
    with np.errstate(over="raise", invalid="raise"):
        y = pyad.log_softmax(x, 0)
    np.testing.assert_allclose(y.data, [0.0, -1000.0, -2000.0], rtol=1e-15, atol=0)
    y[0].backward()
    # one-hot(0) - softmax(x), softmax = [1, e^-1000, e^-2000] = [1, 0, 0] in float64
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0, 0.0])


def test_log_softmax_without_dim_raises():
    with pytest.raises(TypeError):
        pyad.log_softmax(pyad.Variable(np.ones(3)))


def test_log_softmax_dtype_argument_casts_first():
    x = pyad.Variable(np.ones(3, dtype=np.float32), requires_grad=True)
    y = pyad.log_softmax(x, 0, dtype=np.float64)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.data, np.log([1 / 3] * 3), rtol=1e-15, atol=0)
    y[0].backward()
    assert x.grad.dtype == np.float32
    # one-hot(0) - softmax, computed in float64 and cast
    np.testing.assert_array_equal(x.grad.data, np.array([2 / 3, -1 / 3, -1 / 3], np.float32))


def test_log_softmax_keeps_float32():
    x = pyad.Variable(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    y = pyad.log_softmax(x, 1)
    assert y.dtype == np.float32
    y[:, 0].sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.data, [[2 / 3, -1 / 3, -1 / 3]] * 2, rtol=1e-6, atol=0)

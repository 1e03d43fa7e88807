"""Linear algebra: matmul / @ (1-D.1-D, 2-D.1-D, 1-D.2-D, 2-D.2-D, batched with
broadcasting, 1-D with batched) and mm."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, standard_op_tests)

B34 = np.random.default_rng(12).standard_normal((3, 4))

CASES = [
    Case("vec_dot_vec", lambda L, a, b: L.matmul(a, b), [(4,), (4,)]),
    Case("mat_times_vec", lambda L, a, b: L.matmul(a, b), [(3, 4), (4,)]),
    Case("vec_times_mat", lambda L, a, b: L.matmul(a, b), [(3,), (3, 4)]),
    Case("mat_times_mat", lambda L, a, b: L.matmul(a, b), [(2, 3), (3, 4)]),
    Case("batched_same_batch", lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (2, 4, 2)]),
    Case("batched_broadcast_2d_right", lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (4, 2)]),
    Case("batched_broadcast_2d_left", lambda L, a, b: L.matmul(a, b), [(3, 4), (2, 4, 2)]),
    Case("batched_broadcast_size_one_batch", lambda L, a, b: L.matmul(a, b),
         [(2, 1, 2, 3), (3, 3, 2)]),
    Case("batched_times_vec", lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (4,)]),
    Case("vec_times_batched", lambda L, a, b: L.matmul(a, b), [(3,), (2, 3, 4)]),
    Case("matmul_ndarray_left", lambda L, a: L.matmul(L.c(B34), a), [(4, 2)]),
    Case("matmul_ndarray_right", lambda L, a: L.matmul(a, L.c(B34)), [(2, 3)]),
    Case("matmul_same_variable", lambda L, a: L.matmul(a, a), [(3, 3)]),
    Case("quadratic_form", lambda L, a, m: L.matmul(a, L.matmul(m, a)), [(3,), (3, 3)]),
    Case("matmul_then_tanh", lambda L, a, b: L.tanh(L.matmul(a, b)), [(2, 3), (3, 2)]),
]



(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


def test_matmul_operator_method_and_function_agree():
    rng = np.random.default_rng(0)
    a = pyad.Variable(rng.standard_normal((2, 3)))
    b = pyad.Variable(rng.standard_normal((3, 4)))
    expected = a.data @ b.data
    for out in (a @ b, a.matmul(b), pyad.matmul(a, b), pyad.mm(a, b)):
        np.testing.assert_allclose(out.data, expected, rtol=1e-12)


def test_ndarray_at_variable_gives_variable_with_graph():
    x = pyad.Variable(np.ones((3, 2)), requires_grad=True)
    y = np.ones((4, 3)) @ x
    assert isinstance(y, pyad.Variable) and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full((3, 2), 4.0))


def test_vec_dot_vec_gives_0d():
    y = pyad.matmul(pyad.Variable(np.ones(3)), pyad.Variable(np.ones(3)))
    assert y.shape == ()
    assert y.item() == 3.0


def test_vec_dot_vec_backward_gives_the_other_vector():
    a = pyad.Variable(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    b = pyad.Variable(np.array([4.0, 5.0, 6.0]), requires_grad=True)
    (a @ b).backward()
    np.testing.assert_array_equal(a.grad.data, b.data)
    np.testing.assert_array_equal(b.grad.data, a.data)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((4,), (3,)), ((2, 3, 4), (3, 3, 2))])
def test_matmul_shape_mismatch_raises(shapes):
    a, b = (pyad.Variable(np.ones(s)) for s in shapes)
    with pytest.raises(RuntimeError):
        a @ b


def test_matmul_of_0d_raises():
    with pytest.raises(RuntimeError, match="1D"):
        pyad.matmul(pyad.Variable(np.array(2.0)), pyad.Variable(np.ones(3)))


def test_mm_requires_2d():
    with pytest.raises(RuntimeError):
        pyad.mm(pyad.Variable(np.ones(3)), pyad.Variable(np.ones((3, 2))))


def test_matmul_keeps_float32():
    a0 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b0 = np.array([0.5, -1.0, 2.0])
    a = pyad.Variable(a0.astype(np.float32), requires_grad=True)
    b = pyad.Variable(b0.astype(np.float32), requires_grad=True)
    y = a @ b
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, a0 @ b0)       # exact in float32
    y.sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float32
    # d sum(a b) / da = 1 b^T, / db = a^T 1
    np.testing.assert_array_equal(a.grad.data, np.tile(b0, (2, 1)))
    np.testing.assert_array_equal(b.grad.data, a0.sum(0))

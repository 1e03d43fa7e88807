"""Linear algebra: matmul / @ (1-D.1-D, 2-D.1-D, 1-D.2-D, 2-D.2-D, batched with
broadcasting, 1-D with batched) and mm."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (NP, Case, standard_op_tests, torch_lib)

B34 = np.random.default_rng(12).standard_normal((3, 4))


def _dtype_of(v):
    """A NumPy, pyad or torch value's dtype as NumPy's."""
    return np.dtype(str(v.dtype).replace("torch.", ""))

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
    # (an array operand in the Variable's dtype: matmul takes one dtype, as torch's)
    Case("matmul_ndarray_left", lambda L, a: L.matmul(L.c(B34.astype(_dtype_of(a))), a),
         [(4, 2)]),
    Case("matmul_ndarray_right", lambda L, a: L.matmul(a, L.c(B34.astype(_dtype_of(a)))),
         [(2, 3)]),
    Case("matmul_same_variable", lambda L, a: L.matmul(a, a), [(3, 3)]),
    Case("quadratic_form", lambda L, a, m: L.matmul(a, L.matmul(m, a)), [(3,), (3, 3)]),
    Case("matmul_then_tanh", lambda L, a, b: L.tanh(L.matmul(a, b)), [(2, 3), (3, 2)]),
]


def _ref(name, numpy_ref):
    """``L.<name>(*args)``, with ``numpy_ref`` standing in for NumPy."""
    return lambda L, *args, **kw: (numpy_ref if L is NP else getattr(L, name))(*args, **kw)


def _np_diag_embed(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    i = np.arange(x.shape[-1])
    out[..., i + max(-offset, 0), i + max(offset, 0)] = x
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


bmm = _ref("bmm", np.matmul)
mv = _ref("mv", np.matmul)
diag_embed = _ref("diag_embed", _np_diag_embed)
einsum = _ref("einsum", np.einsum)

NO0 = dict(zero_d=False)

CASES += [
    Case("bmm", lambda L, a, b: bmm(L, a, b), [(2, 3, 4), (2, 4, 5)], **NO0),
    Case("mv", lambda L, a, v: mv(L, a, v), [(3, 4), (4,)], **NO0),
    Case("dot", lambda L, a, b: L.dot(a, b), [(4,), (4,)], **NO0),
    Case("dot_same", lambda L, a: L.dot(a, a), [(4,)], **NO0),
    Case("outer", lambda L, a, b: L.outer(a, b), [(3,), (4,)], **NO0),
    Case("einsum_matmul", lambda L, a, b: einsum(L, "ij,jk->ik", a, b), [(2, 3), (3, 4)],
         **NO0),
    Case("einsum_implicit", lambda L, a, b: einsum(L, "bj,ja", a, b), [(2, 3), (3, 4)],
         **NO0),
    Case("einsum_trace", lambda L, a: einsum(L, "ii", a), [(3, 3)], **NO0),
    Case("einsum_diag", lambda L, a: einsum(L, "ii->i", a), [(3, 3)], **NO0),
    Case("einsum_batch_diag", lambda L, a: einsum(L, "bii->bi", a), [(2, 3, 3)], **NO0),
    Case("einsum_repeated_3", lambda L, a: einsum(L, "iji->j", a), [(3, 2, 3)], **NO0),
    Case("einsum_sum_all", lambda L, a: einsum(L, "ij->", a), [(3, 4)], **NO0),
    Case("einsum_transpose", lambda L, a: einsum(L, "ij->ji", a), [(3, 4)], **NO0),
    Case("einsum_outer_broadcast_letter", lambda L, a, b: einsum(L, "i,j->ij", a, b),
         [(3,), (4,)], **NO0),
    Case("einsum_ellipsis_batched", lambda L, a, b: einsum(L, "...ij,...jk->...ik", a, b),
         [(2, 3, 4), (4, 2)], **NO0),
    Case("einsum_ellipsis_broadcast_size1", lambda L, a, b: einsum(L, "...ij,...jk", a, b),
         [(2, 1, 3, 4), (5, 4, 2)], **NO0),
    Case("einsum_ellipsis_middle", lambda L, a: einsum(L, "i...j->j...i", a), [(2, 3, 4)],
         **NO0),
    Case("einsum_three_operands", lambda L, a, b, c: einsum(L, "ij,jk,kl->il", a, b, c),
         [(2, 3), (3, 4), (4, 2)], **NO0),
    Case("einsum_bilinear", lambda L, x, A, y: einsum(L, "i,ij,j->", x, A, y),
         [(3,), (3, 4), (4,)], **NO0),
    Case("einsum_same_operand_twice", lambda L, a: einsum(L, "ij,ij->i", a, a), [(3, 4)],
         **NO0),
    Case("einsum_only_in_one_operand", lambda L, a, b: einsum(L, "ij,k->ik", a, b),
         [(2, 3), (4,)], **NO0),
    Case("einsum_0d", lambda L, a, b: einsum(L, ",->", a, b), [(), ()], zero_d=False,
         empty=False, non_contiguous=False),
    # torch's einsum wants one dtype: the constant follows the input's (float32 variant).
    Case("einsum_with_constant",
         lambda L, a: einsum(L, "ij,jk->ik", a, L.c(B34.astype(str(a.dtype)[-7:]))), [(2, 3)],
         **NO0),
    Case("tensordot_int", lambda L, a, b: L.tensordot(a, b, 2), [(2, 3, 4), (3, 4, 5)],
         **NO0),
    Case("tensordot_0", lambda L, a, b: L.tensordot(a, b, 0), [(2, 3), (4,)], **NO0),
    Case("tensordot_lists", lambda L, a, b: L.tensordot(a, b, ([2, 0], [0, 1])),
         [(2, 3, 4), (4, 2, 5)], **NO0),
    Case("trace", lambda L, a: L.trace(a), [(3, 4)], **NO0),
    Case("diag_of_vector", lambda L, a: L.diag(a), [(3,)], **NO0),
    Case("diag_of_vector_offset", lambda L, a: L.diag(a, 2), [(3,)], **NO0),
    Case("diag_of_vector_negative_offset", lambda L, a: L.diag(a, -1), [(3,)], **NO0),
    Case("diag_of_matrix", lambda L, a: L.diag(a), [(3, 4)], **NO0),
    Case("diag_of_matrix_offset", lambda L, a: L.diag(a, 1), [(3, 4)], **NO0),
    Case("diag_of_matrix_negative_offset", lambda L, a: L.diag(a, -2), [(3, 4)], **NO0),
    Case("diagonal", lambda L, a: L.diagonal(a), [(3, 4)], **NO0),
    Case("diagonal_dims_offset", lambda L, a: L.diagonal(a, 1, 2, 0), [(3, 2, 4)], **NO0),
    Case("diagonal_negative_dims", lambda L, a: L.diagonal(a, -1, -1, -2), [(2, 3, 4)],
         **NO0),
    Case("diagonal_offset_past_the_end", lambda L, a: L.diagonal(a, 5), [(3, 4)], **NO0),
    Case("diag_embed", lambda L, a: diag_embed(L, a), [(2, 3)], **NO0),
    Case("diag_embed_offset_dims", lambda L, a: diag_embed(L, a, 1, 0, 2), [(2, 3)], **NO0),
    Case("diag_embed_reversed_dims", lambda L, a: diag_embed(L, a, -1, -1, 0), [(2, 3)],
         **NO0),
    Case("tril", lambda L, a: L.tril(a), [(3, 4)], **NO0),
    Case("tril_offset_batched", lambda L, a: L.tril(a, -1), [(2, 3, 4)], **NO0),
    Case("triu", lambda L, a: L.triu(a), [(4, 3)], **NO0),
    Case("triu_offset_batched", lambda L, a: L.triu(a, 1), [(2, 3, 4)], **NO0),
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


@pytest.mark.parametrize("call, match", [
    (lambda: pyad.bmm(pyad.ones(2, 3), pyad.ones(2, 3, 4)), r"bmm\(\): expected 3-D"),
    (lambda: pyad.bmm(pyad.ones(2, 3, 4), pyad.ones(3, 4, 5)), r"bmm\(\): shapes"),
    (lambda: pyad.mv(pyad.ones(2, 3), pyad.ones(4)), r"mv\(\): size mismatch"),
    (lambda: pyad.mv(pyad.ones(3), pyad.ones(3)), r"mv\(\): expected a 2-D"),
    (lambda: pyad.dot(pyad.ones(2, 3), pyad.ones(3)), r"dot\(\): 1D tensors expected"),
    (lambda: pyad.dot(pyad.ones(3), pyad.ones(4)), r"dot\(\): inconsistent"),
    (lambda: pyad.outer(pyad.ones(()), pyad.ones(3)), r"outer\(\): 1D"),
    (lambda: pyad.trace(pyad.ones(3)), r"trace\(\): expected a matrix"),
    (lambda: pyad.diag(pyad.ones(2, 2, 2)), r"diag\(\): Supports 1D or 2D"),
    (lambda: pyad.diagonal(pyad.ones(3, 3), 0, 1, 1), r"diagonal\(\): diagonal dimensions"),
    (lambda: pyad.diagonal(pyad.ones(3, 3), 0, 0, 2), r"diagonal\(\): Dimension out of"),
    # as torch: the default dims (0, 1) of a 1-d input: IndexError for dim 1
    (lambda: pyad.diagonal(pyad.ones(3)), r"diagonal\(\): Dimension out of range \(expected "
                                          r"to be in range of \[-1, 0\], but got 1\)"),
    (lambda: pyad.tril(pyad.ones(3)), r"tril\(\): input tensor must have at least 2"),
    (lambda: pyad.triu(pyad.ones(3, 3), 0.5), r"triu\(\): the diagonal offset must be an int"),
    (lambda: pyad.einsum("ij,jk", pyad.ones(2, 3), pyad.ones(4, 5)), r"einsum\(\): subscript"),
    (lambda: pyad.einsum("ij", pyad.ones(2, 3), pyad.ones(4)), r"einsum\(\): Number of einsum subscripts"),
    (lambda: pyad.einsum("ijk", pyad.ones(2, 3)), r"einsum\(\): operand 0 has 2 dim"),
    (lambda: pyad.einsum("i1", pyad.ones(2, 3)), r"einsum\(\): invalid subscript"),
    (lambda: pyad.einsum("ij->ii", pyad.ones(2, 2)), r"einsum\(\): output subscript 'i'"),
    (lambda: pyad.einsum("ij->k", pyad.ones(2, 2)), r"einsum\(\): output subscript 'k'"),
    (lambda: pyad.einsum("i,i", pyad.ones(2, dtype=pyad.float64), pyad.ones(2)),
     r"einsum\(\): expected all operands to have the same dtype"),
    (lambda: pyad.tensordot(pyad.ones(2, 3), pyad.ones(4, 5), 1),
     r"tensordot\(\): contracted dimensions need to match"),
    (lambda: pyad.tensordot(pyad.ones(2, 3), pyad.ones(3), 2), r"tensordot\(\): expects dims"),
    (lambda: pyad.tensordot(pyad.ones(2, 3), pyad.ones(3, 2), ([0, 1], [1])),
     r"tensordot\(\): both dimension lists"),
])
def test_bad_input_raises_naming_the_op(call, match):
    with pytest.raises((RuntimeError, ValueError, TypeError, IndexError), match=match):
        call()


@pytest.mark.parametrize("equation, shapes", [
    ("...ij->ij", [(2, 3, 4)]),                   # ellipsis dims summed (torch; NumPy refuses)
    ("...ij->i", [(2, 3, 4)]),
    ("ij,ij->ij", [(1, 3), (2, 3)]),              # size-1 dims broadcast
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i,i,i->i", [(3,), (3,), (3,)]),
    ("ii->", [(3, 3)]),
    ("Ab,bA", [(2, 3), (3, 2)]),
])
def test_einsum_matches_torch_including_its_extensions(equation, shapes):
    T, torch = torch_lib()
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in shapes]
    xs = [pyad.Variable(a, requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(a).requires_grad_(True) for a in arrays]
    out = pyad.einsum(equation, *xs)
    tout = torch.einsum(equation, *ts)
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = rng.standard_normal(out.shape)
    gs = pyad.grad(out, xs, pyad.Variable(w), create_graph=True)
    tgs = torch.autograd.grad(tout, ts, torch.from_numpy(w), create_graph=True)
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-12, atol=1e-12)
    from pyad.autograd import gradcheck, gradgradcheck
    assert gradcheck(lambda *a: pyad.einsum(equation, *a), tuple(xs))
    assert gradgradcheck(lambda *a: pyad.einsum(equation, *a), tuple(xs))


def test_einsum_takes_a_list_of_operands_and_methods_exist():
    a = pyad.Variable(np.arange(4.).reshape(2, 2))
    np.testing.assert_array_equal(pyad.einsum("ij->ji", [a]).data, a.data.T)
    np.testing.assert_array_equal(a.diag().data, [0., 3.])
    np.testing.assert_array_equal(a.tril().data, [[0., 0.], [2., 3.]])
    assert a.trace().item() == 3.0


def test_einsum_transpose_result_does_not_alias_the_input():
    a = pyad.Variable(np.arange(4.).reshape(2, 2))
    out = pyad.einsum("ij->ji", a)
    out.data[0, 0] = 100.0
    assert a.data[0, 0] == 0.0


def test_integer_inputs_as_torch():
    T, torch = torch_lib()
    a = np.arange(6).reshape(2, 3)
    for f in (lambda L, x: L.tril(x), lambda L, x: L.diagonal(x, 1),
              lambda L, x: L.einsum("ij->j", x), lambda L, x: L.diag(x)):
        out = f(pyad, pyad.Variable(a))
        ref = f(torch, torch.from_numpy(a))
        assert out.dtype == ref.numpy().dtype
        np.testing.assert_array_equal(out.data, ref.numpy())


# -- pyad.linalg ---------------------------------------------------------------------------

def _lin(name, **kw):
    """``L.linalg.<name>`` (numpy.linalg, pyad.linalg, torch.linalg)."""
    return lambda L: getattr(L.linalg, name)


def _spd(L, a):
    """A symmetric positive-definite matrix made from ``a`` (any square batch)."""
    n = a.shape[-1]
    return L.matmul(a, L.transpose(a, -1, -2)) + L.c(np.eye(n) * n)


def _sym(L, a):
    return a + L.transpose(a, -1, -2)


def _solve_ref(L, a, b):
    # NumPy 2 takes a batch of vectors as matrices; torch's rule for vectors:
    if L is NP and b.ndim > 1 and b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return L.linalg.solve(a, b)


LIN = dict(zero_d=False)
QR = dict(zero_d=False, empty=[(0, 4, 3)])
QR_WIDE = dict(zero_d=False, empty=[(0, 3, 5)])

LINALG_CASES = [
    Case("inv", lambda L, a: L.linalg.inv(a), [(3, 3)], **LIN),
    Case("inv_batched", lambda L, a: L.linalg.inv(a), [(2, 3, 3)], **LIN),
    Case("det", lambda L, a: L.linalg.det(a), [(3, 3)], **LIN),
    Case("det_batched", lambda L, a: L.linalg.det(a), [(2, 3, 3)], **LIN),
    Case("slogdet_logabsdet", lambda L, a: L.linalg.slogdet(a)[1], [(2, 3, 3)], **LIN),
    Case("slogdet_sign_times_logabsdet",
         lambda L, a: L.linalg.slogdet(a).sign * L.linalg.slogdet(a).logabsdet, [(3, 3)],
         **LIN),
    Case("solve_matrix", lambda L, a, b: _solve_ref(L, a, b), [(3, 3), (3, 2)], **LIN),
    Case("solve_vector", lambda L, a, b: _solve_ref(L, a, b), [(3, 3), (3,)], **LIN),
    Case("solve_batched_vectors", lambda L, a, b: _solve_ref(L, a, b), [(2, 3, 3), (2, 3)],
         **LIN),
    Case("solve_broadcast_batch", lambda L, a, b: _solve_ref(L, a, b),
         [(3, 3), (2, 3, 2)], **LIN),
    Case("solve_broadcast_a", lambda L, a, b: _solve_ref(L, a, b),
         [(2, 1, 3, 3), (4, 3, 1)], **LIN),
    Case("cholesky", lambda L, a: L.linalg.cholesky(_spd(L, a)), [(3, 3)], **LIN),
    Case("cholesky_batched", lambda L, a: L.linalg.cholesky(_spd(L, a)), [(2, 3, 3)], **LIN),
    # Q and R are unique up to the signs of R's diagonal; NumPy and torch both use
    # LAPACK's geqrf (negative diagonals here), so they agree.
    Case("qr_square", lambda L, a: L.linalg.qr(a)[0] + L.linalg.qr(a)[1], [(3, 3)],
         zero_d=False, empty=[(0, 3, 3)]),
    Case("qr_tall_Q", lambda L, a: L.linalg.qr(a)[0], [(4, 3)], **QR),
    Case("qr_tall_R_batched", lambda L, a: L.linalg.qr(a)[1], [(2, 4, 3)], **QR),
    # Wide inputs (more columns than rows): torch's mode='reduced' gradient.
    Case("qr_wide_Q", lambda L, a: L.linalg.qr(a)[0], [(3, 5)], **QR_WIDE),
    Case("qr_wide_R", lambda L, a: L.linalg.qr(a)[1], [(3, 5)], **QR_WIDE),
    Case("qr_wide_both_batched", lambda L, a: L.matmul(L.linalg.qr(a)[0] ** 2,
                                                        L.linalg.qr(a)[1]),
         [(2, 2, 4)], **QR_WIDE),
    Case("eigh_values", lambda L, a: L.linalg.eigh(_sym(L, a))[0], [(3, 3)], **LIN),
    # Eigenvectors only up to sign: V * V is sign-free.
    Case("eigh_vectors", lambda L, a: L.linalg.eigh(_sym(L, a))[1] ** 2, [(2, 3, 3)], **LIN),
    Case("eigh_both", lambda L, a: L.linalg.eigh(_sym(L, a))[1] ** 2 *
         L.unsqueeze(L.linalg.eigh(_sym(L, a))[0], -2), [(3, 3)], **LIN),
    Case("svd_S", lambda L, a: L.linalg.svd(a, False)[1], [(4, 3)], **LIN),
    Case("svdvals_wide_batched", lambda L, a: L.linalg.svdvals(a), [(2, 3, 4)], **LIN),
    Case("svd_U_tall", lambda L, a: L.linalg.svd(a, False)[0] ** 2, [(4, 3)], **LIN),
    Case("svd_Vh_wide", lambda L, a: L.linalg.svd(a, False)[2] ** 2, [(3, 4)], **LIN),
    Case("svd_sign_free_product", lambda L, a: L.matmul(
        L.linalg.svd(a, False)[0] * L.unsqueeze(L.linalg.svd(a, False)[1] ** 2, -2),
        L.linalg.svd(a, False)[2]), [(2, 3, 4)], **LIN),
    Case("svd_full_matrices_U", lambda L, a: L.linalg.svd(a)[0][..., :3] ** 2, [(4, 3)],
         **LIN),
]

(test_linalg_values_match_numpy, test_linalg_first_derivatives_pass_gradcheck,
 test_linalg_second_derivatives_pass_gradgradcheck,
 test_linalg_values_and_gradients_match_torch, test_linalg_second_derivatives_match_torch,
 test_linalg_create_graph_gradient_equals_plain_gradient,
 test_linalg_variant) = standard_op_tests(LINALG_CASES)


@pytest.mark.parametrize("call, match", [
    (lambda: pyad.linalg.inv(pyad.zeros(3, 3)), r"inv\(\): the matrix is singular"),
    (lambda: pyad.linalg.inv(pyad.ones(2, 3)), r"inv\(\): expected a batch of square"),
    (lambda: pyad.linalg.inv(pyad.ones(3)), r"inv\(\): the input must have at least 2"),
    (lambda: pyad.linalg.inv(pyad.tensor([[1, 0], [0, 1]])), r"linalg.inv\(\): Expected a floating point or complex tensor as input. Got Long"),
    (lambda: pyad.linalg.det(pyad.eye(2, dtype=pyad.float16)), r"det\(\): \"lu_cpu\" not implemented for 'Half'"),
    (lambda: pyad.linalg.det(pyad.ones(2, 3)), r"det\(\): expected a batch of square"),
    (lambda: pyad.linalg.solve(pyad.zeros(3, 3), pyad.ones(3)),
     r"solve\(\): the matrix A is singular"),
    (lambda: pyad.linalg.solve(pyad.eye(3), pyad.ones(4)), r"solve\(\): incompatible shapes"),
    (lambda: pyad.linalg.solve(pyad.eye(3), pyad.ones(3, dtype=pyad.float64)),
     r"solve\(\): expected A and B to have the same dtype"),
    (lambda: pyad.linalg.cholesky(-pyad.eye(2)), r"cholesky\(\): the input is not positive"),
    (lambda: pyad.linalg.eigh(pyad.ones(2, 3)), r"eigh\(\): expected a batch of square"),
    (lambda: pyad.linalg.svd(pyad.ones(3)), r"svd\(\): the input must have at least 2"),
])
def test_linalg_bad_input_raises_naming_the_op(call, match):
    with pytest.raises((RuntimeError, TypeError), match=match):
        call()


def test_singular_matrix_det_and_slogdet_as_torch():
    T, torch = torch_lib()
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert pyad.linalg.det(pyad.Variable(a)).item() == torch.linalg.det(torch.from_numpy(a))
    sign, logabsdet = pyad.linalg.slogdet(pyad.Variable(a))
    tsign, tlog = torch.linalg.slogdet(torch.from_numpy(a))
    assert sign.item() == tsign.item() == 0.0
    assert logabsdet.item() == tlog.item() == -np.inf
    # the det gradient at an exactly singular matrix: 0, as torch's LU solve gives
    x = pyad.Variable(a, requires_grad=True)
    pyad.linalg.det(x).backward()
    t = torch.from_numpy(a).requires_grad_()
    torch.linalg.det(t).backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())
    # its second order there still needs an inverse
    x = pyad.Variable(a, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"inv\(\): the matrix is singular"):
        pyad.autograd.grad(pyad.linalg.det(x), x, create_graph=True)


def test_slogdet_sign_requires_grad_like_torch_and_is_named():
    # torch 2.13: both outputs require grad (one node); a real sign is piecewise
    # constant, so it contributes nothing to the gradient
    x = pyad.Variable(np.array([[-2.0, 0.0], [0.0, 3.0]]), requires_grad=True)
    out = pyad.linalg.slogdet(x)
    assert out._fields == ("sign", "logabsdet")
    assert out.sign.requires_grad and out.logabsdet.requires_grad
    assert out.sign.grad_fn is out.logabsdet.grad_fn
    out.logabsdet.backward()
    np.testing.assert_allclose(x.grad.data, np.linalg.inv(x.data).T, rtol=1e-14)
    T, torch = torch_lib()
    t = torch.tensor([[-2.0, 0.0], [0.0, 3.0]], dtype=torch.float64, requires_grad=True)
    tout = torch.linalg.slogdet(t)
    assert tout.sign.requires_grad == out.sign.requires_grad
    # only the sign used: no gradient reaches the input, in both
    y = pyad.Variable(x.data.copy(), requires_grad=True)
    pyad.linalg.slogdet(y).sign.sum().backward()
    torch.linalg.slogdet(t).sign.sum().backward()
    assert y.grad is None and t.grad is None


def test_eigh_repeated_eigenvalues_values_gradient_as_torch():
    # The eigenvalues' gradient V diag(g) V^T is defined at repeated eigenvalues; the
    # eigenvectors' is not (it divides by the eigenvalue gaps), in torch as in pyad.
    T, torch = torch_lib()
    a = np.eye(3)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    w = np.array([1.0, 2.0, 3.0])
    (pyad.linalg.eigh(x).eigenvalues * pyad.Variable(w)).sum().backward()
    (torch.linalg.eigh(t).eigenvalues * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, atol=1e-12)
    x.grad = None
    with np.errstate(divide="ignore", invalid="ignore"):
        (pyad.linalg.eigh(x).eigenvectors ** 2 * pyad.Variable(w)).sum().backward()
    assert not np.all(np.isfinite(x.grad.data))


def test_svd_full_matrices_gradient_uses_the_first_k_columns_as_torch():
    T, torch = torch_lib()
    a = np.random.default_rng(3).standard_normal((4, 2))
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    U, S, Vh = pyad.linalg.svd(x)
    tU, tS, tVh = torch.linalg.svd(t)
    assert U.shape == (4, 4) and Vh.shape == (2, 2)
    w = np.random.default_rng(4).standard_normal((4, 4))
    ((U[:, :2] ** 2) * pyad.Variable(w[:, :2])).sum().backward()
    ((tU[:, :2] ** 2) * torch.from_numpy(w[:, :2])).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_qr_of_a_wide_matrix_reconstructs_it_and_has_torchs_gradient():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3))
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    Q, R = pyad.linalg.qr(x)
    tQ, tR = torch.linalg.qr(t)
    np.testing.assert_allclose((Q @ R).data, a, rtol=1e-12, atol=1e-12)
    wq, wr = np.random.default_rng(1).standard_normal((2, 2, 3))[:, :, :2], \
        np.random.default_rng(2).standard_normal((2, 3))
    ((Q * pyad.Variable(wq[0])).sum() + (R * pyad.Variable(wr)).sum()).backward()
    ((tQ * torch.from_numpy(wq[0])).sum() + (tR * torch.from_numpy(wr)).sum()).backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)
    # Only one of the outputs used: the other gradient is undefined, as in torch.
    for pick in (0, 1):
        x.grad = None
        t.grad = None
        pyad.linalg.qr(x)[pick].sum().backward()
        torch.linalg.qr(t)[pick].sum().backward()
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)


# -- diagonal is a view --------------------------------------------------------------------

def test_diagonal_is_a_view_that_shares_memory_and_version():
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4)
    x = pyad.tensor(a)
    t = torch.tensor(a)
    for args in [(), (1,), (-1,), (0, 1, 0)]:
        d = x.diagonal(*args)
        td = t.diagonal(*args)
        assert np.shares_memory(d.data, x.data)
        np.testing.assert_array_equal(d.data, td.numpy())
    d = x.diagonal(1)
    before = x._version
    d.mul_(10)
    t.diagonal(1).mul_(10)
    assert x._version == d._version == before + 1
    np.testing.assert_array_equal(x.data, t.numpy())
    d[0] = -1.0                          # item assignment writes through too
    t.diagonal(1)[0] = -1.0
    np.testing.assert_array_equal(x.data, t.numpy())
    x.add_(1)                            # and the view sees writes to its base
    t.add_(1)
    np.testing.assert_array_equal(d.data, t.diagonal(1).numpy())


def test_diagonal_of_a_read_only_input_stays_read_only():
    a = np.eye(3)
    a.flags.writeable = False
    d = pyad.diagonal(pyad.from_numpy(a))
    assert not d.data.flags.writeable
    with pytest.raises(RuntimeError, match=r"^mul_\(\): the Variable's data is read-only"):
        d.mul_(2)


def test_in_place_op_on_a_diagonal_view_follows_the_view_machinery():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).standard_normal((2, 3, 3))
    w = np.random.default_rng(4).standard_normal((2, 3, 3))

    def run(lib, leaf):
        y = leaf * 2                     # a non-leaf base
        d = y.diagonal(0, -2, -1)
        d.sin_()                         # changes the diagonal of y in place
        (y.exp() * lib(w)).sum().backward()
        return y

    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = run(pyad.Variable, x)
    ty = run(torch.from_numpy, t)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)

    def f(v):
        y = v * 2
        y.diagonal(1, 0, 2).exp_()
        return y.sin()

    x = pyad.Variable(a, requires_grad=True)
    assert pyad.autograd.gradcheck(f, (x,))
    assert pyad.autograd.gradgradcheck(f, (x,))


def test_in_place_on_a_diagonal_of_a_leaf_that_requires_grad_is_refused_like_torch():
    torch = pytest.importorskip("torch")
    x = pyad.Variable(np.eye(2), requires_grad=True)
    t = torch.eye(2, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.diagonal().add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        t.diagonal().add_(1)
    with pyad.no_grad():
        x.diagonal().add_(1)
    np.testing.assert_array_equal(x.data, 2 * np.eye(2))


def test_a_saved_diagonal_view_sees_in_place_changes_of_its_base():
    x = pyad.Variable(np.eye(3) + 1.0, requires_grad=True)
    y = x * 1.0
    d = y.diagonal()
    z = (d * d).sum()                   # saves d
    y.add_(1)                           # changes d's memory
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_linalg_namespace_and_no_grad_results():
    import pyad.linalg as linalg
    assert linalg is pyad.linalg
    a = pyad.Variable(np.array([[4.0, 2.0], [2.0, 5.0]]), requires_grad=True)
    with pyad.no_grad():
        for out in (linalg.inv(a), linalg.det(a), linalg.cholesky(a), linalg.svdvals(a),
                    *linalg.qr(a), *linalg.eigh(a), *linalg.svd(a), *linalg.slogdet(a)):
            assert out.grad_fn is None and not out.requires_grad

"""pyad.nn.functional normalisation, embedding, one_hot, dropout against torch."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from _nn_helpers import Case, standard_nn_tests

IDX = np.array([[1, 0, 3], [3, 3, 2]])
RM, RV = np.array([0.1, -0.2, 0.3]), np.array([0.5, 1.5, 2.0])

CASES = [
    Case("layer_norm", lambda L, x: L.F.layer_norm(x, (4,)), [(3, 4)], empty=[(0, 4)]),
    Case("layer_norm_affine_2d", lambda L, x, w, b: L.F.layer_norm(x, (3, 4), w, b, eps=1e-3),
         [(2, 3, 4), (3, 4), (3, 4)]),
    Case("batch_norm_train", lambda L, x, w, b: L.F.batch_norm(
        x, None, None, w, b, training=True), [(4, 3), (3,), (3,)]),
    Case("batch_norm_train_4d", lambda L, x: L.F.batch_norm(
        x, None, None, training=True, eps=1e-3), [(2, 3, 2, 2)]),
    Case("batch_norm_eval", lambda L, x, w, b: L.F.batch_norm(
        x, L.c(RM), L.c(RV), w, b), [(4, 3, 2), (3,), (3,)], empty=[(0, 3, 2), (3,), (3,)]),
    Case("group_norm", lambda L, x, w, b: L.F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    Case("group_norm_plain", lambda L, x: L.F.group_norm(x, 3), [(2, 6, 2)]),
    Case("normalize", lambda L, x: L.F.normalize(x), [(3, 4)], empty=[(0, 4)]),
    Case("normalize_p1_dim0", lambda L, x: L.F.normalize(x, p=1.0, dim=0), [(3, 4)]),
    Case("cosine_similarity", lambda L, x, y: L.F.cosine_similarity(x, y), [(3, 4), (3, 4)],
         empty=[(0, 4), (0, 4)]),
    Case("cosine_similarity_bcast", lambda L, x, y: L.F.cosine_similarity(x, y, dim=-1),
         [(2, 3, 4), (3, 4)]),
    Case("embedding", lambda L, w: L.F.embedding(L.c(IDX), w), [(5, 3)]),
    Case("embedding_padding_idx", lambda L, w: L.F.embedding(L.c(IDX), w, padding_idx=3),
         [(5, 3)]),
    Case("embedding_scale_grad_by_freq", lambda L, w: L.F.embedding(
        L.c(IDX), w, scale_grad_by_freq=True), [(5, 3)]),
]

for _c in CASES[-2:]:
    _c.gradcheck = False

test_matches_torch_and_finite_differences, test_variant = standard_nn_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (3, 2, 2, 2)])
def test_batch_norm_updates_running_stats_as_torch(shape):
    torch = _torch()
    x = np.random.default_rng(0).standard_normal(shape)
    rm, rv = pyad.tensor(RM[: shape[1]].copy()), pyad.tensor(RV[: shape[1]].copy())
    trm, trv = torch.tensor(RM[: shape[1]].copy()), torch.tensor(RV[: shape[1]].copy())
    for _ in range(2):
        y = F.batch_norm(pyad.tensor(x), rm, rv, training=True, momentum=0.3)
        ty = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, training=True,
                                            momentum=0.3)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rm.data, trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv.data, trv.numpy(), rtol=1e-12)
    assert rm._version > 0
    # eval uses them
    y = F.batch_norm(pyad.tensor(x), rm, rv, training=False)
    ty = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, training=False)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-10, atol=1e-12)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match=r"batch_norm\(\): expected more than 1 value"):
        F.batch_norm(pyad.ones(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match=r"batch_norm\(\): running_mean"):
        F.batch_norm(pyad.ones(2, 3), None, None)
    with pytest.raises(RuntimeError, match=r"batch_norm\(\): weight"):
        F.batch_norm(pyad.ones(2, 3), None, None, pyad.ones(2), training=True)
    with pytest.raises(TypeError, match=r"batch_norm\(\): running_mean must be a Variable"):
        F.batch_norm(pyad.ones(2, 3), np.zeros(3, np.float32), pyad.ones(3), training=True)


def test_layer_and_group_norm_errors():
    with pytest.raises(RuntimeError, match=r"layer_norm\(\)"):
        F.layer_norm(pyad.ones(2, 3), (4,))
    with pytest.raises(ValueError, match=r"group_norm\(\): the number of channels"):
        F.group_norm(pyad.ones(2, 3), 2)


def test_normalize_and_cosine_similarity_of_zero_vectors_match_torch():
    torch = _torch()
    a = np.array([[0.0, 0.0], [3.0, 4.0]])
    b = np.array([[1.0, 2.0], [0.0, 0.0]])
    for f, args in ((lambda M, x, y: M.normalize(x, dim=1), ()),
                    (lambda M, x, y: M.cosine_similarity(x, y), ())):
        xs, ys = pyad.tensor(a, requires_grad=True), pyad.tensor(b, requires_grad=True)
        txs, tys = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        out, tout = f(F, xs, ys), f(torch.nn.functional, txs, tys)
        np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-12, atol=1e-15)
        out.sum().backward()
        tout.sum().backward()
        np.testing.assert_allclose(xs.grad.data, txs.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_embedding_padding_row_gets_no_gradient_and_errors():
    w = pyad.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
    out = F.embedding(pyad.tensor([[0, 2], [2, 3]]), w, padding_idx=2)
    np.testing.assert_array_equal(out.data, [[[0, 1], [4, 5]], [[4, 5], [6, 7]]])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.data, [[1, 1], [0, 0], [0, 0], [1, 1]])
    with pytest.raises(IndexError, match=r"embedding\(\): index 4 is out of range"):
        F.embedding(pyad.tensor([4]), w)
    with pytest.raises(IndexError, match=r"embedding\(\): index -1"):
        F.embedding(pyad.tensor([-1]), w)
    with pytest.raises(RuntimeError, match=r"embedding\(\): indices must be an integer"):
        F.embedding(pyad.tensor([1.0]), w)
    with pytest.raises(NotImplementedError, match=r"embedding\(\)"):
        F.embedding(pyad.tensor([1]), w, sparse=True)


def test_embedding_max_norm_renormalises_weight_as_torch():
    torch = _torch()
    a = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    w, tw = pyad.tensor(a.copy()), torch.tensor(a.copy())
    out = F.embedding(pyad.tensor([0, 1, 0]), w, max_norm=2.0)
    tout = torch.nn.functional.embedding(torch.tensor([0, 1, 0]), tw, max_norm=2.0)
    np.testing.assert_allclose(out.data, tout.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.data, tw.numpy(), rtol=1e-12)   # row 2 untouched


def test_one_hot_matches_torch():
    torch = _torch()
    for t, n in (([0, 2, 1], -1), ([[1], [3]], 5), ([], 3), (2, 4)):
        ours = F.one_hot(pyad.tensor(np.array(t, np.int64)), n)
        theirs = torch.nn.functional.one_hot(torch.tensor(np.array(t, np.int64)), n)
        assert ours.dtype == np.int64
        np.testing.assert_array_equal(ours.data, theirs.numpy())
    with pytest.raises(RuntimeError, match=r"one_hot\(\): class values must be smaller"):
        F.one_hot(pyad.tensor([0, 3]), 3)
    with pytest.raises(RuntimeError, match=r"one_hot\(\): class values must be non-neg"):
        F.one_hot(pyad.tensor([-1]), 3)
    with pytest.raises(RuntimeError, match=r"one_hot\(\): cannot infer"):
        F.one_hot(pyad.tensor(np.zeros(0, np.int64)))
    with pytest.raises(TypeError, match=r"one_hot\(\)"):
        F.one_hot(pyad.tensor([1.0]))


def test_dropout_scales_zeroes_and_is_reproducible():
    x = pyad.ones(20000, dtype=pyad.float64, requires_grad=True)
    pyad.manual_seed(3)
    y = F.dropout(x, 0.25)
    pyad.manual_seed(3)
    y2 = F.dropout(x, 0.25)
    np.testing.assert_array_equal(y.data, y2.data)
    assert set(np.unique(y.data)) == {0.0, 1 / 0.75}
    assert abs((y.data == 0).mean() - 0.25) < 0.02
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, y.data)       # the same mask and scale
    assert F.dropout(x, 0.5, training=False) is x
    np.testing.assert_array_equal(F.dropout(x, 1.0).data, np.zeros(20000))
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError, match=r"dropout\(\): dropout probability"):
            F.dropout(x, p)


def test_dropout_inplace_and_shapes():
    h = pyad.ones(3, 4, dtype=pyad.float32) * 1
    pyad.manual_seed(0)
    out = F.dropout(h, 0.5, inplace=True)
    assert out is h and h.dtype == np.float32
    assert set(np.unique(h.data)) <= {0.0, 2.0}
    assert F.dropout(pyad.tensor(1.0), 0.5).shape == ()
    assert F.dropout(pyad.zeros(0, 3), 0.5).shape == (0, 3)


def test_linear_shape_error():
    with pytest.raises(RuntimeError, match=r"linear\(\)"):
        F.linear(pyad.ones(2, 3), pyad.ones(4, 5))

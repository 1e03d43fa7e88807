"""Second round of ports of PyTorch's indexing tests (pytorch/pytorch
``test/test_indexing.py`` classes TestIndexing and NumpyTests, and the CPU tests of
``test/test_scatter_gather.py``) to pyad.

tests/ops/test_torch_indexing_ports.py holds the first round (87 tests: getitem and
setitem keys, bool/byte masks, index_put_ basics, NumPy's indexing tests).  This file
adds what that round left out:

* the get/set key tables of torch's ``test_advancedindex`` (2-d, 3-d and 4-d inputs,
  advanced indices mixed with slices and ellipsis, set with a number and a tensor),
  strided views set through, too many indices and out-of-range keys;
* ``index_select``, ``index_copy(_)``, ``index_fill(_)``, ``index_add(_)``,
  ``index_reduce`` (every ``reduce=`` with ``include_self``), ``take``, ``put_``,
  ``take_along_dim``: values against torch, negative and out-of-range indices (the
  exception class torch raises), empty index tensors, 0-d operands, gradients;
* ``gather``, ``scatter`` (tensor, value, ``reduce='add'/'multiply'``),
  ``scatter_add``, ``scatter_reduce`` (sum/prod/mean/amax/amin x include_self),
  duplicates, bool inputs, zero-size and expanded indices, gradients;
* setitem through views (the base changes, version counters bump as torch's do,
  gradients flow), ``index_put_`` on a non-contiguous view, ``x[..., i] = v`` with
  broadcast values and the shape-mismatch error, ``test_truncate_leading_1s``.

Every expected value comes from torch 2.13 run on the same inputs in the same test
(or from a NumPy loop written here); gradients are compared with torch's and checked
with ``pyad.autograd.gradcheck`` in float64.  Each test names the torch test it mirrors.

Left out: CUDA/XPU/MPS-only tests (device asserts, cross-device errors, deterministic
CUDA kernels, ``test_index_put_large_indices``), ``test_index_tensor_empty_indices``
(calls ``torch.ops.aten.index.Tensor``, which pyad does not expose), complex dtypes,
bfloat16 and float8 (no NumPy dtype), torch.jit, and the sizes above INT_MAX (ported
small in round one).  ``test_index_add_deterministic``/``test_index_copy_deterministic``
are kept at a small size (the result is the CPU order, not a deterministic-mode flag).
"""
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

# torch's default assertEqual tolerances per dtype
TOL = {np.dtype(np.float64): (1e-7, 1e-7), np.dtype(np.float32): (1.3e-6, 1e-5)}


def _conv(lib, a, rg):
    """A NumPy array as lib's tensor; floating arrays may require grad."""
    if not isinstance(a, np.ndarray):
        return a
    if lib is pyad:
        return pyad.Variable(a.copy(), requires_grad=rg)
    return torch.tensor(a, requires_grad=rg)


def _np(v):
    if isinstance(v, pyad.Variable):
        return np.asarray(v.data)
    return v.detach().numpy()


def assert_same(p, t, exact=False):
    """pyad result p against torch result t: shape, dtype, values."""
    pv, tv = _np(p), _np(t)
    assert pv.shape == tv.shape
    assert str(pv.dtype) == str(t.dtype).replace("torch.", "")
    if exact or pv.dtype.kind not in "fc":
        np.testing.assert_array_equal(pv, tv)
    else:
        rtol, atol = TOL[pv.dtype]
        np.testing.assert_allclose(pv, tv, rtol=rtol, atol=atol)


def both(fn, *arrays, grad=(), exact=False, seed=0, check_grad=True):
    """Run fn(lib, *xs) with pyad and torch on the same arrays; compare the result and
    (for the arguments listed in ``grad``) the gradients of a weighted sum."""
    px = [_conv(pyad, a, i in grad) for i, a in enumerate(arrays)]
    tx = [_conv(torch, a, i in grad) for i, a in enumerate(arrays)]
    p, t = fn(pyad, *px), fn(torch, *tx)
    assert_same(p, t, exact)
    if grad and check_grad:
        w = np.random.default_rng(seed).standard_normal(tuple(t.shape))
        (p * pyad.Variable(w)).sum().backward()
        (t * torch.from_numpy(w)).sum().backward()
        for i in grad:
            assert px[i].grad is not None and tx[i].grad is not None
            assert_same(px[i].grad, tx[i].grad)
    return p, t


def gradcheck(fn, *arrays, grad=(0,)):
    """pyad.autograd.gradcheck of fn(pyad, ...) in float64 over the ``grad`` args."""
    fixed = [_conv(pyad, a, False) for a in arrays]

    def f(*vs):
        args = list(fixed)
        for i, v in zip(grad, vs):
            args[i] = v
        return fn(pyad, *args)

    ins = [pyad.Variable(arrays[i].astype(np.float64), requires_grad=True) for i in grad]
    assert pyad.autograd.gradcheck(f, tuple(ins), eps=1e-6, atol=1e-5, rtol=1e-3)


def same_error(fn, *arrays, match=None):
    """fn raises the exception class with pyad that it raises with torch."""
    with pytest.raises(Exception) as te:
        fn(torch, *[_conv(torch, a, False) for a in arrays])
    with pytest.raises(te.type, match=match):
        fn(pyad, *[_conv(pyad, a, False) for a in arrays])
    return te.type


def rnd(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def noncontig(a):
    """The same values as a, held in a strided (every other element) array."""
    big = np.empty(a.shape[:-1] + (2 * a.shape[-1],) if a.ndim else (), a.dtype)
    if a.ndim == 0 or a.size == 0:
        return a.copy()
    big[..., ::2] = a
    out = big[..., ::2]
    assert not out.flags.c_contiguous or a.shape[-1] <= 1
    return out


# ------------------------------------------------------------------------------------
# test_advancedindex: the NumPy-compared key tables, get and set
# ------------------------------------------------------------------------------------

_S = slice(None)
E = Ellipsis
TABLES = {
    "2d": ((4, 5), [(_S, [1, 3]), ([0, 2], _S), (_S, [[0, 1], [2, 3]]), ([-1], [0]),
                    ([0, 2], [-1]), (_S, [-1])]),
    "3d": ((4, 8, 5), [
        (_S, _S, (0, 3, 4)), (_S, (2, 4, 5, 7), _S), ((2, 3), _S, _S),
        (_S, (0, 2, 3), (1, 3, 4)), (_S, (0,), (1, 2, 4)), (_S, (0, 1, 3), (4,)),
        (_S, ((0, 1), (1, 0)), ((2, 3),)), (_S, ((0, 1), (2, 3)), ((0,),)),
        (_S, ((5, 6),), ((0, 3), (4, 4))), ((0, 2, 3), (1, 3, 4), _S),
        ((0,), (1, 2, 4), _S), ((0, 1, 3), (4,), _S),
        (((0, 1), (1, 0)), ((2, 1), (3, 5)), _S), (((0, 1), (1, 0)), ((2, 3),), _S),
        (((0, 1), (2, 3)), ((0,),), _S), (((2, 1),), ((0, 3), (4, 4)), _S),
        (((2,),), ((0, 3), (4, 1)), _S), ((0, 2, 3), _S, (1, 3, 4)),
        ((0, 2),), ((0, 2), _S), ((0, 2), E), ((0, 2), _S, E), ((0, 2), E, _S),
        ((0, 2), (1, 3)), ((0, 2), (1, 3), E), (E, (1, 3), (2, 3)), (E, (2, 3, 4)),
        (E, _S, (2, 3, 4)), (_S, E, (2, 3, 4)), (E, _S, _S, (0, 3, 4)),
        (_S, E, _S, (0, 3, 4)), (_S, _S, E, (0, 3, 4)), (_S, _S, (0, 3, 4), E),
        (E, ((0, 1), (1, 0)), ((2, 1), (3, 5)), _S),
        (((0, 1), (1, 0)), ((2, 1), (3, 5)), E, _S),
        (((0, 1), (1, 0)), ((2, 1), (3, 5)), _S, E)]),
    "4d": ((3, 9, 8, 6), [
        (_S, _S, _S, (0, 3, 4)), (_S, _S, (2, 4, 5, 7), _S), (_S, (2, 3), _S, _S),
        ((1, 2), _S, _S, _S), (_S, _S, (0, 2, 3), (1, 3, 4)), (_S, _S, (0,), (1, 2, 4)),
        (_S, _S, ((0, 1), (1, 0)), ((2, 3),)), (_S, _S, ((5, 6),), ((0, 3), (4, 4))),
        (_S, (0, 2, 3), (1, 3, 4), _S), (_S, ((0, 1), (3, 4)), ((2, 3), (0, 1)), _S),
        (_S, ((2,),), ((0, 3), (4, 2)), _S), ((0, 1, 2), (1, 3, 4), _S, _S),
        (((0, 1), (0, 2)), ((2, 4), (1, 5)), _S, _S), (((2,),), ((0, 3), (4, 5)), _S, _S),
        (_S, (3, 4, 6), (0, 2, 3), (1, 3, 4)), (_S, (2, 3, 4), (1, 3, 4), (4,)),
        (_S, (6,), (0, 2, 3), (1,)), (_S, ((0, 3), (3, 6)), ((0, 1), (1, 3)), ((5, 3), (1, 2))),
        ((2, 2, 1), (0, 2, 3), (1, 3, 4), _S), ((0, 1, 2), (4,), (1, 3, 4), _S),
        (((1, 2), (1, 2)), ((0, 1), (2, 3)), ((2, 3), (3, 5)), _S),
        (E, (0, 3, 4)), (E, _S, (0, 3, 4)), (_S, _S, E, (0, 3, 4)),
        (_S, (0, 2, 3), (1, 3, 4), E), (E, (0, 2, 3), (1, 3, 4), _S),
        ((0,), (1, 2, 4), E, _S), ((1,),), ((0, 2, 1), (3,), (4,), E),
        (E, (0, 2, 1), (3,), (4,)),
        (_S, _S, [[0, 1], [1, 0]], [[2, 3], [3, 0]]), (_S, _S, [[2]], [[0, 3], [4, 4]])]),
}


def _key(lib, key):
    """torch's table keys: tuples/lists of ints become index tensors (its ``ri``)."""
    conv = lambda k: (lib.tensor(np.array(k, np.int64)) if isinstance(k, (tuple, list))
                      else k)
    return tuple(conv(k) for k in key)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_advancedindex_tables_get_set(table):
    # torch's test_advancedindex: assert_get_eq / assert_set_eq (number and tensor)
    shape, keys = TABLES[table]
    ref = np.arange(float(np.prod(shape))).reshape(shape)
    for key in keys:
        p, t = pyad.Variable(ref.copy()), torch.tensor(ref)
        assert_same(p[_key(pyad, key)], t[_key(torch, key)], exact=True)
        # set with a number
        p[_key(pyad, key)] = 212
        t[_key(torch, key)] = 212
        assert_same(p, t, exact=True)
        # set with a permutation of the selected shape
        n = t[_key(torch, key)].numel()
        val = np.random.default_rng(n).permutation(n).astype(np.float64).reshape(
            tuple(t[_key(torch, key)].shape))
        p[_key(pyad, key)] = pyad.Variable(val)
        t[_key(torch, key)] = torch.from_numpy(val)
        assert_same(p, t, exact=True)


@pytest.mark.parametrize("table", ["2d", "3d"])
def test_advancedindex_tables_backward(table):
    # torch's assert_backward_eq (run on accelerators) with torch's CPU gradient as the
    # reference; duplicates included (torch's get-only key (:, [0, 1, 1, 2, 2]))
    shape, keys = TABLES[table]
    ref = rnd(shape, 3)
    for key in keys + [(_S, (0, 1, 1, 2, 2))]:
        both(lambda L, x: x[_key(L, key)], ref, grad=(0,))


def test_advancedindex_strided_views_set_through():
    # torch's strided cases of test_advancedindex built with set_(); the same strides
    # come from slicing here, and a write through the view must reach the base
    base_p = pyad.Variable(np.arange(24.0).reshape(3, 8))
    base_t = torch.arange(24.0, dtype=torch.float64).view(3, 8)
    sp, st = base_p[0:2, 1::2], base_t[0:2, 1::2]          # [[1 3 5 7] [9 11 13 15]]
    for rows, cols in [([0, 1], [0]), ([1], [3]), ([0, 0, 1, 1], [0, 1, 0, 0]),
                       ([[0, 1], [1, 0]], [1, 2]), ([[0, 0], [1, 1]], [[0, 1], [1, 2]])]:
        assert_same(sp[_key(pyad, (rows, cols))], st[_key(torch, (rows, cols))], exact=True)
    sp[_key(pyad, ([0, 1], [1, 0]))] = pyad.tensor([-1.0, 2.0], dtype=pyad.float64)
    st[_key(torch, ([0, 1], [1, 0]))] = torch.tensor([-1.0, 2.0], dtype=torch.float64)
    assert_same(base_p, base_t, exact=True)
    rows, cols = [[0], [1]], [[0, 1], [0, 1]]
    sp[_key(pyad, (rows, cols))] = pyad.tensor([[4.0, 6], [2, 3]], dtype=pyad.float64)
    st[_key(torch, (rows, cols))] = torch.tensor([[4.0, 6], [2, 3]], dtype=torch.float64)
    assert_same(base_p, base_t, exact=True)


def test_advancedindex_too_many_and_out_of_range():
    # the error half of torch's test_advancedindex
    r = np.arange(6.0).reshape(3, 2)
    same_error(lambda L, x: x[_key(L, ([1], [0, 2], [3]))], r)
    e = np.zeros(10)
    for bad in (10, -11):
        assert same_error(lambda L, x: x[bad], e, match="out of") is IndexError
        assert same_error(lambda L, x: x[L.tensor([bad])], e, match="out of") is IndexError
        assert same_error(lambda L, x: x[[bad]], e, match="out of") is IndexError


def test_truncate_leading_1s():
    col = rnd((1, 4), 4)
    for L in (pyad, torch):
        c = L.tensor(col)
        k = c.T * c
        k2 = k.clone()
        k[range(4), range(4)] = L.square(c)       # a (1, 4) value into 4 places
        L.diagonal(k2).copy_(L.square(c.view(4)))
        np.testing.assert_array_equal(_np(k), _np(k2))


# ------------------------------------------------------------------------------------
# index_select / index_copy / index_fill / index_add / index_reduce
# ------------------------------------------------------------------------------------

def _arg(other, n, dim, contig, seed, dtype=np.float64):
    size = other[:dim] + (n,) + other[dim:]
    a = rnd(size, seed)
    if dtype != np.float64:
        a = (a * 4).astype(dtype)
    return a if contig else noncontig(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_index_select(dtype):
    seed = 0
    for src_c in (True, False):
        for idx_c in (True, False):
            for other in ((), (4, 5)):
                for dim in range(len(other) + 1):
                    seed += 1
                    src = _arg(other, 3, dim, src_c, seed, dtype)
                    idx = np.random.default_rng(seed).integers(0, 3, 5)
                    idx = idx if idx_c else noncontig(idx)
                    p, _ = both(lambda L, s, i: L.index_select(s, dim, i), src, idx,
                                exact=True)
                    np.testing.assert_array_equal(_np(p), np.take(src, idx, axis=dim))
    # int32 indices
    src = _arg((3, 2), 3, 1, True, 99, dtype)
    idx = np.array([0, 2, 1, 1, 0], np.int32)
    both(lambda L, s, i: L.index_select(s, 1, i), src, idx, exact=True)
    # the 4 combinations of 0-d / 1-element source and index
    for ss in ((), (1,)):
        for si in ((), (1,)):
            src = np.asarray(rnd(ss, 5)).astype(dtype)
            idx = np.zeros(si, np.int64)
            p, _ = both(lambda L, s, i: s.index_select(0, i), src, idx, exact=True)
            assert p.item() == src.item()


def test_index_select_gradients_and_errors():
    a = rnd((4, 3), 6)
    idx = np.array([3, 0, 3, 1])
    for dim in (0, 1, -1):
        i = idx % a.shape[dim]
        both(lambda L, x, j: L.index_select(x, dim, j), a, i, grad=(0,))
        gradcheck(lambda L, x, j: L.index_select(x, dim, j), a, i)
    # empty index
    both(lambda L, x, j: L.index_select(x, 1, j), a, np.array([], np.int64), grad=(0,))
    # negative / out of range, float index, 2-d index, dim out of range
    for bad in (np.array([4]), np.array([-1]), np.array([0.0]), np.array([[0, 1]])):
        same_error(lambda L, x, j: L.index_select(x, 0, j), a, bad)
    assert same_error(lambda L, x, j: L.index_select(x, 2, j), a, np.array([0])) is IndexError


def test_index_copy():
    # torch's test_index_copy: all contiguity combinations, dims, distinct indices
    seed = 10
    for dest_c in (True, False):
        for src_c in (True, False):
            for idx_c in (True, False):
                for other in ((), (4, 5)):
                    for dim in range(len(other) + 1):
                        seed += 1
                        dest = _arg(other, 5, dim, dest_c, seed)
                        src = _arg(other, 3, dim, src_c, seed + 100)
                        idx = np.random.default_rng(seed).permutation(5)[:3]
                        idx = idx if idx_c else noncontig(idx)

                        def f(L, d, i, s):
                            d = d.clone()
                            d.index_copy_(dim, i, s)
                            return d
                        p, _ = both(f, dest, idx, src, exact=True)
                        want = np.moveaxis(dest.copy(), dim, 0)
                        want[idx] = np.moveaxis(src, dim, 0)
                        np.testing.assert_array_equal(_np(p), np.moveaxis(want, 0, dim))


def test_index_copy_scalars():
    # the 8 combinations of 0-d / 1-element target, index and source
    for st in ((), (1,)):
        for si in ((), (1,)):
            for ss in ((), (1,)):
                tgt, src = np.asarray(rnd(st, 1)), np.asarray(rnd(ss, 2))

                def f(L, t, i, s):
                    t = t.clone()
                    t.index_copy_(0, i, s)
                    return t
                p, _ = both(f, tgt, np.zeros(si, np.int64), src, exact=True)
                assert p.item() == src.item()


def test_index_copy_deterministic_small():
    # torch's test_index_copy_deterministic at a small size: repeated indices, the last
    # write wins (torch's sequential reference loop)
    for dim in range(3):
        a = [5, 4, 3]
        a[dim] = 20
        b = list(a)
        b[dim] = 80
        src = rnd(tuple(b), dim)
        idx = np.random.default_rng(dim).integers(0, 20, 80)
        x = np.zeros(a)
        p, _ = both(lambda L, xx, i, s: L.index_copy(xx, dim, i, s), x, idx, src, exact=True)
        want = np.moveaxis(x.copy(), dim, 0)
        for k, j in enumerate(idx):
            want[j] = np.moveaxis(src, dim, 0)[k]
        np.testing.assert_array_equal(_np(p), np.moveaxis(want, 0, dim))


def test_index_copy_gradients_and_errors():
    dest, src, idx = rnd((5, 3), 7), rnd((2, 3), 8), np.array([4, 1])
    both(lambda L, d, i, s: L.index_copy(d, 0, i, s), dest, idx, src, grad=(0, 2))
    gradcheck(lambda L, d, i, s: L.index_copy(d, 0, i, s), dest, idx, src, grad=(0, 2))
    # negative index, out of range, source of the wrong size, float index
    for i, s in [(np.array([-1, 0]), src), (np.array([5, 0]), src),
                 (np.array([0.0, 1.0]), src)]:
        same_error(lambda L, d, ii, ss: L.index_copy(d, 0, ii, ss), dest, i, s)


def test_index_copy_index_count_mismatch_is_index_error():
    same_error(lambda L, d, ii, ss: L.index_copy(d, 0, ii, ss), rnd((5, 3), 7),
               np.array([0, 1, 2]), rnd((2, 3), 8), match="(?i)indices")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_index_fill(dtype):
    x = np.array([[1, 2], [4, 5]]).astype(dtype)

    def f(L, xx, i):
        xx = xx.clone()
        xx.index_fill_(1, i, 0)
        return xx
    p, _ = both(f, x, np.array([0]), exact=True)
    np.testing.assert_array_equal(_np(p), np.array([[0, 2], [0, 5]]).astype(dtype))
    # a complex fill value on a real input is refused (the wording is checked below)
    same_error(lambda L, xx, i: xx.clone().index_fill_(1, i, 1 + 1j), x, np.array([0]))
    # a 0-d input stays 0-d, in and out of place
    x0 = np.array(1).astype(dtype)
    for L in (pyad, torch):
        v = L.tensor(x0)
        assert v.index_fill(0, L.tensor([0]), -1).dim() == 0
        assert v.index_fill_(0, L.tensor([0]), -1).dim() == 0


def test_index_fill_complex_value_message():
    same_error(lambda L, xx, i: xx.clone().index_fill_(1, i, 1 + 1j), rnd((2, 2), 0),
               np.array([0]), match="complex Scalar")


def test_index_fill_negative_indices():
    both(lambda L, x, i: L.index_fill(x, 1, i, 2.5), rnd((3, 4), 9), np.array([-1, 0, -4]),
         grad=(0,))


def test_index_fill_duplicates_empty_gradients():
    a = rnd((3, 4), 9)
    for idx in (np.array([3, 0, 3]), np.array([], np.int64)):
        both(lambda L, x, i: L.index_fill(x, 1, i, 2.5), a, idx, grad=(0,))
    # a 0-d Variable as the value: torch differentiates through it
    both(lambda L, x, i, v: x.index_fill(0, i, v), a, np.array([2]), np.array(1.5),
         grad=(0, 2))
    gradcheck(lambda L, x, i: L.index_fill(x, 0, i, -3.0), a, np.array([0, 2]))
    for bad in (np.array([4]), np.array([-5])):
        same_error(lambda L, x, i: L.index_fill(x, 1, i, 0.0), a, bad)


def test_index_fill_float_index_is_index_error():
    same_error(lambda L, x, i: L.index_fill(x, 1, i, 0.0), rnd((3, 4), 9), np.array([0.0]))


def test_index_fill_matrix_index_is_refused():
    same_error(lambda L, x, i: L.index_fill(x, 1, i, 0.0), rnd((3, 4), 9), np.array([[0]]))


@pytest.mark.parametrize("alpha", [1, 2.5])
def test_index_add(alpha):
    # torch's index_add with repeated indices, every dim, alpha; gradient of both sides
    for dim in range(3):
        a = [4, 3, 2]
        b = list(a)
        b[dim] = 7
        x, src = rnd(tuple(a), dim), rnd(tuple(b), dim + 10)
        idx = np.random.default_rng(dim).integers(0, a[dim], 7)
        both(lambda L, xx, i, s: L.index_add(xx, dim, i, s, alpha=alpha), x, idx, src,
             grad=(0, 2))
    gradcheck(lambda L, xx, i, s: L.index_add(xx, 0, i, s, alpha=alpha),
              rnd((3, 2), 1), np.array([2, 0, 2]), rnd((3, 2), 2), grad=(0, 2))


def test_index_add_deterministic_small():
    # torch's test_index_add_deterministic: repeated calls agree bit for bit
    x, src = np.zeros((50, 4)), rnd((400, 4), 5)
    idx = np.random.default_rng(5).integers(0, 50, 400)
    p0 = pyad.index_add(pyad.Variable(x), 0, pyad.tensor(idx), pyad.Variable(src), alpha=1.5)
    for _ in range(3):
        p = pyad.index_add(pyad.Variable(x), 0, pyad.tensor(idx), pyad.Variable(src),
                           alpha=1.5)
        np.testing.assert_array_equal(p.data, p0.data)
    t = torch.index_add(torch.from_numpy(x), 0, torch.from_numpy(idx), torch.from_numpy(src),
                        alpha=1.5)
    assert_same(p0, t)


def test_index_add_inplace_and_errors():
    x, src = rnd((4, 3), 1), rnd((2, 3), 2)

    def f(L, xx, i, s):
        xx = xx.clone()
        xx.index_add_(0, i, s)
        return xx
    both(f, x, np.array([3, 3]), src, grad=(0, 2))
    both(f, x, np.array([], np.int64), np.zeros((0, 3)), grad=(0,))
    for i, s in [(np.array([4, 0]), src), (np.array([-5, 0]), src),
                 (np.array([0, 1, 2]), src), (np.array([0.0, 1.0]), src)]:
        same_error(f, x, i, s)
    # integer input with a bool/int source keeps its dtype
    both(f, np.arange(12).reshape(4, 3), np.array([0, 0]), np.ones((2, 3), np.int64),
         exact=True)


@pytest.mark.parametrize("reduce", ["prod", "amin", "amax", "mean"])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_index_reduce(reduce, dtype):
    # torch's test_index_reduce: every dim, include_self both ways, int32/int64 indices,
    # contiguous or not, against torch and against a NumPy loop
    size = (3, 4, 5)
    rng = np.random.default_rng(0)
    for include_self in (True, False):
        for idx_dtype in (np.int32, np.int64):
            for dim in range(3):
                for contig in (True, False):
                    n_src = int(rng.integers(0, 10))
                    dest = (rng.standard_normal(size) * 3).astype(dtype)
                    src_size = size[:dim] + (n_src,) + size[dim + 1:]
                    src = (rng.standard_normal(src_size) * 3).astype(dtype)
                    idx = rng.integers(0, size[dim], n_src).astype(idx_dtype)
                    if not contig:
                        dest, src = noncontig(dest), noncontig(src)

                    def f(L, d, i, s):
                        return d.index_reduce(dim, i, s, reduce, include_self=include_self)
                    p, _ = both(f, dest, idx, src, exact=dtype == np.int64)
                    np.testing.assert_allclose(
                        _np(p), _index_reduce_ref(dest, dim, idx, src, reduce, include_self),
                        rtol=1e-12)


def _index_reduce_ref(dest, dim, idx, src, reduce, include_self):
    out = np.moveaxis(dest.copy(), dim, 0)
    s = np.moveaxis(src, dim, 0)
    floating = dest.dtype.kind == "f"
    init = {"prod": 1, "mean": 0,
            "amin": np.inf if floating else np.iinfo(dest.dtype).max,
            "amax": -np.inf if floating else np.iinfo(dest.dtype).min}[reduce]
    if not include_self:
        out[np.unique(idx)] = init
    count = np.ones(out.shape) if include_self else np.zeros(out.shape)
    for k, j in enumerate(idx):
        if reduce == "prod":
            out[j] = out[j] * s[k]
        elif reduce == "amin":
            out[j] = np.minimum(out[j], s[k])
        elif reduce == "amax":
            out[j] = np.maximum(out[j], s[k])
        else:
            out[j] = out[j] + s[k]
        count[j] += 1
    if reduce == "mean":
        count[count == 0] = 1
        out = out / count if floating else np.floor_divide(out, count).astype(out.dtype)
    return np.moveaxis(out, 0, dim)


@pytest.mark.parametrize("reduce", ["prod", "amin", "amax", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradients(reduce, include_self):
    # distinct values (no ties), repeated indices and one untouched row
    dest = rnd((4, 3), 11)
    src = rnd((5, 3), 12)
    idx = np.array([0, 2, 0, 3, 2])

    def f(L, d, i, s):
        return L.index_reduce(d, 0, i, s, reduce, include_self=include_self)
    both(f, dest, idx, src, grad=(0, 2))
    gradcheck(f, dest, idx, src, grad=(0, 2))


def test_index_reduce_errors():
    d, s = rnd((4, 3), 1), rnd((2, 3), 2)
    for r, i in [("sum", np.array([0, 1])), ("prod", np.array([0, 4])),
                 ("prod", np.array([0.0, 1.0])), ("mean", np.array([0, 1, 2]))]:
        same_error(lambda L, dd, ii, ss: L.index_reduce(dd, 0, ii, ss, r), d, i, s)


# ------------------------------------------------------------------------------------
# take / put_ / take_along_dim
# ------------------------------------------------------------------------------------

def test_take_negative_duplicates_gradients():
    a = rnd((3, 4), 13)
    for idx in (np.array([0, -1, 5, 5, -12]), np.array([[1, 2], [-3, 1]]),
                np.array([], np.int64), np.array(7)):
        both(lambda L, x, i: L.take(x, i), a, idx, grad=(0,))
    both(lambda L, x, i: x.t().take(i), a, np.array([0, 1, 2, 3]), grad=(0,))
    gradcheck(lambda L, x, i: L.take(x, i), a, np.array([0, -1, 5, 5]))
    for bad in (np.array([12]), np.array([-13]), np.array([0.0])):
        same_error(lambda L, x, i: L.take(x, i), a, bad)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_(accumulate):
    a = rnd((3, 4), 14)
    idx = np.array([0, -1, 5, 5, 2]) if accumulate else np.array([0, -1, 5, 2])
    src = rnd(idx.shape, 15)

    def f(L, x, i, s):
        x = x.clone()
        x.put_(i, s, accumulate=accumulate)
        return x
    both(f, a, idx, src, grad=(0, 2))
    gradcheck(f, a, idx, src, grad=(0, 2))
    # a non-contiguous destination: put_ indexes it as if contiguous
    both(lambda L, x, i, s: x.clone().t().put_(i, s, accumulate=accumulate), a, idx, src)
    for bad_i, bad_s in [(np.array([12]), np.array([1.0])), (np.array([-13]), np.array([1.0])),
                         (np.array([0, 1]), np.array([1.0]))]:
        same_error(f, a, bad_i, bad_s)


def test_take_along_dim():
    # torch's test_take_along_dim against np.take_along_axis
    for dtype in (np.int64, np.float32):
        for shape in [(3, 2), (2, 3, 5), (2, 4, 0), (2, 3, 1, 4)]:
            for nc in (True, False):
                t = (rnd(shape, sum(shape)) * 9).astype(dtype)
                t = noncontig(t) if nc and t.size else t
                for dim in list(range(t.ndim)) + [None]:
                    idx = (np.argsort(t.reshape(-1), kind="stable") if dim is None
                           else np.argsort(t, axis=dim, kind="stable"))
                    p, _ = both(lambda L, x, i: L.take_along_dim(x, i, dim=dim), t, idx,
                                exact=True)
                    np.testing.assert_array_equal(_np(p), np.take_along_axis(t, idx, dim))
    # broadcasting and empty indices
    both(lambda L, x, i: L.take_along_dim(x, i, dim=1), np.ones((3, 4, 1)),
         np.ones((1, 2, 5), np.int64), exact=True)
    both(lambda L, x, i: L.take_along_dim(x, i, dim=1), np.ones((3, 4, 5)),
         np.ones((3, 0, 5), np.int64), exact=True)


def test_take_along_dim_gradients():
    a = rnd((3, 4), 16)
    idx = np.array([[0, 3, 3], [1, 1, 0], [2, 0, 3]])
    both(lambda L, x, i: L.take_along_dim(x, i, dim=1), a, idx, grad=(0,))
    both(lambda L, x, i: L.take_along_dim(x, i, dim=-2), a, np.array([[2], [0]]), grad=(0,))
    gradcheck(lambda L, x, i: L.take_along_dim(x, i, dim=1), a, idx)


# ------------------------------------------------------------------------------------
# test_scatter_gather.py
# ------------------------------------------------------------------------------------

def _scatter_index(shape, dim, n, seed, unique=True):
    """An index of ``shape`` with values < n; unique along dim when asked (torch's
    _fill_indices), so that scatter with src has a defined result."""
    rng = np.random.default_rng(seed)
    idx = np.empty(shape, np.int64)
    moved = np.moveaxis(idx, dim, -1)
    for pos in np.ndindex(moved.shape[:-1]):
        moved[pos] = (rng.permutation(n)[:shape[dim]] if unique
                      else rng.integers(0, n, shape[dim]))
    return idx


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_gather(dtype):
    rng = np.random.default_rng(1)
    for dim in range(3):
        m, n, o = rng.integers(10, 20, 3)
        src = (rnd((m, n, o), dim) * 5).astype(dtype)
        idx_shape = [m, n, o]
        idx_shape[dim] = int(rng.integers(1, 6))
        idx = _scatter_index(tuple(idx_shape), dim, src.shape[dim], dim, unique=False)
        p, _ = both(lambda L, s, i: L.gather(s, dim, i), src, idx, exact=True)
        np.testing.assert_array_equal(_np(p), np.take_along_axis(src, idx, dim))
    # bool gather (torch's test_gather_bool)
    both(lambda L, s, i: L.gather(s, 1, i), np.array([[True, False], [False, True]]),
         np.array([[0, 0], [1, 0]]), exact=True)


def test_gather_gradients_smaller_index_and_errors():
    src = rnd((4, 5), 17)
    idx = np.array([[0, 1], [3, 3], [2, 0]])          # smaller than src in both dims
    both(lambda L, s, i: L.gather(s, 1, i), src, idx, grad=(0,))
    both(lambda L, s, i: L.gather(s, -2, i), src, idx, grad=(0,))
    gradcheck(lambda L, s, i: L.gather(s, 1, i), src, idx)
    # torch's test_gather_backward_with_empty_index_tensor
    both(lambda L, s, i: L.gather(s, 1, i), src, np.empty((0, 2), np.int64), grad=(0,))
    for bad in (np.array([[5]]), np.array([[-1]]), np.array([[0.0]]), np.array([0]),
                np.zeros((5, 1), np.int64)):
        same_error(lambda L, s, i: L.gather(s, 1, i), src, bad)
    assert same_error(lambda L, s, i: L.gather(s, 2, i), src, idx) is IndexError


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.bool_])
def test_scatter_(dtype):
    # torch's _test_scatter_base: tensor src and scalar value, every dim, unique indices
    rng = np.random.default_rng(2)
    for dim in range(3):
        m, n, o = (int(v) for v in rng.integers(5, 9, 3))
        shape = [m, n, o]
        idx_shape = list(shape)
        idx_shape[dim] = int(rng.integers(1, shape[dim] + 1))
        idx = _scatter_index(tuple(idx_shape), dim, shape[dim], dim)
        base = (rnd(tuple(shape), dim) * 5).astype(dtype)
        src = (rnd(tuple(idx_shape), dim + 9) * 5).astype(dtype)
        both(lambda L, b, i, s: b.clone().scatter_(dim, i, s), base, idx, src, exact=True)
        value = True if dtype == np.bool_ else 3
        both(lambda L, b, i: b.clone().scatter_(dim, i, value), base, idx, exact=True)


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_argument(reduce):
    # scatter_(..., reduce=) with duplicates, tensor src and scalar value; torch warns
    # that the argument is deprecated for the tensor form
    base, src = rnd((4, 3), 18), rnd((4, 3), 19)
    idx = np.array([[0, 1, 2], [0, 1, 2], [3, 3, 0], [1, 0, 0]])
    both(lambda L, b, i, s: b.clone().scatter_(0, i, s, reduce=reduce), base, idx, src)
    both(lambda L, b, i: b.clone().scatter_(0, i, 1.5, reduce=reduce), base, idx)
    both(lambda L, b, i: L.scatter(b, 1, i[:, :2] % 3, 2.0, reduce=reduce), base, idx)
    same_error(lambda L, b, i, s: b.clone().scatter_(0, i, s, reduce="mean"), base, idx, src)


def test_scatter_add_non_unique_and_bool():
    # torch's test_scatter_add_non_unique_index and test_scatter_add_bool
    height, width = 6, 4
    inp = np.ones((height, width))
    idx = np.zeros((height, width), np.int64)
    src = np.arange(1.0, height * width + 1).reshape(height, width)
    p, _ = both(lambda L, x, i, s: x.scatter_add(0, i, s), inp, idx, src, grad=(0, 2))
    want = np.ones((height, width))
    want[0] += src.sum(0)
    np.testing.assert_array_equal(_np(p), want)
    b = np.array([[True, True, True, True, True], [True, True, True, True, True]])
    both(lambda L, x, i, s: L.zeros(3, 5, dtype=L.bool).scatter_add_(0, i, s),
         b, np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]]), b, exact=True)
    gradcheck(lambda L, x, i, s: L.scatter_add(x, 0, i, s), inp[:3], idx[:2], src[:2],
              grad=(0, 2))


def test_scatter_bool_and_zero_size_index():
    # torch's test_scatter_bool and test_scatter_zero_size_index
    x = np.array([[True, True, True], [True, True, True]])
    both(lambda L, xx, i: L.zeros(3, 3, dtype=L.bool).scatter_(0, i, xx), x,
         np.array([[0, 1, 2], [0, 1, 2]]), exact=True)
    base, src = rnd((2, 2), 1), rnd((2, 2), 2)
    for L in (pyad, torch):
        out = L.tensor(base).clone().scatter_(0, L.zeros((0, 2), dtype=L.int64),
                                              L.tensor(src))
        np.testing.assert_array_equal(_np(out), base)
    # (torch's own backward refuses a src larger than an empty index, so src is (2, 0))
    both(lambda L, b, i, s: L.scatter(b, 1, i, s), base, np.empty((2, 0), np.int64),
         np.empty((2, 0)), grad=(0, 2))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_scatter_reduce(reduce, include_self, dtype):
    # torch's test_scatter_reduce_{sum,prod,mean,amax,amin} with non-unique indices
    base = (rnd((5, 4), 20) * 4).astype(dtype)
    src = (rnd((6, 4), 21) * 4).astype(dtype)
    idx = np.array([[0, 1, 0, 4], [4, 1, 0, 4], [0, 1, 3, 0], [4, 2, 2, 0],
                    [1, 1, 1, 0], [0, 0, 0, 0]])
    for dim in (0, -1):
        i = idx if dim == 0 else idx[:4].T % 4
        s = src if dim == 0 else src[:4].T.copy()
        b = base if dim == 0 else base[:4]
        both(lambda L, bb, ii, ss: bb.scatter_reduce(dim, ii, ss, reduce,
                                                     include_self=include_self),
             b, i, s, exact=dtype == np.int64)
        both(lambda L, bb, ii, ss: bb.clone().scatter_reduce_(dim, ii, ss, reduce,
                                                              include_self=include_self),
             b, i, s, exact=dtype == np.int64)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients(reduce, include_self):
    # distinct values (no ties); one row of the input untouched by the index
    base, src = rnd((4, 3), 22), rnd((5, 3), 23)
    idx = np.array([[0, 1, 2], [2, 1, 0], [0, 0, 0], [3, 3, 1], [2, 0, 1]])

    def f(L, b, i, s):
        return L.scatter_reduce(b, 0, i, s, reduce, include_self=include_self)
    both(f, base, idx, src, grad=(0, 2))
    gradcheck(f, base, idx, src, grad=(0, 2))


def test_scatter_reduce_non_unique_index_values():
    # torch's test_scatter_reduce_non_unique_index: every source element of a column
    # lands on row 0; the expected values from a NumPy loop
    inp = np.array([[1.0] * 3, [2.0] * 3, [3.0] * 3])
    src = np.array([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
    idx = np.zeros((2, 3), np.int64)
    for reduce, fold in [("sum", np.add), ("prod", np.multiply), ("amax", np.maximum),
                         ("amin", np.minimum)]:
        for include_self in (True, False):
            p, _ = both(lambda L, x, i, s: x.scatter_reduce(0, i, s, reduce,
                                                            include_self=include_self),
                        inp, idx, src, grad=(0, 2))
            want = inp.copy()
            want[0] = fold(src[0], src[1]) if not include_self else \
                fold(fold(inp[0], src[0]), src[1])
            np.testing.assert_array_equal(_np(p), want)


def test_scatter_reduce_scalar_value():
    # torch's test_scatter_reduce_scalar: scatter_(dim, index, value, reduce=) with a
    # number (no deprecation warning, unlike a Variable src, which warns as torch does;
    # torch warns once per process, so only pyad's warning is checked)
    base = rnd((4, 3), 38)
    idx = np.array([[0, 1, 2], [0, 0, 3]])
    src = rnd((2, 3), 39)
    for reduce in ("add", "multiply"):
        for L in (pyad, torch):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                L.tensor(base).scatter_(0, L.tensor(idx), 2.5, reduce=reduce)
            assert not [x for x in w if "deprecated" in str(x.message)]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            pyad.tensor(base).scatter_(0, pyad.tensor(idx), pyad.tensor(src), reduce=reduce)
        assert [x for x in w if "deprecated" in str(x.message)]
        p, _ = both(lambda L, b, i: b.clone().scatter_(0, i, 2.5, reduce=reduce), base, idx)
        want = base.copy()
        for (r, c) in [(0, 0), (1, 1), (2, 2), (0, 0), (0, 1), (3, 2)]:
            want[r, c] = want[r, c] + 2.5 if reduce == "add" else want[r, c] * 2.5
        np.testing.assert_allclose(_np(p), want, rtol=1e-7, atol=1e-7)


def test_scatter_expanded_index():
    # torch's test_scatter_expanded_index / gather_expanded_index: an index made with
    # expand (stride 0) behaves as its materialised copy
    base, src = rnd((6, 4), 24), rnd((3, 4), 25)
    idx_small = np.array([[1], [4], [0]])
    p, t = pyad.Variable(base.copy()), torch.tensor(base)
    pi, ti = pyad.tensor(idx_small).expand(3, 4), torch.from_numpy(idx_small).expand(3, 4)
    ps, ts = pyad.Variable(src), torch.from_numpy(src)
    assert_same(p.clone().scatter_(0, pi, ps), t.clone().scatter_(0, ti, ts), exact=True)
    assert_same(p.scatter_add(0, pi, ps), t.scatter_add(0, ti, ts))
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        assert_same(p.scatter_reduce(0, pi, ps, reduce, include_self=False),
                    t.scatter_reduce(0, ti, ts, reduce, include_self=False))
    assert_same(pyad.gather(p, 0, pi), torch.gather(t, 0, ti), exact=True)
    # and the materialised index gives the same
    assert_same(p.scatter_add(0, pyad.tensor(np.repeat(idx_small, 4, 1)), ps),
                t.scatter_add(0, ti, ts))


def test_scatter_errors():
    base, src = rnd((4, 3), 1), rnd((2, 3), 2)
    cases = [np.array([[4, 0, 0]]), np.array([[-1, 0, 0]]), np.array([[0.0, 1.0, 2.0]]),
             np.zeros((5, 3), np.int64), np.array([0, 1])]
    for i in cases:
        same_error(lambda L, b, ii, s: L.scatter(b, 0, ii, s), base, i, src)
        same_error(lambda L, b, ii, s: L.scatter_add(b, 0, ii, s), base, i, src)
        same_error(lambda L, b, ii, s: L.scatter_reduce(b, 0, ii, s, "amax"), base, i, src)
    same_error(lambda L, b, ii, s: L.scatter_reduce(b, 0, ii, s, "maximum"), base,
               np.zeros((2, 3), np.int64), src, match="reduce argument")
    # torch also takes the legacy names "max"/"min" (as amax/amin)
    for r in ("max", "min"):
        both(lambda L, b, ii, s: L.scatter_reduce(b, 0, ii, s, r), base,
             np.array([[0, 1, 0], [0, 3, 3]]), src)
    assert same_error(lambda L, b, ii, s: L.scatter(b, 3, ii, s), base,
                      np.zeros((2, 3), np.int64), src) is IndexError


# ------------------------------------------------------------------------------------
# setitem on views: base updates, version counters, gradients
# ------------------------------------------------------------------------------------

def test_setitem_on_view_bumps_versions_like_torch():
    a = rnd((4, 5), 26)
    vals = rnd((2,), 27)
    versions = {}
    for L in (pyad, torch):
        leaf = L.tensor(a, requires_grad=True)
        v = _conv(L, vals, True)
        x = leaf * 1.0
        row = x[1]                                   # a view of x
        before = (x._version, row._version)
        row[L.tensor([0, 3])] = v                    # advanced setitem through the view
        mid = (x._version, row._version)
        x[:, L.tensor([-1])] = 0.0                   # and on the base again
        after = (x._version, row._version)
        versions[L.__name__] = (before, mid, after)
        w = np.arange(20.0).reshape(4, 5)
        (x * _conv(L, w, False)).sum().backward()
        versions[L.__name__ + "_grads"] = (_np(leaf.grad), _np(v.grad))
    assert versions["pyad"] == versions["torch"]
    for g, tg in zip(versions["pyad_grads"], versions["torch_grads"]):
        np.testing.assert_allclose(g, tg, rtol=1e-7, atol=1e-7)


def test_setitem_mask_and_index_put_on_noncontiguous_view():
    # torch's test_index_put_accumulate_non_contiguous (run on CPU both ways): the view
    # stays non-contiguous and the base receives the sums
    for L in (pyad, torch):
        base = L.zeros(5, 2, 2, dtype=L.float64)
        view = base[:, 0, :]
        assert not view.is_contiguous()
        val = _conv(L, rnd((2, 2), 28), False)
        view.index_put_((L.tensor([0, 1]),), val, accumulate=True)
        view.index_put_((L.tensor([1, 1]),), val, accumulate=True)
        assert not view.is_contiguous()
        if L is pyad:
            got = _np(base)
        else:
            np.testing.assert_allclose(got, _np(base), rtol=1e-7, atol=1e-7)
    # a bool mask written through a transposed view
    a = rnd((3, 4), 29)
    for L in (pyad, torch):
        x = L.tensor(a)
        xt = x.t()
        xt[xt > 0] = -1.0
        if L is pyad:
            got = _np(x)
        else:
            np.testing.assert_array_equal(got, _np(x))


def test_index_put_with_optional_tensors():
    # torch's test_index_put_deterministic_with_optional_tensors, on the CPU:
    # x[..., i] = v for 0-d, 1-d and (n, 1) values; x[i] = v; the shape-mismatch error
    n = 4
    t = np.arange(n * 2.0).reshape(n, 2)
    for val in (np.array(10.0), np.array([1.0, 2.0]), rnd((n, 1), 30)):
        def f(L, x, i, v):
            x = x.clone()
            x[..., i] = v
            return x
        both(f, t, np.array([1, 0]), val, grad=(0, 2))

    def g(L, x, i, v):
        x = x.clone()
        x[i] = v
        return x
    both(g, np.zeros((5, 4)), np.array([1, 4, 3]), rnd((4,), 31), grad=(0, 2))
    both(g, np.zeros((2, 3, 4)), np.array([0, 1]), rnd((2, 3, 1), 32), grad=(0, 2))
    err = same_error(lambda L, x, i, v: L.Tensor.__setitem__(x, (Ellipsis, i), v),
                     np.zeros((2, 3, 4)), np.array([0, 1]), rnd((6, 2), 33),
                     match="shape mismatch|must match")
    assert err is RuntimeError


def test_index_put_functional_gradients_and_errors():
    a, v = rnd((4, 3), 34), rnd((3,), 35)
    for acc in (False, True):
        idx = (np.array([0, 2, 3]), np.array([1, 1, 0]))

        def f(L, x, i0, i1, vv):
            return L.index_put(x, (i0, i1), vv, accumulate=acc)
        both(f, a, idx[0], idx[1], v, grad=(0, 3))
        gradcheck(f, a, idx[0], idx[1], v, grad=(0, 3))
    # broadcast value, negative indices, a mask in the tuple
    both(lambda L, x, i, vv: L.index_put(x, (i,), vv, accumulate=True), a,
         np.array([-1, -1, 0]), rnd((3,), 36), grad=(0, 2))
    both(lambda L, x, m, vv: L.index_put(x, (m,), vv), a,
         np.array([True, False, True, False]), rnd((1, 3), 37), grad=(0, 2))
    for i in (np.array([4]), np.array([-5])):
        assert same_error(lambda L, x, ii: L.index_put(x, (ii,), L.tensor(1.0, dtype=L.float64)),
                          a, i) is IndexError
    same_error(lambda L, x, ii: L.index_put(x, (ii,), L.ones(2, 2, dtype=L.float64)),
               a, np.array([0, 1, 2]))


# ------------------------------------------------------------------------------------
# None / Ellipsis with advanced indices; masks in index_put
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    (None, (0, 2), E), (E, None, (1, 0)), ((0, 2), None, _S, (1, 1)),
    (None, _S, (2, 0), None, (3,)), (1, None, (0, 1, 1), E), (E, (2, 2), None, None)])
def test_advancedindex_none_ellipsis_get_set_backward(key):
    # torch's test_index None/Ellipsis rules mixed with index tensors (as its
    # test_advancedindex tables do with Ellipsis): values, setitem, gradients
    a = rnd((3, 4, 5), 40)
    both(lambda L, x: x[_key(L, key)], a, grad=(0,))

    def setter(L, x, v):
        x = x * 1.0
        x[_key(L, key)] = v
        return x
    shape = tuple(torch.tensor(a)[_key(torch, key)].shape)
    both(setter, a, rnd(shape, 41), grad=(0, 1))
    # a value broadcast from its last dimension
    both(setter, a, rnd(shape[-1:], 42), grad=(0, 1))


@pytest.mark.parametrize("mask_dtype", [np.bool_, np.uint8])
def test_index_put_mask_accumulate_and_gradients(mask_dtype):
    # torch's bool/byte mask rules (test_bool_indices_accumulate, test_byte_mask) with
    # values that are not all ones, and gradients; a byte mask warns as torch does
    a = rnd((4, 3), 43)
    mask = np.array([1, 0, 1, 1]).astype(mask_dtype)
    for acc in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            both(lambda L, x, m, v: L.index_put(x, (m,), v, accumulate=acc), a, mask,
                 rnd((3, 3), 44), grad=(0, 2))
            both(lambda L, x, m, v: L.index_put(x, (m,), v, accumulate=acc), a, mask,
                 rnd((3,), 45), grad=(0, 2))
    if mask_dtype == np.uint8:
        with pytest.warns(UserWarning, match="uint8"):
            pyad.Variable(a)[pyad.tensor(mask)]
    # a mask of the wrong length
    bad = np.array([1, 0, 1]).astype(mask_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert same_error(lambda L, x, m: L.index_put(x, (m,), L.tensor(1.0, dtype=L.float64)),
                          a, bad) is IndexError

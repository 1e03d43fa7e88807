"""Ports of PyTorch's ``test/test_torch.py`` (TestTorch and the CPU parts of
TestTorchDeviceType), round 3: the test methods the earlier ports
(tests/ops/test_torch_op_ports*.py, tests/test_tensor_api.py,
tests/test_variable_conveniences.py, tests/ops/test_torch_semantics_round.py) had not
taken yet.

Covered: dist, is_same_size, equal, element_size, reversed/contains, deepcopy and
pickle (Variables, 0-d, Parameters, gradients, Size, dtypes, functions), multinomial
(constraints, empty inputs, invalid probabilities, determinism under a seed),
bernoulli (p, self, edge cases), argwhere, narrow_copy, type_as, dim_order,
index_add (correctness across dims, the 0-d corner case), masked_scatter on a larger
input, copy_ (into an expanded Variable, a 2-d transposed broadcast, float16),
contiguous, argument parsing (int64 / double / int-list from 0-d Variables and NumPy
scalars), set_/is_set_to, the RNG state functions and manual_seed bounds,
exponential_/cauchy_/uniform_ ranges, torch.gradient's spacing errors, pdist/
pairwise_distance on empty inputs, ``to(other)``, indexing with None against NumPy,
the field names of structseq returns, ``out=`` dtype mismatch, internal-overlap
errors of in-place ops, logcumsumexp on complex input, layer_norm and batch_norm in
inference mode, conj().tolist(), pdist forward/backward against a brute-force loop
(p = 0 included: torch's gradient is zeros), batched and non-contiguous cdist,
nonzero_static, subtraction of bool Variables, renorm over several p, a Variable
subclass whose ``__new__`` calls the base's, and assertEqual's pass/fail decisions
through ``pyad.testing.assert_close`` against ``torch.testing.assert_close``.

Engine differences found are strict xfails (their reasons say torch's behaviour and
pyad's): ``size()`` returning a plain tuple, multinomial/bernoulli_/uniform_ argument
checks, index_fill_ on an expanded Variable, and ``out=`` overlapping the input of
gather/index_select/masked_select/take.

Each test keeps the torch test's name (prefixed with the variant where one torch test
became several) and the meaning of its assertions, on small concrete inputs; every
expected value is torch 2.13 run on the same inputs in the same test (``outcome``
runs one lambda on both libraries and compares the value, or the exception class) or
an independent derivation (NumPy).

Left out, and why: the storage tests (test_storage*, test_tensor_from_storage,
test_storage_casts, test_from_buffer, test_from_file: pyad has no storage objects),
test_sizeof (NumPy owns the memory), the deterministic-algorithm and CUDA-only tests,
the kstest statistical tests (scipy samples of 10^5+), test_pdist_norm_large and
test_cdist_large (sizes too big for a fast file), test_upsample* (nn.functional
ports elsewhere), test_allow_tensor_metadata_change / tensor slots / weakrefs /
subclass preservation (CPython object internals of torch), test_doc*, test_print
(ported earlier), test_structseq_repr's exact text (pyad's class prints as
``pyad.return_types``; only the fields are compared), and the memory_format tests
beyond contiguity (pyad arrays have no channels_last layout).
"""
import copy
import math
import pickle

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

from _ops_helpers import check_result as check, dname, rnd, rint, tnp  # noqa: E402

inf, nan = math.inf, math.nan


# ------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------

def _builtin_exc(cls):
    """The first builtin exception class in ``cls``'s MRO (torch raises subclasses of
    RuntimeError such as torch.OutOfMemoryError; we compare the builtin kind)."""
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c
    return Exception


def outcome(fn, exact=True):
    """``fn(L)`` with pyad and torch: the same value (shape, dtype, values), or the
    same kind of exception. Returns both results (or the exceptions)."""
    res = []
    for L in (pyad, torch):
        try:
            res.append(("ok", fn(L)))
        except Exception as e:  # noqa: BLE001 - compared below
            res.append(("err", e))
    (pk, p), (tk, t) = res
    if tk == "err":
        assert pk == "err", f"torch raised {type(t).__name__}: {t}; pyad returned {p!r}"
        assert isinstance(p, _builtin_exc(type(t))), (type(p), type(t), str(p), str(t))
    else:
        assert pk == "ok", f"pyad raised {type(p).__name__}: {p}; torch returned {t!r}"
        if isinstance(t, torch.Tensor) or (isinstance(t, (tuple, list)) and t
                                           and isinstance(t[0], torch.Tensor)):
            check(p, t, exact)
        else:
            assert p == t, (p, t)
    return p, t


# ------------------------------------------------------------------------------------
# dist, is_same_size, equal, element_size
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0, 1, 2, 3, 4, inf, -inf, 0.5])
def test_dist(p):
    a, b = rnd((3, 4), 1), rnd((3, 4), 2)
    b[0, 0] = a[0, 0]                           # one zero difference (p=0 counts it out)
    outcome(lambda L: L.dist(L.tensor(a), L.tensor(b), p), exact=False)
    outcome(lambda L: L.tensor(a).dist(L.tensor(b[0]), p), exact=False)   # broadcast


@pytest.mark.parametrize("p", [1.5, 2, 3, inf])
def test_dist_grad(p):
    a, b = rnd((3, 4), 3), rnd((4,), 4)
    grads = []
    for L in (pyad, torch):
        x = L.tensor(a, requires_grad=True)
        y = L.tensor(b, requires_grad=True)
        L.dist(x, y, p).backward()
        grads.append((x.grad, y.grad))
    check(list(grads[0]), list(grads[1]), exact=False)
    x = pyad.tensor(a, requires_grad=True)
    y = pyad.tensor(b, requires_grad=True)
    assert pyad.autograd.gradcheck(lambda u, v: pyad.dist(u, v, p), (x, y))


def test_is_same_size():
    for L in (pyad, torch):
        t1 = L.empty(3, 4, 9, 10)
        t2 = L.empty(3, 4)
        t3 = L.empty(1, 9, 3, 3)
        t4 = L.empty(3, 4, 9, 10)
        assert not t1.is_same_size(t2)
        assert not t1.is_same_size(t3)
        assert t1.is_same_size(t4)
        assert L.is_same_size(t1, t4)
        assert L.empty(0).is_same_size(L.empty(0))
        assert not L.empty(()).is_same_size(L.empty(1))


def test_equal():
    a = rnd((2, 3), 5)
    cases = [
        lambda L: L.equal(L.tensor(a), L.tensor(a.copy())),
        lambda L: L.equal(L.tensor(a), L.tensor(a).t().contiguous().t()),
        lambda L: L.equal(L.tensor(a), L.tensor(a[:, :2])),
        lambda L: L.equal(L.tensor(a), L.tensor(a + 1e-12)),
        lambda L: L.equal(L.tensor([1.0, nan]), L.tensor([1.0, nan])),
        lambda L: L.equal(L.tensor([]), L.tensor([])),
        lambda L: L.equal(L.tensor([1, 2]), L.tensor([1.0, 2.0])),
        lambda L: L.equal(L.tensor(3), L.tensor([3])),
        lambda L: L.tensor([0.0]).equal(L.tensor([-0.0])),
        lambda L: L.equal(L.tensor([True, False]), L.tensor([True, False])),
    ]
    for fn in cases:
        outcome(fn)


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                  "float16", "float32", "float64", "complex64",
                                  "complex128"])
def test_element_size(name):
    p, t = pyad.empty(2, dtype=getattr(pyad, name)), torch.empty(2, dtype=getattr(torch, name))
    assert p.element_size() == t.element_size() == np.dtype(name).itemsize
    assert p.itemsize == t.itemsize
    assert p.nbytes == t.nbytes


# ------------------------------------------------------------------------------------
# reversed, contains
# ------------------------------------------------------------------------------------

def test_reversed():
    for a in (np.arange(10.0), np.arange(6).reshape(2, 3), np.array(3.5)):
        outcome(lambda L: reversed(L.tensor(a)))


def test_contains():
    for L in (pyad, torch):
        x = L.arange(0, 10)
        assert 4 in x and 12 not in x
        assert L.arange(1, 2) in x and L.tensor([[4]]) in x
        assert L.tensor(4.0) in x
        assert 2.0 in L.tensor([1.0, 2.0])
        assert not (L.tensor([11]) in x)
    outcome(lambda L: "foo" in L.arange(0, 10))
    outcome(lambda L: [1, 2] in L.arange(0, 10))
    outcome(lambda L: L.arange(1, 3) in L.arange(0, 10))           # not broadcastable


# ------------------------------------------------------------------------------------
# deepcopy, pickle
# ------------------------------------------------------------------------------------

def test_deepcopy():
    a = [rnd((5, 5), 6), rnd((5, 5), 7), rnd((5, 5), 8), rnd((5, 5), 9)]
    for L in (pyad, torch):
        xs = [L.tensor(v) for v in a]
        xs.append(xs[0])                                   # an alias inside the list
        ys = copy.deepcopy(xs)
        assert len(ys) == len(xs)
        for x, y in zip(xs, ys):
            assert np.array_equal(tnp(x), tnp(y))
            assert not np.shares_memory(np.asarray(tnp(x)), np.asarray(tnp(y)))
        assert ys[0] is ys[-1]                             # aliasing is kept
        z = copy.deepcopy(L.tensor([1.0, 2.0]).t())
        assert z.tolist() == [1.0, 2.0]


def test_deepcopy_scalar():
    for L in (pyad, torch):
        a = L.tensor(5.0)
        b = copy.deepcopy(a)
        assert a.size() == b.size() == ()
        assert a.item() == b.item()
        assert b.dtype == a.dtype


def test_deepcopy_parameter():
    for L in (pyad, torch):
        p = L.nn.Parameter(L.tensor(rnd((2, 3), 10)))
        q = copy.deepcopy(p)
        assert type(q) is type(p) and q.requires_grad
        assert np.array_equal(tnp(p.detach()), tnp(q.detach()))
        r = copy.deepcopy(L.nn.Parameter(L.ones(2), requires_grad=False))
        assert type(r) is L.nn.Parameter and not r.requires_grad


def test_deepcopy_gradient():
    for L in (pyad, torch):
        x = L.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        y = copy.deepcopy(x)
        assert y.grad is not None and y.grad.tolist() == [2.0, 2.0, 2.0]
        assert y.grad is not x.grad
        assert y.requires_grad and y.is_leaf
        x2 = L.ones(2, requires_grad=True)
        y2 = copy.deepcopy(x2)
        assert y2.grad is None


def test_pickle_parameter():
    for L in (pyad, torch):
        a = L.nn.Parameter(L.tensor(rnd((5, 5), 11)))
        b = pickle.loads(pickle.dumps(a))
        assert isinstance(b, L.nn.Parameter)
        assert a.requires_grad == b.requires_grad
        assert np.array_equal(tnp(a.detach()), tnp(b.detach()))


def test_pickle_parameter_no_requires_grad():
    for L in (pyad, torch):
        a = L.nn.Parameter(L.tensor(rnd((5, 5), 12)), requires_grad=False)
        b = pickle.loads(pickle.dumps(a))
        assert isinstance(b, L.nn.Parameter)
        assert b.requires_grad is False
        assert np.array_equal(tnp(a), tnp(b))


def test_pickle_size():
    for L in (pyad, torch):
        a = L.Size([10, 2])
        b = pickle.loads(pickle.dumps(a))
        assert isinstance(b, L.Size)
        assert a == b == (10, 2)
        c = pickle.loads(pickle.dumps(L.rand(10).size()))
        assert c == (10,)


@pytest.mark.xfail(strict=True, reason="engine: Variable.size()/.shape return a plain "
                   "tuple, torch returns torch.Size")
def test_pickle_size_of_size_method():
    a = pyad.rand(10).size()
    b = pickle.loads(pickle.dumps(a))
    assert isinstance(a, pyad.Size) and isinstance(b, pyad.Size)


def test_pickle_dtype():
    for L in (pyad, torch):
        for name in ("float32", "float64", "int64", "bool", "complex64"):
            t = getattr(L, name)
            s = pickle.loads(pickle.dumps(t))
            assert s == t
            assert L.zeros(1, dtype=s).dtype == t


def test_pickle_function():
    for L in (pyad, torch):
        f = pickle.loads(pickle.dumps(L.tanh))
        assert f is L.tanh
        assert np.allclose(tnp(f(L.tensor([0.5]))), np.tanh([0.5]))


# ------------------------------------------------------------------------------------
# multinomial, bernoulli
# ------------------------------------------------------------------------------------

def test_multinomial_constraints():
    x = np.array([0.0, 1.0, 2.0])
    outcome(lambda L: L.multinomial(L.tensor(x), 2, True).shape)
    outcome(lambda L: L.multinomial(L.tensor(0.5), 2))                 # 0-d input
    outcome(lambda L: L.multinomial(L.ones(2, 2, 2), 2))               # 3-d input
    outcome(lambda L: L.multinomial(L.tensor(x), 0))                   # zero samples
    outcome(lambda L: L.multinomial(L.tensor(x), -1))                  # negative
    outcome(lambda L: L.multinomial(L.tensor([1, 2, 3]), 1))           # int probs
    outcome(lambda L: L.multinomial(L.tensor(x), 1000, True).shape)
    outcome(lambda L: L.multinomial(L.tensor(x), 4, False))            # > categories


def test_multinomial_constraints_zero_prob_wo_replacement():
    r = pyad.multinomial(pyad.tensor([0.0, 1.0, 2.0]), 3, False)
    t = torch.multinomial(torch.tensor([0.0, 1.0, 2.0]), 3, False)
    assert sorted(r.tolist()) == sorted(t.tolist()) == [0, 1, 2]
    assert r.tolist()[2] == t.tolist()[2] == 0


def test_multinomial_empty_w_replacement():
    outcome(lambda L: L.multinomial(L.empty(0, 3), 2, True).shape)
    outcome(lambda L: L.multinomial(L.empty(0, 3), 2, True))


def test_multinomial_empty_categories():
    outcome(lambda L: L.multinomial(L.empty(3, 0), 2, True))           # no categories


def test_multinomial_empty_wo_replacement():
    outcome(lambda L: L.multinomial(L.empty(0, 3), 2, False))
    outcome(lambda L: L.multinomial(L.empty(0, 3), 2, False).shape)
    outcome(lambda L: L.multinomial(L.empty(3, 0), 1, False))


@pytest.mark.parametrize("bad", [[-1.0, 1.0], [inf, 1.0], [-inf, 1.0], [1.0, nan],
                                 [0.0, 0.0]])
def test_multinomial_invalid_probs(bad):
    outcome(lambda L: L.multinomial(L.tensor(bad), 1, True))


def test_multinomial_deterministic():
    probs = np.array([[0.1, 0.0, 0.7, 0.2], [0.5, 0.5, 0.0, 0.0]])
    pyad.manual_seed(123)
    a = pyad.multinomial(pyad.tensor(probs), 3, True)
    pyad.manual_seed(123)
    b = pyad.multinomial(pyad.tensor(probs), 3, True)
    np.testing.assert_array_equal(a.data, b.data)
    assert dname(a.dtype) == "int64" and a.shape == (2, 3)
    assert set(a.data[0].tolist()) <= {0, 2, 3} and set(a.data[1].tolist()) <= {0, 1}
    pyad.manual_seed(7)
    c = pyad.multinomial(pyad.tensor(probs), 2, False)
    for row, pr in zip(c.data, probs):                 # without replacement: distinct,
        assert len(set(row.tolist())) == 2             # and never a zero-probability index
        assert all(pr[i] > 0 for i in row)


def test_bernoulli_p():
    for dt in (np.float32, np.float64):
        p = np.array([0.0, 1.0, 1.0, 0.0, 1.0], dtype=dt)
        for L in (pyad, torch):
            x = L.tensor(p)
            r = L.bernoulli(x)
            assert r.tolist() == p.tolist() and dname(r.dtype) == dname(x.dtype)
            r2 = L.bernoulli(L.tensor(np.tile(p, (3, 1)).T.copy()).t())   # non-contiguous
            assert r2.tolist() == np.tile(p, (3, 1)).tolist()
        pyad.manual_seed(0)
        r = pyad.bernoulli(pyad.rand(100, dtype=getattr(pyad, np.dtype(dt).name)))
        assert set(np.unique(r.data).tolist()) <= {0.0, 1.0}


def test_bernoulli_self():
    for L in (pyad, torch):
        L.manual_seed(1)
        t = L.empty(10, 10)
        t.fill_(2)
        t.bernoulli_(0.5)
        assert set(np.unique(tnp(t)).tolist()) <= {0.0, 1.0}
        t.bernoulli_(0.0)
        assert tnp(t).sum() == 0
        t.bernoulli_(1.0)
        assert tnp(t).sum() == 100
        p = L.tensor(np.array([0.0, 1.0] * 50).reshape(10, 10))
        t.bernoulli_(p)
        assert t.tolist() == p.tolist()
        ti = L.zeros(3, 4, dtype=L.int64)
        ti.bernoulli_(1.0)
        assert ti.tolist() == [[1] * 4] * 3 and ti.dtype == L.int64


def test_bernoulli_edge_cases():
    for L in (pyad, torch):
        a = L.zeros(10, 10)
        assert tnp(L.bernoulli(a)).sum() == 0
        b = L.ones(10, 10)
        assert tnp(L.bernoulli(b)).sum() == 100
    outcome(lambda L: L.empty(3).bernoulli_(-0.5))
    outcome(lambda L: L.empty(3).bernoulli_(1.5))


def test_bernoulli_edge_cases_p_tensor_out_of_range():
    outcome(lambda L: L.tensor([0.5, 1.5]).bernoulli_(L.tensor([0.2, 1.2])))


# ------------------------------------------------------------------------------------
# argwhere, narrow_copy, type_as, dim_order
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_argwhere(shape):
    a = rint(shape, -1, 2, 13).astype(np.float64)
    outcome(lambda L: L.argwhere(L.tensor(a)))
    outcome(lambda L: L.tensor(a).argwhere())
    outcome(lambda L: L.argwhere(L.tensor(a != 0)))
    np.testing.assert_array_equal(pyad.argwhere(pyad.tensor(a)).data, np.argwhere(a))


def test_narrow_copy():
    a = rnd((4, 5), 14)
    # (torch's narrow_copy raises RuntimeError, not narrow's IndexError, for a dim past
    # the end: a C++ accident of its check order, not compared)
    for args in [(0, 1, 2), (1, -3, 2), (-1, 0, 5), (0, 4, 0), (0, 3, 2), (-3, 0, 1),
                 (0, -5, 1), (1, 0, 6), (0, 5, 0)]:
        outcome(lambda L: L.tensor(a).narrow_copy(*args))
    p = pyad.tensor(a)
    c = p.narrow_copy(0, 1, 2)
    assert not np.shares_memory(c.data, p.data)       # a copy, unlike narrow()
    outcome(lambda L: L.narrow_copy(L.tensor(a).t(), 1, 1, 3))


def test_type_as():
    a = rnd((2, 3), 15)
    for other in [np.zeros(1, np.int32), np.zeros(2, np.float32), np.zeros(1, bool),
                  np.zeros((), np.int64)]:
        outcome(lambda L: L.tensor(a).type_as(L.tensor(other)))
    p = pyad.tensor(a)
    assert p.type_as(pyad.zeros(1, dtype=pyad.float64)) is p      # same type: itself
    t = torch.tensor(a)
    assert t.type_as(torch.zeros(1, dtype=torch.float64)) is t


def test_dim_order():
    for shape in [(), (3,), (2, 3), (2, 3, 4)]:
        outcome(lambda L: L.empty(shape).dim_order())
    outcome(lambda L: L.empty(2, 3, 4).permute(2, 0, 1).dim_order())
    outcome(lambda L: L.empty(2, 3).t().dim_order())


# ------------------------------------------------------------------------------------
# index_add, masked_scatter
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_index_add_correctness(dim, dtype):
    shape = (3, 4, 5)
    x = rint(shape, -5, 5, 16).astype(dtype)
    n = 7
    src_shape = list(shape)
    src_shape[dim] = n
    src = rint(src_shape, -5, 5, 17).astype(dtype)
    idx = rint((n,), 0, shape[dim], 18)               # repeated indices accumulate
    outcome(lambda L: L.tensor(x).index_add(dim, L.tensor(idx), L.tensor(src)))
    outcome(lambda L: L.tensor(x).index_add(dim, L.tensor(idx), L.tensor(src), alpha=2))
    # independent: a loop of adds
    ref = x.copy()
    for k, i in enumerate(idx):
        sl = [slice(None)] * 3
        sl[dim] = i
        ssl = [slice(None)] * 3
        ssl[dim] = k
        ref[tuple(sl)] += src[tuple(ssl)]
    np.testing.assert_array_equal(
        pyad.tensor(x).index_add(dim, pyad.tensor(idx), pyad.tensor(src)).data, ref)


def test_index_add_cornercase():
    d, s = rnd((), 19), rnd((1,), 20)
    outcome(lambda L: L.tensor(d).index_add(0, L.tensor([0]), L.tensor(s)), exact=False)
    outcome(lambda L: L.tensor(d).index_add(0, L.tensor([0]), L.tensor(s[0])), exact=False)
    outcome(lambda L: L.tensor(d).index_add(0, L.tensor([1]), L.tensor(s)))
    outcome(lambda L: L.zeros(0).index_add(0, L.tensor([], dtype=L.int64), L.zeros(0)))


def test_index_add_grad():
    x, src = rnd((4, 3), 21), rnd((5, 3), 22)
    idx = np.array([0, 2, 2, 3, 0])
    gs = []
    for L in (pyad, torch):
        a = L.tensor(x, requires_grad=True)
        b = L.tensor(src, requires_grad=True)
        (a.index_add(0, L.tensor(idx), b, alpha=1.5) ** 2).sum().backward()
        gs.append([a.grad, b.grad])
    check(gs[0], gs[1], exact=False)
    a = pyad.tensor(x, requires_grad=True)
    b = pyad.tensor(src, requires_grad=True)
    assert pyad.autograd.gradcheck(
        lambda u, v: u.index_add(0, pyad.tensor(idx), v, alpha=1.5), (a, b))


def test_masked_scatter_large_tensor():
    n = 5000
    mask = np.random.default_rng(23).random(n) > 0.3
    src = rnd((n,), 24)
    outcome(lambda L: L.zeros(n, dtype=L.float64).masked_scatter(L.tensor(mask), L.tensor(src)))
    ones = np.ones(n, dtype=bool)
    outcome(lambda L: L.zeros(n, dtype=L.float64).masked_scatter(L.tensor(ones), L.tensor(src)))


# ------------------------------------------------------------------------------------
# copy_, contiguous
# ------------------------------------------------------------------------------------

def test_copy_many_to_one():
    # copying into a Variable whose elements overlap (expanded) is refused
    outcome(lambda L: L.zeros(1).expand(6).copy_(L.arange(6.0)))
    outcome(lambda L: L.zeros(1, 3).expand(4, 3).copy_(L.ones(4, 3)))


def test_copy_transpose_2d_broadcast():
    a = rnd((1, 5), 25)
    outcome(lambda L: L.empty(5, 5).copy_(L.tensor(a, dtype=L.float32).t()))
    outcome(lambda L: L.empty(5, 5).t().copy_(L.tensor(a, dtype=L.float32)))
    outcome(lambda L: L.empty(5, 5, dtype=L.float64).copy_(L.tensor(rnd((5, 5), 26)).t()))


def test_copy_float16():
    a = np.array([1.0, 2.5, -3.25, 65504.0, 1e-8, 70000.0, nan, -inf])
    outcome(lambda L: L.empty(8, dtype=L.float16).copy_(L.tensor(a)))
    outcome(lambda L: L.empty(8, dtype=L.float32).copy_(L.tensor(a, dtype=L.float16)))
    outcome(lambda L: L.empty(3, dtype=L.float16).copy_(L.tensor([1, -2, 3])))
    outcome(lambda L: L.empty(3, dtype=L.int64).copy_(L.tensor([1.7, -2.7, 3.5], dtype=L.float16)))
    outcome(lambda L: L.empty(3, dtype=L.float16).copy_(L.tensor([True, False, True])))


def test_contiguous():
    for L in (pyad, torch):
        x = L.randn(1, 16, 5, 5)
        assert x.is_contiguous()
        assert x.contiguous() is x
        y = x.transpose(2, 3)
        assert not y.is_contiguous()
        z = y.contiguous()
        assert z.is_contiguous() and z is not y
        assert np.array_equal(tnp(z), tnp(y))
        w = L.randn(3)[::2]
        assert not w.is_contiguous() and w.contiguous().is_contiguous()
        # size-1 dims do not matter for contiguity
        assert L.randn(4, 1).t().is_contiguous()


def test_memory_format_contiguous_returns_same_tensor_if_already_satisfies():
    for L in (pyad, torch):
        x = L.randn(4, 3, 8, 8)
        assert x.contiguous(memory_format=L.contiguous_format) is x


# ------------------------------------------------------------------------------------
# argument parsing
# ------------------------------------------------------------------------------------

def test_parsing_int64():
    ones = np.ones((5, 5))
    outcome(lambda L: L.cumsum(L.tensor(ones), L.tensor(0)))
    outcome(lambda L: L.cumsum(L.tensor(ones), np.int64(1)))
    outcome(lambda L: L.cumsum(L.tensor(ones), L.tensor(0.0)))
    outcome(lambda L: L.cumsum(L.tensor(ones), 0.0))


def test_parsing_double():
    x = rnd((2, 3), 27)
    outcome(lambda L: L.isclose(L.tensor(x), L.tensor(x), 1, 1))
    outcome(lambda L: L.isclose(L.tensor(x), L.tensor(x), L.tensor(1), L.tensor(1)))
    outcome(lambda L: L.isclose(L.tensor(x), L.tensor(x), np.float64(1.5), np.float64(1.0)))
    outcome(lambda L: L.isclose(L.tensor(x), L.tensor(x), "1", 1.0))


def test_parsing_intlist():
    outcome(lambda L: L.ones((3, 4)).shape)
    outcome(lambda L: L.ones(L.tensor(3), L.tensor(4)).shape)
    outcome(lambda L: L.ones(np.array(3), np.int64(4)).shape)
    outcome(lambda L: L.ones((np.int64(3), L.tensor(4))).shape)
    outcome(lambda L: L.ones(3.0, 4))
    outcome(lambda L: L.ones((3.0, 4)))
    outcome(lambda L: L.ones(L.tensor(3.0), L.tensor(4)))
    outcome(lambda L: L.ones("3"))


# ------------------------------------------------------------------------------------
# set_, is_set_to, to(other)
# ------------------------------------------------------------------------------------

def test_tensor_set():
    for L in (pyad, torch):
        t1 = L.tensor([])
        t2 = L.empty(3, 4, 9, 10).uniform_()
        t1.set_(t2)
        assert t1.shape == t2.shape
        assert t1.is_set_to(t2) and t2.is_set_to(t1)
        t2.fill_(7.0)
        assert tnp(t1).min() == 7.0                      # the same memory
        t3 = L.empty(2, 2)
        assert not t3.is_set_to(t2)
        t4 = L.zeros(3)
        t4.set_()
        assert t4.shape == (0,)


def test_tensor_set_errors():
    outcome(lambda L: L.empty(3, dtype=L.float32).set_(L.empty(3, dtype=L.float64)))
    outcome(lambda L: L.empty(3, dtype=L.float32).set_(L.empty(3, dtype=L.int64)))


def test_is_set_to():
    for L in (pyad, torch):
        t1 = L.empty(3, 4, 9, 10)
        t2 = L.empty(3, 4, 9, 10)
        t3 = L.tensor([]).set_(t1)
        t4 = t3.clone().resize_(12, 90)
        assert not t1.is_set_to(t2)
        assert t1.is_set_to(t3) and t3.is_set_to(t1)
        assert not t1.is_set_to(t4)
        assert not L.tensor([]).is_set_to(L.tensor([]))    # empty: never set to each other


def test_to_with_tensor():
    a = rnd((2, 2), 28)
    for other in [np.zeros(1, np.float32), np.zeros(1, np.int64), np.zeros(1, bool)]:
        outcome(lambda L: L.tensor(a).to(L.tensor(other)))
    for L in (pyad, torch):
        x = L.tensor(a)
        assert x.to(L.zeros(1, dtype=L.float64)) is x
        assert x.to(L.zeros(1, dtype=L.float64), copy=True) is not x
        assert x.to(L.zeros(1, dtype=L.float64)).device == x.device


# ------------------------------------------------------------------------------------
# RNG state
# ------------------------------------------------------------------------------------

def test_RNGState():
    state = pyad.get_rng_state()
    before = pyad.rand(100)
    pyad.set_rng_state(state)
    after = pyad.rand(100)
    np.testing.assert_array_equal(before.data, after.data)
    assert state.dtype == pyad.uint8 and state.dim() == 1
    state2 = pyad.get_rng_state()
    state2.zero_()                                   # a copy: the generator is untouched
    pyad.set_rng_state(state)
    np.testing.assert_array_equal(pyad.rand(100).data, before.data)


def test_RNGStateAliasing():
    g = pyad.Generator()
    g.set_state(pyad.get_rng_state())
    target = pyad.rand(1000)
    forked = pyad.rand(1000, generator=g)
    np.testing.assert_array_equal(target.data, forked.data)


def test_manual_seed():
    state = pyad.get_rng_state()
    try:
        pyad.manual_seed(2)
        x = pyad.randn(100)
        assert pyad.initial_seed() == 2
        pyad.manual_seed(2)
        y = pyad.randn(100)
        np.testing.assert_array_equal(x.data, y.data)
        max_int64 = 0x7FFF_FFFF_FFFF_FFFF
        min_int64 = -max_int64 - 1
        max_uint64 = 0xFFFF_FFFF_FFFF_FFFF
        for seed in [max_int64, max_int64 + 1, max_uint64, 0, -1, min_int64]:
            pyad.manual_seed(seed)
            torch.manual_seed(seed)
            assert pyad.initial_seed() == torch.initial_seed()
        for bad in [min_int64 - 1, max_uint64 + 1]:
            outcome(lambda L: L.manual_seed(bad))
    finally:
        pyad.set_rng_state(state)


def test_exponential_no_zero():
    pyad.manual_seed(3)
    for dt in (pyad.float32, pyad.float64):
        x = pyad.empty(5000, dtype=dt).exponential_()
        assert float(x.min()) > 0
        assert x.dtype == dt
    outcome(lambda L: L.empty(3).exponential_(-1.0))
    outcome(lambda L: L.empty(3).exponential_(0.0).shape)


def test_uniform_from_to_reversed():
    outcome(lambda L: L.empty(3).uniform_(2.0, 1.0))


def test_uniform_from_to_range_overflow():
    outcome(lambda L: L.empty(3, dtype=L.float32).uniform_(-3.4e38, 3.4e38))


def test_cauchy_no_inf():
    pyad.manual_seed(4)
    for dt in (pyad.float32, pyad.float64):
        x = pyad.empty(5000, dtype=dt).cauchy_()
        assert np.isfinite(x.data).all()
        assert x.dtype == dt


def test_uniform_from_to():
    pyad.manual_seed(5)
    for lo, hi in [(-2.0, 3.0), (0.0, 0.0), (5.0, 5.5), (-1e-3, 1e-3)]:
        x = pyad.empty(1000, dtype=pyad.float64).uniform_(lo, hi)
        assert float(x.min()) >= lo and float(x.max()) <= hi
    outcome(lambda L: L.empty(3, dtype=L.float64).uniform_(-3.4e38, 3.4e38).shape)


# ------------------------------------------------------------------------------------
# gradient, pdist, pairwise_distance
# ------------------------------------------------------------------------------------

def test_gradient_spacing_list_length_error():
    a = rnd((2, 2), 29)
    outcome(lambda L: L.gradient(L.tensor(a), spacing=[L.tensor([1.0, 2.0])]))
    outcome(lambda L: L.gradient(L.tensor(a), spacing=[L.tensor([1.0, 2.0])] * 3))
    outcome(lambda L: L.gradient(L.tensor(a), spacing=[L.tensor([1.0, 2.0])] * 2))
    outcome(lambda L: L.gradient(L.tensor(a), spacing=[1.0, 2.0, 3.0]))
    outcome(lambda L: L.gradient(L.tensor(a), spacing=[1.0, 2.0]))


def test_pairwise_distance_empty():
    for shape in [(2, 0), (0, 2)]:
        outcome(lambda L: L.pairwise_distance(L.randn(shape), L.randn(shape)))
        outcome(lambda L: L.pairwise_distance(L.randn(shape), L.randn(shape), keepdim=True))


def test_pdist_empty():
    for shape in [(0, 2), (1, 2), (3, 0)]:
        outcome(lambda L: L.pdist(L.randn(shape)))
        outcome(lambda L: L.pdist(L.randn(shape), 3))


# ------------------------------------------------------------------------------------
# indexing, return types, out=, overlap
# ------------------------------------------------------------------------------------

def test_newaxis_numpy_comparison():
    a = np.arange(24.0).reshape(2, 3, 4)
    keys = [None, (None, None), (0, None), (None, 1), (slice(None), None, 2),
            (Ellipsis, None), (None, Ellipsis, None), (1, None, slice(1, 3), None)]
    for k in keys:
        r = pyad.tensor(a)[k]
        np.testing.assert_array_equal(r.data, a[k])
        outcome(lambda L: L.tensor(a)[k])
    x1d = np.arange(5.0)
    np.testing.assert_array_equal(pyad.tensor(x1d)[None, :, None].data, x1d[None, :, None])


def test_structseq_repr():
    a = rnd((3, 4), 30)
    for name in ("max", "min", "sort", "topk", "kthvalue", "mode", "median", "cummax"):
        args = {"topk": (2,), "kthvalue": (1,)}.get(name, ())
        kw = {} if name in ("sort", "topk", "kthvalue", "cummax") else {"dim": 1}
        if name == "cummax":
            kw = {"dim": 1}
        p = getattr(pyad.tensor(a), name)(*args, **kw)
        t = getattr(torch.tensor(a), name)(*args, **kw)
        assert p._fields == t._fields if hasattr(t, "_fields") else True
        assert type(p).__name__ == type(t).__name__
        assert "values=" in repr(p) and "indices=" in repr(p)
        check(list(p), list(t))


def test_dtype_out_match():
    for L in (pyad, torch):
        d = L.zeros(2, 3, dtype=L.float64)
        with pytest.raises(RuntimeError):
            L.zeros((2, 3), out=d, dtype=L.float32)
        r = L.zeros((2, 3), out=d, dtype=L.float64)
        assert r is d


def test_internal_overlap():
    outcome(lambda L: L.randn(1).expand(3).add_(1))
    outcome(lambda L: L.randn(1, 3).expand(2, 3).mul_(2))
    outcome(lambda L: L.randn(3, 1).expand(3, 3).t().neg_())
    outcome(lambda L: L.randn(1).expand(3).zero_().shape)       # a fill is allowed


def test_index_fill_mem_overlap():
    outcome(lambda L: L.randn(3).index_fill_(0, L.tensor([0]), L.tensor(1.0)).shape)


@pytest.mark.xfail(strict=True, reason="engine: index_fill_ on an expanded Variable "
                   "raises; torch fills it with a deprecation UserWarning")
def test_index_fill_mem_overlap_expanded():
    with pytest.warns(UserWarning):
        outcome(lambda L: L.zeros(1).expand(3).index_fill_(0, L.tensor([0]), 1.0))


def test_scatter_add_mem_overlap():
    outcome(lambda L: L.randn(1).expand(3).scatter_add_(0, L.tensor([0, 1]), L.ones(2)))


# torch's test_gather_mem_overlap, test_index_select_mem_overlap,
# test_masked_select_mem_overlap and test_take_mem_overlap: an out= sharing the input's
# memory (partly or wholly) is refused
@pytest.mark.parametrize("call", [
    lambda L, x: L.gather(x, 0, L.tensor([0, 1]), out=x[:2]),
    lambda L, x: L.index_select(x, 0, L.tensor([0, 1]), out=x[:2]),
    lambda L, x: L.masked_select(x, L.ones(3, dtype=L.bool), out=x),
    lambda L, x: L.take(x, L.tensor([0, 1, 2]), out=x),
], ids=["gather", "index_select", "masked_select", "take"])
def test_indexing_out_mem_overlap(call):
    for L in (pyad, torch):
        x = L.randn(3)
        with pytest.raises(RuntimeError, match="single memory location"):
            call(L, x)
    # apart, the result is written
    x = pyad.tensor([1.0, 2.0, 3.0])
    out = pyad.empty(3)
    assert pyad.take(x, pyad.tensor([2, 0, 1]), out=out) is out
    assert out.tolist() == [3.0, 1.0, 2.0]


def test_shift_mem_overlap():
    def f(L):
        x = L.tensor([1, 2, 3, 4])
        x[:-1] <<= x[1:]
        return x
    outcome(f)

    def g(L):
        x = L.tensor([16, 8, 4, 2])
        x[:-1] >>= x[1:]
        return x
    outcome(g)


# ------------------------------------------------------------------------------------
# logcumsumexp complex, layer_norm, batch_norm, conj tolist
# ------------------------------------------------------------------------------------

def test_logcumsumexp_complex():
    a = (rnd((4, 3), 31) + 1j * rnd((4, 3), 32)).astype(np.complex128)
    outcome(lambda L: L.logcumsumexp(L.tensor(a), 0), exact=False)
    outcome(lambda L: L.logcumsumexp(L.tensor(a), -1), exact=False)
    b = np.array([1 + 1j, -inf + 0j, 0 + 0j], dtype=np.complex128)
    outcome(lambda L: L.logcumsumexp(L.tensor(b), 0), exact=False)


def test_c10_layer_norm():
    a = rnd((3, 4, 5), 33)
    w, b = rnd((5,), 34), rnd((5,), 35)
    for dt in (np.float32, np.float64):
        outcome(lambda L: L.nn.functional.layer_norm(L.tensor(a.astype(dt)), (5,)), exact=False)
        outcome(lambda L: L.nn.functional.layer_norm(
            L.tensor(a.astype(dt)), (5,), L.tensor(w.astype(dt)), L.tensor(b.astype(dt)),
            eps=1e-3), exact=False)
        outcome(lambda L: L.nn.functional.layer_norm(L.tensor(a.astype(dt)), (4, 5)), exact=False)


def test_batch_norm_cpu_inference():
    x = rnd((2, 3, 2, 2), 36)
    rm, rv = rnd((3,), 37), np.abs(rnd((3,), 38)) + 0.5
    w, b = rnd((3,), 39), rnd((3,), 40)
    outcome(lambda L: L.nn.functional.batch_norm(
        L.tensor(x), L.tensor(rm), L.tensor(rv), L.tensor(w), L.tensor(b),
        training=False), exact=False)
    outcome(lambda L: L.nn.functional.batch_norm(
        L.tensor(x[:, :, 0, 0]), L.tensor(rm), L.tensor(rv), training=False), exact=False)
    # independent derivation
    ref = (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5)
    ref = ref * w[None, :, None, None] + b[None, :, None, None]
    got = pyad.nn.functional.batch_norm(pyad.tensor(x), pyad.tensor(rm), pyad.tensor(rv),
                                        pyad.tensor(w), pyad.tensor(b), training=False)
    np.testing.assert_allclose(got.data, ref, rtol=1e-7, atol=1e-7)


def test_conj_neg_tolist():
    a = (rnd((3,), 41) + 1j * rnd((3,), 42)).astype(np.complex64)
    for L in (pyad, torch):
        x = L.tensor(a)
        y1 = x.conj()
        assert y1.tolist() == x.conj_physical().tolist() == np.conj(a).tolist()
        assert y1.imag.tolist() == (-a.imag).tolist()
        y2 = x.neg()
        assert y2.tolist() == (-a).tolist()


# ------------------------------------------------------------------------------------
# pdist / cdist (batched), nonzero_static, bool subtraction, renorm, subclass __new__
# ------------------------------------------------------------------------------------

def _brute_pdist(x, p):
    n = x.shape[0]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            d = np.abs(x[i] - x[j])
            out.append(np.count_nonzero(d) if p == 0 else d.max() if p == inf
                       else (d ** p).sum() ** (1.0 / p))
    return np.array(out, dtype=x.dtype)


@pytest.mark.parametrize("p", [0, 1, 2, 3, 1.5, 2.5, inf])
@pytest.mark.parametrize("shape", [(4, 5), (3, 2), (2, 1), (1, 3)])
def test_pdist_norm_forward(shape, p):
    x = rnd(shape, 43)
    for trans in (False, True):
        a = np.ascontiguousarray(x.T).T if trans else x      # a transposed layout
        got = pyad.pdist(pyad.tensor(a), p)
        np.testing.assert_allclose(got.data, _brute_pdist(x, p), rtol=1e-7, atol=1e-7)
        outcome(lambda L: L.pdist(L.tensor(a), p), exact=False)


@pytest.mark.parametrize("p", [0, 1, 2, 0.5, 1.5, 2.5, inf])
def test_pdist_norm_backward(p):
    # p=0: torch's gradient is zeros (pyad's pdist once left .grad None)
    x = rnd((4, 3), 44)
    for trans in (False, True):
        a = np.ascontiguousarray(x.T).T if trans else x
        v = pyad.tensor(a, requires_grad=True)
        assert pyad.autograd.gradcheck(lambda u: pyad.pdist(u, p), (v,))
        gs = []
        for L in (pyad, torch):
            u = L.tensor(a, requires_grad=True)
            (L.pdist(u, p) * L.tensor(np.arange(1.0, 7.0))).sum().backward()
            gs.append(u.grad)
        check(gs[0], gs[1], exact=False)
    # inf entries: the p=0 count is still a count, its gradient still zeros
    b = x.copy()
    b[0, 0] = inf
    outcome(lambda L: L.pdist(L.tensor(b, requires_grad=True), p).detach(), exact=False)


def _brute_cdist(x, y, p):
    d = np.abs(x[..., :, None, :] - y[..., None, :, :])
    if p == 0:
        return np.count_nonzero(d, axis=-1).astype(x.dtype)
    if p == inf:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1.0 / p)


@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, inf])
def test_cdist_norm_batch(p):
    for r1, r2, m in [(3, 2, 4), (1, 5, 2), (4, 4, 1)]:
        x, y = rnd((2, 3, r1, m), 45), rnd((2, 3, r2, m), 46)
        got = pyad.cdist(pyad.tensor(x), pyad.tensor(y), p=p)
        np.testing.assert_allclose(got.data, _brute_cdist(x, y, p), rtol=1e-7, atol=1e-7)
        outcome(lambda L: L.cdist(L.tensor(x), L.tensor(y), p=p), exact=False)


def test_cdist_non_contiguous_batch():
    x = rnd((2, 3, 5, 4), 47)
    y = rnd((2, 3, 6, 4), 48)
    xt = np.swapaxes(np.swapaxes(x, -1, -2).copy(), -1, -2)     # same values, F-order rows
    yt = np.swapaxes(np.swapaxes(y, -1, -2).copy(), -1, -2)
    for p in (1, 2, inf):
        for a, b in [(xt, y), (x, yt), (xt, yt)]:
            got = pyad.cdist(pyad.tensor(a), pyad.tensor(b), p=p)
            np.testing.assert_allclose(got.data, _brute_cdist(x, y, p), rtol=1e-7, atol=1e-7)
        outcome(lambda L: L.cdist(L.tensor(x).transpose(-1, -2).contiguous().transpose(-1, -2),
                                  L.tensor(y), p=p), exact=False)


def test_cdist_large_batch():
    # torch's sizes (4, 3, 1000, 10) cut down to stay fast; euclidean both ways
    x, y = rnd((2, 3, 60, 10), 49), rnd((2, 3, 50, 10), 50)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        got = pyad.cdist(pyad.tensor(x), pyad.tensor(y), compute_mode=mode)
        np.testing.assert_allclose(got.data, _brute_cdist(x, y, 2), rtol=1e-7, atol=1e-7)


def test_nonzero_static():
    a = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    for size in (0, 2, 3, 5):
        outcome(lambda L: L.nonzero_static(L.tensor(a), size=size))
        outcome(lambda L: L.nonzero_static(L.tensor(a), size=size, fill_value=-7))
    outcome(lambda L: L.nonzero_static(L.tensor(np.array([0, 4, 0, 5])), size=3))
    outcome(lambda L: L.nonzero_static(L.tensor(2.5), size=2))
    outcome(lambda L: L.nonzero_static(L.zeros(0, 3), size=2))
    outcome(lambda L: L.nonzero_static(L.tensor(a), size=-1))


def test_bool_sub():
    m1 = np.array([True, False, False, True, False, False])
    m2 = np.array([True, True, False, False, False, True])
    outcome(lambda L: L.tensor(m1) - L.tensor(m2))
    outcome(lambda L: L.sub(L.tensor(m1), L.tensor(m2)))
    outcome(lambda L: -L.tensor(m1))
    outcome(lambda L: L.tensor(m1) - 1)
    outcome(lambda L: L.tensor(m1).to(L.uint8) - L.tensor(m2).to(L.uint8))
    outcome(lambda L: L.tensor(m1) + L.tensor(m2))


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, inf])
def test_renorm_ps(p):
    x = rnd((3, 4, 2), 51) * 3
    for dim in (0, 1, -1):
        outcome(lambda L: L.renorm(L.tensor(x), p, dim, 2.0), exact=False)
        # independent: each slice along dim scaled to norm <= maxnorm
        got = pyad.renorm(pyad.tensor(x), p, dim, 2.0).data
        moved = np.moveaxis(got, dim, 0).reshape(x.shape[dim], -1)
        norms = np.linalg.norm(moved, ord=p, axis=1)
        assert (norms <= 2.0 * (1 + 1e-6)).all()


def test_tensor_base_new():
    # a subclass whose __new__ calls the base class's __new__ with a Variable
    class Sub(pyad.Tensor):
        @staticmethod
        def __new__(cls, x, *args, **kwargs):
            return super().__new__(cls, x, *args, **kwargs)

    class TSub(torch.Tensor):
        @staticmethod
        def __new__(cls, x, *args, **kwargs):
            return super().__new__(cls, x, *args, **kwargs)

    p, t = Sub(pyad.ones(5)), TSub(torch.ones(5))
    assert isinstance(p, Sub) and isinstance(p, pyad.Tensor)
    assert isinstance(t, TSub)
    assert p.tolist() == t.tolist() == [1.0] * 5


# ------------------------------------------------------------------------------------
# assertEqual (torch's TestCase.assertEqual is built on torch.testing.assert_close:
# pyad.testing.assert_close must accept and refuse the same pairs)
# ------------------------------------------------------------------------------------

def _close_outcome(make, **kw):
    res = []
    for L in (pyad, torch):
        a, b = make(L)
        try:
            L.testing.assert_close(a, b, **kw)
            res.append(None)
        except Exception as e:  # noqa: BLE001 - compared below
            res.append(_builtin_exc(type(e)))
    assert res[0] == res[1], res


def test_assertEqual():
    x = rnd((3, 4), 52)
    _close_outcome(lambda L: (L.tensor(x), L.tensor(x.copy())))
    _close_outcome(lambda L: (L.tensor(x), L.tensor(x + 1)))
    _close_outcome(lambda L: (L.tensor(x), L.tensor(x[:2])))                # shape
    _close_outcome(lambda L: (L.tensor(x), L.tensor(x.astype(np.float32))))  # dtype
    _close_outcome(lambda L: (L.tensor(x), L.tensor(x.astype(np.float32))),
                   check_dtype=False)
    _close_outcome(lambda L: (L.tensor([1.0, nan]), L.tensor([1.0, nan])))
    _close_outcome(lambda L: (L.tensor([1.0, nan]), L.tensor([1.0, nan])), equal_nan=False)
    _close_outcome(lambda L: (L.tensor([1, 2]), L.tensor([1, 3])))
    _close_outcome(lambda L: (L.tensor(3.0), L.tensor([3.0])))
    _close_outcome(lambda L: (L.tensor([inf, -inf]), L.tensor([inf, -inf])))


def test_assertEqualTolerance():
    # torch's default tolerances by dtype: float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7)
    for dt, eps in [(np.float32, 5e-6), (np.float32, 2e-5), (np.float64, 5e-8),
                    (np.float64, 5e-7), (np.float16, 5e-4), (np.float16, 5e-3)]:
        a = np.array([1.0, 2.0, 0.0], dtype=dt)
        b = (a + np.array(eps, dtype=dt)).astype(dt)
        _close_outcome(lambda L: (L.tensor(a), L.tensor(b)))
        _close_outcome(lambda L: (L.tensor(a), L.tensor(b)), rtol=0.1, atol=0.1)
        _close_outcome(lambda L: (L.tensor(a), L.tensor(b)), rtol=0.0, atol=0.0)
    _close_outcome(lambda L: (L.tensor([1.0]), L.tensor([1.0])), rtol=0.1)    # one alone


# ------------------------------------------------------------------------------------
# low-precision lerp, nelement, masked_scatter on bool
# ------------------------------------------------------------------------------------

def test_lerp_lowp():
    # float16 lerp equals the float32 lerp rounded to float16, bit for bit
    xv = np.array([-1000.0, 0.0, 1.5, 65000.0, -3.25], dtype=np.float16)
    yv = np.array([1000.0, 1.0, -2.5, 60000.0, 4.75], dtype=np.float16)
    for w in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25):
        outcome(lambda L: L.lerp(L.tensor(xv), L.tensor(yv), w))
        want = torch.lerp(torch.tensor(xv).float(), torch.tensor(yv).float(), w).half()
        check(pyad.lerp(pyad.tensor(xv), pyad.tensor(yv), w), want)
    wv = np.array([0.0, 0.3, 0.5, 0.9, 1.0], dtype=np.float16)
    outcome(lambda L: L.lerp(L.tensor(xv), L.tensor(yv), L.tensor(wv)))


def test_nelement():
    for shape in [(), (0,), (3,), (2, 0, 4), (2, 3, 4)]:
        p, t = pyad.empty(shape), torch.empty(shape)
        assert p.nelement() == p.numel() == t.nelement() == int(np.prod(shape))


def test_masked_scatter_bool():
    mask = np.array([True, False, True, True, False])
    src = np.array([False, True, True, False, True])
    outcome(lambda L: L.zeros(5, dtype=L.bool).masked_scatter(L.tensor(mask), L.tensor(src)))
    outcome(lambda L: L.ones(5, dtype=L.bool).masked_scatter_(L.tensor(mask), L.tensor(src)))
    outcome(lambda L: L.zeros(5).masked_scatter(L.tensor(mask), L.tensor(src)))     # dtype
    outcome(lambda L: L.zeros(5).masked_scatter(L.tensor(mask), L.ones(2)))          # short

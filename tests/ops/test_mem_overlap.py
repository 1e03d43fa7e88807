"""Writes into memory an input partly shares are refused, as torch refuses them.

torch (aten/src/ATen/MemoryOverlap.cpp) raises "unsupported operation: some elements of
the input tensor and the written-to tensor refer to a single memory location" when an
elementwise op's ``out=``, or an in-place op's self, partly overlaps one of its inputs
(``exp(a[:-1], out=a[1:])``, ``a[1:].add_(a[:-1])``, ``a[1:] = a[:-1]``): the result
would depend on the order the kernel visits elements in. The very same elements (``out``
is the input, ``a.add_(a)``), and operands it cannot tell about cheaply (not one dense
block: ``a[::2]`` and ``a[1::2]``), are allowed. These tests port torch's
test_binary_ufuncs/test_torch mem-overlap helpers and run each case on torch and on pyad:
the same cases raise, and the others give the same values.
"""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

OVERLAP = "unsupported operation"


def _run(lib, fn):
    """fn(lib) -> ("raised", message) or ("ok", values)."""
    try:
        out = fn(lib)
    except RuntimeError as exc:
        return "raised", str(exc)
    return "ok", np.asarray(out.detach().numpy() if hasattr(out, "detach") else out)


def _same(fn, match=OVERLAP, values=True):
    """Both raise (with ``match`` where torch's message has it), or neither does and, with
    ``values``, both give the same values."""
    theirs = _run(torch, fn)
    ours = _run(pyad, fn)
    assert ours[0] == theirs[0], (ours, theirs)
    if theirs[0] == "raised":
        if match in theirs[1]:
            assert match in ours[1], ours[1]
    elif values:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12,
                                   equal_nan=True)


def _data(lib, n=6):
    return lib.tensor(np.linspace(0.1, 0.9, n), dtype=lib.float64)


UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "digamma", "erf", "erfc",
         "erfinv", "exp", "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p",
         "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
         "sqrt", "tan", "tanh", "trunc", "i0", "logit", "sinc", "exp2", "angle", "sgn"]

BINARY = ["add", "mul", "sub", "div", "pow", "fmod", "atan2", "hypot", "nextafter", "le",
          "lt", "ge", "gt", "eq", "ne", "logical_and", "logical_or", "logical_xor",
          "maximum", "minimum", "fmax", "fmin", "copysign", "remainder", "xlogy",
          "logaddexp", "true_divide"]


def _case_out(op, out_slice, in_slice, other=None, first=False):
    """op(data[in_slice] (and other), out=data[out_slice]); the values: all of data."""
    def fn(lib):
        data = _data(lib)
        args = (data[in_slice],)
        if other is not None:
            args = (lib.tensor(other), data[in_slice]) if first else (data[in_slice],
                                                                      lib.tensor(other))
        getattr(lib, op)(*args, out=data[out_slice])
        return data
    return fn


@pytest.mark.parametrize("op", UNARY)
def test_unary_out_op_mem_overlap(op):
    # torch's unary_check_input_output_mem_overlap: identical, independent, partial
    sz = 3
    _same(_case_out(op, slice(0, sz), slice(0, sz)))
    _same(_case_out(op, slice(0, sz), slice(sz, 2 * sz)))
    _same(_case_out(op, slice(0, sz), slice(1, sz + 1)))


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("first", [False, True])
def test_binary_op_mem_overlap(op, first):
    sz = 3
    other = np.array([0.25, 0.5, 0.75])
    _same(_case_out(op, slice(0, sz), slice(0, sz), other, first))
    _same(_case_out(op, slice(0, sz), slice(sz, 2 * sz), other, first))
    _same(_case_out(op, slice(0, sz), slice(1, sz + 1), other, first))


@pytest.mark.parametrize("op", [o for o in BINARY if hasattr(torch.Tensor, o + "_")
                                and o not in ("le", "lt", "ge", "gt", "eq", "ne")])
def test_binary_inplace_internal_and_partial_overlap(op):
    def internal(lib):
        x = lib.tensor([0.5], dtype=lib.float64).expand(3, 3)
        return getattr(x, op + "_")(lib.ones(3, 3, dtype=lib.float64))
    _same(internal, "single memory location")

    def partial(lib):
        data = _data(lib)
        getattr(data[1:4], op + "_")(data[0:3])
        return data

    def full(lib):
        data = _data(lib)
        getattr(data, op + "_")(data)
        return data

    def apart(lib):
        data = _data(lib)
        getattr(data[0:3], op + "_")(data[3:6])
        return data

    for fn in (partial, full, apart):
        _same(fn)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv", "lerp"])
def test_ternary_op_mem_overlap(op):
    # each operand in turn partly overlapping out= (or self, in place), none, or all
    # three the very same elements
    for a, b, c in [(slice(0, 3), slice(3, 6), slice(3, 6)),
                    (slice(1, 4), slice(3, 6), slice(3, 6)),
                    (slice(3, 6), slice(1, 4), slice(3, 6)),
                    (slice(3, 6), slice(3, 6), slice(2, 5)),
                    (slice(0, 3), slice(0, 3), slice(0, 3))]:
        def out_form(lib, a=a, b=b, c=c):
            d = _data(lib)
            getattr(lib, op)(d[a], d[b], d[c], out=d[0:3])
            return d

        def inplace(lib, b=b, c=c):
            d = _data(lib)
            getattr(d[0:3], op + "_")(d[b], d[c])
            return d
        _same(out_form)
        _same(inplace)


def test_copy_mem_overlap():
    for src, dst in [(slice(0, 3), slice(1, 4)), (slice(0, 3), slice(0, 3)),
                     (slice(0, 3), slice(3, 6))]:
        def fn(lib, src=src, dst=dst):
            d = _data(lib)
            d[dst].copy_(d[src])
            return d
        _same(fn)

    def expanded(lib):
        x = lib.zeros(1, dtype=lib.float64).expand(3)
        return x.copy_(lib.ones(3, dtype=lib.float64))
    _same(expanded, "single memory location")


def test_setitem_of_a_slice_mem_overlap():
    for key, src in [(slice(1, None), slice(None, -1)), (slice(0, 3), slice(3, 6))]:
        def fn(lib, key=key, src=src):
            d = _data(lib)
            d[key] = d[src]
            return d
        _same(fn)

    def advanced(lib):            # a[[0, 1]] is a copy: no overlap to refuse
        d = _data(lib)
        d[[1, 2]] = d[[0, 1]]
        return d
    _same(advanced)


@pytest.mark.parametrize("case", ["index_add_", "index_copy_", "index_fill_", "scatter_",
                                  "scatter_add_", "masked_fill_", "put_"])
def test_indexing_inplace_mem_overlap(case):
    def fn(lib):
        d = _data(lib)
        idx = lib.tensor([0, 1])
        if case == "index_add_":
            d.index_add_(0, idx, d[1:3])
        elif case == "index_copy_":
            d.index_copy_(0, idx, d[1:3])
        elif case == "index_fill_":
            d.index_fill_(0, idx, 2.0)
        elif case == "scatter_":
            d.scatter_(0, idx, d[1:3])
        elif case == "scatter_add_":
            d.scatter_add_(0, idx, d[1:3])
        elif case == "masked_fill_":
            d[0:3].masked_fill_(d[1:4] > 0.4, 0.0)
        else:
            d.put_(idx, d[1:3])
        return d
    _same(fn)


def test_non_dense_operands_are_too_hard_to_tell_and_allowed():
    # torch's get_overlap_status gives TooHard for operands that are not one dense block
    def interleaved(lib):
        d = _data(lib)
        d[::2].mul_(d[1::2])
        return d

    def transposed_full(lib):
        d = _data(lib).view(2, 3)
        d.t().add_(d.t())
        return d

    def permuted_partial(lib):        # dense, same block, other strides: partial
        d = _data(lib).view(2, 3)
        d.add_(d.view(3, 2).t())
        return d
    for fn in (interleaved, transposed_full, permuted_partial):
        _same(fn)


def test_message_names_the_op_and_says_variable():
    d = pyad.arange(6.0)
    with pytest.raises(RuntimeError, match=r"^add_\(\): unsupported operation: some "
                                           r"elements of the input Variable"):
        d[1:].add_(d[:-1])
    with pytest.raises(RuntimeError, match=r"^exp\(\): unsupported operation"):
        pyad.exp(d[:-1], out=d[1:])


# in-place forms whose inputs torch does (or, for the BLAS-backed ones and
# masked_scatter_, does not) compare with self's memory; each case on both frameworks
MORE_INPLACE = {
    "addmv_": lambda L, x: x[0].addmv_(x, x[0]),
    "addbmm_": lambda L, x: x.addbmm_(x[None], x[None]),
    "addmm_": lambda L, x: x.addmm_(x, x),
    "baddbmm_": lambda L, x: x[None].baddbmm_(x[None], x[None]),
    "addr_": lambda L, x: x.addr_(x[0], x[1]),
    "index_fill_ of a 0-d view": lambda L, x: x.index_fill_(0, L.tensor([1]), x[0, 0]),
    "masked_fill_ of a 0-d view": lambda L, x: x.masked_fill_(x > 3, x[0, 0]),
    "masked_scatter_": lambda L, x: x.view(-1)[:8].masked_scatter_(
        L.ones(8, dtype=L.bool), x.view(-1)[4:12]),
    "index_put_": lambda L, x: x.index_put_((L.tensor([1]),), x[0]),
    "scatter_reduce_": lambda L, x: x.scatter_reduce_(0, L.tensor([[1, 1, 1, 1]]), x[0:1],
                                                      "sum"),
    "index_reduce_": lambda L, x: x.index_reduce_(0, L.tensor([1]), x[0:1], "prod"),
    "heaviside_": lambda L, x: x[1:].heaviside_(x[:-1]),
    "igamma_": lambda L, x: x[1:].igamma_(x[:-1]),
    "add_ of a 0-d view": lambda L, x: x.add_(x[0, 0]),
    "add_ of a broadcast row": lambda L, x: x.add_(x[0]),
    "mul_ of a column (not dense)": lambda L, x: x.mul_(x[:, :1]),
    "copy_ of a 0-d view": lambda L, x: x.copy_(x[0, 0]),
    "fill_ of a 0-d view": lambda L, x: x.fill_(x[0, 0]),
    "setitem of another row": lambda L, x: x.__setitem__(1, x[0]),
    "where out= a broadcast row": lambda L, x: L.where(x > 3, x[0], x, out=x),
}


@pytest.mark.parametrize("case", sorted(MORE_INPLACE))
def test_more_inplace_forms_overlap_as_torch(case):
    def fn(lib):
        x = lib.arange(16.0, dtype=lib.float64).reshape(4, 4)
        MORE_INPLACE[case](lib, x)
        return x
    # where torch lets an overlapping write through, its values depend on the order its
    # kernel visits elements in (a matmul writing into its own operand): only whether
    # each raises is compared
    _same(fn, values=False)

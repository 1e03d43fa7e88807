"""torch's small top-level utilities (pyad/_compat.py) against torch: finfo, iinfo, Size,
the predicates, set_printoptions, clone, the older linear-algebra names, compile."""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

DTYPES = [("float16", "float16"), ("float32", "float32"), ("float64", "float64"),
          ("complex64", "complex64"), ("complex128", "complex128")]


@pytest.mark.parametrize("ours, theirs", DTYPES)
def test_finfo_matches_torch(ours, theirs):
    a, b = pyad.finfo(getattr(pyad, ours)), torch.finfo(getattr(torch, theirs))
    for name in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                 "dtype"):
        assert getattr(a, name) == getattr(b, name), name
        assert type(getattr(a, name)) is type(getattr(b, name)), name
    assert repr(a) == repr(b)


def test_finfo_of_the_default_dtype_and_refusals():
    assert pyad.finfo().eps == torch.finfo().eps
    with pytest.raises(TypeError, match=r"finfo\(\)"):
        pyad.finfo(pyad.int64)
    with pytest.raises(TypeError):
        torch.finfo(torch.int64)
    with pytest.raises(TypeError, match=r"iinfo\(\)"):
        pyad.iinfo(pyad.float32)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8"])
def test_iinfo_matches_torch(name):
    a, b = pyad.iinfo(getattr(pyad, name)), torch.iinfo(getattr(torch, name))
    assert (a.bits, a.min, a.max) == (b.bits, b.min, b.max)


def test_size_behaves_as_torchs():
    s, ts = pyad.Size([2, 3, 4]), torch.Size([2, 3, 4])
    assert s == ts == (2, 3, 4) and s.numel() == ts.numel() == 24
    assert pyad.ones(2, 3, 4).shape == s
    assert isinstance(s[1:], pyad.Size) and s[1:] == ts[1:] and s[0] == 2
    assert repr(s) == repr(ts).replace("torch", "pyad") and pyad.Size().numel() == 1
    with pytest.raises(TypeError, match=r"Size\(\)"):
        pyad.Size([2.5])


def test_predicates_match_torch():
    for make in (lambda L: L.ones(2, 3), lambda L: L.ones(2, dtype=L.int64),
                 lambda L: L.ones(2, dtype=L.complex64), lambda L: L.zeros(()),
                 lambda L: L.ones(0, 3)):
        x, t = make(pyad), make(torch)
        assert pyad.is_floating_point(x) == torch.is_floating_point(t)
        assert pyad.is_complex(x) == torch.is_complex(t)
        assert pyad.numel(x) == torch.numel(t)
        assert pyad.is_same_size(x, x) and not pyad.is_same_size(x, pyad.ones(7))
    assert pyad.is_nonzero(pyad.tensor([0.5])) is torch.is_nonzero(torch.tensor([0.5])) is True
    assert pyad.is_nonzero(pyad.tensor(0)) is torch.is_nonzero(torch.tensor(0)) is False
    for bad in (lambda L: L.ones(2), lambda L: L.ones(0)):
        with pytest.raises(RuntimeError):
            torch.is_nonzero(bad(torch))
        with pytest.raises(RuntimeError, match=r"is_nonzero\(\): Boolean value"):
            pyad.is_nonzero(bad(pyad))
    with pytest.raises(TypeError, match=r"numel\(\): argument 'input'"):
        pyad.numel([1, 2])


@pytest.mark.parametrize("options", [dict(precision=2), dict(sci_mode=False),
                                     dict(sci_mode=True), dict(profile="short"),
                                     dict(precision=6, sci_mode=False),
                                     dict(threshold=5, edgeitems=1), dict(profile="full")])
def test_set_printoptions_prints_as_torch(options):
    values = [[1.23456, 123456.7, 0.0], [-2.5, 1e-5, 3.0]]
    try:
        pyad.set_printoptions(**options)
        torch.set_printoptions(**options)
        for v in (values, [0.0, 0.0], [1.0, 2.0], list(range(12))):
            assert str(pyad.tensor(v, dtype=pyad.float32)) == str(
                torch.tensor(v, dtype=torch.float32))
    finally:
        pyad.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert str(pyad.tensor([1.23456])) == "tensor([1.2346])"
    with pytest.raises(ValueError, match=r"set_printoptions\(\): profile"):
        pyad.set_printoptions(profile="tiny")


def test_clone_and_the_older_linear_algebra_names_match_torch():
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    x, t = pyad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for ours, theirs in ((pyad.inverse, torch.inverse), (pyad.det, torch.det),
                         (pyad.logdet, torch.logdet), (pyad.clone, torch.clone)):
        out, tout = ours(x), theirs(t)
        np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-12)
        g, = pyad.autograd.grad(out.sum(), x)
        tg, = torch.autograd.grad(tout.sum(), t)
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-12)
    sign, logabs = pyad.slogdet(x)
    tsign, tlogabs = torch.slogdet(t)
    assert float(sign) == float(tsign.detach())
    np.testing.assert_allclose(float(logabs), float(tlogabs.detach()), rtol=1e-12)
    for m in ([[2.0, 0.0], [0.0, -1.0]], [[0.0, 0.0], [0.0, 1.0]]):
        np.testing.assert_array_equal(pyad.logdet(pyad.tensor(m)).data,
                                      torch.logdet(torch.tensor(m)).numpy())


def test_compile_returns_the_model_and_deterministic_flag_round_trips():
    model = pyad.nn.Linear(2, 2)
    assert pyad.compile(model) is model and pyad.compile(mode="max-autotune")(model) is model
    try:
        pyad.use_deterministic_algorithms(True)
        assert pyad.are_deterministic_algorithms_enabled()
    finally:
        pyad.use_deterministic_algorithms(False)
    assert not pyad.are_deterministic_algorithms_enabled()


@pytest.mark.parametrize("args", [(3, 4), (3, 4, 1), (3, 3, -1), (0, 3), (2, 5, 3), (4, 2, -5),
                                  (1, 1)])
def test_triangle_indices_match_torch(args):
    for name in ("triu_indices", "tril_indices"):
        ours, theirs = getattr(pyad, name)(*args), getattr(torch, name)(*args)
        assert ours.shape == tuple(theirs.shape) and ours.dtype == np.int64
        assert ours.tolist() == theirs.tolist()
    assert pyad.triu_indices(3, 3, dtype=pyad.int32).dtype == np.int32
    with pytest.raises(RuntimeError, match=r"triu_indices\(\): row must be"):
        pyad.triu_indices(-1, 3)
    with pytest.raises(RuntimeError, match=r"tril_indices\(\): .*not implemented"):
        pyad.tril_indices(3, 3, dtype=pyad.float32)


def test_argwhere_and_infinity_predicates_match_torch():
    for v in ([[1, 0], [0, 2]], 3.0, 0.0, [], [[0.0, float("nan")], [float("inf"), -1.0]]):
        assert pyad.argwhere(pyad.tensor(v)).tolist() == torch.argwhere(torch.tensor(v)).tolist()
        assert pyad.argwhere(pyad.tensor(v)).shape == tuple(torch.argwhere(torch.tensor(v)).shape)
    v = [1.0, float("inf"), -float("inf"), float("nan")]
    for name in ("isposinf", "isneginf", "isreal"):
        for value in (v, [1, 2], [1 + 0j, 1 + 1j, float("inf") + 0j]):
            if name != "isreal" and isinstance(value[0], complex):
                with pytest.raises(RuntimeError):
                    getattr(torch, name)(torch.tensor(value))
                with pytest.raises(RuntimeError, match=r"%s\(\): .*complex" % name):
                    getattr(pyad, name)(pyad.tensor(value))
                continue
            ours, theirs = getattr(pyad, name)(pyad.tensor(value)), \
                getattr(torch, name)(torch.tensor(value))
            assert ours.tolist() == theirs.tolist() and ours.dtype == np.bool_


def test_degree_conversions_match_torch():
    for value in ([180.0, 90.0, -45.0], [180, 90]):
        x, t = pyad.tensor(value), torch.tensor(value)
        for name in ("deg2rad", "rad2deg"):
            out, tout = getattr(pyad, name)(x), getattr(torch, name)(t)
            assert str(out.dtype) == str(tout.dtype).replace("torch.", "")
            np.testing.assert_allclose(out.data, tout.numpy(), rtol=1e-6)
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    pyad.deg2rad(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, np.full(2, np.pi / 180), rtol=1e-6)

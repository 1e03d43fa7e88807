"""Memory formats (pyad.channels_last, ...): the strides, contiguity answers, errors and
graph records of torch 2.13 on the same calls; gradients through the layout copies."""
import numpy
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

SHAPE = (2, 3, 4, 5)


def pair(shape=SHAPE, permute=None, requires_grad=False):
    values = numpy.random.default_rng(0).standard_normal(shape)
    p, t = pyad.tensor(values), torch.tensor(values)
    if permute is not None:
        p, t = p.permute(*permute), t.permute(*permute)
    if requires_grad:
        p.requires_grad_(True)
        t.requires_grad_(True)
    return p, t


def formats_of(lib):
    return {"contiguous": lib.contiguous_format, "channels_last": lib.channels_last,
            "channels_last_3d": lib.channels_last_3d, "preserve": lib.preserve_format}


def call_both(fn, *args):
    """fn(lib, *args) on pyad and torch: (result, result) or both exception types."""
    results = []
    for lib in (pyad, torch):
        try:
            results.append(fn(lib, formats_of(lib), *args))
        except Exception as exc:     # both must fail the same way
            results.append(type(exc))
    return results


def test_the_formats_are_named_and_unique():
    assert repr(pyad.channels_last) == "pyad.channels_last"
    assert isinstance(pyad.channels_last, pyad.memory_format)
    assert pyad.channels_last == pyad.channels_last != pyad.contiguous_format
    with pytest.raises(TypeError, match="cannot create"):
        pyad.memory_format()
    import copy
    import pickle
    assert pickle.loads(pickle.dumps(pyad.channels_last)) is pyad.channels_last
    assert copy.deepcopy(pyad.preserve_format) is pyad.preserve_format


@pytest.mark.parametrize("permute", [None, (0, 2, 3, 1), (0, 3, 1, 2), (1, 0, 2, 3)])
@pytest.mark.parametrize("fmt", ["contiguous", "channels_last", "preserve"])
def test_clone_strides_as_torch(permute, fmt):
    p, t = pair(SHAPE, permute)
    got = p.clone(memory_format=formats_of(pyad)[fmt])
    want = t.clone(memory_format=formats_of(torch)[fmt])
    assert got.stride() == want.stride()
    assert numpy.array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("view", ["t", "t_strided", "strided", "expanded"])
def test_clone_of_2d_views_keeps_torch_strides(view):
    p, t = pair((4, 6))
    make = {"t": lambda x: x.t(), "t_strided": lambda x: x.t()[:, ::2],
            "strided": lambda x: x[:, ::2], "expanded": lambda x: x[:, :1].expand(4, 3)}[view]
    assert make(p).clone().stride() == make(t).clone().stride()
    assert pyad.clone(make(p)).stride() == torch.clone(make(t)).stride()
    assert pyad.empty_like(make(p)).stride() == torch.empty_like(make(t)).stride()
    assert pyad.zeros_like(make(p)).stride() == torch.zeros_like(make(t)).stride()
    assert make(p).contiguous().stride() == make(t).contiguous().stride()


@pytest.mark.parametrize("fmt", ["contiguous", "channels_last", "channels_last_3d",
                                 "preserve", None])
@pytest.mark.parametrize("rank", [2, 4, 5])
def test_contiguous_and_is_contiguous_as_torch(fmt, rank):
    shape = (2, 3, 4, 5, 2)[:rank]

    def run(lib, f, x):
        y = x.contiguous(memory_format=f[fmt] if fmt else None)
        return (y.stride(), y is x, y.is_contiguous(),
                y.is_contiguous(memory_format=lib.channels_last),
                y.is_contiguous(memory_format=lib.channels_last_3d))
    p, t = pair(shape)
    got, want = call_both(lambda lib, f: run(lib, f, p if lib is pyad else t))
    assert got == want


def test_channels_last_round_trip_and_elementwise_ops_keep_it():
    p, t = pair()
    pc = p.contiguous(memory_format=pyad.channels_last)
    tc = t.contiguous(memory_format=torch.channels_last)
    assert pc.stride() == tc.stride() == (60, 1, 15, 3)
    assert not pc.is_contiguous() and pc.is_contiguous(memory_format=pyad.channels_last)
    assert pc.contiguous(memory_format=pyad.channels_last) is pc
    assert (pc + 1).stride() == (tc + 1).stride()
    assert (pc * pc).sin().stride() == (tc * tc).sin().stride()
    back = pc.contiguous()
    assert back.stride() == tc.contiguous().stride() and back is not pc
    assert numpy.array_equal(back.numpy(), p.numpy())
    # a dimension of size 1 is ambiguous: both formats hold, as torch
    q, u = pair((2, 1, 4, 5))
    assert (q.is_contiguous(memory_format=pyad.channels_last)
            == u.is_contiguous(memory_format=torch.channels_last))


def test_errors_as_torch():
    p = pyad.ones(2, 3)
    with pytest.raises(RuntimeError, match="required rank 4 Variable to use channels_last"):
        p.contiguous(memory_format=pyad.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4"):
        p.to(memory_format=pyad.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4"):
        p.clone(memory_format=pyad.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 Variable to use channels_last_3d"):
        pyad.ones(*SHAPE).to(memory_format=pyad.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        p.t().contiguous(memory_format=pyad.preserve_format)
    with pytest.raises(TypeError, match="must be pyad.memory_format, not NoneType"):
        p.contiguous(memory_format=None)
    with pytest.raises(TypeError, match="must be pyad.memory_format, not int"):
        p.is_contiguous(memory_format=1)
    with pytest.raises(TypeError, match="must be pyad.memory_format, not NoneType"):
        p.is_contiguous(memory_format=None)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        pyad.empty(2, 3, memory_format=pyad.preserve_format)
    with pytest.raises(RuntimeError, match="required rank 4"):
        pyad.rand_like(p, memory_format=pyad.channels_last)
    # the same calls fail on torch
    t = torch.ones(2, 3)
    for call in (lambda: t.contiguous(memory_format=torch.channels_last),
                 lambda: t.t().contiguous(memory_format=torch.preserve_format),
                 lambda: t.contiguous(memory_format=None),
                 lambda: t.is_contiguous(memory_format=None),
                 lambda: torch.empty(2, 3, memory_format=torch.preserve_format)):
        with pytest.raises((RuntimeError, TypeError)):
            call()


def test_none_is_the_default_where_torch_takes_it():
    p, t = pair()
    pt, tt = p.permute(0, 2, 3, 1), t.permute(0, 2, 3, 1)
    assert pt.to(memory_format=None).stride() == tt.to(memory_format=None).stride()
    assert pt.clone(memory_format=None).stride() == tt.clone(memory_format=None).stride()
    assert pt.float(memory_format=None).stride() == tt.float(memory_format=None).stride()
    assert (pyad.empty_like(pt, memory_format=None).stride()
            == torch.empty_like(tt, memory_format=None).stride())
    assert pyad.empty(2, 3, memory_format=None).stride() == (3, 1)


@pytest.mark.parametrize("method", ["float", "double", "half", "long", "int", "byte",
                                    "char", "short", "bool", "cpu", "cfloat", "cdouble"])
def test_conversion_methods_take_memory_format(method):
    p, t = pair()
    got = getattr(p, method)(memory_format=pyad.channels_last)
    want = getattr(t, method)(memory_format=torch.channels_last)
    assert got.stride() == want.stride()
    assert numpy.array_equal(got.numpy(), want.numpy())
    assert ((getattr(p, method)(memory_format=pyad.preserve_format) is p)
            == (getattr(t, method)(memory_format=torch.preserve_format) is t))


def test_to_records_and_returns_self_as_torch():
    p, t = pair(requires_grad=True)
    for lib, x in ((pyad, p), (torch, t)):
        assert x.to(memory_format=lib.contiguous_format) is x
        assert x.to(memory_format=lib.preserve_format) is x
        assert x.contiguous(memory_format=lib.contiguous_format) is x
    names = []
    for lib, x in ((pyad, p), (torch, t)):
        names.append((type(x.contiguous(memory_format=lib.channels_last).grad_fn).__name__,
                      type(x.to(memory_format=lib.channels_last).grad_fn).__name__,
                      type(x.to(lib.float32, memory_format=lib.channels_last).grad_fn).__name__,
                      type(x.clone(memory_format=lib.channels_last).grad_fn).__name__))
    assert [n.rstrip("0") for n in names[1]] == list(names[0])
    assert (p.to(pyad.float32, memory_format=pyad.channels_last).stride()
            == t.to(torch.float32, memory_format=torch.channels_last).stride())


@pytest.mark.parametrize("make", [
    lambda x: x.contiguous(memory_format=pyad.channels_last),
    lambda x: x.clone(memory_format=pyad.channels_last),
    lambda x: x.to(memory_format=pyad.channels_last),
    lambda x: x.permute(0, 2, 3, 1).clone(),
    lambda x: x.permute(0, 2, 3, 1).contiguous(),
    lambda x: x.permute(0, 2, 3, 1).contiguous(memory_format=pyad.channels_last),
])
def test_gradients_through_layout_copies(make):
    x = pyad.randn(*SHAPE, dtype=pyad.float64, requires_grad=True)
    w = pyad.randn(*make(x.detach()).shape, dtype=pyad.float64)
    assert gradcheck(lambda v: (make(v) * w).sin(), (x,))
    assert gradgradcheck(lambda v: (make(v) * w).sin(), (x,))


def test_gradient_matches_torch_through_a_channels_last_conv():
    values = numpy.random.default_rng(1).standard_normal(SHAPE)
    weight = numpy.random.default_rng(2).standard_normal((4, 3, 3, 3))
    grads = []
    for lib in (pyad, torch):
        x = lib.tensor(values, requires_grad=True)
        w = lib.tensor(weight)
        y = lib.nn.functional.conv2d(x.contiguous(memory_format=lib.channels_last), w,
                                     padding=1)
        (y.sin() * y).sum().backward()
        grads.append(x.grad.detach().numpy() if lib is torch else x.grad.numpy())
    numpy.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


def test_the_like_factories_and_empty_as_torch():
    p, t = pair()
    pc, tc = p.permute(0, 2, 3, 1), t.permute(0, 2, 3, 1)
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"):
        for fmt in ("contiguous", "channels_last", "preserve"):
            got = getattr(pyad, name)(p, memory_format=formats_of(pyad)[fmt])
            want = getattr(torch, name)(t, memory_format=formats_of(torch)[fmt])
            assert got.stride() == want.stride(), (name, fmt)
        assert getattr(pyad, name)(pc).stride() == getattr(torch, name)(tc).stride()
    assert (pyad.full_like(pc, 2.0).stride() == torch.full_like(tc, 2.0).stride())
    assert (pyad.full_like(p, 2.0, memory_format=pyad.channels_last).stride()
            == torch.full_like(t, 2.0, memory_format=torch.channels_last).stride())
    assert (pyad.randint_like(pc, 5).stride() == torch.randint_like(tc, 5).stride())
    assert (pyad.zeros_like(p, memory_format=pyad.channels_last).numpy() == 0).all()
    assert (pyad.full_like(p, 2.0, memory_format=pyad.channels_last).numpy() == 2).all()
    assert (pyad.empty(*SHAPE, memory_format=pyad.channels_last).stride()
            == torch.empty(*SHAPE, memory_format=torch.channels_last).stride())
    assert pyad.zeros_like(p, requires_grad=True,
                           memory_format=pyad.channels_last).requires_grad


def test_resize_with_channels_last_as_torch():
    p, t = pair((6, 20))
    p.resize_(*SHAPE, memory_format=pyad.channels_last)
    t.resize_(*SHAPE, memory_format=torch.channels_last)
    assert p.stride() == t.stride()
    assert numpy.array_equal(p.numpy(), t.numpy())


def test_module_to_channels_last_as_torch():
    for lib in (pyad, torch):
        lib.manual_seed(0)
    pconv, tconv = pyad.nn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)
    plin, tlin = pyad.nn.Linear(3, 4), torch.nn.Linear(3, 4)
    weight = pconv.weight
    pconv.to(memory_format=pyad.channels_last)
    tconv.to(memory_format=torch.channels_last)
    assert pconv.weight is weight          # the same Parameter, its data relaid
    assert pconv.weight.stride() == tconv.weight.stride()
    plin.to(memory_format=pyad.channels_last)
    tlin.to(memory_format=torch.channels_last)
    assert plin.weight.stride() == tlin.weight.stride()
    assert pconv.to(memory_format=None) is pconv


def test_resize_to_the_same_size_keeps_strides_unless_a_format_is_given():
    p, t = pair((2, 3))
    p, t = p.t(), t.t()
    version = p._version
    p.resize_(3, 2)
    t.resize_(3, 2)
    assert p.stride() == t.stride() == (1, 3) and p._version == version
    p.resize_(3, 2, memory_format=pyad.contiguous_format)
    t.resize_(3, 2, memory_format=torch.contiguous_format)
    assert p.stride() == t.stride()


def _channels_last_input(lib, shape=SHAPE, seed=3):
    values = numpy.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(values).contiguous(memory_format=lib.channels_last)


@pytest.mark.parametrize("name", ["adaptive_avg_pool2d", "pad", "pad_reflect", "group_norm",
                                  "batch_norm", "layer_norm", "pixel_shuffle",
                                  "pixel_unshuffle", "conv_transpose2d",
                                  "conv_transpose2d_padded"])
def test_more_ops_keep_torchs_layout_of_a_channels_last_input(name):
    weight = numpy.random.default_rng(4).standard_normal((3, 2, 3, 3))

    def run(lib):
        F = lib.nn.functional
        shape = {"pixel_shuffle": (2, 12, 4, 6), "pixel_unshuffle": (2, 3, 4, 6)}.get(name,
                                                                                  SHAPE)
        x = _channels_last_input(lib, shape).requires_grad_(True)
        y = {"adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(x, (2, 3)),
             "pad": lambda: F.pad(x, (1, 2, 0, 1)),
             "pad_reflect": lambda: F.pad(x, (1, 1, 1, 1), mode="reflect"),
             "group_norm": lambda: F.group_norm(x, 3),
             "batch_norm": lambda: F.batch_norm(x, None, None, training=True),
             "layer_norm": lambda: F.layer_norm(x, (5,)),
             "pixel_shuffle": lambda: F.pixel_shuffle(x, 2),
             "pixel_unshuffle": lambda: F.pixel_unshuffle(x, 2),
             "conv_transpose2d": lambda: F.conv_transpose2d(x, lib.tensor(weight)),
             "conv_transpose2d_padded": lambda: F.conv_transpose2d(x, lib.tensor(weight),
                                                                   padding=1),
             }[name]()
        (y * y).sum().backward()
        grad = x.grad.numpy() if lib is pyad else x.grad.detach().numpy()
        return tuple(y.shape), y.stride(), y.detach().numpy(), grad

    got, want = run(pyad), run(torch)
    assert got[:2] == want[:2]
    numpy.testing.assert_allclose(got[2], want[2], rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(got[3], want[3], rtol=1e-10, atol=1e-12)

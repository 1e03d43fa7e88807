"""Variable.resize_ / resize_as_ (torch's in-place resizing) and the deprecated
non-in-place resize / resize_as, compared with torch on the same inputs."""
import numpy as np
import pytest

import pyad


def _both(scenario):
    torch = pytest.importorskip("torch")
    ours, theirs = scenario(pyad), scenario(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if hasattr(b, "detach"):
            np.testing.assert_array_equal(np.asarray(a.detach().data), b.detach().numpy())
        elif isinstance(b, tuple):          # a shape (torch.Size is a tuple)
            assert tuple(a) == tuple(b), (a, b)
        else:
            assert a == b, (a, b)


@pytest.mark.parametrize("sizes", [(3, 2), ((3, 2),), ([6],), (2,), (1, 1, 4), ((),), (0,)],
                         ids=["ints", "tuple", "list", "shrink", "3d", "0-d", "empty"])
def test_resize_keeps_the_leading_elements_and_bumps_the_version(sizes):
    def scenario(lib):
        x = lib.arange(6.0).reshape(2, 3)
        before = x._version
        y = x.resize_(*sizes)
        return (y is x, tuple(x.shape), x._version - before,
                x.reshape(-1)[:min(x.numel(), 6)])
    _both(scenario)


def test_a_shrunk_variable_grows_back_over_its_old_elements_as_torch():
    def scenario(lib):
        x = lib.arange(6.0)
        x.resize_(2)
        x.resize_(5)
        return (x,)
    _both(scenario)


def test_resize_reads_a_transposed_variable_in_memory_order_as_torch():
    def scenario(lib):
        x = lib.arange(6.0).reshape(2, 3).t()
        x.resize_(6)
        return (x,)
    _both(scenario)


def test_resize_as_takes_the_other_shape():
    def scenario(lib):
        x = lib.arange(4.0)
        x.resize_as_(lib.zeros(2, 2))
        return (x,)
    _both(scenario)


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(2, requires_grad=True),
    lambda lib: lib.ones(2, requires_grad=True) * 2,
    lambda lib: lib.ones(4, requires_grad=True)[:2],
], ids=["leaf", "non-leaf", "view"])
def test_resizing_a_variable_that_requires_grad_is_refused_as_torch(make):
    torch = pytest.importorskip("torch")
    for lib in (pyad, torch):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            make(lib).resize_(3)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            make(lib).resize_as_(lib.ones(3))
        made = make(lib)
        with lib.no_grad():
            with pytest.raises(RuntimeError, match="cannot resize variables that require"):
                made.resize_(3)


def test_a_detached_variable_may_be_resized_as_in_torch_2_13():
    x = pyad.ones(2, requires_grad=True)
    d = x.detach()
    d.resize_(3)
    assert d.shape == (3,) and x.shape == (2,)


def test_resize_checks_its_sizes():
    with pytest.raises(TypeError, match=r"resize_\(\)"):
        pyad.ones(3).resize_(2.5)
    with pytest.raises(RuntimeError, match=r"resize_\(\).*negative"):
        pyad.ones(3).resize_(-1)
    with pytest.raises(RuntimeError, match=r"resize_\(\).*overflow"):
        pyad.ones(3).resize_(2 ** 40, 2 ** 40)


def test_deprecated_resize_is_a_differentiable_reshape_with_torchs_warning():
    x = pyad.arange(6.0, requires_grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        y = x.resize(2, 3)
    (y * pyad.arange(6.0).reshape(2, 3)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.arange(6.0))
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert x.resize_as(pyad.ones(3, 2)).shape == (3, 2)
    with pytest.warns(UserWarning):
        with pytest.raises(RuntimeError, match="can only change the shape"):
            x.resize(4)

"""pyad.random: torch.random's functions over pyad's default generator, and fork_rng."""
import inspect

import numpy as np
import pytest

import pyad
import pyad.random

torch = pytest.importorskip("torch")


def test_the_names_and_signatures_are_torchs():
    for name in ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
                 "fork_rng", "thread_safe_generator"]:
        ours = inspect.signature(getattr(pyad.random, name))
        theirs = inspect.signature(getattr(torch.random, name))
        assert list(ours.parameters) == list(theirs.parameters), name
    assert pyad.random.default_generator is pyad.default_generator
    assert pyad.random.manual_seed is pyad.manual_seed


def test_manual_seed_returns_the_default_generator_and_sets_initial_seed():
    for seed in [0, 7, -1, 2 ** 64 - 1]:
        g = pyad.random.manual_seed(seed)
        assert g is pyad.default_generator
        assert pyad.random.initial_seed() == torch.random.manual_seed(seed).initial_seed()
    with pytest.raises(ValueError):
        pyad.random.manual_seed(2 ** 64)
    with pytest.raises(ValueError):
        torch.random.manual_seed(2 ** 64)
    torch.random.seed()


def test_manual_seed_makes_draws_reproducible():
    pyad.random.manual_seed(3)
    a = pyad.randn(5)
    pyad.random.manual_seed(3)
    assert (pyad.randn(5) == a).all()


def test_seed_returns_a_fresh_64_bit_seed():
    s = pyad.random.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 64 and pyad.random.initial_seed() == s
    assert pyad.random.seed() != s


def test_get_and_set_rng_state_round_trip():
    state = pyad.random.get_rng_state()
    assert state.dtype == np.uint8 and state.ndim == 1
    a = pyad.rand(4)
    pyad.random.set_rng_state(state)
    assert (pyad.rand(4) == a).all()


@pytest.mark.parametrize("lib", ["pyad", "torch"])
def test_fork_rng_restores_the_state_after_the_block(lib):
    mod = pyad if lib == "pyad" else torch
    mod.random.manual_seed(5)
    with mod.random.fork_rng():
        inside = mod.rand(3)
    after = mod.rand(3)
    assert (inside == after).all()
    # and after an exception too
    mod.random.manual_seed(5)
    with pytest.raises(KeyError):
        with mod.random.fork_rng():
            mod.rand(3)
            raise KeyError
    assert (mod.rand(3) == after).all()


@pytest.mark.parametrize("lib", ["pyad", "torch"])
def test_fork_rng_disabled_or_meta_does_not_fork(lib):
    mod = pyad if lib == "pyad" else torch
    for kwargs in [dict(enabled=False), dict(device_type="meta")]:
        mod.random.manual_seed(5)
        first = mod.rand(3)
        mod.random.manual_seed(5)
        with mod.random.fork_rng(**kwargs):
            mod.rand(3)
        assert not (mod.rand(3) == first).all()


def test_fork_rng_with_an_unknown_device_type_raises_as_torch():
    with pytest.raises(RuntimeError):
        with torch.random.fork_rng(device_type="nosuchdevice"):
            pass
    with pytest.raises(RuntimeError, match="fork_rng"):
        with pyad.random.fork_rng(device_type="nosuchdevice"):
            pass


def test_fork_rng_of_a_missing_gpu_raises_as_torch():
    if torch.cuda.is_available() or pyad.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises((AssertionError, RuntimeError)):   # CPU build: AssertionError
        with torch.random.fork_rng(devices=[0]):
            pass
    with pytest.raises(RuntimeError, match="get_rng_state"):
        with pyad.random.fork_rng(devices=[0]):
            pass


def test_thread_safe_generator_is_none_outside_thread_workers():
    assert pyad.random.thread_safe_generator() is None
    assert torch.random.thread_safe_generator() is None

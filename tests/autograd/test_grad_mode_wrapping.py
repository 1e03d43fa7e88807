"""Grad-mode decorators on generators, coroutines and async generators (torch's
``_wrap_generator``): the decorator's mode holds only while the wrapped code runs."""
import asyncio
import warnings

import pytest

import pyad

try:
    import torch
except ImportError:  # the torch comparisons skip; the exact expectations still run
    torch = None

DECORATORS = {
    "no_grad": (lambda m: m.no_grad(), False),
    "no_grad_bare": (lambda m: m.no_grad, False),
    "enable_grad": (lambda m: m.enable_grad(), True),
    "set_grad_enabled_false": (lambda m: m.set_grad_enabled(False), False),
    "set_grad_enabled_true": (lambda m: m.set_grad_enabled(True), True),
}


def _generator_trace(mod, make_decorator):
    """Modes seen by the generator's code and by its caller around each step."""
    seen = []

    @make_decorator(mod)
    def gen():
        seen.append(("gen", mod.is_grad_enabled()))
        received = yield 1
        seen.append(("gen", mod.is_grad_enabled(), received))
        yield 2
        seen.append(("gen", mod.is_grad_enabled()))
        return "done"

    for caller_mode in (True, False):
        with mod.set_grad_enabled(caller_mode):
            g = gen()
            seen.append(("caller", mod.is_grad_enabled()))
            assert next(g) == 1
            seen.append(("caller", mod.is_grad_enabled()))
            assert g.send("hello") == 2
            seen.append(("caller", mod.is_grad_enabled()))
            with pytest.raises(StopIteration) as stop:
                next(g)
            seen.append(("caller", mod.is_grad_enabled(), stop.value.value))
    seen.append(("after", mod.is_grad_enabled()))
    return seen


@pytest.mark.parametrize("name", list(DECORATORS))
def test_generator_mode_only_inside_generator_code(name):
    make, mode = DECORATORS[name]
    expected = []
    for caller in (True, False):
        expected += [("caller", caller), ("gen", mode), ("caller", caller),
                     ("gen", mode, "hello"), ("caller", caller), ("gen", mode),
                     ("caller", caller, "done")]
    expected.append(("after", True))
    assert _generator_trace(pyad, make) == expected


@pytest.mark.parametrize("name", list(DECORATORS))
def test_generator_mode_matches_torch(name):
    if torch is None:
        pytest.skip("torch not installed")
    make, _ = DECORATORS[name]
    assert _generator_trace(pyad, make) == _generator_trace(torch, make)


def test_issue_example_list_comprehension_sees_callers_mode():
    @pyad.no_grad()
    def gen():
        yield 1

    with pyad.enable_grad():
        assert [pyad.is_grad_enabled() for _ in gen()] == [True]


def _throw_close_trace(mod):
    seen = []

    @mod.no_grad()
    def gen():
        while True:
            try:
                yield 1
            except ValueError as exc:
                seen.append(("caught", str(exc), mod.is_grad_enabled()))
            except GeneratorExit:
                seen.append(("closing", mod.is_grad_enabled()))
                raise

    with mod.enable_grad():
        g = gen()
        next(g)
        assert g.throw(ValueError("boom")) == 1
        seen.append(("caller", mod.is_grad_enabled()))
        g.close()
        seen.append(("caller", mod.is_grad_enabled()))
    return seen


def test_throw_and_close_reach_the_generator_under_its_mode():
    assert _throw_close_trace(pyad) == [("caught", "boom", False), ("caller", True),
                                        ("closing", False), ("caller", True)]
    if torch is not None:
        assert _throw_close_trace(pyad) == _throw_close_trace(torch)


def test_exception_raised_by_generator_propagates_and_restores_mode():
    @pyad.no_grad()
    def gen():
        yield 1
        raise KeyError("inside")

    g = gen()
    next(g)
    with pytest.raises(KeyError, match="inside"):
        next(g)
    assert pyad.is_grad_enabled()


def test_coroutine_mode_only_inside_coroutine_code():
    seen = []

    @pyad.no_grad()
    async def work(x):
        seen.append(("start", pyad.is_grad_enabled()))
        await asyncio.sleep(0)
        seen.append(("resumed", pyad.is_grad_enabled()))
        return x * 2

    async def other():
        seen.append(("other", pyad.is_grad_enabled()))

    async def main():
        return await asyncio.gather(work(21), other())

    assert asyncio.iscoroutinefunction(work)
    assert work.__name__ == "work"
    assert asyncio.run(main()) == [42, None]
    assert seen == [("start", False), ("other", True), ("resumed", False)]
    assert pyad.is_grad_enabled()


def test_coroutine_exception_propagates_under_mode():
    seen = []

    @pyad.no_grad()
    async def work():
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append(pyad.is_grad_enabled())
            raise

    async def main():
        task = asyncio.ensure_future(work())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen == [False]
    assert pyad.is_grad_enabled()


def test_async_generator_mode_only_inside_its_code():
    seen = []

    @pyad.no_grad()
    async def agen():
        seen.append(("gen", pyad.is_grad_enabled()))
        received = yield 1
        await asyncio.sleep(0)
        seen.append(("gen", pyad.is_grad_enabled(), received))
        try:
            yield 2
        except ValueError:
            seen.append(("caught", pyad.is_grad_enabled()))
            yield 3
        finally:
            seen.append(("finally", pyad.is_grad_enabled()))

    async def main():
        g = agen()
        assert await g.asend(None) == 1
        seen.append(("caller", pyad.is_grad_enabled()))
        assert await g.asend("hi") == 2
        seen.append(("caller", pyad.is_grad_enabled()))
        assert await g.athrow(ValueError("x")) == 3
        seen.append(("caller", pyad.is_grad_enabled()))
        await g.aclose()
        seen.append(("caller", pyad.is_grad_enabled()))
        return [v async for v in agen()]

    assert asyncio.run(main()) == [1, 2]
    assert seen[:8] == [("gen", False), ("caller", True), ("gen", False, "hi"),
                        ("caller", True), ("caught", False), ("caller", True),
                        ("finally", False), ("caller", True)]


def test_decorating_a_class_warns_and_wraps_the_constructor():
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
        @pyad.no_grad()
        class Model:
            def __init__(self):
                self.mode = pyad.is_grad_enabled()

    assert Model().mode is False
    assert pyad.is_grad_enabled()
    if torch is not None:
        with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
            torch.no_grad()(type("M", (), {}))


def test_plain_function_decorator_unchanged():
    @pyad.set_grad_enabled(False)
    def f():
        return pyad.is_grad_enabled()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f() is False
    assert pyad.is_grad_enabled()


# -- the context managers' C entry points (no_grad/enable_grad __new__, __enter__,
#    __exit__ live in the engine) ----------------------------------------------------

@pytest.mark.parametrize("lib", ["pyad", "torch"])
def test_a_with_block_binds_none_and_one_instance_can_be_entered_again(lib):
    # (nesting and per-thread modes: tests/test_engine.py)
    if lib == "torch" and torch is None:
        pytest.skip("torch not installed")
    mod = pyad if lib == "pyad" else torch
    block = mod.no_grad()
    seen = []
    for _ in range(2):
        with block as bound:
            seen.append((bound, mod.is_grad_enabled()))
        seen.append(mod.is_grad_enabled())
    assert seen == [(None, False), True, (None, False), True]


def test_grad_mode_constructors_take_torchs_arguments():
    assert isinstance(pyad.no_grad(None), pyad.no_grad)       # orig_func=None
    assert isinstance(pyad.enable_grad(), pyad.enable_grad)
    with pytest.raises(TypeError):
        pyad.no_grad(None, None)
    if torch is not None:
        with pytest.raises(TypeError):
            torch.no_grad(None, None)


def test_a_user_subclass_of_no_grad_keeps_every_form():
    calls = []

    class CountingNoGrad(pyad.no_grad):
        def __enter__(self):
            calls.append("enter")
            return super().__enter__()

    with CountingNoGrad():
        assert not pyad.is_grad_enabled()
    assert pyad.is_grad_enabled()

    @CountingNoGrad
    def bare():
        return pyad.is_grad_enabled()

    @CountingNoGrad()
    def called():
        return pyad.is_grad_enabled()

    assert bare() is False and called() is False
    assert pyad.is_grad_enabled()
    assert calls == ["enter"] * 3

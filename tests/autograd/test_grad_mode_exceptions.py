"""Grad mode after an exception: every grad-mode switch (no_grad, enable_grad,
set_grad_enabled, inference_mode; as a with block, a decorated function or a decorated
generator) restores the mode when its block raises, or when a backward inside it
raises, from either outer mode; as in torch.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad._engine import _set_grad_enabled
from _torch_compare import torch, torch_or_skip


# -- a test that leaks the mode must not fail the tests after it -----------------------

@pytest.fixture(autouse=True)
def _grad_mode_enabled_around_each_test():
    # A test that leaves grad mode off (one that catches a leak of the mode) must not
    # make the tests after it fail too.
    _set_grad_enabled(True)
    yield
    _set_grad_enabled(True)


# -- switches, failures, and the mode after each ---------------------------------------

SWITCHES = {
    "no_grad": (lambda: pyad.no_grad(), False),
    "no_grad_bare": (lambda: pyad.no_grad, False),          # @pyad.no_grad (decorator)
    "enable_grad": (lambda: pyad.enable_grad(), True),
    "enable_grad_bare": (lambda: pyad.enable_grad, True),
    "set_grad_enabled_False": (lambda: pyad.set_grad_enabled(False), False),
    "set_grad_enabled_True": (lambda: pyad.set_grad_enabled(True), True),
    "autograd.no_grad": (lambda: pyad.autograd.no_grad(), False),
    "autograd.set_grad_enabled_False": (lambda: pyad.autograd.set_grad_enabled(False),
                                        False),
}


class Boom(Exception):
    pass


class _RaisingBackward(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        raise Boom("backward failed")


class _RaisingForward(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):                    # runs with grad mode off
        raise Boom("forward failed")

    @staticmethod
    def backward(ctx, g):
        return g


class _RaisingOnceDifferentiable(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    @pyad.autograd.once_differentiable       # runs with grad mode off
    def backward(ctx, g):
        raise Boom("backward failed")


def _leaf():
    return Variable(np.array([1.0, 2.0, 3.0]), requires_grad=True)


def _graph_freed():
    y = (_leaf() * _leaf()).sum()
    y.backward()
    return lambda: y.backward()             # second backward: RuntimeError


def _graph_with_raising_hook(create_graph=False):
    x = _leaf()
    h = x * x

    def hook(g):
        raise Boom("hook failed")
    h.register_hook(hook)
    y = h.sum()
    return lambda: y.backward(create_graph=create_graph)


def _graph_with_raising_function():
    y = _RaisingBackward.apply(_leaf()).sum()
    return lambda: y.backward()


def _graph_with_modified_saved_value():
    h = _leaf() * 1.0
    y = (h * h).sum()
    with pyad.no_grad():
        h.add_(1.0)
    return lambda: y.backward()


def _grad_with_raising_hook():
    x = _leaf()
    h = pyad.exp(x)

    def hook(g):
        raise Boom("hook failed")
    h.register_hook(hook)
    y = h.sum()
    return lambda: pyad.grad(y, x, create_graph=True)


def _grad_of_unused_input():
    x, unused = _leaf(), _leaf()
    y = (x * x).sum()
    return lambda: pyad.grad(y, [x, unused])


def _function_forward_raises():
    x = _leaf()
    return lambda: _RaisingForward.apply(x)


def _once_differentiable_backward_raises():
    y = _RaisingOnceDifferentiable.apply(_leaf()).sum()
    return lambda: y.backward(create_graph=True)


def _gradcheck_of_a_raising_function():
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) > 1:                  # in gradcheck's finite differences
            raise Boom("evaluation failed")
        return x * x
    x = _leaf()
    return lambda: pyad.autograd.gradcheck(f, (x,))


def _raise_in_block():
    def run():
        raise Boom("in the block")
    return run


FAILURES = {
    "raise_in_block": (_raise_in_block, Boom),
    "backward_twice": (_graph_freed, RuntimeError),
    "hook_raises": (_graph_with_raising_hook, Boom),
    "hook_raises_create_graph": (lambda: _graph_with_raising_hook(True), Boom),
    "function_backward_raises": (_graph_with_raising_function, Boom),
    "saved_value_modified": (_graph_with_modified_saved_value, RuntimeError),
    "grad_create_graph_hook_raises": (_grad_with_raising_hook, Boom),
    "grad_unused_input": (_grad_of_unused_input, RuntimeError),
    "function_forward_raises": (_function_forward_raises, Boom),
    "once_differentiable_backward_raises": (_once_differentiable_backward_raises, Boom),
    "gradcheck_raises": (_gradcheck_of_a_raising_function, Boom),
}


@pytest.fixture(params=[True, False], ids=["outer_enabled", "outer_disabled"])
def outer_mode(request):
    previous = _set_grad_enabled(request.param)
    try:
        yield request.param
    finally:
        _set_grad_enabled(previous)


def _check_failure_inside(failing, exc_type, block_mode):
    with pytest.raises(exc_type):
        failing()
    # a backward that raised left the mode as it found it
    assert pyad.is_grad_enabled() == block_mode
    raise Boom("leaving the block")


WITH_SWITCHES = [name for name in SWITCHES if not name.endswith("_bare")]


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("switch", WITH_SWITCHES)
def test_grad_mode_is_restored_after_an_exception_in_a_with_block(switch, failure,
                                                                   outer_mode):
    make, block_mode = SWITCHES[switch]
    build, exc_type = FAILURES[failure]
    with pyad.enable_grad():
        failing = build()
    assert pyad.is_grad_enabled() == outer_mode
    with pytest.raises(Boom, match="leaving the block"):
        with make():
            assert pyad.is_grad_enabled() == block_mode
            _check_failure_inside(failing, exc_type, block_mode)
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("switch", list(SWITCHES))
def test_grad_mode_is_restored_after_an_exception_in_a_decorated_function(switch, failure,
                                                                          outer_mode):
    make, block_mode = SWITCHES[switch]
    build, exc_type = FAILURES[failure]
    with pyad.enable_grad():
        failing = build()

    @make()
    def f():
        assert pyad.is_grad_enabled() == block_mode
        _check_failure_inside(failing, exc_type, block_mode)

    assert pyad.is_grad_enabled() == outer_mode       # decorating switches nothing
    with pytest.raises(Boom, match="leaving the block"):
        f()
    assert pyad.is_grad_enabled() == outer_mode
    with pytest.raises(Boom, match="leaving the block"):
        f()                                            # and again: nothing was stuck
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_grad_mode_is_restored_after_an_exception_in_a_decorated_generator(switch,
                                                                           outer_mode):
    make, block_mode = SWITCHES[switch]
    with pyad.enable_grad():
        failing = _graph_with_raising_hook()

    @make()
    def gen():
        assert pyad.is_grad_enabled() == block_mode
        yield 1
        assert pyad.is_grad_enabled() == block_mode
        _check_failure_inside(failing, Boom, block_mode)
        yield 2

    g = gen()
    assert next(g) == 1
    assert pyad.is_grad_enabled() == outer_mode       # between steps: the caller's mode
    with pytest.raises(Boom, match="leaving the block"):
        next(g)
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_decorated_generator_gets_thrown_exceptions_in_its_mode(switch, outer_mode):
    make, block_mode = SWITCHES[switch]
    seen = []

    @make()
    def gen():
        try:
            yield 1
        except Boom:
            seen.append(pyad.is_grad_enabled())
            yield 2
        finally:
            seen.append(pyad.is_grad_enabled())

    g = gen()
    assert next(g) == 1
    assert g.throw(Boom()) == 2
    assert pyad.is_grad_enabled() == outer_mode
    g.close()
    assert seen == [block_mode, block_mode]
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("failure", list(FAILURES))
def test_grad_mode_is_restored_after_a_raising_backward_outside_any_switch(failure,
                                                                         outer_mode):
    build, exc_type = FAILURES[failure]
    with pyad.enable_grad():
        failing = build()
    with pytest.raises(exc_type):
        failing()
    assert pyad.is_grad_enabled() == outer_mode


def test_grad_mode_restored_after_exception_matches_torch():
    torch = torch_or_skip()
    for L in (pyad, torch):
        for make, outer in ((lambda: L.no_grad(), True), (lambda: L.enable_grad(), False),
                            (lambda: L.set_grad_enabled(False), True),
                            (lambda: L.set_grad_enabled(True), False)):
            with L.set_grad_enabled(outer):
                with pytest.raises(Boom):
                    with make():
                        raise Boom
                assert L.is_grad_enabled() == outer

"""PyTorch's own inference-mode tests (``test/test_autograd.py``, class
``TestAutogradInferenceMode``), translated to pyad.

Each test keeps torch's name and the meaning of its assertions; ``torch.is_inference(t)``
is ``pyad.is_inference(v)`` (and ``v.is_inference()``), ``torch.ones`` is ``pyad.ones``.
Expected values and messages come from torch's test and torch 2.13, never from pyad's
output. Left out of the ports: torch's ``out=`` arguments (pyad's ops take none) and
the in-place view ops (``transpose_``, pyad has no in-place view ops); each test runs
its other cases (``add_``, ``copy_``).
"""
from itertools import product

import pytest

import pyad

from _ported_helpers import double_default_dtype  # noqa: F401


def _is_inference_tensor(v):
    # torch's helper: an inference Variable refuses its version counter
    try:
        v._version
    except RuntimeError as exc:
        assert "Inference tensors do not track version counter" in str(exc)
        return True
    return False


def test_inference_mode_context_manager():
    assert not pyad.is_inference_mode_enabled()
    with pyad.inference_mode():
        assert pyad.is_inference_mode_enabled()
        with pyad.inference_mode(False):
            assert not pyad.is_inference_mode_enabled()
        assert pyad.is_inference_mode_enabled()
    assert not pyad.is_inference_mode_enabled()


def test_inference_mode_decorator():
    def func(x):
        assert pyad.is_inference_mode_enabled() == mode
        return x * x

    for mode, use_kwarg in product((True, False, None), (True, False)):
        if mode is None:
            if use_kwarg:
                decorated = pyad.inference_mode(mode=func)
            else:
                decorated = pyad.inference_mode(func)
            mode = True
        else:
            if use_kwarg:
                decorated = pyad.inference_mode(mode=mode)(func)
            else:
                decorated = pyad.inference_mode(mode)(func)

        for requires_grad in (True, False):
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)
            d = decorated(c)
            assert not mode or pyad.is_inference(d)
            assert d.requires_grad == (requires_grad and not mode)


def test_inference_mode_tensor_creation():
    with pyad.inference_mode():
        # new Variables created through constructors are inference Variables
        c = pyad.ones(1, 2, 3)
        assert not c.requires_grad
        assert pyad.is_inference(c)

        # requires_grad doesn't change inference Variable behavior in InferenceMode
        tmp = pyad.ones(1, 2, 3, requires_grad=True)
        assert tmp.requires_grad
        assert pyad.is_inference(tmp)

        tmp = pyad.ones(1, 2, 3).requires_grad_(False)
        assert not tmp.requires_grad
        assert pyad.is_inference(tmp)


def test_inference_mode_existing_autograd_session():
    s = pyad.ones(1, 2, 3, requires_grad=True)
    a = s.clone()

    # `a` gets saved outside of inference mode
    out = a * a
    with pyad.inference_mode():
        a.add_(2)

    assert not pyad.is_inference(a)
    # Variables created outside of inference mode aren't inference Variables, so
    # their version counters are still tracked
    err_msg = ("one of the variables needed for gradient computation has been "
               "modified by an inplace operation")
    with pytest.raises(RuntimeError, match=err_msg):
        out.backward(pyad.ones_like(out))


def test_inference_mode_inf_tensor_in_inf_mode_functional_op():
    def functional_op(x):
        return x * x

    with pyad.inference_mode():
        for requires_grad in (True, False):
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

            # a non-view operation makes an inference Variable that does not require grad
            func_out = functional_op(c)
            assert pyad.is_inference(func_out)
            assert not func_out.requires_grad


def test_inference_mode_inf_tensor_in_inf_mode_inplace_op():
    @pyad.inference_mode()
    def run_test(fn):
        for requires_grad in (True, False):
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

            # after an in-place operation it is still an inference Variable
            fn(c)
            assert pyad.is_inference(c)
            assert c.requires_grad == requires_grad

    run_test(lambda x: x.add_(2))
    run_test(lambda x: x.copy_(pyad.ones(1, 2, 3)))


def test_inference_mode_inf_tensor_in_inf_mode_view_op():
    with pyad.inference_mode():
        for requires_grad in (True, False):
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

            # a view operation makes an inference Variable that does not require grad
            view_out = c.view(-1)
            assert pyad.is_inference(view_out)
            assert not view_out.requires_grad


def test_inference_mode_inf_tensor_in_normal_mode_functional_op():
    def functional_op(x):
        return x * x

    for requires_grad in (True, False):
        with pyad.inference_mode():
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

    func_out = functional_op(c)
    assert not pyad.is_inference(func_out)
    assert not func_out.requires_grad
    assert func_out.is_leaf


def test_inference_mode_inf_tensor_in_normal_mode_inplace_op():
    def run_test(fn):
        for requires_grad in (False, True):
            with pyad.inference_mode():
                c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

            if requires_grad:
                # leaf that requires grad used in an in-place op (torch passes here too)
                pass
            else:
                err_msg = "Inplace update to inference tensor outside InferenceMode"
                with pytest.raises(RuntimeError, match=err_msg):
                    fn(c)

    run_test(lambda x: x.add_(2))


def test_inference_mode_inf_tensor_in_normal_mode_view_op():
    for requires_grad in (True, False):
        with pyad.inference_mode():
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

        out = c.view(-1)
        assert pyad.is_inference(out)
        assert not out.requires_grad
        assert not out._is_view()
        assert out.is_leaf


def test_normal_tensor_inplace_output_in_inference_mode():
    def run_test(fn):
        for requires_grad in (True, False):
            s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with pyad.inference_mode():
                fn(a)
                assert not pyad.is_inference(a)
                assert a.requires_grad == requires_grad

                # inplace -> inplace
                fn(a)
                assert not pyad.is_inference(a)
                assert a.requires_grad == requires_grad

                # inplace -> inplace -> view
                view_out = a.view(-1)
                assert not pyad.is_inference(view_out)
                assert view_out.requires_grad == requires_grad

    run_test(lambda x: x.add_(2))


def test_normal_tensor_inplace_output_in_normal_mode():
    def run_test(fn):
        for requires_grad in (True, False):
            s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with pyad.inference_mode():
                fn(a)
                assert not pyad.is_inference(a)
                assert a.requires_grad == requires_grad

            fn(a)
            assert not pyad.is_inference(a)
            assert a.requires_grad == requires_grad

            # inplace -> inplace
            fn(a)
            assert not pyad.is_inference(a)
            assert a.requires_grad == requires_grad

            # inplace -> inplace -> view
            view_out = a.view(-1)
            assert not pyad.is_inference(view_out)
            assert view_out.requires_grad == requires_grad

    run_test(lambda x: x.add_(2))


def test_normal_tensor_view_output_in_inference_mode():
    for requires_grad in (True, False):
        s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()

        with pyad.inference_mode():
            out = a.view(-1)
            assert not pyad.is_inference(out)
            assert out.requires_grad == requires_grad
            assert out._is_view()

            # view -> view
            tmp = out.view(-1)
            assert not pyad.is_inference(tmp)
            assert tmp.requires_grad == requires_grad
            assert tmp._is_view()
            assert tmp.is_leaf

            # view -> view -> inplace
            assert pyad.is_inference_mode_enabled()
            tmp.add_(2)
            assert not pyad.is_inference(tmp)
            assert tmp.requires_grad == requires_grad
            assert a._version == tmp._version


def test_normal_tensor_view_output_in_normal_mode():
    def functional_op(x):
        return x * x

    for requires_grad in (True, False):
        s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()

        with pyad.inference_mode():
            out = a.view(-1)
            assert not pyad.is_inference(out)
            assert out.requires_grad == requires_grad
            assert out._is_view()
            assert out.is_leaf

        tmp = functional_op(out)
        assert not pyad.is_inference(tmp)
        assert tmp.requires_grad == requires_grad

        if requires_grad:
            err_msg = "A view was created in inference mode and is being modified inplace"
            with pytest.raises(RuntimeError, match=err_msg):
                out.add_(2)
        else:
            out.add_(2)

        tmp = out.view(2, 3)
        assert not pyad.is_inference(tmp)
        assert tmp.requires_grad == requires_grad


def test_mix_inference_and_normal_tensor_functional_op():
    for requires_grad in (True, False):
        s = pyad.ones(1, 2, 3, requires_grad=requires_grad)

        with pyad.inference_mode():
            c = pyad.ones(1, 2, 3, requires_grad=requires_grad)

        # add is safe since it doesn't save any variable for backward
        out = c.add(s)
        assert not pyad.is_inference(out)
        assert out.requires_grad == requires_grad
        if requires_grad:
            # a leaf inference Variable with requires_grad=True can still get a gradient
            out.backward(pyad.ones_like(out))
            assert (c.grad.numpy() == 1).all() and c.grad.shape == c.shape

        if requires_grad:
            err_msg = "Inference tensors cannot be saved for backward"
            with pytest.raises(RuntimeError, match=err_msg):
                c * s


def test_mix_inference_and_normal_tensor_inplace_op():
    # torch's test also checks `torch.mul(s, s, out=c)`; pyad's ops take no out=.
    for requires_grad in (True, False):
        s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()

        with pyad.inference_mode():
            c = pyad.ones(1, 2, 3)

        assert pyad.is_inference(c)
        if requires_grad:
            err_msg = "Inference tensors cannot be saved for backward"
            with pytest.raises(RuntimeError, match=err_msg):
                a.mul_(c)
        else:
            a.mul_(c)


def test_mix_inference_and_normal_tensor_view_op():
    for requires_grad in (True, False):
        s = pyad.ones(1, 2, 3, requires_grad=requires_grad)

        with pyad.inference_mode():
            c = pyad.ones(1, 2, 3)

        # view_as calls view with one Variable argument: no mixed inputs
        tmp1 = c.view_as(s)
        assert pyad.is_inference(tmp1)
        assert not tmp1.requires_grad

        # equivalent to s.view(c.shape), not a mixed-input case either
        tmp2 = s.view_as(c)
        assert not pyad.is_inference(tmp2)
        assert tmp2.requires_grad == requires_grad


def test_inference_mode_handle_direct_view_on_rebase():
    def run_test(fn):
        for requires_grad in (True, False):
            s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with pyad.inference_mode():
                view_out = a.view_as(a)

            if requires_grad:
                err_msg = "A view was created in inference mode and is being modified inplace"
                with pytest.raises(RuntimeError, match=err_msg):
                    fn(view_out)
            else:
                fn(view_out)

    run_test(lambda x: x.add_(2))


def test_inference_mode_handle_indirect_view_on_rebase():
    def run_test(fn):
        for requires_grad in (True, False):
            s = pyad.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with pyad.inference_mode():
                view_out = a.view(-1)

            fn(a)
            if requires_grad:
                err_msg = "A view was created in inference mode and its base or another view "
                with pytest.raises(RuntimeError, match=err_msg):
                    view_out.grad_fn
            else:
                view_out.grad_fn

    run_test(lambda x: x.add_(2))


def test_is_inference_helper_matches_method():
    # torch.is_inference(t) is t.is_inference(); both refuse non-Variables
    with pyad.inference_mode():
        c = pyad.ones(2)
    n = pyad.ones(2)
    assert pyad.is_inference(c) and c.is_inference() and _is_inference_tensor(c)
    assert not pyad.is_inference(n) and not n.is_inference()
    assert not _is_inference_tensor(n)
    with pytest.raises(TypeError, match="is_inference"):
        pyad.is_inference([1.0])

"""Extending autograd with custom Functions (``pyad.autograd.Function``).

New style, as torch >= 1.0: static ``forward(ctx, *args)`` / ``backward(ctx, *grads)``
called through ``MyFunction.apply(...)``. ``ctx`` is the backward node itself
(``FunctionCtx``). Backward receives Variables and, under ``create_graph=True``, what
it computes is recorded, so a backward written with pyad ops is differentiable again.
"""
import functools
import inspect
import sys
import warnings

from pyad import _engine

FunctionCtx = _engine.FunctionNode


class BackwardCFunction(_engine.FunctionNode):
    """Base of the per-Function node classes (``<Name>Backward``)."""

    def apply(self, *grads):
        return self(*grads)

    def save_for_forward(self, *tensors):
        """Keep Variables (or None) for the Function's ``jvp``, which reads them back
        with ``ctx.saved_tensors`` (torch's ``ctx.save_for_forward``)."""
        for tensor in tensors:
            if tensor is not None and not isinstance(tensor, _engine.Variable):
                raise TypeError("save_for_forward(): save_for_forward expects all arguments "
                                "to be Variables or None, but got %s" % type(tensor).__name__)
        self._saved_for_forward = tensors


class FunctionMeta(type):
    """Gives every Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(_engine.FunctionNode, metaclass=FunctionMeta):
    """Base class for operations with a user-defined derivative.

    New style: static ``forward(ctx, ...)``/``backward(ctx, ...)`` called through
    ``MyFunction.apply(...)``. Legacy style (the oldest torch API): ``forward(self,
    *arrays)``/``backward(self, *grad_arrays)`` on an instance, called once as
    ``MyFunction()(x)``; the instance is the graph node (see docs/custom-functions.md).

    >>> class Square(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = pyad.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).backward(pyad.ones(1))
    >>> x.grad
    tensor([6.])
    """

    # torch's switch: with True, ``ctx.saved_tensors`` hands the saved Variables over at
    # its first access and releases them (a second access raises RuntimeError)
    clear_saved_tensors_on_access = False

    # torch's switch asking torch.func.vmap to derive a batching rule. pyad's
    # `pyad.func.vmap` runs the function once per sample, so neither this flag nor the
    # `vmap` staticmethod below is ever used; both exist for code written for torch.
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """torch's batching-rule hook for ``torch.func.vmap`` (not called by pyad, whose
        `pyad.func.vmap` loops over the samples)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set "
                                  "generate_vmap_rule=True.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        """Another name for ``backward``: define one of the two."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode derivative: the tangents of the outputs from those of the inputs
        (None for an argument that is not a Variable). Called by
        ``pyad.autograd.forward_ad`` when a dual Variable is an input."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Torch 2 style: with this defined, ``forward(*args)`` takes no ctx and
        ``setup_context(ctx, inputs, output)`` saves what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def _resolve_backward(cls):
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function "
                               "is not allowed. You should only implement one of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record one node whose backward is ``cls.backward``."""
        if cls.jvp is not Function.jvp:
            forward_ad = sys.modules.get("pyad.autograd.forward_ad")
            if forward_ad is not None and forward_ad._active():
                return forward_ad._apply_with_jvp(
                    cls, args, kwargs, cls.setup_context is not Function.setup_context)
        return _engine._function_apply(cls, cls._backward_cls, args, kwargs,
                                       cls.setup_context is not Function.setup_context)

    def __init__(self, *args, **kwargs):
        cls = type(self)
        if isinstance(inspect.getattr_static(cls, "forward"), staticmethod):
            # torch's DeprecationWarning: a new-style Function is used through its class
            warnings.warn("%s should not be instantiated. Methods on autograd functions are "
                          "all static, so you should invoke them on the class itself. "
                          "Instantiating an autograd function will raise an error in a "
                          "future version." % cls, DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        cls = type(self)
        if isinstance(inspect.getattr_static(cls, "forward"), staticmethod):
            raise RuntimeError("Legacy autograd function with non-static forward method is "
                               "deprecated. Please use new-style autograd function with "
                               "static forward method: %s has a static forward, so call "
                               "%s.apply(...), not an instance." % (cls.__name__, cls.__name__))
        if kwargs:
            raise TypeError("legacy Function %s takes positional arguments only"
                            % cls.__name__)
        if self.__dict__.get("_legacy_called"):
            raise RuntimeError("legacy Function %s was called twice: an instance is used once "
                               "(its saved values would be overwritten); create a new one "
                               "for each call, %s()(...)" % (cls.__name__, cls.__name__))
        self._legacy_called = True
        return _engine._function_apply(cls, None, args, {}, False, self)


class InplaceFunction(Function):
    """A Function that may modify an input in place (torch's
    ``torch.autograd.function.InplaceFunction``): the ``inplace`` flag given to the
    constructor is kept on the instance; new-style subclasses mark what they modify
    with ``ctx.mark_dirty``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


_ONCE_DIFFERENTIABLE_ERROR = ("trying to differentiate twice a function that was marked "
                              "with @once_differentiable")


def once_differentiable(fn):
    """Mark a backward as not differentiable: it runs without recording (so it may use
    raw arrays) and differentiating its result raises a clear error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _engine_no_grad():
            outputs = fn(ctx, *args)
        if not _engine.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, _engine.Variable) and a.requires_grad for a in args)
        if not requires_grad and not any(f is not None for f, _ in ctx.next_functions):
            return outputs
        single = not isinstance(outputs, tuple)
        wrapped = _engine._delayed_error((outputs,) if single else outputs, args,
                                         _ONCE_DIFFERENTIABLE_ERROR, ctx)
        return wrapped[0] if single else wrapped

    return wrapper


class _engine_no_grad:
    def __enter__(self):
        self._previous = _engine._set_grad_enabled(False)

    def __exit__(self, *exc):
        _engine._set_grad_enabled(self._previous)
        return False

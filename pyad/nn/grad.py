"""``pyad.nn.grad``: the gradients of a convolution with respect to its input or its
weight, as ``torch.nn.grad`` -- ``conv1d_input``, ``conv1d_weight``, ``conv2d_input``,
``conv2d_weight``, ``conv3d_input`` and ``conv3d_weight``.

Each runs the convolution forward on a zero stand-in for the missing argument and returns
the vector-Jacobian product with ``grad_output`` (so it is differentiable again when its
arguments require grad).
"""
import pyad

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
           "conv3d_input", "conv3d_weight"]


def _conv(dim):
    import pyad.nn.functional as F
    return getattr(F, "conv%dd" % dim)


def _as_var(x):
    return x if isinstance(x, pyad.Variable) else pyad.tensor(x)


def _input_grad(dim, input_size, weight, grad_output, stride, padding, dilation, groups):
    what = "conv%dd_input" % dim
    weight, grad_output = _as_var(weight), _as_var(grad_output)
    input_size = tuple(int(s) for s in input_size)
    if len(input_size) not in (dim + 1, dim + 2):
        raise ValueError("%s(): input_size must have %d or %d elements, got %d"
                         % (what, dim + 1, dim + 2, len(input_size)))
    x = pyad.zeros(*input_size, dtype=weight.dtype, requires_grad=True)
    return _vjp(what, dim, x, weight, x, "an input", grad_output,
                (stride, padding, dilation, groups))


def _weight_grad(dim, input, weight_size, grad_output, stride, padding, dilation, groups):
    what = "conv%dd_weight" % dim
    input, grad_output = _as_var(input), _as_var(grad_output)
    weight_size = tuple(int(s) for s in weight_size)
    if len(weight_size) != dim + 2:
        raise ValueError("%s(): weight_size must have %d elements, got %d"
                         % (what, dim + 2, len(weight_size)))
    w = pyad.zeros(*weight_size, dtype=input.dtype, requires_grad=True)
    return _vjp(what, dim, input, w, w, "a weight", grad_output,
                (stride, padding, dilation, groups))


def _vjp(what, dim, input, weight, stand_in, which, grad_output, conv_args):
    # grad_output's product with the Jacobian of the convolution with respect to the
    # zero stand-in (the input or the weight); differentiable again when the given
    # arguments require grad
    other = weight if stand_in is input else input
    with pyad.enable_grad():
        out = _conv(dim)(input, weight, None, *conv_args)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise ValueError("%s(): grad_output has shape %s, but the convolution with %s "
                             "of size %s gives %s" % (what, tuple(grad_output.shape), which,
                                                      tuple(stand_in.shape),
                                                      tuple(out.shape)))
        create = other.requires_grad or grad_output.requires_grad
        return pyad.autograd.grad(out, stand_in, grad_output, create_graph=create)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to an input of ``input_size``."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
                  groups=1):
    """The gradient of ``conv1d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to an input of ``input_size``."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
                  groups=1):
    """The gradient of ``conv2d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to an input of ``input_size``."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
                  groups=1):
    """The gradient of ``conv3d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)

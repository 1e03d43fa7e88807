"""Check analytical gradients against finite differences.

`gradcheck` compares the Jacobian that pyad's backward pass computes (and, with
``check_forward_ad=True``, the one its forward mode computes) with one estimated by
central finite differences; `gradgradcheck` does the same for the backward pass
itself, so it checks second derivatives. Both follow ``torch.autograd.gradcheck`` in
signature and meaning.

Finite differences are computed in float64 on the host whatever the array
module, so the module works unchanged for NumPy and CuPy data. Failure messages
show only the worst entries of a Jacobian, never whole arrays.

Complex inputs and outputs are checked as torch checks them: each complex number is a
pair of reals (real part, imaginary part), and a complex input's gradient is read as
``dL/d(re) + i dL/d(im)`` (the conjugate Wirtinger convention). The Jacobians compared
are those of the real function, with a complex element's two parts as consecutive
entries.
"""

import warnings

import numpy

import pyad
from pyad.autograd.function import Function as _Function

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "get_numerical_jacobian",
           "get_analytical_jacobian"]

# How many Jacobian entries a failure message lists.
_REPORTED_ENTRIES = 5


class GradcheckError(RuntimeError):
    """Raised by `gradcheck` and `gradgradcheck` when a check fails.

    Examples
    --------
    >>> from pyad.autograd.gradcheck import GradcheckError
    >>> issubclass(GradcheckError, RuntimeError)
    True
    """


# ---------------------------------------------------------------------------
# Arrays: NumPy or CuPy, always compared as float64 on the host
# ---------------------------------------------------------------------------

_cupy = None
_cupy_probed = False


def _array_module(array):
    """Return the module (numpy or cupy) that owns ``array``."""
    global _cupy, _cupy_probed
    if isinstance(array, (numpy.ndarray, numpy.generic)):
        return numpy
    if not _cupy_probed:
        # Import lazily: importing CuPy costs time and needs a CUDA runtime,
        # and nobody without CuPy data should pay for it.
        _cupy_probed = True
        try:
            import cupy
        except ImportError:
            cupy = None
        _cupy = cupy
    if _cupy is None:
        return numpy
    return _cupy.get_array_module(array)


def _array_of(value):
    """The array inside a Variable (or the array itself)."""
    if isinstance(value, pyad.Variable):
        return value.data
    return value


def _host_float64(value):
    """A float64 NumPy copy of a Variable or array, on the host."""
    array = _array_of(value)
    if _array_module(array) is not numpy:
        array = array.get()
    # Always copy: an output may alias an input that is about to be perturbed.
    if _is_complex(array.dtype):
        # (re, im) of each element, consecutive (a trailing axis of 2)
        array = numpy.asarray(array, dtype=numpy.complex128)
        return numpy.stack([array.real, array.imag], axis=-1)
    return numpy.array(array, dtype=numpy.float64, copy=True)


def _is_complex(dtype):
    return numpy.issubdtype(numpy.dtype(dtype), numpy.complexfloating)


def _real_size(value):
    """How many real numbers a Variable or array holds (two per complex element)."""
    array = _array_of(value)
    return array.size * (2 if _is_complex(array.dtype) else 1)


def _real_shape(value):
    """The shape that indexes those real numbers (a trailing 2: real, imaginary part)."""
    array = _array_of(value)
    shape = tuple(array.shape)
    return shape + (2,) if _is_complex(array.dtype) else shape


def _as_tuple(value):
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def _is_floating(dtype):
    # Floating or complex: the dtypes that have gradients.
    return numpy.issubdtype(numpy.dtype(dtype), numpy.inexact)


def _is_float_variable(value):
    return isinstance(value, pyad.Variable) and _is_floating(value.dtype)


def _is_differentiable_output(value):
    return _is_float_variable(value) and value.requires_grad


def _format_index(flat_index, shape):
    return "[" + ", ".join(str(int(k)) for k in numpy.unravel_index(flat_index, shape)) + "]"


# ---------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------

def _check_inputs(inputs, stacklevel):
    """Return the positions of the inputs that require grad, after validating them."""
    diff_positions = []
    for position, value in enumerate(inputs):
        if not (isinstance(value, pyad.Variable) and value.requires_grad):
            continue
        dtype = numpy.dtype(value.dtype)
        if dtype not in (numpy.float64, numpy.complex128):
            warnings.warn(
                f"Input #{position} requires gradient and is not a double precision "
                "floating point or complex. This check will likely fail if all the inputs "
                f"are not of double precision floating point or complex (it has dtype "
                f"{dtype}; pass float64 inputs, e.g. x.double()).",
                UserWarning, stacklevel=stacklevel)
        data = value.data
        if data.size and any(stride == 0 and size > 1
                             for stride, size in zip(data.strides, data.shape)):
            raise RuntimeError(
                f"The {position}th input has a dimension with stride 0. gradcheck only "
                "supports inputs that are non-overlapping to be able to compute the "
                "numerical gradients correctly (a broadcast view: perturbing one element "
                "perturbs several). You should call .contiguous on the input before passing "
                "it to gradcheck.")
        if not getattr(data.flags, "writeable", True):
            raise RuntimeError(
                f"Input {position} has read-only data; gradcheck perturbs inputs in place. "
                "Pass a writable copy.")
        diff_positions.append(position)
    if not diff_positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True.")
    return diff_positions


# ---------------------------------------------------------------------------
# Numerical side: central differences, perturbing inputs in place
# ---------------------------------------------------------------------------

class _OutputSpec(int):
    """An output's size in real numbers (what the Jacobians are built with: two per
    complex element), with the shape and dtype every perturbed evaluation must give
    again."""

    def __new__(cls, output):
        spec = super().__new__(cls, _real_size(output))
        spec.shape = tuple(output.shape)
        spec.dtype = output.dtype
        return spec


def _output_specs(outputs, positions):
    return {j: _OutputSpec(outputs[j]) for j in positions}


def _evaluate(func, inputs, output_positions, expected):
    outputs = _as_tuple(func(*inputs))
    values = {}
    for j in output_positions:
        output = outputs[j]
        spec = expected[j]
        # torch's _check_outputs_same_dtype_and_shape: an AssertionError, raised even
        # with raise_exception=False.
        shape = tuple(output.shape) if isinstance(output, pyad.Variable) else None
        if shape != spec.shape:
            raise AssertionError(
                f"Expected `func` to return outputs with the same shape when inputs are "
                f"perturbed, but got: shapes {spec.shape} and {shape} (output {j}).")
        if output.dtype != spec.dtype:
            raise AssertionError(
                f"Expected `func` to return outputs with the same dtype when inputs are "
                f"perturbed, but got: dtypes {spec.dtype} and {output.dtype} (output {j}).")
        values[j] = _host_float64(output).ravel()
    return values


def _write(data, index, value):
    # Writing `.data` is invisible to autograd; no_grad makes sure that stays
    # true if a future `.data` setter were to record anything.
    with pyad.no_grad():
        data[index] = value


def _numerical_jacobians(func, inputs, input_positions, output_positions,
                         output_sizes, eps):
    """Jacobians ``J[(j, i)]`` of shape (output j size, input i size) by central differences."""
    jacobians = {}
    for i in input_positions:
        data = inputs[i].data
        n = data.size
        # A complex element is two real inputs: columns 2k (re) and 2k + 1 (im).
        steps = (eps, eps * 1j) if _is_complex(data.dtype) else (eps,)
        for j in output_positions:
            jacobians[(j, i)] = numpy.zeros((output_sizes[j], n * len(steps)))
        for k in range(n):
            index = numpy.unravel_index(k, data.shape)
            original = data[index].copy()
            for part, step in enumerate(steps):
                try:
                    _write(data, index, original + step)
                    plus = _evaluate(func, inputs, output_positions, output_sizes)
                    _write(data, index, original - step)
                    minus = _evaluate(func, inputs, output_positions, output_sizes)
                finally:
                    _write(data, index, original)
                for j in output_positions:
                    jacobians[(j, i)][:, k * len(steps) + part] = (plus[j] - minus[j]) / (2 * eps)
    return jacobians


def _as_complex_if(vector, dtype):
    """A real vector as the array it stands for: pairs (re, im) for a complex dtype."""
    if _is_complex(dtype):
        return vector[0::2] + 1j * vector[1::2]
    return vector


def _numerical_directional(func, inputs, input_positions, output_positions,
                           output_sizes, directions, eps):
    """``J[(j, i)] @ u[i]`` for every pair, from one central difference along ``u[i]``."""
    products = {}
    for i in input_positions:
        data = inputs[i].data
        xp = _array_module(data)
        original = data.copy()
        if _is_complex(data.dtype):
            pairs = _host_float64(data)
            original64 = pairs[..., 0] + 1j * pairs[..., 1]
        else:
            original64 = _host_float64(data)
        step = eps * _as_complex_if(directions[i], data.dtype).reshape(data.shape)
        try:
            _write(data, Ellipsis, xp.asarray(original64 + step).astype(data.dtype))
            plus = _evaluate(func, inputs, output_positions, output_sizes)
            _write(data, Ellipsis, xp.asarray(original64 - step).astype(data.dtype))
            minus = _evaluate(func, inputs, output_positions, output_sizes)
        finally:
            _write(data, Ellipsis, original)
        for j in output_positions:
            products[(j, i)] = (plus[j] - minus[j]) / (2 * eps)
    return products


# ---------------------------------------------------------------------------
# Analytical side: vector-Jacobian products through pyad's backward
# ---------------------------------------------------------------------------

def _vjp(output, inputs, input_positions, grad_output, check_grad_dtypes, j):
    """Host float64 gradients of ``output`` w.r.t. each input, given ``grad_output``.

    Inputs the output does not depend on get zeros.
    """
    diff_inputs = [inputs[i] for i in input_positions]
    grads = pyad.autograd.grad(
        [output], diff_inputs, [pyad.Variable(grad_output)],
        retain_graph=True, allow_unused=True)
    result = {}
    for i, grad in zip(input_positions, grads):
        variable = inputs[i]
        if grad is None:
            result[i] = numpy.zeros(_real_size(variable))
            continue
        grad_shape = tuple(_array_of(grad).shape)
        if grad_shape != tuple(variable.shape):
            raise GradcheckError(
                f"Analytical gradient has incorrect size: the gradient of output {j} "
                f"with respect to input {i} has shape {grad_shape}, but input {i} has "
                f"shape {tuple(variable.shape)}.")
        grad_dtype = numpy.dtype(_array_of(grad).dtype)
        if check_grad_dtypes and grad_dtype != numpy.dtype(variable.dtype):
            raise GradcheckError(
                f"Gradient has dtype mismatch: the gradient of output {j} with respect "
                f"to input {i} has dtype {grad_dtype}, but input {i} has dtype "
                f"{numpy.dtype(variable.dtype)}.")
        result[i] = _host_float64(grad).ravel()
    return result


def _one_hot(output, k):
    # k indexes the output's real numbers: for a complex output, 1 on element k // 2's
    # real part (k even) or 1j on its imaginary part (k odd).
    data = output.data
    xp = _array_module(data)
    grad_output = xp.zeros(data.shape, dtype=data.dtype)
    if _is_complex(data.dtype):
        grad_output.reshape(-1)[k // 2] = 1j if k % 2 else 1
    else:
        grad_output.reshape(-1)[k] = 1
    return grad_output


def _analytical_jacobians(output, inputs, input_positions, check_grad_dtypes, j):
    """Rows of the Jacobians of output ``j``: ``J[i]`` of shape (output size, input size)."""
    size = _real_size(output)
    jacobians = {i: numpy.zeros((size, _real_size(inputs[i]))) for i in input_positions}
    for k in range(size):
        row = _vjp(output, inputs, input_positions, _one_hot(output, k),
                   check_grad_dtypes, j)
        for i in input_positions:
            jacobians[i][k, :] = row[i]
    return jacobians


# ---------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------

def _allclose(analytical, numerical, rtol, atol, complex_input=False):
    # For a complex input, torch compares complex Jacobian entries (its columns for the
    # real and imaginary parts of an element, as one complex number): the difference and
    # the rtol term are moduli of complex numbers.
    if complex_input:
        analytical = analytical[:, 0::2] + 1j * analytical[:, 1::2]
        numerical = numerical[:, 0::2] + 1j * numerical[:, 1::2]
    return numpy.allclose(analytical, numerical, rtol=rtol, atol=atol)


def _mismatch_details(numerical, analytical, output_shape, input_shape, i, j, rtol, atol):
    """Shapes, max difference and the worst few entries; bounded whatever the size."""
    difference = numpy.abs(numerical - analytical)
    beyond = ~(difference <= atol + rtol * numpy.abs(numerical))
    # Rank only entries beyond tolerance (listing agreeing ones is noise); NaN
    # never satisfies a tolerance, so it ranks worst.
    ranked = numpy.where(beyond, numpy.where(numpy.isnan(difference), numpy.inf, difference),
                         -1.0).ravel()
    offending = int(beyond.sum())
    count = min(_REPORTED_ENTRIES, offending)
    if ranked.size > count:
        worst = numpy.argpartition(-ranked, count)[:count]
    else:
        worst = numpy.arange(ranked.size)
    worst = worst[numpy.argsort(-ranked[worst], kind="stable")]
    largest = numpy.max(difference) if difference.size else 0.0
    lines = [
        f"output {j} has shape {tuple(output_shape)} and input {i} has shape "
        f"{tuple(input_shape)}; both Jacobians have shape {numerical.shape} "
        f"(row: flat element of output {j}, column: flat element of input {i}).",
        f"max |numerical - analytical| = {largest:.6g}; {offending} of {difference.size} "
        f"entries exceed atol + rtol * |numerical| (atol={atol}, rtol={rtol})"
        + (f"; the worst {count}:" if count else "."),
    ]
    columns = numerical.shape[1]
    for flat in worst:
        row, column = divmod(int(flat), columns)
        lines.append(
            f"  output{_format_index(row, output_shape)} / input"
            f"{_format_index(column, input_shape)}: numerical {numerical.flat[flat]:.10g}, "
            f"analytical {analytical.flat[flat]:.10g}, "
            f"difference {numerical.flat[flat] - analytical.flat[flat]:.3g}")
    return "\n".join(lines)


def _mismatch_error(numerical, analytical, output_shape, input_shape, i, j, rtol, atol,
                    preamble=(), forward=False, prefix=""):
    mode = "computed with forward mode " if forward else ""
    lines = [f"{prefix}Jacobian {mode}mismatch for output {j} with respect to input {i},"]
    lines.extend(preamble)
    lines.append(_mismatch_details(numerical, analytical, output_shape, input_shape,
                                   i, j, rtol, atol))
    return GradcheckError("\n".join(lines))


def _reentrancy_error(first, second, i, j, nondet_tol):
    difference = numpy.max(numpy.abs(first - second)) if first.size else 0.0
    return GradcheckError(
        "Backward is not reentrant, i.e., running backward with same input and "
        "grad_output multiple times gives different values, although analytical "
        f"gradient matches numerical gradient (output {j}, input {i}: max difference "
        f"between two runs {difference:.6g}). The tolerance for nondeterminism was "
        f"{nondet_tol}.")


def _differs(first, second, nondet_tol):
    # `not <=` so that NaN counts as a difference.
    return first.size and not numpy.max(numpy.abs(first - second)) <= nondet_tol


# ---------------------------------------------------------------------------
# Checks shared by both modes
# ---------------------------------------------------------------------------

def _check_numerically_constant(values, output_positions, input_positions, atol, strict):
    """Outputs that do not require grad must not depend on the inputs.

    ``values[(j, i)]`` is a numerical Jacobian or Jacobian-vector product.
    """
    for j in output_positions:
        for i in input_positions:
            value = values[(j, i)]
            if value.size and not numpy.max(numpy.abs(value)) <= atol:
                if strict:
                    raise GradcheckError(
                        f"Output {j} does not require grad, but its numerical gradient "
                        f"with respect to input {i} is not zero (max |entry| "
                        f"{numpy.max(numpy.abs(value)):.6g}): the backward pass was not "
                        "recorded with create_graph=True. Is it computed from `.data`, "
                        "NumPy arrays or a once_differentiable Function?")
                raise GradcheckError(
                    f"Numerical gradient for function expected to be zero: output {j} "
                    f"does not require grad, but its numerical gradient with respect to "
                    f"input {i} has max |entry| {numpy.max(numpy.abs(value)):.6g}.")


class _UndefinedGrad(_Function):
    """Identity whose backward gives no gradient (torch's
    ``torch._C._functions.UndefinedGrad``): the node behind its input then receives
    None, torch's undefined gradient."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x) if hasattr(x, "view_as") else x.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        return None


_UNDEFINED_NOTE = 'Please look at "Notes about undefined output gradients" in ' \
                  '"tools/autograd/derivatives.yaml"'


def _warn_undefined_bc():
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking feature is "
        "enabled by default, but it may break existing callers of this function. If this "
        'is true for you, you can call this function with "check_undefined_grad=False" '
        "to disable the feature", UserWarning, stacklevel=5)


def _check_undefined_grad_support(func, inputs, input_positions):
    """torch's _test_undefined_backward_mode: backward must cope with outputs whose
    gradient is undefined (None), all of them at once, then each in turn."""
    diff_inputs = [inputs[i] for i in input_positions]

    def differentiable_outputs():
        with pyad.enable_grad():
            outs = _as_tuple(func(*inputs))
        return [o for o in outs if _is_differentiable_output(o)]

    def check(outputs_to_check):
        zeros = [pyad.zeros_like(o) for o in outputs_to_check]
        try:
            grads = pyad.autograd.grad(outputs_to_check, diff_inputs, zeros,
                                       allow_unused=True)
        except RuntimeError as error:
            _warn_undefined_bc()
            raise GradcheckError("Expected backward function to handle undefined output "
                                 "grads. " + _UNDEFINED_NOTE) from error
        for g in grads:
            if g is not None and not numpy.all(_host_float64(g) == 0):
                _warn_undefined_bc()
                raise GradcheckError("Expected all input grads to be undefined or zero when "
                                     "all output grads are undefined or zero. "
                                     + _UNDEFINED_NOTE)

    with pyad.enable_grad():
        undefined = [_UndefinedGrad.apply(o) for o in differentiable_outputs()]
    check(undefined)
    if len(undefined) > 1:
        for k in range(len(undefined)):
            outs = differentiable_outputs()
            with pyad.enable_grad():
                check([_UndefinedGrad.apply(o) if idx == k else o
                       for idx, o in enumerate(outs)])


def _check_backward_multiplies_grad_output(outputs, output_positions, inputs,
                                           input_positions):
    """A zero grad_output must give zero gradients (a backward that ignores it would not)."""
    diff_outputs = [outputs[j] for j in output_positions]
    zeros = []
    for output in diff_outputs:
        xp = _array_module(output.data)
        zeros.append(pyad.Variable(xp.zeros(output.data.shape, dtype=output.data.dtype)))
    grads = pyad.autograd.grad(diff_outputs, [inputs[i] for i in input_positions], zeros,
                               retain_graph=True, allow_unused=True)
    for i, grad in zip(input_positions, grads):
        if grad is None:
            continue
        values = _host_float64(grad)
        if not numpy.all(values == 0):
            raise GradcheckError(
                f"backward not multiplied by grad_output: with all grad_outputs zero, the "
                f"gradient with respect to input {i} has max |entry| "
                f"{numpy.max(numpy.abs(values)):.6g} instead of 0.")


# ---------------------------------------------------------------------------
# Slow and fast modes
# ---------------------------------------------------------------------------

def _slow_check(func, inputs, outputs, input_positions, output_positions, constant_positions,
                eps, atol, rtol, nondet_tol, check_grad_dtypes, strict):
    sizes = _output_specs(outputs, output_positions + constant_positions)
    numerical = _numerical_jacobians(func, inputs, input_positions,
                                     output_positions + constant_positions, sizes, eps)
    _check_numerically_constant(numerical, constant_positions, input_positions, atol, strict)
    for j in output_positions:
        output = outputs[j]
        first = _analytical_jacobians(output, inputs, input_positions, check_grad_dtypes, j)
        # Backward runs twice on the same graph; the two must agree (reentrancy).
        second = _analytical_jacobians(output, inputs, input_positions, check_grad_dtypes, j)
        for i in input_positions:
            if not _allclose(first[i], numerical[(j, i)], rtol, atol,
                             _is_complex(inputs[i].dtype)):
                raise _mismatch_error(numerical[(j, i)], first[i], _real_shape(output),
                                      _real_shape(inputs[i]), i, j, rtol, atol)
        for i in input_positions:
            if _differs(first[i], second[i], nondet_tol):
                raise _reentrancy_error(first[i], second[i], i, j, nondet_tol)


def _random_unit(rng, shape):
    # Non-negative entries, as torch: the adjusted atol below relies on sum(u) > 0.
    vector = numpy.asarray(rng.random(shape))
    norm = numpy.linalg.norm(vector)
    return vector / norm if norm > 0 else vector


def _adjusted_atol(atol, u, v):
    # Element-wise we allow |a - n| <= atol + rtol |n|. For the scalars v^T A u and
    # v^T N u the matching bound is v^T E u + rtol |v^T N u| with E full of atol.
    return atol * float(u.sum()) * float(v.sum())


def _fast_check(func, inputs, outputs, input_positions, output_positions, constant_positions,
                eps, atol, rtol, nondet_tol, check_grad_dtypes, strict):
    rng = numpy.random.default_rng(0)
    u = {i: _random_unit(rng, _real_shape(inputs[i])).ravel() for i in input_positions}
    v = {j: _random_unit(rng, _real_shape(outputs[j])).ravel() for j in output_positions}
    sizes = _output_specs(outputs, output_positions + constant_positions)
    ju = _numerical_directional(func, inputs, input_positions,
                                output_positions + constant_positions, sizes, u, eps)
    _check_numerically_constant(ju, constant_positions, input_positions, atol, strict)
    for j in output_positions:
        output = outputs[j]
        xp = _array_module(output.data)
        grad_output = xp.asarray(_as_complex_if(v[j], output.data.dtype)).astype(
            output.data.dtype).reshape(output.data.shape)
        first = _vjp(output, inputs, input_positions, grad_output, check_grad_dtypes, j)
        second = _vjp(output, inputs, input_positions, grad_output, check_grad_dtypes, j)
        for i in input_positions:
            analytical = float(first[i] @ u[i])
            numerical = float(v[j].ravel() @ ju[(j, i)])
            tolerance = _adjusted_atol(atol, u[i], v[j]) + rtol * abs(numerical)
            if not abs(analytical - numerical) <= tolerance:
                raise _fast_mismatch_error(func, inputs, output, i, j, analytical, numerical,
                                           tolerance, eps, atol, rtol, check_grad_dtypes)
        for i in input_positions:
            if _differs(first[i], second[i], nondet_tol):
                raise _reentrancy_error(first[i], second[i], i, j, nondet_tol)


def _fast_mismatch_error(func, inputs, output, i, j, analytical, numerical, tolerance,
                         eps, atol, rtol, check_grad_dtypes):
    # The two scalars say nothing about where the error is: recompute the full
    # Jacobians of this pair (with the caller's eps) to point at entries.
    slow_numerical = _numerical_jacobians(func, inputs, [i], [j],
                                          _output_specs({j: output}, [j]), eps)
    slow_analytical = _analytical_jacobians(output, inputs, [i], check_grad_dtypes, j)
    preamble = [
        f"fast mode: v^T J u is {numerical:.8g} numerically and {analytical:.8g} "
        f"analytically (difference {abs(numerical - analytical):.3g}, allowed "
        f"{tolerance:.3g}) for random unit vectors u and v.",
    ]
    if _allclose(slow_analytical[i], slow_numerical[(j, i)], rtol, atol,
                 _is_complex(inputs[i].dtype)):
        preamble.append(
            "Fast gradcheck failed but element-wise differences are small: the check "
            "might pass with fast_mode=False.")
    preamble.append("Element-wise (slow mode) comparison:")
    return _mismatch_error(slow_numerical[(j, i)], slow_analytical[i], _real_shape(output),
                           _real_shape(inputs[i]), i, j, rtol, atol, preamble)


# ---------------------------------------------------------------------------
# Forward mode: Jacobian-vector products through pyad.autograd.forward_ad
# ---------------------------------------------------------------------------

def _forward_ad():
    # Imported lazily: forward_ad imports this package's Function machinery.
    import pyad.autograd.forward_ad as fwAD
    return fwAD


def _tangent_array(variable, real_vector):
    """A tangent for ``variable`` from a vector over its real numbers (pairs (re, im) for
    a complex dtype), in the Variable's array module and dtype."""
    data = variable.data
    xp = _array_module(data)
    values = _as_complex_if(numpy.asarray(real_vector, dtype=numpy.float64), data.dtype)
    return xp.asarray(values).astype(data.dtype).reshape(data.shape)


def _jvp(func, inputs, input_positions, output_positions, tangents, check_grad_dtypes):
    """Tangents of the outputs, as host float64 vectors over their real numbers, when
    ``func`` runs on dual inputs: input ``i`` carries ``tangents[i]`` (an array), the
    other inputs that require grad a zero tangent (torch's
    ``_get_analytical_jacobian_forward_ad``). An output without a tangent (None) gets
    zeros."""
    fwAD = _forward_ad()
    with fwAD.dual_level(), pyad.enable_grad():
        args = list(inputs)
        for i in input_positions:
            variable = inputs[i]
            tangent = tangents.get(i)
            if tangent is None:
                xp = _array_module(variable.data)
                tangent = xp.zeros(variable.data.shape, dtype=variable.data.dtype)
            args[i] = fwAD.make_dual(variable.detach(), pyad.Variable(tangent))
        outputs = _as_tuple(func(*args))
        result = {}
        for j in output_positions:
            primal, tangent = fwAD.unpack_dual(outputs[j])
            if tangent is None:
                result[j] = numpy.zeros(_real_size(primal))
                continue
            if check_grad_dtypes and primal.is_complex() != tangent.is_complex():
                raise GradcheckError("Forward AD gradient has dtype mismatch.")
            if tuple(tangent.shape) != tuple(primal.shape):
                raise GradcheckError(
                    f"Forward AD gradient has incorrect size: the tangent of output {j} "
                    f"has shape {tuple(tangent.shape)}, but output {j} has shape "
                    f"{tuple(primal.shape)}.")
            result[j] = _host_float64(tangent).ravel()
    return result


def _forward_jacobians(func, inputs, input_positions, output_positions, output_sizes,
                       check_grad_dtypes):
    """Jacobians ``J[(j, i)]`` (output j real size, input i real size), column by column:
    one run of ``func`` per real number of each input, with a one-hot tangent (1 on a real
    part, 1j on an imaginary part)."""
    jacobians = {}
    for i in input_positions:
        n = _real_size(inputs[i])
        columns = []
        for k in range(n):
            one_hot = numpy.zeros(n)
            one_hot[k] = 1.0
            columns.append(_jvp(func, inputs, input_positions, output_positions,
                                {i: _tangent_array(inputs[i], one_hot)}, check_grad_dtypes))
        for j in output_positions:
            jacobians[(j, i)] = (numpy.stack([c[j] for c in columns], axis=1) if columns
                                 else numpy.zeros((output_sizes[j], 0)))
    return jacobians


def _forward_allclose(analytical, numerical, rtol, atol, complex_output):
    # torch compares the tangent (complex for a complex output) with the numerical
    # derivative as complex numbers: a complex output's (re, im) rows are one entry.
    if complex_output:
        analytical = analytical[0::2] + 1j * analytical[1::2]
        numerical = numerical[0::2] + 1j * numerical[1::2]
    return numpy.allclose(analytical, numerical, rtol=rtol, atol=atol)


def _compare_forward(numerical, analytical, output, variable, i, j, rtol, atol,
                     preamble=()):
    """Raise torch's "Jacobian computed with forward mode mismatch" for a pair whose
    Jacobians differ. A complex input is checked as torch checks it: the columns of the
    imaginary parts first, then those of the real parts, each named in the message."""
    complex_output = _is_complex(output.dtype)
    if _is_complex(variable.dtype):
        parts = (("imaginary", slice(1, None, 2)), ("real", slice(0, None, 2)))
    else:
        parts = ((None, slice(None)),)
    for part, columns in parts:
        if _forward_allclose(analytical[:, columns], numerical[:, columns], rtol, atol,
                             complex_output):
            continue
        prefix = (f"While considering the {part} part of complex inputs only, "
                  if part else "")
        raise _mismatch_error(numerical, analytical, _real_shape(output),
                              _real_shape(variable), i, j, rtol, atol, preamble,
                              forward=True, prefix=prefix)


def _slow_check_forward(func, inputs, outputs, input_positions, output_positions,
                        constant_positions, eps, atol, rtol, check_grad_dtypes, strict):
    sizes = _output_specs(outputs, output_positions + constant_positions)
    numerical = _numerical_jacobians(func, inputs, input_positions,
                                     output_positions + constant_positions, sizes, eps)
    _check_numerically_constant(numerical, constant_positions, input_positions, atol, strict)
    if not output_positions:
        return
    analytical = _forward_jacobians(func, inputs, input_positions, output_positions, sizes,
                                    check_grad_dtypes)
    for i in input_positions:
        for j in output_positions:
            _compare_forward(numerical[(j, i)], analytical[(j, i)], outputs[j], inputs[i],
                             i, j, rtol, atol)


def _fast_check_forward(func, inputs, outputs, input_positions, output_positions,
                        constant_positions, eps, atol, rtol, check_grad_dtypes, strict):
    # torch's fast mode with use_forward_ad: v^T (J u) with J u from one forward-mode run
    # per input (its tangent u, the others zero), against v^T of the numerical J u.
    rng = numpy.random.default_rng(0)
    u = {i: _random_unit(rng, _real_shape(inputs[i])).ravel() for i in input_positions}
    v = {j: _random_unit(rng, _real_shape(outputs[j])).ravel() for j in output_positions}
    sizes = _output_specs(outputs, output_positions + constant_positions)
    ju = _numerical_directional(func, inputs, input_positions,
                                output_positions + constant_positions, sizes, u, eps)
    _check_numerically_constant(ju, constant_positions, input_positions, atol, strict)
    for i in input_positions:
        if not output_positions:
            break
        tangents = _jvp(func, inputs, input_positions, output_positions,
                        {i: _tangent_array(inputs[i], u[i])}, check_grad_dtypes)
        for j in output_positions:
            analytical = float(v[j] @ tangents[j])
            numerical = float(v[j] @ ju[(j, i)])
            tolerance = _adjusted_atol(atol, u[i], v[j]) + rtol * abs(numerical)
            if abs(analytical - numerical) <= tolerance:
                continue
            slow_numerical = _numerical_jacobians(func, inputs, [i], [j],
                                                  _output_specs(outputs, [j]), eps)[(j, i)]
            slow_analytical = _forward_jacobians(func, inputs, [i], [j], sizes,
                                                 check_grad_dtypes)[(j, i)]
            preamble = [
                f"fast mode: v^T J u is {numerical:.8g} numerically and {analytical:.8g} "
                f"with forward mode (difference {abs(numerical - analytical):.3g}, allowed "
                f"{tolerance:.3g}) for random unit vectors u and v."]
            # (raises when the element-wise comparison fails too)
            _compare_forward(slow_numerical, slow_analytical, outputs[j], inputs[i], i, j,
                             rtol, atol, preamble + ["Element-wise (slow mode) comparison:"])
            preamble.append("Fast gradcheck failed but element-wise differences are small: "
                            "the check might pass with fast_mode=False.")
            raise _mismatch_error(slow_numerical, slow_analytical, _real_shape(outputs[j]),
                                  _real_shape(inputs[i]), i, j, rtol, atol, preamble,
                                  forward=True)


def _check_undefined_forward_mode(func, inputs, input_positions, output_positions):
    """torch's _test_undefined_forward_mode: an input whose tangent is a materialized zero
    must give the outputs the tangents that the same input without a tangent gives."""
    fwAD = _forward_ad()
    rng = numpy.random.default_rng(0)
    u = {i: _tangent_array(inputs[i], _random_unit(rng, _real_shape(inputs[i])).ravel())
         for i in input_positions}
    with fwAD.dual_level(), pyad.enable_grad():
        duals = list(inputs)
        for i in input_positions:
            duals[i] = fwAD.make_dual(inputs[i].detach(), pyad.Variable(u[i]))
        for i in input_positions:
            kept = duals[i]
            variable = inputs[i]
            xp = _array_module(variable.data)
            zero = xp.zeros(variable.data.shape, dtype=variable.data.dtype)
            duals[i] = fwAD.make_dual(variable.detach(), pyad.Variable(zero))
            outputs1 = _as_tuple(func(*duals))
            duals[i] = variable.detach()
            outputs2 = _as_tuple(func(*duals))
            duals[i] = kept
            for j in output_positions:
                first = fwAD.unpack_dual(outputs1[j]).tangent
                second = fwAD.unpack_dual(outputs2[j]).tangent
                if first is None or second is None:
                    continue
                a, b = _host_float64(first), _host_float64(second)
                if not numpy.allclose(a, b):
                    raise GradcheckError(
                        f"Mismatch in tangent values for output with index: {j} when "
                        f"input: {i} has an undefined tangent value. Got: {a.tolist()} but "
                        f"expected: {b.tolist()} (max difference "
                        f"{numpy.max(numpy.abs(a - b)):.6g}).")


_FAILED_BATCHED_GRAD_MSG_FWD_AD = (
    "gradcheck failed while testing batched gradient computation with forward-mode AD. "
    "pyad's vmap calls the function once per batch element; if this fails for a "
    "function that works with single tangents, call gradcheck with "
    "`check_batched_forward_grad=False`.")


def _check_batched_forward(func, inputs, input_positions):
    """torch's _test_batched_grad_forward_ad: the tangents of two random tangents of each
    input, computed under ``pyad.func.vmap`` (a loop in pyad, not vectorised), must equal
    those computed one at a time."""
    fwAD = _forward_ad()
    from pyad.func import vmap
    rng = numpy.random.default_rng(0)
    for i in input_positions:
        current = inputs[i]

        def jvp(tangent, i=i, current=current):
            with fwAD.dual_level(), pyad.enable_grad():
                dual = fwAD.make_dual(current.detach(), tangent)
                args = tuple(dual if k == i else (x.detach() if isinstance(x, pyad.Variable)
                                                  else x)
                             for k, x in enumerate(inputs))
                result = []
                for output in _as_tuple(func(*args)):
                    if not isinstance(output, pyad.Variable):
                        continue
                    primal, tangent_out = fwAD.unpack_dual(output)
                    result.append(tangent_out.detach() if tangent_out is not None
                                  else pyad.zeros_like(primal).detach())
                return tuple(result)

        tangents = [pyad.Variable(_tangent_array(current, rng.standard_normal(
            _real_size(current)))) for _ in range(2)]
        expected = [jvp(t) for t in tangents]
        expected = [pyad.stack(shards) for shards in zip(*expected)]
        try:
            result = vmap(jvp)(pyad.stack(tangents))
        except RuntimeError as error:
            raise GradcheckError(f"While computing batched gradients, got: {error}\n\n"
                                 f"{_FAILED_BATCHED_GRAD_MSG_FWD_AD}") from error
        for j, (res, exp) in enumerate(zip(_as_tuple(result), expected)):
            if numpy.allclose(_host_float64(res), _host_float64(exp)):
                continue
            raise GradcheckError(
                f"For output {j} and input {i}:\n\n{_FAILED_BATCHED_GRAD_MSG_FWD_AD}\n\n"
                f"Got:\n{res}\n\nExpected:\n{exp}")


def _gradcheck(func, inputs, *, eps, atol, rtol, raise_exception, nondet_tol,
               check_undefined_grad, check_grad_dtypes, check_backward_ad, fast_mode,
               strict_outputs, context=None, check_forward_ad=False,
               check_batched_forward_grad=False):
    inputs = _as_tuple(inputs)
    # Level 4 points the warning at the user's call of gradcheck/gradgradcheck.
    input_positions = _check_inputs(inputs, stacklevel=4)
    try:
        with pyad.enable_grad():
            outputs = _as_tuple(func(*inputs))
        output_positions = [j for j, o in enumerate(outputs) if _is_differentiable_output(o)]
        constant_positions = []
        if strict_outputs or not output_positions:
            constant_positions = [j for j, o in enumerate(outputs)
                                  if _is_float_variable(o) and not o.requires_grad]
        if check_backward_ad:
            check = _fast_check if fast_mode else _slow_check
            check(func, inputs, outputs, input_positions, output_positions,
                  constant_positions, eps, atol, rtol, nondet_tol, check_grad_dtypes,
                  strict_outputs)
        if check_forward_ad:
            check = _fast_check_forward if fast_mode else _slow_check_forward
            check(func, inputs, outputs, input_positions, output_positions,
                  constant_positions, eps, atol, rtol, check_grad_dtypes, strict_outputs)
            if check_undefined_grad and output_positions:
                _check_undefined_forward_mode(func, inputs, input_positions,
                                              output_positions)
        if check_batched_forward_grad:
            _check_batched_forward(func, inputs, input_positions)
        if not check_backward_ad:
            return True
        # torch's order: the zero-grad_output check always runs, before the check of
        # undefined (None) output gradients
        if output_positions:
            _check_backward_multiplies_grad_output(outputs, output_positions, inputs,
                                                   input_positions)
        if check_undefined_grad and output_positions:
            _check_undefined_grad_support(func, inputs, input_positions)
    except GradcheckError as error:
        if not raise_exception:
            return False
        if context is None:
            raise
        raise GradcheckError(f"{error}\n{context}") from None
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Check the gradients of ``func`` against finite differences.

    For every output of ``func`` that is floating and requires grad, and every
    input that requires grad, the Jacobian computed by pyad's backward pass
    (one ``pyad.autograd.grad`` call per output element) is compared with a
    central-difference estimate made by perturbing each input element in place
    by ``eps``. An entry passes when ``|analytical - numerical| <= atol + rtol *
    |numerical|``. The backward pass is run twice and the two results must agree
    within ``nondet_tol``.

    With ``check_forward_ad=True`` the Jacobian is also computed with forward mode
    (`pyad.autograd.forward_ad`), column by column as torch's: ``func`` runs on dual
    inputs, one input element at a time carrying a one-hot tangent (1 on a real part, 1j
    on an imaginary part) and the others zero tangents, and the tangents of the outputs
    (zeros where None) are compared with the numerical Jacobian; a failure reads
    "Jacobian computed with forward mode mismatch for output j with respect to input
    i" (for a complex input, "While considering the imaginary part of complex inputs
    only, ..." first, then the real part). Custom Functions that define ``jvp`` are
    checked through it; the others through their backward (pyad's forward mode runs on
    the reverse-mode engine, docs/functional.md).

    Inputs should be float64 (or complex128): in lower precision the finite
    differences are too inaccurate, and a warning says so. Complex inputs and outputs
    are checked as pairs of reals (real part, imaginary part), as torch's gradcheck;
    a complex input's gradient is ``dL/d(re) + i dL/d(im)``.

    Parameters
    ----------
    func : callable
        Takes the inputs positionally; returns a Variable or a tuple of them.
        Outputs that do not require grad or are not floating or complex are not checked (if
        none requires grad, their numerical gradients must be zero).
    inputs : Variable or tuple of Variables
        Entries that are not Variables are passed through unchanged. At least one
        must require grad. Their ``.data`` is perturbed in place and restored.
    eps : float
        Finite-difference step.
    atol, rtol : float
        Absolute and relative tolerance.
    raise_exception : bool
        Raise `GradcheckError` with a description of the failure (default), or
        return False.
    nondet_tol : float
        Tolerance for differences between two backward passes on the same graph.
    check_undefined_grad : bool
        Also check that a zero ``grad_output`` gives zero gradients, i.e. that the
        backward multiplies by ``grad_output``. (pyad has no undefined-gradient
        tensors; a zero ``grad_output`` is what a backward sees in their place.) With
        ``check_forward_ad``, also torch's forward-mode check: an input with a zero
        tangent must give the outputs the tangents that the input without one gives.
    check_grad_dtypes : bool
        Also require every gradient to have its input's dtype.
    check_batched_grad : bool
        Accepted for compatibility with torch; ignored (pyad's vmap is not vectorised).
        Needs ``check_backward_ad`` (AssertionError, as torch).
    check_forward_ad : bool
        Also check the Jacobian computed with forward-mode AD (above).
    check_batched_forward_grad : bool
        Also compute the output tangents of two random tangents of each input under
        `pyad.func.vmap` (a loop in pyad) and compare them with those computed one at
        a time, as torch. Needs ``check_forward_ad`` (AssertionError, as torch).
    check_backward_ad : bool
        Check the backward pass (default); False checks forward mode only. One of
        ``check_forward_ad`` and ``check_backward_ad`` must be True (AssertionError).
    fast_mode : bool
        Compare ``v^T J u`` for random unit vectors ``u``, ``v`` instead of whole
        Jacobians: two evaluations per input and one backward per output (forward
        mode: one run with tangent ``u`` per input). On failure the full Jacobians of
        the failing pair are computed for the report.
    masked : None
        Accepted for compatibility with torch (sparse inputs); ignored.

    Returns
    -------
    bool
        True if all checks pass; False on failure when ``raise_exception`` is False.

    Raises
    ------
    GradcheckError
        When a check fails and ``raise_exception`` is True. The message names the
        output and input and lists only the worst few Jacobian entries.
    ValueError
        If no input requires grad.
    RuntimeError
        If an input has a zero stride (broadcast view) or read-only data.

    Examples
    --------
    >>> import numpy as np, pyad
    >>> from pyad.autograd.gradcheck import gradcheck
    >>> x = pyad.Variable(np.linspace(0.5, 1.5, 4), requires_grad=True)
    >>> y = pyad.Variable(np.arange(4.0), requires_grad=True)
    >>> gradcheck(lambda a, b: (a * b, a * a), (x, y))
    True
    >>> gradcheck(lambda a, b: a * b, (x, y), fast_mode=True)
    True
    >>> gradcheck(lambda a, b: a.sin() * b, (x, y), check_forward_ad=True)
    True
    """
    del masked
    _check_mode_flags(check_forward_ad, check_backward_ad, check_batched_grad,
                      check_batched_forward_grad)
    return _gradcheck(func, inputs, eps=eps, atol=atol, rtol=rtol,
                      raise_exception=raise_exception, nondet_tol=nondet_tol,
                      check_undefined_grad=check_undefined_grad,
                      check_grad_dtypes=check_grad_dtypes,
                      check_backward_ad=check_backward_ad, fast_mode=fast_mode,
                      strict_outputs=False, check_forward_ad=check_forward_ad,
                      check_batched_forward_grad=check_batched_forward_grad)


def _check_mode_flags(check_forward_ad, check_backward_ad, check_batched_grad,
                      check_batched_forward_grad):
    # torch's AssertionErrors, type and text
    if not check_forward_ad and not check_backward_ad:
        raise AssertionError("Expected at least one of check_forward_ad or "
                             "check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad "
                             "to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")


def _random_grad_output(rng, output, non_contiguous):
    data = output.data
    xp = _array_module(data)
    dtype = data.dtype if _is_floating(data.dtype) else numpy.float64
    values = numpy.asarray(rng.standard_normal(data.shape))
    if _is_complex(dtype):
        values = values + 1j * numpy.asarray(rng.standard_normal(data.shape))
    if non_contiguous and data.ndim > 0:
        # Every other element of a twice-as-long last axis: same values, strided layout.
        storage = xp.zeros(data.shape[:-1] + (2 * data.shape[-1],), dtype=dtype)
        array = storage[..., ::2]
        array[...] = xp.asarray(values).astype(dtype)
    else:
        array = xp.asarray(values).astype(dtype)
    return pyad.Variable(array, requires_grad=True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=None):
    """Check the second derivatives of ``func`` against finite differences.

    Runs `gradcheck` on the function ``(*inputs, *grad_outputs) -> grads`` that
    computes ``pyad.autograd.grad(func(*inputs), inputs, grad_outputs,
    create_graph=True)``: this checks that the backward pass of ``func`` is
    itself correctly differentiable, with respect to both the inputs and the
    grad_outputs.

    Unlike torch, a gradient that comes out of the backward pass without a graph
    (a backward computed from ``.data`` or NumPy) although it depends on its
    arguments is reported as a failure instead of being skipped.

    Parameters
    ----------
    func : callable
        As for `gradcheck`.
    inputs : Variable or tuple of Variables
        As for `gradcheck`.
    grad_outputs : Variable or tuple of Variables, optional
        One per output of ``func`` that requires grad. Those that require grad are
        checked too. By default random normal values (seeded, so reproducible) of
        each output's dtype, requiring grad.
    gen_non_contig_grad_outputs : bool
        Make the generated grad_outputs non-contiguous views.
    eps, atol, rtol, raise_exception, nondet_tol, check_undefined_grad, \
check_grad_dtypes, check_batched_grad, fast_mode, masked
        As for `gradcheck`.
    check_fwd_over_rev, check_rev_over_rev : bool
        The two second-order checks, passed on to `gradcheck` as ``check_forward_ad``
        and ``check_backward_ad`` as torch: forward over reverse differentiates the
        backward pass with forward mode, reverse over reverse with backward mode. At
        least one must be True, and ``check_undefined_grad`` and
        ``check_batched_grad`` need ``check_rev_over_rev`` (AssertionError, as
        torch).

    Returns
    -------
    bool
        True if all checks pass; False on failure when ``raise_exception`` is False.

    Examples
    --------
    >>> import numpy as np, pyad
    >>> from pyad.autograd.gradcheck import gradgradcheck
    >>> x = pyad.Variable(np.linspace(0.5, 1.5, 4), requires_grad=True)
    >>> gradgradcheck(lambda a: a * a * a, (x,))
    True
    >>> gradgradcheck(lambda a: a * a * a, (x,), check_fwd_over_rev=True)
    True
    """
    # torch's AssertionErrors, type and text
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev "
                             "to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev "
                             "to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = numpy.random.default_rng(0)
        with pyad.enable_grad():
            outputs = _as_tuple(func(*inputs))
        grad_outputs = tuple(_random_grad_output(rng, o, gen_non_contig_grad_outputs)
                             for o in outputs if _is_differentiable_output(o))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    num_grad_outputs = len(grad_outputs)
    diff_positions = [i for i, x in enumerate(inputs)
                      if isinstance(x, pyad.Variable) and x.requires_grad]
    restore = set(diff_positions) | {len(inputs) + k for k, g in enumerate(grad_outputs)
                                     if isinstance(g, pyad.Variable) and g.requires_grad}

    def new_func(*args):
        # Restore requires_grad, as torch's new_func: forward mode passes an input without
        # a tangent detached (gradcheck's check of undefined tangents)
        args = tuple(x.detach()._mark_requires_grad(True)
                     if k in restore and isinstance(x, pyad.Variable) and not x.requires_grad
                     else x for k, x in enumerate(args))
        input_args = args[:len(args) - num_grad_outputs]
        # grad(create_graph=True) needs grad mode even if the caller disabled it.
        with pyad.enable_grad():
            outputs = [o for o in _as_tuple(func(*input_args))
                       if _is_differentiable_output(o)]
            if len(outputs) != num_grad_outputs:
                raise ValueError(
                    f"gradgradcheck got {num_grad_outputs} grad_outputs, but func has "
                    f"{len(outputs)} outputs that require grad.")
            grads = pyad.autograd.grad(
                outputs, [input_args[i] for i in diff_positions],
                list(args[len(args) - num_grad_outputs:]),
                create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    # Indices in a failure message refer to new_func; say what they mean.
    first, last = len(inputs), len(inputs) + num_grad_outputs - 1
    which = f"input {first} is" if first == last else f"inputs {first}..{last} are"
    context = (
        f"(gradgradcheck: {which} the grad_outputs, after the original inputs; output k "
        "is the gradient with respect to the k-th original input that requires grad, "
        f"among positions {diff_positions}, unused inputs left out.)")
    del masked
    # torch passes check_fwd_over_rev and check_rev_over_rev on to gradcheck as
    # check_forward_ad and check_backward_ad
    return _gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                      raise_exception=raise_exception, nondet_tol=nondet_tol,
                      check_undefined_grad=check_undefined_grad,
                      check_grad_dtypes=check_grad_dtypes,
                      check_backward_ad=check_rev_over_rev, fast_mode=fast_mode,
                      strict_outputs=True, context=context,
                      check_forward_ad=check_fwd_over_rev)


# ---------------------------------------------------------------------------
# torch's deprecated Jacobian helpers
# ---------------------------------------------------------------------------

def _deprecated_api_warning(name):
    warnings.warn(
        f"`{name}` was part of PyTorch's private API and not meant to be exposed (pyad keeps "
        f"it for code written for torch.autograd.gradcheck). It is deprecated and will be "
        f"removed in a future version; use `gradcheck` instead.", FutureWarning, stacklevel=3)


def _check_grad_out(grad_out, name):
    if grad_out != 1.0:
        raise ValueError(f"{name}(): Expected grad_out to be 1.0. {name} no longer supports "
                         f"values of grad_out != 1.0.")


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated, as ``torch.autograd.gradcheck.get_numerical_jacobian``: the Jacobians,
    by central differences with step ``eps``, of the first output of ``fn(inputs)`` (``fn``
    takes the tuple of inputs) with respect to each Variable of ``target`` (default:
    ``inputs``) that requires grad, each of shape (input numel, output numel) as in torch.
    Warns ``FutureWarning``; ``grad_out`` other than 1.0 raises ``ValueError``.

    >>> import warnings, pyad
    >>> from pyad.autograd.gradcheck import get_numerical_jacobian
    >>> x = pyad.tensor([1.0, 2.0], dtype=pyad.float64, requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     (jacobian,) = get_numerical_jacobian(lambda inputs: inputs[0] * 3, (x,), eps=1e-6)
    >>> jacobian.round()
    tensor([[3., 0.],
            [0., 3.]], dtype=float64)
    """
    _deprecated_api_warning("get_numerical_jacobian")
    _check_grad_out(grad_out, "get_numerical_jacobian")
    inputs = _as_tuple(inputs)
    target = list(inputs if target is None else _as_tuple(target))
    positions = [i for i, t in enumerate(target)
                 if isinstance(t, pyad.Variable) and t.requires_grad]

    def first_output(*unused):
        return _as_tuple(fn(inputs))[0]

    with pyad.no_grad():
        sizes = _output_specs((first_output(),), [0])
        numerical = _numerical_jacobians(first_output, target, positions, [0], sizes, eps)
    return tuple(pyad.Variable(numpy.ascontiguousarray(numerical[(0, i)].T))
                 for i in positions)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated, as ``torch.autograd.gradcheck.get_analytical_jacobian``: the Jacobians
    of ``output`` with respect to each Variable of ``inputs`` that requires grad, computed
    by backward, each of shape (input numel, output numel), with whether backward is
    reentrant (two runs agree within ``nondet_tol``), whether the gradients had the
    inputs' shapes and whether they had their dtypes: ``(jacobians, reentrant,
    correct_grad_sizes, correct_grad_types)``. Warns ``FutureWarning``; ``grad_out`` other
    than 1.0 raises ``ValueError``.

    >>> import warnings, pyad
    >>> from pyad.autograd.gradcheck import get_analytical_jacobian
    >>> x = pyad.tensor([1.0, 2.0], dtype=pyad.float64, requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     jacobians, reentrant, sizes_ok, types_ok = get_analytical_jacobian((x,), x * x)
    >>> jacobians[0], reentrant
    (tensor([[2., 0.],
            [0., 4.]], dtype=float64), True)
    """
    _deprecated_api_warning("get_analytical_jacobian")
    _check_grad_out(grad_out, "get_analytical_jacobian")
    inputs = _as_tuple(inputs)
    positions = [i for i, t in enumerate(inputs)
                 if isinstance(t, pyad.Variable) and t.requires_grad]
    correct_grad_sizes = correct_grad_types = True
    try:
        first = _analytical_jacobians(output, inputs, positions, False, 0)
    except GradcheckError:
        correct_grad_sizes = False
        first = {i: numpy.zeros((_real_size(output), _real_size(inputs[i])))
                 for i in positions}
    if correct_grad_sizes:
        try:
            _analytical_jacobians(output, inputs, positions, True, 0)
        except GradcheckError:
            correct_grad_types = False
        second = _analytical_jacobians(output, inputs, positions, False, 0)
        reentrant = not any(_differs(first[i], second[i], nondet_tol) for i in positions)
    else:
        reentrant = True
    jacobians = tuple(pyad.Variable(numpy.ascontiguousarray(first[i].T)) for i in positions)
    return jacobians, reentrant, correct_grad_sizes, correct_grad_types

# Convolution and pooling (exported by pyad.nn.functional).
#
# im2col: a strided window view of the (padded) input, shape (N, C, oh, ow, kh, kw),
# multiplied with the weight by one BLAS matmul. Its adjoint, col2im ("fold"), adds the
# columns back with one strided slice per kernel position (a loop over kh*kw, never over
# pixels). _unfold and _fold are each other's backward, so every formula written with
# them (and einsum, pad, getitem) can be differentiated again, to any order.


cdef object _window_view(object data, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh,
                         Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t oh,
                         Py_ssize_t ow, bint writeable=False):
    # (N, C, Hp, Wp) -> a view (N, C, oh, ow, kh, kw) of the windows (read-only unless
    # asked: windows overlap, so only writes to one kernel position at a time are safe).
    if data.ndim != 4 or oh < 0 or ow < 0 or (oh and (oh - 1) * sh + (kh - 1) * dh + 1 >
                                                      data.shape[2]) or (
            ow and (ow - 1) * sw + (kw - 1) * dw + 1 > data.shape[3]):
        # as_strided does not check: never make a view past the end of the array
        raise RuntimeError("im2col(): %d x %d windows of a %d x %d kernel do not fit an input "
                           "of shape %s" % (oh, ow, kh, kw, _shape_str(data.shape)))
    s = data.strides
    return _xp_of(data).lib.stride_tricks.as_strided(
        data, (data.shape[0], data.shape[1], oh, ow, kh, kw),
        (s[0], s[1], s[2] * sh, s[3] * sw, s[2] * dh, s[3] * dw), writeable=writeable)


cdef object _fold_data(object cols, Py_ssize_t hp, Py_ssize_t wp, Py_ssize_t sh,
                       Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw):
    # The adjoint of _window_view: cols (N, C, oh, ow, kh, kw) summed into (N, C, hp, wp).
    cdef Py_ssize_t i, j
    if cols.ndim != 6:            # (bounds checks are off: check before indexing shapes)
        raise RuntimeError("col2im(): expected 6-D columns (N, C, oh, ow, kh, kw), got shape %s"
                           % _shape_str(cols.shape))
    cdef Py_ssize_t oh = cols.shape[2], ow = cols.shape[3]
    cdef Py_ssize_t kh = cols.shape[4], kw = cols.shape[5]
    out = _xp_of(cols).zeros((cols.shape[0], cols.shape[1], hp, wp), dtype=cols.dtype)
    if oh == 0 or ow == 0:
        return out
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                j * dw:j * dw + (ow - 1) * sw + 1:sw] += cols[:, :, :, :, i, j]
    return out


cdef class UnfoldBackward(Node):
    cdef Py_ssize_t hp, wp, sh, sw, dh, dw

    cdef tuple _backward(self, tuple grads):
        return (_fold(grads[0], self.hp, self.wp, self.sh, self.sw, self.dh, self.dw),)


cdef class FoldBackward(Node):
    cdef Py_ssize_t kh, kw, sh, sw, dh, dw, oh, ow

    cdef tuple _backward(self, tuple grads):
        return (_unfold(grads[0], self.kh, self.kw, self.sh, self.sw, self.dh, self.dw,
                        self.oh, self.ow),)


cdef Variable _unfold(Variable x, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                      Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t oh, Py_ssize_t ow):
    # Differentiable im2col: (N, C, Hp, Wp) -> (N, C, oh, ow, kh, kw) (a copy).
    data = _window_view(x._data, kh, kw, sh, sw, dh, dw, oh, ow).copy()
    cdef UnfoldBackward node
    if _records(x):
        node = UnfoldBackward.__new__(UnfoldBackward)
        node.hp = x._data.shape[2]
        node.wp = x._data.shape[3]
        node.sh, node.sw, node.dh, node.dw = sh, sw, dh, dw
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


cdef Variable _fold(Variable cols, Py_ssize_t hp, Py_ssize_t wp, Py_ssize_t sh,
                    Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw):
    # Differentiable col2im: (N, C, oh, ow, kh, kw) -> (N, C, hp, wp).
    data = _fold_data(cols._data, hp, wp, sh, sw, dh, dw)
    cdef FoldBackward node
    if _records(cols):
        node = FoldBackward.__new__(FoldBackward)
        node.oh, node.ow, node.kh, node.kw = cols._data.shape[2:]
        node.sh, node.sw, node.dh, node.dw = sh, sw, dh, dw
        return _recorded1(node, data, _edge(cols))
    return _plain(data, cols._volatile)


# -- argument checks -------------------------------------------------------------------

cdef tuple _int_tuple(object value, Py_ssize_t n, str what, str name):
    # An int, or a tuple/list of n ints (a single-element one is repeated), as torch.
    if isinstance(value, (tuple, list)):
        items = [_int_arg(v, what, name) for v in value]
        if len(items) == 1:
            items = items * n
        if len(items) != n:
            raise ValueError("%s(): argument '%s' must be an int or a tuple of %d ints, got %r"
                             % (what, name, n, value))
        return tuple(items)
    return (_int_arg(value, what, name),) * n


cdef Variable _conv_input(object input, str what, str name):
    cdef Variable x = _as_variable(input, what)
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("%s(): expected a floating point %s, got %s"
                           % (what, name, x._data.dtype))
    return x


# torch's names of the integer and bool dtypes, as its "not implemented for" errors say
_TORCH_INT_NAMES = {"int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                    "uint8": "Byte", "uint16": "UInt16", "uint32": "UInt32",
                    "uint64": "UInt64", "bool": "Bool"}

_TORCH_FLOAT_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                      "float64": "Double", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble"}


cdef str _torch_dtype_name(object dtype):
    # torch's name of a dtype, as its "not implemented for 'Long'" errors say
    name = str(dtype)
    return _TORCH_INT_NAMES.get(name) or _TORCH_FLOAT_NAMES.get(name, name)


cdef Variable _pool_input(object input, str what, str kernel, str integers):
    # A pooling input: floating always; integers by torch's CPU kernels: "all" (max
    # pooling), "int64" (average pooling: only Long), "none" (adaptive average).
    # Integer data cannot require grad, so only the forward takes them.
    cdef Variable x = _as_variable(input, what)
    cdef char kind = _dtype_kind(x._data)
    if kind == b'f' or kind == b'c' or _is_float_dtype(x._data.dtype):
        return x                         # (complex: each pooling decides, as torch)
    name = str(x._data.dtype)
    if (kind == b'i' or kind == b'u') and (integers == "all" or (integers == "int64"
                                                        and name == "int64")):
        return x
    if name in _TORCH_INT_NAMES:
        raise NotImplementedError('%s(): "%s" not implemented for \'%s\''
                                  % (what, kernel, _TORCH_INT_NAMES[name]))
    raise RuntimeError("%s(): expected a floating point or integer input, got %s"
                       % (what, x._data.dtype))


cdef void _nonempty_pool_input(Variable x, bint unbatched, str what) except *:
    # torch's pooling takes an empty batch only: every other dimension must be non-empty
    cdef tuple full = x._data.shape
    cdef Py_ssize_t i
    for i in range(1, len(full)):
        if full[i] != 0:
            continue
        shape = full[1:] if unbatched else full
        raise RuntimeError("%s(): Expected 3D or 4D (batch mode) tensor with optional 0 dim "
                           "batch size for input, but got:%s"
                           % (what, "[%s]" % ", ".join(str(n) for n in shape)))


cdef tuple _batched(Variable x, Py_ssize_t nd, str what):
    # (x with a batch dim, whether one was added) for an input of nd spatial dims.
    if x._data.ndim == nd + 1:
        return _reshape(x, (1,) + x._data.shape, False), True
    if x._data.ndim != nd + 2:
        raise RuntimeError("%s(): expected a %dD (unbatched) or %dD (batched) input, got %dD "
                           "with shape %s" % (what, nd + 1, nd + 2, x._data.ndim,
                                              _shape_str(x._data.shape)))
    return x, False


# -- conv2d ----------------------------------------------------------------------------

# The convolution's backward is written once, on values (arrays in a plain backward,
# Variables under create_graph; see "gradient rules written once" in _common.pxi). Each
# _cv_* step runs NumPy/CuPy on arrays and the differentiable op on Variables.

cdef inline object _cv_reshape(object v, tuple shape):
    if isinstance(v, Variable):
        return _reshape(<Variable>v, shape, False)
    return v.reshape(shape)


cdef inline object _cv_permute(object v, tuple perm):
    if isinstance(v, Variable):
        return permute(v, *perm)
    return v.transpose(perm)


cdef inline object _cv_matmul(object a, object b):
    if _on_variables(a, b):
        return matmul(a, b)
    return _matmul_arrays(a, b)


cdef inline object _cv_sum(object v, tuple dims):
    if isinstance(v, Variable):
        return sum(v, dims)
    return _sum_data(v, dims, False)


cdef inline object _cv_fold(object cols, Py_ssize_t hp, Py_ssize_t wp, Py_ssize_t sh,
                            Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw):
    # col2im of (N, C, oh, ow, kh, kw) columns into (N, C, hp, wp)
    if isinstance(cols, Variable):
        return _fold(<Variable>cols, hp, wp, sh, sw, dh, dw)
    return _fold_data(cols, hp, wp, sh, sw, dh, dw)


cdef inline object _cv_crop(object v, Py_ssize_t top, Py_ssize_t h, Py_ssize_t left,
                            Py_ssize_t w):
    # v[:, :, top:top + h, left:left + w] (the padding taken off again), copied dense as
    # torch's input gradient is (a WGAN-GP's gradient.view(n, -1) relies on it)
    key = (slice(None), slice(None), slice(top, top + h), slice(left, left + w))
    if isinstance(v, Variable):
        return _dense(getitem(v, key))
    return _dense(v[key])


cdef class ConvolutionBackward(Node):
    cdef SavedVariable x
    cdef SavedVariable w
    cdef object cols                 # the im2col matrix (N, G, C/G*kh*kw, oh*ow), or None
    cdef bint has_bias
    cdef Py_ssize_t sh, sw, pt, pb, pl, pr, dh, dw, groups

    cdef tuple _backward(self, tuple grads):
        # gx = col2im(wᵀ g), gw = Σ_batch g colsᵀ, gb = Σ g over (N, oh, ow)
        if self._released:
            raise _freed_error(self)
        if (<Variable>grads[0])._data.ndim != 4:
            raise RuntimeError("ConvolutionBackward(): expected a 4-D gradient, got shape %s"
                               % _shape_str((<Variable>grads[0])._data.shape))
        cdef bint rec = _grad_enabled()
        v = _gv(grads[0], rec)
        wv = _sv(self.w, self, rec)
        xv = _sv(self.x, self, rec)          # version-checked even when only w needs it
        ws = wv.shape
        xs = xv.shape
        cdef Py_ssize_t n = v.shape[0], o = v.shape[1], oh = v.shape[2], ow = v.shape[3]
        cdef Py_ssize_t G = self.groups, cg = ws[1], kh = ws[2], kw = ws[3]
        g4 = _cv_reshape(v, (n, G, o // G, oh * ow))
        gx = gw = gb = None
        if self._needs_input_grad(0):
            # (G, C/G*kh*kw, O/G) @ (N, G, O/G, oh*ow) -> (N, G, C/G*kh*kw, oh*ow)
            wt = _cv_permute(_cv_reshape(wv, (G, o // G, cg * kh * kw)), (0, 2, 1))
            gc = _cv_reshape(_cv_matmul(wt, g4), (n, G * cg, kh, kw, oh, ow))
            full = _cv_fold(_cv_permute(gc, (0, 1, 4, 5, 2, 3)),
                            xs[2] + self.pt + self.pb, xs[3] + self.pl + self.pr,
                            self.sh, self.sw, self.dh, self.dw)
            gx = _cv_crop(full, self.pt, xs[2], self.pl, xs[3])
        if self._needs_input_grad(1):
            cols = self.cols
            if rec or cols is None:
                cols = self._cols(xv, kh, kw, oh, ow)
            # the batch's sum of (G, O/G, oh*ow) @ (G, oh*ow, C/G*kh*kw)
            gwn = _cv_matmul(g4, _cv_permute(cols, (0, 1, 3, 2)))
            gw = _cv_reshape(_cv_sum(gwn, (0,)), ws)
        if self.has_bias and self._needs_input_grad(2):
            gb = _cv_sum(v, (0, 2, 3))
        return (None if gx is None else _grad(gx), None if gw is None else _grad(gw),
                None if gb is None else _grad(gb))

    cdef object _cols(self, object xv, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t oh,
                      Py_ssize_t ow):
        # The padded input's windows as (N, G, C/G*kh*kw, oh*ow): a contiguous copy on
        # arrays, the differentiable unfold on Variables.
        if not isinstance(xv, Variable):
            return _im2col(xv, kh, kw, self.sh, self.sw, self.pt, self.pb, self.pl, self.pr,
                           self.dh, self.dw, oh, ow, self.groups)
        cdef Variable xpad = <Variable>xv
        if self.pt or self.pb or self.pl or self.pr:
            xpad = pad(xpad, (self.pl, self.pr, self.pt, self.pb))
        cdef Py_ssize_t n = xpad._data.shape[0], c = xpad._data.shape[1]
        cols = _unfold(xpad, kh, kw, self.sh, self.sw, self.dh, self.dw, oh, ow)
        return _reshape(permute(cols, 0, 1, 4, 5, 2, 3),
                        (n, self.groups, (c // self.groups) * kh * kw, oh * ow), False)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.x.release()
        self.w.release()
        self.cols = None


cdef object _im2col(object xd, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                    Py_ssize_t pt, Py_ssize_t pb, Py_ssize_t pl, Py_ssize_t pr,
                    Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t oh, Py_ssize_t ow,
                    Py_ssize_t groups):
    # The padded input's windows as (N, G, C/G*kh*kw, oh*ow), contiguous.
    xp = _xp_of(xd)
    cdef Py_ssize_t n = xd.shape[0], c = xd.shape[1]
    if pt or pb or pl or pr:
        xpad = xp.zeros((n, c, xd.shape[2] + pt + pb, xd.shape[3] + pl + pr), dtype=xd.dtype)
        xpad[:, :, pt:pt + xd.shape[2], pl:pl + xd.shape[3]] = xd
        xd = xpad
    cols = xp.empty((n, c, kh, kw, oh, ow), dtype=xd.dtype)
    cols[...] = _window_view(xd, kh, kw, sh, sw, dh, dw, oh, ow).transpose(0, 1, 4, 5, 2, 3)
    return cols.reshape(n, groups, (c // groups) * kh * kw, oh * ow)


cdef tuple _conv_padding(object padding, Py_ssize_t nd, tuple kernel, tuple stride,
                         tuple dilation, str what):
    # (before, after) per spatial dim from an int, a tuple, "valid" or "same".
    cdef Py_ssize_t i, total
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nd
        if padding == "same":
            if builtins.any(s != 1 for s in stride):
                raise ValueError("%s(): padding='same' is not supported for strided "
                                 "convolutions" % what)
            out = []
            for i in range(nd):
                total = dilation[i] * (kernel[i] - 1)
                out.append((total // 2, total - total // 2))
            return tuple(out)
        raise ValueError("%s(): invalid padding string %r, should be one of 'valid', 'same'"
                         % (what, padding))
    p = _int_tuple(padding, nd, what, "padding")
    if builtins.any(v < 0 for v in p):
        raise RuntimeError("%s(): negative padding is not supported, got %s" % (what, p))
    return tuple((v, v) for v in p)


cdef Variable _conv2d(Variable x, Variable w, object bias, tuple stride, tuple pads,
                      tuple dilation, Py_ssize_t groups, str what):
    # x (N, C, H, W), w (O, C/groups, kh, kw): checks, then the forward and its node.
    if w._data.dtype != x._data.dtype:
        raise RuntimeError("%s(): input (%s) and weight (%s) must have the same dtype"
                           % (what, x._data.dtype, w._data.dtype))
    if groups <= 0:
        raise RuntimeError("%s(): non-positive groups is not supported, got %d"
                           % (what, groups))
    cdef Py_ssize_t n = x._data.shape[0], c = x._data.shape[1]
    cdef Py_ssize_t o = w._data.shape[0], kh = w._data.shape[2], kw = w._data.shape[3]
    if builtins.any(s <= 0 for s in stride):
        raise RuntimeError("%s(): non-positive stride is not supported, got %s"
                           % (what, stride))
    if builtins.any(d <= 0 for d in dilation):
        raise RuntimeError("%s(): dilation should be greater than zero, got %s"
                           % (what, dilation))
    if o % groups:
        raise RuntimeError("%s(): the weight's out_channels (%d) must be divisible by "
                           "groups (%d)" % (what, o, groups))
    if c != w._data.shape[1] * groups:
        raise RuntimeError("%s(): expected input of shape %s to have %d channels (weight %s, "
                           "groups=%d), but got %d channels instead"
                           % (what, _shape_str(x._data.shape), w._data.shape[1] * groups,
                              _shape_str(w._data.shape), groups, c))
    cdef Variable b = None
    if bias is not None:
        b = _as_variable(bias, "conv2d")
        if b._data.shape != (o,):
            raise RuntimeError("%s(): expected bias of shape (%d,), got %s"
                               % (what, o, _shape_str(b._data.shape)))
        if b._data.dtype != x._data.dtype:
            raise RuntimeError("%s(): input (%s) and bias (%s) must have the same dtype"
                               % (what, x._data.dtype, b._data.dtype))
    cdef Py_ssize_t pt = pads[0][0], pb = pads[0][1], pl = pads[1][0], pr = pads[1][1]
    cdef Py_ssize_t hp = x._data.shape[2] + pt + pb, wp = x._data.shape[3] + pl + pr
    cdef Py_ssize_t eh = dilation[0] * (kh - 1) + 1, ew = dilation[1] * (kw - 1) + 1
    if eh > hp or ew > wp or kh == 0 or kw == 0:
        raise RuntimeError("%s(): the (dilated) kernel size (%d, %d) is larger than the padded "
                           "input size (%d, %d)" % (what, eh, ew, hp, wp))
    cdef Py_ssize_t oh = (hp - eh) // stride[0] + 1, ow = (wp - ew) // stride[1] + 1
    xp = _xp_of(x._data)
    wd = w._data
    cols = _im2col(x._data, kh, kw, stride[0], stride[1], pt, pb, pl, pr,
                   dilation[0], dilation[1], oh, ow, groups)
    # (G, O/G, C/G*kh*kw) @ (N, G, C/G*kh*kw, oh*ow) -> (N, G, O/G, oh*ow)
    data = _matmul_arrays(wd.reshape(groups, o // groups, cols.shape[2]), cols)
    data = data.reshape(n, o, oh, ow)
    if b is not None:
        data += b._data.reshape(o, 1, 1)
    cdef ConvolutionBackward node
    cdef bint rec = _grad_enabled() and (_requires_grad_now(x) or _requires_grad_now(w) or (
        b is not None and _requires_grad_now(b)))
    if rec:
        node = ConvolutionBackward.__new__(ConvolutionBackward)
        node.x = _save(x, False, 0)
        node.w = _save(w, False, 1)
        if _requires_grad_now(w):
            node.cols = cols
        node.has_bias = b is not None
        node.sh, node.sw = stride
        node.dh, node.dw = dilation
        node.pt, node.pb, node.pl, node.pr = pt, pb, pl, pr
        node.groups = groups
        return _recorded(node, data, (_edge(x), _edge(w), _edge(b) if b is not None else
                                      _NO_EDGE))
    return _plain(data, x._volatile or w._volatile or (b is not None and b._volatile))


cdef tuple _NHWC = (0, 2, 3, 1)


cdef bint _is_channels_last(Variable v):
    # torch's is_channels_last_strides_2d (a (O, 1, kh, kw) weight laid out NHWC counts
    # though it is also C-contiguous; a plain C-contiguous (N, C>1, H, W) does not)
    d = v._data
    if d.ndim != 4 or (d.flags.c_contiguous and d.shape[1] != 1):
        return False
    return _strides_like(d, _NHWC)


cdef object _channels_last_like(object out, Variable x, Variable w=None):
    # torch's suggest_memory_format: a channels_last input (or weight) gives a
    # channels_last result, the same values in NHWC memory. `out` is the op's fresh
    # result (its memory nobody else holds), so it is relaid in place.
    cdef Variable o = <Variable>out
    if (o._data.ndim == 4 and (_is_channels_last(x) or (w is not None and
                                                         _is_channels_last(w)))
            and o._data.strides != _nhwc_strides(o._data)):
        o._data = _in_layout(o._data, _NHWC)
    return out


cdef tuple _nhwc_strides(object data):
    # torch's channels_last strides of a 4-D shape (in bytes), size-1 dims included:
    # an (N, C, 1, 1) result has strides (C, 1, C, C), not the C order's (C, 1, 1, 1)
    n, c, h, w = data.shape
    cdef Py_ssize_t item = data.itemsize
    return (h * w * c * item, item, w * c * item, c * item)


@profiled_op
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of a (N, C, H, W) or (C, H, W) input with a
    (O, C/groups, kh, kw) weight, as ``torch.nn.functional.conv2d``. ``padding`` is an
    int, a pair, ``"valid"`` or ``"same"``.

    >>> x = Variable(numpy.arange(16.).reshape(1, 1, 4, 4))
    >>> conv2d(x, Variable(numpy.ones((1, 1, 2, 2))), stride=2)
    tensor([[[[10., 18.],
              [42., 50.]]]], dtype=float64)
    """
    cdef Variable x = _conv_input(input, "conv2d", "input")
    cdef Variable w = _as_variable(weight, "conv2d")
    if w._data.ndim != 4:
        raise RuntimeError("conv2d(): expected a 4D weight (out_channels, in_channels/groups, "
                           "kH, kW), got %dD with shape %s"
                           % (w._data.ndim, _shape_str(w._data.shape)))
    x, unbatched = _batched(x, 2, "conv2d")
    st = _int_tuple(stride, 2, "conv2d", "stride")
    dil = _int_tuple(dilation, 2, "conv2d", "dilation")
    pads = _conv_padding(padding, 2, w._data.shape[2:], st, dil, "conv2d")
    out = _conv2d(x, w, bias, st, pads, dil, _int_arg(groups, "conv2d", "groups"), "conv2d")
    out = _channels_last_like(out, x, w)
    return _reshape(out, (<Variable>out)._data.shape[1:], False) if unbatched else out


@profiled_op
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of a (N, C, L) or (C, L) input with a (O, C/groups, k) weight, as
    ``torch.nn.functional.conv1d`` (computed as a conv2d of height 1).

    >>> conv1d(Variable(numpy.array([[[1., 2., 3., 4.]]])), Variable(numpy.ones((1, 1, 2))))
    tensor([[[3., 5., 7.]]], dtype=float64)
    """
    cdef Variable x = _conv_input(input, "conv1d", "input")
    cdef Variable w = _as_variable(weight, "conv1d")
    if w._data.ndim != 3:
        raise RuntimeError("conv1d(): expected a 3D weight (out_channels, in_channels/groups, "
                           "kW), got %dD with shape %s"
                           % (w._data.ndim, _shape_str(w._data.shape)))
    x, unbatched = _batched(x, 1, "conv1d")
    st = _int_tuple(stride, 1, "conv1d", "stride")
    dil = _int_tuple(dilation, 1, "conv1d", "dilation")
    pads = _conv_padding(padding, 1, w._data.shape[2:], st, dil, "conv1d")
    out = _conv2d(unsqueeze(x, 2), unsqueeze(w, 2), bias, (1,) + st, ((0, 0),) + pads,
                  (1,) + dil, _int_arg(groups, "conv1d", "groups"), "conv1d")
    out = squeeze(out, 2)
    if unbatched:
        return _reshape(out, (<Variable>out)._data.shape[1:], False)
    return _name_grad_fn(out, input, "ConvolutionBackward")     # (torch's one node)


@profiled_op
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 2-D convolution (the gradient of conv2d w.r.t. its input) of a
    (N, C, H, W) or (C, H, W) input with a (C, O/groups, kh, kw) weight, as
    ``torch.nn.functional.conv_transpose2d``.

    >>> conv_transpose2d(Variable(numpy.ones((1, 1, 2, 2))), Variable(numpy.ones((1, 1, 2, 2))))
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]], dtype=float64)
    """
    what = "conv_transpose2d"
    cdef Variable x = _conv_input(input, what, "input")
    cdef Variable w = _as_variable(weight, "conv_transpose2d")
    if w._data.ndim != 4:
        raise RuntimeError("%s(): expected a 4D weight (in_channels, out_channels/groups, "
                           "kH, kW), got %dD with shape %s"
                           % (what, w._data.ndim, _shape_str(w._data.shape)))
    if w._data.dtype != x._data.dtype:
        raise RuntimeError("%s(): input (%s) and weight (%s) must have the same dtype"
                           % (what, x._data.dtype, w._data.dtype))
    x, unbatched = _batched(x, 2, what)
    st = _int_tuple(stride, 2, what, "stride")
    dil = _int_tuple(dilation, 2, what, "dilation")
    pd = _int_tuple(padding, 2, what, "padding")
    op = _int_tuple(output_padding, 2, what, "output_padding")
    cdef Py_ssize_t G = _int_arg(groups, what, "groups")
    if G <= 0:
        raise RuntimeError("%s(): non-positive groups is not supported, got %d" % (what, G))
    if builtins.any(s <= 0 for s in st) or builtins.any(d <= 0 for d in dil):
        raise RuntimeError("%s(): stride and dilation must be positive, got stride=%s, "
                           "dilation=%s" % (what, st, dil))
    if builtins.any(p < 0 for p in pd) or builtins.any(p < 0 for p in op):
        raise RuntimeError("%s(): negative padding is not supported, got padding=%s, "
                           "output_padding=%s" % (what, pd, op))
    for i in range(2):
        if op[i] >= st[i] and op[i] >= dil[i]:
            raise RuntimeError("%s(): output padding must be smaller than either stride or "
                               "dilation, got output_padding=%s, stride=%s, dilation=%s"
                               % (what, op, st, dil))
    cdef Py_ssize_t n = x._data.shape[0], c = x._data.shape[1], h = x._data.shape[2]
    cdef Py_ssize_t wi = x._data.shape[3]
    cdef Py_ssize_t kh = w._data.shape[2], kw = w._data.shape[3]
    if c != w._data.shape[0]:
        raise RuntimeError("%s(): expected input of shape %s to have %d channels (weight %s), "
                           "but got %d channels instead"
                           % (what, _shape_str(x._data.shape), w._data.shape[0],
                              _shape_str(w._data.shape), c))
    if c % G:
        raise RuntimeError("%s(): in_channels (%d) must be divisible by groups (%d)"
                           % (what, c, G))
    cdef Py_ssize_t og = w._data.shape[1], o = og * G
    cdef Py_ssize_t hf = (h - 1) * st[0] + dil[0] * (kh - 1) + 1 + op[0]
    cdef Py_ssize_t wf = (wi - 1) * st[1] + dil[1] * (kw - 1) + 1 + op[1]
    if hf - 2 * pd[0] <= 0 or wf - 2 * pd[1] <= 0 or kh == 0 or kw == 0 or h == 0 or wi == 0:
        raise RuntimeError("%s(): the output size (%d, %d) is too small for input %s, weight "
                           "%s and padding %s" % (what, hf - 2 * pd[0], wf - 2 * pd[1],
                                                  _shape_str(x._data.shape),
                                                  _shape_str(w._data.shape), pd))
    x5 = _reshape(x, (n, G, c // G, h, wi), False)
    w5 = _reshape(w, (G, c // G, og, kh, kw), False)
    cols = _reshape(einsum("ngcpq,gcoij->ngopqij", x5, w5), (n, o, h, wi, kh, kw), False)
    out = _fold(cols, hf, wf, st[0], st[1], dil[0], dil[1])
    if pd[0] or pd[1]:
        out = getitem(out, (slice(None), slice(None), slice(pd[0], hf - pd[0]),
                            slice(pd[1], wf - pd[1])))
    if bias is not None:
        b = _as_variable(bias, "conv_transpose2d")
        if (<Variable>b)._data.shape != (o,):
            raise RuntimeError("%s(): expected bias of shape (%d,), got %s"
                               % (what, o, _shape_str((<Variable>b)._data.shape)))
        out = add(out, _reshape(b, (o, 1, 1), False))
    if _is_channels_last(x) or _is_channels_last(w):
        # torch's result follows a channels_last input or weight (out may be a view of
        # the folded columns here, so a differentiable copy, not a relayout in place)
        out = (<Variable>out).contiguous(memory_format=channels_last)
    return _reshape(out, (<Variable>out)._data.shape[1:], False) if unbatched else out


# -- pooling ---------------------------------------------------------------------------

cdef Py_ssize_t _pool_out(Py_ssize_t size, Py_ssize_t k, Py_ssize_t s, Py_ssize_t p,
                          Py_ssize_t d, bint ceil_mode):
    # torch's pooling_output_shape: a window that would start in the right padding is dropped.
    cdef Py_ssize_t span = size + 2 * p - d * (k - 1) - 1
    cdef Py_ssize_t out
    if span < 0:
        return 0
    if ceil_mode:
        out = (span + s - 1) // s + 1       # no negative operands: cdivision is on
        if (out - 1) * s >= size + p:
            out -= 1
    else:
        out = span // s + 1
    return out


cdef tuple _pool_args(Variable x, object kernel_size, object stride, object padding,
                      object dilation, bint ceil_mode, str what):
    k = _int_tuple(kernel_size, 2, what, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) \
        else _int_tuple(stride, 2, what, "stride")
    p = _int_tuple(padding, 2, what, "padding")
    d = _int_tuple(dilation, 2, what, "dilation")
    if builtins.any(v <= 0 for v in k) or builtins.any(v <= 0 for v in s) or \
            builtins.any(v <= 0 for v in d):
        raise RuntimeError("%s(): kernel_size, stride and dilation must be greater than zero, "
                           "got kernel_size=%s, stride=%s, dilation=%s" % (what, k, s, d))
    if builtins.any(v < 0 for v in p) or p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError("%s(): pad should be at most half of the kernel size, but got "
                           "padding=%s and kernel_size=%s" % (what, p, k))
    oh = _pool_out(x._data.shape[2], k[0], s[0], p[0], d[0], ceil_mode)
    ow = _pool_out(x._data.shape[3], k[1], s[1], p[1], d[1], ceil_mode)
    if oh <= 0 or ow <= 0:
        raise RuntimeError("%s(): the output size (%d, %d) is too small for an input of shape "
                           "%s" % (what, oh, ow, _shape_str(x._data.shape)))
    return k, s, p, d, oh, ow


# Max pooling records where each window's maximum sat in one of two forms. Windows
# that tile the input (kernel == stride, no padding or dilation: the usual 2x2 pool)
# are reduced in two separable stages, along each window's rows (W) and then across
# them (H); each stage is k strided slices combined with `maximum`, and the backward
# sends each window's gradient to the slice that held its maximum. Other windows keep
# the kernel offset of each maximum and scatter the gradient back through it.

cdef inline object _stage_slice(object a, int axis, Py_ssize_t j, Py_ssize_t kk,
                                Py_ssize_t o):
    # Entry j of each of the o windows of size kk along axis 2 or 3 (a strided view).
    sl = slice(j, j + (o - 1) * kk + 1, kk)
    if axis == 2:
        return a[:, :, sl]
    return a[:, :, :, sl]


cdef list _stage_selection(list better, Py_ssize_t kk):
    # Which slice holds each window's maximum, as kk bool masks: slice j when it replaced
    # the running maximum (better[j - 1]) and no later slice did.
    cdef Py_ssize_t j
    cdef list sel = [None] * kk
    later = None
    for j in range(kk - 1, 0, -1):
        b = better[j - 1]
        if later is None:
            sel[j] = b
            later = b
        else:
            sel[j] = b & ~later
            later = later | b
    sel[0] = ~later
    return sel


cdef tuple _max_stage(object xd, int axis, Py_ssize_t kk, Py_ssize_t o, bint masks):
    # The maximum over o windows of kk entries along axis (2 or 3), and (if masks) the
    # selection masks for the backward. A slice replaces the running maximum when it is
    # strictly greater (ties keep the first) or NaN (the last NaN wins), as torch; the
    # rows' stage runs first, so a window's first maximum is the first in row-major order.
    if kk == 1:
        return xd, None
    xp = _xp_of(xd)
    cdef Py_ssize_t j
    m = _stage_slice(xd, axis, 0, kk, o)
    better = []
    for j in range(1, kk):
        part = _stage_slice(xd, axis, j, kk, o)
        if masks:
            b = xp.greater(part, m)
            b |= xp.isnan(part)
            better.append(b)
        m = xp.maximum(m, part)              # NaN propagates
    return m, (_stage_selection(better, kk) if masks else None)


cdef object _stage_back_data(object gd, list sel, int axis, Py_ssize_t kk,
                             Py_ssize_t length):
    # The adjoint of one stage on arrays: each window's gradient goes to the slice that
    # held its maximum, zero elsewhere (and in the entries past the last window). The
    # gradient is masked bitwise (and with all-ones or zero), which keeps inf and NaN
    # gradients where they belong and writes +0 elsewhere, as torch.
    xp = _xp_of(gd)
    cdef Py_ssize_t o = gd.shape[axis], j
    shape = list(gd.shape)
    shape[axis] = length
    out = xp.empty(tuple(shape), dtype=gd.dtype)
    if o * kk < length:
        if axis == 2:
            out[:, :, o * kk:] = 0
        else:
            out[:, :, :, o * kk:] = 0
    ud = numpy.dtype("u%d" % gd.dtype.itemsize)
    gu = gd.view(ud)
    outu = out.view(ud)
    for j in range(kk - 1, -1, -1):
        if j == 0 and kk == 2:
            xp.invert(mask, out=mask)        # the first slice: where the second is not
        else:
            mask = sel[j].astype(ud)
            xp.negative(mask, out=mask)      # True -> all ones
        xp.bitwise_and(gu, mask, out=_stage_slice(outu, axis, j, kk, o))
    return out


cdef Variable _stage_back(Variable g, list sel, int axis, Py_ssize_t kk, Py_ssize_t length):
    # The same adjoint, differentiable: masked slices interleaved by stack and reshape.
    xp = _xp_of(g._data)
    cdef Py_ssize_t o = g._data.shape[axis]
    parts = [where_const(xp.logical_not(s), 0, g) for s in sel]
    shape = list(g._data.shape)
    shape[axis] = o * kk
    out = _reshape(stack(parts, axis + 1), tuple(shape), False)
    if o * kk < length:
        widths = [0, 0, 0, 0]
        widths[2 * (3 - axis) + 1] = length - o * kk     # (left, right) of W, then of H
        out = pad(out, tuple(widths))
    return out


cdef inline object _v_stage_back(object v, list sel, int axis, Py_ssize_t kk,
                                 Py_ssize_t length):
    if kk == 1:
        return v
    if isinstance(v, Variable):
        return _stage_back(<Variable>v, sel, axis, kk, length)
    return _stage_back_data(v, sel, axis, kk, length)


cdef object _pool_flat_index(object arg, tuple k, tuple s, tuple d, tuple p, Py_ssize_t h,
                             Py_ssize_t w):
    # The flat input position (h * W + w) of each window's maximum, from its kernel
    # offset. A window of only -inf whose first entry is padding points at its first
    # real entry, as torch.
    xp = _xp_of(arg)
    cdef Py_ssize_t oh = arg.shape[2], ow = arg.shape[3]
    hi = (xp.arange(oh).reshape(oh, 1) * s[0] - p[0]) + (arg // k[1]) * d[0]
    wi = (xp.arange(ow) * s[1] - p[1]) + (arg % k[1]) * d[1]
    if p[0] or p[1]:
        hi = xp.clip(hi, 0, h - 1)
        wi = xp.clip(wi, 0, w - 1)
    return hi * w + wi


cdef object _v_pool_scatter(object v, MaxPool2dBackward node):
    # The adjoint of general windows: each window's gradient added at the input position
    # of its maximum (overlapping windows add up).
    cdef Py_ssize_t n = node.shape[0], c = node.shape[1], h = node.shape[2]
    cdef Py_ssize_t w = node.shape[3], i, j, m
    if isinstance(v, Variable):
        index = _pool_flat_index(node.arg, node.k, node.s, node.d, node.p, h, w)
        m = index.shape[2] * index.shape[3]
        zeros = _plain(_xp_of(index).zeros((n, c, h * w), dtype=(<Variable>v)._data.dtype),
                       False)
        return _reshape(scatter_add(zeros, 2, index.reshape(n, c, m),
                                    _reshape(v, (n, c, m), False)), node.shape, False)
    xp = _xp_of(v)
    if node.p[0] or node.p[1]:
        # With padding, through the flat positions (a window of only -inf may point at an
        # entry outside its kernel offsets' slice).
        index = _pool_flat_index(node.arg, node.k, node.s, node.d, node.p, h, w)
        index = index + xp.arange(n * c).reshape(n, c, 1, 1) * (h * w)
        out = xp.bincount(index.ravel(), xp.ascontiguousarray(v).ravel(), n * c * h * w)
        return out.astype(v.dtype, copy=False).reshape(node.shape)
    # Each kernel offset is one strided slice of the (padded) input: add the gradient of
    # the windows whose maximum sits there.
    full = xp.zeros((n, c, node.hp, node.wp), dtype=v.dtype)
    gv = _window_view(full, node.k[0], node.k[1], node.s[0], node.s[1], node.d[0],
                      node.d[1], node.arg.shape[2], node.arg.shape[3], True)
    disjoint = (node.s[0] >= node.d[0] * (node.k[0] - 1) + 1 and
                node.s[1] >= node.d[1] * (node.k[1] - 1) + 1)
    for i in range(node.k[0]):
        for j in range(node.k[1]):
            mask = node.arg == i * node.k[1] + j
            if disjoint:
                xp.copyto(gv[:, :, :, :, i, j], v, where=mask)
            else:
                gv[:, :, :, :, i, j] += xp.where(mask, v, 0)
    return _dense(full[:, :, :h, :w])


cdef class MaxPool2dBackward(Node):
    cdef object arg                  # general windows: each maximum's kernel offset
    cdef list sel_w, sel_h           # tiling windows: the two stages' selection masks
    cdef tuple shape                 # the input shape (N, C, H, W)
    cdef tuple out_shape             # (N, C, oh, ow)
    cdef tuple k, s, d, p
    cdef Py_ssize_t hp, wp           # the padded input size (general windows)

    def name(self):
        """torch's name for max_pool2d's node."""
        return _display_name_or(self, "MaxPool2DWithIndicesBackward")

    cdef tuple _backward(self, tuple grads):
        if self._released:
            raise _freed_error(self)
        cdef Variable g = grads[0]
        if g._data.shape != self.out_shape:
            raise RuntimeError("MaxPool2dBackward(): expected a gradient of shape %s, got %s"
                               % (_shape_str(self.out_shape), _shape_str(g._data.shape)))
        cdef bint rec = _grad_enabled()
        v = _gv(g, rec)
        if self.arg is None:         # tiling windows: undo the H stage, then the W stage
            v = _v_stage_back(v, self.sel_h, 2, self.k[0], self.shape[2])
            v = _v_stage_back(v, self.sel_w, 3, self.k[1], self.shape[3])
        else:
            v = _v_pool_scatter(v, self)
        # (torch's formula takes the input: under create_graph the result depends on it)
        return (_zero_dependence_on_edge(_grad(v), self, 0) if rec else _grad(v),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.arg = None
        self.sel_w = self.sel_h = None


@profiled_op
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling over (N, C, H, W) or (C, H, W), as ``torch.nn.functional.max_pool2d``;
    ``stride`` defaults to ``kernel_size``. With ``return_indices`` also the flat index
    (h * W + w) of each maximum in its input plane. Ties: the first maximum wins.

    >>> max_pool2d(Variable(numpy.arange(16.).reshape(1, 4, 4)), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]], dtype=float64)
    """
    _refuse_complex(input, None, "max_pool2d")
    cdef Variable x = _pool_input(input, "max_pool2d", "max_pool2d", "all")
    x, unbatched = _batched(x, 2, "max_pool2d")
    _nonempty_pool_input(x, unbatched, "max_pool2d")
    k, s, p, d, oh, ow = _pool_args(x, kernel_size, stride, padding, dilation, ceil_mode,
                                    "max_pool2d")
    xd = x._data
    xp = _xp_of(xd)
    cdef Py_ssize_t n = xd.shape[0], c = xd.shape[1], h = xd.shape[2], w = xd.shape[3]
    cdef Py_ssize_t i, j
    cdef bint rec = _records(x)
    cdef MaxPool2dBackward node
    if (not return_indices and k == s and p == (0, 0) and d == (1, 1) and k[0] * k[1] > 1
            and oh * k[0] <= h and ow * k[1] <= w and xd.dtype.kind == "f"
            and xd.dtype.itemsize in (2, 4, 8)):
        # tiling windows: the rows' stage, then across the rows
        data, sel_w = _max_stage(xd, 3, k[1], ow, rec)
        data, sel_h = _max_stage(data, 2, k[0], oh, rec)
        if rec:
            node = MaxPool2dBackward.__new__(MaxPool2dBackward)
            node.sel_w, node.sel_h = sel_w, sel_h
            node.shape, node.out_shape = xd.shape, data.shape
            node.k, node.s, node.d, node.p = k, s, d, p
            out = _recorded1(node, data, _edge(x))
        else:
            out = _plain(data, x._volatile)
        out = _channels_last_like(out, x)
        return _reshape(out, (<Variable>out)._data.shape[1:], False) if unbatched else out
    cdef Py_ssize_t hp = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1
    cdef Py_ssize_t wp = (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    cdef Py_ssize_t pb = builtins.max(hp - h - p[0], 0), pr = builtins.max(wp - w - p[1], 0)
    if p[0] or p[1] or pb or pr:
        # padding never wins: -inf, or the integer dtype's least value (only a window
        # whose input values all equal that least value can report a padded position)
        low = -numpy.inf if xd.dtype.kind == "f" else numpy.iinfo(xd.dtype).min
        xpad = xp.full((n, c, h + p[0] + pb, w + p[1] + pr), low, dtype=xd.dtype)
        xpad[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = xd
    else:
        xpad = xd
    # One pass per kernel offset (a strided slice): keep the running maximum and its
    # offset. Strictly greater replaces, so ties keep the first; NaN replaces, as torch.
    win = _window_view(xpad, k[0], k[1], s[0], s[1], d[0], d[1], oh, ow)
    data = win[:, :, :, :, 0, 0].copy()
    arg = xp.zeros(data.shape, dtype=numpy.int64)
    for i in range(k[0]):
        for j in range(k[1]):
            if i == 0 and j == 0:
                continue
            cand = win[:, :, :, :, i, j]
            better = cand > data
            better |= cand != cand
            xp.copyto(data, cand, where=better)
            xp.copyto(arg, i * k[1] + j, where=better)
    if rec:
        node = MaxPool2dBackward.__new__(MaxPool2dBackward)
        node.arg = arg
        node.shape, node.out_shape = xd.shape, data.shape
        node.k, node.s, node.d, node.p = k, s, d, p
        node.hp, node.wp = xpad.shape[2], xpad.shape[3]
        out = _recorded1(node, data, _edge(x))
    else:
        out = _plain(data, x._volatile)
    out = _channels_last_like(out, x)
    if unbatched:
        out = _reshape(out, (<Variable>out)._data.shape[1:], False)
    if return_indices:
        index = _pool_flat_index(arg, k, s, d, p, h, w)
        if _is_channels_last(x):
            index = _in_layout(index, _NHWC)       # torch's indices share the layout
        return out, _plain(index[0] if unbatched else index, False)
    return out


@profiled_op
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over (N, C, H, W) or (C, H, W), as
    ``torch.nn.functional.avg_pool2d``; ``stride`` defaults to ``kernel_size``.

    >>> avg_pool2d(Variable(numpy.arange(16.).reshape(1, 4, 4)), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]], dtype=float64)
    """
    _refuse_complex(input, None, "avg_pool2d")
    cdef Variable x = _pool_input(input, "avg_pool2d", "avg_pool2d", "int64")
    x, unbatched = _batched(x, 2, "avg_pool2d")
    _nonempty_pool_input(x, unbatched, "avg_pool2d")
    k, s, p, d, oh, ow = _pool_args(x, kernel_size, stride, padding, 1, ceil_mode,
                                    "avg_pool2d")
    if divisor_override is not None:
        divisor_override = _int_arg(divisor_override, "avg_pool2d", "divisor_override")
        if divisor_override == 0:
            raise RuntimeError("avg_pool2d(): divisor must be not zero")
    cdef Py_ssize_t h = x._data.shape[2], w = x._data.shape[3]
    cdef Py_ssize_t hp = (oh - 1) * s[0] + k[0], wp = (ow - 1) * s[1] + k[1]
    cdef Py_ssize_t pb = builtins.max(hp - h - p[0], 0), pr = builtins.max(wp - w - p[1], 0)
    xpad = pad(x, (p[1], pr, p[0], pb)) if (p[0] or p[1] or pb or pr) else x
    total = sum(_unfold(xpad, k[0], k[1], s[0], s[1], 1, 1, oh, ow), (4, 5))
    # torch's divisor per window: its size within the padded input (count_include_pad)
    # or within the input itself.
    # Computed with the data's array module, so on a GPU it is made there (no host
    # array copied over).
    xp = _xp_of(x._data)
    counts = []
    for size, kk, ss, pp, no in ((h, k[0], s[0], p[0], oh), (w, k[1], s[1], p[1], ow)):
        start = xp.arange(no) * ss - pp
        end = xp.minimum(start + kk, size + pp)
        if not count_include_pad:
            start = xp.maximum(start, 0)
            end = xp.minimum(end, size)
        counts.append(end - start)
    if _dtype_kind(x._data) == b'i':
        # int64 (nothing to differentiate): the sum divided by the divisor, rounded
        # toward zero, in integers, as torch's CPU kernel
        divisor = divisor_override if divisor_override is not None else \
            counts[0][:, None] * counts[1][None, :]
        num = (<Variable>total)._data
        quot = xp.abs(num) // xp.abs(divisor)
        out = _plain(xp.where((num < 0) != (divisor < 0), -quot, quot), False)
    elif divisor_override is not None:
        divisor = float(divisor_override)      # a Python number: no array at all
        out = div(total, divisor)
    else:
        divisor = (counts[0][:, None] * counts[1][None, :]).astype(x._data.dtype)
        out = div(total, _plain(divisor, False))
    out = _channels_last_like(out, x)
    if unbatched:
        out = _reshape(out, (<Variable>out)._data.shape[1:], False)
    # torch's backward formula takes the input: under create_graph the gradient depends
    # on it (with a zero derivative), and the node has torch's name
    return _grad_depends_on(out, x, "AvgPool2DBackward")


@profiled_op
def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling to ``output_size`` (an int or a pair; None keeps that
    input size), as ``torch.nn.functional.adaptive_avg_pool2d``: window i of n over a
    size L spans [floor(i*L/n), ceil((i+1)*L/n)). Complex input is taken for an output
    size of 1 only (a global average), as torch.

    >>> adaptive_avg_pool2d(Variable(numpy.arange(16.).reshape(1, 4, 4)), 1)
    tensor([[[7.5000]]], dtype=float64)
    """
    cdef Variable x = _pool_input(input, "adaptive_avg_pool2d", "adaptive_avg_pool2d",
                                  "none")
    x, unbatched = _batched(x, 2, "adaptive_avg_pool2d")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise ValueError("adaptive_avg_pool2d(): output_size must be an int or a pair, "
                             "got %r" % (output_size,))
        sizes = [x._data.shape[2 + i] if output_size[i] is None else
                 _int_arg(output_size[i], "adaptive_avg_pool2d", "output_size")
                 for i in range(2)]
    else:
        sizes = [_int_arg(output_size, "adaptive_avg_pool2d", "output_size")] * 2
    if builtins.any(v < 0 for v in sizes):
        raise RuntimeError("adaptive_avg_pool2d(): output_size must be non-negative, got %s"
                           % (tuple(sizes),))
    if sizes != [1, 1]:
        # torch computes complex input only as a global average (its mean path)
        _refuse_complex(x, None, "adaptive_avg_pool2d")
    if x._data.shape[2] == 0 or x._data.shape[3] == 0:
        raise RuntimeError("adaptive_avg_pool2d(): expected non-empty spatial dims, got input "
                           "of shape %s" % _shape_str(x._data.shape))
    xp = _xp_of(x._data)
    mats = []
    for i in range(2):
        size, no = x._data.shape[2 + i], sizes[i]
        j = xp.arange(no)                 # made on the data's device
        start = (j * size) // no
        end = -((-(j + 1) * size) // no)
        pos = xp.arange(size)
        m = ((pos >= start[:, None]) & (pos < end[:, None])) / (end - start)[:, None]
        mats.append(_plain(m.astype(x._data.dtype), False))
    out = _channels_last_like(matmul(matmul(mats[0], x), transpose(mats[1], 0, 1)), x)
    if 0 in sizes and (<Variable>out)._requires_grad:
        (<Variable>out).register_hook(_refuse_empty_pool_grad)     # torch's backward error
    if unbatched:
        out = _reshape(out, (<Variable>out)._data.shape[1:], False)
    if sizes == [1, 1]:
        return out                     # torch's mean: a gradient that does not take x
    return _grad_depends_on(out, x, "AdaptiveAvgPool2DBackward")     # (as avg_pool2d)


def _refuse_empty_pool_grad(grad):
    # torch's adaptive pooling backward refuses an empty non-batch dimension (output 0)
    raise RuntimeError("adaptive_avg_pool2d_backward(): Expected grad_output to have "
                       "non-zero size for non-batch dimensions, but grad_output has sizes %s"
                       % (list(grad.shape),))


# -- unfold / fold: the im2col pair as torch.nn.functional exposes it ---------------------

cdef tuple _block_args(str what, object kernel_size, object dilation, object padding,
                       object stride):
    k = _int_tuple(kernel_size, 2, what, "kernel_size")
    d = _int_tuple(dilation, 2, what, "dilation")
    p = _int_tuple(padding, 2, what, "padding")
    s = _int_tuple(stride, 2, what, "stride")
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError("%s(): kernel size should be greater than zero, but got "
                           "kernel_height: %d kernel_width: %d" % (what, k[0], k[1]))
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError("%s(): stride should be greater than zero, but got stride_height: "
                           "%d stride_width: %d" % (what, s[0], s[1]))
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError("%s(): dilation should be greater than zero, but got "
                           "dilation_height: %d dilation_width: %d" % (what, d[0], d[1]))
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError("%s(): padding should be non-negative, but got pad_height: %d "
                           "pad_width: %d" % (what, p[0], p[1]))
    return k, d, p, s


cdef tuple _blocks(tuple size, tuple k, tuple d, tuple p, tuple s):
    # the number of sliding blocks along each spatial dimension (may be < 1: checked by
    # the callers, which word the error as torch)
    return tuple((size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2))


cdef void _check_block_input(str what, Variable x) except *:
    name = str(x._data.dtype)
    if x._data.dtype.kind not in "fc":
        raise NotImplementedError('%s(): "%s_out_cpu" not implemented for \'%s\''
                                  % (what, "im2col" if what == "unfold" else "col2im",
                                     _torch_dtype_name(name)))


@profiled_op
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of a batched image as columns (im2col): ``(N, C, H, W)`` to
    ``(N, C * kh * kw, L)``, L the number of blocks; an unbatched ``(C, H, W)`` gives
    ``(C * kh * kw, L)``. ``torch.nn.functional.unfold``.

    >>> unfold(Variable(numpy.arange(9.).reshape(1, 1, 3, 3)), 2).tolist()
    [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    """
    what = "unfold"
    cdef Variable x = _as_variable(input, what)
    nd = x._data.ndim
    if nd == 3:
        return squeeze(unfold(unsqueeze(x, 0), kernel_size, dilation, padding, stride), 0)
    if nd != 4:
        raise RuntimeError("%s(): Input Error: Only 3D or 4D input Variables are supported (got "
                           "%dD)" % (what, nd))
    if builtins.any(n == 0 for n in x._data.shape[1:]):
        raise RuntimeError("%s(): Expected 3D or 4D (batch mode) tensor with possibly 0 batch "
                           "size and other non-zero dimensions for input, but got: [%s]"
                           % (what, ", ".join(str(n) for n in x._data.shape)))
    _check_block_input(what, x)
    k, d, p, s = _block_args(what, kernel_size, dilation, padding, stride)
    size = x._data.shape[2:]
    oh, ow = _blocks(size, k, d, p, s)
    if oh < 1 or ow < 1:
        raise RuntimeError("%s(): Given input with spatial size (%d, %d), kernel_size=(%d, %d), "
                           "dilation=(%d, %d), padding=(%d, %d), calculated shape of the array "
                           "of sliding blocks as (%d, %d), but its components must be at least "
                           "one." % (what, size[0], size[1], k[0], k[1], d[0], d[1], p[0],
                                     p[1], oh, ow))
    n, c = x._data.shape[0], x._data.shape[1]
    if p[0] or p[1]:
        x = pad(x, (p[1], p[1], p[0], p[0]))
    windows = _unfold(x, k[0], k[1], s[0], s[1], d[0], d[1], oh, ow)   # (N, C, oh, ow, kh, kw)
    return reshape(permute(windows, (0, 1, 4, 5, 2, 3)), (n, c * k[0] * k[1], oh * ow))


@profiled_op
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks (columns) back into a batched image (col2im), the adjoint of
    ``unfold``: ``(N, C * kh * kw, L)`` to ``(N, C, *output_size)``, overlapping blocks
    adding up; an unbatched ``(C * kh * kw, L)`` gives ``(C, *output_size)``.
    ``torch.nn.functional.fold``.

    >>> fold(Variable(numpy.ones((1, 4, 4))), (3, 3), 2)[0, 0].tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    what = "fold"
    cdef Variable cols = _as_variable(input, what)
    nd = cols._data.ndim
    if nd == 2:
        return squeeze(fold(unsqueeze(cols, 0), output_size, kernel_size, dilation, padding,
                            stride), 0)
    if nd != 3 or builtins.any(n == 0 for n in cols._data.shape[1:]):
        raise RuntimeError("%s(): Expected 2D or 3D (batch mode) tensor for input with possibly "
                           "0 batch size and non-zero dimensions for input, but got: [%s]"
                           % (what, ", ".join(str(n) for n in cols._data.shape)))
    _check_block_input(what, cols)
    out = _int_tuple(output_size, 2, what, "output_size")
    k, d, p, s = _block_args(what, kernel_size, dilation, padding, stride)
    n, ck, length = cols._data.shape
    if ck % (k[0] * k[1]):
        raise RuntimeError("%s(): Expected size of input's dimension 1 to be divisible by the "
                           "product of kernel_size, but got input.size(1)=%d and "
                           "kernel_size=(%d, %d)." % (what, ck, k[0], k[1]))
    oh, ow = _blocks(out, k, d, p, s)
    if oh < 1 or ow < 1:
        raise RuntimeError("%s(): Given output_size=(%d, %d), kernel_size=(%d, %d), "
                           "dilation=(%d, %d), padding=(%d, %d), stride=(%d, %d), calculated "
                           "shape of the array of sliding blocks as (%d, %d), which is too "
                           "small (non-positive)" % (what, out[0], out[1], k[0], k[1], d[0],
                                                     d[1], p[0], p[1], s[0], s[1], oh, ow))
    if oh * ow != length:
        raise RuntimeError("%s(): Given output_size=(%d, %d), kernel_size=(%d, %d), "
                           "dilation=(%d, %d), padding=(%d, %d), stride=(%d, %d), expected size "
                           "of input's dimension 2 to match the calculated number of sliding "
                           "blocks %d * %d = %d, but got input.size(2)=%d."
                           % (what, out[0], out[1], k[0], k[1], d[0], d[1], p[0], p[1], s[0],
                              s[1], oh, ow, oh * ow, length))
    c = ck // (k[0] * k[1])
    blocks = permute(reshape(cols, (n, c, k[0], k[1], oh, ow)), (0, 1, 4, 5, 2, 3))
    hp, wp = out[0] + 2 * p[0], out[1] + 2 * p[1]
    image = _fold(blocks, hp, wp, s[0], s[1], d[0], d[1])
    if p[0] or p[1]:
        image = getitem(image, (slice(None), slice(None), slice(p[0], p[0] + out[0]),
                                slice(p[1], p[1] + out[1])))
    return image


CONV_OPS = (conv1d, conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d,
            unfold, fold)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch.nn.functional only).
CONV_TITLE = "Convolution and pooling"
CONV_FUNCTION_ONLY = ("conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                      "adaptive_avg_pool2d", "unfold", "fold")

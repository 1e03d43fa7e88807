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
        return _recorded(node, data, (_edge(x),))
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
        return _recorded(node, data, (_edge(cols),))
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

cdef class ConvolutionBackward(Node):
    cdef SavedVariable x
    cdef SavedVariable w
    cdef object cols                 # the im2col matrix (N, G, C/G*kh*kw, oh*ow), or None
    cdef bint has_bias
    cdef Py_ssize_t sh, sw, pt, pb, pl, pr, dh, dw, groups

    cdef tuple _backward(self, tuple grads):
        if self._released:
            raise _freed_error(self)
        if (<Variable>grads[0])._data.ndim != 4:
            raise RuntimeError("ConvolutionBackward(): expected a 4-D gradient, got shape %s"
                               % _shape_str((<Variable>grads[0])._data.shape))
        if not _grad_enabled():
            return self._backward_arrays((<Variable>grads[0])._data)
        cdef Variable x = self.x.unpack(self)
        cdef Variable w = self.w.unpack(self)
        cdef Variable g = grads[0]
        cdef Py_ssize_t n = x._data.shape[0], c = x._data.shape[1]
        cdef Py_ssize_t o = w._data.shape[0], kh = w._data.shape[2], kw = w._data.shape[3]
        cdef Py_ssize_t oh = g._data.shape[2], ow = g._data.shape[3], G = self.groups
        g5 = _reshape(g, (n, G, o // G, oh, ow), False)
        gx = gw = gb = None
        if self._needs_input_grad(0):
            w5 = _reshape(w, (G, o // G, c // G, kh, kw), False)
            gc = _reshape(einsum("ngopq,gocij->ngcpqij", g5, w5), (n, c, oh, ow, kh, kw),
                          False)
            hp = x._data.shape[2] + self.pt + self.pb
            wp = x._data.shape[3] + self.pl + self.pr
            gx = _fold(gc, hp, wp, self.sh, self.sw, self.dh, self.dw)
            if self.pt or self.pb or self.pl or self.pr:
                gx = getitem(gx, (slice(None), slice(None),
                                  slice(self.pt, self.pt + x._data.shape[2]),
                                  slice(self.pl, self.pl + x._data.shape[3])))
        if self._needs_input_grad(1):
            xpad = x
            if self.pt or self.pb or self.pl or self.pr:
                xpad = pad(x, (self.pl, self.pr, self.pt, self.pb))
            cols = _reshape(_unfold(xpad, kh, kw, self.sh, self.sw, self.dh, self.dw, oh, ow),
                            (n, G, c // G, oh, ow, kh, kw), False)
            gw = _reshape(einsum("ngopq,ngcpqij->gocij", g5, cols), w._data.shape, False)
        if self.has_bias and self._needs_input_grad(2):
            gb = sum(g, (0, 2, 3))
        return (gx, gw, gb)

    cdef tuple _backward_arrays(self, object gd):
        # The first-order backward on arrays: two matmuls and one col2im.
        wd = self.w.data(self)
        xp = _xp_of(gd)
        cdef Py_ssize_t n = gd.shape[0], o = gd.shape[1], oh = gd.shape[2], ow = gd.shape[3]
        cdef Py_ssize_t G = self.groups, kh = wd.shape[2], kw = wd.shape[3]
        cdef Py_ssize_t cg = wd.shape[1]
        g4 = gd.reshape(n, G, o // G, oh * ow)
        gx = gw = gb = None
        if self._needs_input_grad(0):
            xs = self.x.data(self).shape
            # (G, C/G*kh*kw, O/G) @ (N, G, O/G, oh*ow) -> (N, G, C/G*kh*kw, oh*ow)
            gc = xp.matmul(wd.reshape(G, o // G, cg * kh * kw).transpose(0, 2, 1), g4)
            gc = gc.reshape(n, G * cg, kh, kw, oh, ow).transpose(0, 1, 4, 5, 2, 3)
            full = _fold_data(gc, xs[2] + self.pt + self.pb, xs[3] + self.pl + self.pr,
                              self.sh, self.sw, self.dh, self.dw)
            gx = _raw(full[:, :, self.pt:self.pt + xs[2], self.pl:self.pl + xs[3]])
        if self._needs_input_grad(1):
            xd = self.x.data(self)       # version-checked even when the columns are kept
            cols = self.cols
            if cols is None:
                cols = self._cols(xd, kh, kw, oh, ow)
            # sum over the batch of (G, O/G, oh*ow) @ (G, oh*ow, C/G*kh*kw)
            gwd = xp.matmul(g4, cols.transpose(0, 1, 3, 2)).sum(0)
            gw = _raw(gwd.reshape(wd.shape))
        if self.has_bias and self._needs_input_grad(2):
            gb = _raw(_sum_data(gd, (0, 2, 3), False))
        return (gx, gw, gb)

    cdef object _cols(self, object xd, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t oh,
                      Py_ssize_t ow):
        return _im2col(xd, kh, kw, self.sh, self.sw, self.pt, self.pb, self.pl, self.pr,
                       self.dh, self.dw, oh, ow, self.groups)

    cdef void _release_saved(self):
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
    data = xp.matmul(wd.reshape(groups, o // groups, cols.shape[2]), cols)
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
    return _reshape(out, (<Variable>out)._data.shape[1:], False) if unbatched else out


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


cdef class MaxPool2dBackward(Node):
    cdef object arg                  # kernel offset of each window's maximum (N, C, oh, ow)
    cdef tuple shape                 # the input shape (N, C, H, W)
    cdef tuple k, s, d, p
    cdef Py_ssize_t hp, wp           # the padded input size

    cdef tuple _backward(self, tuple grads):
        if self.arg is None:
            raise _freed_error(self)
        cdef Variable g = grads[0]
        cdef Py_ssize_t n = self.shape[0], c = self.shape[1], h = self.shape[2]
        cdef Py_ssize_t w = self.shape[3], i, j
        if g._data.shape != self.arg.shape:
            raise RuntimeError("MaxPool2dBackward(): expected a gradient of shape %s, got %s"
                               % (_shape_str(self.arg.shape), _shape_str(g._data.shape)))
        if not _grad_enabled() and (self.p[0] or self.p[1]):
            # With padding, through the flat positions (a window of only -inf may point
            # at an entry outside its kernel offsets' slice).
            gd = g._data
            xp = _xp_of(gd)
            index = _pool_flat_index(self.arg, self.k, self.s, self.d, self.p, h, w)
            index = index + xp.arange(n * c).reshape(n, c, 1, 1) * (h * w)
            out = xp.bincount(index.ravel(), xp.ascontiguousarray(gd).ravel(), n * c * h * w)
            return (_raw(out.astype(gd.dtype, copy=False).reshape(self.shape)),)
        if not _grad_enabled():
            # Each kernel offset is one strided slice of the padded input: add the
            # gradient of the windows whose maximum sits there.
            gd = g._data
            xp = _xp_of(gd)
            full = xp.zeros((n, c, self.hp, self.wp), dtype=gd.dtype)
            gv = _window_view(full, self.k[0], self.k[1], self.s[0], self.s[1], self.d[0],
                              self.d[1], self.arg.shape[2], self.arg.shape[3], True)
            disjoint = (self.s[0] >= self.d[0] * (self.k[0] - 1) + 1 and
                        self.s[1] >= self.d[1] * (self.k[1] - 1) + 1)
            for i in range(self.k[0]):
                for j in range(self.k[1]):
                    mask = self.arg == i * self.k[1] + j
                    if disjoint:
                        xp.copyto(gv[:, :, :, :, i, j], gd, where=mask)
                    else:
                        gv[:, :, :, :, i, j] += xp.where(mask, gd, 0)
            return (_raw(full[:, :, self.p[0]:self.p[0] + h, self.p[1]:self.p[1] + w]),)
        index = _pool_flat_index(self.arg, self.k, self.s, self.d, self.p, h, w)
        zeros = _plain(_xp_of(g._data).zeros((n, c, h * w), dtype=g._data.dtype), False)
        m = index.shape[2] * index.shape[3]
        g3 = _reshape(g, (n, c, m), False)
        return (_reshape(scatter_add(zeros, 2, index.reshape(n, c, m), g3), self.shape,
                         False),)

    cdef void _release_saved(self):
        self._released = True
        self.arg = None


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
    cdef Variable x = _conv_input(input, "max_pool2d", "input")
    x, unbatched = _batched(x, 2, "max_pool2d")
    k, s, p, d, oh, ow = _pool_args(x, kernel_size, stride, padding, dilation, ceil_mode,
                                    "max_pool2d")
    xd = x._data
    xp = _xp_of(xd)
    cdef Py_ssize_t n = xd.shape[0], c = xd.shape[1], h = xd.shape[2], w = xd.shape[3]
    cdef Py_ssize_t hp = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1
    cdef Py_ssize_t wp = (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    cdef Py_ssize_t pb = builtins.max(hp - h - p[0], 0), pr = builtins.max(wp - w - p[1], 0)
    cdef Py_ssize_t i, j
    if p[0] or p[1] or pb or pr:
        xpad = xp.full((n, c, h + p[0] + pb, w + p[1] + pr), -numpy.inf, dtype=xd.dtype)
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
    cdef MaxPool2dBackward node
    if _records(x):
        node = MaxPool2dBackward.__new__(MaxPool2dBackward)
        node.arg = arg
        node.shape = xd.shape
        node.k, node.s, node.d, node.p = k, s, d, p
        node.hp, node.wp = xpad.shape[2], xpad.shape[3]
        out = _recorded(node, data, (_edge(x),))
    else:
        out = _plain(data, x._volatile)
    if unbatched:
        out = _reshape(out, (<Variable>out)._data.shape[1:], False)
    if return_indices:
        index = _pool_flat_index(arg, k, s, d, p, h, w)
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
    cdef Variable x = _conv_input(input, "avg_pool2d", "input")
    x, unbatched = _batched(x, 2, "avg_pool2d")
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
    if divisor_override is not None:
        divisor = float(divisor_override)      # a Python number: no array at all
        out = div(total, divisor)
    else:
        divisor = (counts[0][:, None] * counts[1][None, :]).astype(x._data.dtype)
        out = div(total, _plain(divisor, False))
    return _reshape(out, (<Variable>out)._data.shape[1:], False) if unbatched else out


@profiled_op
def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling to ``output_size`` (an int or a pair; None keeps that
    input size), as ``torch.nn.functional.adaptive_avg_pool2d``: window i of n over a
    size L spans [floor(i*L/n), ceil((i+1)*L/n)). Complex input is taken for an output
    size of 1 only (a global average), as torch.

    >>> adaptive_avg_pool2d(Variable(numpy.arange(16.).reshape(1, 4, 4)), 1)
    tensor([[[7.5000]]], dtype=float64)
    """
    cdef Variable x = _conv_input(input, "adaptive_avg_pool2d", "input")
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
    out = matmul(matmul(mats[0], x), transpose(mats[1], 0, 1))
    return _reshape(out, (<Variable>out)._data.shape[1:], False) if unbatched else out


CONV_OPS = (conv1d, conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch.nn.functional only).
CONV_TITLE = "Convolution and pooling"
CONV_FUNCTION_ONLY = ("conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                      "adaptive_avg_pool2d")

# Printing Variables (torch's repr style on NumPy's array2string).


def _format_variable(Variable v):
    data = v._host_data()
    dtype = data.dtype
    if dtype.kind == "V" and dtype.fields is None and dtype.name.startswith(("bfloat", "float")):
        # ml_dtypes' bfloat16 (and float8) arrays: print their values as floats, which
        # float32 holds exactly, and name the dtype (torch prints bfloat16 as floats).
        data = data.astype(numpy.float32)
    kwargs = dict(separator=", ", prefix="tensor(", threshold=1000, edgeitems=3,
                  max_line_width=80)
    if data.dtype.kind == "f":
        # torch's style: "1." when every value is integral, else four fixed decimals.
        finite = data[numpy.isfinite(data)]
        integral = finite.size == 0 or bool((finite == numpy.round(finite)).all())
        kwargs.update(precision=4, floatmode="maxprec_equal" if integral else "fixed")
    if data.size == 0:
        body = "[]"
    else:
        body = numpy.array2string(data, **kwargs)
    extras = []
    if data.size == 0 and data.shape != (0,):
        extras.append("size=%s" % (tuple(data.shape),))
    if dtype != _default_dtype and dtype != numpy.int64 and dtype != numpy.bool_:
        extras.append("dtype=%s" % dtype)
    if type(v._data) is not _NDARRAY:
        extras.append("device='%s'" % v.device)
    if v._grad_fn is not None:
        extras.append("grad_fn=<%s>" % v._grad_fn.name())
    elif v._requires_grad:
        extras.append("requires_grad=True")
    if v._volatile:
        extras.append("volatile=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"

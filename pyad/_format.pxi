# Printing Variables: torch's algorithm (torch/_tensor_str.py, default print options)
# on NumPy arrays, so that a Variable prints string for string as the same torch tensor
# would, complex ones included, except that the dtype is named as NumPy names it
# ("dtype=float64", not "dtype=torch.float64").

_PRINT_PRECISION = 4
_PRINT_THRESHOLD = 1000
_PRINT_EDGEITEMS = 3
_PRINT_LINEWIDTH = 80
_PRINT_SCI_MODE = None          # None: chosen per array (below); True/False: forced


class _Formatter:
    """One shared width and style for every value of a real array (torch's
    ``_Formatter``): integral floats print as ``1.``, sci mode when the finite non-zero
    magnitudes span more than 1000x or leave [1e-4, 1e8]."""

    def __init__(self, data):
        self.floating = data.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = data.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = builtins.max(self.max_width, len("%s" % (value,)))
            return
        nonzero_finite = flat[numpy.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return
        magnitudes = numpy.abs(nonzero_finite).astype(numpy.float64)
        smallest = magnitudes.min()
        largest = magnitudes.max()
        self.int_mode = bool((nonzero_finite == numpy.ceil(nonzero_finite)).all())
        self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8
                             or smallest < 1.0e-4)
        if _PRINT_SCI_MODE is not None:   # set_printoptions(sci_mode=): widths follow it
            self.sci_mode = bool(_PRINT_SCI_MODE)
        values = nonzero_finite.tolist()
        if self.sci_mode:
            spec, extra = "{:.%de}" % _PRINT_PRECISION, 0
        elif self.int_mode:
            # "1." for an integral float: the width counts the dot
            spec, extra = "{:.0f}", 1
        else:
            spec, extra = "{:.%df}" % _PRINT_PRECISION, 0
        for value in values:
            self.max_width = builtins.max(self.max_width, len(spec.format(value)) + extra)

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                text = ("{:%d.%de}" % (self.max_width, _PRINT_PRECISION)).format(value)
            elif self.int_mode:
                text = "{:.0f}".format(value)
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = ("{:.%df}" % _PRINT_PRECISION).format(value)
        else:
            text = "%s" % (value,)
        return (self.max_width - len(text)) * " " + text


def _format_value(value, real_formatter, imag_formatter):
    if imag_formatter is None:
        return real_formatter.format(value)
    real_text = real_formatter.format(value.real)
    imag_text = (imag_formatter.format(value.imag) + "j").lstrip()
    # a sign of its own (negative numbers, -0.) or a "+" in between
    if imag_text[0] == "+" or imag_text[0] == "-":
        return real_text + imag_text
    return real_text + "+" + imag_text


def _format_vector(data, Py_ssize_t indent, bint summarize, real_formatter,
                   imag_formatter):
    cdef Py_ssize_t n = data.shape[0]
    element_length = real_formatter.max_width + 2
    if imag_formatter is not None:
        element_length += imag_formatter.max_width + 1
    per_line = builtins.max(1, (_PRINT_LINEWIDTH - indent) // element_length)
    if summarize and n > 2 * _PRINT_EDGEITEMS:
        items = ([_format_value(x, real_formatter, imag_formatter)
                  for x in data[:_PRINT_EDGEITEMS].tolist()] + [" ..."]
                 + [_format_value(x, real_formatter, imag_formatter)
                    for x in data[n - _PRINT_EDGEITEMS:].tolist()])
    else:
        items = [_format_value(x, real_formatter, imag_formatter) for x in data.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_nested(data, Py_ssize_t indent, bint summarize, real_formatter,
                   imag_formatter):
    cdef Py_ssize_t ndim = data.ndim
    cdef Py_ssize_t n
    if ndim == 0:
        return _format_value(data.item(), real_formatter, imag_formatter)
    if ndim == 1:
        return _format_vector(data, indent, summarize, real_formatter, imag_formatter)
    n = data.shape[0]
    if summarize and n > 2 * _PRINT_EDGEITEMS:
        rows = ([_format_nested(data[i], indent + 1, summarize, real_formatter,
                                imag_formatter) for i in range(_PRINT_EDGEITEMS)]
                + ["..."]
                + [_format_nested(data[i], indent + 1, summarize, real_formatter,
                                  imag_formatter) for i in range(n - _PRINT_EDGEITEMS, n)])
    else:
        rows = [_format_nested(data[i], indent + 1, summarize, real_formatter,
                               imag_formatter) for i in range(n)]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarized(data):
    """The edge items of every dimension (the values a summarised print shows), which
    alone decide the formatter's width and style, as torch's get_summarized_data."""
    cdef Py_ssize_t ndim = data.ndim
    cdef Py_ssize_t n, d
    for d in range(ndim):
        n = data.shape[d]
        if n > 2 * _PRINT_EDGEITEMS:
            index = numpy.r_[0:_PRINT_EDGEITEMS, n - _PRINT_EDGEITEMS:n]
            data = numpy.take(data, index, axis=d)
    return data


def _format_data(data, Py_ssize_t indent):
    summarize = data.size > _PRINT_THRESHOLD
    shown = _summarized(data) if summarize else data
    if data.dtype.kind == "c":
        return _format_nested(data, indent, summarize, _Formatter(shown.real),
                              _Formatter(shown.imag))
    return _format_nested(data, indent, summarize, _Formatter(shown), None)


def _format_variable(Variable v):
    data = v._host_data()
    dtype = data.dtype
    if dtype.kind == "V" and dtype.fields is None and dtype.name.startswith(("bfloat", "float")):
        # ml_dtypes' bfloat16 (and float8) arrays: print their values as floats, which
        # float32 holds exactly, and name the dtype (torch prints bfloat16 as floats).
        data = data.astype(numpy.float32)
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if type(v._data) is not _NDARRAY:
        suffixes.append("device='%s'" % v.device)
    if data.size == 0:
        # the shape when it is not (0,), and the dtype unless it is the default float
        # (nothing in an empty Variable tells int64 apart), as torch
        if data.ndim != 1:
            suffixes.append("size=%s" % (tuple(data.shape),))
        if dtype != _default_dtype:
            suffixes.append("dtype=%s" % dtype)
        body = "[]"
    else:
        if (dtype != _default_dtype and dtype != _default_complex()
                and dtype != numpy.int64 and dtype != numpy.bool_):
            suffixes.append("dtype=%s" % dtype)
        body = _format_data(data, indent)
    if v._grad_fn is not None:
        suffixes.append("grad_fn=<%s>" % v._grad_fn.name())
    elif _requires_grad_now(v):
        suffixes.append("requires_grad=True")
    if v._volatile:
        suffixes.append("volatile=True")
    # inside a forward AD level, a Variable with a tangent shows it, as torch's
    fwad = sys.modules.get("pyad.autograd.forward_ad")
    if fwad is not None and fwad._current_level >= 0:
        tangent_text = fwad._tangent_repr(v)
        if tangent_text is not None:
            suffixes.append("tangent=" + tangent_text)
    # torch's _add_suffixes: a suffix that would pass the line width starts a new line.
    # The width counts a dtype as torch spells it ("dtype=torch.float64"), so that the
    # lines break where torch's do.
    text = prefix + body
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        width = len(suffix) + (6 if suffix.startswith("dtype=") else 0)
        if last_line_len + width + 2 > _PRINT_LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + width
        else:
            parts.append(", " + suffix)
            last_line_len += width + 2
    parts.append(")")
    return "".join(parts)

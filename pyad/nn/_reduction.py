"""``torch.nn._reduction``: a loss's ``reduction`` string as ATen's enum (none 0, mean 1,
sum 2) and the legacy ``size_average``/``reduce`` flags as a reduction, as torch's.

>>> from pyad.nn import _reduction
>>> _reduction.get_enum("sum"), _reduction.legacy_get_string(True, False, False)
(2, 'none')
"""
import warnings


def get_enum(reduction):
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                      "reduction='mean' instead.", stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError("%s is not a valid value for reduction" % (reduction,))


def legacy_get_string(size_average, reduce, emit_warning=True):
    warning = ("size_average and reduce args will be deprecated, please use "
               "reduction='{}' instead.")
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=2)
    return ret


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))

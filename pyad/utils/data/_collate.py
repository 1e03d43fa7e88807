"""``default_collate`` and ``default_convert``, as ``torch.utils.data``."""
import collections.abc
import copy

import numpy

from pyad._engine import Variable

__all__ = ["default_collate", "default_convert"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def default_collate(batch):
    """Stack a list of samples into a batch, as torch's: Variables and NumPy arrays are
    stacked along a new dimension 0; Python floats become a float64 Variable, ints an
    int64 one (the dtype inferred from all the samples: ints mixed with floats give
    float32, as torch), bools a bool one; strings (and bytes) stay a list; dicts, namedtuples, tuples and lists
    are collated field by field (a tuple of fields comes back as a list, as torch).

    >>> import pyad
    >>> default_collate([(pyad.tensor([1.0, 2.0]), 0), (pyad.tensor([3.0, 4.0]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    >>> default_collate([{"x": 1.5, "name": "a"}, {"x": 2.5, "name": "b"}])
    {'x': tensor([1.5000, 2.5000], dtype=float64), 'name': ['a', 'b']}
    """
    from pyad import stack, tensor
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Variable):
        return stack(list(batch), 0)
    if isinstance(elem, (str, bytes)):         # numpy.str_ and numpy.bytes_ too, as torch
        return batch
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if isinstance(elem, numpy.ndarray) or elem_type.__name__ == "memmap":
            if elem.dtype.kind in "SaUO":
                raise TypeError(_ERR.format(elem.dtype))
            return stack([Variable(numpy.asarray(b)) for b in batch], 0)
        if elem.shape == ():                     # a NumPy scalar
            return tensor(numpy.asarray(batch))
    if hasattr(elem, "__cuda_array_interface__") and hasattr(elem, "get"):   # CuPy array
        return stack([Variable(b) for b in batch], 0)
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=numpy.float64)
    if isinstance(elem, int):
        return tensor(batch)        # dtype from all the samples: [1, 2.5] is float32, as torch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)     # keeps a dict subclass's type, as torch
                clone.update(collated)
                return clone
            return elem_type(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return elem_type(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)     # keeps a list subclass's type, as torch
                for i, s in enumerate(transposed):
                    clone[i] = default_collate(s)
                return clone
            return elem_type([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(_ERR.format(elem_type))


def default_convert(data):
    """Without batching (``batch_size=None``): NumPy arrays become Variables, containers
    are converted element by element, anything else is left as it is.

    >>> import numpy
    >>> default_convert({"x": numpy.zeros(2)})
    {'x': tensor([0., 0.], dtype=float64)}
    """
    elem_type = type(data)
    if isinstance(data, Variable):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if isinstance(data, numpy.ndarray) and data.dtype.kind in "SaUO":
            return data
        return Variable(numpy.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)     # keeps a dict subclass's type, as torch
                clone.update({k: default_convert(data[k]) for k in data})
                return clone
            return elem_type({k: default_convert(data[k]) for k in data})
        except TypeError:
            return {k: default_convert(data[k]) for k in data}
    if _is_namedtuple(data):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data

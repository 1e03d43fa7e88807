"""``torch.nn.modules.utils``: the argument helpers layers and custom layers use
(``_pair(3) == (3, 3)``, ...) and `consume_prefix_in_state_dict_if_present`, as torch's.

>>> from pyad.nn.modules.utils import _pair, _reverse_repeat_tuple
>>> _pair(3), _pair((1, 2)), _reverse_repeat_tuple((1, 2), 2)
((3, 3), (1, 2), (2, 2, 1, 1))
"""
import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``t`` reversed, each element repeated ``n`` times (F.pad's order of amounts)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    # an adaptive pool's output_size with its None entries taken from the input's sizes
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least %d" % (len(out_size) + 1))
    return [v if v is not None else d
            for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` from the keys of ``state_dict`` (and of its ``_metadata``) that
    start with it, in place, as torch's (e.g. the ``"module."`` DataParallel adds).

    >>> import collections
    >>> sd = collections.OrderedDict([("module.w", 1), ("b", 2)])
    >>> consume_prefix_in_state_dict_if_present(sd, "module.")
    >>> list(sd)
    ['b', 'w']
    """
    keys = list(state_dict.keys())
    for key in keys:
        if key.startswith(prefix):
            newkey = key[len(prefix):]
            state_dict[newkey] = state_dict.pop(key)
    if hasattr(state_dict, "_metadata"):
        keys = list(state_dict._metadata.keys())
        for key in keys:
            # a metadata key is the module's path without the trailing dot ("" for root)
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                newkey = key[len(prefix):]
                state_dict._metadata[newkey] = state_dict._metadata.pop(key)

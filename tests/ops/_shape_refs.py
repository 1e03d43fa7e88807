"""NumPy references of the shape and indexing ops that have no NumPy twin, and torch
spellings that differ from pyad's (used by tests/ops/test_shape.py and test_inplace.py).

``op(L, name, *args)`` calls ``L.<name>(*args)`` for the adapter ``L`` of
_ops_helpers.py, through these references where they apply.
"""
import numpy as np


# -- NumPy references of ops with no NumPy twin (and torch spellings that differ) -----

def _np_narrow(x, dim, start, length):
    if x.ndim == 0:
        raise IndexError("narrow of 0-d")
    dim %= x.ndim
    if not -x.shape[dim] <= start <= x.shape[dim]:
        raise IndexError("narrow start out of range")
    start = start + x.shape[dim] if start < 0 else start
    if start + length > x.shape[dim]:
        raise IndexError("narrow out of range")
    return x[(slice(None),) * dim + (slice(start, start + length),)]


def _np_split(x, size, dim=0):
    if x.ndim == 0:
        raise IndexError("split of 0-d")
    n = x.shape[dim]
    sizes = list(size) if isinstance(size, (list, tuple)) else (
        [min(size, n - k) for k in range(0, n, size)] or [0])
    if sum(sizes) != n:
        raise ValueError("split sizes do not add up")
    return np.split(x, np.cumsum(sizes)[:-1], axis=dim)


def _np_chunk(x, chunks, dim=0):
    if x.ndim == 0:
        raise IndexError("chunk of 0-d")
    n = x.shape[dim]
    if n == 0:
        return _np_split(x, [0] * chunks, dim)
    return _np_split(x, -(-n // chunks), dim)


def _np_unflatten(x, dim, sizes):
    if x.ndim == 0:
        raise IndexError("unflatten of 0-d")
    dim %= x.ndim
    return x.reshape(x.shape[:dim] + tuple(sizes) + x.shape[dim + 1:])


def _np_repeat(x, *sizes):
    if len(sizes) < x.ndim:
        raise ValueError("fewer sizes than dims")
    return np.tile(x, sizes)


NP_REF = {
    "cat": lambda tensors, dim=0: np.concatenate(tensors, axis=dim),
    "narrow": _np_narrow,
    "select": lambda x, dim, i: np.take(x, i, axis=dim) if x.ndim else x[i],
    "split": _np_split,
    "split_with_sizes": _np_split,
    "chunk": _np_chunk,
    "unbind": lambda x, dim=0: [np.take(x, i, axis=dim) for i in range(x.shape[dim])],
    "movedim": np.moveaxis,
    "unflatten": _np_unflatten,
    "repeat": _np_repeat,
}
def _np_gather(x, dim, idx):
    if x.ndim == 0:
        return x.reshape(1)[idx.reshape(-1)].reshape(idx.shape)
    dim %= x.ndim
    if idx.ndim != x.ndim or any(i > s for d, (i, s) in enumerate(zip(idx.shape, x.shape))
                                 if d != dim):
        raise IndexError("index does not fit")
    sub = x[tuple(slice(0, s) if d != dim else slice(None) for d, s in enumerate(idx.shape))]
    return np.take_along_axis(sub, idx, axis=dim)


def _scatter_key(x, dim, idx):
    if x.ndim == 0 or idx.ndim != x.ndim:
        raise IndexError("index does not fit")
    dim %= x.ndim
    return tuple(idx if d == dim else np.arange(n).reshape([-1 if k == d else 1
                                                            for k in range(idx.ndim)])
                 for d, n in enumerate(idx.shape))


def _np_scatter(x, dim, idx, src=None, value=None):
    out = x.copy()
    key = _scatter_key(x, dim, idx)
    if src is None or not isinstance(src, np.ndarray):
        out[key] = value if src is None else src
    else:
        out[key] = src[tuple(slice(0, n) for n in idx.shape)]
    return out


def _np_scatter_add(x, dim, idx, src):
    out = x.copy()
    np.add.at(out, _scatter_key(x, dim, idx), src[tuple(slice(0, n) for n in idx.shape)])
    return out


def _dim_key(x, dim, idx):
    if x.ndim == 0:
        raise IndexError("0-d input")
    return (slice(None),) * (dim % x.ndim) + (idx,)


def _np_index_add(x, dim, idx, src, alpha=1):
    out = x.copy()
    np.add.at(out, _dim_key(x, dim, idx), alpha * src)
    return out


def _np_index_put(x, dim, idx, value):
    out = x.copy()
    out[_dim_key(x, dim, idx)] = value
    return out


def _np_masked_fill(x, mask, value):
    x, mask = np.broadcast_arrays(x, mask)
    out = x.copy()
    out[mask] = value
    return out


def _np_masked_scatter(x, mask, src):
    x, mask = np.broadcast_arrays(x, mask)
    out = x.copy()
    if src.size < mask.sum():
        raise ValueError("source too small")
    out[mask] = src.reshape(-1)[:int(mask.sum())]
    return out


def _np_put(x, idx, src, accumulate=False):
    out = x.copy().reshape(-1)
    if accumulate:
        np.add.at(out, idx.reshape(-1), src.reshape(-1))
    else:
        out[idx.reshape(-1)] = src.reshape(-1)
    return out.reshape(x.shape)


NP_REF.update({
    "put": _np_put,
    "gather": _np_gather,
    "take_along_dim": lambda x, idx, dim=None: np.take_along_axis(x, idx, axis=dim),
    "scatter": _np_scatter,
    "scatter_add": _np_scatter_add,
    "index_select": lambda x, dim, idx: np.take(x, idx, axis=dim),
    "index_add": _np_index_add,
    "index_copy": _np_index_put,
    "index_fill": _np_index_put,
    "masked_fill": _np_masked_fill,
    "masked_select": lambda x, mask: np.broadcast_arrays(x, mask)[0][
        np.broadcast_arrays(x, mask)[1]],
    "masked_scatter": _np_masked_scatter,
})
def _np_pad(x, pad, mode="constant", value=0):
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError("bad pad")
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape, widths))
    if any(c.stop < c.start for c in crop):
        raise ValueError("cropped to a negative size")
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if mode == "constant":
        return np.pad(x[crop], widths, constant_values=value)
    return np.pad(x, widths, mode="reflect" if mode == "reflect" else "edge")


NP_REF["pad"] = _np_pad


def _torch_pad(x, pad, mode="constant", value=0):
    import torch.nn.functional as F
    return F.pad(x, pad, mode=mode, value=None if mode != "constant" else value)


TORCH_REF = {
    "repeat": lambda x, *sizes: x.repeat(*sizes),     # a Tensor method only
    "pad": _torch_pad,
}


def op(L, name, *args, **kwargs):
    """``L.<name>(*args)``, with the NumPy references and torch spellings above."""
    if L.name == "numpy" and name in NP_REF:
        return NP_REF[name](*args, **kwargs)
    if L.name == "torch" and name in TORCH_REF:
        return TORCH_REF[name](*args, **kwargs)
    return getattr(L, name)(*args, **kwargs)


def joined(L, parts):
    """One output from several (split, chunk, unbind): each part flattened and weighted
    by its position, so each part's gradient differs."""
    return op(L, "cat", [L.reshape(p, -1) * float(i + 1) for i, p in enumerate(parts)], 0)

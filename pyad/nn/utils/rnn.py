"""``pyad.nn.utils.rnn``: padded and packed batches of sequences, as ``torch.nn.utils.rnn``.

A `PackedSequence` holds the time steps of a batch of sequences sorted by length
(longest first), stacked along dimension 0: ``data[sum(batch_sizes[:t]):][:batch_sizes[t]]``
are the rows of time step ``t``. The recurrent layers (`pyad.nn.LSTM`, ...) accept one
in place of a padded batch and skip the padding.

>>> import pyad
>>> from pyad.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
>>> padded = pad_sequence([pyad.ones(3), pyad.ones(1)], batch_first=True)
>>> padded.tolist()
[[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
>>> packed = pack_padded_sequence(padded, [3, 1], batch_first=True)
>>> packed.batch_sizes.tolist()
[2, 1, 1]
>>> out, lengths = pad_packed_sequence(packed, batch_first=True)
>>> lengths.tolist()
[3, 1]
"""
import collections

import numpy as _np

import pyad
from pyad._engine import Variable

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpad_sequence", "unpack_sequence"]


_PackedSequenceBase = collections.namedtuple(
    "PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """A batch of variable-length sequences packed time step by time step.

    Fields as torch's: ``data`` (Variable, ``(sum(batch_sizes), *)``), ``batch_sizes``
    (int64 Variable, the batch size at each time step), ``sorted_indices`` and
    ``unsorted_indices`` (int64 Variables or None: the permutation that sorted the batch
    by decreasing length, and its inverse). Build one with `pack_padded_sequence` or
    `pack_sequence`, not directly.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise TypeError("PackedSequence(): batch_sizes is required (build it with "
                            "pack_padded_sequence or pack_sequence)")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packed batch with ``data`` moved/cast by ``Variable.to``."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return type(self)(self.data.double(), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def float(self):
        return type(self)(self.data.float(), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def _cast(self, dtype):
        return type(self)(self.data.to(dtype=dtype), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def half(self):
        return self._cast(_np.float16)

    def long(self):
        return self._cast(_np.int64)

    def int(self):
        return self._cast(_np.int32)

    def short(self):
        return self._cast(_np.int16)

    def char(self):
        return self._cast(_np.int8)

    def byte(self):
        return self._cast(_np.uint8)

    @property
    def is_cuda(self):
        return self.data.device.type == "cuda"

    def is_pinned(self):
        return False


def _invert_permutation(permutation):
    if permutation is None:
        return None
    p = _host_ints(permutation, "PackedSequence")
    out = _np.empty_like(p)
    out[p] = _np.arange(p.size, dtype=p.dtype)
    return pyad.tensor(out, dtype=pyad.int64)


def _host_ints(values, what):
    if isinstance(values, Variable):
        data = values.data
        if hasattr(data, "get"):
            data = data.get()
        arr = _np.asarray(data)
    else:
        arr = _np.asarray(values)
    if arr.ndim != 1:
        raise RuntimeError("%s(): 'lengths' argument should be a 1D CPU int64 tensor, but got "
                           "%dD" % (what, arr.ndim))
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and _np.all(arr == _np.floor(arr)):
            arr = arr.astype(_np.int64)
        else:
            raise RuntimeError("%s(): 'lengths' argument should be a 1D CPU int64 tensor, but "
                               "got %s" % (what, arr.dtype))
    return arr.astype(_np.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences
    of the given ``lengths`` into a `PackedSequence`.

    With ``enforce_sorted=True`` the lengths must be in decreasing order; otherwise the
    batch is sorted here and the permutation kept in ``sorted_indices``.
    Differentiable in ``input``.
    """
    what = "pack_padded_sequence"
    if not isinstance(input, Variable):
        input = pyad.tensor(input)
    if input.numel() == 0:
        # torch checks the input before ``lengths`` (its kernel's first check)
        raise RuntimeError("%s(): Cannot pack empty tensors." % what)
    lengths = _host_ints(lengths, what)
    if input.dim() < 2:
        raise ValueError("%s(): expected input of at least 2 dimensions (T, B, *), got %dD"
                         % (what, input.dim()))
    if batch_first:
        input = input.transpose(0, 1)
    T, B = input.shape[0], input.shape[1]
    if lengths.size != B:
        raise RuntimeError("%s(): Expected `len(lengths)` to be equal to batch_size, but got "
                           "%d (batch_size=%d)" % (what, lengths.size, B))
    if B == 0:
        raise RuntimeError("%s(): Cannot pack empty tensors." % what)
    if enforce_sorted:
        if _np.any(lengths[1:] > lengths[:-1]):
            raise RuntimeError(
                "%s(): `lengths` array must be sorted in decreasing order when "
                "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                "pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability." % what)
        sorted_indices = None
    else:
        order = _np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
        sorted_indices = pyad.tensor(order.astype(_np.int64), dtype=pyad.int64)
        if input.data.__class__ is not _np.ndarray:
            sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(1, sorted_indices)
    if lengths[-1] <= 0:
        raise RuntimeError("%s(): Length of all samples has to be greater than 0, but found "
                           "an element in 'lengths' that is <= 0" % what)
    if lengths[0] > T:
        raise RuntimeError("%s(): Expected sequence length to be larger than or equal to the "
                           "longest length, got %d < %d" % (what, T, lengths[0]))
    steps = int(lengths[0])
    batch_sizes = _np.array([(lengths > t).sum() for t in range(steps)], dtype=_np.int64)
    data = pyad.cat([input[t, :int(b)] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, pyad.tensor(batch_sizes, dtype=pyad.int64), sorted_indices,
                          None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo `pack_padded_sequence`: ``(padded, lengths)`` with ``padded`` of shape
    ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``), ``T = max(lengths)`` or
    ``total_length``, in the batch's original order. Differentiable in ``sequence.data``.
    """
    what = "pad_packed_sequence"
    data, batch_sizes = sequence.data, _host_ints(sequence.batch_sizes, what)
    steps = int(batch_sizes.size)
    B = int(batch_sizes[0]) if steps else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError("%s(): Expected total_length to be at least the length of the "
                             "longest sequence in input, but got total_length=%d and max "
                             "sequence length being %d" % (what, total_length, steps))
    else:
        total_length = steps
    feature = tuple(data.shape[1:])
    pieces = []
    offset = 0
    for b in batch_sizes:
        b = int(b)
        rows = data[offset:offset + b]
        offset += b
        if b < B:
            fill = pyad.full((B - b,) + feature, padding_value, dtype=data.dtype,
                             device=data.device)
            rows = pyad.cat([rows, fill], 0)
        pieces.append(rows)
    for _ in range(total_length - steps):
        pieces.append(pyad.full((B,) + feature, padding_value, dtype=data.dtype,
                                device=data.device))
    padded = pyad.stack(pieces, 0)
    lengths = _np.array([(batch_sizes > i).sum() for i in range(B)], dtype=_np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[_host_ints(sequence.unsorted_indices, what)]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, pyad.tensor(lengths, dtype=pyad.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack Variables of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)``
    with ``batch_first``), padding with ``padding_value`` on ``padding_side``.
    """
    what = "pad_sequence"
    if padding_side not in ("left", "right"):
        raise ValueError("%s(): Expected padding_side to be one of left or right, but got %s."
                         % (what, padding_side))
    if not isinstance(sequences, Variable):
        try:
            iter(sequences)
        except TypeError:
            # torch: "Expected iterable for input sequences, but got arg of type: int"
            raise RuntimeError("%s(): Expected iterable for input sequences, but got arg of "
                               "type: %s" % (what, type(sequences).__name__)) from None
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("%s(): received an empty list of sequences" % what)
    sequences = [s if isinstance(s, Variable) else pyad.tensor(s) for s in sequences]
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences:
        if s.dim() == 0 or tuple(s.shape[1:]) != trailing:
            raise RuntimeError("%s(): every sequence must have the same trailing shape %s, got "
                               "%s" % (what, trailing, tuple(s.shape)))
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        short = longest - s.shape[0]
        if short:
            fill = pyad.full((short,) + trailing, padding_value, dtype=s.dtype,
                             device=s.device)
            s = pyad.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return pyad.stack(rows, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of Variables of shapes ``(L_i, *)`` (decreasing ``L_i`` unless
    ``enforce_sorted=False``) into a `PackedSequence`."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into the list of its sequences (the inverse of
    `pad_sequence`)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lengths = _host_ints(lengths, "unpad_sequence")
    return [padded_sequences[i, :int(n)] for i, n in enumerate(lengths)]


def unpack_sequence(packed_sequences):
    """Split a `PackedSequence` back into the list of its sequences (the inverse of
    `pack_sequence`)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

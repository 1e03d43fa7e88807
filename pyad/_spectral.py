"""The short-time Fourier transform and its inverse, ``pyad.stft`` / ``pyad.istft``
(and the Variable methods), as torch's.

Both are compositions of differentiable ops, so they need no Backward of their own:
``stft`` pads the signal (``center``), cuts it into overlapping frames with
``Variable.unfold``, multiplies each frame by the window and takes ``fft.rfft`` (or
``fft.fft``) of each; ``istft`` inverts each frame, multiplies it by the window again,
overlap-adds the frames with ``nn.functional.fold`` and divides by the overlap-added
squared window (the window envelope).
"""
import warnings

import pyad
from pyad import _engine
from pyad._engine import Variable

__all__ = ["stft", "istft"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")

# torch's warnings here are TORCH_WARN_ONCE: each is given once per process
_warned = set()


def _warn_once(message):
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _is_complex(v):
    return v is not None and v.is_complex()


def _full_window(window, win_length, n_fft, dtype, what):
    """``window`` (ones when None) zero-padded on both sides to ``n_fft``, as torch."""
    if window is None:
        window = pyad.ones(win_length, dtype=dtype)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pyad.nn.functional.pad(window, (left, n_fft - win_length - left))
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform of a 1-D signal or a 2-D batch of them, as
    ``torch.stft``: a complex Variable of shape ``(B?, n_fft // 2 + 1, n_frames)``
    (``n_fft`` rows when not ``onesided``), column ``m`` the FFT of
    ``window * input[m * hop_length : m * hop_length + n_fft]``.

    ``hop_length`` defaults to ``n_fft // 4``, ``win_length`` to ``n_fft``; a shorter
    window is zero-padded on both sides to ``n_fft`` (no window: ones). With ``center``
    the signal is first padded by ``n_fft // 2`` on both sides in ``pad_mode``
    ('reflect', 'constant', 'replicate' or 'circular'). ``normalized`` scales by
    ``n_fft ** -0.5``. ``onesided`` (the default for a real signal and window) keeps
    the non-negative frequencies. A real signal needs ``return_complex``: ``True``;
    ``False`` returns ``view_as_real`` of the result with torch's deprecation warning.

    >>> import pyad
    >>> x = pyad.arange(8, dtype=pyad.float64)
    >>> spec = pyad.stft(x, n_fft=4, hop_length=2, return_complex=True)
    >>> tuple(spec.shape), spec.dtype
    ((3, 5), dtype('complex128'))
    """
    if not isinstance(input, Variable):
        raise TypeError("stft(): input must be a Variable, got %s" % type(input).__name__)
    if not _engine._is_floating_or_complex(input.dtype):
        raise RuntimeError("stft(): expected a Variable of floating point or complex values")
    if align_to_window is not None:
        if center:
            raise RuntimeError("stft(): align_to_window should only be set when center = "
                               "false")
        if align_to_window:
            raise NotImplementedError("stft(): align_to_window=True is not supported")
    complex_in = _is_complex(input) or _is_complex(window)
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft(): stft requires the return_complex parameter be given "
                               "for real inputs, and will further require that "
                               "return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        _warn_once("stft(): stft with return_complex=False is deprecated. In a future "
                      "pytorch release, stft will return complex Variables for all inputs, "
                      "and return_complex=False will raise an error.\nNote: you can still "
                      "call pyad.view_as_real on the complex output to recover the old "
                      "return format.")
    if input.dim() not in (1, 2):
        raise RuntimeError("stft(): expected a 1D or 2D Variable, got %d dimensions"
                           % input.dim())
    if center:
        if pad_mode not in _PAD_MODES:
            raise NotImplementedError("stft(): Unrecognised padding mode %s" % (pad_mode,))
        ndim = input.dim()
        pad = int(n_fft) // 2
        extended = (1,) * (3 - ndim) + tuple(input.shape)
        input = pyad.nn.functional.pad(input.reshape(extended), (pad, pad), mode=pad_mode)
        input = input.reshape(tuple(input.shape)[-ndim:])
    length = input.shape[-1]
    n_fft = int(n_fft)
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError("stft(): expected 0 < n_fft < %d, but got n_fft=%d"
                           % (length, n_fft))
    hop_length = n_fft // 4 if hop_length is None else int(hop_length)
    if hop_length <= 0:
        raise RuntimeError("stft(): expected hop_length > 0, but got hop_length=%d"
                           % hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError("stft(): expected 0 < win_length <= n_fft, but got win_length=%d"
                           % win_length)
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError("stft(): expected a 1D window Variable of size equal to "
                           "win_length=%d, but got window with size %s"
                           % (win_length, list(window.shape)))
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("stft(): Cannot have onesided output if window or input is "
                           "complex")
    if window is None:
        _warn_once("stft(): A window was not provided. A rectangular window will be "
                   "applied,which is known to cause spectral leakage. Other windows "
                   "such as pyad.hann_window or pyad.hamming_window are recommended "
                   "to reduce spectral leakage.To suppress this warning and use a "
                   "rectangular window, explicitly set `window=pyad.ones(n_fft)`.")
    frames = input.unfold(-1, n_fft, hop_length)          # (B?, n_frames, n_fft)
    if window is not None:
        frames = frames * _full_window(window, win_length, n_fft, input.dtype, "stft")
    elif win_length < n_fft:
        frames = frames * _full_window(None, win_length, n_fft, input.dtype, "stft")
    norm = "ortho" if normalized else "backward"
    if onesided:
        spec = pyad.fft.rfft(frames, dim=-1, norm=norm)
    else:
        spec = pyad.fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)                          # (B?, n_freq, n_frames)
    return spec if return_complex else pyad.view_as_real(spec)


def _overlap_add(frames, hop_length, total):
    """Sum of the real frames ``(B, n_frames, n_fft)`` placed ``hop_length`` apart:
    ``(B, total)``."""
    b, _, n_fft = frames.shape
    out = pyad.nn.functional.fold(frames.transpose(1, 2), output_size=(1, total),
                                  kernel_size=(1, n_fft), stride=(1, hop_length))
    return out.reshape(b, total)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of :func:`stft`, as ``torch.istft``: each column of the complex
    ``input`` ``(B?, n_freq, n_frames)`` inverted (``irfft`` when ``onesided``, the
    default when ``n_freq != n_fft``), multiplied by the window, overlap-added
    ``hop_length`` apart and divided by the overlap-added squared window. With
    ``center`` the ``n_fft // 2`` samples of padding are cut from both ends;
    ``length`` trims (or zero-pads, with torch's warning) the result.

    >>> import pyad
    >>> x = pyad.arange(8, dtype=pyad.float64)
    >>> w = pyad.hann_window(4, dtype=pyad.float64)
    >>> spec = pyad.stft(x, 4, hop_length=1, window=w, return_complex=True)
    >>> bool(pyad.allclose(pyad.istft(spec, 4, hop_length=1, window=w, length=8), x))
    True
    """
    if not isinstance(input, Variable):
        raise TypeError("istft(): input must be a Variable, got %s" % type(input).__name__)
    if not input.is_complex():
        raise RuntimeError("istft(): istft requires a complex-valued input Variable "
                           "matching the output from stft with return_complex=True.")
    if input.dim() not in (2, 3):
        raise RuntimeError("istft(): expected a complex Variable with 2 or 3 dimensions, "
                           "but got %d" % input.dim())
    n_fft = int(n_fft)
    hop_length = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError("istft(): expected 0 < win_length <= n_fft")
    if hop_length <= 0 or hop_length > win_length:
        raise RuntimeError("istft(): expected 0 < hop_length <= win_length")
    real_dtype = pyad.empty(0, dtype=input.dtype).real.dtype
    if window is None:
        _warn_once("istft(): A window was not provided. A rectangular window will be "
                   "applied.Please provide the same window used by stft to make "
                   "the inversion lossless.To suppress this warning and use a "
                   "rectangular window, explicitly set `window=pyad.ones(n_fft)`.")
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError("istft(): Invalid window shape. window has to be 1D and length "
                           "of `win_length`")
    n_freq = input.shape[-2]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided:
        if n_fft // 2 + 1 != n_freq:
            raise RuntimeError("istft(): expected the frequency dimension (3rd to the last) "
                               "of the input Variable to match n_fft / 2 + 1 when "
                               "onesided=True, but got %d" % n_freq)
    elif n_fft != n_freq:
        raise RuntimeError("istft(): expected the frequency dimension (3rd to the last) of "
                           "the input Variable to match n_fft when onesided=False, but got "
                           "%d" % n_freq)
    batched = input.dim() == 3
    if not batched:
        input = input.unsqueeze(0)
    n_frames = input.shape[-1]
    norm = "ortho" if normalized else "backward"
    spec = input.transpose(1, 2)                            # (B, n_frames, n_freq)
    if return_complex:
        if onesided:
            raise RuntimeError("istft(): Cannot have onesided output if window or input is "
                               "complex")
        frames = pyad.fft.ifft(spec, dim=-1, norm=norm)
    else:
        if _is_complex(window):
            raise RuntimeError("istft(): Complex windows are incompatible with "
                               "return_complex=False")
        if not onesided:
            spec = spec[..., :n_fft // 2 + 1]
        frames = pyad.fft.irfft(spec, n=n_fft, dim=-1, norm=norm)
    full = _full_window(window, win_length, n_fft, real_dtype, "istft")
    frames = frames * full
    total = n_fft + hop_length * (n_frames - 1)
    if frames.is_complex():
        y = pyad.complex(_overlap_add(frames.real, hop_length, total),
                         _overlap_add(frames.imag, hop_length, total))
    else:
        y = _overlap_add(frames, hop_length, total)
    # torch's envelope is the overlap-added window.pow(2), not |window|^2: stft
    # multiplies by the window unconjugated, so a complex window needs w * w here
    square = (full * full).expand(1, n_frames, n_fft)
    if square.is_complex():
        envelope = pyad.complex(_overlap_add(square.real, hop_length, total),
                                _overlap_add(square.imag, hop_length, total))
    else:
        envelope = _overlap_add(square, hop_length, total)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = -(n_fft // 2)
    else:
        end = total
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError("istft(): window overlap add min: %g"
                           % float(envelope.abs().min()))
    y = y / envelope
    if end > total:
        _warn_once("istft(): The length of signal is shorter than the length parameter. "
                   "Result is being padded with zeros in the tail. Please check your "
                   "center and hop_length settings.")
        y = pyad.nn.functional.pad(y, (0, end - total))
    return y if batched else y.squeeze(0)


_engine._add_variable_methods({"stft": stft, "istft": istft})

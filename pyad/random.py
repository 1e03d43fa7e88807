"""``pyad.random``: the default generator's seed and state, as ``torch.random``.

The functions are the ones at the top of the package (`pyad.manual_seed`,
`pyad.get_rng_state`, ...) under torch's second address, plus `fork_rng`, which runs a
block and then puts the random state back as it was.

>>> import pyad
>>> _ = pyad.random.manual_seed(0)
>>> with pyad.random.fork_rng():
...     a = pyad.rand(2)
>>> bool((pyad.rand(2) == a).all())      # the draw inside did not move the stream
True
"""
import contextlib

from pyad._factories import (
    manual_seed, seed, initial_seed, get_rng_state, set_rng_state, default_generator,
)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng", "thread_safe_generator", "default_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run the block, then restore the default generator's state (and the GPUs', for
    ``devices``), as ``torch.random.fork_rng``.

    ``devices`` lists GPU indices whose CuPy state is forked too; by default every GPU
    CuPy sees (none without a GPU). ``enabled=False`` makes it a no-op. ``device_type``
    is ``'cuda'`` (the default) or ``'meta'`` (no forking at all, as torch).

    >>> import pyad
    >>> state = pyad.get_rng_state()
    >>> with pyad.random.fork_rng():
    ...     _ = pyad.randn(3)
    >>> bool((pyad.get_rng_state() == state).all())
    True
    """
    if device_type == "meta":
        yield
        return
    device_type = device_type or "cuda"
    if device_type != "cuda":
        raise RuntimeError("fork_rng(): pyad has no module of `%s`; device_type must be "
                           "'cuda' or 'meta'" % device_type)
    if not enabled:
        yield
        return
    from pyad import cuda
    devices = list(range(cuda.device_count())) if devices is None else list(devices)
    cpu_state = get_rng_state()
    device_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for device, state in zip(devices, device_states):
            cuda.set_rng_state(state, device)


def thread_safe_generator():
    """The generator to draw from in a data-loading worker, as
    ``torch.random.thread_safe_generator``: pyad's workers are processes, which each
    reseed the default generator, so this is always None (use the default generator).

    >>> import pyad
    >>> pyad.random.thread_safe_generator() is None
    True
    """
    return None

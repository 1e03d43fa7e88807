"""DataParallel and data_parallel, as ``torch.nn.parallel``'s.

torch splits the batch across GPUs, runs a replica of the module on each and gathers the
outputs. pyad cannot replicate a module across devices, so:

* without a GPU (no CuPy, or CuPy sees none) -- where torch has no device type either --
  `DataParallel` calls the wrapped module, exactly as torch's does there, and
  `data_parallel` raises torch's RuntimeError;
* with one GPU (or ``device_ids`` naming one) it moves the module and the inputs to
  that GPU and calls the module, as torch does for one device;
* with several GPUs the whole batch runs on ``device_ids[0]`` (warning once), and
  the output is moved to ``output_device``: the values and gradients are those of
  torch's split-and-gather for modules whose batch elements are independent, without
  the speed-up. (Batch statistics, as BatchNorm's in training, are then over the
  whole batch, where torch's replicas each see their part.)
"""
import warnings

from pyad._engine import Variable, device as _device
from pyad.autograd.profiler import record_function
from pyad.nn.modules import Module

__all__ = ["DataParallel", "data_parallel"]


def _gpu_count():
    from pyad import cuda
    return cuda.device_count() if cuda.is_available() else 0


def _device_index(x, what):
    """torch's _get_device_index(x, optional=True) for CUDA devices."""
    if isinstance(x, str):
        x = _device(x)
    if isinstance(x, _device):
        if x.type != "cuda":
            raise ValueError("%s(): expected a cuda device, but got: %s" % (what, x))
        if x.index is None:
            from pyad import cuda
            return cuda.current_device()
        return x.index
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    raise ValueError("%s(): expected a cuda device index or device, got %r" % (what, x))


def _to(obj, dev):
    """Variables in (nested) tuples, lists and dicts moved to ``dev`` (differentiably)."""
    if isinstance(obj, Variable):
        return obj.to(dev)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to(o, dev) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to(o, dev) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to(v, dev)) for k, v in obj.items())
    return obj


def _check_on(module, src, what):
    for t in list(module.parameters()) + list(module.buffers()):
        if t.device != src:
            raise RuntimeError("%s(): module must have its parameters and buffers on device %s "
                               "(device_ids[0]) but found one of them on device: %s"
                               % (what, src, t.device))


def _run(module, inputs, kwargs, device_ids, output_device, what):
    src = _device("cuda", device_ids[0])
    _check_on(module, src, what)
    output = module(*_to(tuple(inputs), src), **_to(dict(kwargs), src))
    if len(device_ids) > 1 and output_device != device_ids[0]:
        output = _to(output, _device("cpu") if output_device == -1
                     else _device("cuda", output_device))
    return output


class DataParallel(Module):
    """Data parallelism at the module level, as ``torch.nn.DataParallel``: calling it
    calls ``module`` (``.module``; its state_dict keys get the prefix ``module.``).

    Without a GPU, as torch without one, ``device_ids`` is ``[]`` and the call is
    ``module(*inputs, **kwargs)``. With GPUs (CuPy), ``device_ids`` defaults to all of
    them and ``output_device`` to ``device_ids[0]``; the module must be on
    ``device_ids[0]`` (moved there when it is the only one, as torch does), the inputs
    are moved there and the module is called once on the whole batch: pyad does not
    replicate modules across GPUs (see the module docstring).

    >>> import pyad
    >>> net = pyad.nn.DataParallel(pyad.nn.Linear(2, 1))
    >>> sorted(net.state_dict())
    ['module.bias', 'module.weight']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        count = _gpu_count()
        if count == 0:
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(count))
        if len(device_ids) == 0:
            raise RuntimeError("DataParallel(): no available devices were found")
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(x, "DataParallel") for x in device_ids]
        self.output_device = _device_index(output_device, "DataParallel")
        self.src_device_obj = _device("cuda", self.device_ids[0])
        self._warned = False
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        with record_function("DataParallel.forward"):
            if not self.device_ids:
                return self.module(*inputs, **kwargs)
            if len(self.device_ids) > 1 and not self._warned:
                self._warned = True
                warnings.warn("DataParallel: pyad does not replicate modules across GPUs; "
                              "the whole batch runs on %s" % self.src_device_obj,
                              UserWarning, stacklevel=2)
            return _run(self.module, inputs, kwargs, self.device_ids, self.output_device,
                        "DataParallel")


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """``module(*inputs, **module_kwargs)`` on the GPUs ``device_ids``, as
    ``torch.nn.parallel.data_parallel``: the functional `DataParallel`.

    As torch's, it needs a GPU: without one it raises RuntimeError ("device type could
    not be determined"). With GPUs it runs the whole batch on ``device_ids[0]`` and
    returns the output on ``output_device`` (-1: the CPU).
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    count = _gpu_count()
    if count == 0:
        raise RuntimeError("data_parallel(): device type could not be determined (no GPU: "
                           "call the module directly)")
    if device_ids is None:
        device_ids = list(range(count))
    if len(device_ids) == 0:
        raise RuntimeError("data_parallel(): no available devices were found")
    if output_device is None:
        output_device = device_ids[0]
    device_ids = [_device_index(x, "data_parallel") for x in device_ids]
    output_device = _device_index(output_device, "data_parallel")
    return _run(module, inputs, module_kwargs or {}, device_ids, output_device,
                "data_parallel")

"""Port of the PyTorch tutorial "Hooks for autograd saved tensors"
(``intermediate_source/autograd_saved_tensors_hooks_tutorial.py``): ``grad_fn._saved_*``,
``saved_tensors_hooks`` (returning the tensor, an int, a tuple, a str), ``save_on_cpu``
and saving the saved tensors to disk with ``torch.save``/``torch.load`` in a temporary
directory.

Ported by changing the imports (``import pyad as torch``); ``print`` is ``log``. The
models call ``init`` (the tests give pyad torch's initial weights), and the losses and
gradients are returned. Other lines that differ: the str hooks'
``eval("torch." + x)`` is given the namespace (``eval("torch." + x, {"torch": torch})``:
inside ``run`` the lambda does not see ``torch`` otherwise); the naive disk version's
``tmp_dir = "temp"`` is never used (its hooks are only defined, as in the original);
the tutorial's ``torch.save(tensor, ...)`` in the size-filtering hook is kept as
written (``tensor`` is undefined there: the hook is never called, since the tutorial
only builds ``nn.DataParallel(SaveToDisk(Model()))``); that last model is also run
once here, with ``SAVE_ON_DISK_THRESHOLD`` small enough to keep everything in memory.

Run it with ``python examples/ported/autograd_saved_tensors_hooks.py``.
"""
import os
import tempfile
import uuid


def run(torch, init=None, log=print):
    """Return the values the tutorial computes (gradients, losses), in its order."""
    results = []

    # Saved tensors: y = a * b saves a and b
    a = torch.randn(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True)
    y = a * b

    log(y.grad_fn._saved_self)
    log(y.grad_fn._saved_other)

    def f(x):
        return x * x

    x = torch.randn(5, requires_grad=True)
    y = f(f(f(x)))
    results.append(y)

    # The concept of packing / unpacking
    a = torch.randn(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True)
    y = a * b

    log(y.grad_fn._saved_self is a)   # True
    log(y.grad_fn._saved_other is b)  # True

    a = torch.randn(5, requires_grad=True)
    y = torch.exp(a)
    log(y.grad_fn._saved_result.equal(y))  # True
    log(y.grad_fn._saved_result is y)      # False

    # Saved tensors hooks
    def pack_hook(x):
        log("Packing", x)
        return x

    def unpack_hook(x):
        log("Unpacking", x)
        return x
    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2

    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b

    y.sum().backward()
    results.append(a.grad)

    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
        y = torch.pow(x, 2)
    y.sum().backward()
    assert(x.grad.equal(2 * x))

    # Returning an int: the index of a Python list
    storage = []

    def pack(x):
        storage.append(x)
        return len(storage) - 1

    def unpack(x):
        return storage[x]

    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()

    assert(x.grad.equal(2 * x))

    # Returning a tuple: some tensor and a function how to unpack it
    def pack(x):
        delta = torch.randn(*x.size())
        return x - delta, lambda x: x + delta

    def unpack(packed):
        x, f = packed
        return f(x)

    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()

    assert(torch.allclose(x.grad, 2 * x))
    results.append(x.grad)

    # Returning a str: the __repr__ of the tensor
    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: repr(x),
                                                  lambda x: eval("torch." + x,
                                                                 {"torch": torch})):
        y = x * x
    y.sum().backward()
    assert(torch.all(x.grad - 2 * x <= 1e-4))
    results.append(x.grad)

    # Saving tensors to CPU
    def pack_hook(x):
        return (x.device, x.cpu())

    def unpack_hook(packed):
        device, tensor = packed
        return tensor.to(device)

    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()

    log(torch.allclose(x.grad, (2 * x)))

    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(5))

        def forward(self, x):
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                # some computation
                return self.w * x

    x = torch.randn(5)
    model = Model()
    if init is not None:
        init(model)
    loss = model(x).sum()
    loss.backward()
    results += [loss, model.w.grad]

    class SaveToCpu(nn.Module):
        def __init__(self, module):
            super().__init__()
            self.module = module

        def forward(self, *args, **kwargs):
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                return self.module(*args, **kwargs)

    model = nn.Sequential(
        nn.Linear(10, 100),
        SaveToCpu(nn.Linear(100, 100)),
        nn.Linear(100, 10),
    )
    if init is not None:
        init(model)

    x = torch.randn(10)
    loss = model(x).sum()
    loss.backward()
    results += [loss] + [p.grad for p in model.parameters()]

    # Saving tensors to disk. Naive version - HINT: Don't do this
    tmp_dir = "temp"

    def pack_hook(tensor):
        name = os.path.join(tmp_dir, str(uuid.uuid4()))
        torch.save(tensor, name)
        return name

    def unpack_hook(name):
        return torch.load(name)

    # Incorrect version - HINT: Don't do this
    tmp_dir_obj = tempfile.TemporaryDirectory()
    tmp_dir = tmp_dir_obj.name

    def pack_hook(tensor):
        name = os.path.join(tmp_dir, str(uuid.uuid4()))
        torch.save(tensor, name)
        return name

    def unpack_hook(name):
        tensor = torch.load(name)
        os.remove(name)
        return tensor

    # ``unpack_hook`` can be called multiple times: the second access fails
    x = torch.ones(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2)
    log(y.grad_fn._saved_self)
    try:
        log(y.grad_fn._saved_self)
        log("Double access succeeded!")
    except:  # noqa: E722 (the tutorial's bare except)
        log("Double access failed!")

    class SelfDeletingTempFile():
        def __init__(self):
            self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

        def __del__(self):
            os.remove(self.name)

    def pack_hook(tensor):
        temp_file = SelfDeletingTempFile()
        torch.save(tensor, temp_file.name)
        return temp_file

    def unpack_hook(temp_file):
        return torch.load(temp_file.name)

    # (not in the tutorial, which only defines these hooks: use them once, and see
    # that the files are gone with the graph)
    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2).exp()
    files_while_graph = len(os.listdir(tmp_dir))
    y.sum().backward()
    del y
    results += [x.grad, files_while_graph, len(os.listdir(tmp_dir))]

    # Only save on disk tensors that have size >= 1000
    SAVE_ON_DISK_THRESHOLD = 1000

    def pack_hook(x):
        if x.numel() < SAVE_ON_DISK_THRESHOLD:
            return x
        temp_file = SelfDeletingTempFile()
        torch.save(tensor, temp_file.name)  # noqa: F821 (as in the tutorial)
        return temp_file

    def unpack_hook(tensor_or_sctf):
        if isinstance(tensor_or_sctf, torch.Tensor):
            return tensor_or_sctf
        return torch.load(tensor_or_sctf.name)

    class SaveToDisk(nn.Module):
        def __init__(self, module):
            super().__init__()
            self.module = module

        def forward(self, *args, **kwargs):
            with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
                return self.module(*args, **kwargs)

    net = nn.DataParallel(SaveToDisk(Model()))
    if init is not None:
        init(net)
    # (not in the tutorial: run it once; every saved tensor has 5 elements)
    loss = net(torch.randn(5)).sum()
    loss.backward()
    results += [loss, net.module.module.w.grad]
    tmp_dir_obj.cleanup()
    return results


if __name__ == "__main__":
    import pyad as torch
    for value in run(torch, log=lambda *a: None):
        print(tuple(value.shape) if hasattr(value, "shape") else value)

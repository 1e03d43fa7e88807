"""Port of the PyTorch recipe "Tips for Loading an nn.Module from a Checkpoint"
(pytorch/tutorials ``recipes_source/recipes/module_load_state_dict_tips.py``):
``torch.load(mmap=True)``, the ``torch.device('meta')`` context manager and
``load_state_dict(assign=True)``.

Ported by changing the imports (``import pyad as torch``). The checkpoint is written in a
temporary directory; the commented-out processing loop is left out. pyad has no meta
device and its ``device`` is not a context manager, so ``with torch.device('meta'):``
raises there: ``meta=False`` builds those modules under ``contextlib.nullcontext()``
(real weights, which ``assign=True`` replaces), ``meta=True`` runs the text's line.
``run`` returns the loaded state dicts and modules; ``init`` sees the first module.

Run it with ``python examples/ported/module_load_state_dict_tips.py``.
"""
import contextlib
import os
import tempfile


def run(torch, meta=False, init=None, log=print):
    """Return the loaded state dicts, the modules and what ``load_state_dict`` returned."""
    nn = torch.nn
    r = {}

    def device_context():
        return torch.device('meta') if meta else contextlib.nullcontext()

    class SomeModule(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linears = nn.ModuleList([nn.Linear(1, 1) for i in range(10)])

        def forward(self, x):
            return self.linears(x)

    with tempfile.TemporaryDirectory() as directory:
        checkpoint = os.path.join(directory, 'checkpoint.pth')

        m = SomeModule()
        if init is not None:
            init(m)
        torch.save(m.state_dict(), checkpoint)
        state_dict = torch.load(checkpoint, mmap=True)
        with device_context():
          meta_m = SomeModule()
        r["assign_result"] = repr(meta_m.load_state_dict(state_dict, assign=True))
        r["mmap_state_dict"] = state_dict
        r["meta_m_after_assign"] = meta_m
        r["assigned_is_parameter"] = [type(l.weight).__name__ for l in meta_m.linears]
        r["assigned_requires_grad"] = [l.weight.requires_grad for l in meta_m.linears]

        state_dict = torch.load(checkpoint)
        m = SomeModule()
        r["load_result"] = repr(m.load_state_dict(state_dict))
        r["state_dict"] = state_dict
        r["m"] = m

        state_dict = torch.load(checkpoint)

        state_dict = torch.load(checkpoint, mmap=True)

        m = SomeModule()

        with device_context():
          meta_m = SomeModule()

        m.load_state_dict(state_dict)

        meta_m.load_state_dict(state_dict, assign=True)
        r["m_2"], r["meta_m_2"] = m, meta_m
        # assign=True keeps the loaded tensors themselves (the same memory)
        r["assign_shares"] = [
            bool(meta_m.linears[i].weight.detach().numpy().__array_interface__["data"][0]
                 == state_dict["linears.%d.weight" % i].detach().numpy()
                 .__array_interface__["data"][0]) for i in range(10)]
    return r


if __name__ == "__main__":
    import pyad as torch
    run(torch)

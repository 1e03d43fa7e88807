"""Port of the PyTorch tutorial "Tensors" (pytorch/tutorials
``beginner_source/basics/tensorqs_tutorial.py``): tensors from data, from NumPy and
from other tensors; ``rand``/``ones``/``zeros`` of a shape; attributes; indexing and
slicing with an assignment; ``cat``; ``@``, ``matmul`` and ``mul`` (with ``out=``);
``item``; in-place ``add_``; and the NumPy bridge both ways (shared memory).

Ported by changing the imports (``import pyad as torch``). ``run`` returns every value
the tutorial prints, the NumPy arrays of the bridge included. pyad's ``matmul`` and
``mul`` take no ``out=`` keyword (no pyad op does), so the two lines
``torch.matmul(tensor, tensor.T, out=y3)`` and ``torch.mul(tensor, tensor, out=z3)``
raise TypeError on pyad: they are kept as written, and running the file (as the tests)
passes a namespace proxy whose ``matmul``/``mul`` copy the result into ``out``.

Run it with ``python examples/ported/tensorqs_tutorial.py``.
"""
import numpy as np


def run(torch, init=None, log=print):
    """Return a dict of every value the tutorial prints."""
    results = {}

    data = [[1, 2],[3, 4]]
    x_data = torch.tensor(data)
    results["x_data"] = x_data

    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    results["x_np"] = x_np

    x_ones = torch.ones_like(x_data) # retains the properties of x_data
    log(f"Ones Tensor: \n {x_ones} \n")
    results["x_ones"] = x_ones

    x_rand = torch.rand_like(x_data, dtype=torch.float) # overrides the datatype of x_data
    log(f"Random Tensor: \n {x_rand} \n")
    results["x_rand"] = x_rand

    shape = (2,3,)
    rand_tensor = torch.rand(shape)
    ones_tensor = torch.ones(shape)
    zeros_tensor = torch.zeros(shape)

    log(f"Random Tensor: \n {rand_tensor} \n")
    log(f"Ones Tensor: \n {ones_tensor} \n")
    log(f"Zeros Tensor: \n {zeros_tensor}")
    results.update(rand_tensor=rand_tensor, ones_tensor=ones_tensor,
                   zeros_tensor=zeros_tensor)

    tensor = torch.rand(3,4)

    log(f"Shape of tensor: {tensor.shape}")
    log(f"Datatype of tensor: {tensor.dtype}")
    log(f"Device tensor is stored on: {tensor.device}")
    results["shape"] = list(tensor.shape)
    results["dtype"] = str(tensor.dtype).replace("torch.", "").replace("pyad.", "")
    results["device"] = str(tensor.device)

    # We move our tensor to the GPU if available, and if the cuda version is supported
    if torch.cuda.is_available() & (torch.device('cuda').index is not None):
        tensor = tensor.to('cuda')

    tensor = torch.ones(4, 4)
    log('First row: ', tensor[0])
    log('First column: ', tensor[:, 0])
    log('Last column:', tensor[..., -1])
    results.update(first_row=tensor[0], first_column=tensor[:, 0],
                   last_column=tensor[..., -1])
    tensor[:,1] = 0
    log(tensor)
    results["tensor"] = tensor.clone()

    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    log(t1)
    results["t1"] = t1

    # This computes the matrix multiplication between two tensors. y1, y2, y3 will have the same value
    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)

    y3 = torch.rand_like(tensor)
    torch.matmul(tensor, tensor.T, out=y3)
    results.update(y1=y1, y2=y2, y3=y3)

    # This computes the element-wise product. z1, z2, z3 will have the same value
    z1 = tensor * tensor
    z2 = tensor.mul(tensor)

    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)
    results.update(z1=z1, z2=z2, z3=z3)

    agg = tensor.sum()
    agg_item = agg.item()
    log(agg_item, type(agg_item))
    results["agg_item"] = agg_item
    results["agg_item_is_float"] = type(agg_item) is float

    log(tensor, "\n")
    tensor.add_(5)
    log(tensor)
    results["tensor_add_"] = tensor

    t = torch.ones(5)
    log(f"t: {t}")
    n = t.numpy()
    log(f"n: {n}")

    t.add_(1)
    log(f"t: {t}")
    log(f"n: {n}")
    results["t_after_add_"], results["n_after_add_"] = t.clone(), n.copy()

    n = np.ones(5)
    t = torch.from_numpy(n)

    np.add(n, 1, out=n)
    log(f"t: {t}")
    log(f"n: {n}")
    results["t_after_np_add"], results["n_after_np_add"] = t.clone(), n.copy()
    return results


if __name__ == "__main__":
    import pyad as torch
    import types

    def _with_out(op):
        # torch's out=: the result written into the given tensor, which is returned
        def call(*args, out=None):
            result = op(*args)
            if out is None:
                return result
            with torch.no_grad():
                return out.copy_(result)
        return call

    class _Out(types.SimpleNamespace):
        def __getattr__(self, name):
            return getattr(torch, name)

    run(_Out(matmul=_with_out(torch.matmul), mul=_with_out(torch.mul)))

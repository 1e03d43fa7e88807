"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/201_torch_numpy.py``: the NumPy
bridge and a few operations (abs, sin, mean, mm) side by side with NumPy's.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The last cell's
``tensor.dot(tensor)`` of two 2-D tensors (old torch flattened them and gave 30.0)
raises in torch 2.13, and in pyad: the port catches the ``RuntimeError`` and prints it.
``print`` is ``log``; ``run`` returns what the text prints.

Run it with ``python examples/ported/morvan_201_torch_numpy.py``.
"""
import numpy as np


def run(torch, log=print):
    out = {}
    # details about math operation in torch can be found in: http://pytorch.org/docs/torch.html#math-operations

    # convert numpy to tensor or vise versa
    np_data = np.arange(6).reshape((2, 3))
    torch_data = torch.from_numpy(np_data)
    tensor2array = torch_data.numpy()
    log(
        '\nnumpy array:', np_data,          # [[0 1 2], [3 4 5]]
        '\ntorch tensor:', torch_data,      #  0  1  2 \n 3  4  5    [torch.LongTensor of size 2x3]
        '\ntensor to array:', tensor2array, # [[0 1 2], [3 4 5]]
    )
    out["bridge"] = (torch_data, tensor2array)

    # abs
    data = [-1, -2, 1, 2]
    tensor = torch.FloatTensor(data)  # 32-bit floating point
    log(
        '\nabs',
        '\nnumpy: ', np.abs(data),          # [1 2 1 2]
        '\ntorch: ', torch.abs(tensor)      # [1 2 1 2]
    )
    out["abs"] = torch.abs(tensor)

    # sin
    log(
        '\nsin',
        '\nnumpy: ', np.sin(data),      # [-0.84147098 -0.90929743  0.84147098  0.90929743]
        '\ntorch: ', torch.sin(tensor)  # [-0.8415 -0.9093  0.8415  0.9093]
    )
    out["sin"] = torch.sin(tensor)

    # mean
    log(
        '\nmean',
        '\nnumpy: ', np.mean(data),         # 0.0
        '\ntorch: ', torch.mean(tensor)     # 0.0
    )
    out["mean"] = torch.mean(tensor)

    # matrix multiplication
    data = [[1,2], [3,4]]
    tensor = torch.FloatTensor(data)  # 32-bit floating point
    # correct method
    log(
        '\nmatrix multiplication (matmul)',
        '\nnumpy: ', np.matmul(data, data),     # [[7, 10], [15, 22]]
        '\ntorch: ', torch.mm(tensor, tensor)   # [[7, 10], [15, 22]]
    )
    out["mm"] = torch.mm(tensor, tensor)
    # incorrect method
    data = np.array(data)
    try:
        log(
            '\nmatrix multiplication (dot)',
            '\nnumpy: ', data.dot(data),        # [[7, 10], [15, 22]]
            '\ntorch: ', tensor.dot(tensor)     # this will convert tensor to [1,2,3,4], you'll get 30.0
        )
    except RuntimeError as e:
        log(e)
        out["dot_error"] = str(e)
    return out


if __name__ == "__main__":
    import pyad as torch
    run(torch)

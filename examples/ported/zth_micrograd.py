"""Port of karpathy/nn-zero-to-hero
``lectures/micrograd/micrograd_lecture_second_half_roughly.ipynb``'s torch cells: the
neuron ``tanh(x1*w1 + x2*w2 + b)`` of the micrograd lecture, built from
``torch.Tensor([...]).double()`` leaves with ``requires_grad = True``, its output and the
four gradients that the notebook checks micrograd's ``Value`` against.

Copyright (c) 2022 Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nn-zero-to-hero/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``): the two cells (``import
torch`` and the neuron) are the body of ``run``; ``print`` is ``log``, and what the cell
prints is also returned. The rest of the notebook is micrograd's own ``Value`` class and
``MLP`` (no torch), and the first-half notebook has no torch cell. ``o.data.item()``
runs as written: pyad's ``.data`` is the NumPy array, whose ``item()`` is the same float.

Run it with ``python examples/ported/zth_micrograd.py``.
"""


def run(torch, log=print):
    results = {}

    x1 = torch.Tensor([2.0]).double()                ; x1.requires_grad = True
    x2 = torch.Tensor([0.0]).double()                ; x2.requires_grad = True
    w1 = torch.Tensor([-3.0]).double()               ; w1.requires_grad = True
    w2 = torch.Tensor([1.0]).double()                ; w2.requires_grad = True
    b = torch.Tensor([6.8813735870195432]).double()  ; b.requires_grad = True
    n = x1*w1 + x2*w2 + b
    o = torch.tanh(n)

    log(o.data.item())
    results["o"] = o.data.item()
    o.backward()

    log('---')
    log('x2', x2.grad.item())
    log('w2', w2.grad.item())
    log('x1', x1.grad.item())
    log('w1', w1.grad.item())
    results["grads"] = [('x2', x2.grad.item()), ('w2', w2.grad.item()),
                        ('x1', x1.grad.item()), ('w1', w1.grad.item())]
    results["dtypes"] = [str(t.dtype).split(".")[-1] for t in (x1, n, o, x1.grad)]
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of the PyTorch tutorial "Learn the Basics": *Automatic Differentiation with
torch.autograd* (``beginner_source/basics/autogradqs_tutorial.py``).

Ported by changing the imports (``import pyad as torch``); ``print`` is ``log`` (a
keyword argument, so that the tests can compare what is printed).

Run it with ``python examples/ported/autogradqs_tutorial.py``.
"""


def run(torch, init=None, log=print):
    """Return nothing: everything the tutorial prints goes to ``log``."""
    x = torch.ones(5)  # input tensor
    y = torch.zeros(3)  # expected output
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

    # Tensors, Functions and Computational graph
    log(f"Gradient function for z = {z.grad_fn}")
    log(f"Gradient function for loss = {loss.grad_fn}")

    # Computing Gradients
    loss.backward()
    log(w.grad)
    log(b.grad)

    # Disabling Gradient Tracking
    z = torch.matmul(x, w)+b
    log(z.requires_grad)

    with torch.no_grad():
        z = torch.matmul(x, w)+b
    log(z.requires_grad)

    # Another way to achieve the same result is to use the ``detach()`` method
    z = torch.matmul(x, w)+b
    z_det = z.detach()
    log(z_det.requires_grad)

    # Optional Reading: Tensor Gradients and Jacobian Products
    inp = torch.eye(4, 5, requires_grad=True)
    out = (inp+1).pow(2).t()
    out.backward(torch.ones_like(out), retain_graph=True)
    log(f"First call\n{inp.grad}")
    out.backward(torch.ones_like(out), retain_graph=True)
    log(f"\nSecond call\n{inp.grad}")
    inp.grad.zero_()
    out.backward(torch.ones_like(out), retain_graph=True)
    log(f"\nCall after zeroing gradients\n{inp.grad}")


if __name__ == "__main__":
    import pyad as torch
    run(torch)

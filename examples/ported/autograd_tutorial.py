"""Port of the PyTorch tutorial "Deep Learning with PyTorch: A 60 Minute Blitz":
*Autograd: automatic differentiation* (``beginner_source/blitz/autograd_tutorial.py``).

Ported by changing the imports (``import pyad as torch``); ``print`` is ``log`` (a
keyword argument, so that the tests can compare what is printed). One other line
differs: the original's ``while y.data.norm() < 1000`` is written
``while y.detach().norm() < 1000``, because in pyad ``.data`` is the NumPy array (see
the porting guide); ``data_norm=True`` runs the original line.

Run it with ``python examples/ported/autograd_tutorial.py``.
"""


def run(torch, data_norm=False, init=None, log=print):
    """Return nothing: everything the tutorial prints goes to ``log``."""
    # Create a tensor and set requires_grad=True to track computation with it
    x = torch.ones(2, 2, requires_grad=True)
    log(x)

    # Do an operation of tensor:
    y = x + 2
    log(y)

    # ``y`` was created as a result of an operation, so it has a ``grad_fn``.
    log(y.grad_fn)

    # Do more operations on y
    z = y * y * 3
    out = z.mean()

    log(z, out)

    # ``.requires_grad_( ... )`` changes an existing Tensor's ``requires_grad``
    # flag in-place. The input flag defaults to ``True`` if not given.
    a = torch.randn(2, 2)
    a = ((a * 3) / (a - 1))
    log(a.requires_grad)
    a.requires_grad_(True)
    log(a.requires_grad)
    b = (a * a).sum()
    log(b.grad_fn)

    # Gradients: ``out.backward()`` is ``out.backward(torch.tensor(1))``.
    out.backward()

    # print gradients d(out)/dx: a matrix of 4.5
    log(x.grad)

    # You can do many crazy things with autograd!
    x = torch.randn(3, requires_grad=True)

    y = x * 2
    if data_norm:
        while y.data.norm() < 1000:
            y = y * 2
    else:
        while y.detach().norm() < 1000:
            y = y * 2

    log(y)

    gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
    y.backward(gradients)

    log(x.grad)

    # You can also stops autograd from tracking history on Tensors
    # with requires_grad=True by wrapping the code block in
    # ``with torch.no_grad():``
    log(x.requires_grad)
    log((x ** 2).requires_grad)

    with torch.no_grad():
        log((x ** 2).requires_grad)


if __name__ == "__main__":
    import pyad as torch
    run(torch)

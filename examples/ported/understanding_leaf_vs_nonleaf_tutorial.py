"""Port of the PyTorch tutorial "Understanding requires_grad, retain_grad, Leaf, and
Non-leaf Tensors" (pytorch/tutorials ``beginner_source/understanding_leaf_vs_nonleaf_tutorial.py``):
a ``Linear``-like affine map, ``relu`` and ``mse_loss``; ``is_leaf``, ``requires_grad``,
``grad`` of leaves and non-leaves (``None``, with a warning), ``retain_grad()``,
``retains_grad``, and the two errors the text shows in ``::`` blocks (``backward`` of a
loss that does not require grad, ``retain_grad`` of a Variable that does not).

Ported by changing the imports (``import pyad as torch``, ``F = torch.nn.functional``);
``print`` is ``log``. ``run`` also returns every value the text prints (the f-strings'
``name=value`` pairs). The two errors the text shows as console sessions are run at the
end (``errors=True``) on fresh tensors built as the text's, their messages returned.

Run it with ``python examples/ported/understanding_leaf_vs_nonleaf_tutorial.py``.
"""


def run(torch, init=None, log=print, errors=True):
    """Return a dict of every value the tutorial prints."""
    F = torch.nn.functional
    results = {}

    # tensor setup
    x = torch.ones(1, 3)                      # input with shape: (1, 3)
    W = torch.ones(3, 2, requires_grad=True)  # weights with shape: (3, 2)
    b = torch.ones(1, 2, requires_grad=True)  # bias with shape: (1, 2)
    y = torch.ones(1, 2)                      # output with shape: (1, 2)

    # forward pass
    z = (x @ W) + b                           # pre-activation with shape: (1, 2)
    y_pred = F.relu(z)                        # activation with shape: (1, 2)
    loss = F.mse_loss(y_pred, y)              # scalar loss

    # prints True because new tensors are leafs by convention
    log(f"{x.is_leaf=}")
    results["x.is_leaf"] = x.is_leaf

    # prints False because tensor is the result of an operation with at
    # least one input having requires_grad=True
    log(f"{z.is_leaf=}")
    results["z.is_leaf"] = z.is_leaf

    log(f"{x.requires_grad=}") # prints False because requires_grad=False by default
    log(f"{W.requires_grad=}") # prints True because we set requires_grad=True in constructor
    log(f"{z.requires_grad=}") # prints True because tensor is a non-leaf node
    results.update({"x.requires_grad": x.requires_grad, "W.requires_grad": W.requires_grad,
                    "z.requires_grad": z.requires_grad})

    loss.backward()

    log(f"{W.grad=}")
    log(f"{b.grad=}")
    results.update({"W.grad": W.grad, "b.grad": b.grad})

    # prints all None because requires_grad=False
    log(f"{x.grad=}")
    log(f"{y.grad=}")
    results.update({"x.grad": x.grad, "y.grad": y.grad})

    log(f"{z.grad=}")
    results["z.grad"] = z.grad

    # we have to re-run the forward pass
    z = (x @ W) + b
    y_pred = F.relu(z)
    loss = F.mse_loss(y_pred, y)

    # tell PyTorch to store the gradients after backward()
    z.retain_grad()
    y_pred.retain_grad()
    loss.retain_grad()

    # have to zero out gradients otherwise they would accumulate
    W.grad = None
    b.grad = None

    # backpropagation
    loss.backward()

    # print gradients for all tensors that have requires_grad=True
    log(f"{W.grad=}")
    log(f"{b.grad=}")
    log(f"{z.grad=}")
    log(f"{y_pred.grad=}")
    log(f"{loss.grad=}")
    results.update({"W.grad 2": W.grad, "b.grad 2": b.grad, "z.grad 2": z.grad,
                    "y_pred.grad": y_pred.grad, "loss.grad": loss.grad})
    # the state the second diagram shows
    results["retains_grad"] = [t.retains_grad for t in (x, W, b, z, y_pred, y, loss)]
    results["is_leaf"] = [t.is_leaf for t in (x, W, b, z, y_pred, y, loss)]

    if errors:
        # the text's console sessions: the forward pass without requires_grad, and
        # retain_grad of a leaf that does not require grad
        W0 = torch.ones(3, 2)
        b0 = torch.ones(1, 2)
        loss0 = F.mse_loss(F.relu((x @ W0) + b0), y)
        try:
            loss0.backward()
        except RuntimeError as e:
            log(f"RuntimeError: {e}")
            results["backward error"] = str(e)
        try:
            x.retain_grad()
        except RuntimeError as e:
            log(f"RuntimeError: {e}")
            results["retain_grad error"] = str(e)
        # retain_grad of a leaf that requires grad is a no-op
        W.retain_grad()
        results["W.retains_grad after retain_grad"] = W.retains_grad
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

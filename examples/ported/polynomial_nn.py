"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *nn module*. The
polynomial fit as ``nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))`` with
``MSELoss(reduction='sum')`` and a hand-written update.

Ported by changing the imports (``import pyad as torch``).

Run it with ``python examples/ported/polynomial_nn.py``.
"""
import math


def run(torch, steps=300, init=None, log=print):
    """Return the loss of every step."""
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    # (x, x^2, x^3) as the columns of a (2000, 3) tensor
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1)
    )
    if init is not None:
        init(model)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    learning_rate = 1e-6
    losses = []
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        if t % 100 == 99:
            log(t, loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    log(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
        f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=2000)

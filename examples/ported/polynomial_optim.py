"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *optim*. The
``nn`` polynomial fit with ``torch.optim.RMSprop``.

Ported by changing the imports (``import pyad as torch``). Needs ``pyad.optim.RMSprop``.

Run it with ``python examples/ported/polynomial_optim.py``.
"""
import math


def run(torch, steps=300, init=None, log=print):
    """Return the loss of every step."""
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1)
    )
    if init is not None:
        init(model)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    learning_rate = 1e-3
    optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
    losses = []
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        if t % 100 == 99:
            log(t, loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    linear_layer = model[0]
    log(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
        f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=2000)

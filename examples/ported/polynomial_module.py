"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *Custom nn Modules*.
The polynomial as a ``torch.nn.Module`` subclass with four scalar parameters, trained
by ``torch.optim.SGD``.

Ported by changing the imports (``import pyad as torch``).

Run it with ``python examples/ported/polynomial_module.py``.
"""
import math


def run(torch, steps=300, seed=0, init=None, log=print):
    """Return the loss of every step."""
    torch.manual_seed(seed)

    class Polynomial3(torch.nn.Module):
        def __init__(self):
            """Four scalar parameters."""
            super().__init__()
            self.a = torch.nn.Parameter(torch.randn(()))
            self.b = torch.nn.Parameter(torch.randn(()))
            self.c = torch.nn.Parameter(torch.randn(()))
            self.d = torch.nn.Parameter(torch.randn(()))

        def forward(self, x):
            return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

        def string(self):
            return (f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
                    f"{self.d.item()} x^3")

    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    model = Polynomial3()
    if init is not None:
        init(model)
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    losses = []
    for t in range(steps):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        losses.append(loss.item())
        if t % 100 == 99:
            log(t, loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    log(f"Result: {model.string()}")
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=2000)

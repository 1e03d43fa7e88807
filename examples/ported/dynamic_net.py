"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *Control flow + weight
sharing*. A polynomial of random order 3 to 5 on every forward pass, the coefficients
of orders 4 and 5 shared, trained by SGD with momentum.

Ported by changing the imports (``import pyad as torch``); Python's ``random`` is
seeded so that torch and pyad draw the same orders.

Run it with ``python examples/ported/dynamic_net.py``.
"""
import math
import random


def run(torch, steps=300, seed=0, init=None, log=print):
    """Return the loss of every step."""
    random.seed(seed)
    torch.manual_seed(seed)

    class DynamicNet(torch.nn.Module):
        def __init__(self):
            """Five scalar parameters."""
            super().__init__()
            self.a = torch.nn.Parameter(torch.randn(()))
            self.b = torch.nn.Parameter(torch.randn(()))
            self.c = torch.nn.Parameter(torch.randn(()))
            self.d = torch.nn.Parameter(torch.randn(()))
            self.e = torch.nn.Parameter(torch.randn(()))

        def forward(self, x):
            """A polynomial of order 3, 4 or 5 (chosen at random); e is reused for the
            orders above 3."""
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, random.randint(4, 6)):
                y = y + self.e * x ** exp
            return y

        def string(self):
            return (f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
                    f"{self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?")

    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    model = DynamicNet()
    if init is not None:
        init(model)
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
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

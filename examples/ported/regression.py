"""Port of pytorch/examples ``regression``: fit a degree-4 polynomial with one
``Linear`` layer, smooth L1 loss and a hand-written SGD update.

Ported by changing the imports (``import pyad as torch``). The random batches come from
a seeded NumPy generator (so that torch and pyad see the same ones); the update
``param.data.add_(-0.1 * param.grad)`` is written under ``torch.no_grad()`` on the
parameter itself (pyad's ``.data`` is the array).

Run it with ``python examples/ported/regression.py``.
"""
import numpy as np

POLY_DEGREE = 4


def run(torch, steps=40, threshold=1e-3, seed=0, init=None, log=print):
    """Fit until the loss is below ``threshold`` or ``steps`` batches; return the losses."""
    F = torch.nn.functional
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)

    def randn(*shape):
        return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))

    W_target = randn(POLY_DEGREE, 1) * 5
    b_target = randn(1) * 5

    def make_features(x):
        """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
        x = x.unsqueeze(1)
        return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)

    def f(x):
        """Approximated function."""
        return x.mm(W_target) + b_target.item()

    def poly_desc(W, b):
        """Creates a string description of a polynomial."""
        result = "y = "
        for i, w in enumerate(W):
            result += "{:+.2f} x^{} ".format(w, i + 1)
        result += "{:+.2f}".format(b[0])
        return result

    def get_batch(batch_size=32):
        """Builds a batch i.e. (x, f(x)) pair."""
        random = randn(batch_size)
        x = make_features(random)
        y = f(x)
        return x, y

    fc = torch.nn.Linear(W_target.size(0), 1)
    if init is not None:
        init(fc)
    losses = []
    for batch_idx in range(1, steps + 1):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        with torch.no_grad():
            for param in fc.parameters():
                param.add_(-0.1 * param.grad)
        losses.append(loss)
        if loss < threshold:
            break
    log("Loss: {:.6f} after {} batches".format(loss, batch_idx))
    log("==> Learned function:\t" + poly_desc(fc.weight.view(-1).tolist(),
                                               fc.bias.tolist()))
    log("==> Actual function:\t" + poly_desc(W_target.view(-1).tolist(),
                                              b_target.tolist()))
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=400)

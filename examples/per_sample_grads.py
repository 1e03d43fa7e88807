"""Per-sample gradients with ``pyad.func``: ``vmap(grad(loss))`` over a batch.

A small classifier's loss is written for one sample, as a function of the model's
parameters through ``functional_call``. ``grad`` turns it into the gradient for one
sample, and ``vmap`` maps that over the batch, giving every parameter's gradient per
sample (the recipe of torch.func's tutorial, used for example to clip each sample's
gradient in differentially private SGD). The script checks the result against one
ordinary ``backward`` per sample and prints the largest difference and the per-sample
gradient norms.

pyad's ``vmap`` calls the function once per sample and stacks the results (it does
not vectorise), so this is as fast as the loop it replaces; what it buys is the
composable form. Run it with ``python examples/per_sample_grads.py``.
"""
import numpy as np

import pyad
import pyad.nn.functional as F
from pyad import nn
from pyad.func import functional_call, grad, vmap

pyad.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)).double()
data = pyad.randn(16, 4, dtype=pyad.float64)
targets = pyad.randint(0, 3, (16,))

# The parameters as a dict of plain Variables: the transforms differentiate them.
params = {name: p.detach() for name, p in model.named_parameters()}


def sample_loss(params, sample, target):
    """The loss of one sample (the model sees a batch of one)."""
    logits = functional_call(model, params, (sample.unsqueeze(0),))
    return F.cross_entropy(logits, target.unsqueeze(0))


per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, data, targets)

# The same gradients the slow way: one backward per sample.
worst = 0.0
for i in range(len(data)):
    model.zero_grad()
    sample_loss(dict(model.named_parameters()), data[i], targets[i]).backward()
    for name, p in model.named_parameters():
        worst = max(worst, float(np.abs(per_sample[name].data[i] - p.grad.data).max()))

norms = sum((g.reshape(len(data), -1) ** 2).sum(1) for g in per_sample.values()).sqrt()
print("per-sample gradient shapes:",
      {name: tuple(g.shape) for name, g in per_sample.items()})
print("largest difference from one backward per sample: %.3e" % worst)
print("per-sample gradient norms:", np.round(norms.data, 4))

"""One model across three frameworks, trained end to end by pyad.

The first layer is a PyTorch module (``torch.nn.Linear`` and a tanh), the second a JAX
function, the loss is pyad's, and ``pyad.optim.Adam`` trains all of it. The bridges of
``pyad.interop`` carry the data across without copying (the torch module's parameters
*are* the pyad Parameters the optimizer updates: both views share memory) and carry the
gradients back through JAX and torch.

The task: regress y = sin(2 x0) cos(x1) from 256 random points of the plane. The
script asserts that training cuts the loss at least tenfold, so a test fails if a
gradient goes wrong anywhere along the chain.

    python examples/interop.py            # needs torch and jax: pip install "pyad[torch,jax]"
"""
import numpy as np
import torch
import jax
import jax.numpy as jnp

import pyad
from pyad.interop import from_jax, from_torch

STEPS = 150

torch.manual_seed(0)
rng = np.random.default_rng(0)
x_np = rng.uniform(-1.5, 1.5, size=(256, 2)).astype(np.float32)
y_np = (np.sin(2 * x_np[:, 0]) * np.cos(x_np[:, 1]))[:, None].astype(np.float32)
x, y = pyad.tensor(x_np), pyad.tensor(y_np)

# Layer 1: a torch module. Its parameters enter as arguments, so they are pyad leaves
# sharing the module's memory, and torch.func.functional_call runs the module on them.
layer1 = torch.nn.Linear(2, 32)
names = [name for name, _ in layer1.named_parameters()]
params1 = [pyad.nn.Parameter(pyad.from_dlpack(p.detach())) for p in layer1.parameters()]


@from_torch
def torch_layer(inputs, *params):
    return torch.tanh(torch.func.functional_call(layer1, dict(zip(names, params)), (inputs,)))


# Layer 2: a JAX function with pyad-owned weights.
w2 = pyad.nn.Parameter(pyad.tensor(rng.normal(0, 0.3, size=(32, 1)).astype(np.float32)))
b2 = pyad.nn.Parameter(pyad.zeros(1))


@from_jax
def jax_layer(hidden, w, b):
    return jnp.dot(hidden, w) + b


def model(inputs):
    return jax_layer(torch_layer(inputs, *params1), w2, b2)


optimizer = pyad.optim.Adam(params1 + [w2, b2], lr=0.02)
first = None
for step in range(STEPS + 1):
    optimizer.zero_grad()
    loss = pyad.nn.functional.mse_loss(model(x), y)      # the loss is pyad's
    loss.backward()
    optimizer.step()
    if first is None:
        first = loss.item()
    if step % 50 == 0:
        print("step %3d  loss %.5f" % (step, loss.item()))

final = loss.item()
print("loss %.5f -> %.5f" % (first, final))
# The optimizer updated the torch module itself: the two are one memory.
assert np.array_equal(layer1.weight.detach().numpy(), params1[0].data)
assert final < first / 10, "training did not converge: %.5f -> %.5f" % (first, final)

"""Autograd: the original torch autograd tutorial, run with pyad.

This is the text of the old "torchies" autograd tutorial (shared/seeds/5-tutorial.rst)
as a script. Only the imports changed: ``import torch`` became ``import pyad`` and
``from torch.autograd import Variable`` became ``from pyad.autograd import Variable``;
``torch.ones``/``torch.randn`` are ``pyad.ones``/``pyad.randn``.

Autograd uses a tape based system for automatic differentiation. In the forward phase
the tape remembers every operation it executed, and in the backward phase it replays
them.

Run it with ``python examples/tutorial.py``.
"""
import pyad
from pyad.autograd import Variable

# Variable
# --------
# A Variable wraps an array; ``.data`` is the raw array (a numpy.ndarray here) and
# after a backward pass the gradient w.r.t. the Variable is accumulated into ``.grad``.
# Each Variable has a ``.creator`` (the old name of ``.grad_fn``): the Function that
# created it, or None for Variables created by the user.

x = Variable(pyad.ones(2, 2), requires_grad=True)
print(x)

print(x.data)

# The tutorial's printout shows zeros here; pyad (like torch since 0.2) keeps
# ``x.grad`` as None until a gradient is first accumulated (SPEC section 11).
print(x.grad)

print(x.creator)  # we've created x ourselves

# Do an operation of x:
y = x + 2
print(y)

# y was created as a result of an operation, so it has a creator
print(y.creator)

# More operations on y:
z = y * y * 3
out = z.mean()

print(z, out)

# Gradients
# ---------
# let's backprop now and print gradients d(out)/dx
out.backward()
print(x.grad)

# By default, gradient computation flushes all the internal buffers contained in the
# graph, so if you even want to do the backward on some part of the graph twice, you
# need to pass in ``retain_variables = True`` during the first pass (its newer name is
# ``retain_graph``).
x = Variable(pyad.ones(2, 2), requires_grad=True)
y = x + 2
y.backward(pyad.ones(2, 2), retain_variables=True)
# the retain_variables flag will prevent the internal buffers from being freed
print(x.grad)

z = y * y
print(z)

# just backprop random gradients
pyad.manual_seed(0)  # makes the "random" gradient, and so this printout, reproducible
gradient = pyad.randn(2, 2)

# this would fail if we didn't specify
# that we want to retain variables
y.backward(gradient)

# x.grad is the sum of both backward passes: ones + gradient
print(x.grad)

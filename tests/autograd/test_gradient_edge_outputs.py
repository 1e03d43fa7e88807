"""A GradientEdge as the output to differentiate (torch 2.x): grad(edge, ...) and
backward(edge) start the pass at the edge's node. Values against torch on the same
graph where installed; a hand-built edge (no shape recorded) and a bad output number."""
import numpy as np
import pytest

import pyad
from pyad.autograd.graph import GradientEdge, get_gradient_edge
from _torch_compare import torch, as_np


def _split_pass(lib, get_edge, x0):
    # a multi-output node: the gradient into output 1 of split, then on to x
    x = lib.tensor(x0, requires_grad=True)
    a, b = lib.split(x.sin(), 2)
    out = (a.exp().sum() + (b * b).prod())
    edge = get_edge(b)
    (gb,) = lib.autograd.grad(out, (edge,), retain_graph=True)
    (gx,) = lib.autograd.grad(edge, (x,), grad_outputs=(gb,), retain_graph=True)
    (ref,) = lib.autograd.grad(out, (x,))
    return as_np(gb), as_np(gx), as_np(ref)


X0 = np.array([0.3, -1.2, 0.7, 2.0])


def test_grad_split_at_an_edge_of_a_multi_output_node_equals_the_one_pass():
    gb, gx, ref = _split_pass(pyad, get_gradient_edge, X0)
    # only b's half of x gets a gradient through the edge; a's half is zero
    np.testing.assert_allclose(gx[2:], ref[2:], rtol=1e-14)
    np.testing.assert_array_equal(gx[:2], [0.0, 0.0])
    if torch is not None:
        tgb, tgx, tref = _split_pass(torch, torch.autograd.graph.get_gradient_edge, X0)
        np.testing.assert_allclose(gb, tgb, rtol=1e-14)
        np.testing.assert_allclose(gx, tgx, rtol=1e-14)
        np.testing.assert_allclose(ref, tref, rtol=1e-14)


def test_backward_from_an_edge_accumulates_into_leaves():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    pyad.autograd.backward(get_gradient_edge(y))
    np.testing.assert_array_equal(as_np(x.grad), [2.0, 4.0])
    if torch is not None:
        tx = torch.tensor([1.0, 2.0], requires_grad=True)
        torch.autograd.backward(torch.autograd.graph.get_gradient_edge((tx * tx).sum()))
        np.testing.assert_array_equal(as_np(x.grad), tx.grad.numpy())


def test_a_hand_built_edge_needs_an_explicit_gradient():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    edge = GradientEdge(y.grad_fn, 0)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        pyad.autograd.grad(edge, (x,))
    (g,) = pyad.autograd.grad(edge, (x,), grad_outputs=pyad.tensor([1.0, -1.0]))
    np.testing.assert_array_equal(as_np(g), [3.0, -3.0])


def test_an_edge_output_number_out_of_range_is_refused():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    for nr in (1, -1, True):
        with pytest.raises((RuntimeError, TypeError), match="output_nr|GradientEdge"):
            pyad.autograd.grad(GradientEdge(y.grad_fn, nr), (x,),
                               grad_outputs=pyad.tensor([1.0, 1.0]))
    with pytest.raises(TypeError, match="GradientEdge's node must be a Node"):
        pyad.autograd.backward(GradientEdge("not a node", 0), pyad.tensor([1.0, 1.0]))

"""GradientEdge / get_gradient_edge (torch.autograd.graph): grad() and backward(inputs=)
take an edge in place of a Variable. Each value is checked against the chain rule by
hand and, where torch is installed, against torch on the same inputs."""

import numpy as np
import pytest

import pyad
from pyad.autograd.graph import GradientEdge, get_gradient_edge

try:
    import torch
except ImportError:                                     # pragma: no cover
    torch = None


def _x(values=(1.0, -2.0, 0.5)):
    return pyad.tensor(np.array(values), requires_grad=True)


def test_edge_of_non_leaf_is_its_grad_fn_and_output_nr():
    x = _x()
    y = x * 2
    edge = get_gradient_edge(y)
    assert isinstance(edge, GradientEdge) and isinstance(edge, tuple)
    assert edge.node is y.grad_fn and edge.output_nr == 0
    (g,) = pyad.autograd.grad((y * y).sum(), edge)
    np.testing.assert_allclose(g.data, 2 * y.data)          # d(y^2)/dy


def test_edge_of_multi_output_node_names_the_output():
    x = _x((3.0, 1.0, 2.0))
    values, indices = x.sort()
    assert get_gradient_edge(values).output_nr == values.output_nr == 0
    out = (values * pyad.tensor(np.array([1.0, 10.0, 100.0]))).sum()
    (g,) = pyad.autograd.grad(out, get_gradient_edge(values))
    np.testing.assert_allclose(g.data, [1.0, 10.0, 100.0])


def test_edge_of_leaf_is_its_accumulator():
    x = _x()
    edge = get_gradient_edge(x)
    assert type(edge.node).__name__ == "AccumulateGrad" and edge.output_nr == 0
    assert edge.node.variable is x
    (g,) = pyad.autograd.grad((x * x * 3).sum(), edge)
    np.testing.assert_allclose(g.data, 6 * x.data)
    assert x.grad is None                                    # grad() accumulates nothing


def test_gradient_at_an_edge_after_its_variable_is_gone():
    x = _x()
    y = x.exp()
    edge = get_gradient_edge(y)
    out = (y.sin()).sum()
    expected = np.cos(np.exp(x.data))
    del y
    (g,) = pyad.autograd.grad(out, edge)
    np.testing.assert_allclose(g.data, expected)


def test_edges_and_variables_mixed_with_create_graph():
    x = _x()
    y = x * x
    gy, gx = pyad.autograd.grad((y ** 2).sum(), [get_gradient_edge(y), x], create_graph=True)
    np.testing.assert_allclose(gy.data, 2 * y.data)
    np.testing.assert_allclose(gx.data, 4 * x.data ** 3)
    (ggx,) = pyad.autograd.grad(gx.sum(), x)                 # second order through it
    np.testing.assert_allclose(ggx.data, 12 * x.data ** 2)


def test_backward_inputs_edge():
    x = _x()
    (x * 3).sum().backward(inputs=[get_gradient_edge(x)])
    np.testing.assert_allclose(x.grad.data, [3.0, 3.0, 3.0])
    x2 = _x()
    w = _x((4.0, 5.0, 6.0))
    y = x2 * w
    # a non-leaf edge: its node runs, nothing is stored anywhere (torch)
    y.sum().backward(inputs=get_gradient_edge(y))
    assert x2.grad is None and w.grad is None and y.grad is None


def test_unused_edge_and_materialize_grads():
    x = _x()
    y = x * 2
    edge = get_gradient_edge(y)
    out = (x * 5).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        pyad.autograd.grad(out, edge, retain_graph=True)
    assert pyad.autograd.grad(out, edge, allow_unused=True, retain_graph=True) == (None,)
    with pytest.raises(RuntimeError, match="materialize_grads cannot be used"):
        pyad.autograd.grad(out, edge, materialize_grads=True)


def test_bad_edges_are_refused_clearly():
    x = _x()
    y = x * 2
    with pytest.raises(RuntimeError, match="does not require gradients"):
        get_gradient_edge(pyad.tensor([1.0]))
    with pytest.raises(TypeError, match="expected a Variable"):
        get_gradient_edge(np.ones(2))
    for nr in (1, -1, 2 ** 40):
        with pytest.raises(RuntimeError, match="out of range"):
            pyad.autograd.grad(y.sum(), GradientEdge(y.grad_fn, nr), retain_graph=True)
    with pytest.raises(RuntimeError, match="out of range"):
        pyad.autograd.grad(y.sum(), GradientEdge(y.grad_fn, True), retain_graph=True)
    with pytest.raises(TypeError, match="must be a Node"):
        pyad.autograd.grad(y.sum(), GradientEdge("MulBackward", 0), retain_graph=True)
    with pytest.raises(TypeError, match="Variables or GradientEdges"):
        pyad.autograd.grad(y.sum(), [(y.grad_fn, 0)], retain_graph=True)
    with pytest.raises(TypeError, match="Variables or GradientEdges"):
        y.sum().backward(inputs=[(y.grad_fn, 0)])


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_edges_match_torch():
    data = np.array([0.3, -1.2, 2.0])
    results = []
    for lib in (pyad, torch):
        x = lib.tensor(data, requires_grad=True)
        y = x.tanh()
        z = y * x
        edges = [lib.autograd.graph.get_gradient_edge(t) for t in (x, y, z)]
        out = (z ** 2).sum() + y.sum()
        grads = lib.autograd.grad(out, edges)
        results.append([np.asarray(g.detach().numpy() if lib is torch else g.data)
                        for g in grads])
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, rtol=1e-12)

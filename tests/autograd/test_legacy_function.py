"""Legacy (instance-style) Functions: ``forward(self, *arrays)`` / ``backward(self,
*grad_arrays)``, called once as ``MyFunction()(x)``; arrays in, arrays out, once differentiable."""
import numpy as np
import pytest

import pyad
from pyad.autograd import Function, Variable, gradcheck


class Linear(Function):
    # The old "Extending torch.autograd" example, with NumPy calls for tensor methods.
    def forward(self, input, weight, bias=None):
        self.save_for_backward(input, weight, bias)
        output = input.dot(weight.T)
        if bias is not None:
            output += bias
        return output

    def backward(self, grad_output):
        input, weight, bias = self.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad[0]:
            grad_input = grad_output.dot(weight)
        if self.needs_input_grad[1]:
            grad_weight = grad_output.T.dot(input)
        if bias is not None and self.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    def __init__(self, constant):
        super().__init__()
        self.constant = constant

    def forward(self, tensor):
        return tensor * self.constant

    def backward(self, grad_output):
        return grad_output * self.constant


def _leaves(seed=0):
    rng = np.random.default_rng(seed)
    return (Variable(rng.standard_normal((4, 3)), requires_grad=True),
            Variable(rng.standard_normal((2, 3)), requires_grad=True),
            Variable(rng.standard_normal(2), requires_grad=True))


def test_legacy_linear_matches_torch_and_gradcheck():
    torch = pytest.importorskip("torch")
    x, w, b = _leaves()
    y = Linear()(x, w, b)
    gy = np.random.default_rng(1).standard_normal((4, 2))
    y.backward(gy)
    tx, tw, tb = (torch.tensor(v.data, requires_grad=True) for v in (x, w, b))
    torch.nn.functional.linear(tx, tw, tb).backward(torch.tensor(gy))
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(ours.grad.data, theirs.grad.numpy(), rtol=1e-12)
    assert gradcheck(lambda a, c, d: Linear()(a, c, d), _leaves(2))
    assert gradcheck(lambda a: MulConstant(2.5)(a), (_leaves(3)[0],))


def test_forward_and_backward_work_on_arrays_and_the_instance_is_the_node():
    seen = {}

    class Probe(Function):
        def forward(self, a):
            seen["forward"] = type(a)
            self.save_for_backward(a)
            return a * 3

        def backward(self, g):
            seen["backward"] = type(g)
            (a,) = self.saved_tensors
            seen["saved"] = type(a)
            seen["saved_variables"] = type(self.saved_variables[0])
            return g * 3

    x = Variable(np.ones(2), requires_grad=True)
    f = Probe()
    y = f(x)
    assert y.grad_fn is f and y.creator is f
    y.sum().backward()
    assert seen == {"forward": np.ndarray, "backward": np.ndarray, "saved": np.ndarray,
                    "saved_variables": pyad.Variable}
    np.testing.assert_array_equal(x.grad.data, [3.0, 3.0])


def test_attributes_num_inputs_num_outputs_requires_grad_needs_input_grad():
    class Split(Function):
        def forward(self, a, b):
            return a + b, a - b

        def backward(self, g1, g2):
            return g1 + g2, g1 - g2

    a = Variable(np.ones(3), requires_grad=True)
    b = Variable(np.zeros(3))
    f = Split()
    s, d = f(a, b)
    assert (f.num_inputs, f.num_outputs, f.requires_grad) == (2, 2, True)
    assert f.needs_input_grad == (True, False)
    (s * 2 + d).sum().backward()
    np.testing.assert_array_equal(a.grad.data, [3.0, 3.0, 3.0])
    g = Split()
    g(b, b)
    assert g.requires_grad is False


def test_an_instance_used_twice_raises():
    f = MulConstant(2.0)
    x = Variable(np.ones(2), requires_grad=True)
    f(x)
    with pytest.raises(RuntimeError, match="MulConstant was called twice"):
        f(x)


def test_legacy_function_is_once_differentiable():
    x = Variable(np.array([1.0, 2.0]), requires_grad=True)
    y = MulConstant(3.0)(x * x)
    (g,) = pyad.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.data, [6.0, 12.0])
    with pytest.raises(RuntimeError, match="MulConstant is once-differentiable"):
        g.sum().backward()


def test_legacy_and_new_style_functions_mix_in_one_graph():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = Variable(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    y = MulConstant(2.0)(Square.apply(MulConstant(0.5)(x)))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, 2.0 * 2 * (0.5 * x.data) * 0.5)


def test_mark_dirty_and_mark_non_differentiable_take_arrays():
    class AddOneInPlace(Function):
        def forward(self, a):
            a += 1
            self.mark_dirty(a)
            return a

        def backward(self, g):
            return g

    class ArgmaxAndMax(Function):
        def forward(self, a):
            idx = np.array(a.argmax())
            self.mark_non_differentiable(idx)
            self.save_for_backward(a, idx)
            return a.max(), idx

        def backward(self, g, _):
            a, idx = self.saved_tensors
            out = np.zeros_like(a)
            out[idx] = g
            return out

    x = Variable(np.array([1.0, 5.0, 2.0]), requires_grad=True)
    h = x * 1
    v = h._version
    out = AddOneInPlace()(h)
    assert out is h and h._version > v
    m, i = ArgmaxAndMax()(out)
    assert not i.requires_grad and int(i.item()) == 1
    m.backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 0.0])


def test_wrong_number_or_shape_of_gradients_names_the_function():
    class TooMany(Function):
        def forward(self, a):
            return a * 2

        def backward(self, g):
            return g, g

    class WrongShape(Function):
        def forward(self, a):
            return a * 2

        def backward(self, g):
            return np.ones(5)

    x = Variable(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="TooMany.*incorrect number of gradients"):
        TooMany()(x).sum().backward()
    with pytest.raises(RuntimeError, match="WrongShape.*invalid gradient at index 0"):
        WrongShape()(x).sum().backward()


def test_saved_input_modified_in_place_is_detected():
    x = Variable(np.ones(3), requires_grad=True)
    h = x * 1
    y = Linear()(h.reshape(1, 3), Variable(np.ones((2, 3))))
    h.reshape(1, 3).mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_new_style_function_called_on_an_instance_points_to_apply():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            return a * a

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match=r"Square.apply"):
        Square()(Variable(np.ones(2)))


def test_forward_must_return_arrays():
    class ReturnsList(Function):
        def forward(self, a):
            return [1.0]

        def backward(self, g):
            return g

    with pytest.raises(TypeError, match="ReturnsList: forward must return arrays"):
        ReturnsList()(Variable(np.ones(1), requires_grad=True))

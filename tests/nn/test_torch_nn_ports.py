"""Ports of PyTorch's own nn tests (pytorch/pytorch ``test/test_nn.py`` class TestNN and the
CPU parts of TestNNDeviceType, ``test/nn/test_module_hooks.py``) to pyad.

The tests keep torch's names and the meaning of their assertions.  Where torch's test
asserts a value, the expected value here comes from torch 2.13 run on the same weights and
inputs (or from the hand math of torch's test), never from pyad itself.
"""
import math
import pickle

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.nn import Parameter

torch = pytest.importorskip("torch")
tnn = torch.nn

from _port_helpers import compare, twin  # noqa: E402


def _np(x):
    return x.detach().numpy() if hasattr(x, "numpy") and not isinstance(x, pyad.Variable) \
        else np.asarray(x.data if isinstance(x, pyad.Variable) else x)


def _close(p, t, atol=1e-10, rtol=1e-9):
    np.testing.assert_allclose(p.data if isinstance(p, pyad.Variable) else p,
                               t.detach().numpy(), atol=atol, rtol=rtol)


def _names(named):
    return [k for k, _ in named]


def _create_basic_net(lib):
    class Layer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_dummy_param = lib.nn.Parameter(lib.zeros(3, 5))
            self.layer_dummy_buf = lib.nn.Buffer(lib.zeros(1, 3, 3, 7))

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = lib.nn.Parameter(lib.zeros(3, 5))
            self.dummy_buf = lib.nn.Buffer(lib.zeros(7, 3, 3, 1))

    l = Layer()
    n = Net()
    s = lib.nn.Sequential(n, n)
    return l, n, s


# --------------------------------------------------------------------------- Module API

@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_parameters_and_named_parameters(lib):
    l, n, s = _create_basic_net(lib)
    assert len(list(l.parameters())) == 1
    assert _names(l.named_parameters()) == ["layer_dummy_param"]
    assert len(list(n.parameters())) == 2
    assert _names(n.named_parameters()) == ["dummy_param", "l1.layer_dummy_param"]
    assert len(list(n.parameters(recurse=False))) == 1
    assert _names(n.named_parameters(recurse=False)) == ["dummy_param"]
    assert len(list(s.parameters())) == 2
    assert _names(s.named_parameters()) == ["0.dummy_param", "0.l1.layer_dummy_param"]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_named_parameters_remove_duplicate(lib):
    class M1(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.param1 = lib.nn.Parameter(lib.zeros(3, 3))
            self.param2 = self.param1

    m1 = M1()
    assert _names(m1.named_parameters()) == ["param1"]
    assert _names(m1.named_parameters(remove_duplicate=False)) == ["param1", "param2"]

    class M2(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.mod1 = lib.nn.Linear(3, 4, bias=False)
            self.mod2 = self.mod1

    m2 = M2()
    assert _names(m2.named_parameters()) == ["mod1.weight"]
    assert _names(m2.named_parameters(remove_duplicate=False)) == ["mod1.weight", "mod2.weight"]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_buffers_and_named_buffers(lib):
    l, n, s = _create_basic_net(lib)
    assert len(list(l.buffers())) == 1
    assert _names(l.named_buffers()) == ["layer_dummy_buf"]
    assert len(list(n.buffers())) == 2
    assert _names(n.named_buffers()) == ["dummy_buf", "l1.layer_dummy_buf"]
    assert len(list(n.buffers(recurse=False))) == 1
    assert _names(n.named_buffers(recurse=False)) == ["dummy_buf"]
    assert len(list(s.buffers())) == 2
    assert _names(s.named_buffers()) == ["0.dummy_buf", "0.l1.layer_dummy_buf"]

    # test remove_duplicate
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.buffer1 = lib.nn.Buffer(lib.zeros(3, 5))
            self.buffer2 = self.buffer1

    m = M()
    assert _names(m.named_buffers()) == ["buffer1"]
    assert _names(m.named_buffers(remove_duplicate=False)) == ["buffer1", "buffer2"]


def test_call_supports_python_dict_output():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(10, 20)
            self.register_backward_hook(self.hook)
            self.check_backward_hook_flag = False

        def hook(self, module, grad_out, grad_in):
            self.check_backward_hook_flag = True

        def forward(self, inputs):
            return {"output": self.l1(inputs).sum()}

    net = Net()
    # torch's test uses the deprecated non-full hook, which fires on the dict's Variable.
    # pyad's register_backward_hook is the full hook (docs/training.md); torch 2.13's full
    # hook, given a dict output, warns and is not called -- as pyad's is.
    with pytest.warns(UserWarning, match="module output should be a Variable or a tuple"):
        model_output = net(pyad.randn(2, 10))
    model_output["output"].backward()
    assert not net.check_backward_hook_flag


def test_train_errors_for_invalid_mode():
    class SubclassNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(2, 2)

        def forward(self, inputs):
            return self.l1(inputs)

    subclass_net = SubclassNet()
    sequential_net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    error_modes = ["invalid_str", object()]
    modules_to_check = [subclass_net, sequential_net]
    for error_mode in error_modes:
        for module in modules_to_check:
            with pytest.raises(ValueError):
                module.train(error_mode)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_children(lib):
    l1 = lib.nn.Linear(2, 2)
    l2 = lib.nn.Linear(2, 2)
    l3 = lib.nn.Linear(2, 2)
    l4 = lib.nn.Linear(2, 2)
    subnet = lib.nn.Sequential(l3, l4)
    s = lib.nn.Sequential(l1, l2, l1, l2, subnet)
    assert list(s.children()) == [l1, l2, subnet]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_named_children(lib):
    l1 = lib.nn.Linear(2, 2)
    l2 = lib.nn.Linear(2, 2)
    l3 = lib.nn.Linear(2, 2)
    l4 = lib.nn.Linear(2, 2)
    subnet = lib.nn.Sequential(l3, l4)
    s = lib.nn.Sequential()
    with pytest.raises(KeyError):
        s.add_module("", l1)
    with pytest.raises(KeyError):
        s.add_module("name.with.dot", l1)
    s.add_module("layer1", l1)
    s.add_module("layer2", l2)
    s.add_module("layer3", l1)
    s.add_module("layer4", l2)
    s.add_module("subnet", subnet)
    assert list(s.named_children()) == [("layer1", l1), ("layer2", l2), ("subnet", subnet)]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_modules(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = l
            self.l2 = l
            self.param = lib.zeros(3, 5)

    l = lib.nn.Linear(10, 20)
    n = Net()
    s = lib.nn.Sequential(n, n, n, n)
    assert list(s.modules()) == [s, n, l]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_named_modules(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = l
            self.l2 = l
            self.param = lib.zeros(3, 5)
            self.block = block

    l = lib.nn.Linear(10, 20)
    l1 = lib.nn.Linear(10, 20)
    l2 = lib.nn.Linear(10, 20)
    block = lib.nn.Sequential()
    block.add_module("linear1", l1)
    block.add_module("linear2", l2)
    n = Net()
    s = lib.nn.Sequential(n, n)
    assert list(s.named_modules()) == [("", s), ("0", n), ("0.l1", l), ("0.block", block),
                                       ("0.block.linear1", l1), ("0.block.linear2", l2)]
    # test the option to not remove duplicate module instances
    assert list(s.named_modules(remove_duplicate=False)) == [
        ("", s), ("0", n), ("0.l1", l), ("0.l2", l),
        ("0.block", block), ("0.block.linear1", l1),
        ("0.block.linear2", l2),
        ("1", n), ("1.l1", l), ("1.l2", l),
        ("1.block", block), ("1.block.linear1", l1),
        ("1.block.linear2", l2)]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_buffer_raises_error_if_name_is_not_string(lib):
    m = lib.nn.Module()
    with pytest.raises(TypeError, match="buffer name should be a string. Got "):
        m.register_buffer(1, lib.rand(5))
    with pytest.raises(TypeError, match="buffer name should be a string. Got "):
        m.register_buffer(None, lib.rand(5))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_buffer_raises_error_if_attr_exists(lib):
    m = lib.nn.Module()
    m.attribute_name = 5
    with pytest.raises(KeyError):
        m.register_buffer("attribute_name", lib.rand(5))
    del m.attribute_name
    m.register_parameter("attribute_name", lib.nn.Parameter(lib.zeros(3)))
    with pytest.raises(KeyError):
        m.register_buffer("attribute_name", lib.rand(5))
    del m.attribute_name
    m.add_module("attribute_name", lib.nn.Module())
    with pytest.raises(KeyError):
        m.register_buffer("attribute_name", lib.rand(5))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_buffer_raises_error_if_not_tensor(lib):
    m = lib.nn.Module()
    with pytest.raises(TypeError):
        m.register_buffer("attribute_name", 5)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_buffer_allows_overwriting_with_same_name(lib):
    m = lib.nn.Module()
    buffer1 = lib.rand(5)
    buffer2 = buffer1 + 5
    buffer3 = None
    m.register_buffer("buffer_name", buffer1)
    assert m.buffer_name is buffer1
    m.register_buffer("buffer_name", buffer2)
    assert m.buffer_name is buffer2
    m.register_buffer("buffer_name", buffer3)
    assert m.buffer_name is None


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_get_buffer(lib):
    m = lib.nn.Module()
    buffer1 = lib.randn(2, 3)
    buffer2 = lib.randn(4, 5)
    m.register_buffer("foo", buffer1)
    m.register_buffer("bar", buffer2)
    assert buffer1 is m.get_buffer("foo")
    assert buffer2 is m.get_buffer("bar")


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_get_buffer_from_submodules(lib):
    class MyModule(lib.nn.Module):
        def __init__(self, foo, bar):
            super().__init__()
            self.sub = Sub(foo, bar)

    class Sub(lib.nn.Module):
        def __init__(self, foo, bar):
            super().__init__()
            self.register_buffer("foo", foo)
            self.subsub = SubSub(bar)

    class SubSub(lib.nn.Module):
        def __init__(self, bar):
            super().__init__()
            self.register_buffer("bar", bar)

    foo = lib.randn(2, 3)
    bar = lib.randn(4, 5)
    m = MyModule(foo, bar)
    assert foo is m.get_buffer("sub.foo")
    assert bar is m.get_buffer("sub.subsub.bar")


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_buffer_not_persistent(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    assert len(list(m.buffers())) == 1
    assert len(m.state_dict()) == 0


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_buffer_not_persistent_del(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    del m.buf
    assert len(list(m.buffers())) == 0


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_buffer_not_persistent_overwrite(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    m.buf = lib.nn.Buffer(lib.rand(5))
    # can we overwrite a non-persistent buffer with a persistent one?
    assert len(list(m.buffers())) == 1
    assert len(m.state_dict()) == 1
    # can we overwrite a persistent buffer with a non-persistent one?
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    assert len(list(m.buffers())) == 1
    assert len(m.state_dict()) == 0


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_buffer_not_persistent_assign(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    assert len(list(m.buffers())) == 1
    assert len(m.state_dict()) == 0
    # Assigning None removes the buffer but if we then assign a new Tensor
    # to the same property, it should still be marked as a buffer.
    m.buf = None
    assert len(list(m.buffers())) == 0
    assert len(m.state_dict()) == 0
    m.buf = lib.rand(5)
    assert len(list(m.buffers())) == 1
    assert len(m.state_dict()) == 0
    # Assigning a Parameter removes the buffer.
    m.buf = lib.nn.Parameter(lib.rand(5))
    assert len(list(m.buffers())) == 0
    assert len(m.state_dict()) == 1


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_buffer_not_persistent_load(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    m.load_state_dict({})


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_parameter_raises_error_if_name_is_not_string(lib):
    m = lib.nn.Module()
    with pytest.raises(TypeError, match="parameter name should be a string. Got "):
        m.register_parameter(1, lib.nn.Parameter(lib.zeros(1)))
    with pytest.raises(TypeError, match="parameter name should be a string. Got "):
        m.register_parameter(None, lib.nn.Parameter(lib.zeros(1)))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_parameter_raises_error_if_attr_exists(lib):
    m = lib.nn.Module()
    m.attribute_name = 5
    with pytest.raises(KeyError):
        m.register_parameter("attribute_name", lib.nn.Parameter(lib.zeros(1)))
    del m.attribute_name
    m.register_buffer("attribute_name", lib.rand(5))
    with pytest.raises(KeyError):
        m.register_parameter("attribute_name", lib.nn.Parameter(lib.zeros(1)))
    del m.attribute_name
    m.attribute_name = lib.nn.Buffer(lib.rand(5))
    with pytest.raises(KeyError):
        m.register_parameter("attribute_name", lib.nn.Parameter(lib.zeros(1)))
    del m.attribute_name
    m.add_module("attribute_name", lib.nn.Module())
    with pytest.raises(KeyError):
        m.register_parameter("attribute_name", lib.nn.Parameter(lib.zeros(1)))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_parameter_allows_overwriting_with_same_name(lib):
    m = lib.nn.Module()
    param1 = lib.nn.Parameter(lib.rand(5))
    param2 = lib.nn.Parameter(param1.data + 5)
    param3 = None
    m.register_parameter("param_name", param1)
    assert m.param_name is param1
    m.register_parameter("param_name", param2)
    assert m.param_name is param2
    m.register_parameter("param_name", param3)
    assert m.param_name is None


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_add_module_raises_error_if_attr_exists(lib):
    methods_to_test = ["add_module", "register_module"]
    for fn in methods_to_test:
        m = lib.nn.Module()
        m.attribute_name = 5
        with pytest.raises(KeyError):
            getattr(m, fn)("attribute_name", lib.nn.Module())
        del m.attribute_name
        m.register_buffer("attribute_name", lib.rand(5))
        with pytest.raises(KeyError):
            getattr(m, fn)("attribute_name", lib.nn.Module())
        del m.attribute_name
        m.register_parameter("attribute_name", lib.nn.Parameter(lib.zeros(1)))
        with pytest.raises(KeyError):
            getattr(m, fn)("attribute_name", lib.nn.Module())


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_getattr_with_property(lib):
    class Model(lib.nn.Module):
        @property
        def some_property(self):
            return self.something_that_doesnt_exist

    model = Model()
    # torch 2.13 reports the property's own name (Python retries __getattr__ with it
    # when the property raises AttributeError)
    with pytest.raises(AttributeError,
                       match=r"'Model' object has no attribute 'some_property'"):
        model.some_property


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_add_module(lib):
    methods_to_test = ["add_module", "register_module"]
    for fn in methods_to_test:
        l = lib.nn.Linear(10, 20)
        net = lib.nn.Module()
        net.l = l
        net.l2 = l
        getattr(net, fn)("empty", None)
        assert net.l is l
        assert net.l2 is l
        assert net.empty is None
        getattr(net, fn)("l3", l)
        assert net.l3 is l
        l3 = lib.nn.Linear(20, 10)
        getattr(net, fn)("l", l3)
        assert net.l is l3
        with pytest.raises(TypeError):
            getattr(net, fn)("x", "non-module")
        with pytest.raises(TypeError, match="module name should be a string. Got int"):
            getattr(net, fn)(1, l)
        with pytest.raises(TypeError, match="module name should be a string. Got NoneType"):
            getattr(net, fn)(None, l)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_set_submodule(lib):
    net = lib.nn.Module()
    net.t = lib.nn.Module()
    l = lib.nn.Linear(1, 2)
    target = "t.l"
    net.t.l = l
    assert net.get_submodule(target) is l
    l2 = lib.nn.Linear(2, 1)
    net.set_submodule(target, l2)
    assert net.get_submodule(target) is l2
    with pytest.raises(ValueError):
        net.set_submodule("", l)
    with pytest.raises(AttributeError):
        net.set_submodule("a.l", l)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_module_to_argparse(lib):
    net = lib.nn.Sequential(lib.nn.Linear(3, 3))
    cpu = "cpu"
    with pytest.raises(TypeError):
        net.to(cpu, True)
    with pytest.raises(TypeError):
        net.to(lib.long)
    with pytest.raises(TypeError):
        net.to(None, True)
    with pytest.raises(TypeError):
        net.to(cpu, lib.long, True)
    with pytest.raises(TypeError):
        net.to(cpu, dtype=lib.long, non_blocking=True)
    with pytest.raises(TypeError):
        net.to([])
    with pytest.raises(TypeError):
        net.to({}, non_blocking=True)
    with pytest.raises(TypeError):
        net.to(lib.tensor(3, dtype=lib.long), non_blocking=True)
    with pytest.raises(TypeError):
        net.to(cpu, lib.tensor(3, dtype=lib.long), non_blocking=True)


def test_RNN_nonlinearity():
    rnn = nn.RNN(1, 10)
    assert rnn.nonlinearity == "tanh"
    rnn = nn.RNN(1, 10, nonlinearity="relu")
    assert rnn.nonlinearity == "relu"
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(1, 10, nonlinearity="garbage")


def test_RNN_nonlinearity_passed_as_arg():
    rnn = nn.RNN(2, 3, 1, "relu")
    assert rnn.input_size == 2
    assert rnn.hidden_size == 3
    assert rnn.num_layers == 1
    assert rnn.nonlinearity == "relu"


def test_module_apply_inplace_op():
    def add_one_inplace(t):
        return t.add_(1.0)

    # Test that applying an in-place operation to a module would bump the module's
    # parameters' version counter.
    m = nn.Linear(20, 10)
    pvm = m.weight.mul(m.weight)
    m_weight_version_saved = m.weight._version
    m = m._apply(add_one_inplace)
    assert m.weight._version > m_weight_version_saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        pvm.backward(pyad.randn(10, 20))

    # Test that applying an in-place operation to a module would bump the module's
    # parameters' gradients' version counter.
    m = nn.Linear(20, 10)
    m.weight.grad = pyad.randn(10, 20).requires_grad_()
    pgm = m.weight.grad.mul(m.weight.grad)
    m_weight_grad_version_saved = m.weight.grad._version
    m = m._apply(add_one_inplace)
    assert m.weight.grad._version > m_weight_grad_version_saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        pgm.backward(pyad.randn(10, 20))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_type(lib):
    l = lib.nn.Linear(10, 20)
    net = lib.nn.Module()
    net.l = l
    net.l2 = l
    net.add_module("empty", None)
    net.indices = lib.nn.Buffer(lib.LongTensor(1))
    net.float()
    assert l.weight.dtype == lib.float32 and l.bias.dtype == lib.float32
    assert net.indices.dtype == lib.int64
    net.double()
    assert l.weight.dtype == lib.float64 and l.bias.dtype == lib.float64
    assert net.indices.dtype == lib.int64
    net.to(lib.half)
    assert l.weight.dtype == lib.float16 and l.bias.dtype == lib.float16
    assert net.indices.dtype == lib.int64
    net.type(lib.float32)
    assert l.weight.dtype == lib.float32
    assert net.indices.dtype == lib.float32


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_non_leaf_parameters(lib):
    l1 = lib.nn.Linear(10, 10)
    l2 = lib.nn.Linear(10, 10)

    def assign_weight():
        l2.weight = l1.weight + 2

    with pytest.raises(TypeError):
        assign_weight()
    # This should work though
    l2.weight = lib.nn.Parameter(lib.randn(10, 10))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_parameter_assignment(lib):
    l = lib.nn.Linear(5, 5)

    def num_params():
        return len(list(l.parameters()))

    assert num_params() == 2

    new_param = lib.nn.Parameter(lib.randn(5, 5))
    l.param_name = new_param
    assert num_params() == 3
    assert any(p is new_param for p in l.parameters())

    var = lib.randn(5, 5)
    l.var_name = var
    assert num_params() == 3
    assert not any(p is var for p in l.parameters())

    # Make sure Variables are not saved as parameters
    l.variable_attr = lib.zeros(5, 5)
    assert num_params() == 3
    l.param_attr = lib.nn.Parameter(lib.zeros(5, 5))
    assert num_params() == 4

    # It shouldn't be possible to replace a parameter with a Variable
    def assign_var():
        l.param_attr = lib.zeros(5, 5)

    with pytest.raises(TypeError):
        assign_var()
    # But replacing it with None should be fine
    l.param_attr = None
    assert num_params() == 3


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_assignment(lib):
    l = lib.nn.Module()
    a = lib.nn.Parameter(lib.randn(2))
    b = lib.nn.Parameter(lib.randn(3))
    c = lib.nn.Parameter(lib.randn(4))
    q = lib.nn.Linear(4, 4)
    r = lib.nn.Linear(5, 5)
    w = lib.nn.Linear(6, 6)

    def test_assignments(get_list, a, b, c):
        # Check that None can be shadowed
        l.a = None
        assert l.a is None
        assert "a" in l.__dict__
        l.a = a
        assert l.a is a
        assert get_list() == [a]
        assert "a" not in l.__dict__

        # Assign second object
        l.b = None
        assert l.b is None
        assert "b" in l.__dict__
        l.b = b
        assert l.b is b
        assert get_list() == [a, b]
        assert "b" not in l.__dict__

        # Remove and add the object back. Order should be unchanged.
        l.a = None
        assert l.a is None
        assert get_list() == [b]
        l.a = a
        assert l.a is a
        assert get_list() == [a, b]

        # Replace object with another one. Order should be unchanged.
        l.a = c
        assert l.a is c
        assert get_list() == [c, b]

        # Remove and reassign an attribute. It should appear at the end of the list now.
        del l.a
        assert not hasattr(l, "a")
        l.a = a
        assert l.a is a
        assert get_list() == [b, a]

    # Variables compare elementwise, so the lists are compared by identity
    class IdList(list):
        def __eq__(self, other):
            return len(self) == len(other) and all(x is y for x, y in zip(self, other))

    test_assignments(lambda: IdList(l.parameters()), a, b, c)
    del l.a, l.b
    assert list(l.parameters()) == []

    test_assignments(lambda: IdList(l.children()), q, r, w)
    del l.a, l.b
    assert list(l.children()) == []

    buf = lib.nn.Buffer(lib.randn(10))
    l.buf = buf
    assert l.buf is buf
    l.buf = None
    assert l.buf is None
    assert "buf" not in l.__dict__  # should be stored in l._buffers
    l.buf = buf
    assert "buf" in l.state_dict()
    assert l.state_dict(keep_vars=True)["buf"] is buf


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_container_copy(lib):
    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(4, 5)

        def forward(self, input):
            return self.linear(input)

    input = lib.randn(2, 4)
    model = Model()
    model_cp = __import__("copy").deepcopy(model)
    assert np.allclose(np.asarray(model(input).data if lib is pyad else
                                  model(input).detach().numpy()),
                       np.asarray(model_cp(input).data if lib is pyad else
                                  model_cp(input).detach().numpy()))
    model_cp.linear.weight.data[:] = 2
    assert not np.allclose(np.asarray(model.linear.weight.data),
                           np.asarray(model_cp.linear.weight.data))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_dir(lib):
    linear = lib.nn.Linear(2, 2)
    linear._test_submodule = lib.nn.Linear(2, 2)
    linear._test_parameter = lib.nn.Parameter(lib.empty(2, 2))
    linear._test_buffer = lib.nn.Buffer(lib.empty(2, 2))
    keys = dir(linear)
    assert "_test_submodule" in keys
    assert "_test_parameter" in keys
    assert "_test_buffer" in keys
    for key in keys:
        assert hasattr(linear, key)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_dir_digit(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 2))
    keys = dir(model)
    assert "0" not in keys


def test_repr():
    # no extra information or sub-modules
    pairs = [(nn.Sequential(), tnn.Sequential()),
             (nn.Linear(1, 1), tnn.Linear(1, 1)),
             (nn.Sequential(nn.Linear(1, 1)), tnn.Sequential(tnn.Linear(1, 1))),
             (nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU(), nn.Linear(2, 3))),
              tnn.Sequential(tnn.Linear(1, 1), tnn.Sequential(tnn.ReLU(), tnn.Linear(2, 3))))]
    for p, t in pairs:
        assert repr(p) == repr(t)
    assert repr(nn.Sequential()) == "Sequential()"
    assert repr(nn.Linear(1, 1)) == "Linear(in_features=1, out_features=1, bias=True)"
    assert repr(nn.Sequential(nn.Linear(1, 1))) == \
        "Sequential(\n  (0): Linear(in_features=1, out_features=1, bias=True)\n)"


def test_extra_repr_multiline():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def extra_repr(self):
            return "first line\nsecond line"

    PM = M

    class M(tnn.Module):  # noqa: F811  (same class name, same repr)
        def __init__(self):
            super().__init__()
            self.lin = tnn.Linear(2, 2)

        def extra_repr(self):
            return "first line\nsecond line"

    TM = M
    assert repr(PM()) == repr(TM())
    assert repr(nn.Sequential(PM())) == repr(tnn.Sequential(TM()))


# --------------------------------------------------------------------------- containers

@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_Sequential_getitem(lib):
    l1 = lib.nn.Linear(10, 20)
    l2 = lib.nn.Linear(20, 30)
    l3 = lib.nn.Linear(30, 40)
    l4 = lib.nn.Linear(40, 50)
    n = lib.nn.Sequential(l1, l2, l3, l4)
    assert n[0] is l1
    assert n[1] is l2
    assert n[2] is l3
    assert n[3] is l4
    assert n[-1] is l4
    assert n[-2] is l3
    assert list(n[1:]) == [l2, l3, l4]
    assert list(n[3:]) == [l4]
    assert list(n[:-1]) == [l1, l2, l3]
    assert list(n[:-3]) == [l1]
    assert list(n[::-1]) == [l4, l3, l2, l1]
    with pytest.raises(IndexError):
        n[4]
    with pytest.raises(IndexError):
        n[-5]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_Sequential_setitem(lib):
    l1 = lib.nn.Linear(10, 20)
    l2 = lib.nn.Linear(20, 30)
    l3 = lib.nn.Linear(30, 40)
    l4 = lib.nn.Linear(40, 50)
    n = lib.nn.Sequential(l1, l2, l3)
    n[0] = l4
    n[-1] = l4
    assert n[0] is l4
    assert n[1] is l2
    assert n[2] is l4


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_Sequential_setitem_named(lib):
    from collections import OrderedDict
    l1 = lib.nn.Linear(10, 20)
    l2 = lib.nn.Linear(20, 30)
    l3 = lib.nn.Linear(30, 40)
    l4 = lib.nn.Linear(40, 50)
    n = lib.nn.Sequential(OrderedDict([("linear1", l1), ("linear2", l2), ("linear3", l3)]))
    n[0] = l4
    n[-1] = l4
    assert n.linear1 is l4
    assert n.linear3 is l4


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_Sequential_delitem(lib):
    l1 = lib.nn.Linear(10, 20)
    l2 = lib.nn.Linear(20, 30)
    l3 = lib.nn.Linear(30, 40)
    l4 = lib.nn.Linear(40, 50)
    n = lib.nn.Sequential(l1, l2, l3, l4)
    del n[-1]
    assert list(n) == [l1, l2, l3]
    del n[1::2]
    assert list(n) == [l1, l3]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_Sequential_add_iadd_mul(lib):
    l1 = lib.nn.Linear(1, 2)
    l2 = lib.nn.Linear(2, 3)
    l3 = lib.nn.Linear(3, 4)
    l4 = lib.nn.Linear(4, 5)
    n = lib.nn.Sequential(l1, l2)
    other = lib.nn.Sequential(l3, l4)
    assert list(n + other) == [l1, l2, l3, l4]
    n2 = lib.nn.Sequential(l1, l2)
    n2 += other
    assert list(n2) == [l1, l2, l3, l4]
    n3 = lib.nn.Sequential(l1, l2, l3)
    assert list(n3 * 2) == [l1, l2, l3, l1, l2, l3]
    assert list(2 * n3) == [l1, l2, l3, l1, l2, l3]
    n3 *= 2
    assert list(n3) == [l1, l2, l3, l1, l2, l3]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_Sequential_append_insert_extend_pop(lib):
    l1 = lib.nn.Linear(10, 20)
    l2 = lib.nn.Linear(20, 30)
    l3 = lib.nn.Linear(30, 40)
    l4 = lib.nn.Linear(40, 50)
    n = lib.nn.Sequential(l1, l2, l3)
    n2 = lib.nn.Sequential(l1, l2, l3, l4)
    assert n.append(l4) is n
    assert list(n) == list(n2)
    n = lib.nn.Sequential(l1, l2, l3)
    module_1 = lib.nn.Linear(4, 6)
    n.insert(1, module_1)
    assert list(n) == [l1, module_1, l2, l3]
    n.insert(-1, l4)
    assert list(n) == [l1, module_1, l2, l4, l3]
    with pytest.raises(IndexError):
        n.insert(-10, l4)
    with pytest.raises(AssertionError):
        n.insert(0, 1)
    n = lib.nn.Sequential(l1, l2)
    assert n.extend([l3, l4]) is n
    assert list(n) == [l1, l2, l3, l4]
    n = lib.nn.Sequential(l1, l2, l3, l4)
    popped = n.pop(1)
    assert popped is l2
    assert list(n) == [l1, l3, l4]


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_ModuleList(lib):
    modules = [lib.nn.ReLU(), lib.nn.Linear(5, 5)]
    module_list = lib.nn.ModuleList(modules)

    def check():
        assert len(module_list) == len(modules)
        for m1, m2 in zip(modules, module_list):
            assert m1 is m2
        for m1, m2 in zip(modules, module_list.children()):
            assert m1 is m2
        for i in range(len(modules)):
            assert module_list[i] is modules[i]

    check()
    modules += [lib.nn.Conv2d(3, 4, 3)]
    module_list += [modules[-1]]
    check()
    modules = modules + [lib.nn.Conv2d(3, 4, 3, bias=False), lib.nn.GELU()]
    module_list = module_list + lib.nn.ModuleList(modules[-2:])
    check()
    modules.insert(1, lib.nn.Linear(3, 2))
    module_list.insert(1, modules[1])
    check()
    modules.append(lib.nn.Tanh())
    module_list.append(modules[-1])
    check()
    next_modules = [lib.nn.Linear(5, 5), lib.nn.Sigmoid()]
    modules.extend(next_modules)
    module_list.extend(next_modules)
    check()
    modules[2] = lib.nn.Conv2d(5, 3, 2)
    module_list[2] = modules[2]
    check()
    modules[-1] = lib.nn.Conv2d(5, 2, 1)
    module_list[-1] = modules[-1]
    check()
    idx = 4
    modules.insert(idx, lib.nn.Linear(2, 2))
    module_list.insert(idx, modules[idx])
    check()
    assert list(module_list[1:4]) == modules[1:4]
    assert list(module_list[::-1]) == modules[::-1]
    del modules[3]
    del module_list[3]
    check()
    del modules[::2]
    del module_list[::2]
    check()
    assert module_list.pop(1) is modules.pop(1)
    check()
    with pytest.raises(TypeError):
        module_list += lib.nn.ReLU()
    with pytest.raises(TypeError):
        module_list.extend(lib.nn.ReLU())

    l1 = lib.nn.Linear(1, 2)
    l2 = lib.nn.Linear(2, 3)
    l3 = lib.nn.Linear(3, 2)
    l4 = lib.nn.Linear(2, 3)
    subnet = lib.nn.Sequential(l3, l4)
    s = lib.nn.Sequential(
        OrderedDictF([("layer1", l1), ("layer2", l2), ("layer3", l3),
                      ("layer4", l4), ("subnet_layer", subnet)]))
    modules = list(s.modules())
    module_list = lib.nn.ModuleList()
    module_list.extend(s.modules())
    check()


def OrderedDictF(items):
    from collections import OrderedDict
    return OrderedDict(items)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_ModuleDict(lib):
    modules = OrderedDictF([
        ("act", lib.nn.ReLU()),
        ("conv", lib.nn.Conv2d(10, 10, 5)),
        ("fc", lib.nn.Linear(5, 5)),
    ])
    module_dict = lib.nn.ModuleDict(modules)

    def check():
        assert len(module_dict) == len(modules)
        for k1, m2 in zip(modules, module_dict.children()):
            assert modules[k1] is m2
        for k1, k2 in zip(modules, module_dict):
            assert modules[k1] is module_dict[k2]
        for k in module_dict:
            assert module_dict[k] is modules[k]
        for k in module_dict.keys():
            assert module_dict[k] is modules[k]
        for k, v in module_dict.items():
            assert modules[k] is v
        for k1, m2 in zip(modules, module_dict.values()):
            assert modules[k1] is m2
        for k in modules.keys():
            assert k in module_dict

    check()
    modules["conv"] = lib.nn.Conv2d(3, 4, 3)
    module_dict["conv"] = modules["conv"]
    check()
    next_modules = [("fc2", lib.nn.Linear(5, 5)), ("act", lib.nn.Sigmoid())]
    modules.update(next_modules)
    module_dict.update(next_modules)
    check()
    next_modules = OrderedDictF([("fc3", lib.nn.Linear(5, 5)), ("act2", lib.nn.Sigmoid())])
    modules.update(next_modules)
    module_dict.update(next_modules)
    check()
    next_modules = {"fc4": lib.nn.Linear(5, 5), "act3": lib.nn.Sigmoid()}
    modules.update(next_modules.items())
    module_dict.update(next_modules)
    check()
    next_modules = lib.nn.ModuleDict([("fc5", lib.nn.Linear(5, 5)),
                                      ("act4", lib.nn.Sigmoid())])
    modules.update(next_modules)
    module_dict.update(next_modules)
    check()
    del module_dict["fc"]
    del modules["fc"]
    check()
    with pytest.raises(TypeError):
        module_dict.update(lib.nn.ReLU())
    with pytest.raises(TypeError):
        module_dict.update([lib.nn.ReLU()])
    with pytest.raises(ValueError):
        module_dict.update([[lib.nn.ReLU()]])
    with pytest.raises(TypeError):
        module_dict[1] = lib.nn.ReLU()

    s = lib.nn.Sequential(modules)
    module_dict = lib.nn.ModuleDict(s.named_children())
    check()

    c = module_dict.pop("conv")
    assert c is modules["conv"]
    modules.pop("conv")
    check()
    module_dict.clear()
    assert len(module_dict) == 0
    modules.clear()
    check()


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_ParameterList(lib):
    def make_param():
        return lib.nn.Parameter(lib.randn(2, 2))

    parameters = [make_param(), make_param()]
    param_list = lib.nn.ParameterList(parameters)

    def check():
        assert len(parameters) == len(param_list)
        for p1, p2 in zip(parameters, param_list):
            assert p1 is p2
        for p1, p2 in zip(filter(lambda x: isinstance(x, lib.nn.Parameter), parameters),
                          param_list.parameters()):
            assert p1 is p2
        for i in range(len(parameters)):
            assert parameters[i] is param_list[i]

    check()
    parameters += [make_param()]
    param_list += [parameters[-1]]
    check()
    parameters.append(make_param())
    param_list.append(parameters[-1])
    check()
    next_params = [make_param(), make_param()]
    parameters.extend(next_params)
    param_list.extend(next_params)
    check()
    parameters[2] = make_param()
    param_list[2] = parameters[2]
    check()
    parameters[-1] = make_param()
    param_list[-1] = parameters[-1]
    check()
    idx = 1
    parameters[idx] = make_param()
    param_list[idx] = parameters[idx]
    check()
    assert list(param_list[1:4]) == parameters[1:4] or all(
        a is b for a, b in zip(param_list[1:4], parameters[1:4]))
    assert all(a is b for a, b in zip(param_list[::-1], parameters[::-1]))

    with pytest.raises(TypeError):
        param_list += make_param()
    with pytest.raises(TypeError):
        param_list.extend(make_param())

    # non-parameter values are stored as they are (torch >= 1.12)
    param_list.append(3.0)
    assert param_list[-1] == 3.0
    # a plain Variable is wrapped into a Parameter
    t = lib.randn(2)
    param_list.append(t)
    assert isinstance(param_list[-1], lib.nn.Parameter)
    assert len(list(param_list.parameters())) == len(parameters) + 1


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_ParameterDict(lib):
    def make_param():
        return lib.nn.Parameter(lib.randn(2, 2))

    parameters = OrderedDictF([("p1", make_param()), ("p2", make_param()),
                               ("p3", make_param())])
    parameter_dict = lib.nn.ParameterDict(parameters)

    def check():
        assert len(parameter_dict) == len(parameters)
        for i, (k1, (k2, m2)) in enumerate(zip(parameters, parameter_dict.named_parameters())):
            assert k1 == k2
            assert parameters[k1] is m2
        for k1, k2 in zip(parameters, parameter_dict):
            assert parameters[k1] is parameter_dict[k2]
        for k in parameter_dict:
            assert parameter_dict[k] is parameters[k]
        for k in parameter_dict.keys():
            assert parameter_dict[k] is parameters[k]
        for k, v in parameter_dict.items():
            assert v is parameters[k]
        for k1, m2 in zip(parameters, parameter_dict.values()):
            assert parameters[k1] is m2
        for k in parameters.keys():
            assert k in parameter_dict

    check()
    parameters["p4"] = make_param()
    parameter_dict["p4"] = parameters["p4"]
    check()
    next_parameters = [("p5", make_param()), ("p2", make_param())]
    parameters.update(next_parameters)
    parameter_dict.update(next_parameters)
    check()
    next_parameters = OrderedDictF([("p6", make_param()), ("p5", make_param())])
    parameters.update(next_parameters)
    parameter_dict.update(next_parameters)
    check()
    del parameter_dict["p3"]
    del parameters["p3"]
    check()
    with pytest.raises(TypeError):
        parameter_dict.update(1)
    with pytest.raises(TypeError):
        parameter_dict.update([1])
    with pytest.raises(ValueError):
        parameter_dict.update([[make_param()]])

    with pytest.raises(TypeError):
        lib.nn.ParameterDict()[1] = make_param()
    # popitem / | / |= (torch's test_ParameterDict goes on with these)
    pd2 = lib.nn.ParameterDict(OrderedDictF([("x", make_param()), ("y", make_param())]))
    last = pd2["y"]
    k, v = pd2.popitem()
    assert k == "y" and v is last and list(pd2) == ["x"]
    other = lib.nn.ParameterDict(OrderedDictF([("z", make_param())]))
    both = pd2 | other
    assert list(both) == ["x", "z"] and both["z"] is other["z"]
    pd2 |= other
    assert list(pd2) == ["x", "z"]

    p_pop = parameter_dict.pop("p4")
    assert p_pop is parameters["p4"]
    parameters.pop("p4")
    check()

    # Check reverse works
    forward = list(iter(parameter_dict))
    backward = list(reversed(parameter_dict))
    assert len(forward) == len(backward)
    n = len(forward)
    for i in range(n):
        assert forward[i] is backward[n - i - 1]
    check()

    # Check copy works
    copy = parameter_dict.copy()
    for key in parameter_dict:
        assert key in copy
        assert parameter_dict[key] is copy[key]
    check()

    parameters["p20"] = make_param()
    parameter_dict["p20"] = parameters["p20"]
    copy = parameter_dict.copy()
    # p20 in the copy is the same object as in the original
    assert copy["p20"] is parameter_dict["p20"]

    # Check setdefault works
    p = make_param()
    assert parameter_dict.setdefault("p22", p) is p
    parameters["p22"] = p
    check()

    # Check fromkeys works
    p = make_param()
    d = parameter_dict.fromkeys(["a", "b"], p)   # an instance method in torch
    assert d["a"] is p and d["b"] is p

    # Check get works
    assert parameter_dict.get("p22") is parameters["p22"]
    assert parameter_dict.get("p23", None) is None

    parameter_dict.clear()
    assert len(parameter_dict) == 0
    parameters.clear()
    check()


# --------------------------------------------------------------------------- state_dict

def _state_dict_net(lib):
    net = lib.nn.Sequential(OrderedDictF([
        ("linear1", lib.nn.Linear(5, 5)),
        ("linear2", lib.nn.Linear(5, 5)),
    ]))
    net.add_module("empty", None)
    net.add_module("block", lib.nn.Sequential(lib.nn.Conv2d(3, 3, 3, bias=False),
                                             lib.nn.Conv2d(3, 3, 3, bias=False)))
    net.add_module("bn", lib.nn.BatchNorm2d(2))
    return net


def test_state_dict():
    pn, tn = _state_dict_net(pyad), _state_dict_net(torch)
    sd, tsd = pn.state_dict(), tn.state_dict()
    assert list(sd) == list(tsd)
    assert len(sd) == 11
    assert len(sd._metadata) == len(tsd._metadata) == 7
    assert "" in sd._metadata
    assert "linear1" in sd._metadata
    assert "linear1.weight" in sd
    assert "linear1.bias" in sd
    assert "block" in sd._metadata
    assert "block.0.weight" in sd
    assert "block.1.weight" in sd
    assert "bn.running_mean" in sd
    assert "bn.running_var" in sd
    assert "bn.num_batches_tracked" in sd
    assert not any(k.startswith("empty") for k in sd.keys())
    for k, v in sd.items():
        param = pn
        for component in k.split("."):
            param = getattr(param, component)
            if isinstance(param, Parameter):
                param = param.data
        assert np.shares_memory(np.asarray(v.data), np.asarray(param.data)), k

    l = nn.Linear(5, 5)
    state_dict = l.state_dict()
    assert len(state_dict) == 2
    assert state_dict._metadata[""]["version"] == \
        tnn.Linear(5, 5).state_dict()._metadata[""]["version"]
    assert state_dict["weight"].data.ctypes.data == l.weight.data.ctypes.data
    assert state_dict["bias"].data.ctypes.data == l.bias.data.ctypes.data

    # Reference https://github.com/pytorch/pytorch/pull/75507#issuecomment-1110291545
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        l.state_dict(None, "prefix")


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_load_state_dict(lib):
    l = lib.nn.Linear(5, 5)
    block = lib.nn.Module()
    block.conv1 = lib.nn.Conv2d(3, 3, 3, bias=True)
    block.conv2 = lib.nn.Conv2d(3, 3, 3, bias=False)
    net = lib.nn.Module()
    net.linear1 = l
    net.linear2 = l
    net.bn = lib.nn.BatchNorm2d(2)
    net.block = block
    net.add_module("empty", None)
    conv1_bias_dtype = block.conv1.bias.dtype

    state_dict = net.state_dict()
    state_dict.update({
        "linear1.weight": lib.ones(5, 5),
        "block.conv1.bias": lib.arange(1, 4, dtype=conv1_bias_dtype),
        "bn.running_mean": lib.randn(2),
    })
    # Also test if a DDP state_dict can be loaded from a local model.
    incompatible_keys = net.load_state_dict(state_dict)
    assert len(incompatible_keys.missing_keys) == 0
    assert len(incompatible_keys.unexpected_keys) == 0
    assert "Incompatible" not in str(incompatible_keys)
    assert np.array_equal(np.asarray(net.linear1.weight.data), np.ones((5, 5)))
    assert np.array_equal(np.asarray(net.block.conv1.bias.data), np.arange(1, 4))
    assert np.array_equal(np.asarray(net.bn.running_mean.data if lib is pyad
                                     else net.bn.running_mean.numpy()),
                          np.asarray(state_dict["bn.running_mean"].data if lib is pyad
                                     else state_dict["bn.running_mean"].numpy()))

    state_dict = net.state_dict()
    state_dict.update({"extra": lib.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 0
    assert len(incompatible_keys.unexpected_keys) == 1
    assert "extra" in incompatible_keys.unexpected_keys
    assert "Incompatible" in str(incompatible_keys)

    state_dict = net.state_dict()
    state_dict.update({"extra.param": lib.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 0
    assert len(incompatible_keys.unexpected_keys) == 1
    assert "extra.param" in incompatible_keys.unexpected_keys

    state_dict = net.state_dict()
    del state_dict["linear1.weight"]
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 1
    assert len(incompatible_keys.unexpected_keys) == 0
    assert "linear1.weight" in incompatible_keys.missing_keys
    state_dict.update({"extra.param": lib.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 1
    assert len(incompatible_keys.unexpected_keys) == 1
    assert "linear1.weight" in incompatible_keys.missing_keys
    assert "extra.param" in incompatible_keys.unexpected_keys

    state_dict = net.state_dict()
    state_dict.update({"bn.running_mean": lib.rand(14, 4)})  # wrong size
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict, strict=False)

    state_dict = net.state_dict()
    old_state_dict = __import__("copy").deepcopy(state_dict)
    state_dict = {
        "linear1.weight": lib.ones(5, 5),
        "block.conv1.bias": lib.arange(1, 4, dtype=conv1_bias_dtype),
        "bn.running_mean": lib.randn(2),
        "nonexistent_key": lib.rand(3),
    }
    net.load_state_dict(state_dict, strict=False)
    assert np.array_equal(np.asarray(net.linear1.weight.data), np.ones((5, 5)))
    assert np.array_equal(np.asarray(net.block.conv1.bias.data), np.arange(1, 4))
    assert np.array_equal(np.asarray(net.block.conv2.weight.data),
                          np.asarray(old_state_dict["block.conv2.weight"].data
                                     if lib is pyad else
                                     old_state_dict["block.conv2.weight"].numpy()))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_load_state_dict_BC(lib):
    # BatchNormNd: added num_batches_tracked buffer at version 2. For state dict with
    # earlier versions or no versions, it should provide default value of 0.
    bn = lib.nn.BatchNorm2d(3)
    state_dict = bn.state_dict()
    del state_dict["num_batches_tracked"]
    state_dict._metadata[""]["version"] = 1  # version 1
    bn.load_state_dict(state_dict)
    assert bn.num_batches_tracked.dtype == lib.long
    assert int(bn.num_batches_tracked.item()) == 0
    del state_dict._metadata[""]["version"]  # no version
    bn.load_state_dict(state_dict)
    assert bn.num_batches_tracked.dtype == lib.long
    assert int(bn.num_batches_tracked.item()) == 0


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_load_state_dict_child(lib):
    base_module = lib.nn.Linear(1, 1)
    model = base_module
    for _ in range(3):
        model = lib.nn.Sequential(*[__import__("copy").deepcopy(model) for _ in range(10)])

    def hook_fn(module, state_dict, prefix, local_metadata, strict, missing_keys,
                unexpected_keys, error_msgs):
        module_state_dict = module.state_dict()
        assert len(module_state_dict.keys()) == len(state_dict.keys())

    model[0][0]._register_load_state_dict_pre_hook(hook_fn, with_module=True)
    model.load_state_dict(model.state_dict(), strict=True)


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_load_state_dict_custom(lib):
    class CustomState(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.param = lib.nn.Parameter(lib.ones(1))
            self.sub = lib.nn.Linear(5, 5)

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            destination[prefix + "serialized"] = self.param.data + 1

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                  missing_keys, unexpected_keys, error_msgs):
            # skip some of the error handling (torch's test copies into .data; pyad's
            # .data is the ndarray, so copy into the parameter under no_grad)
            with lib.no_grad():
                self.param.copy_(state_dict[prefix + "serialized"] - 1)

    # use sequential to verify nesting
    m = lib.nn.Sequential(CustomState())
    with lib.no_grad():
        m[0].param[0] = 10
        m[0].sub.weight[0, 0] = 555
    state_dict = m.state_dict()
    assert float(state_dict["0.serialized"].item()) == 11
    assert "0.sub.weight" in state_dict
    assert "0.param" not in state_dict
    del m
    mm = lib.nn.Sequential(CustomState())
    assert float(mm[0].param[0].item()) == 1
    mm.load_state_dict(state_dict)
    assert float(mm[0].param[0].item()) == 10
    assert float(mm[0].sub.weight[0, 0].item()) == 555


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_extra_state(lib):
    class SubModule(lib.nn.Module):
        def __init__(self, foo):
            super().__init__()
            self.foo = foo

        def get_extra_state(self):
            return {"foo": self.foo}

        def set_extra_state(self, state):
            self.foo = state["foo"]

    class MyModule(lib.nn.Module):
        def __init__(self, foo, bar):
            super().__init__()
            self.sub = SubModule(foo)
            self.bar = bar

        def get_extra_state(self):
            return {"bar": self.bar}

        def set_extra_state(self, state):
            self.bar = state["bar"]

    # Ensure state_dict contains the extra state by loading it into another module.
    m = MyModule(3, "something")
    m2 = MyModule(5, "something else")
    m2.load_state_dict(m.state_dict())
    assert m.state_dict() == m2.state_dict()
    assert m2.bar == m.bar
    assert m2.sub.foo == m.sub.foo


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_extra_state_missing_set_extra_state(lib):
    class MyModule(lib.nn.Module):
        def get_extra_state(self):
            return {"foo": 5}

    m = MyModule()
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict(m.state_dict())


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_extra_state_missing_get_extra_state(lib):
    class MyModule(lib.nn.Module):
        def set_extra_state(self):
            pass

    m = MyModule()
    with pytest.raises(RuntimeError, match="Missing key"):
        m.load_state_dict(m.state_dict())


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_parameter_list_dict_replication(lib):
    # torch's test_ParameterList_replication checks a DataParallel replica; the CPU part
    # is that a ParameterList / ParameterDict registers its entries under index / key
    # names in the parent's state_dict.
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.pl = lib.nn.ParameterList([lib.nn.Parameter(lib.zeros(2)) for _ in range(2)])
            self.pd = lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.zeros(1)),
                                            "a": lib.nn.Parameter(lib.zeros(3))})

    tm = M() if lib is torch else None
    expected = ["pl.0", "pl.1", "pd.a", "pd.b"]  # torch 2.13 sorts a plain dict's keys
    assert list((tm or M()).state_dict()) == expected


# --------------------------------------------------------------------------- hooks

def test_hooks():
    module = nn.Sigmoid()
    input = pyad.ones(5, 5, requires_grad=True)
    counter = {"forwards": 0, "backwards": 0}

    def fw_hook(inc, h_module, input, output):
        assert isinstance(input, tuple)
        assert isinstance(output, pyad.Variable)
        assert h_module is module
        np.testing.assert_allclose(input[0].data, np.ones((5, 5)))
        np.testing.assert_allclose(output.data, np.full((5, 5), 1 / (1 + 1 / math.e)),
                                   rtol=1e-6)
        counter["forwards"] += inc

    def bw_hook(inc, h_module, grad_input, grad_output):
        assert isinstance(grad_input, tuple)
        assert isinstance(grad_output, tuple)
        assert h_module is module
        np.testing.assert_allclose(grad_output[0].data, np.ones((5, 5)) * 2)
        counter["backwards"] += inc

    test_fwd = module.register_forward_hook(lambda *args: fw_hook(1, *args))
    module(input)
    module(input)
    assert counter == {"forwards": 2, "backwards": 0}

    test_bwd = module.register_full_backward_hook(lambda *args: bw_hook(1, *args))
    output = module(input)
    assert counter == {"forwards": 3, "backwards": 0}
    output.backward(pyad.ones(5, 5) * 2, retain_graph=True)
    assert counter == {"forwards": 3, "backwards": 1}
    output.backward(pyad.ones(5, 5) * 2, retain_graph=True)
    assert counter == {"forwards": 3, "backwards": 2}

    test2_fwd = module.register_forward_hook(lambda *args: fw_hook(2, *args))
    output = module(input)
    assert counter == {"forwards": 6, "backwards": 2}

    test2_bwd = module.register_full_backward_hook(lambda *args: bw_hook(2, *args))
    module(input).backward(pyad.ones(5, 5) * 2)
    assert counter == {"forwards": 9, "backwards": 5}

    test2_bwd.remove()
    module(input).backward(pyad.ones(5, 5) * 2)
    assert counter == {"forwards": 12, "backwards": 6}

    test2_fwd.remove()
    module(input).backward(pyad.ones(5, 5) * 2)
    assert counter == {"forwards": 13, "backwards": 7}

    test_fwd.remove()
    test_bwd.remove()


def test_hook_cpp():
    # torch's test checks a BatchNorm1d with a backward hook sees grad_input for input,
    # weight and bias; pyad's full backward hook gives the input's gradient only, as
    # torch's register_full_backward_hook does.
    bn = nn.BatchNorm1d(5)
    tbn = tnn.BatchNorm1d(5)
    seen = {}

    def hook(module, grad_inputs, grad_outputs):
        seen["n_in"] = len(grad_inputs)
        seen["n_out"] = len(grad_outputs)

    tseen = {}

    def thook(module, grad_inputs, grad_outputs):
        tseen["n_in"] = len(grad_inputs)
        tseen["n_out"] = len(grad_outputs)

    bn.register_full_backward_hook(hook)
    tbn.register_full_backward_hook(thook)
    bn(pyad.randn(5, 5, requires_grad=True)).sum().backward()
    tbn(torch.randn(5, 5, requires_grad=True)).sum().backward()
    assert seen == tseen


def test_hook_invalid_outputs():
    module = nn.Sigmoid()
    input = pyad.randn(5, 5, requires_grad=True)

    def bw_fail1(self, grad_input, grad_output):
        return grad_input[:-1]

    def bw_fail2(self, grad_input, grad_output):
        return grad_input + (pyad.randn(2, 2),)

    h = module.register_full_backward_hook(bw_fail1)
    with pytest.raises(RuntimeError, match="got 0, but expected 1"):
        module(input).sum().backward()
    h.remove()
    h = module.register_full_backward_hook(bw_fail2)
    with pytest.raises(RuntimeError, match="got 2, but expected 1"):
        module(input).sum().backward()
    h.remove()


def test_hook_requires_grad():
    test_self = []

    class MyModule(nn.Module):
        def forward(self, arg1, arg2, arg3):
            test_self.append((arg1.requires_grad, arg2.requires_grad, arg3.requires_grad))
            return arg1.sum() + arg2.sum() + arg3.sum()

    inp = pyad.rand(2, requires_grad=True)
    mod = MyModule()
    mod(inp, inp.detach(), inp)
    # Ensure that requires grad is properly propagated
    mod.register_full_backward_hook(lambda mod, gI, gO: None)
    mod(inp, inp.detach(), inp)
    assert test_self == [(True, False, True), (True, False, True)]


def test_hook_no_requires_grad():
    mod = nn.Linear(2, 3)
    inp = pyad.rand(1, 2)
    return_val = "None"
    hook_called = [0]

    def hook(mod, grad_input, grad_output):
        hook_called[0] += 1
        for gI in grad_input:
            assert gI is None
        for gO in grad_output:
            np.testing.assert_allclose(gO.data, np.ones((1, 3)))
        if return_val == "grad_input":
            return grad_input
        elif return_val == "invalid":
            # If the inputs were requiring gradients, this would be
            # a valid return
            return inp
        elif return_val == "None":
            return None
        else:
            raise RuntimeError("Invalid return_val string")

    mod.register_full_backward_hook(hook)
    # This should run and trigger the hook properly
    mod(inp).sum().backward()
    assert hook_called[0] == 1

    return_val = "grad_input"
    mod(inp).sum().backward()
    assert hook_called[0] == 2

    return_val = "invalid"
    with pytest.raises(RuntimeError, match="where no input requires gradient"):
        mod(inp).sum().backward()


def test_hook_last_arg_requires_grad():
    mod = nn.L1Loss()
    inp = pyad.rand(1, requires_grad=True)
    mod.register_full_backward_hook(lambda m, gI, gO: None)
    try:
        mod(inp.detach(), inp)
    except Exception as ex:
        pytest.fail(f"Unexpected exception: {ex}")


def test_hook_extra_input():
    class MyModule(nn.Module):
        def forward(self, non_tensor, tensor):
            return tensor.clone(), non_tensor

    inp = pyad.rand(2, requires_grad=True)
    mod = MyModule()

    def hook(mod, grad_input, grad_output):
        assert grad_input[0] is None
        assert isinstance(grad_input[1], pyad.Variable)
        assert isinstance(grad_output[0], pyad.Variable)
        assert grad_output[1] is None

    mod.register_full_backward_hook(hook)
    out, _ = mod(True, inp)
    out.sum().backward()


def test_hook_inplace():
    class MyModule(nn.Module):
        def forward(self, inp, do_inplace):
            self.inp = inp
            if do_inplace:
                inp += 1
            return inp.clone()

    hook_called = [0]

    def hook(mod, grad_input, grad_output):
        hook_called[0] += 1

    def hook_pre(mod, grad_output):
        hook_called[0] += 1

    inp = pyad.rand(10, requires_grad=True)
    mod = MyModule()
    for hook_fn, register_fn in [(hook, mod.register_full_backward_hook),
                                 (hook_pre, mod.register_full_backward_pre_hook)]:
        hook_called[0] = 0
        with register_fn(hook_fn):
            # No inplace should work
            mod(inp, False).sum().backward()
            assert hook_called[0] == 1

            # Input inplace error should throw an error
            with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction is "
                                                   "a view and is being modified inplace."):
                mod(inp.clone(), True)

            # Input inplace error should throw an error if we try to re-use the view after
            # they have been modified
            local_inp = inp.clone()
            out = mod(local_inp, False)
            local_inp[0] *= 1
            with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction is "
                                                   "a view and its base or another view"):
                # Any operation involving the view will fail here
                mod.inp + 2

            # Output inplace error should throw an error
            out = mod(inp, False)
            with pytest.raises(RuntimeError, match="BackwardHookFunction is a view "
                                                   "and is being modified inplace."):
                out += 1


def test_hook_backward_size():
    # Make module with multiple operations in forward
    # And different size for input and outputs
    class MyModule(nn.Module):
        def forward(self, arg1, arg2):
            tmp = arg1.sum() * arg2
            tmp = tmp + arg2.sum() * arg1.sum()
            tmp = tmp.sum().view(1)
            tmp = tmp.expand(8).contiguous()
            return tmp

    module = MyModule()
    inp1 = pyad.randn(5, 5, requires_grad=True)
    inp2 = pyad.randn(10, 10, requires_grad=True)

    def bw_hook(module, grad_input, grad_output):
        assert len(grad_input) == 2
        assert tuple(grad_input[0].shape) == (5, 5)
        assert tuple(grad_input[1].shape) == (10, 10)
        assert len(grad_output) == 1
        assert tuple(grad_output[0].shape) == (8,)

    with module.register_full_backward_hook(bw_hook):
        module(inp1, inp2).sum().backward()


def test_hook_backward_writeable():
    module = nn.Sigmoid()
    tmodule = tnn.Sigmoid()
    x = np.random.default_rng(0).standard_normal((5, 5))
    input = pyad.tensor(x, requires_grad=True)
    tinput = torch.tensor(x, requires_grad=True)
    sig_x = 1.0 / (1.0 + np.exp(-x))

    def bw_hook(module, grad_input, grad_output):
        for grad in grad_input:
            assert isinstance(grad, (pyad.Variable, torch.Tensor))
        for grad in grad_output:
            assert isinstance(grad, (pyad.Variable, torch.Tensor))
        return tuple(gi * 2 for gi in grad_input)

    module.register_full_backward_hook(bw_hook)
    tmodule.register_full_backward_hook(bw_hook)
    module(input).backward(pyad.ones(5, 5))
    tmodule(tinput).backward(torch.ones(5, 5, dtype=torch.float64))
    expected_grad = sig_x * (1 - sig_x) * 2
    np.testing.assert_allclose(input.grad.data, expected_grad, rtol=1e-12)
    _close(input.grad, tinput.grad, rtol=1e-12)


def test_hook_forward_preforward_writable():
    module = nn.Sigmoid()
    x = np.random.default_rng(1).standard_normal((5, 5))
    input = pyad.tensor(x, requires_grad=True)
    tinput = torch.tensor(x, requires_grad=True)
    tmodule = tnn.Sigmoid()

    def forward_pre_hook(m, input):
        return F.relu(input[0]) if isinstance(input[0], pyad.Variable) \
            else torch.nn.functional.relu(input[0])

    def forward_hook(m, input, output):
        return -output

    for m in (module, tmodule):
        m.register_forward_pre_hook(forward_pre_hook)
        m.register_forward_hook(forward_hook)
    output = module(input)
    toutput = tmodule(tinput)
    expected_res = -1 / (1 + np.exp(-np.maximum(x, 0)))
    np.testing.assert_allclose(output.data, expected_res, rtol=1e-12)
    _close(output, toutput, rtol=1e-12)
    output.backward(pyad.ones(5, 5) * 2, retain_graph=True)
    toutput.backward(torch.ones(5, 5, dtype=torch.float64) * 2, retain_graph=True)
    mask = x > 0
    s = 1 / (1 + np.exp(-np.maximum(x, 0)))
    expected_grad = -s * (1 - s) * 2 * mask
    np.testing.assert_allclose(input.grad.data, expected_grad, rtol=1e-12)
    _close(input.grad, tinput.grad, rtol=1e-12)


def test_hook_buffer_assignment():
    def buffer_assignment_hook(module, *args):
        module.foo = module.foo + 1
        return None

    for make in (lambda: nn.BatchNorm1d(3), lambda: tnn.BatchNorm1d(3)):
        m = make()
        lib = pyad if isinstance(m, nn.Module) else torch
        m.foo = lib.nn.Buffer(lib.zeros(1))
        m.register_forward_pre_hook(buffer_assignment_hook)
        m.register_forward_hook(buffer_assignment_hook)
        m(lib.rand(2, 3))
        assert float(m.foo.item()) == 2.0
        assert "foo" in dict(m.named_buffers())


def test_hook_parameter_assignment():
    def param_assignment_hook(module, *args):
        module.weight = nn.Parameter(module.weight + 1)
        return None

    m = nn.Linear(3, 2)
    orig = m.weight.data.copy()
    m.register_forward_pre_hook(param_assignment_hook)
    m.register_forward_hook(param_assignment_hook)
    m(pyad.rand(1, 3))
    np.testing.assert_allclose(m.weight.data, orig + 2, rtol=1e-6)
    assert isinstance(m.weight, Parameter)


# test/nn/test_module_hooks.py ----------------------------------------------------------

def test_forward_hooks_with_kwargs():
    # TestModuleHooks.test_kwargs: hooks with with_kwargs=True see and rewrite kwargs.
    class KwargModel(nn.Module):
        def forward(self, x, bias=None):
            if bias is not None:
                x = x + bias
            return x

    def pre_hook(module, args, kwargs):
        kwargs["bias"] = kwargs["bias"] * 2
        return args, kwargs

    def fwd_hook(module, args, kwargs, out):
        assert "bias" in kwargs
        return out + kwargs["bias"]

    m = KwargModel()
    m.register_forward_pre_hook(pre_hook, with_kwargs=True)
    m.register_forward_hook(fwd_hook, with_kwargs=True)
    x = pyad.randn(4, 3, dtype=pyad.float64)
    bias = pyad.randn(4, 3, dtype=pyad.float64)
    out = m(x, bias=bias)
    np.testing.assert_allclose(out.data, x.data + 4 * bias.data, rtol=1e-12)


def test_forward_hooks_prepend():
    # TestModuleHooks.test_forward_hooks with prepend=True
    fired = []
    m = nn.Identity()
    m.register_forward_hook(lambda *a: fired.append(1))
    m.register_forward_hook(lambda *a: fired.append(2), prepend=True)
    m.register_forward_pre_hook(lambda *a: fired.append(3))
    m.register_forward_pre_hook(lambda *a: fired.append(4), prepend=True)
    tfired = []
    tm = tnn.Identity()
    tm.register_forward_hook(lambda *a: tfired.append(1))
    tm.register_forward_hook(lambda *a: tfired.append(2), prepend=True)
    tm.register_forward_pre_hook(lambda *a: tfired.append(3))
    tm.register_forward_pre_hook(lambda *a: tfired.append(4), prepend=True)
    m(pyad.ones(1))
    tm(torch.ones(1))
    assert fired == tfired == [4, 3, 2, 1]


def test_always_called_forward_hooks():
    # TestModuleHooks.test_always_called_forward_hooks
    x = pyad.ones(10, 10)
    calls = []

    class FailsInForwardModel(nn.Module):
        def forward(self, x, fail=True):
            if fail:
                raise RuntimeError("failing in forward")
            return x

    def hook(mod, args, out):
        calls.append("always")

    model = FailsInForwardModel()
    model.register_forward_hook(hook, always_call=True)
    model.register_forward_hook(lambda *a: calls.append("normal"))
    with pytest.raises(RuntimeError, match="failing in forward"):
        model(x)
    assert calls == ["always"]
    model(x, fail=False)
    assert calls == ["always", "always", "normal"]


def test_full_backward_pre_hooks():
    # TestModuleHooks.test_full_backward_pre_hooks: the pre hook sees grad_output and can
    # replace it.
    m = nn.Linear(3, 2)
    tm = tnn.Linear(3, 2).double()
    m.double()
    m.load_state_dict({k: pyad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((4, 3))
    xp = pyad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)

    def pre_hook(mod, grad_output):
        return (grad_output[0] * 3,)

    m.register_full_backward_pre_hook(pre_hook)
    tm.register_full_backward_pre_hook(pre_hook)
    m(xp).sum().backward()
    tm(xt).sum().backward()
    _close(xp.grad, xt.grad)
    _close(m.weight.grad, tm.weight.grad)


# --------------------------------------------------------------------------- nn.utils

def test_parameters_to_vector():
    conv1 = nn.Conv2d(3, 10, 5)
    fc1 = nn.Linear(10, 20)
    model = nn.Sequential(conv1, fc1)
    vec = nn.utils.parameters_to_vector(model.parameters())
    assert tuple(vec.shape) == (980,)


def test_vector_to_parameters():
    conv1 = nn.Conv2d(3, 10, 5)
    fc1 = nn.Linear(10, 20)
    model = nn.Sequential(conv1, fc1)
    vec = pyad.arange(0.0, 980)
    nn.utils.vector_to_parameters(vec, model.parameters())
    sample = next(model.parameters())[0, 0, 0]
    np.testing.assert_array_equal(sample.data, np.arange(5.0))


def test_clip_grad_value():
    l = nn.Linear(10, 10)
    clip_value = 2.5
    grad_w, grad_b = pyad.arange(-50.0, 50).view(10, 10).div(5), pyad.ones(10).mul(2)
    for grad_list in [[grad_w, grad_b], [grad_w, None]]:
        for p, g in zip(l.parameters(), grad_list):
            p.grad = g.clone().view_as(p.data) if g is not None else g
        nn.utils.clip_grad_value_(l.parameters(), clip_value)
        for p in filter(lambda p: p.grad is not None, l.parameters()):
            assert p.grad.data.max() <= clip_value
            assert p.grad.data.min() >= -clip_value

    # Should accept a single Tensor as input
    p1, p2 = pyad.randn(10, 10), pyad.randn(10, 10)
    g = pyad.arange(-50.0, 50).view(10, 10).div(5)
    p1.grad = g.clone()
    p2.grad = g.clone()
    nn.utils.clip_grad_value_(p1, clip_value)
    nn.utils.clip_grad_value_([p2], clip_value)
    np.testing.assert_array_equal(p1.grad.data, p2.grad.data)


@pytest.mark.parametrize("norm_type", [0.5, 1.5, 2, 4, "inf"])
def test_clip_grad_norm(norm_type):
    norm_type = float(norm_type)
    l = nn.Linear(10, 10)
    max_norm = 2

    def compute_norm(norm_type):
        if norm_type == math.inf:
            return max(float(np.abs(p.grad.data).max()) for p in l.parameters())
        total = sum(float((np.abs(p.grad.data) ** norm_type).sum()) for p in l.parameters())
        return total ** (1.0 / norm_type)

    def compare_scaling(grads):
        p_scale = [p.grad.data / g.data for p, g in zip(l.parameters(), grads)]
        scale = np.concatenate([s.ravel() for s in p_scale])
        assert np.ptp(scale) == pytest.approx(0, abs=1e-6)
        return scale[0]

    grads = (pyad.arange(1.0, 101).view(10, 10), pyad.ones(10).div(1000))
    for p, g in zip(l.parameters(), grads):
        p.grad = g.clone().view_as(p.data)
    norm_before = compute_norm(norm_type)
    norm = nn.utils.clip_grad_norm_(l.parameters(), max_norm, norm_type=norm_type)
    norm_after = compute_norm(norm_type)
    assert float(norm.item()) == pytest.approx(norm_before, rel=1e-5)
    assert norm_after == pytest.approx(max_norm, rel=1e-5)
    assert norm_after <= norm_before
    compare_scaling(grads)

    # Small gradients should be left unchanged
    grads = pyad.rand(10, 10).div(10000), pyad.ones(10).div(500)
    for p, g in zip(l.parameters(), grads):
        p.grad.data[...] = g.data
    norm_before = compute_norm(norm_type)
    norm = nn.utils.clip_grad_norm_(l.parameters(), max_norm, norm_type=norm_type)
    norm_after = compute_norm(norm_type)
    assert float(norm.item()) == pytest.approx(norm_before, rel=1e-5)
    assert norm_before == pytest.approx(norm_after, rel=1e-12)
    assert norm_after <= max_norm
    scale = compare_scaling(grads)
    assert scale == 1

    # Should accept a single Tensor as input
    p1, p2 = pyad.randn(10, 10), pyad.randn(10, 10)
    g = pyad.arange(1.0, 101).view(10, 10)
    p1.grad = g.clone()
    p2.grad = g.clone()
    nn.utils.clip_grad_norm_(p1, max_norm, norm_type=norm_type)
    nn.utils.clip_grad_norm_([p2], max_norm, norm_type=norm_type)
    np.testing.assert_array_equal(p1.grad.data, p2.grad.data)


def test_pad_sequence():
    from pyad.nn.utils.rnn import pad_sequence
    from torch.nn.utils.rnn import pad_sequence as tpad

    rng = np.random.default_rng(3)
    for padding_side in ("right", "left"):
        for batch_first in (False, True):
            seqs = [rng.standard_normal((n, 2, 3)) for n in (4, 2, 5, 1)]
            p = pad_sequence([pyad.tensor(s) for s in seqs], batch_first=batch_first,
                             padding_value=-1.5, padding_side=padding_side)
            t = tpad([torch.tensor(s) for s in seqs], batch_first=batch_first,
                     padding_value=-1.5, padding_side=padding_side)
            _close(p, t)
    # single dimensional
    a = pyad.tensor([1.0, 2.0, 3.0])
    b = pyad.tensor([4.0, 5.0])
    c = pyad.tensor([6.0])
    expected = np.array([[1, 2, 3], [4, 5, 0], [6, 0, 0]], dtype=float)
    np.testing.assert_array_equal(pad_sequence([a, b, c], True).data, expected)
    np.testing.assert_array_equal(pad_sequence([a, b, c]).data, expected.T)


def test_pack_sequence_and_unpack():
    from pyad.nn.utils import rnn as prnn
    from torch.nn.utils import rnn as trnn

    rng = np.random.default_rng(4)
    seqs = [rng.standard_normal((n, 3)) for n in (5, 3, 3, 1)]
    for enforce_sorted in (True, False):
        order = seqs if enforce_sorted else [seqs[1], seqs[0], seqs[3], seqs[2]]
        pp = prnn.pack_sequence([pyad.tensor(s) for s in order], enforce_sorted=enforce_sorted)
        tp = trnn.pack_sequence([torch.tensor(s) for s in order],
                                enforce_sorted=enforce_sorted)
        _close(pp.data, tp.data)
        np.testing.assert_array_equal(np.asarray(pp.batch_sizes.data
                                                 if isinstance(pp.batch_sizes, pyad.Variable)
                                                 else pp.batch_sizes),
                                      tp.batch_sizes.numpy())
        for batch_first in (False, True):
            pu, pl = prnn.pad_packed_sequence(pp, batch_first=batch_first, total_length=7)
            tu, tl = trnn.pad_packed_sequence(tp, batch_first=batch_first, total_length=7)
            _close(pu, tu)
            np.testing.assert_array_equal(np.asarray(pl.data if isinstance(pl, pyad.Variable)
                                                     else pl), tl.numpy())
        for a, b in zip(prnn.unpack_sequence(pp), trnn.unpack_sequence(tp)):
            _close(a, b)

    with pytest.raises(RuntimeError):
        prnn.pack_sequence([pyad.tensor(s) for s in (seqs[1], seqs[0])], enforce_sorted=True)
    with pytest.raises(ValueError):
        prnn.pad_packed_sequence(prnn.pack_sequence([pyad.tensor(s) for s in seqs]),
                                 total_length=2)


def test_pack_padded_sequence_gradient():
    from pyad.nn.utils import rnn as prnn
    from torch.nn.utils import rnn as trnn
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 4, 2))
    lengths = [6, 4, 3, 1]
    xp = pyad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    pp = prnn.pack_padded_sequence(xp, lengths)
    tp = trnn.pack_padded_sequence(xt, lengths)
    w = rng.standard_normal(tuple(tp.data.shape))
    (pp.data * pyad.tensor(w)).sum().backward()
    (tp.data * torch.tensor(w)).sum().backward()
    _close(xp.grad, xt.grad)


# --------------------------------------------------------------------------- layers

def test_bilinear():
    tm = tnn.Bilinear(10, 10, 8)
    pm = nn.Bilinear(10, 10, 8)
    tm, pm = twin(tm, pm)
    rng = np.random.default_rng(6)
    compare(tm, pm, [rng.standard_normal((4, 10)), rng.standard_normal((4, 10))])


def test_bilinear_no_bias():
    tm = tnn.Bilinear(10, 10, 8, bias=False)
    pm = nn.Bilinear(10, 10, 8, bias=False)
    tm, pm = twin(tm, pm)
    rng = np.random.default_rng(7)
    compare(tm, pm, [rng.standard_normal((4, 10)), rng.standard_normal((4, 10))])
    assert pm.bias is None
    assert repr(pm) == repr(tm)


def test_bilinear_value_error():
    with pytest.raises(ValueError, match="in1_features must be > 0"):
        nn.Bilinear(0, 0, 0)
    with pytest.raises(ValueError, match="in1_features must be > 0"):
        tnn.Bilinear(0, 0, 0)


def test_Conv2d_groups_nobias():
    rng = np.random.default_rng(8)
    m = nn.Conv2d(4, 4, kernel_size=3, groups=2, bias=False).double()
    i = pyad.tensor(rng.standard_normal((2, 4, 6, 6)), requires_grad=True)
    output = m(i)
    grad_output = pyad.tensor(rng.standard_normal((2, 4, 4, 4)))
    output.backward(grad_output)

    m1 = nn.Conv2d(2, 2, kernel_size=3, bias=False).double()
    m1.weight.data[...] = m.weight.data[:2]
    i1 = pyad.tensor(i.data[:, :2].copy(), requires_grad=True)
    output1 = m1(i1)
    output1.backward(pyad.tensor(grad_output.data[:, :2].copy()))

    m2 = nn.Conv2d(2, 2, kernel_size=3, bias=False).double()
    m2.weight.data[...] = m.weight.data[2:]
    i2 = pyad.tensor(i.data[:, 2:].copy(), requires_grad=True)
    output2 = m2(i2)
    output2.backward(pyad.tensor(grad_output.data[:, 2:].copy()))

    np.testing.assert_allclose(output.data, np.concatenate([output1.data, output2.data], 1),
                               rtol=1e-12)
    np.testing.assert_allclose(i.grad.data, np.concatenate([i1.grad.data, i2.grad.data], 1),
                               rtol=1e-12)
    np.testing.assert_allclose(m.weight.grad.data,
                               np.concatenate([m1.weight.grad.data, m2.weight.grad.data], 0),
                               rtol=1e-12)


def test_Conv1d_module_same_padding():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 1, 20))
    for kw in [dict(kernel_size=10, dilation=2, padding="same"),
               dict(kernel_size=10, dilation=1, padding="same"),
               dict(kernel_size=9, dilation=3, padding="same"),
               dict(kernel_size=3, padding="same", padding_mode="reflect"),
               dict(kernel_size=3, padding="same", padding_mode="circular"),
               dict(kernel_size=3, padding="same", padding_mode="replicate"),
               dict(kernel_size=3, padding="valid")]:
        tm, pm = twin(tnn.Conv1d(1, 1, **kw), nn.Conv1d(1, 1, **kw))
        compare(tm, pm, [x])
    # Test invalid usage
    with pytest.raises(ValueError):
        nn.Conv1d(1, 1, kernel_size=3, padding="foo")
    with pytest.raises(ValueError):
        nn.Conv1d(1, 1, kernel_size=3, padding="same", stride=2)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, dilation=2, groups=2, padding=1),
                                dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 2),
                                     padding_mode="reflect"),
                                dict(kernel_size=3, padding="same", dilation=(1, 2),
                                     padding_mode="circular")])
def test_Conv2d_module_options_match_torch(kw):
    rng = np.random.default_rng(10)
    tm, pm = twin(tnn.Conv2d(4, 6, **kw), nn.Conv2d(4, 6, **kw))
    compare(tm, pm, [rng.standard_normal((2, 4, 7, 8))])


def test_conv_modules_raise_error_on_incorrect_input_size():
    for dtype in (pyad.float32, pyad.float64):
        modules = [nn.Conv1d(3, 8, 3).to(dtype), nn.ConvTranspose1d(3, 8, 3).to(dtype),
                   nn.Conv2d(3, 8, 3).to(dtype), nn.ConvTranspose2d(3, 8, 3).to(dtype),
                   nn.Conv3d(3, 8, 3).to(dtype), nn.ConvTranspose3d(3, 8, 3).to(dtype)]
        invalid_input_dims = [(1, 4), (1, 4), (2, 5), (2, 5), (3, 6), (3, 6)]
        for invalid_dims, module in zip(invalid_input_dims, modules):
            for dims in invalid_dims:
                input = pyad.zeros(*((3,) * dims), dtype=dtype)
                with pytest.raises(RuntimeError):
                    module(input)


def test_invalid_conv2d():
    for dtype in (pyad.float32, pyad.float64):
        module = nn.Conv2d(1, 1, kernel_size=3, dilation=2, stride=2).to(dtype)
        input = pyad.zeros(1, 1, 4, 4, dtype=dtype)
        with pytest.raises(RuntimeError):
            module(input)
        # Negative stride check
        module = nn.Conv2d(in_channels=3, out_channels=33, kernel_size=10, stride=1,
                           bias=True)
        input = pyad.randn(1, 3, 1, 1)
        with pytest.raises(RuntimeError):
            module(input)


def test_ConvTranspose2d_output_size():
    m = nn.ConvTranspose2d(3, 4, 3, 3, 0, 2)
    i = pyad.randn(2, 3, 6, 6)
    for h in range(15, 22):
        for w in range(15, 22):
            if 18 <= h <= 20 and 18 <= w <= 20:
                output = m(i, output_size=(h, w))
                assert tuple(output.shape[2:]) == (h, w)
            else:
                with pytest.raises(ValueError):
                    m(i, (h, w))


def test_ConvTranspose2d_matches_torch_groups_dilation():
    rng = np.random.default_rng(11)
    kw = dict(kernel_size=3, stride=2, padding=1, output_padding=1, groups=2, dilation=2)
    tm, pm = twin(tnn.ConvTranspose2d(4, 6, **kw), nn.ConvTranspose2d(4, 6, **kw))
    compare(tm, pm, [rng.standard_normal((2, 4, 5, 4))])


def test_batchnorm_eval():
    # TestNNDeviceType._test_batchnorm_eval on CPU, double
    module = nn.BatchNorm1d(3).double()
    tmodule = tnn.BatchNorm1d(3).double()
    x = np.random.default_rng(12).random((4, 3))
    data = pyad.tensor(x, requires_grad=True)
    grad = pyad.tensor(np.random.default_rng(13).random((4, 3)))

    # 1st pass
    res1 = module(data)
    res1.backward(grad)
    grad1 = data.grad.clone()

    # 2nd pass
    if data.grad is not None:
        data.grad = None
    res2 = module(data)
    res2.backward(grad)
    grad2 = data.grad.clone()
    np.testing.assert_allclose(res1.data, res2.data, rtol=1e-12)
    np.testing.assert_allclose(grad1.data, grad2.data, rtol=1e-12)

    # track_running_stats=False
    module = nn.BatchNorm1d(3, track_running_stats=False).double()
    data = pyad.tensor(np.random.default_rng(14).random((4, 3)), requires_grad=True)
    res1 = module(data)
    res1.backward(grad)
    grad1 = data.grad.clone()
    module.eval()
    data.grad = None
    res2 = module(data)
    res2.backward(grad)
    grad2 = data.grad.clone()
    np.testing.assert_allclose(res1.data, res2.data, rtol=1e-12)
    np.testing.assert_allclose(grad1.data, grad2.data, rtol=1e-12)
    del tmodule


def test_batchnorm_simple_average():
    # TestNNDeviceType._test_batchnorm_simple_average on CPU, double
    module = nn.BatchNorm1d(3, momentum=None).double()
    rng = np.random.default_rng(15)
    data1 = pyad.tensor(rng.random((4, 3)))
    data2 = pyad.tensor(rng.random((4, 3)))

    # 1st pass
    module(data1)
    running_mean1 = module.running_mean.clone()
    running_var1 = module.running_var.clone()
    assert not np.allclose(running_mean1.data, np.zeros(3))
    assert not np.allclose(running_var1.data, np.ones(3))

    # reset stats
    module.reset_running_stats()
    np.testing.assert_array_equal(module.running_mean.data, np.zeros(3))
    np.testing.assert_array_equal(module.running_var.data, np.ones(3))

    # 2nd pass
    module(data2)
    running_mean2 = module.running_mean.clone()
    running_var2 = module.running_var.clone()

    # reset stats
    module.reset_running_stats()
    # 3rd (combined) pass
    module(data1)
    module(data2)
    np.testing.assert_allclose(module.running_mean.data,
                               (running_mean1.data + running_mean2.data) / 2, rtol=1e-12)
    np.testing.assert_allclose(module.running_var.data,
                               (running_var1.data + running_var2.data) / 2, rtol=1e-12)
    assert int(module.num_batches_tracked.item()) == 2


def test_batchnorm_raises_error_if_less_than_one_value_per_channel():
    x = pyad.rand(1, 10, 1)
    with pytest.raises(ValueError):
        F.batch_norm(x, pyad.zeros(10), pyad.ones(10), training=True)
    with pytest.raises(ValueError):
        nn.BatchNorm1d(10)(x)


def test_batchnorm_raises_error_if_running_mean_is_not_same_size_as_input():
    input = pyad.rand(2, 10)
    running_var = pyad.rand(10)
    wrong_sizes = [9, 11]
    for size in wrong_sizes:
        with pytest.raises(RuntimeError):
            F.batch_norm(input, pyad.rand(size), running_var)


def test_batchnorm_raises_error_if_weight_is_not_same_size_as_input():
    input = pyad.rand(2, 10)
    running_mean = pyad.rand(10)
    running_var = pyad.rand(10)
    for size in [9, 11]:
        with pytest.raises(RuntimeError):
            F.batch_norm(input, running_mean, running_var, weight=Parameter(pyad.rand(size)))


def test_batchnorm_buffer_update_when_stats_are_not_tracked():
    input_size = (32, 4)
    # Instantiate BN with buffers that are not None
    bn = nn.BatchNorm1d(input_size[1], track_running_stats=True)
    # Use buffers for normalization but don't update them
    bn.track_running_stats = False
    # Store initial values
    num_batches = bn.num_batches_tracked.clone()
    running_mean = bn.running_mean.clone()
    running_var = bn.running_var.clone()
    # Forward random tensor
    _ = bn(pyad.rand(*input_size))
    # Ensure none of the buffers has been updated
    assert np.array_equal(num_batches.data, bn.num_batches_tracked.data)
    assert np.array_equal(running_mean.data, bn.running_mean.data)
    assert np.array_equal(running_var.data, bn.running_var.data)


def test_batchnorm_running_stats_match_torch_over_training_steps():
    rng = np.random.default_rng(16)
    tm, pm = twin(tnn.BatchNorm2d(3, momentum=0.3), nn.BatchNorm2d(3, momentum=0.3))
    for _ in range(3):
        x = rng.standard_normal((4, 3, 2, 5))
        compare(tm, pm, [x])
    _close(pm.running_mean, tm.running_mean)
    _close(pm.running_var, tm.running_var)
    assert int(pm.num_batches_tracked.item()) == int(tm.num_batches_tracked.item()) == 3
    tm.eval()
    pm.eval()
    compare(tm, pm, [rng.standard_normal((4, 3, 2, 5))])


@pytest.mark.parametrize("shape,normalized", [((4, 5, 6), (6,)), ((2, 3, 4, 5), (4, 5))])
def test_layer_norm_matches_torch_affine_and_not(shape, normalized):
    rng = np.random.default_rng(17)
    for kw in (dict(), dict(elementwise_affine=False), dict(bias=False)):
        tm, pm = twin(tnn.LayerNorm(normalized, **kw), nn.LayerNorm(normalized, **kw))
        if kw.get("elementwise_affine", True):
            with torch.no_grad():
                tm.weight.copy_(torch.tensor(rng.standard_normal(normalized)))
            pm.load_state_dict({k: pyad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        compare(tm, pm, [rng.standard_normal(shape)])


def test_group_norm_matches_torch():
    rng = np.random.default_rng(18)
    for num_groups, channels in ((2, 6), (3, 6), (6, 6), (1, 6)):
        tm, pm = twin(tnn.GroupNorm(num_groups, channels), nn.GroupNorm(num_groups, channels))
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(rng.standard_normal(channels)))
            tm.bias.copy_(torch.tensor(rng.standard_normal(channels)))
        pm.load_state_dict({k: pyad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        compare(tm, pm, [rng.standard_normal((3, channels, 4, 2))])
    with pytest.raises(ValueError):
        nn.GroupNorm(4, 6)


def test_embedding_max_norm():
    embedding = nn.Embedding(22, 5, max_norm=1.0)
    input = pyad.tensor([2, 8, 8, 6], dtype=pyad.long)
    output = embedding(input)
    np.testing.assert_array_equal(output[1].data, output[2].data)
    assert np.all(np.linalg.norm(output.data, axis=1) <= 1 + 1e-6)


def test_embedding_max_norm_matches_torch():
    rng = np.random.default_rng(19)
    w = rng.standard_normal((10, 4)) * 3
    idx = np.array([[1, 3, 3], [0, 9, 1]])
    te = tnn.Embedding.from_pretrained(torch.tensor(w), freeze=False, max_norm=1.5,
                                       norm_type=3.0)
    pe = nn.Embedding.from_pretrained(pyad.tensor(w), freeze=False, max_norm=1.5,
                                      norm_type=3.0)
    to = te(torch.tensor(idx))
    po = pe(pyad.tensor(idx))
    _close(po, to)
    # the rows looked up were renormalised in place in the weight
    _close(pe.weight, te.weight)


def test_embedding_from_pretrained():
    a = pyad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    embedding = nn.Embedding.from_pretrained(a)
    np.testing.assert_array_equal(a.data, embedding.weight.data)
    input = pyad.tensor([0, 1], dtype=pyad.long)
    output = embedding(input)
    np.testing.assert_array_equal(a.data, output.data)
    assert not embedding.weight.requires_grad


def test_embedding_from_pretrained_padding_idx():
    padding_idx = 2
    padding_vec = pyad.ones(3) * 7
    embeddings = pyad.rand(4, 3)
    embeddings.data[padding_idx] = padding_vec.data
    embedding_nn = nn.Embedding.from_pretrained(embeddings, padding_idx=padding_idx)
    np.testing.assert_array_equal(embedding_nn.weight[padding_idx].data, padding_vec.data)


def test_embedding_from_pretrained_options():
    a = pyad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    opts = {"max_norm": 2.0, "norm_type": 0.5, "scale_grad_by_freq": False,
            "sparse": False}
    embedding = nn.Embedding.from_pretrained(a, **opts)
    input = pyad.tensor([0, 1], dtype=pyad.long)
    output = embedding(input)
    # test output and that weight matrix was renormalized
    np.testing.assert_array_equal(a.data, output.data)
    assert np.all(np.abs(a.data - np.array([[1.0, 2, 3], [4, 5, 6]])) > 0)
    norms = (np.abs(output.data) ** opts["norm_type"]).sum(axis=1) ** (1 / opts["norm_type"])
    assert np.all(norms <= opts["max_norm"] + 1e-6)


def test_embedding_functional():
    a = pyad.tensor([[1, 3, 2], [0, 2, 1]], dtype=pyad.long)
    embeddings = pyad.rand(4, 3, requires_grad=True)
    embed_old = nn.Embedding(4, 3)
    embed_old.weight.data[...] = embeddings.data
    res_old = embed_old(a)
    res_F = F.embedding(a, embeddings)
    np.testing.assert_array_equal(res_old.data, res_F.data)

    embed_old = nn.Embedding(4, 3)
    embed_old = embed_old.from_pretrained(embeddings, padding_idx=2)
    res_old = embed_old(a)
    res_F = F.embedding(a, embeddings, padding_idx=2)
    np.testing.assert_array_equal(res_old.data, res_F.data)


def test_embedding_padding_idx_scale_grad_by_freq_matches_torch():
    rng = np.random.default_rng(20)
    w = rng.standard_normal((6, 3))
    idx = np.array([[0, 2, 2, 5], [2, 1, 0, 0]])
    kw = dict(padding_idx=0, scale_grad_by_freq=True)
    te = tnn.Embedding.from_pretrained(torch.tensor(w), freeze=False, **kw)
    pe = nn.Embedding.from_pretrained(pyad.tensor(w), freeze=False, **kw)
    compare(te, pe, [idx])
    with pytest.raises(AssertionError):
        nn.Embedding(6, 3, padding_idx=6)
    with pytest.raises(AssertionError):
        nn.Embedding(6, 3, padding_idx=-7)


def test_RNN_cell_no_broadcasting():
    def test(cell_module, input, hx, input_size, hidden_size):
        cell = cell_module(input_size, hidden_size)
        with pytest.raises(RuntimeError):
            cell(input, hx)

    def test_all(hidden_size, bad_hx, good_hx, input_size, input):
        test(nn.RNNCell, input, bad_hx, input_size, hidden_size)
        test(nn.GRUCell, input, bad_hx, input_size, hidden_size)
        test(nn.LSTMCell, input, (bad_hx, good_hx), input_size, hidden_size)
        test(nn.LSTMCell, input, (good_hx, bad_hx), input_size, hidden_size)

    hidden_size = 20
    input_size = 10
    input = pyad.randn(3, input_size)
    bad_hx = pyad.randn(1, hidden_size)
    good_hx = pyad.randn(3, hidden_size)

    # Test hidden/input batch size broadcasting
    test_all(hidden_size, bad_hx, good_hx, input_size, input)

    # Test hx's hidden_size vs module's hidden_size broadcasting
    bad_hx = pyad.randn(3, 1)
    test_all(hidden_size, bad_hx, good_hx, input_size, input)

    # Test input's input_size vs module's input_size broadcasting
    bad_input = pyad.randn(3, 1)
    test_all(hidden_size, good_hx, good_hx, input_size, bad_input)


def test_RNN_cell_forward_zero_hidden_size():
    input = pyad.randn(3, 10)
    hx = pyad.randn(3, 0)
    for cell in [nn.RNNCell(10, 0), nn.GRUCell(10, 0)]:
        assert tuple(cell(input, hx).shape) == (3, 0)
    cx = pyad.randn(3, 0)
    h, c = nn.LSTMCell(10, 0)(input, (hx, cx))
    assert tuple(h.shape) == (3, 0) and tuple(c.shape) == (3, 0)


def test_rnn_args_check():
    input_size = 3
    hidden_size = 5
    num_layers = 2
    batch_size = 4
    seq_len = 6
    num_directions = 1
    bad_size = 7  # prime number so that no size can divide it.

    def test(input_shape, hidden_shape, mode):
        for input, hidden in get_inputs(input_shape, hidden_shape, mode):
            model = getattr(nn, mode)(input_size, hidden_size, num_layers)
            with pytest.raises(RuntimeError):
                model(input, hidden)

    correct_input_shape = (seq_len, batch_size, input_size)
    correct_hidden_shape = (num_layers * num_directions, batch_size, hidden_size)

    def update_shape(shape, dim, new_dim_size):
        new_shape = list(shape)
        new_shape[dim] = new_dim_size
        return tuple(new_shape)

    def get_inputs(input_shape, hidden_shape, mode):
        """returns list( tuple(input, hidden) )
        where input, hidden are inputs to a model"""
        input = pyad.randn(*input_shape)
        hidden = pyad.randn(*hidden_shape)
        if mode != "LSTM":
            return [(input, hidden)]
        if hidden_shape == correct_hidden_shape:
            return [(input, (hidden, hidden))]
        good_hidden = pyad.randn(*correct_hidden_shape)
        return [(input, (hidden, good_hidden)), (input, (good_hidden, hidden))]

    rnn_modes = ["RNN", "GRU", "LSTM"]
    for mode in rnn_modes:
        # Incorrect input batch size
        input_shape = update_shape(correct_input_shape, 1, bad_size)
        hidden_shape = correct_hidden_shape
        test(input_shape, hidden_shape, mode)

        # Incorrect hidden batch size
        input_shape = correct_input_shape
        hidden_shape = update_shape(correct_hidden_shape, 1, bad_size)
        test(input_shape, hidden_shape, mode)

        # Incorrect input size
        input_shape = update_shape(correct_input_shape, 2, bad_size)
        hidden_shape = correct_hidden_shape
        test(input_shape, hidden_shape, mode)

        # Incorrect hidden size
        input_shape = correct_input_shape
        hidden_shape = update_shape(correct_hidden_shape, 2, bad_size)
        test(input_shape, hidden_shape, mode)

        # Incorrect hidden[0]
        input_shape = correct_input_shape
        hidden_shape = update_shape(correct_hidden_shape, 0, bad_size)
        test(input_shape, hidden_shape, mode)


def test_rnn_initial_hidden_state():
    rnn_modes = ["RNN", "GRU", "LSTM"]
    for mode in rnn_modes:
        rnn = getattr(nn, mode)(30, 20, 2)
        input = pyad.randn(10, 32, 30)
        hidden = pyad.zeros(2, 32, 20)
        if mode == "LSTM":
            hidden = (hidden, hidden)
        output1, hidden1 = rnn(input, hidden)
        output2, hidden2 = rnn(input)
        np.testing.assert_array_equal(output1.data, output2.data)
        if mode == "LSTM":
            np.testing.assert_array_equal(hidden1[0].data, hidden2[0].data)
            np.testing.assert_array_equal(hidden1[1].data, hidden2[1].data)
        else:
            np.testing.assert_array_equal(hidden1.data, hidden2.data)


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("batch_first,bidirectional,num_layers",
                         [(False, True, 2), (True, True, 1), (True, False, 3)])
def test_rnn_variants_match_torch(mode, batch_first, bidirectional, num_layers):
    rng = np.random.default_rng(21)
    kw = dict(batch_first=batch_first, bidirectional=bidirectional, num_layers=num_layers)
    tm, pm = twin(getattr(tnn, mode)(3, 4, **kw), getattr(nn, mode)(3, 4, **kw))
    shape = (2, 5, 3) if batch_first else (5, 2, 3)
    compare(tm, pm, [rng.standard_normal(shape)], atol=1e-10)


def test_LSTM_proj_matches_torch():
    rng = np.random.default_rng(22)
    kw = dict(num_layers=2, bidirectional=True, proj_size=2)
    tm, pm = twin(tnn.LSTM(3, 4, **kw), nn.LSTM(3, 4, **kw))
    compare(tm, pm, [rng.standard_normal((5, 2, 3))])


def test_rnn_packed_sequence_matches_torch():
    from pyad.nn.utils import rnn as prnn
    from torch.nn.utils import rnn as trnn
    rng = np.random.default_rng(23)
    x = rng.standard_normal((5, 3, 2))
    lengths = [5, 3, 2]
    tm, pm = twin(tnn.GRU(2, 3, bidirectional=True), nn.GRU(2, 3, bidirectional=True))

    def tcall(m, x):
        out, h = m(trnn.pack_padded_sequence(x, lengths))
        return trnn.pad_packed_sequence(out)[0], h

    def pcall(m, x):
        out, h = m(prnn.pack_padded_sequence(x, lengths))
        return prnn.pad_packed_sequence(out)[0], h

    compare(tm, pm, [x], call=lambda m, x: (tcall if isinstance(m, tnn.Module)
                                            else pcall)(m, x))


def test_dropout_eval_is_identity():
    for cls, tcls in ((nn.Dropout, tnn.Dropout), (nn.Dropout1d, tnn.Dropout1d),
                      (nn.Dropout2d, tnn.Dropout2d), (nn.AlphaDropout, tnn.AlphaDropout)):
        m = cls(0.7).eval()
        x = pyad.randn(2, 3, 4)
        assert np.array_equal(m(x).data, x.data)
        assert repr(m) == repr(tcls(0.7).eval())


def test_dropout_mean():
    # TestNN._test_dropout: output and gradient means stay near 1 - p (inverted dropout)
    p = 0.2
    input = pyad.full((1000,), 1 - p, dtype=pyad.float64)
    for inplace in (False, True):
        module = nn.Dropout(p, inplace)
        input_var = input.clone().requires_grad_()
        output = module(input_var + 0 if inplace else input_var)
        assert abs(float(output.data.mean()) - (1 - p)) < 0.05
        output.backward(input)
        assert abs(float(input_var.grad.data.mean()) - (1 - p)) < 0.05
        # every kept element is scaled by 1 / (1 - p), every dropped one is zero
        assert set(np.round(np.unique(output.data), 12)) <= {0.0, 1.0}


# --------------------------------------------------------------------------- losses

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cosine_embedding_loss_matches_torch(reduction):
    rng = np.random.default_rng(24)
    x1, x2 = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    y = np.array([1.0, -1.0, 1.0, -1.0, -1.0])
    kw = dict(margin=0.3, reduction=reduction)
    p1, p2 = pyad.tensor(x1, requires_grad=True), pyad.tensor(x2, requires_grad=True)
    t1, t2 = torch.tensor(x1, requires_grad=True), torch.tensor(x2, requires_grad=True)
    po = nn.CosineEmbeddingLoss(**kw)(p1, p2, pyad.tensor(y))
    to = tnn.CosineEmbeddingLoss(**kw)(t1, t2, torch.tensor(y))
    _close(po, to)
    po.sum().backward()
    to.sum().backward()
    _close(p1.grad, t1.grad)
    _close(p2.grad, t2.grad)


def test_cosine_embedding_loss_error_on_diff_shapes():
    for input_size in ([5, 7], [6, 8]):
        input1 = pyad.empty(input_size[0], input_size[1])
        input2 = pyad.empty(input_size[0], input_size[1] + 1)
        target = pyad.ones(input_size[0])
        with pytest.raises(RuntimeError):
            F.cosine_embedding_loss(input1, input2, target)


def test_cosine_embedding_loss_error_on_nonexpandable_shapes():
    input1 = pyad.empty(1, 5)
    input2 = pyad.empty(1, 6)
    target = pyad.ones(1)
    with pytest.raises(RuntimeError):
        F.cosine_embedding_loss(input1, input2, target)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_label_smoothing_with_weights_and_ignore_index(reduction):
    rng = np.random.default_rng(25)
    x = rng.standard_normal((6, 4, 3))
    tgt = np.array([[0, 1, 2], [3, 3, -100], [1, 0, 2], [2, 2, 1], [-100, 0, 0], [3, 1, 2]])
    w = rng.random(4) + 0.5
    kw = dict(weight=None, reduction=reduction, label_smoothing=0.15, ignore_index=-100)
    for weight in (None, w):
        kw["weight"] = weight
        pm = nn.CrossEntropyLoss(**{**kw, "weight": None if weight is None
                                    else pyad.tensor(weight)})
        tm = tnn.CrossEntropyLoss(**{**kw, "weight": None if weight is None
                                     else torch.tensor(weight)})
        xp, xt = pyad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        po, to = pm(xp, pyad.tensor(tgt)), tm(xt, torch.tensor(tgt))
        _close(po, to)
        po.sum().backward()
        to.sum().backward()
        _close(xp.grad, xt.grad)


def test_cross_entropy_probability_targets_label_smoothing():
    rng = np.random.default_rng(26)
    x = rng.standard_normal((5, 4))
    target = rng.random((5, 4))
    target /= target.sum(1, keepdims=True)
    w = rng.random(4) + 0.5
    for reduction in ("none", "mean", "sum"):
        xp, xt = pyad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        po = F.cross_entropy(xp, pyad.tensor(target), weight=pyad.tensor(w),
                             reduction=reduction, label_smoothing=0.2)
        to = torch.nn.functional.cross_entropy(xt, torch.tensor(target),
                                               weight=torch.tensor(w),
                                               reduction=reduction, label_smoothing=0.2)
        _close(po, to)
        po.sum().backward()
        to.sum().backward()
        _close(xp.grad, xt.grad)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_weights_and_ignore_index_match_torch(reduction):
    rng = np.random.default_rng(27)
    x = rng.standard_normal((7, 5))
    tgt = np.array([0, 4, 2, 2, 1, 3, 4])
    w = rng.random(5)
    xp, xt = pyad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    po = nn.NLLLoss(weight=pyad.tensor(w), ignore_index=2, reduction=reduction)(
        xp, pyad.tensor(tgt))
    to = tnn.NLLLoss(weight=torch.tensor(w), ignore_index=2, reduction=reduction)(
        xt, torch.tensor(tgt))
    _close(po, to)
    po.sum().backward()
    to.sum().backward()
    _close(xp.grad, xt.grad)


def test_pairwise_distance_matches_torch():
    rng = np.random.default_rng(28)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    for p in (1.0, 2.0, 3.5, math.inf):
        for keepdim in (False, True):
            pm = nn.PairwiseDistance(p=p, eps=1e-6, keepdim=keepdim)
            tm = tnn.PairwiseDistance(p=p, eps=1e-6, keepdim=keepdim)
            compare(tm, pm, [a, b])


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_swap_matches_torch(swap):
    rng = np.random.default_rng(29)
    a, p, n = (rng.standard_normal((5, 4)) for _ in range(3))
    for reduction in ("none", "mean", "sum"):
        pm = nn.TripletMarginLoss(margin=0.7, p=1.5, swap=swap, reduction=reduction)
        tm = tnn.TripletMarginLoss(margin=0.7, p=1.5, swap=swap, reduction=reduction)
        compare(tm, pm, [a, p, n])


def test_bce_loss_weight_and_reductions_match_torch():
    rng = np.random.default_rng(30)
    x = rng.random((4, 3)) * 0.98 + 0.01
    y = rng.random((4, 3))
    w = rng.random((3,))
    for reduction in ("none", "mean", "sum"):
        pm = nn.BCELoss(weight=pyad.tensor(w), reduction=reduction)
        tm = tnn.BCELoss(weight=torch.tensor(w), reduction=reduction)
        compare(tm, pm, [x, y])


def test_bce_with_logits_pos_weight_matches_torch():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((4, 3)) * 5
    y = rng.random((4, 3))
    pw = rng.random(3) * 3
    w = rng.random((4, 1))
    for reduction in ("none", "mean", "sum"):
        pm = nn.BCEWithLogitsLoss(weight=pyad.tensor(w), pos_weight=pyad.tensor(pw),
                                  reduction=reduction)
        tm = tnn.BCEWithLogitsLoss(weight=torch.tensor(w), pos_weight=torch.tensor(pw),
                                   reduction=reduction)
        compare(tm, pm, [x, y])


# --------------------------------------------------------------------------- transformer

def test_transformerencoderlayer_matches_torch():
    rng = np.random.default_rng(32)
    for batch_first in (False, True):
        for norm_first in (False, True):
            kw = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0,
                      batch_first=batch_first, norm_first=norm_first)
            tm, pm = twin(tnn.TransformerEncoderLayer(**kw), nn.TransformerEncoderLayer(**kw))
            x = rng.standard_normal((3, 5, 8))
            mask = np.triu(np.full((5, 5) if batch_first else (3, 3), -np.inf), 1)
            compare(tm, pm, [x, mask], call=lambda m, x, mask: m(x, src_mask=mask))


def test_transformerdecoderlayer_matches_torch():
    rng = np.random.default_rng(33)
    kw = dict(d_model=8, nhead=4, dim_feedforward=12, dropout=0.0, batch_first=True,
              activation="gelu")
    tm, pm = twin(tnn.TransformerDecoderLayer(**kw), nn.TransformerDecoderLayer(**kw))
    tgt = rng.standard_normal((2, 4, 8))
    memory = rng.standard_normal((2, 6, 8))
    kpm = np.array([[False, False, False, True], [False, False, False, False]])
    compare(tm, pm, [tgt, memory, kpm],
            call=lambda m, t, mem, k: m(t, mem, tgt_key_padding_mask=k))


def test_transformer_args_check():
    model_name = "Transformer"
    d_model = 128
    nhead = 4
    num_encoder_layers = 2
    num_decoder_layers = 3
    dim_feedforward = 65
    dropout = 0.3
    bsz = 3
    seq_len = 35
    tgt_len = 15
    activations = [F.relu, F.gelu]

    wrong_bsz = 7
    wrong_d_model = 63
    wrong_nhead = 5
    wrong_activation = "abc"

    def test(encoder_input_shape, decoder_input_shape,
             src_mask_len=None, tgt_mask_len=None, memory_mask_size=None,
             src_key_padding_mask_size=None, tgt_key_padding_mask_size=None,
             memory_key_padding_mask_size=None,
             src_is_causal=False, tgt_is_causal=False,
             memory_is_causal=False):
        encoder_input = pyad.randn(*encoder_input_shape)
        decoder_input = pyad.randn(*decoder_input_shape)
        model = getattr(nn, model_name)(d_model, nhead, num_encoder_layers,
                                        num_decoder_layers, dim_feedforward, dropout)
        src_mask = (model.generate_square_subsequent_mask(src_mask_len)
                    if src_mask_len is not None else None)
        tgt_mask = (model.generate_square_subsequent_mask(tgt_mask_len)
                    if tgt_mask_len is not None else None)
        memory_task = pyad.rand(*memory_mask_size) if memory_mask_size is not None else None
        src_key_padding_mask = (pyad.rand(*src_key_padding_mask_size) >= 0.5
                                if src_key_padding_mask_size is not None else None)
        tgt_key_padding_mask = (pyad.rand(*tgt_key_padding_mask_size) >= 0.5
                                if tgt_key_padding_mask_size is not None else None)
        memory_key_padding_mask = (pyad.rand(*memory_key_padding_mask_size) >= 0.5
                                   if memory_key_padding_mask_size is not None else None)
        with pytest.raises(RuntimeError):
            model(encoder_input, decoder_input,
                  src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=memory_task,
                  src_key_padding_mask=src_key_padding_mask,
                  tgt_key_padding_mask=tgt_key_padding_mask,
                  memory_key_padding_mask=memory_key_padding_mask,
                  src_is_causal=src_is_causal, tgt_is_causal=tgt_is_causal,
                  memory_is_causal=memory_is_causal)

    correct_encoder_input_shape = (seq_len, bsz, d_model)
    correct_decoder_input_shape = (tgt_len, bsz, d_model)

    def update_shape(shape, dim, new_dim_size):
        new_shape = list(shape)
        new_shape[dim] = new_dim_size
        return tuple(new_shape)

    # Incorrect encoder_input batch size
    encoder_input_shape = update_shape(correct_encoder_input_shape, 1, wrong_bsz)
    test(encoder_input_shape, correct_decoder_input_shape)

    # Incorrect decoder_input batch size
    decoder_input_shape = update_shape(correct_decoder_input_shape, 1, wrong_bsz)
    test(correct_encoder_input_shape, decoder_input_shape)

    # Incorrect encoder_input input size
    encoder_input_shape = update_shape(correct_encoder_input_shape, 2, wrong_d_model)
    test(encoder_input_shape, correct_decoder_input_shape)

    # Incorrect decoder_input input size
    decoder_input_shape = update_shape(correct_decoder_input_shape, 2, wrong_d_model)
    test(correct_encoder_input_shape, decoder_input_shape)

    # Incorrect nhead
    encoder_input = pyad.randn(*correct_encoder_input_shape)
    decoder_input = pyad.randn(*correct_decoder_input_shape)
    with pytest.raises(AssertionError):
        getattr(nn, model_name)(d_model, wrong_nhead, num_encoder_layers,
                                num_decoder_layers, dim_feedforward, dropout)

    # Incorrect src_mask
    wrong_src_mask_size = seq_len + 1
    test(correct_encoder_input_shape, correct_decoder_input_shape,
         src_mask_len=wrong_src_mask_size)

    # Incorrect tgt_mask
    wrong_tgt_mask_size = tgt_len + 1
    test(correct_encoder_input_shape, correct_decoder_input_shape,
         tgt_mask_len=wrong_tgt_mask_size)

    # Incorrect memory_mask
    wrong_tgt_mask_size = tgt_len + 1
    test(correct_encoder_input_shape, correct_decoder_input_shape,
         memory_mask_size=(wrong_tgt_mask_size, wrong_src_mask_size))

    # Incorrect src_key_padding_mask
    with pytest.raises(AssertionError):
        test(correct_encoder_input_shape, correct_decoder_input_shape,
             src_key_padding_mask_size=(wrong_bsz, wrong_src_mask_size))

    # Incorrect tgt_key_padding_mask
    with pytest.raises(AssertionError):
        test(correct_encoder_input_shape, correct_decoder_input_shape,
             tgt_key_padding_mask_size=(wrong_bsz, wrong_tgt_mask_size))

    # Incorrect memory_key_padding_mask
    with pytest.raises(AssertionError):
        test(correct_encoder_input_shape, correct_decoder_input_shape,
             memory_key_padding_mask_size=(wrong_bsz, wrong_src_mask_size))

    # Correct activations
    for activation in activations:
        model = getattr(nn, model_name)(d_model, nhead, num_encoder_layers,
                                        num_decoder_layers, dim_feedforward, dropout,
                                        activation)
    # Incorrect activation
    with pytest.raises(RuntimeError):
        getattr(nn, model_name)(d_model, nhead, num_encoder_layers, num_decoder_layers,
                                dim_feedforward, dropout, wrong_activation)
    del encoder_input, decoder_input


def test_transformer_layer_args_check():
    model_names = ["TransformerEncoderLayer", "TransformerDecoderLayer"]
    d_model = 128
    nhead = 4
    dim_feedforward = 65
    dropout = 0.3
    bsz = 3
    seq_len = 35
    tgt_len = 15
    activations = [F.relu, F.gelu]
    wrong_activation = "abc"
    encoder_input_shape = (seq_len, bsz, d_model)
    decoder_input_shape = (tgt_len, bsz, d_model)
    encoder_input = pyad.randn(*encoder_input_shape)
    decoder_input = pyad.randn(*decoder_input_shape)
    for model_name in model_names:
        for activation in activations:
            model = getattr(nn, model_name)(d_model, nhead, dim_feedforward, dropout,
                                            activation)
    # Incorrect activation
    for model_name in model_names:
        with pytest.raises(RuntimeError):
            model = getattr(nn, model_name)(d_model, nhead, dim_feedforward, dropout,
                                            wrong_activation)
    del model, encoder_input, decoder_input


# --------------------------------------------------------------------------- optim bits

def test_zero_grad_set_to_none_module_and_optimizer():
    # TestNN.test_zero_grad
    i = pyad.rand(2, 5, requires_grad=True)
    module = nn.Linear(5, 5)
    for p in module.parameters():
        p.requires_grad = False
    module.zero_grad()

    module.weight.requires_grad = True
    module.zero_grad()
    assert module.weight.grad is None  # uninitialized grad

    module(i).sum().backward()
    assert module.weight.grad is not None
    assert float(np.abs(module.weight.grad.data).sum()) > 0
    module.zero_grad()
    assert module.weight.grad is None

    module.bias.requires_grad = True
    module.zero_grad()
    assert module.weight.grad is None
    assert module.bias.grad is None
    module(i).sum().backward()
    assert module.weight.grad is not None
    assert module.bias.grad is not None
    assert float(np.abs(module.weight.grad.data).sum()) > 0
    assert float(np.abs(module.bias.grad.data).sum()) > 0
    module.zero_grad(set_to_none=False)   # Force set to zeros.
    np.testing.assert_array_equal(module.weight.grad.data, np.zeros((5, 5)))
    np.testing.assert_array_equal(module.bias.grad.data, np.zeros(5))

    module.zero_grad()
    assert module.weight.grad is None
    assert module.bias.grad is None

    opt = pyad.optim.SGD(module.parameters(), lr=0.1)
    module(i).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(module.weight.grad.data, np.zeros((5, 5)))
    opt.zero_grad()
    assert module.weight.grad is None


def test_requires_grad_():
    m = _create_basic_net(pyad)[-1]
    assert len(list(m.buffers())) > 0, "invalid test"
    assert all(not b.requires_grad for b in m.buffers()) > 0, "invalid test"
    assert len(list(m.parameters())) > 0, "invalid test"
    assert all(p.requires_grad for p in m.parameters()) > 0, "invalid test"
    for requires_grad in (False, True):
        assert m.requires_grad_(requires_grad) is m
        for p in m.parameters():
            assert p.requires_grad == requires_grad
        for b in m.buffers():
            assert not b.requires_grad


def test_share_memory_pickle_round_trip():
    # torch's test_share_memory checks parameters stay shared after share_memory(); the
    # CPU / pyad part is that a pickled module round-trips parameters and buffers.
    net = _state_dict_net(pyad)
    net2 = pickle.loads(pickle.dumps(net))
    for (k1, v1), (k2, v2) in zip(net.state_dict().items(), net2.state_dict().items()):
        assert k1 == k2
        np.testing.assert_array_equal(v1.data, v2.data)
    assert isinstance(net2.linear1.weight, Parameter)


# --------------------------------------------------------------------------- more TestNN

def test_weight_norm():
    for dtype in (pyad.float32, pyad.float64):
        input = pyad.randn(3, 4, dtype=dtype)
        m = nn.Linear(4, 5).to(dtype=dtype)
        expected_output = m(input)
        tol = 1e-5 if dtype == pyad.float32 else 1e-12

        # add weight normalization
        m = nn.utils.weight_norm(m)
        assert tuple(m.weight_v.shape) == tuple(m.weight.shape)
        assert tuple(m.weight_g.shape) == (5, 1)
        np.testing.assert_allclose(m(input).data, expected_output.data, atol=tol, rtol=0)

        # remove weight norm
        m = nn.utils.remove_weight_norm(m)
        assert not hasattr(m, "weight_g")
        assert not hasattr(m, "weight_v")
        np.testing.assert_allclose(m(input).data, expected_output.data, atol=tol, rtol=0)

        # test with dim=1
        m = nn.utils.weight_norm(m, dim=1)
        assert tuple(m.weight_v.shape) == tuple(m.weight.shape)
        assert tuple(m.weight_g.shape) == (1, 4)
        np.testing.assert_allclose(m(input).data, expected_output.data, atol=tol, rtol=0)

        # test with dim=None
        m = nn.Linear(4, 5).to(dtype=dtype)
        expected_output = m(input)
        m = nn.utils.weight_norm(m, dim=None)
        np.testing.assert_allclose(m(input).data, expected_output.data, atol=tol, rtol=0)

        with pytest.raises(RuntimeError, match="register two weight_norm hooks"):
            m = nn.utils.weight_norm(m)
            m = nn.utils.weight_norm(m)


def test_weight_norm_gradient_matches_torch():
    rng = np.random.default_rng(40)
    tm, pm = twin(tnn.Conv1d(3, 4, 2), nn.Conv1d(3, 4, 2))
    tm = torch.nn.utils.weight_norm(tm, dim=0)
    pm = nn.utils.weight_norm(pm, dim=0)
    assert list(dict(pm.named_parameters())) == list(dict(tm.named_parameters()))
    x = rng.standard_normal((2, 3, 5))
    xp, xt = pyad.tensor(x), torch.tensor(x)
    wo = rng.standard_normal((2, 4, 4))
    (pm(xp) * pyad.tensor(wo)).sum().backward()
    (tm(xt) * torch.tensor(wo)).sum().backward()
    for (n, p), (_, t) in zip(pm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.data, t.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=n)


def test_spectral_norm():
    input = pyad.randn(3, 5)
    m = nn.Linear(5, 7)
    m = nn.utils.spectral_norm(m)
    assert tuple(m.weight_u.shape) == (m.weight.shape[0],)
    # weight_orig should be trainable
    assert hasattr(m, "weight_orig")
    assert "weight_orig" in m._parameters
    # weight_u should be just a reused buffer
    assert hasattr(m, "weight_u")
    assert "weight_u" in m._buffers
    assert "weight_v" in m._buffers
    # weight should be a plain attribute, not counted as a buffer or a param
    assert "weight" not in m._buffers
    assert "weight" not in m._parameters
    # it should also be sharing storage as `weight_orig`
    assert tuple(m.weight_orig.shape) == tuple(m.weight.shape)
    assert m(input) is not None

    m = nn.utils.remove_spectral_norm(m)
    assert not hasattr(m, "weight_orig")
    assert not hasattr(m, "weight_u")
    # weight should be converted back as a parameter
    assert hasattr(m, "weight")
    assert "weight" in m._parameters

    with pytest.raises(RuntimeError, match="register two spectral_norm hooks"):
        m = nn.utils.spectral_norm(m)
        m = nn.utils.spectral_norm(m)


def test_spectral_norm_eval_matches_torch():
    # same weight and the same starting u: after one training call the power-iteration
    # vectors and the normalised weight match torch's, and eval reuses them.
    tm, pm = twin(tnn.Linear(5, 4), nn.Linear(5, 4))
    tm = torch.nn.utils.spectral_norm(tm)
    pm = nn.utils.spectral_norm(pm)
    with torch.no_grad():
        u0 = torch.nn.functional.normalize(torch.randn(4, dtype=torch.float64), dim=0)
        v0 = torch.nn.functional.normalize(torch.randn(5, dtype=torch.float64), dim=0)
        tm.weight_u.copy_(u0)
        tm.weight_v.copy_(v0)
    pm.weight_u.data[...] = u0.numpy()
    pm.weight_v.data[...] = v0.numpy()
    x = np.random.default_rng(41).standard_normal((3, 5))
    compare(tm, pm, [x])
    _close(pm.weight_u, tm.weight_u)
    tm.eval()
    pm.eval()
    compare(tm, pm, [x])


def test_RNN_cell():
    # this is just a smoke test in torch; here each cell is also compared with torch
    rng = np.random.default_rng(42)
    for module in ("RNNCell", "GRUCell"):
        for bias in (True, False):
            tm, pm = twin(getattr(tnn, module)(10, 20, bias=bias),
                          getattr(nn, module)(10, 20, bias=bias))

            def run(m, input, hx):
                for _ in range(6):
                    hx = m(input, hx)
                return hx

            compare(tm, pm, [rng.standard_normal((3, 10)), rng.standard_normal((3, 20))],
                    call=run)


def test_LSTM_cell():
    rng = np.random.default_rng(43)
    for bias in (True, False):
        tm, pm = twin(tnn.LSTMCell(10, 20, bias=bias), nn.LSTMCell(10, 20, bias=bias))

        def run(m, input, hx, cx):
            for _ in range(6):
                hx, cx = m(input, (hx, cx))
            return hx + cx

        compare(tm, pm, [rng.standard_normal((3, 10)), rng.standard_normal((3, 20)),
                         rng.standard_normal((3, 20))], call=run)


def test_RNN_cell_forward_input_size():
    input = pyad.randn(3, 11)
    hx = pyad.randn(3, 20)
    for module in (nn.RNNCell, nn.GRUCell):
        cell = module(10, 20)
        with pytest.raises(Exception):
            cell(input, hx)


def test_RNN_cell_forward_hidden_size():
    input = pyad.randn(3, 10)
    hx = pyad.randn(3, 21)
    cell_shared_param = (10, 20)
    for cell in (nn.RNNCell(*cell_shared_param, nonlinearity="relu"),
                 nn.RNNCell(*cell_shared_param, nonlinearity="tanh"),
                 nn.GRUCell(*cell_shared_param)):
        with pytest.raises(Exception):
            cell(input, hx)


def test_RNN_cell_unbatched_matches_torch():
    rng = np.random.default_rng(44)
    for mod in ("RNNCell", "GRUCell", "LSTMCell"):
        tm, pm = twin(getattr(tnn, mod)(3, 4), getattr(nn, mod)(3, 4))
        compare(tm, pm, [rng.standard_normal(3)])


def test_rnn_unbatched_input_matches_torch():
    rng = np.random.default_rng(45)
    for mod in ("RNN", "GRU", "LSTM"):
        tm, pm = twin(getattr(tnn, mod)(3, 4, num_layers=2, bidirectional=True),
                      getattr(nn, mod)(3, 4, num_layers=2, bidirectional=True))
        compare(tm, pm, [rng.standard_normal((5, 3))])


def test_RNN_dropout_eval_is_deterministic():
    # torch's test_RNN_dropout checks dropout between layers; in eval it is off, so two
    # calls agree and match torch on the same weights
    rng = np.random.default_rng(46)
    tm, pm = twin(tnn.LSTM(3, 4, num_layers=3, dropout=0.5),
                  nn.LSTM(3, 4, num_layers=3, dropout=0.5))
    tm.eval()
    pm.eval()
    x = rng.standard_normal((5, 2, 3))
    compare(tm, pm, [x])
    a = pm(pyad.tensor(x))[0].data
    b = pm(pyad.tensor(x))[0].data
    np.testing.assert_array_equal(a, b)


def test_pack_padded_sequence_enforce_sorted_error():
    from pyad.nn.utils.rnn import pack_padded_sequence
    x = pyad.randn(3, 2, 1)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(x, [1, 3], enforce_sorted=True)
    with pytest.raises(RuntimeError):
        pack_padded_sequence(x, [0, 3], enforce_sorted=False)
    with pytest.raises(RuntimeError):
        pack_padded_sequence(x, [4, 3])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_EmbeddingBag_matches_torch(mode):
    rng = np.random.default_rng(47)
    w = rng.standard_normal((10, 3))
    te = tnn.EmbeddingBag.from_pretrained(torch.tensor(w), freeze=False, mode=mode)
    pe = nn.EmbeddingBag.from_pretrained(pyad.tensor(w), freeze=False, mode=mode)
    # 2-D input (fixed-size bags)
    compare(te, pe, [np.array([[1, 2, 4, 5], [4, 3, 2, 9]])])
    # 1-D input with offsets, an empty bag among them
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = np.array([0, 3, 3])
    compare(te, pe, [idx, offsets])


def test_EmbeddingBag_per_sample_weights_matches_torch():
    rng = np.random.default_rng(48)
    w = rng.standard_normal((10, 3))
    te = tnn.EmbeddingBag.from_pretrained(torch.tensor(w), freeze=False, mode="sum")
    pe = nn.EmbeddingBag.from_pretrained(pyad.tensor(w), freeze=False, mode="sum")
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = np.array([0, 4])
    psw = rng.standard_normal(8)
    compare(te, pe, [idx, offsets, psw],
            call=lambda m, i, o, p: m(i, o, per_sample_weights=p))
    with pytest.raises(Exception):
        nn.EmbeddingBag(10, 3, mode="mean")(pyad.tensor(idx), pyad.tensor(offsets),
                                            per_sample_weights=pyad.tensor(psw))


def test_huber_loss_invalid_delta():
    def _test_huber_loss_delta_error_helper(delta):
        input, target = pyad.randn(2, 2), pyad.randn(2, 2)
        loss = nn.HuberLoss(delta=delta)
        # pyad's messages start "op(): ..." (CONTRIBUTING), hence the looser pattern
        with pytest.raises(RuntimeError, match="huber_loss.*does not support non-positive "
                                               "values for delta"):
            loss(input, target)

    _test_huber_loss_delta_error_helper(delta=0)
    _test_huber_loss_delta_error_helper(delta=-1)


def test_smoothl1loss_negative_beta_not_supported():
    with pytest.raises(RuntimeError):
        F.smooth_l1_loss(pyad.randn(2, 2), pyad.randn(2, 2), beta=-1.0)


def test_smoothl1loss_zero_beta_is_l1():
    input, target = pyad.randn(2, 3, 4), pyad.randn(2, 3, 4)
    loss = nn.SmoothL1Loss(beta=0)
    np.testing.assert_allclose(loss(input, target).data, F.l1_loss(input, target).data,
                               rtol=1e-6)


@pytest.mark.parametrize("beta", [0.2, 1.0, 2.5])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_smooth_l1_and_huber_match_torch(beta, reduction):
    rng = np.random.default_rng(49)
    x, y = rng.standard_normal((3, 5)) * 2, rng.standard_normal((3, 5))
    compare(tnn.SmoothL1Loss(beta=beta, reduction=reduction),
            nn.SmoothL1Loss(beta=beta, reduction=reduction), [x, y])
    compare(tnn.HuberLoss(delta=beta, reduction=reduction),
            nn.HuberLoss(delta=beta, reduction=reduction), [x, y])


def test_mse_loss_size_warning():
    i = pyad.randn(16, 1, requires_grad=True)
    t = pyad.randn(16)
    # Check that warning occurs
    with pytest.warns(UserWarning, match="(?i)using a target size"):
        F.mse_loss(i, t)


def test_l1_loss_correct():
    for dtype in (pyad.float32, pyad.float64):
        for N in range(1, 50, 10):
            input = pyad.rand(N, 3, 1024, 1024 // 256, dtype=dtype)
            np.testing.assert_allclose(F.l1_loss(input, pyad.zeros_like(input)).data,
                                       input.data.sum() / input.numel(),
                                       rtol=1e-5 if dtype == pyad.float32 else 1e-12)


def test_gaussian_nll_loss_args():
    input = pyad.randn(3, 5)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        target = pyad.randn(3, 5)
        var = pyad.ones(3, 3)
        F.gaussian_nll_loss(input, target, var)
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        var = -1 * pyad.ones(3, 5)
        F.gaussian_nll_loss(input, target, var)


def test_gaussian_nll_loss_broadcasting_matches_torch():
    rng = np.random.default_rng(50)
    x = rng.standard_normal((3, 2))
    y = rng.standard_normal((3, 2))
    for var in (rng.random((3, 1)) + 0.1, rng.random((3, 2)) + 0.1, rng.random(3) + 0.1):
        for full in (False, True):
            for reduction in ("none", "mean", "sum"):
                compare(tnn.GaussianNLLLoss(full=full, reduction=reduction),
                        nn.GaussianNLLLoss(full=full, reduction=reduction), [x, y, var])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_poisson_nll_loss_reduction_modes(reduction):
    rng = np.random.default_rng(51)
    x = rng.random((2, 3)) * 2 + 0.1
    y = rng.poisson(2.0, (2, 3)).astype(float)
    for log_input in (True, False):
        for full in (False, True):
            compare(tnn.PoissonNLLLoss(log_input=log_input, full=full, reduction=reduction),
                    nn.PoissonNLLLoss(log_input=log_input, full=full, reduction=reduction),
                    [x, y])
    with pytest.raises(ValueError):
        F.poisson_nll_loss(pyad.tensor(x), pyad.tensor(y), reduction="total")


def test_margin_ranking_loss_matches_torch():
    rng = np.random.default_rng(52)
    x1, x2 = rng.standard_normal(6), rng.standard_normal(6)
    y = np.array([1.0, -1, 1, 1, -1, -1])
    for margin in (0.0, 0.5):
        for reduction in ("none", "mean", "sum"):
            compare(tnn.MarginRankingLoss(margin=margin, reduction=reduction),
                    nn.MarginRankingLoss(margin=margin, reduction=reduction), [x1, x2, y])


def test_kl_div_log_target_matches_torch():
    rng = np.random.default_rng(53)
    x = np.log(rng.dirichlet(np.ones(4), size=3))
    t = np.log(rng.dirichlet(np.ones(4), size=3))
    for reduction in ("none", "sum", "batchmean"):
        compare(tnn.KLDivLoss(reduction=reduction, log_target=True),
                nn.KLDivLoss(reduction=reduction, log_target=True), [x, t])


def test_cosine_similarity_matches_torch():
    rng = np.random.default_rng(54)
    a, b = rng.standard_normal((4, 5, 3)), rng.standard_normal((1, 5, 3))
    for dim in (0, 1, -1):
        compare(tnn.CosineSimilarity(dim=dim), nn.CosineSimilarity(dim=dim), [a, b])
    # a zero vector is kept from dividing by zero by eps
    z = np.zeros((2, 3))
    compare(tnn.CosineSimilarity(dim=1), nn.CosineSimilarity(dim=1), [z, rng.random((2, 3))])


def test_softmin():
    x = pyad.randn(2, 16, dtype=pyad.float64)
    np.testing.assert_allclose(F.softmin(x, 1).data, F.softmax(-x, 1).data, rtol=1e-12)
    np.testing.assert_allclose(F.softmin(x, 0).data, F.softmax(-x, 0).data, rtol=1e-12)


def test_pixel_shuffle_unshuffle_round_trip():
    rng = np.random.default_rng(55)
    x = rng.standard_normal((2, 18, 4, 5))
    compare(tnn.PixelShuffle(3), nn.PixelShuffle(3), [x])
    y = rng.standard_normal((2, 2, 6, 9))
    compare(tnn.PixelUnshuffle(3), nn.PixelUnshuffle(3), [y])
    xp = pyad.tensor(x)
    np.testing.assert_array_equal(nn.PixelUnshuffle(3)(nn.PixelShuffle(3)(xp)).data, x)


def test_instance_norm_matches_torch():
    rng = np.random.default_rng(56)
    for affine, track in ((False, False), (True, False), (True, True)):
        tm, pm = twin(tnn.InstanceNorm2d(3, affine=affine, track_running_stats=track),
                      nn.InstanceNorm2d(3, affine=affine, track_running_stats=track))
        compare(tm, pm, [rng.standard_normal((2, 3, 4, 5))])
        if track:
            _close(pm.running_mean, tm.running_mean)
            _close(pm.running_var, tm.running_var)
            tm.eval()
            pm.eval()
            compare(tm, pm, [rng.standard_normal((2, 3, 4, 5))])


def test_transformerencoder_with_masks_matches_torch():
    rng = np.random.default_rng(57)
    layer_kw = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    tl, pl = twin(tnn.TransformerEncoderLayer(**layer_kw),
                  nn.TransformerEncoderLayer(**layer_kw))
    tm = tnn.TransformerEncoder(tl, num_layers=2, norm=tnn.LayerNorm(8),
                                enable_nested_tensor=False)
    pm = nn.TransformerEncoder(pl, num_layers=2, norm=nn.LayerNorm(8),
                               enable_nested_tensor=False)
    tm, pm = twin(tm, pm)
    x = rng.standard_normal((2, 5, 8))
    mask = np.asarray(tnn.Transformer.generate_square_subsequent_mask(5,
                                                                      dtype=torch.float64))
    kpm = np.array([[False] * 5, [False, False, False, True, True]])
    tm.eval()
    pm.eval()
    compare(tm, pm, [x, mask, kpm],
            call=lambda m, x, mk, k: m(x, mask=mk, src_key_padding_mask=k))


def test_generate_square_subsequent_mask():
    sz = 4
    p = nn.Transformer.generate_square_subsequent_mask(sz)
    t = tnn.Transformer.generate_square_subsequent_mask(sz)
    np.testing.assert_array_equal(p.data, t.numpy())
    assert str(p.dtype) == "float32" or p.dtype == pyad.float32


def test_module_forward_preforward_hook_removable():
    # a hook that removes itself (and another one) while the hooks run
    for lib in (torch, pyad):
        module = lib.nn.Sigmoid()
        calls = []

        def removable_hook(m, input):
            calls.append(1)
            handle.remove()
            return input

        def removable_hook_2(m, input):
            calls.append(2)
            handle_2.remove()
            return input

        handle = module.register_forward_pre_hook(removable_hook)
        handle_2 = module.register_forward_pre_hook(removable_hook_2)
        input = lib.randn(2, 2)
        output = module(input)
        assert np.allclose(np.asarray(output.data if lib is pyad else output.numpy()),
                           1 / (1 + np.exp(-np.asarray(input.data if lib is pyad
                                                       else input.numpy()))), rtol=1e-6)
        module(input)
        assert calls == [1, 2], lib


def test_module_forward_forward_hook_removable():
    for lib in (torch, pyad):
        module = lib.nn.Sigmoid()
        calls = []

        def removable_hook(m, input, output):
            calls.append(1)
            handle.remove()
            return output

        def removable_hook_2(m, input, output):
            calls.append(2)
            handle_2.remove()
            return output

        handle = module.register_forward_hook(removable_hook)
        handle_2 = module.register_forward_hook(removable_hook_2)
        input = lib.randn(2, 2)
        module(input)
        module(input)
        assert calls == [1, 2], lib


def test_module_global_forward_hooks_run_before_the_modules_own():
    # test/nn/test_module_hooks.py TestModuleGlobalHooks: global hooks fire for every
    # module, before the module's own hooks, and their handles remove them
    from pyad.nn.modules import module as pmodule
    from torch.nn.modules import module as tmodule

    def run(lib, mod_module):
        fired = []
        m = lib.nn.Sequential(lib.nn.Identity())
        m[0].register_forward_pre_hook(lambda *a: fired.append("own_pre"))
        m[0].register_forward_hook(lambda *a: fired.append("own"))
        h1 = mod_module.register_module_forward_pre_hook(
            lambda mod, args: fired.append("global_pre:" + type(mod).__name__))
        h2 = mod_module.register_module_forward_hook(
            lambda mod, args, out: fired.append("global:" + type(mod).__name__))
        try:
            m(lib.ones(1))
        finally:
            h1.remove()
            h2.remove()
        m(lib.ones(1))
        return fired

    assert run(pyad, pmodule) == run(torch, tmodule)


# test/nn/test_parametrization.py --------------------------------------------------------

def _skew_and_orthogonal(lib):
    class Skew(lib.nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.T

        def is_skew(self, A):
            return lib.allclose(A, -A.T, atol=1e-6)

        def right_inverse(self, X):
            if not self.is_skew(X):
                raise ValueError("The matrix is not skew-symmetric.")
            return X.triu(1)

    class Orthogonal(lib.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.B = lib.nn.Buffer(lib.eye(n))

        def forward(self, X):
            Id = lib.eye(X.size(0))
            return self.B @ lib.linalg.solve(Id + X, Id - X)

        def is_orthogonal(self, X):
            Id = lib.eye(X.size(0))
            return lib.allclose(X.T @ X, Id, atol=1e-4)

        def right_inverse(self, X):
            if not self.is_orthogonal(X):
                raise ValueError("The input is not orthogonal.")
            # cayley(0) == Id, so B @ cayley(0) == B
            self.B = X
            return lib.zeros_like(X)

    return Skew, Orthogonal


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_initialization_parametrization(lib):
    r"""Test that it is possible to initialize a parametrization when it
    implements a `right_inverse` method
    """
    parametrize = (torch.nn.utils.parametrize if lib is torch
                   else pyad.nn.utils.parametrize)
    Skew, Orthogonal = _skew_and_orthogonal(lib)
    N = 5
    model = lib.nn.Linear(N, N)
    # Register the skew-symmetric constraint. The result is now skew-symmetric
    skew = Skew()
    # Make the weight skew-symmetric before registering the parametrization
    with lib.no_grad():
        model.weight.copy_(skew(model.weight))
    parametrize.register_parametrization(model, "weight", skew)
    X = lib.rand(N, N)
    # X is not skew-symmetric, so it throws an error
    with pytest.raises(ValueError):
        model.weight = X
    # Make X skew-symmetric
    X = X - X.T
    model.weight = X
    assert lib.equal(model.parametrizations.weight.original, X.triu(1))
    assert lib.equal(model.weight, X)

    # Having several parametrizations registered should work in the same way
    parametrize.register_parametrization(model, "weight", Orthogonal(N))
    # Register now the Cayley map. The result is now orthogonal
    X = lib.rand(N, N)
    # X is not orthogonal, so it throws an error
    with pytest.raises(ValueError):
        model.weight = X
    lib.nn.init.orthogonal_(X)
    model.weight = X
    assert lib.allclose(model.weight, X, atol=1e-5)
    assert lib.equal(model.parametrizations.weight.original, lib.zeros_like(X))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_parametrization_same_training_mode(lib):
    r"""Test training mode updated on parametrization registration"""
    parametrize = (torch.nn.utils.parametrize if lib is torch
                   else pyad.nn.utils.parametrize)

    class Identity(lib.nn.Module):
        def forward(self, X):
            return X

    module = lib.nn.Linear(4, 4)
    module.eval()
    parametrize.register_parametrization(module, "weight", Identity())
    assert not module.parametrizations.weight[0].training
    module.train()
    parametrize.register_parametrization(module, "weight", Identity().eval())
    assert module.parametrizations.weight[0].training
    assert module.parametrizations.weight[1].training


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_register_and_remove_buffer_parametrization(lib):
    r"""Test that it is possible to add and remove parametrizations on buffers"""
    parametrize = (torch.nn.utils.parametrize if lib is torch
                   else pyad.nn.utils.parametrize)

    # Define a couple vector parametrizations
    class FirstZero(lib.nn.Module):
        def forward(self, x):
            return lib.cat([x.new_zeros(1), x[1:]])

    class LastZero(lib.nn.Module):
        def forward(self, x):
            return lib.cat([x[:-1], x.new_zeros(1)])

    model = lib.nn.Linear(8, 8)

    # Instantiate parametrizations on buffers. It should work as expected
    delattr(model, "bias")
    model.bias = lib.nn.Buffer(lib.ones(8))
    parametrize.register_parametrization(model, "bias", FirstZero())
    parametrize.register_parametrization(model, "bias", LastZero())
    assert parametrize.is_parametrized(model)
    assert parametrize.is_parametrized(model, "bias")
    assert float(model.bias[0]) == 0.0
    assert float(model.bias[-1]) == 0.0
    assert lib.equal(model.bias[1:-1], lib.ones(6))
    assert len(list(model.parameters())) == 1

    # Remove parametrizations on buffers. It should work as expected
    parametrize.remove_parametrizations(model, "bias", leave_parametrized=True)
    assert not parametrize.is_parametrized(model)
    assert not parametrize.is_parametrized(model, "bias")
    assert float(model.bias[0]) == 0.0
    assert float(model.bias[-1]) == 0.0
    assert lib.equal(model.bias[1:-1], lib.ones(6))
    assert len(list(model.parameters())) == 1

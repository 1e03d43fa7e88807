"""More of PyTorch's own autograd tests (``test/test_autograd.py`` of the current torch
tree), translated to pyad: ``TestAutograd`` (gradient edges, post-accumulate hooks,
non-reentrant checkpoint, multi-grad hooks, gradcheck), ``TestNestedCheckpoint``,
``TestAutogradForwardMode``, the CPU cases of ``TestAutogradDeviceType`` (in-place on
views, ``where``, scatter/index reduce, complex copies), ``TestAllowMutationOnSaved``
and ``TestMultithreadAutograd``.

Each test keeps torch's name and the meaning of its assertions; ``torch.randn`` becomes a
fixed-seed NumPy draw, node names become pyad's. Expected values come from torch's test
(hand math) or from torch 2.13 run on the same inputs, never from pyad's output. Where a
torch test also covers something pyad lacks (sparse layouts, ``torch._C`` internals,
``out=`` arguments, in-place view ops such as ``transpose_``), the port runs the rest
and says what was left out. The tests of groups whose name clashes with a
``TestAutograd`` test keep torch's class (``TestMultithreadAutograd``).
"""
import gc
import threading
import warnings
import weakref
from copy import deepcopy
from functools import partial

import numpy as np
import pytest

import pyad
from pyad import Variable, nn
from pyad.autograd import Function, gradcheck, gradgradcheck
from pyad.autograd.graph import GradientEdge, get_gradient_edge
from pyad.utils.checkpoint import checkpoint, checkpoint_sequential

from _ported_helpers import SeededRandom, assert_equal, double_default_dtype  # noqa: F401

_random = SeededRandom(700)
randn, rand = _random.randn, _random.rand


def _allclose(a, b):
    return bool(pyad.allclose(a, b))


# --------------------------------------------------------------------------------
# gradient edges: grad()/backward() to a node
# --------------------------------------------------------------------------------

def test_grad_to_node():
    def check_matches(out, inp):
        ref = pyad.autograd.grad(out.sum(), inp)
        edge = get_gradient_edge(inp)
        new = pyad.autograd.grad(out.sum(), edge)
        assert len(ref) == len(new) == 1
        assert_equal(new[0], ref[0])

    # Regular nodes, AccumulateGrad and a multi-output node (torch's test also runs
    # its private torch.autograd._functions.Resize, which pyad does not have).
    x = rand(2, requires_grad=True)
    out = x.clone()
    check_matches(out, x)

    x = x.clone()
    out = x.clone()
    check_matches(out, x)

    x = pyad.var_mean(x)[1]
    out = x.clone()
    check_matches(out, x)


def test_grad_to_node_inplace():
    x = rand(2, requires_grad=True).clone()
    x_edge = get_gradient_edge(x)
    x *= 2

    g_old, g_new = pyad.autograd.grad(x.sum(), (x_edge, x))
    assert_equal(g_old, 2 * pyad.ones_like(x))
    assert_equal(g_new, pyad.ones_like(x))


def test_grad_to_node_multi():
    x = rand(2, requires_grad=True).clone()
    y = rand(2, requires_grad=True).clone()

    out = x + y

    ref = pyad.autograd.grad(out.sum(), (x, y))

    inp_edges = (
        GradientEdge(x.grad_fn, x.output_nr),
        GradientEdge(y.grad_fn, y.output_nr),
    )
    new = pyad.autograd.grad(out.sum(), inp_edges)

    for r, n in zip(ref, new):
        assert_equal(n, r)


def test_grad_to_node_materialize():
    x = rand(2, requires_grad=True).clone()
    edge_x = GradientEdge(x.grad_fn, x.output_nr)
    y = rand(2, requires_grad=True).clone()
    edge_y = GradientEdge(y.grad_fn, y.output_nr)

    out = x.clone()

    # Works
    pyad.autograd.grad(out.sum(), (edge_x, y), allow_unused=True, materialize_grads=True)
    pyad.autograd.grad(out.sum(), (x, y), allow_unused=True, materialize_grads=True)
    pyad.autograd.grad(out.sum(), (x, edge_y), allow_unused=True)

    with pytest.raises(RuntimeError, match="materialize_grads cannot be used when the "
                                           "given input is a GradientEdge"):
        pyad.autograd.grad(out.sum(), (x, edge_y), allow_unused=True,
                           materialize_grads=True)


def test_backward_to_node():
    x = rand(2, requires_grad=True).clone()
    edge_x = GradientEdge(x.grad_fn, x.output_nr)
    y = rand(2, requires_grad=True).clone()
    edge_y = GradientEdge(y.grad_fn, y.output_nr)

    out = x.clone()

    # All should work in this case
    pyad.autograd.backward(out.sum(), inputs=(edge_x, y))
    pyad.autograd.backward(out.sum(), inputs=(x, y))
    pyad.autograd.backward(out.sum(), inputs=(x, edge_y))
    pyad.autograd.backward(out.sum(), inputs=(edge_x, edge_y))


def test_gradient_edge_output():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)

    def fn(x, reduce=True):
        tmp = x.sin().cos()
        if reduce:
            tmp = tmp.sum()
        out = tmp.exp().clone().sin().sum()
        tmp_edge = get_gradient_edge(tmp)
        return out, tmp_edge

    # Compute fn backward in two steps
    out, tmp_edge = fn(x)
    (tmp_grad,) = pyad.autograd.grad(out, (tmp_edge,))

    (x_grad,) = pyad.autograd.grad(tmp_edge, (x,), grad_outputs=(tmp_grad,))

    # Compare with as if we did it in one go.
    out, _ = fn(x)
    (x_grad_ref,) = pyad.autograd.grad(out, (x,))
    assert_equal(x_grad, x_grad_ref)

    # Incorrect case: grad_outputs not passed/implicitly None and output is
    # not a scalar
    out, tmp_edge = fn(x, reduce=False)
    with pytest.raises(RuntimeError,
                       match="grad can be implicitly created only for scalar output"):
        pyad.autograd.grad(tmp_edge, (x,))

    # grad_outputs is None, and output is a scalar is fine
    out, tmp_edge = fn(x, reduce=True)
    pyad.autograd.grad(tmp_edge, (x,))

    # Incorrect case: grad_outputs wrong size
    out, tmp_edge = fn(x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        pyad.autograd.grad(tmp_edge, (x,), grad_outputs=pyad.tensor([1.0, 2.0, 3.0, 4.0]))

    # Incorrect case: wrong dtype
    out, tmp_edge = fn(x)
    (tmp_grad,) = pyad.autograd.grad(out, (tmp_edge,))
    with pytest.raises(RuntimeError, match="required to have the same dtype"):
        pyad.autograd.grad(tmp_edge, (x,),
                           grad_outputs=pyad.rand_like(tmp_grad, dtype=pyad.complex64))

    # Run with .backward() and compare with .grad()
    out, tmp_edge = fn(x)
    pyad.autograd.backward(tmp_edge, retain_graph=True)
    (x_grad_ref,) = pyad.autograd.grad(tmp_edge, (x,), retain_graph=True)
    assert_equal(x.grad, x_grad_ref)

    # Pass a tuple of GradientEdges
    x.grad = None
    pyad.autograd.backward((tmp_edge,), retain_graph=True)
    assert_equal(x.grad, x_grad_ref)

    # Mixing GradientEdge and Tensors
    out1, tmp_edge1 = fn(x)
    out2, tmp_edge2 = fn(x)
    (x_grad_ref,) = pyad.autograd.grad((tmp_edge1, out2), (x,), retain_graph=True)
    x.grad = None
    pyad.autograd.backward((tmp_edge1, out2), retain_graph=True)
    assert_equal(x.grad, x_grad_ref)

    # .backward(): wrong shape
    out, tmp_edge = fn(x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        pyad.autograd.backward(tmp_edge, inputs=(x,),
                               grad_tensors=pyad.tensor([1.0, 2.0, 3.0, 4.0]))


def test_gradient_edge_graph_ownership():
    # Ensure we own the graph properly
    class Clone(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, gX):
            return gX.clone()

    inp = rand(1, requires_grad=True).clone()

    # built-in Node
    out = inp.clone()
    edge = get_gradient_edge(out)
    pyad.autograd.backward(edge)
    del out
    pyad.autograd.backward(edge)

    # python Node
    out = Clone.apply(inp)
    edge = get_gradient_edge(out)
    pyad.autograd.backward(edge)
    del out
    pyad.autograd.backward(edge)


# --------------------------------------------------------------------------------
# hooks
# --------------------------------------------------------------------------------

def test_post_accumulate_grad_hook_e2e():
    def setup_optim_in_bwd(model):
        optims = {}
        handles = []

        def optim_step_hook(param):
            optims[param].step()
            optims[param].zero_grad()

        for p in model.parameters():
            optims[p] = pyad.optim.Adam([p])
            handles.append(p.register_post_accumulate_grad_hook(optim_step_hook))

        return handles

    pyad.manual_seed(0)
    model = nn.Linear(3, 2)
    input = rand(2, 3)
    handles = setup_optim_in_bwd(model)

    # make a copy for reference
    model_copy = deepcopy(model)
    optim_copy = pyad.optim.Adam(model_copy.parameters())

    iters = 5

    for _ in range(iters):
        loss = model(input).sum()
        loss.backward()

        loss_copy = model_copy(input).sum()
        loss_copy.backward()
        optim_copy.step()
        optim_copy.zero_grad()

    params_copy = []  # freeze a copy of the params to compare later
    for p_reference, p in zip(model_copy.parameters(), model.parameters()):
        assert_equal(p, p_reference)
        params_copy.append(p_reference.detach().clone())

    # After removing the handle, the model should no longer update.
    for h in handles:
        h.remove()

    for _ in range(iters):
        loss = model(input).sum()
        loss.backward()

        loss_copy = model_copy(input).sum()
        loss_copy.backward()
        optim_copy.step()
        optim_copy.zero_grad()

    for p_static, p_reference, p in zip(params_copy, model_copy.parameters(),
                                        model.parameters()):
        assert_equal(p, p_static)
        assert not np.allclose(p.detach().numpy(), p_reference.detach().numpy())


def test_multi_grad_hooks_invalid_mode():
    t1 = rand(2, requires_grad=True)
    t2 = rand(2, requires_grad=True)
    regex = r"Expects mode to be one of \('all', 'any'\) but got foo"
    with pytest.raises(ValueError, match=regex):
        pyad.autograd.graph.register_multi_grad_hook((t1, t2), lambda _: None, mode="foo")


def test_multi_grad_any_hooks():
    hook_id = 0
    any_hook_handles = []

    class MultiOutputModule(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            z = self.lin(x)
            out = pyad.sin(z), pyad.cos(z)
            nonlocal hook_id
            z.register_hook(partial(hook, hook_id))
            hook_id += 1
            any_hook_handles.append(
                pyad.autograd.graph.register_multi_grad_hook(
                    out, partial(hook, hook_id), mode="any"))
            hook_id += 1
            return out

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mod1 = MultiOutputModule()
            self.mod2 = MultiOutputModule()

        def forward(self, x):
            y = self.mod1(x)
            z = y[0] + y[1]
            return self.mod2(z)

    hook_order = []
    hook_count = 0

    def hook(hook_id, *unused):
        nonlocal hook_count
        hook_count += 1
        hook_order.append(hook_id)

    # Any hooks: IDs 1 and 3; regular hooks: IDs 0 and 2
    model = Model()
    inp = randn(2, 3)
    out = model(inp)
    (out[0] + out[1]).sum().backward()
    # Check that the any-hook runs only once and before the regular hook
    # for each module
    assert len(any_hook_handles) == 2
    assert hook_order == [3, 2, 1, 0]

    hook_id = 0
    hook_order.clear()
    any_hook_handles.clear()
    out = model(inp)
    for handle in any_hook_handles:
        handle.remove()
    (out[0] + out[1]).sum().backward()
    # Check that the any-hook does not run if removed
    assert hook_order == [2, 0]


def test_grad_thread_safety():
    from concurrent.futures import ThreadPoolExecutor

    NUM_ITERS = 10
    NUM_THREADS = 4

    # Concurrent calls to tensor.grad
    def access_grad(tensor, barrier):
        barrier.wait()
        return weakref.ref(tensor.grad)

    for i in range(NUM_ITERS):
        tensor = pyad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (tensor ** 2).sum().backward()

        barrier = threading.Barrier(NUM_THREADS)
        with ThreadPoolExecutor(max_workers=NUM_THREADS) as executor:
            futures = [executor.submit(access_grad, tensor, barrier)
                       for _ in range(NUM_THREADS)]

            # Check that all the grad tensors returned were the same
            for future in futures:
                assert_equal(future.result()(), tensor.grad)
            assert tensor.grad is not None


def test_first_grad_fn_access_in_no_grad_mode():
    a = pyad.tensor([1 + 1j], requires_grad=True).clone()
    v = a.real
    a.add_(1)
    with pyad.autograd.grad_mode.no_grad():
        v.grad_fn


def test_free_deep_graph_complicated():
    def scope():
        depth = 100000
        randchoice = pyad.randint(2, [depth, 2])
        x = randn(1, requires_grad=True)
        y = x.clone()

        # Hold the two previous values
        prev_values = [None, None]

        # Build a "chain with skip connections" graph
        for _ in range(depth):
            prev_tensors = [tensor for tensor in prev_values[:-1] if tensor is not None]
            prev_values.append(y)
            prev_values.pop(0)

            # Definitely pick one tensor to add
            y += y * 0.000001

            # Possibly add other tensors
            nprev = len(prev_tensors)
            if nprev == 2:
                y += randchoice[depth].mul(pyad.cat(prev_tensors)).sum()

        # graph deletion occurs when the above locals go out of scope.

    # Should not stack overflow
    scope()


def test_backward_create_graph_warns():
    old = pyad.is_warn_always_enabled()
    pyad.set_warn_always(True)
    try:
        b = randn(3, requires_grad=True)
        c = b * b
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            c.backward(pyad.ones_like(c), create_graph=True)
        b.grad = None
        assert any("Using backward() with create_graph=True" in str(w.message) for w in ws)

        # Should not warn for grad
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            pyad.autograd.grad(c, b, pyad.ones_like(c), create_graph=True)
        assert not any("Using backward() with create_graph=True" in str(w.message)
                       for w in ws)
    finally:
        pyad.set_warn_always(old)


def test_custom_function_inplace_on_non_default_view():
    class Func(Function):
        @staticmethod
        def forward(ctx, inp):
            inp.add_(1)
            ctx.mark_dirty(inp)
            return inp

        @staticmethod
        def backward(ctx, gO):
            pass

    a = pyad.tensor([1.0, 2.0], requires_grad=True)
    a_clone = a.clone()
    b, c = a.split_with_sizes([1, 1], dim=0)

    with pytest.raises(RuntimeError, match="output of a function that returns multiple view"):
        Func.apply(b)
    del a_clone, c


def test_input_buffer_accum():
    leaf = rand(2, 2, requires_grad=True)

    # An op that returns sparse gradients (pyad's are dense, the buffer logic is the same)
    ind = pyad.tensor([[0, 0]], dtype=pyad.int64)
    out2 = leaf.gather(0, ind, sparse_grad=True)

    # An op that returns the gradients as-is
    out1 = leaf.clone()

    grad_out1_original = pyad.rand_like(out1)
    grad_out1 = grad_out1_original.clone()
    grad_out2 = pyad.rand_like(out2)

    pyad.autograd.backward((out1, out2), (grad_out1, grad_out2))

    # Given gradients should not be modified inplace
    assert_equal(grad_out1, grad_out1_original)


def test_set_data_self_requires_grad():
    a = pyad.tensor(1.0, requires_grad=True)
    b = pyad.tensor(2.0)
    c = pyad.tensor(3, dtype=pyad.int64)
    a.data = b
    with pytest.raises(RuntimeError, match="must be floating point or complex dtype"):
        a.data = c


def test_autograd_node_isinstance():
    # Node is a "virtual" base class of pyad's nodes: isinstance and issubclass are
    # overridden, but the mro is unchanged (torch's test also checks its private
    # torch._C._functions.DelayedError registration, which has no pyad counterpart).
    Node = pyad.autograd.graph.Node

    a = rand(3, 3, requires_grad=True)
    b = a.exp()

    assert isinstance(b.grad_fn, Node)
    assert issubclass(type(b.grad_fn), Node)
    assert Node not in type(b.grad_fn).mro()

    AccumulateGrad = type(b.grad_fn.next_functions[0][0])
    assert not isinstance(AccumulateGrad, Node)
    assert issubclass(AccumulateGrad, Node)
    assert isinstance(b.grad_fn.next_functions[0][0], Node)

    # Special cases
    assert not isinstance(None, Node)
    assert not isinstance(1, Node)
    assert not isinstance(Node, Node)
    assert issubclass(Node, Node)

    # Custom function case
    assert issubclass(pyad.autograd.function.BackwardCFunction, Node)

    class Func(Function):
        @staticmethod
        def forward(ctx, x):
            assert isinstance(ctx, Node)
            return x

        @staticmethod
        def backward(ctx, x):
            assert isinstance(ctx, Node)
            return x

    out = Func.apply(a)
    assert isinstance(out.grad_fn, Node)
    assert issubclass(type(out.grad_fn), Node)
    assert Node not in type(out.grad_fn).mro()
    out.sum().backward()


def test_set_multithreading_enabled_as_context_manager_and_function():
    # Test as a context manager
    with pyad.autograd.set_multithreading_enabled(False):
        assert not pyad.autograd.is_multithreading_enabled()
    assert pyad.autograd.is_multithreading_enabled()

    with pyad.autograd.set_multithreading_enabled(True):
        assert pyad.autograd.is_multithreading_enabled()
    assert pyad.autograd.is_multithreading_enabled()

    with pyad.autograd.set_multithreading_enabled(False):
        pyad.autograd.set_multithreading_enabled(True)
        assert pyad.autograd.is_multithreading_enabled()
    assert pyad.autograd.is_multithreading_enabled()

    pyad.autograd.set_multithreading_enabled(False)
    assert not pyad.autograd.is_multithreading_enabled()

    pyad.autograd.set_multithreading_enabled(True)
    assert pyad.autograd.is_multithreading_enabled()


def test_trace_backward_nonsquare_171704():
    for shape in [(5, 2), (7, 3), (4, 1), (1, 5), (2, 5)]:
        x = randn(*shape, requires_grad=True)
        pyad.trace(x).backward()
        expected = pyad.zeros(shape, dtype=pyad.float64)
        for i in range(min(shape)):
            expected[i, i] = 1.0
        assert_equal(x.grad, expected)


def test_preserve_backtrace():
    import sys
    import traceback

    class Foo(Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        def backward(ctx, *grad):
            raise ValueError("something")

    t = rand(10, requires_grad=True)
    try:
        Foo.apply(t).sum().backward()
    except Exception:
        tb = sys.exc_info()[2]
        tb_str = "\n".join(traceback.format_tb(tb))
        assert 'raise ValueError("something")' in tb_str
    else:
        pytest.fail("backward did not raise")


# --------------------------------------------------------------------------------
# gradcheck
# --------------------------------------------------------------------------------

def test_gradcheck_complex_non_complex_outputs():
    def fn(x, y):
        z = pyad.complex(x, y)
        return z, x + 1

    a = pyad.ones(2, 2, requires_grad=True, dtype=pyad.float64)
    b = pyad.ones(2, 2, requires_grad=True, dtype=pyad.float64)
    assert gradcheck(fn, (a, b))

    def fn2(z):
        return z, pyad.real(z)

    c = pyad.ones(2, 2, requires_grad=True, dtype=pyad.complex128)
    assert gradcheck(fn2, (c))


def test_gradcheck_adjusted_atol_complex_inputs():
    # Regression test for incorrect atol transformation for complex inputs, allowing
    # fast gradcheck to fail and slow gradcheck to pass (torch issue 166385).
    pyad.manual_seed(97)

    def sample_func(z):
        return 1.0 / pyad.norm(z)

    # torch's input: 10e-3 * torch.rand(2, dtype=torch.complex128) after
    # torch.manual_seed(97) (pyad's generator draws other numbers), read from torch 2.13
    z = pyad.tensor([0.0006156674467756707 + 0.0004301913813374936j,
                     0.007709603902816519 + 0.008219129866459042j],
                    dtype=pyad.complex128, requires_grad=True)
    atol = 8.3e-6
    rtol = 1e-9

    assert gradcheck(sample_func, (z,), fast_mode=True, atol=atol, rtol=rtol)
    assert gradcheck(sample_func, (z,), fast_mode=False, atol=atol, rtol=rtol)


def test_gradcheck_get_numerical_jacobian():
    # get_numerical_jacobian is deprecated and no longer used internally by gradcheck
    from pyad.autograd.gradcheck import get_numerical_jacobian

    def fn(inputs):
        # get_numerical_jacobian requires fn to take inputs as a tuple
        # and returns the jacobian wrt the first output
        x = inputs[0]
        y = inputs[1]
        return 2 * x + y, x + 2 * y

    a = rand(2, 2, requires_grad=True)
    b = rand(2, 2, requires_grad=True)

    with pytest.warns(FutureWarning, match="`get_numerical_jacobian` was part of "
                                           "PyTorch's private API"):
        jacobian = get_numerical_jacobian(fn, (a, b), target=a, eps=1e-6)
    assert_equal(jacobian[0], 2 * pyad.eye(4, dtype=pyad.float64))

    with pytest.warns(FutureWarning, match="`get_numerical_jacobian` was part of "
                                           "PyTorch's private API"):
        jacobian = get_numerical_jacobian(fn, (a, b), eps=1e-6)
    assert_equal(jacobian[0], 2 * pyad.eye(4, dtype=pyad.float64))
    assert_equal(jacobian[1], 1 * pyad.eye(4, dtype=pyad.float64))

    with pytest.raises(ValueError, match="Expected grad_out to be 1.0"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            get_numerical_jacobian(fn, (a, b), eps=1e-6, grad_out=2.0)


def test_gradcheck_get_analytical_jacobian():
    from pyad.autograd.gradcheck import get_analytical_jacobian

    def fn(x, y):
        return 2 * x + y, x + 2 * y

    a = rand(2, 2, requires_grad=True)
    b = rand(2, 2, requires_grad=True)

    outputs = fn(a, b)
    with pytest.warns(FutureWarning, match="`get_analytical_jacobian` was part of "
                                           "PyTorch's private API"):
        jacobians, reentrant, correct_grad_sizes, correct_grad_types = \
            get_analytical_jacobian((a, b), outputs[0])
    assert_equal(jacobians[0], 2 * pyad.eye(4, dtype=pyad.float64))
    assert_equal(jacobians[1], 1 * pyad.eye(4, dtype=pyad.float64))
    assert reentrant

    class NonDetFunc(Function):
        @staticmethod
        def forward(ctx, x, jitter=0.0):
            ctx._jitter = jitter
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return (NonDetFunc.apply(grad_out, ctx._jitter)
                    * (1 + pyad.rand_like(grad_out) * ctx._jitter), None)

    outputs = NonDetFunc.apply(a, 1e-6)
    with pytest.warns(FutureWarning, match="`get_analytical_jacobian` was part of "
                                           "PyTorch's private API"):
        jacobians, reentrant, correct_grad_sizes, correct_grad_types = \
            get_analytical_jacobian((a,), outputs)
    assert not reentrant

    with pytest.raises(ValueError, match="Expected grad_out to be 1.0"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            get_analytical_jacobian((a,), outputs, grad_out=2.0)


# --------------------------------------------------------------------------------
# checkpoint (TestAutograd)
# --------------------------------------------------------------------------------

def test_custom_autograd_ac_early_stop():
    refs = []

    class Test(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.clone()
            ctx.save_for_backward(y)
            refs.append(weakref.ref(y))
            return y

        @staticmethod
        def backward(ctx, *args):
            _ = ctx.saved_tensors
            return None

    def fn(inp):
        return Test.apply(inp)

    inp = randn(5, 5, requires_grad=True)

    def scope():
        out = checkpoint(fn, inp, use_reentrant=False)
        out.sum().backward()

    gc.disable()
    try:
        scope()
        for ref in refs:
            assert ref() is None
    finally:
        gc.enable()


def test_checkpointing():
    num_inp = 2000
    nz_inp = 10
    nz_bottleneck = 1000

    # small proxy network for some complex reasoning we want to do per input
    module = nn.Sequential(
        nn.Linear(nz_inp, nz_bottleneck),
        nn.ReLU(),
        nn.Linear(nz_bottleneck, nz_inp),
    )

    feat_combined = []
    for _ in range(num_inp):
        data_r = pyad.empty(1, nz_inp)
        data_r.uniform_()
        data_r.requires_grad = True
        feat_r = checkpoint(module, data_r, use_reentrant=True)
        feat_combined.append(feat_r)

    # compute mean as a proxy for some joint reasoning
    mean_combined = pyad.stack(feat_combined).mean()
    mean_combined.backward()


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_checkpointing_without_reentrant(input_requires_grad):
    """Basic test for checkpoint without reentrant autograd."""
    num_inp = 2000
    nz_inp = 10
    nz_bottleneck = 1000

    # small proxy network for some complex reasoning we want to do per input
    module = nn.Sequential(
        nn.Linear(nz_inp, nz_bottleneck),
        nn.ReLU(),
        nn.Linear(nz_bottleneck, nz_inp),
    )

    # Module holder for testing activation checkpointing with no_reentrant
    # supports kwargs.
    class MyModule(nn.Module):
        def __init__(self, mod):
            super().__init__()
            self.module = mod

        def forward(self, data):
            return self.module(data)

    module = MyModule(mod=module)

    # Run model with and without checkpointing and verify gradients are
    # equivalent, regardless of if inputs require grads or not.
    module_copy = deepcopy(module)

    feat_combined = []
    feat_combined_no_checkpoint = []
    for _ in range(num_inp):
        data_r = pyad.empty(1, nz_inp)
        data_r.uniform_()
        data_r.requires_grad = input_requires_grad
        feat_r = checkpoint(module, data=data_r, use_reentrant=False)
        feat_combined.append(feat_r)
        feat_r_no_checkpoint = module_copy(data_r)
        feat_combined_no_checkpoint.append(feat_r_no_checkpoint)

    # compute mean as a proxy for some joint reasoning
    mean_combined = pyad.stack(feat_combined).mean()
    mean_combined.backward()
    mean_combined_no_checkpoint = pyad.stack(feat_combined_no_checkpoint).mean()
    mean_combined_no_checkpoint.backward()

    for checkpoint_param, param in zip(module.parameters(), module_copy.parameters()):
        assert_equal(checkpoint_param.grad, param.grad)


def test_checkpoint_valid_reset_on_error():
    a = randn(2, 2, requires_grad=True)

    with pytest.raises(Exception, match="pyad.utils.checkpoint is incompatible"):
        b = checkpoint(pyad.exp, a, use_reentrant=True).sum()
        pyad.autograd.grad(b, (a,))

    c = checkpoint(pyad.exp, a, use_reentrant=True).sum()
    c.backward()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpointing_without_reentrant_detached_tensor(use_reentrant):
    class NoGradModule(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(2, 2, bias=False)
            self.lin2 = nn.Linear(2, 2, bias=False)

        def forward(self, x):
            with pyad.no_grad():
                return self.lin2(self.linear(x))

    module = NoGradModule()

    a = randn(2, 2, requires_grad=True)
    for _ in range(3):
        if use_reentrant:
            with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
                out = checkpoint(module, a, use_reentrant=use_reentrant)
                out += a
                out.sum().backward()
        else:
            # out does not require grad
            out = checkpoint(module, a, use_reentrant=use_reentrant)
            # Make loss require grad, otherwise we would run into
            # "element 0 of tensors does not require grad and does not have a grad_fn"
            out += a
            out.sum().backward()


def test_checkpointing_without_reentrant_saved_object_identity():
    x_backward = None

    class Test(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x

        @staticmethod
        def backward(ctx, x):
            nonlocal x_backward
            (x_backward,) = ctx.saved_tensors
            return x, None

    a = pyad.tensor(1.0, requires_grad=True)
    b = pyad.tensor(1.0, requires_grad=False)

    Test.apply(a, b).backward()
    assert b is x_backward

    x_backward = None
    checkpoint(Test.apply, a, b, use_reentrant=False).backward()
    assert b is x_backward


def test_checkpointing_without_reentrant_correct_grad():
    """Correct gradients for checkpoint without reentrant autograd, for both
    backward() and autograd.grad()."""
    a = randn(2, 2, requires_grad=True)

    b = pyad.exp(a).sum()
    b.backward()
    b_grad = a.grad

    a.grad = None
    c = checkpoint(pyad.exp, a, use_reentrant=False).sum()
    c.backward()
    c_grad = a.grad

    a.grad = None
    d = checkpoint(pyad.exp, a, use_reentrant=False).sum()
    (d_grad,) = pyad.autograd.grad(d, (a,))

    assert_equal(c_grad, b_grad)
    assert_equal(d_grad, b_grad)


@pytest.mark.xfail(strict=True, reason="engine: grad() (pyad/_engine.pyx) always runs the "
                   "tensor hooks of the leaves it captures; the checkpoint's recomputation "
                   "is a nested grad() w.r.t. the leaf w, so w's hook runs there and again "
                   "in the outer pass (torch recomputes inside the same graph task)")
def test_checkpointing_without_reentrant_parameter_used_in_an_out():
    """Gradient hooks are only called once per tensor."""
    w = randn(10, 10, requires_grad=True)
    count = 0

    def hook(grad):
        nonlocal count
        count += 1

    w.register_hook(hook)
    x = rand(10, 10, requires_grad=True)
    h = w * x  # Using w outside the checkpoint
    out = checkpoint(lambda x: w * x, h, use_reentrant=False)  # Using w inside the checkpoint

    out.sum().backward()
    # should only call hook once
    assert count == 1


def test_checkpointing_without_reentrant_arbitrary_input_output():
    """Checkpointing without reentrant autograd works with functions with arbitrary
    input/output structures."""

    class MyModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = nn.Linear(5, 5, bias=False)

        def forward(self, dict_input):
            tensor = dict_input["tensor"]
            return {"result": self.layer(tensor)}

    model_no_checkpoint = MyModel()
    model_checkpoint_without_reentrant = deepcopy(model_no_checkpoint)

    inp = {"tensor": randn(5, 5)}

    out_no_checkpoint = model_no_checkpoint(inp)["result"].sum()

    out_checkpoint = checkpoint(model_checkpoint_without_reentrant, inp,
                                use_reentrant=False)["result"].sum()

    assert_equal(out_checkpoint, out_no_checkpoint)

    out_no_checkpoint.backward()
    out_checkpoint.backward()

    for param, checkpoint_param in zip(model_no_checkpoint.parameters(),
                                       model_checkpoint_without_reentrant.parameters()):
        assert_equal(checkpoint_param.grad, param.grad)


def test_checkpoint_warns_if_use_reentrant_not_passed_explcitly():
    a = randn(1, requires_grad=True)

    # Passing explicitly should not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda x: x, a, use_reentrant=False)

    # Not passing explicitly warns
    with pytest.warns(UserWarning,
                      match=".*the use_reentrant parameter should be passed explicitly.*"):
        checkpoint(lambda x: x, a)


def test_checkpoint_sequential_warns_if_use_reentrant_not_passed_explcitly():
    a = randn(3, requires_grad=True)
    modules_list = [nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)]

    # Passing explicitly should not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint_sequential(modules_list, 3, a, use_reentrant=False)

    # Not passing explicitly warns
    with pytest.warns(UserWarning,
                      match=".*the use_reentrant parameter should be passed explicitly.*"):
        checkpoint_sequential(modules_list, 3, a)


def test_save_on_cpu_and_checkpoint():
    a = randn(2, 2, requires_grad=True)

    b = a.pow(2).pow(2).pow(2).pow(2)
    b.sum().backward()
    b_grad = a.grad.clone()
    a.grad.zero_()

    with pyad.autograd.graph.save_on_cpu():
        h = a.pow(2)
        h = checkpoint(lambda x: x.pow(2).pow(2), h, use_reentrant=False)
        c = h.pow(2)
    c.sum().backward()
    c_grad = a.grad.clone()
    a.grad.zero_()

    def f(a):
        h = a.pow(2)
        with pyad.autograd.graph.save_on_cpu():
            h = h.pow(2).pow(2)
        return h.pow(2)

    d = checkpoint(f, a, use_reentrant=False)
    d.sum().backward()
    d_grad = a.grad.clone()

    assert_equal(c_grad, b_grad)
    assert_equal(d_grad, b_grad)


# --------------------------------------------------------------------------------
# TestNestedCheckpoint
# --------------------------------------------------------------------------------

def _nc_grad(fn):
    def wrapper(x):
        with pyad.enable_grad():
            out = fn(x)
            (grad_input,) = pyad.autograd.grad(out, inputs=(x,), create_graph=True)
        return grad_input

    return wrapper


def _nc_sum(fn):
    def wrapped(x):
        return fn(x).sum()

    return wrapped


def _nc_checkpoint(fn):
    def wrapped(*args, **kwargs):
        return checkpoint(fn, *args, use_reentrant=False, **kwargs)

    return wrapped


def _nc_get_tests(fn):
    grad, c = _nc_grad, _nc_checkpoint

    return (
        # function <> tuple of function arbitrarily wrapped in checkpoint in various ways
        (fn, (c(fn), c(c(fn)))),
        (grad(fn), (grad(c(fn)), grad(c(c(fn))))),
        (grad(grad(fn)),
         (grad(c(grad(fn))), c(grad(grad(c(fn)))), grad(c(grad(c(fn)))))),
        (grad(grad(grad(fn))),
         (grad(c(grad(grad(c(fn))))), grad(c(grad(c(grad(c(fn)))))))),
    )


def _nc_check_graph_dies(fn):
    def iter_graph(roots):
        if not roots:
            return
        seen = set()
        q = []
        for node in roots:
            if node is not None:
                seen.add(node)
                q.append(node)

        while q:
            node = q.pop(0)
            for fn, _idx in node.next_functions:
                if fn in seen or fn is None:
                    continue
                seen.add(fn)
                q.append(fn)

            yield node

    class Handle:
        __slot__ = ["node_name"]

        def __init__(self, node_name):
            self.node_name = node_name

    def scope():
        a = randn(requires_grad=True)
        out = fn(a)
        refs = []
        for node in iter_graph([out.grad_fn]):
            handle = Handle(node.name())
            refs.append(weakref.ref(handle))
            node.metadata["blah"] = handle
        return refs

    refs = scope()
    node_names = [ref().node_name for ref in refs if ref() is not None]
    assert len(node_names) == 0, node_names


@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoint(early_stop):
    with pyad.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        x = randn(requires_grad=True)

        def f(x):
            out = x.sin().exp().sin()
            return out

        def g(x):
            a = x.sin().exp().sin()
            b = x.sin().exp().sin()
            (ga,) = pyad.autograd.grad(a, x)
            (gb,) = pyad.autograd.grad(b, x)
            return x.sin()

        for fn in (f, g):
            for expected_fn, actual_fns in _nc_get_tests(fn):
                expected = expected_fn(x)

                for actual_fn in actual_fns:
                    actual = actual_fn(x)
                    assert _allclose(expected, actual)
                    _nc_check_graph_dies(actual_fn)


@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoint_two_children(early_stop):
    with pyad.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        grad, sum, c = _nc_grad, _nc_sum, _nc_checkpoint

        def f(x):
            return x.sin().exp().sin()

        def g(x):
            return x.cos().sin().exp()

        def hc(x):
            return c(g)(c(f)(x))

        def h(x):
            return g(f(x))

        a = randn(3, 3, requires_grad=True)
        expected = grad(sum(grad(sum(h))))(a)
        actual = grad(sum(grad(sum(c(hc)))))(a)
        assert _allclose(expected, actual)

        actual = grad(sum(c(grad(sum(c(hc))))))(a)
        assert _allclose(expected, actual)

        _nc_check_graph_dies(grad(c(hc)))
        _nc_check_graph_dies(grad(sum(grad(sum(c(hc))))))
        _nc_check_graph_dies(grad(sum(c(grad(sum(c(hc)))))))


@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoint_non_tensor_inputs_and_outputs(early_stop):
    def fn(k, a, b, f):
        return f(k * a * b.exp()), 1, "abcd"

    k = 3
    a = pyad.tensor(2.0, requires_grad=True)
    b = pyad.tensor(3.0, requires_grad=True)

    def f(x):
        return x.sin()

    with pyad.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        out, _unused1, _unused2 = checkpoint(fn, k, a, b, f, use_reentrant=False)
    actual_grads = pyad.autograd.grad(out, (a, b))

    out, _unused1, _unused2 = fn(k, a, b, f)
    expected_grads = pyad.autograd.grad(out, (a, b))
    for actual, expected in zip(actual_grads, expected_grads):
        assert _allclose(actual, expected)


@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoint_kwargs(early_stop):
    def fn(a, blah=None):
        out = a.sin().exp()
        if blah is not None:
            out = out * blah
        return out.sin().exp()

    a = pyad.tensor(2.0, requires_grad=True)
    b = pyad.tensor(3.0, requires_grad=True)

    with pyad.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        out = checkpoint(fn, a, blah=b, use_reentrant=False)
        actual_grads = pyad.autograd.grad(out, (a, b))

        out = fn(a, blah=b)
        expected_grads = pyad.autograd.grad(out, (a, b))
        for actual, expected in zip(actual_grads, expected_grads):
            assert _allclose(actual, expected)


@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoint_same_graph(early_stop):
    counter = [0]

    def hook(*_unused_args):
        counter[0] += 1

    def fn(a):
        return a.sin().cos().sin()

    a = pyad.tensor(1.0, requires_grad=True)

    with pyad.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        out = checkpoint(fn, a, use_reentrant=False)
    # The hook is registered on the original graph
    out.grad_fn.next_functions[0][0].register_hook(hook)
    # And backward is performed on the original graph
    out.backward()

    assert counter[0] == 1


@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoint_reentrant_backwards(early_stop):
    def fn(a):
        x = a.sin().cos()
        out = x.sin()
        return x, out

    def hook(*_unused_args):
        # do backward again, but skip over the part of the graph where
        # the hook was registered
        x.backward(retain_graph=True)

    a = pyad.tensor(1.0, requires_grad=True)
    with pyad.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        x, out = checkpoint(fn, a, use_reentrant=False)
    out.grad_fn.register_hook(hook)
    out.backward(retain_graph=True)


# --------------------------------------------------------------------------------
# TestAutogradForwardMode
# --------------------------------------------------------------------------------

fwAD = pyad.autograd.forward_ad


@pytest.fixture
def _exit_dual_levels():
    # torch's tearDown: a failing test must not leave a level open for the others
    yield
    while fwAD._current_level >= 0:
        fwAD.exit_dual_level()


def test_forward_level_cleanup(_exit_dual_levels):
    def get_tensor_and_weak_ref():
        # Create a new Tensor and weak reference
        t = rand(2, requires_grad=True)
        return t, weakref.ref(t)

    # Sanity check that the helper function works as expected
    t, t_ref = get_tensor_and_weak_ref()
    assert t_ref() is not None

    del t
    assert t_ref() is None

    # Main test code
    foo = rand(2)

    with fwAD.dual_level():
        tangent, tangent_ref = get_tensor_and_weak_ref()
        assert tangent_ref() is not None

        dual = fwAD.make_dual(foo, tangent)
        assert tangent_ref() is not None

        # Make sure that the tangent we provided has been reused as is
        assert fwAD.unpack_dual(dual)[1] is tangent

        # Make sure that dual is keeping the tangent alive
        del tangent
        assert tangent_ref() is not None

        # Make sure that the dual level does not keep the tangent alive
        del dual
        assert tangent_ref() is None


def test_size_check(_exit_dual_levels):
    foo = rand(2)
    tangent = rand(3)

    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Trying to set a forward gradient that has "
                                               "a different size"):
            dual = fwAD.make_dual(foo, tangent)

        dual = fwAD.make_dual(foo, tangent[1:])
        del dual


def test_default_level(_exit_dual_levels):
    foo = rand(2)
    bar = rand(2)

    with fwAD.dual_level():
        baz = fwAD.make_dual(foo, bar)
        baz_primal, baz_tangent = fwAD.unpack_dual(baz)
    assert_equal(baz_primal, foo)
    # We don't actually need to enforce that these two are the exact same python
    # object, feel free to relax in the future
    assert baz_tangent is bar

    baz_primal, baz_tangent = fwAD.unpack_dual(baz)
    assert_equal(baz_primal, foo)
    assert baz_tangent is None


def test_nested_level(_exit_dual_levels):
    with fwAD.dual_level() as level:
        # For now only level 0 exists
        assert level == 0

    with fwAD.dual_level():
        with pytest.raises(RuntimeError,
                           match="Nested forward mode AD is not supported at the moment"):
            fwAD.enter_dual_level()


def test_set_fw_grad_having_own_fw_grad_at_same_level(_exit_dual_levels):
    foo = rand(2)
    bar = rand(2)
    baz = rand(2)

    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        with pytest.raises(RuntimeError, match="has a forward gradient at the same level"):
            fwAD.make_dual(baz, dual)


def test_make_dual_inference_tensor_in_inference_mode(_exit_dual_levels):
    with pyad.inference_mode():
        foo = rand(2)
        bar = rand(2)
        foo_copy = foo.clone()

        with fwAD.dual_level():
            dual = fwAD.make_dual(foo, bar)
            assert not dual._is_view()

            dual += 1
            assert not _allclose(foo, foo_copy)


def test_make_dual_forbid_integral_dtype(_exit_dual_levels):
    primal_f = pyad.ones(2, 2, dtype=pyad.float32)
    primal_l = pyad.ones(2, 2, dtype=pyad.int64)

    tangent_f = pyad.ones(2, 2, dtype=pyad.float32)
    tangent_l = pyad.ones(2, 2, dtype=pyad.int64)

    with fwAD.dual_level():
        # Float Primal and Long Tangent
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fwAD.make_dual(primal_f, tangent_l)

        # Long Primal and Long Tangent
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(primal_l, tangent_l)

        # Long Primal and Float Tangent
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(primal_l, tangent_f)


def test_basic_packing_unpacking(_exit_dual_levels):
    foo = rand(2)
    bar = rand(2)

    with fwAD.dual_level():
        baz = fwAD.make_dual(foo, bar)
        baz_primal, baz_tangent = fwAD.unpack_dual(baz)
        assert_equal(baz_primal, foo)
        assert baz_tangent is bar

        # Check unpacked dual is returned as a named tuple
        # NB: Every invocation of unpack_dual returns a new tensor view
        assert baz_primal is not fwAD.unpack_dual(baz).primal
        assert_equal(fwAD.unpack_dual(baz).primal, baz_primal)
        assert baz_tangent is fwAD.unpack_dual(baz).tangent

        # Check that packing/unpacking did not change the input
        foo_primal, foo_tangent = fwAD.unpack_dual(foo)
        assert_equal(foo_primal, foo)
        assert foo_tangent is None


def test_grad_cleanup(_exit_dual_levels):
    foo = rand(2)
    bar = rand(2)
    baz = rand(2)

    with fwAD.dual_level():
        dual = fwAD.make_dual(foo, bar)
        assert fwAD.unpack_dual(foo)[1] is None
        assert fwAD.unpack_dual(dual)[1] is bar

    assert fwAD.unpack_dual(dual)[1] is None

    with fwAD.dual_level():
        assert fwAD.unpack_dual(foo)[1] is None
        new_dual = fwAD.make_dual(foo, baz)

        dual_primal, dual_tangent = fwAD.unpack_dual(dual)
        new_dual_primal, new_dual_tangent = fwAD.unpack_dual(new_dual)
        assert_equal(dual_primal, new_dual_primal)
        assert dual_tangent is None
        assert_equal(new_dual_tangent, baz)


def test_detach_view_tracking(_exit_dual_levels):
    # Default detach is both forward and backward non-differentiable
    foo = rand(2)
    foo_weak = weakref.ref(foo)

    out = foo.detach()

    del foo
    assert foo_weak() is None
    del out


def test_non_differentiable(_exit_dual_levels):
    with fwAD.dual_level():
        foo = fwAD.make_dual(rand(2), rand(2))
        bar = rand(2)

        # No differentiable outputs, shouldn't error
        eq = foo == bar

        # Inplace
        foo.eq_(bar)
        del eq


def test_backward_graph_destruction(_exit_dual_levels):
    def fn():
        a = rand(10, requires_grad=True)

        da = fwAD.make_dual(pyad.rand_like(a), a)

        # Create an object with a cycle: db -> its tangent -> the graph -> db
        db = da.exp()
        del db

    with fwAD.dual_level():
        fn()
    # This test make sure that we don't deadlock on exit of this context manager.


def test_copy_forward_ad_broadcasting(_exit_dual_levels):
    # copy_ allows the src to have a different shape from self as long as src is
    # broadcastable to self. Make sure forward AD handles this case.
    primal = rand(3, 3)
    tangent = rand(3, 3)
    non_dual = rand(1, 3, 3)

    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, tangent)
        non_dual.copy_(dual)


def test_copy_forward_ad_same_layout_copies_grad(_exit_dual_levels):
    primal = pyad.tensor([[3.0], [4.0]])
    tangent = pyad.tensor([[5.0], [6.0]])

    with fwAD.dual_level():
        x_dual = fwAD.make_dual(primal, tangent)
        non_dual = pyad.tensor([[1.0], [2.0]])
        non_dual.copy_(x_dual)
        assert fwAD.unpack_dual(non_dual).tangent is not tangent


# --------------------------------------------------------------------------------
# TestAutogradDeviceType (device="cpu")
# --------------------------------------------------------------------------------

def _mask_not_all_zeros(shape):
    # torch's mask_not_all_zeros: a random boolean mask with at least one True
    while True:
        result = randn(*shape).gt(0)
        if bool(result.sum() > 0):
            return result


def test_scatter_index_reduce_amin_amax_backprops_to_all_values():
    # gradients are evenly distributed when there are multiple max/min values
    fns = (pyad.scatter_reduce, pyad.index_reduce)
    reduces = ("amin", "amax")
    for fn in fns:
        for reduction in reduces:
            input = randn(2, 3, requires_grad=True)
            src = input.clone().detach_().requires_grad_(True)
            idx = pyad.arange(2).to(dtype=pyad.int64)
            if fn is pyad.scatter_reduce:
                idx = idx.unsqueeze(-1).expand((2, 3))

            gradcheck(fn, (input, 0, idx, src, reduction), check_batched_grad=False)


def test_scatter_index_reduce_prod_gradgrad_error():
    # double backward raises an error for the case where 2 zeros in src
    # are scattered to the same position in self
    input = pyad.tensor([1.0], dtype=pyad.float64, requires_grad=True)
    src = pyad.tensor([0.0, 0.0], dtype=pyad.float64, requires_grad=True)
    idx = pyad.tensor([0, 0], dtype=pyad.int64)

    for fn in (pyad.scatter_reduce, pyad.index_reduce):
        # check that this case passes on gradcheck
        gradcheck(fn, (input, 0, idx, src, "prod"), check_batched_grad=False)
        with pytest.raises(RuntimeError, match="Double backward is unsupported for"):
            gradgradcheck(fn, (input, 0, idx, src, "prod"))


def test_pyscalar_conversions():
    import math
    import sys

    inf, nan = float("inf"), float("nan")

    def _test_pyscalar_conversions(t, integral_conv):
        # integral -> integral
        l = t(pyad.zeros(1, 1, 1, dtype=pyad.int64))
        pyscalar = -12345
        l[0] = pyscalar
        assert integral_conv(l) == pyscalar

        # floating point -> floating point
        f = Variable(t(randn(1, 1)))
        pyscalar = -12345.1
        f[0] = pyscalar
        assert float(f) == pyscalar
        f[0] = nan
        assert math.isnan(float(f))
        f[0] = inf
        assert float(f) == inf
        f[0] = -inf
        assert float(f) == -inf

        # integral -> floating point
        # check we can convert something that loses precision
        pyscalar = 1234567890123456789
        assert pyscalar != integral_conv(float(pyscalar))
        l[0] = pyscalar
        assert float(l) == float(pyscalar)

        # floating point -> integral
        f[0] = nan
        with pytest.raises(ValueError):
            integral_conv(f[0])
        f[0] = inf
        with pytest.raises(OverflowError):
            integral_conv(f[0])
        f[0] = -inf
        with pytest.raises(OverflowError):
            integral_conv(f[0])
        f[0] = sys.float_info.max
        assert integral_conv(f) == sys.float_info.max

        # bool, nonzero
        def test_nonzero(tensor, value, expected):
            tensor[0] = value
            assert expected == bool(tensor)
            assert expected == bool(tensor)

        test_nonzero(l, 0, False)
        test_nonzero(l, -2, True)
        test_nonzero(f, 0.0, False)
        test_nonzero(f, sys.float_info.min, True)
        test_nonzero(f, nan, bool(nan))
        test_nonzero(f, inf, bool(inf))
        test_nonzero(f, -inf, bool(-inf))

    _test_pyscalar_conversions(lambda x: x.to("cpu"), lambda x: int(x))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "int32", "int64"])
def test_set_requires_grad_only_for_floats(dtype):
    dtype = getattr(pyad, dtype)

    def f1():
        a = pyad.ones(1, dtype=dtype)
        a.requires_grad_()

    def f2():
        a = pyad.ones(1, dtype=dtype)
        a.requires_grad = True

    def f3():
        pyad.ones(1, dtype=dtype, requires_grad=True)

    a = pyad.ones(1, dtype=dtype)
    a.requires_grad = False  # should always work
    a.requires_grad_(False)

    for f in [f1, f2, f3]:
        # (torch's dtype.is_floating_point: pyad's dtypes are NumPy's)
        if pyad.empty(0, dtype=dtype).is_floating_point():
            f()
        else:
            with pytest.raises(RuntimeError, match="floating point"):
                f()


def test_where_functional():
    x = randn(5, 5, requires_grad=True)
    y = randn(5, 5, requires_grad=True)
    cond = _mask_not_all_zeros((5, 5))

    def where(cond, x, y):
        return pyad.where(cond, x, y)

    gradcheck(where, [cond, x, y], raise_exception=True)
    gradgradcheck(where, [cond, x, y], [randn(5, 5)])

    x = randn(5, 1, 5, requires_grad=True)
    y = randn(5, 5, 1, requires_grad=True)
    gradcheck(where, [cond, x, y], raise_exception=True)
    gradgradcheck(where, [cond, x, y], [randn(5, 5, 5)])


def test_where_scalar():
    x = randn(5, 5, requires_grad=True)
    scalar = 4.0
    cond = _mask_not_all_zeros((5, 5))

    def where_scalar_first(cond, x):
        return pyad.where(cond, scalar, x)

    def where_scalar_second(cond, x):
        return pyad.where(cond, x, scalar)

    gradcheck(where_scalar_first, (cond, x))
    gradgradcheck(where_scalar_first, (cond, x))

    gradcheck(where_scalar_second, (cond, x))
    gradgradcheck(where_scalar_second, (cond, x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_requires_grad_factory(dtype):
    dtype = getattr(pyad, dtype)
    fns = [pyad.ones_like, pyad.randn_like]
    x = randn(2, 3).to(dtype)

    for fn in fns:
        for requires_grad in [True, False]:
            output = fn(x, dtype=dtype, device="cpu", requires_grad=requires_grad)
            assert requires_grad == output.requires_grad
            assert output.dtype is dtype
            assert str(x.device) == "cpu"


def test_copy_():
    # copy_ into every floating dtype (bfloat16 was once not recognized as floating)
    pytest.importorskip("ml_dtypes")           # (pyad.bfloat16: the optional extra)
    x = randn(10, requires_grad=True)
    floating_dt = (pyad.float32, pyad.float64, pyad.float16, pyad.bfloat16)
    for dt in floating_dt:
        y = pyad.empty(10, dtype=dt)
        y.copy_(x)
        assert y.requires_grad
        z = x.to(pyad.bfloat16)
        assert z.requires_grad


def test_inplace_on_view_backprop_base():
    # modify view and back-prop through base
    root = randn(2, 2, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v1.mul_(2)
    x.sum().backward()
    assert root.grad.tolist() == [[2, 2], [1, 1]]


def test_inplace_on_view_backprop_view_of_view():
    # modify view and backprop through view-of-view
    root = randn(2, 2, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = x.narrow(0, 0, 1)
    v1.mul_(2)
    v2.sum().backward()
    assert root.grad.tolist() == [[2, 2], [0, 0]]


def test_inplace_on_view_of_view():
    # modify view-of-view and backprop through base
    root = randn(2, 2, requires_grad=True)
    x = root.clone()

    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    assert root.grad.tolist() == [[1, 2], [1, 1]]


def test_inplace_on_view_then_no_grad():
    # Perform an in-place operation on a view of a non-leaf variable.
    a = pyad.ones(3, 1, dtype=pyad.float64, requires_grad=True)
    b = a * 2
    c = b.view_as(b)
    c[0][0] = 3

    # Force a graph update with grad disabled.
    with pyad.no_grad():
        c.grad_fn

    c.sum().backward()


def test_inplace_on_view_gradcheck():
    # gradcheck modifications to views
    a = randn(4, 4, requires_grad=True)
    b = randn(2, 2, requires_grad=True)

    def func(root, b):
        x = root.clone()
        x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
        x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
        return x

    gradcheck(func, [a, b], raise_exception=True)
    go = randn(*a.size(), requires_grad=True)
    gradgradcheck(func, (a, b), (go,))


def test_inplace_on_view_makes_base_require_grad():
    # in-place modification to view makes base require grad
    a = randn(4, 4, requires_grad=False)
    b = randn(4, 2, requires_grad=True)

    def func(root, b):
        x = root.clone()
        assert not x.requires_grad
        x.narrow(1, 2, 2).mul_(b)
        assert x.requires_grad
        return x

    gradcheck(func, [a, b], raise_exception=True)
    go = randn(*a.size(), requires_grad=True)
    gradgradcheck(func, (a, b), (go,))


def test_inplace_on_view_backprop_view():
    # modify view and backprop through view
    a = pyad.tensor([2.0, 5.0], requires_grad=False)
    b = pyad.tensor([3.0], requires_grad=True)
    res = a.narrow(0, 1, 1).mul_(b)
    res.sum().backward()
    assert b.grad.tolist() == [5]
    assert a.grad is None


def test_inplace_on_view_modify_base():
    # Test that an in-place operation on a base that forced it to require
    # grad also forces any previous views to require grad and backprop
    # correctly
    r = pyad.ones(1, dtype=pyad.float64, requires_grad=True)

    def fn(r):
        x = pyad.ones(5, dtype=pyad.float64)
        v = x.select(0, 1)
        assert not v.requires_grad
        assert v.grad_fn is None
        x.add_(r)  # v is now dependent on r due to the in-place op on x
        assert v.requires_grad
        return v

    gradcheck(fn, [r])
    gradgradcheck(fn, [r])


def test_inplace_on_view_python():
    # in-place modifications of Python-autograd created view
    a = randn(4, 4, requires_grad=True)
    b = randn(2, 2, requires_grad=True)

    class PyAdd(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    def func(root, b):
        x = root.clone()
        PyAdd.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
        PyAdd.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
        return x

    gradcheck(func, [a, b], raise_exception=True)
    go = randn(*a.size(), requires_grad=True)
    gradgradcheck(func, (a, b), (go,))


def test_inplace_on_view_non_contig():
    root = pyad.ones(2, 3, 2).select(2, 1).t().requires_grad_(True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    assert root.grad.tolist() == [[1, 2], [1, 1], [1, 1]]


def test_inplace_on_view_undefined_grad_output():
    a = pyad.tensor([1.0], requires_grad=True)
    c = a.clone()
    v = c[:]
    b = pyad.tensor(1.0, requires_grad=True)

    class InplaceFunc(Function):
        @staticmethod
        def forward(ctx, x, other):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None

    out = InplaceFunc.apply(v, b)
    out.backward()
    assert b.grad is None
    assert a.grad.item() == 2


def test_mv_grad_stride_0():
    # Reference: torch issue 38315
    mat = randn(2, 2)
    vec = randn(1).requires_grad_(True)

    def fn(vec):
        # Expand inside the function to make sure the input to
        # gradcheck does not have overlapping memory
        vec = vec.expand(2)
        return (mat @ vec).sum()

    gradcheck(fn, (vec))
    gradgradcheck(fn, (vec))


def test_copy_r_to_c():
    out_c = pyad.empty(3, 2, dtype=pyad.complex128)
    inp_r = randn(3, 2, requires_grad=True)

    def do_test():
        out_c.copy_(inp_r)
        out_c_inter = out_c.sum()
        out_c_inter.abs().backward()
        with pyad.no_grad():
            assert_equal(inp_r.grad, pyad.ones_like(inp_r) * pyad.sgn(out_c_inter).real)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        do_test()


def test_to_r_to_c():
    def do_test():
        inp_r = randn(3, 2, requires_grad=True)
        out = inp_r.to(pyad.complex128)
        out_inter = out.sum()
        out_inter.abs().backward()
        with pyad.no_grad():
            assert_equal(inp_r.grad, pyad.ones_like(inp_r) * pyad.sgn(out_inter).real)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        do_test()


def test_non_differentiable_ops():
    # Just make sure the op doesn't raise an error
    # and resulting tensor has requires_grad=False.
    x = pyad.tensor([[1, 2], [3, 4.0]], requires_grad=True)
    out = pyad.isin(x, pyad.tensor([2, 3]))
    assert not out.requires_grad

    x = randn(3, 3, requires_grad=True)
    out = pyad.signbit(x)
    assert not out.requires_grad


def test_complex_scalar_backward():
    a = pyad.zeros(1, requires_grad=True)
    b = a * 0.5j

    msg = "grad can be implicitly created only for real scalar outputs"
    with pytest.raises(RuntimeError, match=msg):
        b.backward()

    with pytest.raises(RuntimeError, match=msg):
        pyad.autograd.grad(b, a)


def test_pow_real_negative_base_complex_exponent():
    # OpInfo doesn't naturally support input of mixed types, hence this test here.
    base = -pyad.ones(2, dtype=pyad.float64)
    exponent = randn(2).to(pyad.complex128).requires_grad_(True)

    def fn(exponent):
        return pyad.pow(base, exponent)

    gradcheck(fn, (exponent,))

    def fn(exponent):
        return pyad.pow(-1, exponent)

    gradcheck(fn, (exponent,))


def test_resize_version_bump():
    x = rand(1)
    y = randn(3)
    x.resize_((1, 2))
    assert x._version == 1
    x.resize_as_(y)
    assert x._version == 2

    # In the following cases, `resize` is no-op,
    # so no version bumps.
    x.resize_((3,))
    assert x._version == 2

    x.resize_as_(y)
    assert x._version == 2


# --------------------------------------------------------------------------------
# TestAllowMutationOnSaved
# --------------------------------------------------------------------------------

def _assert_cloned_len_equal(ctx, n):
    assert len(list(ctx.cloned.items())) == n


def _assert_tid_map_len_equal(ctx, n):
    assert len(list(ctx.tid_to_weakhandle.items())) == n


_INPLACE_MSG = "variables needed for gradient computation has been modified by an inplace"


class TestAllowMutationOnSaved:
    def test_basic(self):
        a = rand(2, 3, requires_grad=True)

        def fn(a):
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.sum().backward()
            return a.grad

        with pytest.raises(RuntimeError, match=_INPLACE_MSG):
            fn(a)

        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            da = fn(a)

        assert _allclose(a * 2, da)
        _assert_cloned_len_equal(ctx, 0)

    def test_views(self):
        a = rand(2, 3, requires_grad=True)

        def fn(a):
            b = a.clone()
            c = b.view_as(b)
            out = (b ** 2).sum()  # How does this work?
            c.sin_()
            out.sum().backward()
            return a.grad

        with pytest.raises(RuntimeError, match=_INPLACE_MSG):
            fn(a)

        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            da = fn(a)

        _assert_cloned_len_equal(ctx, 0)
        assert _allclose(a * 2, da)

    def test_save_base_and_modify_view(self):
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = rand(2, 3, requires_grad=True)
            b = a.clone()
            c = b[:1]
            out = b ** 2
            # modify the view
            c *= 10
            out.sum().backward()
            _assert_cloned_len_equal(ctx, 0)

        _assert_cloned_len_equal(ctx, 0)
        assert _allclose(a * 2, a.grad)

    def test_save_view_modify_base(self):
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = rand(2, 3, requires_grad=True)
            b = a.clone()
            c = b[:]
            out = (c ** 2).sum()
            b *= 2
            out.backward()
            assert _allclose(a * 2, a.grad)

    def test_double_backward(self):
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = rand(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            pyad.autograd.grad(out, a, create_graph=True)
            (da,) = pyad.autograd.grad(out, a, create_graph=True)
            (d2a,) = pyad.autograd.grad(da.sum(), a)

        assert _allclose(pyad.ones_like(a) * 2, d2a)
        _assert_cloned_len_equal(ctx, 0)

    def test_saved_but_not_anymore(self):
        # Make sure we don't clone if the tensor was once saved, but
        # by the time we do in-place, it is no longer saved
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = randn(2, 3, requires_grad=True).clone()
            out = (a ** 2).sum()
            _assert_tid_map_len_equal(ctx, 1)
            _assert_cloned_len_equal(ctx, 0)
            out.backward()
            a.sin_()
            _assert_cloned_len_equal(ctx, 0)
            out = (a ** 2).sum()
            a.sin_()
            _assert_cloned_len_equal(ctx, 1)
            del out
            _assert_cloned_len_equal(ctx, 0)

    def test_saved_same_tensor_many_times(self):
        # We should only clone once
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = randn(2, 3, requires_grad=True).clone()
            b = a ** 2
            c = a ** 2
            a.sin_()
            _assert_cloned_len_equal(ctx, 1)
            del b, c
            _assert_cloned_len_equal(ctx, 0)

    def test_saved_same_tensor_different_versions(self):
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = randn(2, 3, requires_grad=True).clone()
            b = a ** 2
            a.sin_()
            c = a ** 2
            a.sin_()
            _assert_cloned_len_equal(ctx, 2)
            del b
            _assert_cloned_len_equal(ctx, 1)
            del c
            _assert_cloned_len_equal(ctx, 0)

    def test_with_math_views(self):
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = pyad.tensor([1 + 1j], requires_grad=True).clone()
            b = a.conj()
            out = (b ** 2).sum()
            a.sin_()
            out.abs().backward()

            a = pyad.tensor([1 + 1j], requires_grad=True).clone()
            b = a.conj()
            out = (b ** 2).sum()
            # in this case, it is no longer a view it seems
            b.sin_()
            out.abs().backward()

    def test_backward_out_of_context(self):
        # Out of context
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = rand(2, 3, requires_grad=True)
            out = (a ** 2).sum()

        msg = "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
        with pytest.raises(AssertionError, match=msg):
            out.backward()

        # Different context
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = rand(2, 3, requires_grad=True)
            out = (a ** 2).sum()

        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            with pytest.raises(AssertionError, match=msg):
                out.backward()

    def test_disallow_nesting(self):
        with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            msg = "allow_mutation_on_saved_tensors contexts cannot be nested"
            with pytest.raises(RuntimeError, match=msg):
                with pyad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
                    pass


# --------------------------------------------------------------------------------
# TestMultithreadAutograd
# --------------------------------------------------------------------------------

class TestMultithreadAutograd:
    def _run_py_multithread_fn(self, fn, args=(), num_threads=10, kwargs=None,
                               pass_idx=False):
        class PropagatingThread(threading.Thread):
            """Propagate the exception of a child thread to the main thread on join."""

            def run(self):
                self.exception = None
                try:
                    self.ret = super().run()
                except Exception as e:
                    self.exception = e

            def join(self, timeout=None):
                super().join(timeout)
                if self.exception:
                    raise self.exception from self.exception
                return self.ret

        threads = []
        for idx in range(num_threads):
            p = PropagatingThread(target=fn, args=((idx, *args) if pass_idx else args))
            p.start()
            threads.append(p)

        for p in threads:
            p.join()

    def test_multithreaded_exception_propagation(self):
        # Test whether exception in child thread are propagated to main thread.
        def fn():
            assert False

        with pytest.raises(AssertionError):
            self._run_py_multithread_fn(fn)

    def test_simple_backward(self):
        # simple multithreaded backward that create threads in the beginning of training
        # and everything else is training separately, i.e. inputs, operations, etc.
        def train_fn():
            x = pyad.ones(5, 5, requires_grad=True)
            y = (x + 3) * (x + 4) * 0.5
            y.sum().backward()
            assert_equal(x.grad, x + 3.5)

        self._run_py_multithread_fn(train_fn)

    def test_simple_backward_same_input(self):
        # simple multithreaded backward with only shared inputs (i.e. This is common
        # for things like Hogwild multithreaded training with multiple CPU threads)
        def train_fn_backward(x):
            y = (x + 3) * (x + 4) * 0.5
            y.sum().backward()

        x = pyad.ones(5, 5, requires_grad=True)
        self._run_py_multithread_fn(train_fn_backward, (x,))
        # Since we are calling backward from multiple threads and all threads share
        # the same input, the gradients should be equal to num_threads * gradient
        assert_equal(x.grad, 10 * (x + 3.5))

        def train_fn_grad(x):
            y = (x + 3) * (x + 4) * 0.5
            grads = pyad.autograd.grad(y.sum(), x)
            assert len(grads) == 1
            assert_equal(grads[0], x + 3.5)

        # since we use functional grad() api, gradients will not
        # be accumulate to the same place and should be the same
        self._run_py_multithread_fn(train_fn_grad, (x,))

    def test_multi_grad_all_hooks(self):
        # Multihooks should behave independently per execution of backward
        t1 = rand(2, requires_grad=True)
        t2 = rand(2, requires_grad=True)
        t3 = rand(2, requires_grad=True)
        t4 = rand(2, requires_grad=True)

        res = None
        count = [0]
        hook_lock = threading.Lock()

        def hook(grads):
            nonlocal res
            with hook_lock:
                count[0] += 1
                grad_is_none = [g is not None for g in grads]
                if res is None:
                    res = grad_is_none
                else:
                    assert res == grad_is_none

        handle = pyad.autograd.graph.register_multi_grad_hook((t1, t2, t3, t4), hook)

        out = (t2 * t3).sum()

        def backward_retain_graph(out, t2, t3):
            out.backward(inputs=(t2, t3), retain_graph=True)

        self._run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)

        assert count[0] == 5
        assert res == [False, True, True, False]

        # Leave one hook partially applied
        res = None
        count = [0]
        err_count = [0]
        bw_count = [0]
        bw_count_lock = threading.Lock()
        err_count_lock = threading.Lock()

        class Func(Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, gO):
                with bw_count_lock:
                    bw_count[0] += 1
                    if bw_count[0] == 1:
                        raise RuntimeError("error message")
                    else:
                        return gO

        out = (Func.apply(t2) * t3).sum()

        def backward_retain_graph(out, t2, t3):
            try:
                out.backward(inputs=(t2, t3), retain_graph=True)
            except RuntimeError:
                with err_count_lock:
                    err_count[0] += 1

        self._run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)

        assert count[0] == 4
        assert err_count[0] == 1
        assert res == [False, True, True, False]

        handle.remove()

    def test_multi_grad_any_hooks(self):
        t1 = rand(2, requires_grad=True)
        t2 = rand(2, requires_grad=True)
        t3 = rand(2, requires_grad=True)
        t4 = rand(2, requires_grad=True)

        res = None
        count = [0]
        hook_lock = threading.Lock()

        def hook(grad):
            nonlocal res
            with hook_lock:
                count[0] += 1
                if res is None:
                    res = "foo"
                else:
                    assert res == "foo"

        pyad.autograd.graph.register_multi_grad_hook((t1, t2, t3, t4), hook, mode="any")

        out = (t2 * t3).sum()

        def backward_retain_graph(out, t2, t3):
            out.backward(inputs=(t2, t3), retain_graph=True)

        self._run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)
        assert count[0] == 5
        assert res == "foo"

        # Raise an error in one thread's backward
        res = None
        count = [0]
        err_count = [0]
        bw_count = [0]
        bw_count_lock = threading.Lock()
        err_count_lock = threading.Lock()

        class Func(Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, gO):
                with bw_count_lock:
                    bw_count[0] += 1
                    if bw_count[0] == 1:
                        raise RuntimeError("error message")
                    else:
                        return gO

        out = (Func.apply(t2) * t3).sum()

        def backward_retain_graph(out, t2, t3):
            try:
                out.backward(inputs=(t2, t3), retain_graph=True)
            except RuntimeError:
                with err_count_lock:
                    err_count[0] += 1

        self._run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)

        # Expect all 5 threads to increment count since the hook runs before
        # the custom backward
        assert count[0] == 5
        assert err_count[0] == 1
        assert res == "foo"

    def test_python_thread_in_middle(self):
        # Case 1: multiple backward with python threads, retain_graph=False
        # should throw error in some threads with no retain_graph.
        success_vs_raises = [0, 0]

        def train_fn_no_retain_graph(x):
            y = x + x ** 2
            try:
                y.sum().backward()
                success_vs_raises[0] += 1
            except RuntimeError as error:
                success_vs_raises[1] += 1
                assert "Specify retain_graph=True" in str(error)

        x_no_retain = pyad.ones(5, 5, requires_grad=True)
        y_no_retain = x_no_retain + x_no_retain ** 2
        self._run_py_multithread_fn(train_fn_no_retain_graph, (y_no_retain,), num_threads=5)
        # at least one thread will be success in this case, all other threads should
        # raise with the error that recommends retain_graph=True
        assert success_vs_raises[0] >= 1

        # multiple backward with python threads, no error with retain_graph=True
        def train_fn_retain_graph(x):
            y = x + x ** 2
            y.sum().backward(retain_graph=True)

        x_retain = pyad.ones(5, 5, requires_grad=True)
        y_retain = x_retain + x_retain ** 2
        self._run_py_multithread_fn(train_fn_retain_graph, (y_retain,), num_threads=5)
        # result should equal to num_thread * gradients
        assert_equal(x_retain.grad,
                     5 * (4 * x_retain ** 3 + 6 * (x_retain ** 2) + 4 * x_retain + 1))

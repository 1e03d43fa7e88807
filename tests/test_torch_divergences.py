"""Engine behaviours where pyad once differed from torch.autograd.

Each scenario is written once against a library module ``lib`` (``pyad`` or ``torch``)
and run on pyad; its expected values are derived by hand in the test, and when torch is
installed the same scenario is run on torch too and the two are compared.
"""
import gc
import warnings
import weakref

import numpy as np
import pytest

import pyad

try:
    import torch
except ImportError:  # the torch comparisons skip; the exact values still run
    torch = None

LIBS = [pyad] + ([torch] if torch is not None else [])


def as_np(t):
    if t is None:
        return None
    if torch is not None and isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach())


def both(scenario, expected):
    """Run ``scenario(lib)`` on pyad and torch; each result must equal ``expected``."""
    for lib in LIBS:
        got = scenario(lib)
        got = got if isinstance(got, tuple) else (got,)
        exp = expected if isinstance(expected, tuple) else (expected,)
        assert len(got) == len(exp), lib.__name__
        for g, e in zip(got, exp):
            if e is None:
                assert g is None, (lib.__name__, g)
            elif isinstance(e, (bool, int, str)) and not isinstance(e, float):
                assert g == e, (lib.__name__, g, e)
            else:
                np.testing.assert_array_equal(as_np(g), np.asarray(e), err_msg=lib.__name__)


def raises_in_both(scenario, exc, match):
    for lib in LIBS:
        with pytest.raises(exc, match=match):
            scenario(lib)


# -- 2. mark_dirty on a view input ---------------------------------------------------

def _add_b(lib):
    class AddB(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 10, g * 100

    return AddB


def test_mark_dirty_on_a_view_input_keeps_the_custom_backward():
    def scenario(lib):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True)
        out = _add_b(lib).apply(x.clone().view_as(x), b)
        out.sum().backward()
        return x.grad, b.grad

    both(scenario, ([10.0, 10.0], [100.0, 100.0]))


def test_mark_dirty_on_a_view_of_an_intermediate_records_on_the_base():
    def scenario(lib):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        b = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x * 1
        out = _add_b(lib).apply(y[0], b)
        y.sum().backward()
        return x.grad, b.grad, out.requires_grad

    both(scenario, ([[10.0] * 3, [1.0] * 3], [100.0] * 3, True))


def test_mark_dirty_of_a_value_not_returned_raises():
    def scenario(lib):
        class NotReturned(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        NotReturned.apply(lib.ones(2, requires_grad=True) * 1)

    raises_in_both(scenario, RuntimeError, "dirty")


def test_mark_dirty_of_a_non_input_warns():
    for lib in LIBS:
        class Fresh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g

        with pytest.warns(UserWarning, match="not an input"):
            Fresh.apply(lib.ones(2, requires_grad=True))


# -- 3. in-place on views of leaves ----------------------------------------------------

def test_inplace_on_a_view_taken_before_the_leaf_required_grad_raises():
    def scenario(lib):
        a = lib.randn(2, 3)
        b = a[:]
        a.requires_grad = True
        b.add_(5)

    raises_in_both(scenario, RuntimeError, "view of a leaf Variable that requires grad|"
                                           "a view of a leaf")


def test_inplace_outside_no_grad_on_a_view_taken_under_no_grad_raises():
    def scenario(lib):
        leaf = lib.randn(2, 3, requires_grad=True)
        with lib.no_grad():
            v = leaf[:]
        v.zero_()

    raises_in_both(scenario, RuntimeError, "created in no_grad mode")


def test_view_taken_under_no_grad_may_be_modified_under_no_grad():
    for lib in LIBS:
        leaf = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            v = leaf[:]
            v.add_(1)
        np.testing.assert_array_equal(as_np(leaf), [1.0, 1.0, 1.0])


def test_view_of_a_base_modified_in_place_by_a_grad_requiring_value_requires_grad():
    def scenario(lib):
        base = lib.zeros(2, 3, dtype=lib.float64)
        v = base[0]
        r = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        base.add_(r)
        before = v.requires_grad
        (v * 3).sum().backward()
        return before, v.grad_fn is not None, r.grad

    both(scenario, (True, True, [[3.0] * 3, [0.0] * 3]))


def test_random_fill_of_a_view_of_a_leaf_that_requires_grad_raises():
    for lib in LIBS:
        a = lib.zeros(3)
        v = a[:]
        a.requires_grad = True
        with pytest.raises(RuntimeError, match="leaf"):
            v.uniform_()


# -- 5. retain_grad follows in-place changes ------------------------------------------

def test_retained_grad_belongs_to_the_newest_version():
    def scenario(lib):
        leaf = lib.ones(1, requires_grad=True)
        a = leaf.clone()
        a.retain_grad()
        a.mul_(2)
        a.sum().backward()
        return a.grad, leaf.grad

    both(scenario, ([1.0], [2.0]))


@pytest.mark.parametrize("modify", ["base", "view"])
def test_retained_grad_of_a_view_survives_in_place_changes(modify):
    def scenario(lib):
        leaf = lib.ones(2, 2, requires_grad=True)
        a = leaf.clone()
        v = a[0]
        v.retain_grad()
        (a if modify == "base" else v).mul_(2)
        v.sum().backward()
        return v.grad

    both(scenario, [1.0, 1.0])


def test_retained_grad_of_a_base_survives_an_in_place_change_through_a_view():
    def scenario(lib):
        leaf = lib.ones(2, 2, requires_grad=True)
        a = leaf.clone()
        a.retain_grad()
        a[0].mul_(2)
        a.sum().backward()
        return a.grad, leaf.grad

    both(scenario, ([[1.0, 1.0], [1.0, 1.0]], [[2.0, 2.0], [1.0, 1.0]]))


# -- 6. a second backward through nodes that save index arrays -----------------------

@pytest.mark.parametrize("key", [[1, 1], [True, False, True]])
@pytest.mark.parametrize("through_intermediate", [False, True])
def test_second_backward_through_advanced_indexing_is_refused(key, through_intermediate):
    for lib in LIBS:
        b = lib.ones(3, requires_grad=True)
        index = lib.tensor(key) if lib is torch else np.array(key)
        out = ((b * 1) if through_intermediate else b)[index].sum()
        out.backward()
        with pytest.raises(RuntimeError, match="second time"):
            out.backward()


def test_second_backward_through_advanced_index_setitem_is_refused():
    def scenario(lib):
        b = lib.randn(3, requires_grad=True)
        c = lib.zeros(3)
        c[[1, 2]] = b[[1, 1]]
        c.sum().backward()
        c.sum().backward()

    raises_in_both(scenario, RuntimeError, "second time")


def test_second_backward_through_basic_indexing_is_allowed():
    def scenario(lib):
        b = lib.ones(3, requires_grad=True)
        out = b[1:].sum()
        out.backward()
        out.backward()
        return b.grad

    both(scenario, [0.0, 2.0, 2.0])


# -- 8. hooks of nodes that need not run ----------------------------------------------

def test_tensor_hook_on_a_value_whose_gradient_is_not_needed_does_not_run():
    def scenario(lib):
        calls = []
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        o = x * 1
        o.register_hook(lambda g: calls.append("o"))
        b = o + y
        gb, gy = lib.autograd.grad((o + b).sum(), (b, y))
        return len(calls), gb, gy

    both(scenario, (0, [1.0, 1.0], [1.0, 1.0]))


def test_prehook_of_a_captured_node_that_does_not_execute_does_not_run():
    def scenario(lib):
        calls = []
        a = lib.ones(2, requires_grad=True)
        b = a * 2
        c = b * 2
        b.grad_fn.register_prehook(lambda g: calls.append(1))
        g, = lib.autograd.grad(c.sum(), b)
        return len(calls), g

    both(scenario, (0, [2.0, 2.0]))


def test_backward_inputs_non_leaf_ignores_node_prehooks_but_runs_tensor_hooks():
    def scenario(lib):
        a = lib.ones(1, requires_grad=True)
        b = a * 2
        c = b * 2
        b.grad_fn.register_prehook(lambda g: (g[0] * 4,))
        b.register_hook(lambda g: g * 3)
        c.backward(inputs=(b,))
        return b.grad, a.grad

    both(scenario, ([6.0], None))


def test_tensor_hook_on_a_captured_input_changes_what_is_captured():
    def scenario(lib):
        a = lib.ones(1, requires_grad=True)
        b = a * 2
        b.register_hook(lambda g: g * 10)
        g, = lib.autograd.grad((b * 3).sum(), (b,))
        return g

    both(scenario, [30.0])


def test_retain_grad_on_a_captured_input_is_not_doubled_by_backward_inputs():
    def scenario(lib):
        a = lib.ones(1, requires_grad=True)
        b = a * 2
        b.retain_grad()
        (b * 3).sum().backward(inputs=(b,))
        return b.grad

    both(scenario, [3.0])


# -- 9. no cycle: mark_dirty + save_for_backward on a view -----------------------------

def test_mark_dirty_and_save_for_backward_on_a_view_make_no_cycle():
    class Scale(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2

    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        leaf = pyad.ones(2, 2, dtype=pyad.float64, requires_grad=True)
        base = leaf * 1
        view = base[0]
        out = Scale.apply(view)
        refs = [weakref.ref(o) for o in (base, view, out, out.grad_fn)]
        del base, view, out
        assert [r() for r in refs] == [None] * 4
    finally:
        if was_enabled:
            gc.enable()


def test_saved_dirty_view_output_unpacks_with_the_functions_history():
    # The saved (modified) view is output 0 of the Function: differentiating the
    # backward w.r.t. it reaches the Function's node, as the math says.
    class Square(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(x)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors         # y = x^2; dy/dx = 2x = 2 sqrt(y)
            return g * 2 * y.sqrt()

    leaf = pyad.tensor([[3.0, 4.0]], dtype=pyad.float64, requires_grad=True)
    out = Square.apply((leaf * 1)[0])
    out.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [[6.0, 8.0]])


# -- 10. assigning .data keeps the version counter -------------------------------------

def test_assigning_data_keeps_the_version_counter():
    def scenario(lib):
        x = lib.randn(1, 2)
        v = x[0]
        x.add_(1)
        x.data = lib.randn(2, 3)
        return x._version, v._version

    both(scenario, (1, 1))


# -- 11. materialized zeros take part in the graph --------------------------------------

def test_materialized_zero_gradients_require_grad_under_create_graph():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        gx, gy = lib.autograd.grad((x * 2).sum(), (x, y), create_graph=True,
                                   materialize_grads=True)
        gg, = lib.autograd.grad(gy.sum(), y, allow_unused=True, materialize_grads=True)
        return gx.requires_grad, gy.requires_grad, gy, gg

    both(scenario, (False, True, [0.0, 0.0], [0.0, 0.0]))


# -- 12. deep reentrant backward ---------------------------------------------------------

def test_two_thousand_nested_reentrant_backwards_run():
    class DeepReentrant(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with pyad.enable_grad():
                ctx.x = pyad.autograd.Variable(x.detach(), requires_grad=True)
                ctx.x = ctx.x - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x < 0:
                return g
            with pyad.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
            return g

    v = pyad.tensor(2000.0, requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    assert v.grad.item() == 1.0
    assert pyad.is_grad_enabled()


def test_errors_and_grad_mode_cross_the_reentrant_thread_hop():
    depth = {"n": 0}

    class Nest(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            depth["n"] += 1
            if depth["n"] == 70:
                assert not pyad.is_grad_enabled()
                raise ValueError("deep failure")
            with pyad.enable_grad():
                y = pyad.ones(1, requires_grad=True)
                Nest.apply(y).sum().backward()
            return g

    x = pyad.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="deep failure"):
        Nest.apply(x).sum().backward()
    assert pyad.is_grad_enabled()


# -- 14-15, 21, 24: custom Function contract ---------------------------------------------

def test_backward_receives_none_for_a_non_variable_output():
    def scenario(lib):
        seen = []

        class WithInt(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 3

            @staticmethod
            def backward(ctx, g, g_int):
                seen.append(g_int)
                return g * 2

        x = lib.ones(2, requires_grad=True)
        a, n = WithInt.apply(x)
        a.sum().backward()
        return seen[0], n, x.grad

    both(scenario, (None, 3, [2.0, 2.0]))


def test_an_output_returned_twice_is_one_object_on_the_last_slot():
    def scenario(lib):
        seen = []

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                return out, out

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1, g2))
                return g1 + 3 * g2

        x = lib.ones(2, requires_grad=True)
        a, b = Twice.apply(x)
        a.sum().backward()
        return a is b, a.output_nr, seen[0][0], seen[0][1], x.grad

    both(scenario, (True, 1, [0.0, 0.0], [1.0, 1.0], [3.0, 3.0]))


def test_defining_both_backward_and_vjp_raises():
    def scenario(lib):
        class Both(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vjp(ctx, g):
                return g

        Both.apply(lib.ones(2, requires_grad=True)).sum().backward()

    raises_in_both(scenario, RuntimeError, "both 'backward' and 'vjp'")


def test_vjp_alone_defines_the_backward():
    def scenario(lib):
        class OnlyVjp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 5

        x = lib.ones(2, requires_grad=True)
        OnlyVjp.apply(x).sum().backward()
        return x.grad

    both(scenario, [5.0, 5.0])


def test_setup_context_style_functions():
    def scenario(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.k = k
                ctx.save_for_backward(x, output)

            @staticmethod
            def backward(ctx, g):
                x, out = ctx.saved_tensors
                return g * ctx.k + 0 * x * out, None

        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        y = Scale.apply(x, 3.0)
        gx, = lib.autograd.grad(y.sum(), x, create_graph=True)
        return y, gx

    both(scenario, ([3.0, 3.0], [3.0, 3.0]))


def test_saved_variables_is_deprecated():
    class Keep(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            with pytest.warns(DeprecationWarning, match="saved_tensors"):
                x, = ctx.saved_variables
            return g * 2

    x = pyad.ones(2, requires_grad=True)
    Keep.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


# -- 16-20: Variable attributes ------------------------------------------------------------

def test_post_accumulate_grad_hook_returning_a_value_raises():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda v: lib.ones(2))
        x.sum().backward()

    raises_in_both(scenario, RuntimeError, "should return None")


def test_del_grad_sets_it_to_none():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        x.sum().backward()
        del x.grad
        return x.grad

    both(scenario, None)


@pytest.mark.parametrize("value", [0, 1.5, "g", [1.0, 1.0]])
def test_assigning_a_non_variable_grad_raises_type_error(value):
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = value

    raises_in_both(scenario, TypeError, "assigned grad expected to be a")


def test_requires_grad_on_a_non_leaf_that_requires_grad_returns_self():
    for lib in LIBS:
        y = lib.ones(2, requires_grad=True) * 2
        assert y.requires_grad_() is y
        assert y.requires_grad_(True) is y
        with pytest.raises(RuntimeError, match="leaf"):
            y.requires_grad_(False)


def test_reading_grad_of_a_non_leaf_warns():
    for lib in LIBS:
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="retain_grad"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert x.grad is None


# -- 22. detach_ of a saved non-leaf -------------------------------------------------------

def test_detach_in_place_of_a_saved_non_leaf_is_refused():
    def scenario(lib):
        a = lib.ones(2, requires_grad=True) * 1
        b = a.log()
        a.detach_()
        b.sum().backward()

    raises_in_both(scenario, RuntimeError, "detached in-place")


def test_detach_in_place_of_a_saved_leaf_proceeds():
    def scenario(lib):
        a = lib.ones(2, requires_grad=True)
        b = (a * 3).sum()
        a.detach_()
        b.backward()
        return a.requires_grad, a.is_leaf

    both(scenario, (False, True))


# -- 25. roots that do not require grad --------------------------------------------------

def test_backward_skips_roots_that_do_not_require_grad():
    x = pyad.ones(2, requires_grad=True)
    y = (x * 2).sum()
    c = pyad.ones(3)                         # not a scalar either: its None is fine
    pyad.autograd.backward([y, c], [None, None])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    g, = pyad.autograd.grad([(x * 3).sum(), c], x, [None, None])
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])


def test_backward_with_no_root_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        pyad.autograd.backward([pyad.ones(1), pyad.ones(2)], [None, None])


# -- a node that passes no gradient to one input must not stall the others -------------

def test_a_none_gradient_branch_does_not_lose_the_other_paths():
    def scenario(lib):
        class FirstOnly(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, g):
                return g, None

        x = lib.ones(2, requires_grad=True)
        FirstOnly.apply(x * 1, x * 2).sum().backward()
        return x.grad

    both(scenario, [1.0, 1.0])


def test_a_none_gradient_branch_does_not_lose_the_other_paths_in_grad():
    def scenario(lib):
        class SecondOnly(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 1

            @staticmethod
            def backward(ctx, g):
                return None, g

        x = lib.ones(2, requires_grad=True)
        y = x * 3
        out = SecondOnly.apply(y * 1, x * 2).sum() + y.sum()
        return lib.autograd.grad(out, x)[0]

    both(scenario, [5.0, 5.0])          # 2 through b = x * 2, 3 through y.sum()

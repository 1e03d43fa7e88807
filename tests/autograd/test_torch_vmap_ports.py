"""Ports of PyTorch's ``test/functorch/test_vmap.py`` that the earlier vmap ports
(``test_torch_func_ports_2.py``'s ``TestVmapAPI``: in_dims/out_dims basics, pytree
outputs and their errors) did not cover: the rest of ``TestVmapAPI`` (kwargs,
``functools.partial``, ``nn.Module``, ``chunk_size``, ``randomness=``, nested vmap with
mixed batched/unbatched inputs, in-place ops on batched and unbatched arguments, batched
``autograd.grad``), the ops of ``TestVmapOperators`` (unary/binary elementwise with
broadcasting, reductions with ``dim``, matmul family, view/shape ops, indexing,
``where``, softmax, conv2d, linear, diagonal, trace, clamp, max/min/sort/topk,
gather/scatter), vmap of ``grad`` (per-sample gradients) and ``TestVmapBatchedGradient``
(vmap over ``autograd.grad`` with a batch of cotangents, checked against
``is_grads_batched=True`` in both libraries). Edge inputs: 0-d slices, float32, NaN/inf,
ties, empty inner dims, negative in_dims/out_dims, int/float promotion.

Every expected value comes from ``torch.func.vmap`` (torch 2.13) run on the same NumPy
inputs as ``pyad.func.vmap``; each test names the torch test whose assertions it mirrors.
Sizes are small (pyad's vmap calls the function once per batch entry).

Adapted: pyad's vmap stacks the per-entry results (docs/functional.md), so torch's
``result is x`` / ``_base`` / ``data_ptr`` view checks are replaced by checks of the
values (and of the in-place update of the input). pyad runs ``autograd.grad`` once per
entry, so inside vmap it keeps a graph built outside the function for the next entry
(``test_batched_gradient_shared_graph``). An in-place op on an
unmapped (in_dim None) argument raises RuntimeError in pyad even when the written value is
unbatched (torch applies it once; pyad's loop would apply it once per entry):
``test_inplace_unbatched_self_unbatched_other_refused`` pins that documented difference.

Left out: torch internals (batching-rule fallback warnings, ``reshape_dim_into``/
``reshape_dim_outof``, ``restore_vmap``, autocast, BatchedTensor reprs, ``_base``), the
errors torch raises for what it cannot batch but pyad's per-entry loop runs correctly
(``.item()``, data-dependent control flow, ``nonzero``, ``out=`` ops, ``torch.equal``:
documented differences in docs/functional.md), CUDA, ``op_db``-driven exhaustive tests,
``torch.compile``, and the random-value equality of ``randomness='same'/'different'``
with torch (the two generators differ; the structure is compared instead).
"""
import functools

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

LIBS = (pyad, torch)
_rng = np.random.default_rng(1313)


def arr(*shape, positive=False):
    a = _rng.standard_normal(shape)
    return np.abs(a) + 0.5 if positive else a


def to_lib(L, value, requires_grad=False):
    """A NumPy array (or a pytree of them) as a pyad Variable / torch tensor."""
    if isinstance(value, np.ndarray):
        t = L.tensor(value.copy())
        return t.requires_grad_() if requires_grad else t
    if isinstance(value, (list, tuple)):
        return type(value)(to_lib(L, v, requires_grad) for v in value)
    if isinstance(value, dict):
        return {k: to_lib(L, v, requires_grad) for k, v in value.items()}
    return value


def to_np(value):
    if isinstance(value, (pyad.Tensor, torch.Tensor)):
        return ("T", str(value.dtype).replace("torch.", ""), np.array(value.detach().numpy()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [to_np(v) for v in value])
    if isinstance(value, dict):
        return ("dict", {k: to_np(v) for k, v in value.items()})
    return value


def assert_same(a, b, rtol=1.3e-6, atol=1e-5):
    """pyad result ``a`` against torch result ``b`` (pytrees of tensors)."""
    a, b = to_np(a), to_np(b)
    _compare(a, b, rtol, atol)


def _compare(a, b, rtol, atol):
    if isinstance(a, tuple) and a and a[0] == "T":
        assert isinstance(b, tuple) and b[0] == "T", (a, b)
        assert a[1] == b[1], "dtype %s vs torch %s" % (a[1], b[1])
        assert a[2].shape == b[2].shape, "shape %s vs torch %s" % (a[2].shape, b[2].shape)
        np.testing.assert_allclose(a[2], b[2], rtol=rtol, atol=atol)
    elif isinstance(a, tuple) and a and a[0] in ("tuple", "list", "dict"):
        assert a[0] == b[0] and len(a[1]) == len(b[1]), (a, b)
        items = a[1].items() if a[0] == "dict" else enumerate(a[1])
        for key, value in items:
            _compare(value, b[1][key], rtol, atol)
    else:
        assert a == b


def vmap_both(make_fn, inputs, in_dims=0, out_dims=0, rtol=1.3e-6, atol=1e-5, **kwargs):
    """vmap(make_fn(L), in_dims, out_dims)(*inputs) on pyad and torch, compared."""
    results = [L.func.vmap(make_fn(L), in_dims, out_dims, **kwargs)(*to_lib(L, inputs))
               for L in LIBS]
    assert_same(*results, rtol=rtol, atol=atol)
    return results


def raises_both(run, exc, match=None):
    for L in LIBS:
        with pytest.raises(exc, match=match):
            run(L)


# --------------------------------------------------------------------------------
# TestVmapAPI (the tests the earlier port left out)
# --------------------------------------------------------------------------------

class TestVmapAPI:
    def test_multiple_inputs(self):
        vmap_both(lambda L: L.mul, [arr(2, 3), arr(2, 3)])

    def test_multiple_outputs(self):
        vmap_both(lambda L: (lambda x: (x * x, x * x * x)), [arr(3)])

    def test_kwargs(self):
        # torch: test_kwargs / test_kwarg_specified_as_in_dim (kwargs are not mapped)
        x, scale = arr(2, 3), arr(3)
        results = [L.func.vmap(lambda a, scale=1.0: a * scale)(L.tensor(x), scale=L.tensor(scale))
                   for L in LIBS]
        assert_same(*results)

    def test_functools_partial(self):
        x, y = arr(3), arr(2, 3)
        results = [L.func.vmap(functools.partial(L.mul, L.tensor(x)))(L.tensor(y)) for L in LIBS]
        assert_same(*results)

    def test_nn_module(self):
        w = arr(3, 3)
        results = []
        for L in LIBS:
            model = L.nn.Linear(3, 3, bias=False).double()
            with L.no_grad():
                model.weight.copy_(L.tensor(w))
            results.append(L.func.vmap(model)(L.tensor(arr_nn)))
        assert_same(*results)

    def test_batch_rule_does_not_need_to_handle_no_batched_input(self):
        def make(L):
            def f(x, y):
                return x + L.dot(y, L.ones(2, dtype=L.float64))
            return L.func.vmap(L.func.vmap(f, in_dims=(0, None)), in_dims=(None, 0))
        x, y = arr(7, 5), arr(3, 2)
        results = [make(L)(L.tensor(x), L.tensor(y)) for L in LIBS]
        assert_same(*results)
        np.testing.assert_allclose(results[0].numpy(),
                                   (y @ np.ones(2)).reshape(3, 1, 1) + x, rtol=1e-12)

    def test_accepts_nested_dict_and_list_inputs(self):
        # torch: test_accepts_nested_inputs with dict/list in_dims
        inputs = [{"a": arr(2, 3), "b": [arr(3, 2), arr(3)]}]
        vmap_both(lambda L: (lambda d: d["a"] * d["b"][0].t() + d["b"][1]),
                  inputs, in_dims=({"a": 0, "b": [1, None]},))

    def test_in_dims_prefix_broadcast_to_tuple(self):
        # an in_dim given for a whole tuple applies to each of its leaves
        vmap_both(lambda L: (lambda xy, z: xy[0] * xy[1] + z),
                  [(arr(3, 2), arr(3, 2)), arr(3)], in_dims=(1, None))

    def test_negative_in_dims_and_out_dims(self):
        vmap_both(lambda L: (lambda x, y: x * y), [arr(2, 3, 4), arr(4, 3)],
                  in_dims=(-1, 0), out_dims=-2)

    def test_dict_out_dims(self):
        vmap_both(lambda L: (lambda x: {"s": x.sin(), "c": x.cos()}), [arr(2, 3)],
                  out_dims={"s": 0, "c": 1})

    def test_in_dims_wrong_structure_err_msg(self):
        raises_both(lambda L: L.func.vmap(lambda d: d["a"], in_dims=({"b": 0},))(
            {"a": L.ones(2)}), ValueError, "not compatible")
        raises_both(lambda L: L.func.vmap(lambda x, y: x + y, in_dims=(0, 0, 0))(
            L.ones(2), L.ones(2)), ValueError, "not compatible")
        raises_both(lambda L: L.func.vmap(lambda x: x, in_dims=[0])(L.ones(2)), ValueError,
                    "expected `in_dims` to be int or a")
        raises_both(lambda L: L.func.vmap(lambda x: x, in_dims=("a",))(L.ones(2)), ValueError,
                    "in_dim must be either an integer dimension or None")

    def test_mismatched_batch_sizes_nested_err_msg(self):
        raises_both(lambda L: L.func.vmap(lambda d: d["x"] + d["y"][0])(
            {"x": L.ones(2, 3), "y": [L.ones(3, 3)]}), ValueError, "same size in the mapped")
        raises_both(lambda L: L.func.vmap(L.mul, in_dims=(0, 1))(L.ones(2, 3), L.ones(2, 3)),
                    ValueError, "same size in the mapped")

    def test_out_dims_on_non_tensor_output_err_msg(self):
        raises_both(lambda L: L.func.vmap(lambda x: (x, 3), out_dims=(0, 0))(L.ones(2)),
                    ValueError, "got type <class 'int'>")
        raises_both(lambda L: L.func.vmap(lambda x: x, out_dims=(0, 1))(L.ones(2, 3)),
                    ValueError, "not compatible")

    def test_chunk_size(self):
        # torch: test_chunk_vmap / test_vmap_chunksize (the result is the same for each size)
        x, y = arr(5, 3), arr(3)
        for chunk in (None, 1, 2, 5, 7):
            vmap_both(lambda L: (lambda a, b: (a * b).sum(0)), [x, y], in_dims=(0, None),
                      chunk_size=chunk)

    def test_chunk_size_err_msg(self):
        for bad in (0, -1):
            raises_both(lambda L: L.func.vmap(lambda x: x, chunk_size=bad), ValueError,
                        "chunk_size should be None or greater than 0")

    def test_randomness_err_msg(self):
        raises_both(lambda L: L.func.vmap(lambda x: x, randomness="bad"), RuntimeError,
                    "Only allowed values for randomness are")

    def test_randomness_error_mode(self):
        # torch: test_random_ops in randomness='error' mode
        raises_both(lambda L: L.func.vmap(lambda x: x + L.rand(3, dtype=L.float64))(
            L.ones(2, 3, dtype=L.float64)), RuntimeError, "randomness")

    @pytest.mark.parametrize("randomness", ["same", "different"])
    def test_randomness_modes(self, randomness):
        # the values differ between the two generators; the batch structure must not
        for L in LIBS:
            L.manual_seed(0)
            out = L.func.vmap(lambda x: x * 0 + L.rand(4, dtype=L.float64),
                              randomness=randomness)(L.ones(3, 4, dtype=L.float64))
            rows = np.array(out.detach().numpy())
            assert rows.shape == (3, 4)
            same_rows = all(np.array_equal(rows[0], r) for r in rows[1:])
            assert same_rows == (randomness == "same"), L.__name__

    def test_randomness_unbatched_input_ok(self):
        # torch: randomness='same' with no batched tensor feeding the random op
        for L in LIBS:
            out = L.func.vmap(lambda x: L.randn(2, dtype=L.float64) + 0 * x.sum(),
                              randomness="same")(L.ones(3, 2, dtype=L.float64))
            assert tuple(out.shape) == (3, 2)

    def test_nested_mixed_in_dims(self):
        # torch: test_nested_with_different_map_dim, unbatched inputs at each level
        vmap_both(lambda L: L.func.vmap(lambda x, y, z: x * y + z, in_dims=(0, None, 0)),
                  [arr(4, 3), arr(2, 3), arr(4, 2, 3)], in_dims=(None, 0, 1))

    def test_nested_vmap_pytree_out_dims(self):
        vmap_both(lambda L: L.func.vmap(lambda x: (x.sum(), x * 2), out_dims=(0, 1)),
                  [arr(2, 3, 4)], out_dims=(1, 0))

    def test_empty_batch(self):
        vmap_both(lambda L: (lambda x: (x * 2).sum(-1)), [arr(0, 3)])

    def test_inplace_fallback_unary(self):
        # torch: test_inplace_fallback_unary (values; pyad's result is stacked, not x itself)
        x0 = np.abs(arr(2, 5)) / 4
        results = []
        for L in LIBS:
            x = L.tensor(x0.copy())
            result = L.func.vmap(L.Tensor.acos_)(x)
            np.testing.assert_allclose(x.numpy(), np.arccos(x0), rtol=1e-12)
            results.append(result)
            xn = L.tensor(x0.reshape(2, 1, 5).repeat(3, 1))
            L.func.vmap(L.func.vmap(L.Tensor.acos_))(xn)
            np.testing.assert_allclose(xn.numpy(), np.arccos(x0.reshape(2, 1, 5).repeat(3, 1)),
                                       rtol=1e-12)
        assert_same(*results)

    def test_inplace_fallback_unary_out_dims(self):
        x0 = np.abs(arr(2, 5)) / 4
        results = [L.func.vmap(L.Tensor.acos_, out_dims=(1,))(L.tensor(x0.copy())) for L in LIBS]
        assert_same(*results)

    def test_inplace_fallback_nary_same_levels(self):
        # torch: test_inplace_fallback_nary_same_levels (self and other both batched)
        x0, y = arr(7, 11, 5), arr(5, 7, 11)
        for L in LIBS:
            x = L.tensor(x0.copy())
            L.func.vmap(L.Tensor.atan2_, (2, 0))(x, L.tensor(y))
            np.testing.assert_allclose(x.numpy(), np.arctan2(x0, np.moveaxis(y, 0, 2)),
                                       rtol=1e-12)

    def test_inplace_batched_self_unbatched_other(self):
        # torch: test_inplace_fallback_nary_different_levels, "all levels of right in left"
        x0, y = arr(2, 7), arr(7)
        for L in LIBS:
            x = L.tensor(x0.copy())
            L.func.vmap(L.Tensor.mul_, in_dims=(0, None))(x, L.tensor(y))
            np.testing.assert_allclose(x.numpy(), x0 * y, rtol=1e-12)
            xn = L.tensor(np.stack([x0] * 3, 1))
            L.func.vmap(L.func.vmap(L.Tensor.mul_, in_dims=(0, None)))(xn, L.tensor(x0))
            np.testing.assert_allclose(xn.numpy(), np.stack([x0] * 3, 1) * x0[:, None],
                                       rtol=1e-12)

    @pytest.mark.parametrize("op", ["atan2_", "add_", "mul_"])
    def test_inplace_unbatched_self_batched_other_err(self, op):
        # torch: "some of the levels in right are not found in left" raises RuntimeError
        for L in LIBS:
            x = L.tensor(arr(7))
            with pytest.raises(RuntimeError):
                L.func.vmap(getattr(L.Tensor, op), in_dims=(None, 0))(x, L.tensor(arr(2, 7)))

    def test_inplace_unbatched_self_unbatched_other_refused(self):
        # deliberate difference (docs/graph-semantics.md): torch adds 1 once; pyad's
        # per-entry loop would add it once per entry, so it refuses instead
        x0 = arr(3)
        y = torch.tensor(x0.copy())
        ones = torch.ones(2, 3, dtype=torch.float64)
        torch.func.vmap(lambda a, b: b.add_(1) * a, in_dims=(0, None))(ones, y)
        np.testing.assert_allclose(y.numpy(), x0 + 1, rtol=1e-12)
        with pytest.raises(RuntimeError, match="not mapped"):
            pyad.func.vmap(lambda a, b: b.add_(1) * a, in_dims=(0, None))(
                pyad.ones(2, 3, dtype=pyad.float64), pyad.tensor(x0.copy()))

    def test_out_dims_none_with_inplace_on_batched(self):
        # torch: test_out_dims_none (x.add_ on the batched input, non-tensor result)
        x0 = arr(2, 3)
        for L in LIBS:
            x = L.tensor(x0.copy())

            def foo(t):
                t.add_(1)
                return "hello world"
            assert L.func.vmap(foo, out_dims=None)(x) == "hello world"
            np.testing.assert_allclose(x.numpy(), x0 + 1, rtol=1e-12)

    def test_batched_gradient_basic(self):
        # graph built per entry (see the module docstring)
        x0, y0 = arr(3), arr(3)
        results = []
        for L in LIBS:
            x = L.tensor(x0, requires_grad=True)
            y = L.tensor(y0)

            def vjp_mul(v):
                return L.autograd.grad([x * y], [x], grad_outputs=[v])[0]
            results.append(L.func.vmap(vjp_mul)(L.eye(3, dtype=L.float64)))
        assert_same(*results)
        np.testing.assert_allclose(results[0].numpy(), np.diag(y0), rtol=1e-12)

    def test_batched_gradient_shared_graph(self):
        # a graph built outside vmap, differentiated once per cotangent: pyad's loop runs
        # autograd.grad per entry and keeps that graph for the next one (torch runs one
        # batched backward); the rows are the vector-Jacobian products
        y, x0 = arr(3), arr(3)
        got = []
        for L in LIBS:
            x = L.tensor(x0, requires_grad=True)
            out = x * L.tensor(y)
            got.append(L.func.vmap(lambda v: L.autograd.grad([out], [x], grad_outputs=[v])[0])(
                L.eye(3, dtype=L.float64)))
        np.testing.assert_array_equal(got[0].numpy(), got[1].numpy())
        np.testing.assert_array_equal(got[0].numpy(), np.diag(y))
        # outside vmap the default is torch's again: the graph is freed after one use
        x = pyad.tensor(arr(3), requires_grad=True)
        out = (x * 2).sum()
        pyad.autograd.grad(out, x)
        with pytest.raises(RuntimeError, match="second time"):
            pyad.autograd.grad(out, x)

    def test_fallback_with_undefined_grad(self):
        # conv2d without bias: the bias gradient is undefined; vmap over the vjp works
        x0, w0, v0 = arr(2, 3, 4, 5), arr(3, 3, 1, 1), arr(3, 2, 3, 4, 5)
        results = []
        for L in LIBS:
            x = L.tensor(x0, requires_grad=True)
            w = L.tensor(w0)

            def get_vjp(v):
                result = L.nn.functional.conv2d(x, w)
                return L.autograd.grad(result, x, v)[0]
            results.append(L.func.vmap(get_vjp)(L.tensor(v0)))
        assert_same(*results)


arr_nn = arr(2, 3)


# --------------------------------------------------------------------------------
# TestVmapOperators
# --------------------------------------------------------------------------------



def _f(L):
    return L.nn.functional


# (test name, fn(L) -> function to vmap, inputs, in_dims, out_dims)
OPERATOR_CASES = [
    ("unary_exp", lambda L: L.exp, [arr(3, 4)], 0, 0),
    ("unary_log", lambda L: L.log, [arr(3, 4, positive=True)], 1, 0),
    ("unary_sqrt_nested_outdim", lambda L: L.func.vmap(L.sqrt, out_dims=1),
     [arr(2, 3, 4, positive=True)], 0, 0),
    ("unary_abs_neg_sigmoid_tanh", lambda L: (lambda x: (L.abs(-x).sigmoid() + x.tanh())),
     [arr(3, 2)], -1, -1),
    ("binary_add_broadcast", lambda L: L.add, [arr(3, 4), arr(4)], (0, None), 0),
    ("binary_mul_broadcast_batched_lower_rank", lambda L: L.mul, [arr(3, 2, 4), arr(3, 4)],
     (0, 0), 0),
    ("binary_div_in_dims", lambda L: L.div, [arr(4, 3), arr(3, 4, positive=True)], (1, 0), 0),
    ("binary_pow_scalar", lambda L: (lambda x: x ** 2 - 3 * x), [arr(3, 2)], 0, 0),
    ("binary_maximum_minimum", lambda L: (lambda a, b: L.maximum(a, b) - L.minimum(a, b)),
     [arr(3, 4), arr(4)], (0, None), 0),
    ("comparison", lambda L: (lambda a, b: a > b), [arr(3, 4), arr(4)], (0, None), 0),
    ("sum_dim", lambda L: (lambda x: x.sum(dim=-1)), [arr(2, 3, 4)], 1, 0),
    ("sum_dim_tuple_keepdim", lambda L: (lambda x: x.sum((0, 1), keepdim=True)),
     [arr(3, 2, 4)], 0, 0),
    ("mean_dim", lambda L: (lambda x: x.mean(0)), [arr(2, 3, 4)], 2, 0),
    ("var_std", lambda L: (lambda x: (x.var(0), x.std(-1, correction=0))), [arr(2, 3, 4)], 0, 0),
    ("prod_dim", lambda L: (lambda x: x.prod(1)), [arr(2, 3, 4)], 0, 0),
    ("max_dim", lambda L: (lambda x: tuple(x.max(dim=1))), [arr(2, 3, 4)], 0, 0),
    ("min_dim_keepdim", lambda L: (lambda x: tuple(x.min(dim=0, keepdim=True))),
     [arr(2, 3, 4)], 2, 0),
    ("argmax_amax", lambda L: (lambda x: (x.argmax(-1), x.amax(0))), [arr(2, 3, 4)], 0, 0),
    ("logsumexp", lambda L: (lambda x: L.logsumexp(x, 1)), [arr(2, 3, 4)], 0, 0),
    ("cumsum", lambda L: (lambda x: L.cumsum(x, 0)), [arr(2, 3, 4)], 1, 0),
    ("mm", lambda L: L.mm, [arr(2, 3, 4), arr(4, 5)], (0, None), 0),
    ("mm_both_batched", lambda L: L.mm, [arr(2, 3, 4), arr(4, 2, 5)], (0, 1), 0),
    ("mv", lambda L: L.mv, [arr(3, 4), arr(2, 4)], (None, 0), 0),
    ("dot", lambda L: L.dot, [arr(2, 4), arr(4, 2)], (0, 1), 0),
    ("bmm", lambda L: L.bmm, [arr(2, 3, 4, 5), arr(3, 5, 2)], (0, None), 0),
    ("matmul_broadcast", lambda L: L.matmul, [arr(2, 3, 4), arr(4)], (0, None), 0),
    ("matmul_vector_matrix", lambda L: L.matmul, [arr(2, 4), arr(2, 3, 4, 5)], 0, 0),
    ("outer", lambda L: L.outer, [arr(2, 3), arr(4, 2)], (0, 1), 0),
    ("view_reshape", lambda L: (lambda x: (x.view(6), x.reshape(3, 2))), [arr(2, 3, 4)], 2, 0),
    ("permute_transpose_t", lambda L: (lambda x: (x.permute(2, 0, 1), x.transpose(0, -1),
                                                  x[0].t())), [arr(2, 3, 4, 5)], 1, 0),
    ("unsqueeze_squeeze", lambda L: (lambda x: (x.unsqueeze(-1), x.unsqueeze(0).squeeze(0),
                                                x.squeeze(1))), [arr(2, 3, 1)], 0, 0),
    ("select", lambda L: (lambda x: (x.select(0, 1), x.select(-1, 0))), [arr(3, 2, 4)], 1, 0),
    ("slicing", lambda L: (lambda x: (x[1:], x[:, ::2], x[..., -1], x[None, 0])),
     [arr(2, 3, 4)], 0, 0),
    ("narrow", lambda L: (lambda x: x.narrow(1, 1, 2)), [arr(2, 3, 4)], 0, 1),
    ("expand", lambda L: (lambda x: x.expand(3, 2, 4)), [arr(2, 4)], 0, 0),
    ("cat_stack", lambda L: (lambda a, b: (L.cat([a, b], 0), L.stack([a, b], -1))),
     [arr(2, 3), arr(3, 2)], (0, 1), 0),
    ("cat_unbatched_member", lambda L: (lambda a, b: L.cat([a, b], -1)),
     [arr(2, 3), arr(4)], (0, None), 0),
    ("split_chunk_unbind", lambda L: (lambda x: (tuple(x.split(2, 0)), tuple(x.chunk(2, -1)),
                                                 tuple(x.unbind(0)))), [arr(2, 3, 4)], 0, 0),
    ("split_sizes", lambda L: (lambda x: tuple(L.split(x, [1, 3], dim=1))), [arr(2, 3, 4)], 0, 0),
    ("flatten_flip_roll", lambda L: (lambda x: (x.flatten(), x.flip(0), x.roll(1, 1))),
     [arr(2, 3, 4)], 0, 0),
    ("integer_indexing", lambda L: (lambda x, i: x[i]), [arr(2, 5), np.array([0, 3, 3])],
     (0, None), 0),
    ("batched_index", lambda L: (lambda x, i: x[i]), [arr(2, 5), np.array([[1, 0], [4, 4]])],
     (0, 0), 0),
    ("boolean_mask_where", lambda L: (lambda x: L.where(x > 0, x, L.zeros_like(x))),
     [arr(3, 4)], 0, 0),
    ("where_batched_cond", lambda L: L.where,
     [arr(3, 4) > 0, arr(4), arr(3, 4)], (0, None, 0), 0),
    ("masked_fill", lambda L: (lambda x, m: x.masked_fill(m, 0.5)),
     [arr(3, 4), arr(4) > 0], (0, None), 0),
    ("softmax_log_softmax", lambda L: (lambda x: (_f(L).softmax(x, dim=-1),
                                                  _f(L).log_softmax(x, dim=0))),
     [arr(2, 3, 4)], 1, 0),
    ("conv2d", lambda L: (lambda x, w: _f(L).conv2d(x, w, padding=1)),
     [arr(2, 1, 2, 5, 5), arr(3, 2, 3, 3)], (0, None), 0),
    ("conv2d_batched_weight", lambda L: (lambda x, w, b: _f(L).conv2d(x, w, b, stride=2)),
     [arr(1, 2, 5, 5), arr(2, 3, 2, 3, 3), arr(3, 2)], (None, 0, 1), 0),
    ("linear", lambda L: _f(L).linear, [arr(2, 4), arr(3, 2, 4), arr(3)], (0, 1, None), 0),
    ("diagonal", lambda L: (lambda x: (L.diagonal(x), x.diagonal(1, 0, 1), x.diagonal(0, -1, 0))),
     [arr(2, 3, 4)], 0, 0),
    ("trace", lambda L: L.trace, [arr(3, 3, 2)], 2, 0),
    ("clamp", lambda L: (lambda x: (x.clamp(-0.5, 0.5), L.clamp(x, min=0.0))), [arr(3, 4)], 0, 0),
    ("clamp_tensor_bounds", lambda L: (lambda x, lo: L.clamp(x, min=lo)), [arr(3, 4), arr(4, 3)],
     (0, 1), 0),
    ("sort", lambda L: (lambda x: tuple(L.sort(x, dim=-1, descending=True))), [arr(2, 3, 4)], 0, 0),
    ("topk", lambda L: (lambda x: tuple(L.topk(x, 2, dim=0))), [arr(2, 3, 4)], 2, 0),
    ("gather", lambda L: (lambda x, i: L.gather(x, 1, i)),
     [arr(2, 3, 4), np.array([[0, 3], [1, 1], [2, 0]])], (0, None), 0),
    ("scatter", lambda L: (lambda x, i, s: L.scatter(x, 0, i, s)),
     [arr(2, 3, 4), np.array([[2, 0, 1, 0]]), arr(2, 1, 4)], (0, None, 0), 0),
    ("scatter_add", lambda L: (lambda x, i, s: x.scatter_add(1, i, s)),
     [arr(2, 3, 4), np.array([[0, 2], [1, 1], [3, 0]]), arr(3, 2)], (0, None, None), 0),
    ("index_select", lambda L: (lambda x, i: L.index_select(x, 0, i)),
     [arr(3, 4), np.array([2, 0, 2])], (1, None), 0),
    ("layer_norm", lambda L: (lambda x: _f(L).layer_norm(x, (4,))), [arr(2, 3, 4)], 0, 0),
    ("one_hot_embedding", lambda L: (lambda i, w: _f(L).embedding(i, w)),
     [np.array([[0, 2], [1, 1]]), arr(3, 4)], (0, None), 0),
    ("dtype_promotion_int_float", lambda L: (lambda i, x: i * x + i),
     [np.array([[1, 2], [3, 4]]), arr(2)], (0, None), 0),
    ("zero_dim_slices", lambda L: (lambda x: x * x.exp()), [arr(4)], 0, 0),
    ("float32_softmax_matmul", lambda L: (lambda x, w: _f(L).softmax(x @ w, dim=-1)),
     [arr(2, 3, 4).astype(np.float32), arr(4, 2).astype(np.float32)], (0, None), 0),
    ("nan_inf_clamp", lambda L: (lambda x: x.clamp(-1.0, 1.0) + x.exp()),
     [np.array([[np.nan, np.inf], [-np.inf, 0.5]])], 0, 0),
    ("max_min_sort_ties", lambda L: (lambda x: (tuple(x.max(dim=0)), tuple(x.min(dim=0)),
                                                tuple(L.sort(x, stable=True)))),
     [np.array([[1., 1., 0.], [2., 2., 2.]])], 0, 0),
    ("empty_inner_dim", lambda L: (lambda x: (x.sum(0), x.mean(-1), x.reshape(-1))),
     [arr(2, 0, 3)], 0, 0),
    ("scalar_tensor_result", lambda L: (lambda x: L.tensor(2.5, dtype=L.float64) * x.sum()),
     [arr(3, 2)], 0, 0),
]


@pytest.mark.parametrize("name,make_fn,inputs,in_dims,out_dims", OPERATOR_CASES,
                         ids=[c[0] for c in OPERATOR_CASES])
def test_vmap_operator(name, make_fn, inputs, in_dims, out_dims):
    """TestVmapOperators (test_unary_pointwise, test_binary_pointwise, test_sum_dim,
    test_mm, test_bmm, test_dot, test_mv, test_matmul, test_view, test_reshape,
    test_permute, test_transpose, test_unsqueeze, test_squeeze, test_select, test_slice,
    test_narrow, test_expand, test_cat, test_stack, test_split, test_chunk, test_unbind,
    test_diagonal, test_trace, test_clamp, test_conv2d, ...): vmap's result equals
    torch's on the same inputs, with the same dtype and shape."""
    vmap_both(make_fn, inputs, in_dims, out_dims)


_GRAD_CASES = [c for c in OPERATOR_CASES
               if c[0] in ("mm", "conv2d", "linear", "softmax_log_softmax", "gather")]


@pytest.mark.parametrize("name,make_fn,inputs,in_dims,out_dims",
                         _GRAD_CASES, ids=[c[0] for c in _GRAD_CASES])
def test_vmap_operator_propagates_grad(name, make_fn, inputs, in_dims, out_dims):
    """_vmap_test's check_propagates_grad: gradients through vmap's result to the first
    input equal torch's."""
    grads = []
    for L in LIBS:
        args = to_lib(L, inputs)
        args[0] = args[0].requires_grad_()
        out = L.func.vmap(make_fn(L), in_dims, out_dims)(*args)
        first = out[0] if isinstance(out, tuple) else out
        assert first.requires_grad
        grads.append(L.autograd.grad(first.sum(), args[0])[0])
    assert_same(*grads)


# --------------------------------------------------------------------------------
# vmap of grad: per-sample gradients (TestVmapOfGrad-style, test_per_sample_grads)
# --------------------------------------------------------------------------------

def test_per_sample_grads_linear_model():
    x0, t0 = arr(4, 3), arr(4, 2)
    w0, b0 = arr(2, 3), arr(2)
    results = []
    for L in LIBS:
        model = L.nn.Linear(3, 2).double()
        params = {"weight": L.tensor(w0), "bias": L.tensor(b0)}

        def loss(p, x, t):
            out = L.func.functional_call(model, p, (x.unsqueeze(0),))
            return _f(L).mse_loss(out, t.unsqueeze(0))
        results.append(L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))(
            params, L.tensor(x0), L.tensor(t0)))
    assert_same(*results)


def test_per_sample_grads_with_aux_and_argnums():
    x0, w0 = arr(3, 4), arr(4)
    results = []
    for L in LIBS:
        def f(w, x):
            y = (w * x).tanh().sum()
            return y ** 2, y
        results.append(L.func.vmap(L.func.grad(f, argnums=(0, 1), has_aux=True),
                                   in_dims=(None, 0))(L.tensor(w0), L.tensor(x0)))
    assert_same(*results)


def test_vmap_jacrev_and_jacfwd():
    x0 = arr(3, 2)
    for transform in ("jacrev", "jacfwd", "hessian"):
        vmap_both(lambda L: getattr(L.func, transform)(lambda x: (x.sin() * x.sum()).sum()
                                                       if transform == "hessian"
                                                       else x.sin() * x.sum()), [x0])


def test_vmap_vjp_and_jvp():
    x0, v0 = arr(3, 4), arr(3, 4)
    vmap_both(lambda L: (lambda x, v: L.func.vjp(L.sin, x)[1](v)[0]), [x0, v0])
    vmap_both(lambda L: (lambda x, v: L.func.jvp(lambda a: a.exp() * a, (x,), (v,))), [x0, v0])


def test_grad_of_vmap():
    # gradients through vmap itself, second order included
    x0 = arr(3, 4)
    results = []
    for L in LIBS:
        x = L.tensor(x0, requires_grad=True)
        out = L.func.vmap(lambda r: (r.sin() * r).sum())(x)
        g, = L.autograd.grad(out.sum(), x, create_graph=True)
        gg, = L.autograd.grad(g.sum(), x)
        results.append((g, gg))
    assert_same(*results)
    f = pyad.func.vmap(lambda r: (r.sin() * r).sum())
    x = pyad.tensor(x0, requires_grad=True)
    assert pyad.autograd.gradcheck(f, (x,))
    assert pyad.autograd.gradgradcheck(f, (x,))


# --------------------------------------------------------------------------------
# TestVmapBatchedGradient: vmap over autograd.grad with a batch of cotangents
# --------------------------------------------------------------------------------

def _batched_grad_both(make_op, arrays, batch=3, extra=None):
    """torch's _batched_grad_test: outputs = op(*args); vmap over autograd.grad with a
    batch of grad_outputs, compared with torch (same inputs, same cotangents)."""
    results = []
    cotangents = None
    for L in LIBS:
        args = [L.tensor(a, requires_grad=True) for a in arrays]
        op = make_op(L)
        outputs = op(*args)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        if cotangents is None:
            cotangents = [arr(batch, *o.shape) for o in outputs]
        vs = [L.tensor(c) for c in cotangents]

        def vjp(*v):
            return L.autograd.grad(outputs, args, v, retain_graph=True)
        results.append(L.func.vmap(vjp)(*vs))
        # is_grads_batched gives the same thing in one call (in both libraries)
        batched = L.autograd.grad(outputs, args, vs, retain_graph=True, is_grads_batched=True)
        assert_same(results[-1], batched)
    assert_same(*results)


BATCHED_GRAD_CASES = [
    ("add", lambda L: L.add, [arr(2, 3), arr(3)]),
    ("sub", lambda L: L.sub, [arr(2, 3), arr(2, 3)]),
    ("mul", lambda L: L.mul, [arr(2, 3), arr(3)]),
    ("div", lambda L: L.div, [arr(2, 3), arr(2, 3, positive=True)]),
    ("binary_cross_entropy", lambda L: (lambda x, t: _f(L).binary_cross_entropy(
        x.sigmoid(), t.sigmoid(), reduction="none")), [arr(2, 3), arr(2, 3)]),
    ("log_softmax", lambda L: (lambda x: _f(L).log_softmax(x, dim=-1)), [arr(2, 3)]),
    ("logsumexp", lambda L: (lambda x: L.logsumexp(x, -1)), [arr(2, 3)]),
    ("log_log1p", lambda L: (lambda x: (L.log(x), L.log1p(x))), [arr(2, 3, positive=True)]),
    ("max_min", lambda L: (lambda x: (x.max(), x.min(dim=0)[0])), [arr(2, 3)]),
    ("mean_dim", lambda L: (lambda x: x.mean(dim=1)), [arr(2, 3)]),
    ("sigmoid_threshold", lambda L: (lambda x: (x.sigmoid(), _f(L).threshold(x, 0.1, -1.0))),
     [arr(2, 3)]),
    ("expand_permute_reshape", lambda L: (lambda x: (x.expand(2, 2, 3), x.permute(1, 0),
                                                     x.reshape(6))), [arr(2, 3)]),
    ("index_select_slice", lambda L: (lambda x: (x[:, 1], x[1:], x[[0, 0, 1]])), [arr(2, 3)]),
    ("stack_trace_where", lambda L: (lambda x, y: (L.stack([x, y]), L.trace(x), L.where(
        x > 0, x, y))), [arr(3, 3), arr(3, 3)]),
    ("diagonal_mm", lambda L: (lambda x, y: (x.diagonal(), x @ y)), [arr(3, 3), arr(3, 2)]),
]


@pytest.mark.parametrize("name,make_op,arrays", BATCHED_GRAD_CASES,
                         ids=[c[0] for c in BATCHED_GRAD_CASES])
def test_batched_gradient(name, make_op, arrays):
    """TestVmapBatchedGradient (test_add, test_sub, test_mul, test_div,
    test_binary_cross_entropy, test_log_softmax, test_logsumexp, test_log, test_log1p,
    test_max, test_min, test_mean_dim, test_sigmoid, test_threshold, test_expand,
    test_permute, test_reshape, test_index, test_slice, test_select, test_stack,
    test_trace, test_where, test_diagonal)."""
    _batched_grad_both(make_op, arrays)


def test_batched_gradient_unrelated_output():
    # torch: test_unrelated_output (zero grads for an output not depending on the input)
    results = []
    for L in LIBS:
        x = L.tensor(arr0_unrel, requires_grad=True)
        y = L.tensor(arr0_unrel2, requires_grad=True)
        gy = L.tensor(arr0_unrel3)

        def vjp(v):
            res, = L.autograd.grad(y, x, v, allow_unused=True)
            return L.zeros_like(x) if res is None else res
        results.append(L.func.vmap(vjp)(gy))
    assert_same(*results)


arr0_unrel, arr0_unrel2, arr0_unrel3 = arr(3), arr(3), arr(5, 3)


def test_batched_gradient_inplace_on_view():
    # torch: test_inplace_on_view / test_inplace_manyview, graph built per entry
    base0, v0 = arr(4, 4), arr(2, 3)
    results = []
    for L in LIBS:
        leaf = L.tensor(base0, requires_grad=True)

        def vjp(v):
            base = leaf * 2
            base[1:, 1:].diagonal().mul_(2.0)
            base[0:3, 1].cos_()
            out = base[1:3, :3]
            return L.autograd.grad(out, leaf, v)[0]
        results.append(L.func.vmap(vjp)(L.tensor(np.stack([v0, -v0, 2 * v0]))))
    assert_same(*results)

"""Ported pytorch/tutorials texts (examples/ported/, the fourteenth batch): leaf and
non-leaf tensors, Data Parallelism on the CPU, the optimizer step fused into the
backward pass (``register_post_accumulate_grad_hook``), and the CPU parts of the
scaled-dot-product-attention tutorial (``sdpa_kernel``, ``CausalSelfAttention``, the
profiler label, ``torch.nn.attention.bias``).

Each text runs on torch and on pyad from the same initial weights, with its ``rand`` and
``randn`` draws (and ``nn.Dropout`` masks) from shared NumPy streams, and every value it
computes or prints is compared with torch's; times are only checked to be positive and
the profiler's tables by the names both frameworks give.
"""
import importlib.util
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")
import torch.nn.attention.bias  # noqa: E402,F401  (not imported by torch itself)
import torch.utils.benchmark  # noqa: E402,F401

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers14_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, Proxy, seeded, PORTED = _helpers.load, _helpers.Proxy, _helpers.seeded, _helpers.PORTED

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["understanding_leaf_vs_nonleaf_tutorial", "data_parallel_tutorial",
           "optimizer_step_in_backward_tutorial", "scaled_dot_product_attention_tutorial",
           "chatbot_tutorial", "visualizing_gradients_tutorial", "profiler_recipe"]


def _quiet(*args):
    pass


def shared(lib, seed=0):
    """``seeded(lib)`` (randn, dropout masks) whose ``rand`` and ``randint`` also draw
    from a NumPy stream: the same numbers in both runs."""
    rng = np.random.default_rng(seed + 1)

    def rand(*size, dtype=None, device=None, **kw):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        return lib.tensor(rng.random(size), dtype=dtype or lib.get_default_dtype())
    def randint(*args, size=None, dtype=None, **kw):
        # torch's forms: randint(high, size) and randint(low, high, size)
        if size is None:
            *args, size = args
        low, high = (0, args[0]) if len(args) == 1 else args
        return lib.tensor(rng.integers(low, high, tuple(size)), dtype=dtype or lib.int64)
    return Proxy(seeded(lib, seed), rand=rand, randint=randint)


def _twin(name, **options):
    states, seen = [], [0]

    def record(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        state = states[seen[0]]
        seen[0] += 1
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    t_out = load(name).run(shared(torch), init=record, log=_quiet, **options)
    p_out = load(name).run(shared(pyad), init=restore, log=_quiet, **options)
    assert seen[0] == len(states)
    return t_out, p_out


def _tree(value, prefix=""):
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in _tree(v, "%s%s/" % (prefix, k))]
    if isinstance(value, (list, tuple)):
        return [kv for i, v in enumerate(value) for kv in _tree(v, "%s%d/" % (prefix, i))]
    if hasattr(value, "detach"):
        return [(prefix.rstrip("/"), (str(value.dtype).split(".")[-1],
                                      np.asarray(value.detach().float().numpy())))]
    return [(prefix.rstrip("/"), value)]


def _compare(t_out, p_out, rtol=0.0, atol=0.0, skip=()):
    t_flat = [(k, v) for k, v in _tree(t_out) if k.split("/")[0] not in skip]
    p_flat = [(k, v) for k, v in _tree(p_out) if k.split("/")[0] not in skip]
    assert [k for k, _ in p_flat] == [k for k, _ in t_flat]
    for (name, t), (_, p) in zip(t_flat, p_flat):
        if isinstance(t, tuple):
            assert isinstance(p, tuple) and p[0] == t[0], (name, p, t)
            assert p[1].shape == t[1].shape, (name, p[1].shape, t[1].shape)
            np.testing.assert_allclose(p[1], t[1], rtol=rtol, atol=atol, err_msg=name)
        elif isinstance(t, float):
            assert type(p) is float, (name, p)
            np.testing.assert_allclose(p, t, rtol=rtol, atol=atol, err_msg=name)
        else:
            assert p == t and type(p) is type(t), (name, p, t)


# -- beginner_source/understanding_leaf_vs_nonleaf_tutorial.py -------------------------------

def test_understanding_leaf_vs_nonleaf_tutorial():
    with warnings.catch_warnings(record=True) as t_warned:
        warnings.simplefilter("always")
        t_out = load("understanding_leaf_vs_nonleaf_tutorial").run(torch, log=_quiet)
    with warnings.catch_warnings(record=True) as p_warned:
        warnings.simplefilter("always")
        p_out = load("understanding_leaf_vs_nonleaf_tutorial").run(pyad, log=_quiet)
    # torch says Tensor where pyad says Variable
    p_out["retain_grad error"] = p_out["retain_grad error"].replace("Variable", "Tensor")
    _compare(t_out, p_out)
    # the hand math: loss = mean((relu(x W + b) - 1)^2) = 9 at W, b all ones
    assert t_out["W.grad"].tolist() == [[3.0, 3.0]] * 3
    assert t_out["retains_grad"] == [False, False, False, True, True, False, True]
    # z.grad of a non-leaf warns, in both (the text's "also warns us")
    for warned in (t_warned, p_warned):
        assert any(".grad attribute of a" in str(w.message) and "not a leaf" in
                   str(w.message) for w in warned)


# -- beginner_source/blitz/data_parallel_tutorial.py -------------------------------------------

@pytest.mark.parametrize("data_parallel", [False, True], ids=["text", "wrapped"])
def test_data_parallel_tutorial(data_parallel):
    # the DataLoader does not shuffle here (each framework shuffles with its own
    # generator); every batch's input and output is compared
    t_out, p_out = _twin("data_parallel_tutorial", shuffle=False,
                         data_parallel=data_parallel)
    _compare(t_out, p_out, rtol=1e-6, atol=1e-7)
    assert p_out["inside"] == p_out["outside"] == [((30, 5), (30, 2))] * 3 + [((10, 5),
                                                                               (10, 2))]
    assert p_out["wrapped"] == ("DataParallel" if data_parallel else "Model")


def test_data_parallel_tutorial_shuffles():
    # the text's shuffling loader: the same sizes, the rows a permutation of the data
    t_out, p_out = _twin("data_parallel_tutorial")
    assert p_out["outside"] == t_out["outside"] and p_out["inside"] == t_out["inside"]
    rows = lambda out: sorted(map(tuple, np.concatenate(  # noqa: E731
        [x.detach().numpy() for x in out["inputs"]]).round(6).tolist()))
    assert rows(p_out) == rows(t_out)


# -- intermediate_source/optimizer_step_in_backward_tutorial.py --------------------------------

def test_optimizer_step_in_backward_tutorial():
    t_out, p_out = _twin("optimizer_step_in_backward_tutorial")
    _compare(t_out, p_out, rtol=1e-5, atol=1e-6)
    # the hooks ran once per parameter and backward, in the engine's order (last layer
    # first), each stepping its own Adam; the gradients are gone after each backward
    assert p_out["hook_order"] == ["3.bias", "3.weight", "1.bias", "1.weight"] * 3
    assert p_out["optimizer_steps"] == [3, 3, 3, 3]
    assert p_out["grads_after_backward"] == [[None] * 4] * 3


def test_optimizer_in_backward_steps_as_one_optimizer():
    # per-parameter Adams stepped in the hooks give the weights one Adam gives (Adam's
    # update of a parameter depends on that parameter alone), on torch and on pyad
    for lib in (torch, pyad):
        lib.manual_seed(0)
        a = lib.nn.Linear(4, 3)
        b = lib.nn.Linear(4, 3)
        b.load_state_dict(a.state_dict())
        x = lib.tensor(np.random.default_rng(0).random((5, 4)), dtype=lib.float32)
        opt = lib.optim.Adam(a.parameters())
        optimizers = {p: lib.optim.Adam([p], foreach=False) for p in b.parameters()}

        def hook(p):
            optimizers[p].step()
            optimizers[p].zero_grad()
        for p in b.parameters():
            p.register_post_accumulate_grad_hook(hook)
        for _ in range(3):
            a(x).sum().backward()
            opt.step()
            opt.zero_grad()
            b(x).sum().backward()
        for pa, pb in zip(a.parameters(), b.parameters()):
            np.testing.assert_array_equal(pb.detach().numpy(), pa.detach().numpy())
            assert pb.grad is None


# -- intermediate_source/scaled_dot_product_attention_tutorial.py ------------------------------

SDPA_SIZES = dict(batch_size=2, max_sequence_len=16, num_heads=2, module_batch_size=2,
                  module_sequence_len=8, module_num_heads=2, heads_per_dim=4, n_profiled=2,
                  bias_batch_size=2, bias_num_heads=2, min_run_time=0.01)


@pytest.mark.parametrize("dtype_name", ["float16", "float32"])
def test_scaled_dot_product_attention_tutorial(dtype_name):
    t_out, p_out = _twin("scaled_dot_product_attention_tutorial", dtype_name=dtype_name,
                         **SDPA_SIZES)
    # float16 (the text's): within two units in the last place of float16
    tol = dict(rtol=2e-3, atol=1e-3) if dtype_name == "float16" else dict(rtol=1e-5,
                                                                           atol=1e-6)
    _compare(t_out, p_out, skip=("times", "profile_table", "profile_events"), **tol)
    # the timings: the same ones taken (efficient attention is CUDA's: refused on the
    # CPU by both), each positive
    assert list(p_out["times"]) == list(t_out["times"]) == ["default", "math", "flash",
                                                            "module"]
    assert all(t > 0 for t in p_out["times"].values())
    assert p_out["messages"] == ["flash ran", "EfficientAttention is not supported."]
    # the profiler: the record_function label once, and the module's own calls (aten's
    # names in torch) counted alike
    t_events = {k.replace("aten::", ""): n for k, n in t_out["profile_events"].items()}
    p_events = p_out["profile_events"]
    assert p_events[" Non-Compilied Causal Attention"] == 1 == \
        t_events[" Non-Compilied Causal Attention"]
    for name in ("linear", "t", "chunk", "narrow"):
        assert p_events[name] == t_events[name], name
    assert " Non-Compilied Causal Attention" in p_out["profile_table"]
    assert p_out["bias_type"] == "CausalBias"


def test_sdpa_output_follows_the_querys_layout():
    # CausalSelfAttention's y.transpose(1, 2).view(...) needs torch's output layout:
    # the query's dimension order on the CPU's fused path, contiguous otherwise
    rng = np.random.default_rng(0)
    x = rng.random((8, 2, 24))
    for order, build in [("blhd", lambda t: t.reshape(2, 8, 2, 4).transpose(1, 2)),
                         ("lbhd", lambda t: t.reshape(8, 2, 2, 4).permute(1, 2, 0, 3))]:
        strides = {}
        for lib in (torch, pyad):
            v = lib.tensor(x.reshape(2, 8, 24) if order == "blhd" else x,
                           dtype=lib.float32)
            q, k, w = (build(c) for c in v.chunk(3, -1))
            F = lib.nn.functional
            strides[lib.__name__] = [
                tuple(F.scaled_dot_product_attention(q, k, w).stride()),
                tuple(F.scaled_dot_product_attention(q, k, w, is_causal=True).stride()),
                tuple(F.scaled_dot_product_attention(q[0], k[0], w[0]).stride()),
                tuple(F.scaled_dot_product_attention(q.contiguous(), k, w).stride()),
                tuple(F.scaled_dot_product_attention(
                    q.transpose(2, 3).contiguous().transpose(2, 3), k, w).stride())]
        assert strides["pyad"] == strides["torch"], (order, strides)


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch's reasons for its refusals
@pytest.mark.parametrize("backends,dim,dropout", [
    ("MATH", 4, 0.0), ("MATH", 3, 0.5), ("FLASH_ATTENTION", 4, 0.0),
    ("FLASH_ATTENTION", 3, 0.0), ("FLASH_ATTENTION", 4, 0.5), ("EFFICIENT_ATTENTION", 4, 0.0),
    ("CUDNN_ATTENTION", 4, 0.0), ("OVERRIDEABLE", 3, 0.0),
    ("EFFICIENT_ATTENTION,CUDNN_ATTENTION", 4, 0.0), ("FLASH_ATTENTION,MATH", 3, 0.0)])
def test_sdpa_kernel_on_the_cpu_as_torch(backends, dim, dropout):
    outcome = {}
    for lib in (torch, pyad):
        B = lib.nn.attention.SDPBackend
        chosen = [getattr(B, name) for name in backends.split(",")]
        q = lib.ones((2, 3, 5, 4)[4 - dim:])
        try:
            with lib.nn.attention.sdpa_kernel(chosen):
                lib.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=dropout)
            outcome[lib.__name__] = "ran"
        except RuntimeError as e:
            outcome[lib.__name__] = str(e).replace("scaled_dot_product_attention(): ", "")
    assert outcome["pyad"] == outcome["torch"]


@pytest.mark.parametrize("size", [(2, 10), (4, 4), (10, 2)])
def test_causal_biases_as_torch(size):
    rng = np.random.default_rng(1)
    q_np, kv_np = rng.random((2, 2, size[0], 8)), rng.random((2, 2, size[1], 8))
    out = {}
    for lib in (torch, pyad):
        bias = lib.nn.attention.bias
        q, kv = lib.tensor(q_np), lib.tensor(kv_np, requires_grad=True)
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            ul, lr = bias.causal_upper_left(*size), bias.causal_lower_right(*size)
        F = lib.nn.functional
        o_ul = F.scaled_dot_product_attention(q, kv, kv, ul)
        o_lr = F.scaled_dot_product_attention(q, kv, kv, lr)
        o_lr.sum().backward()
        with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
            F.scaled_dot_product_attention(q, kv, kv, ul, is_causal=True)
        out[lib.__name__] = dict(
            ul=repr(ul), lr=repr(lr), str_lr=str(lr), warned=[str(w.message) for w in warned],
            isinstance=isinstance(ul, lib.Tensor), variant=int(lr.variant),
            materialized=lr._materialize().tolist(), shape=tuple(ul.shape),
            o_ul=o_ul.detach().numpy(), o_lr=o_lr.detach().numpy(), grad=kv.grad.numpy())
    t, p = out["torch"], out["pyad"]
    for key in t:
        if isinstance(t[key], np.ndarray):
            np.testing.assert_allclose(p[key], t[key], rtol=1e-12, atol=1e-14, err_msg=key)
        else:
            assert p[key] == t[key], (key, p[key], t[key])


# -- intermediate_source/visualizing_gradients_tutorial.py ------------------------------------

def test_visualizing_gradients_tutorial():
    # the text's sizes and ten epochs; x and y from the shared streams
    t_out, p_out = _twin("visualizing_gradients_tutorial")
    _compare(t_out, p_out, rtol=1e-5, atol=1e-6)
    # the backward hooks ran from the last layer to the first; Identity returns its
    # input, so its hook and Linear's are on one Variable, run in registration order
    # after the Sigmoid's
    assert p_out["names_nobn"][:4] == ["layers.3", "layers.2.2", "layers.2.0", "layers.2.1"]
    assert p_out["layer_idx_bn"] == list(range(9, -1, -1))
    # what the figure shows: without batch norm the gradients vanish towards the input
    nobn = [float(g) for g in p_out["avg_grads_nobn"]]
    bn = [float(g) for g in p_out["avg_grads_bn"]]
    assert nobn[-1] < nobn[0] / 10 and bn[-1] > nobn[-1]


# -- recipes_source/recipes/profiler_recipe.py ------------------------------------------------

# the calls both profilers name alike (torch's with aten::), with the counts of one
# forward of the small ResNet; pyad's batch_norm is not one op (it runs as mean, sub,
# mul...), and torch's in-place add_ counts BatchNorm's num_batches_tracked too
COMMON_OPS = {"conv2d": 6, "relu_": 5, "max_pool2d": 1, "adaptive_avg_pool2d": 1,
              "flatten": 1, "linear": 1, "t": 1}


def _named_alike(counts):
    return {k.replace("aten::", ""): n for k, n in counts.items()}


def _profiler_twin(tmp_path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # export_memory_timeline's
        return _twin("profiler_recipe", image_size=32, out_dir=None, **options) \
            if not options.get("cpu_sections") else _profiler_twin_dirs(tmp_path, **options)


def _profiler_twin_dirs(tmp_path, **options):
    state = {}

    def record(model):
        state.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})
    t_out = load("profiler_recipe").run(shared(torch), init=record, log=_quiet,
                                        image_size=32, out_dir=str(tmp_path / "t"),
                                        **options)
    p_out = load("profiler_recipe").run(shared(pyad), init=restore, log=_quiet,
                                        image_size=32, out_dir=str(tmp_path / "p"),
                                        **options)
    return t_out, p_out


def _check_profiles(t_out, p_out):
    t_counts, p_counts = _named_alike(t_out["counts"]), p_out["counts"]
    assert p_counts["model_inference"] == t_counts["model_inference"] == 1
    for name, n in COMMON_OPS.items():
        assert p_counts[name] == t_counts[name] == n, name
    # group_by_input_shape: the convolutions' groups, with torch's shapes to the []
    shapes = lambda out: sorted((str(s), n) for k, s, n in out["input_shapes"]  # noqa: E731
                                if k.replace("aten::", "") == "conv2d")
    assert shapes(p_out) == shapes(t_out)
    assert len(shapes(p_out)) == 5
    for out in (t_out, p_out):
        assert "model_inference" in out["table_cpu_time"]
        assert "Input Shapes" in out["table_input_shape"]


def test_profiler_recipe(tmp_path):
    # the text on a machine without CUDA or XPU: it stops after its section 4's message
    t_out, p_out = _profiler_twin(tmp_path)
    assert list(p_out) == list(t_out) == ["table_cpu_time", "counts", "table_input_shape",
                                          "input_shapes"]
    _check_profiles(t_out, p_out)


def test_profiler_recipe_cpu_sections(tmp_path):
    # sections 5 to 8 with device = 'cpu': traces, stacks, the schedule, memory
    t_out, p_out = _profiler_twin(tmp_path, cpu_sections=True)
    assert list(p_out) == list(t_out)
    _check_profiles(t_out, p_out)
    assert p_out["my_schedule"] == t_out["my_schedule"]
    assert p_out["my_schedule"][15:19] == ["WARMUP", "RECORD", "RECORD", "RECORD_AND_SAVE"]
    # on_trace_ready after steps 4 and 8 (wait 1, warm-up 1, active 2), each trace of
    # the two recorded forwards
    assert [s for s, _ in p_out["ready"]] == [s for s, _ in t_out["ready"]] == [4, 8]
    for (_, t_counts), (_, p_counts) in zip(t_out["ready"], p_out["ready"]):
        assert p_counts["conv2d"] == _named_alike(t_counts)["conv2d"] == 12
    # the files: no memory_timeline.html without matplotlib (torch prints why)
    assert p_out["files"] == t_out["files"]
    assert {"trace.json", "trace_4.json", "trace_8.json"} <= set(p_out["files"])
    import json
    for out in (t_out, p_out):
        with open(out["trace"]) as f:
            events = json.load(f)["traceEvents"]
        names = {e.get("name", "").replace("aten::", "") for e in events}
        assert {"conv2d", "linear", "max_pool2d"} <= names
    for out in (t_out, p_out):
        assert "CPU Mem" in out["table_self_memory"] and "Self CPU Mem" in out["table_memory"]
        assert out["table_stack"].strip().splitlines()[-1].startswith("Self CPU time total")


@pytest.mark.filterwarnings("ignore:`export_memory_timeline` is deprecated")
@pytest.mark.parametrize("suffix", [".json", ".json.gz", ".raw.json.gz"])
def test_export_memory_timeline_formats_as_torchs(tmp_path, suffix):
    import gzip
    import json
    shapes = {}
    for lib in (torch, pyad):
        x = lib.ones(100, 100)
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  profile_memory=True, record_shapes=True,
                                  with_stack=True) as prof:
            (x * 2).sum()
        path = str(tmp_path / (lib.__name__ + suffix))
        with pytest.warns(FutureWarning, match="export_memory_timeline` is deprecated"):
            prof.export_memory_timeline(path)
        with (gzip.open(path, "rt") if suffix.endswith(".gz") else open(path)) as f:
            data = json.load(f)
        if suffix == ".raw.json.gz":
            # (timestamp, action, numbytes, category): x * 2's 40000 bytes created
            assert any(e[1] == 2 and e[2] == 40000 for e in data), data
            shapes[lib.__name__] = sorted({len(e) for e in data})
        else:
            times, sizes = data
            assert len(times) == len(sizes) and times == sorted(times)
            # the largest total: x * 2's 40000 bytes and the sum's few (torch also
            # counts x, which existed before: pyad records what ops allocate)
            assert 40000 <= max(sum(s) for s in sizes) <= 2 * 40000 + 64
            shapes[lib.__name__] = sorted({len(s) for s in sizes})
    assert shapes["pyad"] == shapes["torch"]


# -- beginner_source/chatbot_tutorial.py -----------------------------------------------------

CHATBOT = dict(hidden_size=16, n_iteration=6, batch_size=8, print_every=2,
               learning_rate=0.001, sentences=["how are you ?", "hello there",
                                               "what is your name"])


def _chat_lines():
    lines = iter(["How are you?", "what is your name", "hello unicorn", "quit"])
    return lambda prompt: next(lines)


def _fill_v(init):
    # Attn('concat')'s v is torch.FloatTensor(hidden_size): uninitialized memory in
    # torch, so the test gives it values before recording them
    def record(model):
        if hasattr(model, "attn") and hasattr(model.attn, "v"):
            with torch.no_grad():
                model.attn.v.copy_(torch.linspace(-1, 1, model.attn.v.numel()))
        init(model)
    return record


@pytest.mark.parametrize("attn_model,n_layers,dropout,teacher_forcing_ratio", [
    ("dot", 2, 0.0, 1.0), ("general", 1, 0.1, 1.0), ("concat", 2, 0.0, 0.5),
    ("dot", 1, 0.1, 0.0)])
def test_chatbot_tutorial(tmp_path, attn_model, n_layers, dropout, teacher_forcing_ratio):
    # dropout only with one layer: the GRU's dropout between layers draws from each
    # framework's generator (the decoder's embedding_dropout comes from the shared stream)
    states, seen = [], [0]

    def record(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        state = states[seen[0]]
        seen[0] += 1
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    options = dict(CHATBOT, attn_model=attn_model, encoder_n_layers=n_layers,
                   decoder_n_layers=n_layers, dropout=dropout,
                   teacher_forcing_ratio=teacher_forcing_ratio, chat=True, save_every=3)
    t_out = load("chatbot_tutorial").run(shared(torch), init=_fill_v(record), log=_quiet,
                                         data_dir=str(tmp_path / "t"), input=_chat_lines(),
                                         **options)
    p_out = load("chatbot_tutorial").run(shared(pyad), init=restore, log=_quiet,
                                         data_dir=str(tmp_path / "p"), input=_chat_lines(),
                                         **options)
    assert seen[0] == 2
    t_ckpt, p_ckpt = t_out.pop("checkpoints"), p_out.pop("checkpoints")
    assert [os.path.relpath(c, str(tmp_path / "p")) for c in p_ckpt] == \
        [os.path.relpath(c, str(tmp_path / "t")) for c in t_ckpt] == \
        ["save/cb_model/movie-corpus/%d-%d_16/%d_checkpoint.tar" % (n_layers, n_layers, i)
         for i in (3, 6)]
    if attn_model == "general":
        # Attn('general')'s bias adds hidden . b to every score of a row: softmax takes
        # it away, so its gradient is 0 in exact arithmetic, and Adam's step there
        # follows each framework's rounding (as vision_transformer's key bias): it is
        # only checked to stay within the learning rates' sum of torch's
        bound = 2 * CHATBOT["learning_rate"] * 5.0 * CHATBOT["n_iteration"]
        key = "attn.attn.bias"
        np.testing.assert_array_less(
            np.abs(p_out["decoder"].pop(key).numpy() - t_out["decoder"].pop(key).numpy()),
            bound)
    _compare(t_out, p_out, rtol=1e-4, atol=1e-5)
    assert len(p_out["losses"]) == 6 and len(p_out["printed_losses"]) == 3
    assert p_out["bot"][2] == "Error: Encountered unknown word."
    # the last checkpoint, read back by each framework's load
    t_saved = torch.load(t_ckpt[-1], weights_only=False)
    p_saved = pyad.load(p_ckpt[-1])
    assert sorted(p_saved) == sorted(t_saved)
    assert p_saved["iteration"] == t_saved["iteration"] == 6
    assert p_saved["voc_dict"] == t_saved["voc_dict"]
    np.testing.assert_allclose(p_saved["loss"], t_saved["loss"], rtol=1e-4)
    if attn_model == "general":
        # (its Adam moments are of rounding noise's size: within atol of torch's)
        t_saved["de"].pop("attn.attn.bias"), p_saved["de"].pop("attn.attn.bias")
    _compare({k: t_saved[k] for k in ("en", "de", "embedding")},
             {k: p_saved[k] for k in ("en", "de", "embedding")}, rtol=1e-4, atol=1e-5)
    t_opt, p_opt = t_saved["de_opt"], p_saved["de_opt"]
    assert p_opt["param_groups"][0]["lr"] == t_opt["param_groups"][0]["lr"]
    assert sorted(p_opt["state"]) == sorted(t_opt["state"])
    for i in t_opt["state"]:
        _compare(t_opt["state"][i], p_opt["state"][i], rtol=1e-4, atol=1e-6)


# -- this batch's scripts ---------------------------------------------------------------------

def test_every_script_of_this_batch_is_tested():
    scripts = set(f[:-3] for f in os.listdir(PORTED) if f.endswith(".py"))
    assert set(SCRIPTS) <= scripts
    text = open(__file__).read()
    for name in SCRIPTS:
        assert 'load("%s")' % name in text or '_twin("%s"' % name in text, name


@pytest.mark.parametrize("name,expected", [
    ("understanding_leaf_vs_nonleaf_tutorial", "loss.grad=tensor(1.)"),
    ("data_parallel_tutorial", "Outside: input size (10, 5) output_size (10, 2)"),
    ("optimizer_step_in_backward_tutorial", "losses:"),
    ("scaled_dot_product_attention_tutorial", " Non-Compilied Causal Attention"),
    ("chatbot_tutorial", "Iteration: 20; Percent complete: 100.0%"),
    ("visualizing_gradients_tutorial", "Without BatchNorm layers.0.1"),
    ("profiler_recipe", "Neither CUDA nor XPU devices are available")])
def test_scripts_run_as_scripts_on_pyad(name, expected):
    env = dict(os.environ, PYTHONPATH=_helpers.PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, name + ".py")],
                          cwd=_helpers.REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert expected in proc.stdout, proc.stdout

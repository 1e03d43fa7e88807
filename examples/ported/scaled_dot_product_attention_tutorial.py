"""Port of the PyTorch tutorial "(Beta) Implementing High-Performance Transformers with
Scaled Dot Product Attention (SDPA)" (pytorch/tutorials
``intermediate_source/scaled_dot_product_attention_tutorial.py``), its CPU parts:
``F.scaled_dot_product_attention``, the ``utils.benchmark`` timing helper, the
``sdpa_kernel`` context manager with each ``SDPBackend``, the ``CausalSelfAttention``
module, the profiler with a ``record_function`` label, and the causal biases of
``torch.nn.attention.bias`` (``causal_upper_left``, ``causal_lower_right``).

Ported by changing the imports (``import pyad as torch``, ``nn = torch.nn``,
``F = torch.nn.functional``, ``benchmark = torch.utils.benchmark``, the names of
``torch.nn.attention``, ``torch.nn.attention.bias`` and ``torch.profiler``); ``print`` is
``log``. Lines that differ: the sizes are ``run``'s keywords (the text's 32 x 32 x 1024 x
32 in the first timing, 32 x 512 x 512 and 32 x 256 in the module's; smaller in the
tests), ``CausalSelfAttention``'s ``.to("cuda")`` is ``.to(device)``, the
``NestedTensor`` part (``torch.nested``) and the ``torch.compile`` parts (the compiled
module, its profile, ``compiled_sdpa``) are left out, and the profiled loop runs
``n_profiled`` times (25 in the text). ``run`` returns every value the text computes or
prints (attention outputs, times, the module's repr and output, the profiler's table
and event names, the biases and their outputs).

Run it with ``python examples/ported/scaled_dot_product_attention_tutorial.py``.
"""
def run(torch, init=None, log=print, batch_size=32, max_sequence_len=1024, num_heads=32,
        embed_dimension=32, dtype_name="float16", module_batch_size=32,
        module_sequence_len=256, module_num_heads=8, heads_per_dim=64, n_profiled=25,
        bias_batch_size=32, bias_num_heads=16, bias_embed_dimension=32,
        min_run_time=None):
    """Return a dict of every value the tutorial computes or prints."""
    nn = torch.nn
    F = torch.nn.functional
    benchmark = torch.utils.benchmark
    results = {}
    device = "cuda" if torch.cuda.is_available() else "cpu"

    # Example Usage:
    query, key, value = torch.randn(2, 3, 8, device=device), torch.randn(2, 3, 8, device=device), torch.randn(2, 3, 8, device=device)
    results["example"] = F.scaled_dot_product_attention(query, key, value)

    # Lets define a helpful benchmarking function:
    def benchmark_torch_function_in_microseconds(f, *args, **kwargs):
        t0 = benchmark.Timer(
            stmt="f(*args, **kwargs)", globals={"args": args, "kwargs": kwargs, "f": f}
        )
        if min_run_time is not None:
            return t0.blocked_autorange(min_run_time=min_run_time).mean * 1e6
        return t0.blocked_autorange().mean * 1e6

    dtype = getattr(torch, dtype_name)

    query = torch.rand(batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype)
    key = torch.rand(batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype)
    value = torch.rand(batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype)
    results["default_output"] = F.scaled_dot_product_attention(query, key, value)

    times = {}
    times["default"] = benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
    log(f"The default implementation runs in {times['default']:.3f} microseconds")

    # Lets explore the speed of each of the 3 implementations
    SDPBackend, sdpa_kernel = torch.nn.attention.SDPBackend, torch.nn.attention.sdpa_kernel
    messages = []

    with sdpa_kernel(SDPBackend.MATH):
        math_time=benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
        log(f"The math implementation runs in {math_time:.3f} microseconds")
        times["math"] = math_time
        results["math_output"] = F.scaled_dot_product_attention(query, key, value)

    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        try:
            flash_time=benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
            log(f"The flash attention implementation runs in {flash_time:.3f} microseconds")
            times["flash"] = flash_time
            messages.append("flash ran")
        except RuntimeError:
            log("FlashAttention is not supported. See warnings for reasons.")
            messages.append("FlashAttention is not supported.")

    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        try:
            efficient_time=benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
            log(f"The memory efficient implementation runs in {efficient_time:.3f} microseconds")
            times["efficient"] = efficient_time
            messages.append("efficient ran")
        except RuntimeError:
            log("EfficientAttention is not supported. See warnings for reasons.")
            messages.append("EfficientAttention is not supported.")
    results["times"] = times
    results["messages"] = messages

    class CausalSelfAttention(nn.Module):

        def __init__(self, num_heads: int, embed_dimension: int, bias: bool=False, is_causal: bool=False, dropout:float=0.0):
            super().__init__()
            assert embed_dimension % num_heads == 0
            # key, query, value projections for all heads, but in a batch
            self.c_attn = nn.Linear(embed_dimension, 3 * embed_dimension, bias=bias)
            # output projection
            self.c_proj = nn.Linear(embed_dimension, embed_dimension, bias=bias)
            # regularization
            self.dropout = dropout
            self.resid_dropout = nn.Dropout(dropout)
            self.num_heads = num_heads
            self.embed_dimension = embed_dimension
            # Perform causal masking
            self.is_causal = is_causal

        def forward(self, x):
            # calculate query, key, values for all heads in batch and move head forward to be the batch dim
            query_projected = self.c_attn(x)

            batch_size = query_projected.size(0)
            embed_dim = query_projected.size(2)
            head_dim = embed_dim // (self.num_heads * 3)

            query, key, value = query_projected.chunk(3, -1)
            query = query.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
            key = key.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
            value = value.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)

            if self.training:
                dropout = self.dropout
                is_causal = self.is_causal
            else:
                dropout = 0.0
                is_causal = False

            y = F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout, is_causal=is_causal)
            y = y.transpose(1, 2).view(batch_size, -1, self.num_heads * head_dim)

            y = self.resid_dropout(self.c_proj(y))
            return y

    num_heads = module_num_heads
    embed_dimension = num_heads * heads_per_dim
    model = CausalSelfAttention(num_heads=num_heads, embed_dimension=embed_dimension, bias=False, is_causal=True, dropout=0.1).to(device).to(dtype).eval()
    if init is not None:
        init(model)
    log(model)
    results["model"] = repr(model)

    batch_size = module_batch_size
    max_sequence_len = module_sequence_len
    x = torch.rand(batch_size, max_sequence_len,
                   embed_dimension, device=device, dtype=dtype)
    times["module"] = benchmark_torch_function_in_microseconds(model, x)
    log(
        f"The non compiled module runs in  {times['module']:.3f} microseconds")
    results["module_output"] = model(x)

    profile, record_function, ProfilerActivity = torch.profiler.profile, torch.profiler.record_function, torch.profiler.ProfilerActivity
    activities = [ProfilerActivity.CPU]
    if device == 'cuda':
        activities.append(ProfilerActivity.CUDA)

    with profile(activities=activities, record_shapes=False) as prof:
        with record_function(" Non-Compilied Causal Attention"):
            for _ in range(n_profiled):
                model(x)
    table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=10)
    log(table)
    results["profile_table"] = table
    results["profile_events"] = {e.key: e.count for e in prof.key_averages()}

    causal_lower_right, causal_upper_left = torch.nn.attention.bias.causal_lower_right, torch.nn.attention.bias.causal_upper_left

    batch_size = bias_batch_size
    sequence_length_q = 2
    sequence_length_kv = 10
    num_heads = bias_num_heads
    embed_dimension = bias_embed_dimension

    query = torch.rand(batch_size, num_heads, sequence_length_q, embed_dimension, device=device, dtype=dtype)
    key = torch.rand(batch_size, num_heads, sequence_length_kv, embed_dimension, device=device, dtype=dtype)
    value = torch.rand(batch_size, num_heads, sequence_length_kv, embed_dimension, device=device, dtype=dtype)

    upper_left_bias = causal_upper_left(sequence_length_q, sequence_length_kv)
    lower_right_bias = causal_lower_right(sequence_length_q, sequence_length_kv)

    log(type(upper_left_bias))
    log(type(lower_right_bias))
    results["bias_type"] = type(upper_left_bias).__name__

    assert type(upper_left_bias) == type(lower_right_bias)
    assert issubclass(type(upper_left_bias), torch.Tensor)

    # Lets see what these tensors look like
    log(upper_left_bias)
    log(lower_right_bias)
    results["upper_left_bias"] = repr(upper_left_bias)
    results["lower_right_bias"] = repr(lower_right_bias)

    # These objects are intended to be used with sdpa
    out_upper_left = F.scaled_dot_product_attention(query, key, value, upper_left_bias)
    out_lower_right = F.scaled_dot_product_attention(query, key, value, lower_right_bias)
    out_is_causal = F.scaled_dot_product_attention(query, key, value, is_causal=True)

    assert torch.allclose(out_upper_left, out_is_causal)
    assert not torch.allclose(out_upper_left, out_lower_right)
    results.update(out_upper_left=out_upper_left, out_lower_right=out_lower_right,
                   out_is_causal=out_is_causal)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, batch_size=2, max_sequence_len=64, num_heads=4, module_batch_size=2,
        module_sequence_len=32, n_profiled=2, bias_batch_size=2, bias_num_heads=2,
        min_run_time=0.05)

"""Port of rasbt/LLMs-from-scratch, chapter 3 (``pkg/llms_from_scratch/ch03.py``): the
attention classes ``SelfAttention_v1``, ``SelfAttention_v2``, ``CausalAttention``,
``MultiHeadAttentionWrapper``, ``MultiHeadAttention`` and the bonus
``PyTorchMultiHeadAttention`` (``F.scaled_dot_product_attention(is_causal=True)``), run
on the chapter's six-token "Your journey starts with one step" embeddings.

Copyright (c) Sebastian Raschka, under the Apache License 2.0 (see
https://github.com/rasbt/LLMs-from-scratch/blob/main/LICENSE.txt). Source for "Build a
Large Language Model From Scratch" (https://www.manning.com/books/build-a-large-language-model-from-scratch).

Ported by changing the imports (``import pyad as torch``): the module's classes are the
body of ``build(torch)``; ``run`` is the chapter's use of them (``torch.manual_seed`` and
the shapes of the book), returning every value computed (outputs, and the gradients of a
sum of each output with respect to the input and the weights) instead of printing them.

Run it with ``python examples/ported/llms_from_scratch_ch03.py``.
"""
import types


def build(torch):
    """ch03.py's classes for the namespace ``torch``."""
    nn = torch.nn

    class SelfAttention_v1(nn.Module):

        def __init__(self, d_in, d_out):
            super().__init__()
            self.W_query = nn.Parameter(torch.rand(d_in, d_out))
            self.W_key = nn.Parameter(torch.rand(d_in, d_out))
            self.W_value = nn.Parameter(torch.rand(d_in, d_out))

        def forward(self, x):
            keys = x @ self.W_key
            queries = x @ self.W_query
            values = x @ self.W_value

            attn_scores = queries @ keys.T # omega
            attn_weights = torch.softmax(
                attn_scores / keys.shape[-1]**0.5, dim=-1
            )

            context_vec = attn_weights @ values
            return context_vec

    class SelfAttention_v2(nn.Module):

        def __init__(self, d_in, d_out, qkv_bias=False):
            super().__init__()
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

        def forward(self, x):
            keys = self.W_key(x)
            queries = self.W_query(x)
            values = self.W_value(x)

            attn_scores = queries @ keys.T
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)

            context_vec = attn_weights @ values
            return context_vec

    class CausalAttention(nn.Module):

        def __init__(self, d_in, d_out, context_length,
                     dropout, qkv_bias=False):
            super().__init__()
            self.d_out = d_out
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.dropout = nn.Dropout(dropout)  # New
            self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New

        def forward(self, x):
            b, num_tokens, d_in = x.shape  # New batch dimension b
            # For inputs where `num_tokens` exceeds `context_length`, this will result in errors
            # in the mask creation further below.
            # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs
            # do not exceed `context_length` before reaching this forward method.
            keys = self.W_key(x)
            queries = self.W_query(x)
            values = self.W_value(x)

            attn_scores = queries @ keys.transpose(1, 2)  # Changed transpose
            attn_scores.masked_fill_(  # New, _ ops are in-place
                self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # `:num_tokens` to account for cases where the number of tokens in the batch is smaller than the supported context_size
            attn_weights = torch.softmax(
                attn_scores / keys.shape[-1]**0.5, dim=-1
            )
            attn_weights = self.dropout(attn_weights)  # New

            context_vec = attn_weights @ values
            return context_vec

    class MultiHeadAttentionWrapper(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
            super().__init__()
            self.heads = nn.ModuleList(
                [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                 for _ in range(num_heads)]
            )

        def forward(self, x):
            return torch.cat([head(x) for head in self.heads], dim=-1)

    class MultiHeadAttention(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
            super().__init__()
            assert d_out % num_heads == 0, "d_out must be divisible by n_heads"

            self.d_out = d_out
            self.num_heads = num_heads
            self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
            self.dropout = nn.Dropout(dropout)
            self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

        def forward(self, x):
            b, num_tokens, d_in = x.shape

            keys = self.W_key(x)  # Shape: (b, num_tokens, d_out)
            queries = self.W_query(x)
            values = self.W_value(x)

            # We implicitly split the matrix by adding a `num_heads` dimension
            # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
            keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
            values = values.view(b, num_tokens, self.num_heads, self.head_dim)
            queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

            # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
            keys = keys.transpose(1, 2)
            queries = queries.transpose(1, 2)
            values = values.transpose(1, 2)

            # Compute scaled dot-product attention (aka self-attention) with a causal mask
            attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

            # Original mask truncated to the number of tokens and converted to boolean
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

            # Use the mask to fill attention scores
            attn_scores.masked_fill_(mask_bool, -torch.inf)

            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
            attn_weights = self.dropout(attn_weights)

            # Shape: (b, num_tokens, num_heads, head_dim)
            context_vec = (attn_weights @ values).transpose(1, 2)

            # Combine heads, where self.d_out = self.num_heads * self.head_dim
            context_vec = context_vec.reshape(b, num_tokens, self.d_out)
            context_vec = self.out_proj(context_vec)  # optional projection

            return context_vec

    ######################
    # Bonus
    ######################

    class PyTorchMultiHeadAttention(nn.Module):
        def __init__(self, d_in, d_out, num_heads, dropout=0.0, qkv_bias=False):
            super().__init__()

            assert d_out % num_heads == 0, "d_out is indivisible by num_heads"

            self.num_heads = num_heads
            self.head_dim = d_out // num_heads
            self.d_out = d_out

            self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
            self.proj = nn.Linear(d_out, d_out)
            self.dropout = dropout

        def forward(self, x):
            batch_size, num_tokens, embed_dim = x.shape

            # (b, num_tokens, embed_dim) --> (b, num_tokens, 3 * embed_dim)
            qkv = self.qkv(x)

            # (b, num_tokens, 3 * embed_dim) --> (b, num_tokens, 3, num_heads, head_dim)
            qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)

            # (b, num_tokens, 3, num_heads, head_dim) --> (3, b, num_heads, num_tokens, head_dim)
            qkv = qkv.permute(2, 0, 3, 1, 4)

            # (3, b, num_heads, num_tokens, head_dim) -> 3 times (b, num_heads, num_tokens, head_dim)
            queries, keys, values = qkv

            use_dropout = 0. if not self.training else self.dropout

            context_vec = nn.functional.scaled_dot_product_attention(
                queries, keys, values, attn_mask=None, dropout_p=use_dropout, is_causal=True)

            # Combine heads, where self.d_out = self.num_heads * self.head_dim
            context_vec = context_vec.transpose(1, 2).contiguous().view(batch_size, num_tokens, self.d_out)

            context_vec = self.proj(context_vec)

            return context_vec

    return types.SimpleNamespace(**{k: v for k, v in locals().items()
                                    if isinstance(v, type)})


def run(torch, init=None, log=print, dropout=0.0):
    """The chapter's uses of the classes; ``init(module)`` is called on each new module
    (the test copies torch's initial weights into pyad's there)."""
    ch03 = build(torch)
    results = {}

    inputs = torch.tensor(
      [[0.43, 0.15, 0.89], # Your     (x^1)
       [0.55, 0.87, 0.66], # journey  (x^2)
       [0.57, 0.85, 0.64], # starts   (x^3)
       [0.22, 0.58, 0.33], # with     (x^4)
       [0.77, 0.25, 0.10], # one      (x^5)
       [0.05, 0.80, 0.55]] # step     (x^6)
    )
    d_in = inputs.shape[1]
    d_out = 2

    def use(name, module, x):
        if init is not None:
            init(module)
        x = x.detach().clone().requires_grad_(True)
        out = module(x)
        log(name, out)
        (out * torch.arange(out.numel(), dtype=out.dtype).view(out.shape).cos()).sum().backward()
        results[name] = out.detach().numpy().copy()
        results[name + ".grad"] = x.grad.numpy().copy()
        for pname, p in module.named_parameters():
            results[name + "." + pname + ".grad"] = p.grad.numpy().copy()

    torch.manual_seed(123)
    sa_v1 = ch03.SelfAttention_v1(d_in, d_out)
    use("SelfAttention_v1", sa_v1, inputs)

    torch.manual_seed(789)
    sa_v2 = ch03.SelfAttention_v2(d_in, d_out)
    use("SelfAttention_v2", sa_v2, inputs)

    batch = torch.stack((inputs, inputs), dim=0)
    context_length = batch.shape[1]

    torch.manual_seed(123)
    ca = ch03.CausalAttention(d_in, d_out, context_length, dropout)
    use("CausalAttention", ca, batch)

    torch.manual_seed(123)
    mha = ch03.MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads=2)
    use("MultiHeadAttentionWrapper", mha, batch)

    torch.manual_seed(123)
    batch_size, context_length, d_in = batch.shape
    d_out = 4
    mha = ch03.MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads=2)
    use("MultiHeadAttention", mha, batch)

    torch.manual_seed(123)
    pmha = ch03.PyTorchMultiHeadAttention(d_in, d_out, num_heads=2, dropout=0.0)
    use("PyTorchMultiHeadAttention", pmha, batch)
    # fewer tokens than the mask's context length: the mask is cut to the input's
    use("MultiHeadAttention[:4]", mha, batch[:, :4])
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of rasbt/LLMs-from-scratch, chapter 4 (``pkg/llms_from_scratch/ch04.py``): the
GPT model (``LayerNorm``, ``GELU``, ``FeedForward``, ``TransformerBlock`` on chapter 3's
``MultiHeadAttention``, ``GPTModel``), ``generate_text_simple``, and the bonus
``GPTModelFast`` (``nn.LayerNorm``, ``nn.GELU(approximate="tanh")``, chapter 3's
``PyTorchMultiHeadAttention``).

Copyright (c) Sebastian Raschka, under the Apache License 2.0 (see
https://github.com/rasbt/LLMs-from-scratch/blob/main/LICENSE.txt). Source for "Build a
Large Language Model From Scratch" (https://www.manning.com/books/build-a-large-language-model-from-scratch).

Ported by changing the imports (``import pyad as torch``): the module's classes are the
body of ``build(torch)`` (``from .ch03 import ...`` is ``build`` of
``llms_from_scratch_ch03.py``); ``run`` is the chapter's use of them on a tiny
configuration (GPT-2's 124M configuration is replaced by ``TINY_CONFIG``, and tiktoken's
GPT-2 encoding by integer token ids), returning the values the chapter prints (logits,
the parameter count, the generated ids) instead of printing them.

Run it with ``python examples/ported/llms_from_scratch_ch04.py``.
"""
import importlib.util
import os
import types

TINY_CONFIG = {
    "vocab_size": 48,       # Vocabulary size (GPT-2: 50257)
    "context_length": 16,   # Context length (GPT-2: 1024)
    "emb_dim": 32,          # Embedding dimension (GPT-2: 768)
    "n_heads": 4,           # Number of attention heads (GPT-2: 12)
    "n_layers": 2,          # Number of layers (GPT-2: 12)
    "drop_rate": 0.1,       # Dropout rate
    "qkv_bias": False       # Query-Key-Value bias
}


def _sibling(name):
    spec = importlib.util.spec_from_file_location(
        "_llms_from_scratch_" + name, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "llms_from_scratch_" + name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(torch):
    """ch04.py's classes and functions for the namespace ``torch``."""
    ch03 = _sibling("ch03").build(torch)
    MultiHeadAttention, PyTorchMultiHeadAttention = (ch03.MultiHeadAttention,
                                                     ch03.PyTorchMultiHeadAttention)
    nn = torch.nn

    class LayerNorm(nn.Module):
        def __init__(self, emb_dim):
            super().__init__()
            self.eps = 1e-5
            self.scale = nn.Parameter(torch.ones(emb_dim))
            self.shift = nn.Parameter(torch.zeros(emb_dim))

        def forward(self, x):
            mean = x.mean(dim=-1, keepdim=True)
            var = x.var(dim=-1, keepdim=True, unbiased=False)
            norm_x = (x - mean) / torch.sqrt(var + self.eps)
            return self.scale * norm_x + self.shift

    class GELU(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            return 0.5 * x * (1 + torch.tanh(
                torch.sqrt(torch.tensor(2.0 / torch.pi)) *
                (x + 0.044715 * torch.pow(x, 3))
            ))

    class FeedForward(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.layers = nn.Sequential(
                nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
                GELU(),
                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
            )

        def forward(self, x):
            return self.layers(x)

    class TransformerBlock(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.att = MultiHeadAttention(
                d_in=cfg["emb_dim"],
                d_out=cfg["emb_dim"],
                context_length=cfg["context_length"],
                num_heads=cfg["n_heads"],
                dropout=cfg["drop_rate"],
                qkv_bias=cfg["qkv_bias"])
            self.ff = FeedForward(cfg)
            self.norm1 = LayerNorm(cfg["emb_dim"])
            self.norm2 = LayerNorm(cfg["emb_dim"])
            self.drop_resid = nn.Dropout(cfg["drop_rate"])

        def forward(self, x):
            # Shortcut connection for attention block
            shortcut = x
            x = self.norm1(x)
            x = self.att(x)   # Shape [batch_size, num_tokens, emb_size]
            x = self.drop_resid(x)
            x = x + shortcut  # Add the original input back

            # Shortcut connection for feed-forward block
            shortcut = x
            x = self.norm2(x)
            x = self.ff(x)
            x = self.drop_resid(x)
            x = x + shortcut  # Add the original input back

            return x

    class GPTModel(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
            self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
            self.drop_emb = nn.Dropout(cfg["drop_rate"])

            self.trf_blocks = nn.Sequential(
                *[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])

            self.final_norm = LayerNorm(cfg["emb_dim"])
            self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

        def forward(self, in_idx):
            batch_size, seq_len = in_idx.shape
            tok_embeds = self.tok_emb(in_idx)
            pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
            x = tok_embeds + pos_embeds  # Shape [batch_size, num_tokens, emb_size]
            x = self.drop_emb(x)
            x = self.trf_blocks(x)
            x = self.final_norm(x)
            logits = self.out_head(x)
            return logits

    def generate_text_simple(model, idx, max_new_tokens, context_size):
        # idx is (B, T) array of indices in the current context
        for _ in range(max_new_tokens):

            # Crop current context if it exceeds the supported context size
            # E.g., if LLM supports only 5 tokens, and the context size is 10
            # then only the last 5 tokens are used as context
            idx_cond = idx[:, -context_size:]

            # Get the predictions
            with torch.no_grad():
                logits = model(idx_cond)

            # Focus only on the last time step
            # (batch, n_token, vocab_size) becomes (batch, vocab_size)
            logits = logits[:, -1, :]

            # Get the idx of the vocab entry with the highest logits value
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)  # (batch, 1)

            # Append sampled index to the running sequence
            idx = torch.cat((idx, idx_next), dim=1)  # (batch, n_tokens+1)

        return idx

    ######################
    # Bonus
    ######################

    class FeedForwardFast(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.layers = nn.Sequential(
                nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
                nn.GELU(approximate="tanh"),
                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
            )

        def forward(self, x):
            return self.layers(x)

    class TransformerBlockFast(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.att = PyTorchMultiHeadAttention(
                d_in=cfg["emb_dim"],
                d_out=cfg["emb_dim"],
                num_heads=cfg["n_heads"],
                dropout=cfg["drop_rate"],
                qkv_bias=cfg["qkv_bias"])
            self.ff = FeedForwardFast(cfg)
            self.norm1 = nn.LayerNorm(cfg["emb_dim"])
            self.norm2 = nn.LayerNorm(cfg["emb_dim"])
            self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

        def forward(self, x):
            # Shortcut connection for attention block
            shortcut = x
            x = self.norm1(x)
            x = self.att(x)   # Shape [batch_size, num_tokens, emb_size]
            x = self.drop_shortcut(x)
            x = x + shortcut  # Add the original input back

            # Shortcut connection for feed-forward block
            shortcut = x
            x = self.norm2(x)
            x = self.ff(x)
            x = self.drop_shortcut(x)
            x = x + shortcut  # Add the original input back

            return x

    class GPTModelFast(nn.Module):
        """
        A faster variant of GPTModel optimized for training speed.
        """
        def __init__(self, cfg):
            super().__init__()
            self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
            self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
            self.drop_emb = nn.Dropout(cfg["drop_rate"])

            self.trf_blocks = nn.Sequential(
                *[TransformerBlockFast(cfg) for _ in range(cfg["n_layers"])])

            self.final_norm = nn.LayerNorm(cfg["emb_dim"])
            self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

        def forward(self, in_idx):
            batch_size, seq_len = in_idx.shape
            tok_embeds = self.tok_emb(in_idx)
            pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
            x = tok_embeds + pos_embeds
            x = self.drop_emb(x)
            x = self.trf_blocks(x)
            x = self.final_norm(x)
            logits = self.out_head(x)
            return logits

    names = dict(ch03.__dict__)
    names.update({k: v for k, v in locals().items()
                  if isinstance(v, type) or k == "generate_text_simple"})
    return types.SimpleNamespace(**names)


def run(torch, init=None, log=print, cfg=None, model_class="GPTModel", train=False):
    """The chapter's uses: a batch of two token sequences through ``GPTModel`` (in eval
    mode, or ``train=True`` with its dropout), the parameter count, the gradient of a
    loss, and ``generate_text_simple``."""
    ch04 = build(torch)
    cfg = dict(TINY_CONFIG, **(cfg or {}))
    results = {}

    batch = torch.tensor([[6109, 3626, 6100, 345], [6109, 1110, 6622, 257]]) % cfg["vocab_size"]

    torch.manual_seed(123)
    model = getattr(ch04, model_class)(cfg)
    if init is not None:
        init(model)
    if not train:
        model.eval()
    out = model(batch)
    log("Input batch:\n", batch)
    log("\nOutput shape:", out.shape)
    log(out)
    results["logits"] = out.detach().numpy().copy()

    total_params = sum(p.numel() for p in model.parameters())
    log(f"Total number of parameters: {total_params:,}")
    results["total_params"] = total_params
    total_params_gpt2 = total_params - sum(p.numel() for p in model.out_head.parameters())
    results["total_params_gpt2"] = total_params_gpt2
    total_size_bytes = total_params * 4
    results["total_size_mb"] = total_size_bytes / (1024 * 1024)

    # the gradient of every parameter for a next-token loss (the port's check)
    loss = torch.nn.functional.cross_entropy(out[:, :-1].flatten(0, 1), batch[:, 1:].flatten())
    loss.backward()
    results["loss"] = loss.item()
    results["grads"] = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}

    start_context = [15496, 11, 314, 716]  # "Hello, I am" as GPT-2 ids
    encoded = [i % cfg["vocab_size"] for i in start_context]
    encoded_tensor = torch.tensor(encoded).unsqueeze(0)
    model.eval() # disable dropout
    out = ch04.generate_text_simple(
        model=model,
        idx=encoded_tensor,
        max_new_tokens=6,
        context_size=cfg["context_length"]
    )
    log("Output:", out)
    log("Output length:", len(out[0]))
    results["generated"] = out.tolist()
    # past the context length: generate_text_simple crops the context
    out = ch04.generate_text_simple(model=model, idx=torch.cat([batch, batch] * 3, dim=1),
                                    max_new_tokens=4, context_size=cfg["context_length"])
    results["generated_cropped"] = out.tolist()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

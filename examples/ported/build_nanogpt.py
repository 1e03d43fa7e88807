"""Port of karpathy/build-nanogpt's ``train_gpt2.py`` (the revision of the lecture's
"cosine learning rate, weight decay, gradient accumulation" stage, stored as commit
01be6b3): the GPT-2 model (``CausalSelfAttention`` through
``F.scaled_dot_product_attention(is_causal=True)`` with its ``tril`` "bias" buffer,
``MLP`` with ``GELU(approximate='tanh')``, ``Block``, weight tying of ``wte`` and
``lm_head``, ``_init_weights`` with ``NANOGPT_SCALE_INIT``), ``configure_optimizers``
(decay and no-decay groups, the ``inspect.signature(torch.optim.AdamW)`` probe for
``fused``: ``fused=False`` on the CPU), ``DataLoaderLite``, the warmup-plus-cosine
``get_lr``, gradient accumulation, ``clip_grad_norm_`` and the per-step log line.

Copyright (c) Andrej Karpathy, under the MIT License (the License section of
https://github.com/karpathy/build-nanogpt's README).

Ported by changing the imports (``import pyad as torch``). The module-level code is the
body of ``run``; its sizes are keyword arguments: the text's GPT-2 124M config
(``n_layer=12``, ``n_head=12``, ``n_embd=768``, ``block_size=1024``,
``vocab_size=50304``), ``total_batch_size=524288``, ``B=16``, ``T=1024``, 50 steps and 10
warmup steps are only sizes, so the defaults are tiny (2 layers, 4 heads, 32 wide, a
16-token block, a 64-entry padded vocabulary, ``total_batch_size=128`` with ``B=4``,
``T=16``: 2 accumulation micro-steps, 6 steps with 2 of warmup; ``max_lr=6e-4``,
``weight_decay=0.1``, ``betas=(0.9, 0.95)`` and the clip at 1.0 as written).
``input.txt`` read through ``tiktoken.get_encoding('gpt2')`` is a synthetic character
text of a few thousand characters under a character-level ``encode``; ``print`` is
``log``. ``torch.cuda.synchronize()`` is called under the later revision's
``if device_type == "cuda":`` guard (written ``device == "cuda"`` here: this revision
has no ``device_type``), since both torch and pyad raise there without a GPU. The rest
is the text's: ``model = torch.compile(model)`` and the
``torch.autocast(device_type=device, dtype=torch.bfloat16)`` context run as written;
the tests' namespace makes ``compile`` the identity on torch (inductor's CPU build
would take minutes; pyad's ``compile`` runs) and ``autocast`` a no-op context on both
(the float32 path: torch's CPU bfloat16 matmuls cannot be compared at float32
tolerances, and pyad's bfloat16 autocast fails in ``masked_fill``, a strict xfail).
This revision has no DDP and no ``use_compile`` switch: the later revision's
single-process path (``ddp = False``, ``master_process = True``) is what runs here. The dead code after the text's
``import sys; sys.exit(0)`` (sampling, which at this revision indexes the
``(logits, loss)`` tuple) is left out. ``init`` (the tests' hook to start both
frameworks from the same weights) is called on the model before ``torch.compile``.

Run it with ``python examples/ported/build_nanogpt.py``.
"""
import inspect
import math
import time
from dataclasses import dataclass

import numpy as np


def synthetic_text(n_chars=3000, seed=0):
    """A stand-in for ``input.txt``: lines of words over 20 letters with punctuation,
    drawn with NumPy."""
    rng = np.random.RandomState(seed)
    letters = np.array(list("abcdefghijklmnopqrst"))
    words = ["".join(rng.choice(letters, rng.randint(1, 7))) for _ in range(50)]
    out, size = [], 0
    while size < n_chars:
        line = " ".join(words[i] for i in rng.randint(0, len(words), rng.randint(3, 9)))
        line = line[0].upper() + line[1:] + rng.choice([".", ",", "!", "?", ":"]) + "\n"
        out.append(line)
        size += len(line)
    return "".join(out)[:n_chars]


class _CharEncoding:
    """The stand-in for ``tiktoken.get_encoding('gpt2')``: one id per character."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}

    def encode(self, s):
        return [self.stoi[c] for c in s]

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)


def build(torch, log=print):
    """train_gpt2.py's model classes for the namespace ``torch``."""
    nn = torch.nn
    F = torch.nn.functional
    print = log

    # -----------------------------------------------------------------------------

    class CausalSelfAttention(nn.Module):

        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            # key, query, value projections for all heads, but in a batch
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
            # output projection
            self.c_proj = nn.Linear(config.n_embd, config.n_embd)
            self.c_proj.NANOGPT_SCALE_INIT = 1
            # regularization
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            # not really a 'bias', more of a mask, but following the OpenAI/HF naming though
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                         .view(1, 1, config.block_size, config.block_size))

        def forward(self, x):
            B, T, C = x.size() # batch size, sequence length, embedding dimensionality (n_embd)
            # calculate query, key, values for all heads in batch and move head forward to be the batch dim
            # nh is "number of heads", hs is "head size", and C (number of channels) = nh * hs
            # e.g. in GPT-2 (124M), n_head=12, hs=64, so nh*hs=C=768 channels in the Transformer
            qkv = self.c_attn(x)
            q, k, v = qkv.split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True) # flash attention
            y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side
            # output projection
            y = self.c_proj(y)
            return y

    class MLP(nn.Module):

        def __init__(self, config):
            super().__init__()
            self.c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd)
            self.gelu    = nn.GELU(approximate='tanh')
            self.c_proj  = nn.Linear(4 * config.n_embd, config.n_embd)
            self.c_proj.NANOGPT_SCALE_INIT = 1

        def forward(self, x):
            x = self.c_fc(x)
            x = self.gelu(x)
            x = self.c_proj(x)
            return x

    class Block(nn.Module):

        def __init__(self, config):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x

    @dataclass
    class GPTConfig:
        block_size: int = 1024 # max sequence length
        vocab_size: int = 50257 # number of tokens: 50,000 BPE merges + 256 bytes tokens + 1 <|endoftext|> token
        n_layer: int = 12 # number of layers
        n_head: int = 12 # number of heads
        n_embd: int = 768 # embedding dimension

    class GPT(nn.Module):

        def __init__(self, config):
            super().__init__()
            self.config = config

            self.transformer = nn.ModuleDict(dict(
                wte = nn.Embedding(config.vocab_size, config.n_embd),
                wpe = nn.Embedding(config.block_size, config.n_embd),
                h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f = nn.LayerNorm(config.n_embd),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

            # weight sharing scheme
            self.transformer.wte.weight = self.lm_head.weight

            # init params
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                std = 0.02
                if hasattr(module, 'NANOGPT_SCALE_INIT'):
                    std *= (2 * self.config.n_layer) ** -0.5
                torch.nn.init.normal_(module.weight, mean=0.0, std=std)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            # idx is of shape (B, T)
            B, T = idx.size()
            assert T <= self.config.block_size, f"Cannot forward sequence of length {T}, block size is only {self.config.block_size}"
            # forward the token and posisition embeddings
            pos = torch.arange(0, T, dtype=torch.long, device=idx.device) # shape (T)
            pos_emb = self.transformer.wpe(pos) # position embeddings of shape (T, n_embd)
            tok_emb = self.transformer.wte(idx) # token embeddings of shape (B, T, n_embd)
            x = tok_emb + pos_emb
            # forward the blocks of the transformer
            for block in self.transformer.h:
                x = block(x)
            # forward the final layernorm and the classifier
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x) # (B, T, vocab_size)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, device):
            # start with all of the candidate parameters (that require grad)
            param_dict = {pn: p for pn, p in self.named_parameters()}
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            # create optim groups. Any parameters that is 2D will be weight decayed, otherwise no.
            # i.e. all weight tensors in matmuls + embeddings decay, all biases and layernorms don't.
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [
                {'params': decay_params, 'weight_decay': weight_decay},
                {'params': nodecay_params, 'weight_decay': 0.0}
            ]
            num_decay_params = sum(p.numel() for p in decay_params)
            num_nodecay_params = sum(p.numel() for p in nodecay_params)
            print(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
            print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
            # Create AdamW optimizer and use the fused version if it is available
            fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and 'cuda' in device
            print(f"using fused AdamW: {use_fused}")
            optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=(0.9, 0.95), eps=1e-8, fused=use_fused)
            return optimizer

    return GPTConfig, GPT


def run(torch, n_layer=2, n_head=4, n_embd=32, vocab_size=64, total_batch_size=128, B=4,
        T=16, max_lr=6e-4, warmup_steps=2, max_steps=6, n_chars=3000, init=None,
        log=print):
    """train_gpt2.py's training run at the given sizes; return every value it prints or
    computes."""
    results = {"lines": [], "losses": [], "lrs": [], "norms": []}

    def print(*args):
        line = " ".join(str(a) for a in args)
        results["lines"].append(line)
        log(line)

    GPTConfig, GPT = build(torch, log=print)

    text = synthetic_text(n_chars)
    enc = _CharEncoding(text)

    # -----------------------------------------------------------------------------

    class DataLoaderLite:
        def __init__(self, B, T):
            self.B = B
            self.T = T

            # at init load tokens from disk and store them in memory
            tokens = enc.encode(text)
            self.tokens = torch.tensor(tokens)
            print(f"loaded {len(self.tokens)} tokens")
            print(f"1 epoch = {len(self.tokens) // (B * T)} batches")

            # state
            self.current_position = 0

        def next_batch(self):
            B, T = self.B, self.T
            buf = self.tokens[self.current_position : self.current_position+B*T+1]
            x = (buf[:-1]).view(B, T) # inputs
            y = (buf[1:]).view(B, T) # targets
            # advance the position in the tensor
            self.current_position += B * T
            # if loading the next batch would be out of bounds, reset
            if self.current_position + (B * T + 1) > len(self.tokens):
                self.current_position = 0
            return x, y

    # -----------------------------------------------------------------------------
    # attempt to autodetect the device

    device = "cpu"
    if torch.cuda.is_available():
        device = "cuda"
    elif hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        device = "mps"
    print(f"using device: {device}")

    torch.manual_seed(1337)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(1337)

    assert total_batch_size % (B * T) == 0, "make sure total_batch_size is divisible by B * T"
    grad_accum_steps = total_batch_size // (B * T)
    print(f"total desired batch size: {total_batch_size}")
    print(f"=> calculated gradient accumulation steps: {grad_accum_steps}")

    train_loader = DataLoaderLite(B=B, T=T)

    torch.set_float32_matmul_precision('high')

    # get logits
    model = GPT(GPTConfig(block_size=T, vocab_size=vocab_size, n_layer=n_layer,
                          n_head=n_head, n_embd=n_embd))
    model.to(device)
    if init is not None:
        init(model)
    raw_model = model
    model = torch.compile(model)

    min_lr = max_lr * 0.1
    def get_lr(it):
        # 1) linear warmup for warmup_iters steps
        if it < warmup_steps:
            return max_lr * (it+1) / warmup_steps
        # 2) if it > lr_decay_iters, return min learning rate
        if it > max_steps:
            return min_lr
        # 3) in between, use cosine decay down to min learning rate
        decay_ratio = (it - warmup_steps) / (max_steps - warmup_steps)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio)) # coeff starts at 1 and goes to 0
        return min_lr + coeff * (max_lr - min_lr)

    # optimize!
    optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=6e-4, device=device)
    results["groups"] = [(len(g['params']), g['weight_decay']) for g in optimizer.param_groups]
    results["fused"] = optimizer.param_groups[0].get('fused', optimizer.defaults.get('fused'))

    for step in range(max_steps):
        t0 = time.time()
        optimizer.zero_grad()
        loss_accum = 0.0
        for micro_step in range(grad_accum_steps):
            x, y = train_loader.next_batch()
            x, y = x.to(device), y.to(device)
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                logits, loss = model(x, y)
            # we have to scale the loss to account for gradient accumulation,
            # because the gradients just add on each successive backward().
            # addition of gradients corresponds to a SUM in the objective, but
            # instead of a SUM we want MEAN. Scale the loss here so it comes out right
            loss = loss / grad_accum_steps
            loss_accum += loss.detach()
            loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        # determine and set the learning rate for this iteration
        lr = get_lr(step)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        optimizer.step()
        if device == "cuda": # the later revision's guard: torch.cuda.synchronize() raises without a GPU
            torch.cuda.synchronize() # wait for the GPU to finish work
        t1 = time.time()
        dt = t1 - t0 # time difference in seconds
        tokens_processed = train_loader.B * train_loader.T * grad_accum_steps
        tokens_per_sec = tokens_processed / dt
        print(f"step {step:4d} | loss: {loss_accum.item():.6f} | lr {lr:.4e} | norm: {norm:.4f} | dt: {dt*1000:.2f}ms | tok/sec: {tokens_per_sec:.2f}")
        results["losses"].append(loss_accum.item())
        results["lrs"].append(lr)
        results["norms"].append(float(norm))

    results["position"] = train_loader.current_position
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of karpathy/llama2.c ``model.py``: the Llama 2 ``Transformer`` (``RMSNorm``,
``precompute_freqs_cis`` and ``apply_rotary_emb`` through ``reshape``/``unbind``, and
the earlier revision's ``torch.polar``/``view_as_complex``/``view_as_real`` ones,
``repeat_kv`` for grouped multi-query attention, ``Attention`` through
``F.scaled_dot_product_attention(is_causal=True)`` or, where the namespace lacks it,
the manual path with its ``torch.full``/``torch.triu`` ``-inf`` mask buffer, the SwiGLU
``FeedForward``, weight tying, non-persistent RoPE buffers, ``_init_weights``,
``configure_optimizers``, ``estimate_mfu``, the ``@torch.inference_mode()`` ``generate``
with temperature 0 (``topk``) or sampling with top-k), trained by the inner loop of
``train.py`` (``raw_model.last_loss``, gradient accumulation, ``clip_grad_norm_``, the
cosine ``get_lr`` with warmup).

Copyright (c) Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/llama2.c/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). ``model.py``'s classes are
built by ``build``; ``train.py``'s pretokenized TinyStories batches are replaced by
random token sequences drawn with ``torch.randint`` (a copying task: the second half of
each sequence repeats the first), and its DDP, ``torch.compile``, wandb, checkpoint and
evaluation parts are left out; ``print`` is ``log``; the ``export`` functions (binary
checkpoints for ``run.c``) are not ported.

Run it with ``python examples/ported/llama2c.py``.
"""
import inspect
import math
import types
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Optional, Tuple


def build(torch, log=print):
    """model.py's classes for the namespace ``torch``."""
    F = torch.nn.functional
    nn = torch.nn

    @dataclass
    class ModelArgs:
        # default hyperparameters for the Llama 7B model
        dim: int = 4096
        n_layers: int = 32
        n_heads: int = 32
        n_kv_heads: Optional[int] = None
        vocab_size: int = 32000
        hidden_dim: Optional[int] = None
        multiple_of: int = 256  # MLP hidden layer size will be multiple of
        norm_eps: float = 1e-5
        max_seq_len: int = 2048
        dropout: float = 0.0

    class RMSNorm(torch.nn.Module):
        def __init__(self, dim: int, eps: float):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.ones(dim))

        def _norm(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

        def forward(self, x):
            output = self._norm(x.float()).type_as(x)
            return output * self.weight

    def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        t = torch.arange(end, device=freqs.device)  # type: ignore
        freqs = torch.outer(t, freqs).float()  # type: ignore
        freqs_cos = torch.cos(freqs)  # real part
        freqs_sin = torch.sin(freqs)  # imaginary part
        return freqs_cos, freqs_sin

    def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor):
        ndim = x.ndim
        assert 0 <= 1 < ndim
        assert freqs_cis.shape == (x.shape[1], x.shape[-1])
        shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
        return freqs_cis.view(shape)

    def apply_rotary_emb(
        xq: torch.Tensor,
        xk: torch.Tensor,
        freqs_cos: torch.Tensor,
        freqs_sin: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:

        # reshape xq and xk to match the complex representation
        xq_r, xq_i = xq.float().reshape(xq.shape[:-1] + (-1, 2)).unbind(-1)
        xk_r, xk_i = xk.float().reshape(xk.shape[:-1] + (-1, 2)).unbind(-1)

        # reshape freqs_cos and freqs_sin for broadcasting
        freqs_cos = reshape_for_broadcast(freqs_cos, xq_r)
        freqs_sin = reshape_for_broadcast(freqs_sin, xq_r)

        # apply rotation using real numbers
        xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin
        xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos
        xk_out_r = xk_r * freqs_cos - xk_i * freqs_sin
        xk_out_i = xk_r * freqs_sin + xk_i * freqs_cos

        # flatten last two dimensions
        xq_out = torch.stack([xq_out_r, xq_out_i], dim=-1).flatten(3)
        xk_out = torch.stack([xk_out_r, xk_out_i], dim=-1).flatten(3)

        return xq_out.type_as(xq), xk_out.type_as(xk)

    # the earlier revision's RoPE (before the reshape/unbind rewrite for exporting):
    # complex64 frequencies from torch.polar and torch.view_as_complex/view_as_real
    def precompute_freqs_cis_complex(dim: int, end: int, theta: float = 10000.0):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        t = torch.arange(end, device=freqs.device)  # type: ignore
        freqs = torch.outer(t, freqs).float()  # type: ignore
        freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
        return freqs_cis

    def apply_rotary_emb_complex(
        xq: torch.Tensor,
        xk: torch.Tensor,
        freqs_cis: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)

    def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
        """torch.repeat_interleave(x, dim=2, repeats=n_rep)"""
        bs, slen, n_kv_heads, head_dim = x.shape
        if n_rep == 1:
            return x
        return (
            x[:, :, :, None, :]
            .expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
        )

    class Attention(nn.Module):
        def __init__(self, args: ModelArgs):
            super().__init__()
            self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
            assert args.n_heads % self.n_kv_heads == 0
            model_parallel_size = 1
            self.n_local_heads = args.n_heads // model_parallel_size
            self.n_local_kv_heads = self.n_kv_heads // model_parallel_size
            self.n_rep = self.n_local_heads // self.n_local_kv_heads
            self.head_dim = args.dim // args.n_heads
            self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
            self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
            self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
            self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
            self.attn_dropout = nn.Dropout(args.dropout)
            self.resid_dropout = nn.Dropout(args.dropout)
            self.dropout = args.dropout

            # use flash attention or a manual implementation?
            self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')
            if not self.flash:
                log("WARNING: using slow attention. Flash Attention requires PyTorch >= 2.0")
                mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
                mask = torch.triu(mask, diagonal=1)
                self.register_buffer("mask", mask)

        def forward(
            self,
            x: torch.Tensor,
            freqs_cos: torch.Tensor,
            freqs_sin: torch.Tensor,
        ):
            bsz, seqlen, _ = x.shape

            # QKV
            xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
            xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
            xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
            xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)

            # RoPE relative positional embeddings
            xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin)

            # grouped multiquery attention: expand out keys and values
            xk = repeat_kv(xk, self.n_rep)  # (bs, seqlen, n_local_heads, head_dim)
            xv = repeat_kv(xv, self.n_rep)  # (bs, seqlen, n_local_heads, head_dim)

            # make heads into a batch dimension
            xq = xq.transpose(1, 2)  # (bs, n_local_heads, seqlen, head_dim)
            xk = xk.transpose(1, 2)
            xv = xv.transpose(1, 2)

            # flash implementation
            if self.flash:
                output = torch.nn.functional.scaled_dot_product_attention(xq, xk, xv, attn_mask=None, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
            else:
                # manual implementation
                scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
                assert hasattr(self, 'mask')
                scores = scores + self.mask[:, :, :seqlen, :seqlen]   # (bs, n_local_heads, seqlen, cache_len + seqlen)
                scores = F.softmax(scores.float(), dim=-1).type_as(xq)
                scores = self.attn_dropout(scores)
                output = torch.matmul(scores, xv)  # (bs, n_local_heads, seqlen, head_dim)

            # restore time as batch dimension and concat heads
            output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)

            # final projection into the residual stream
            output = self.wo(output)
            output = self.resid_dropout(output)
            return output

    class FeedForward(nn.Module):
        def __init__(self, dim: int, hidden_dim: int, multiple_of: int, dropout: float):
            super().__init__()
            if hidden_dim is None:
                hidden_dim = 4 * dim
                hidden_dim = int(2 * hidden_dim / 3)
                hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
            self.w1 = nn.Linear(dim, hidden_dim, bias=False)
            self.w2 = nn.Linear(hidden_dim, dim, bias=False)
            self.w3 = nn.Linear(dim, hidden_dim, bias=False)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout(self.w2(F.silu(self.w1(x)) * self.w3(x)))

    class TransformerBlock(nn.Module):
        def __init__(self, layer_id: int, args: ModelArgs):
            super().__init__()
            self.n_heads = args.n_heads
            self.dim = args.dim
            self.head_dim = args.dim // args.n_heads
            self.attention = Attention(args)
            self.feed_forward = FeedForward(
                dim=args.dim,
                hidden_dim=args.hidden_dim,
                multiple_of=args.multiple_of,
                dropout=args.dropout,
            )
            self.layer_id = layer_id
            self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
            self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

        def forward(self, x, freqs_cos, freqs_sin):
            h = x + self.attention.forward(self.attention_norm(x), freqs_cos, freqs_sin)
            out = h + self.feed_forward.forward(self.ffn_norm(h))
            return out

    class Transformer(nn.Module):
        last_loss: Optional[torch.Tensor]

        def __init__(self, params: ModelArgs):
            super().__init__()
            self.params = params
            self.vocab_size = params.vocab_size
            self.n_layers = params.n_layers

            self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
            self.dropout = nn.Dropout(params.dropout)
            self.layers = torch.nn.ModuleList()
            for layer_id in range(params.n_layers):
                self.layers.append(TransformerBlock(layer_id, params))
            self.norm = RMSNorm(params.dim, eps=params.norm_eps)
            self.output = nn.Linear(params.dim, params.vocab_size, bias=False)

            # share the unembedding parameters with the embedding parameters
            self.tok_embeddings.weight = self.output.weight # https://paperswithcode.com/method/weight-tying

            # some useful precompute for the RoPE relative positional embeddings
            freqs_cos, freqs_sin = precompute_freqs_cis(self.params.dim // self.params.n_heads, self.params.max_seq_len)
            self.register_buffer("freqs_cos", freqs_cos, persistent=False)
            self.register_buffer("freqs_sin", freqs_sin, persistent=False)

            # init all weights
            self.apply(self._init_weights)
            # apply special scaled init to the residual projections, per GPT-2 paper
            for pn, p in self.named_parameters():
                if pn.endswith('w3.weight') or pn.endswith('wo.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * params.n_layers))

            # Initialize attribute for the loss of the last forward call. This will be set if the forward is called with a targets tensor.
            self.last_loss = None

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, tokens: torch.Tensor, targets: Optional[torch.Tensor] = None) -> torch.Tensor:
            _bsz, seqlen = tokens.shape
            h = self.tok_embeddings(tokens)
            h = self.dropout(h)
            freqs_cos = self.freqs_cos[:seqlen]
            freqs_sin = self.freqs_sin[:seqlen]

            for layer in self.layers:
                h = layer(h, freqs_cos, freqs_sin)
            h = self.norm(h)

            if targets is not None:
                # if we are given some desired targets also calculate the loss
                logits = self.output(h)
                self.last_loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            else:
                # inference-time mini-optimization: only forward the output on the very last position
                logits = self.output(h[:, [-1], :]) # note: using list [-1] to preserve the time dim
                self.last_loss = None

            return logits

        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            # start with all of the candidate parameters
            param_dict = {pn: p for pn, p in self.named_parameters()}
            # filter out those that do not require grad
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
            log(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
            log(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
            # Create AdamW optimizer and use the fused version if it is available
            fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and device_type == 'cuda'
            extra_args = dict(fused=True) if use_fused else dict()
            optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
            log(f"using fused AdamW: {use_fused}")

            return optimizer

        def estimate_mfu(self, fwdbwd_per_iter, dt):
            """ estimate model flops utilization (MFU) in units of A100 bfloat16 peak FLOPS """
            # first estimate the number of flops we do per iteration.
            # see PaLM paper Appendix B as ref: https://arxiv.org/abs/2204.02311
            N = sum(p.numel() for p in self.parameters())
            cfg = self.params
            L, H, Q, T = cfg.n_layers, cfg.n_heads, cfg.dim//cfg.n_heads, cfg.max_seq_len
            flops_per_token = 6*N + 12*L*H*Q*T
            flops_per_fwdbwd = flops_per_token * T
            flops_per_iter = flops_per_fwdbwd * fwdbwd_per_iter
            # express our flops throughput as ratio of A100 bfloat16 peak flops
            flops_achieved = flops_per_iter * (1.0/dt) # per second
            flops_promised = 312e12 # A100 GPU bfloat16 peak flops is 312 TFLOPS
            mfu = flops_achieved / flops_promised
            return mfu

        @torch.inference_mode()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            """
            Take a conditioning sequence of indices idx (LongTensor of shape (b,t)) and complete
            the sequence max_new_tokens times, feeding the predictions back into the model each time.
            Most likely you'll want to make sure to be in model.eval() mode of operation for this.
            Also note this is a super inefficient version of sampling with no key/value cache.
            """
            for _ in range(max_new_tokens):
                # if the sequence context is growing too long we must crop it at block_size
                idx_cond = idx if idx.size(1) <= self.params.max_seq_len else idx[:, -self.params.max_seq_len:]
                # forward the model to get the logits for the index in the sequence
                logits = self(idx_cond)
                logits = logits[:, -1, :] # crop to just the final time step
                if temperature == 0.0:
                    # "sample" the single most likely index
                    _, idx_next = torch.topk(logits, k=1, dim=-1)
                else:
                    # pluck the logits at the final step and scale by desired temperature
                    logits = logits / temperature
                    # optionally crop the logits to only the top k options
                    if top_k is not None:
                        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                        logits[logits < v[:, [-1]]] = -float('Inf')
                    probs = F.softmax(logits, dim=-1)
                    idx_next = torch.multinomial(probs, num_samples=1)
                # append sampled index to the running sequence and continue
                idx = torch.cat((idx, idx_next), dim=1)

            return idx

    return types.SimpleNamespace(
        ModelArgs=ModelArgs, Transformer=Transformer, RMSNorm=RMSNorm,
        precompute_freqs_cis=precompute_freqs_cis, apply_rotary_emb=apply_rotary_emb,
        precompute_freqs_cis_complex=precompute_freqs_cis_complex,
        apply_rotary_emb_complex=apply_rotary_emb_complex, repeat_kv=repeat_kv)


def run(torch, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=30, multiple_of=32,
        max_seq_len=16, dropout=0.0, batch_size=4, gradient_accumulation_steps=2,
        learning_rate=1e-3, max_iters=6, weight_decay=1e-1, beta1=0.9, beta2=0.95,
        grad_clip=1.0, decay_lr=True, warmup_iters=2, lr_decay_iters=5, min_lr=1e-4,
        device='cpu', dtype='float32', seed=1337, max_new_tokens=10, temperature=1.0,
        top_k=5, init=None, log=print):
    """train.py's inner loop for ``max_iters`` on a copying task, then ``generate``
    greedily (temperature 0) and by sampling; return what the scripts compute."""
    m = build(torch, log=log)
    ModelArgs, Transformer = m.ModelArgs, m.Transformer
    results = {"losses": [], "lrs": [], "norms": []}

    torch.manual_seed(seed)
    torch.backends.cuda.matmul.allow_tf32 = True  # allow tf32 on matmul
    torch.backends.cudnn.allow_tf32 = True  # allow tf32 on cudnn
    device_type = "cuda" if "cuda" in device else "cpu"  # for later use in torch.autocast
    # note: float16 data type will automatically use a GradScaler
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    ctx = (
        nullcontext()
        if device_type == "cpu"
        else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
    )

    def iter_batches():
        # the port's stand-in for Task.iter_batches: the second half of each sequence
        # repeats the first
        while True:
            half = torch.randint(1, vocab_size, (batch_size, max_seq_len // 2 + 1))
            seq = torch.cat([half, half], dim=1)
            x = seq[:, :max_seq_len]
            y = seq[:, 1:max_seq_len + 1].clone()
            y[:, :max_seq_len // 2 - 1] = -1  # only the copy can be predicted
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            yield x, y

    # model init
    model_args = dict(
        dim=dim,
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        vocab_size=vocab_size,
        multiple_of=multiple_of,
        max_seq_len=max_seq_len,
        dropout=dropout,
    )  # start with model_args from command line
    gptconf = ModelArgs(**model_args)
    model = Transformer(gptconf)
    model.to(device)
    if init is not None:
        init(model)
    results["state_keys"] = list(model.state_dict())
    results["n_params"] = sum(p.numel() for p in model.parameters())
    results["hidden_dim"] = model.layers[0].feed_forward.w1.weight.shape[0]

    # initialize a GradScaler. If enabled=False scaler is a no-op
    scaler = torch.cuda.amp.GradScaler(enabled=(dtype == "float16"))

    # optimizer
    optimizer = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
    results["groups"] = [(len(g['params']), g['weight_decay']) for g in optimizer.param_groups]

    # learning rate decay scheduler (cosine with warmup)
    def get_lr(it):
        # 1) linear warmup for warmup_iters steps
        if it < warmup_iters:
            return learning_rate * it / warmup_iters
        # 2) if it > lr_decay_iters, return min learning rate
        if it > lr_decay_iters:
            return min_lr
        # 3) in between, use cosine decay down to min learning rate
        decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))  # coeff ranges 0..1
        return min_lr + coeff * (learning_rate - min_lr)

    # training loop
    train_batch_iter = iter_batches()
    X, Y = next(train_batch_iter)  # fetch the very first batch
    raw_model = model
    iter_num = 0
    while True:
        # determine and set the learning rate for this iteration
        lr = get_lr(iter_num) if decay_lr else learning_rate
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        results["lrs"].append(lr)

        # forward backward update, with optional gradient accumulation to simulate larger batch size
        # and using the GradScaler if data type is float16
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits = model(X, Y)
                loss = raw_model.last_loss
                loss = loss / gradient_accumulation_steps
            # immediately async prefetch next batch while model is doing the forward pass on the GPU
            X, Y = next(train_batch_iter)
            # backward pass, with gradient scaling if training in fp16
            scaler.scale(loss).backward()
        # clip the gradient
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            results["norms"].append(
                float(torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)))
        # step the optimizer and scaler if training in fp16
        scaler.step(optimizer)
        scaler.update()
        # flush the gradients as soon as we can, no need for this memory anymore
        optimizer.zero_grad(set_to_none=True)

        lossf = loss.item() * gradient_accumulation_steps
        results["losses"].append(lossf)
        log(f"{iter_num} | loss {lossf:.4f} | lr {lr:e}")
        iter_num += 1

        # termination conditions
        if iter_num > max_iters:
            break
    results["mfu_1s"] = raw_model.estimate_mfu(batch_size * gradient_accumulation_steps, 1.0)

    # sample.py: greedy and sampled continuations of the first batch's prompts
    model.eval()
    prompt = X[:, :max_seq_len // 2 + 1]
    with torch.no_grad():
        with ctx:
            greedy = model.generate(prompt, max_new_tokens, temperature=0.0)
            sampled = model.generate(prompt, max_new_tokens, temperature=temperature, top_k=top_k)
        # the port's check: the last-position logits after the greedy continuation
        results["logits"] = model(greedy[:, -max_seq_len:]).numpy().copy()
    results["greedy"] = greedy.tolist()
    results["sampled"] = sampled.tolist()
    return results


if __name__ == "__main__":
    import pyad as torch
    out = run(torch)
    print("greedy:", out["greedy"][0])

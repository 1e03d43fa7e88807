"""Port of karpathy/nanoGPT: ``model.py`` (the GPT: ``LayerNorm`` with an optional bias,
``CausalSelfAttention`` through ``F.scaled_dot_product_attention`` or, where the
namespace lacks it, the manual masked softmax with its ``tril`` buffer, the ``MLP``,
``Block``, weight tying, ``_init_weights`` through ``apply`` and the scaled ``c_proj``
init, ``get_num_params``, ``crop_block_size``, ``configure_optimizers`` with its
decay/no-decay groups and its ``inspect.signature(torch.optim.AdamW)`` probe,
``estimate_mfu``, ``generate`` with temperature and top-k), the training loop of
``train.py`` (``get_batch``, ``estimate_loss``, the cosine ``get_lr`` with warmup,
gradient accumulation, ``GradScaler``, ``clip_grad_norm_``, the ``nullcontext``/
``autocast`` context, the TF32 switches) and ``sample.py``'s generation.

Copyright (c) Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nanoGPT/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The model file's and the
scripts' module-level code is the body of ``build`` and ``run`` (their configuration
variables are ``run``'s keyword arguments); Shakespeare is replaced by a synthetic
character text drawn with NumPy (``prepare.py``'s character encoding kept), held in
NumPy arrays instead of ``np.memmap`` files; ``print`` is ``log``; DDP, ``torch.compile``,
``from_pretrained`` (Hugging Face weights), wandb and checkpoint files are left out.

Run it with ``python examples/ported/nanogpt.py``.
"""
import inspect
import math
import time
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np


def build(torch, log=print):
    """model.py's classes for the namespace ``torch``."""
    nn = torch.nn
    F = torch.nn.functional

    class LayerNorm(nn.Module):
        """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):

        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            # key, query, value projections for all heads, but in a batch
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            # output projection
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            # regularization
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            self.dropout = config.dropout
            # flash attention make GPU go brrrrr but support is only in PyTorch >= 2.0
            self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')
            if not self.flash:
                log("WARNING: using slow attention. Flash Attention requires PyTorch >= 2.0")
                # causal mask to ensure that attention is only applied to the left in the input sequence
                self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                            .view(1, 1, config.block_size, config.block_size))

        def forward(self, x):
            B, T, C = x.size() # batch size, sequence length, embedding dimensionality (n_embd)

            # calculate query, key, values for all heads in batch and move head forward to be the batch dim
            q, k, v  = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)

            # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
            if self.flash:
                # efficient attention using Flash Attention CUDA kernels
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
            else:
                # manual implementation of attention
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
                att = F.softmax(att, dim=-1)
                att = self.attn_dropout(att)
                y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
            y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side

            # output projection
            y = self.resid_dropout(self.c_proj(y))
            return y

    class MLP(nn.Module):

        def __init__(self, config):
            super().__init__()
            self.c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu    = nn.GELU()
            self.c_proj  = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            x = self.c_fc(x)
            x = self.gelu(x)
            x = self.c_proj(x)
            x = self.dropout(x)
            return x

    class Block(nn.Module):

        def __init__(self, config):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x

    @dataclass
    class GPTConfig:
        block_size: int = 1024
        vocab_size: int = 50304 # GPT-2 vocab_size of 50257, padded up to nearest multiple of 64 for efficiency
        n_layer: int = 12
        n_head: int = 12
        n_embd: int = 768
        dropout: float = 0.0
        bias: bool = True # True: bias in Linears and LayerNorms, like GPT-2. False: a bit better and faster

    class GPT(nn.Module):

        def __init__(self, config):
            super().__init__()
            assert config.vocab_size is not None
            assert config.block_size is not None
            self.config = config

            self.transformer = nn.ModuleDict(dict(
                wte = nn.Embedding(config.vocab_size, config.n_embd),
                wpe = nn.Embedding(config.block_size, config.n_embd),
                drop = nn.Dropout(config.dropout),
                h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f = LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            # with weight tying when using torch.compile() some warnings get generated:
            # "UserWarning: functional_call was passed multiple values for tied weights.
            # This behavior is deprecated and will be an error in future versions"
            # not 100% sure what this is, so far seems to be harmless. TODO investigate
            self.transformer.wte.weight = self.lm_head.weight # https://paperswithcode.com/method/weight-tying

            # init all weights
            self.apply(self._init_weights)
            # apply special scaled init to the residual projections, per GPT-2 paper
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))

            # report number of parameters
            log("number of parameters: %.2fM" % (self.get_num_params()/1e6,))

        def get_num_params(self, non_embedding=True):
            """
            Return the number of parameters in the model.
            For non-embedding count (default), the position embeddings get subtracted.
            The token embeddings would too, except due to the parameter sharing these
            params are actually used as weights in the final layer, so we include them.
            """
            n_params = sum(p.numel() for p in self.parameters())
            if non_embedding:
                n_params -= self.transformer.wpe.weight.numel()
            return n_params

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
            pos = torch.arange(0, t, dtype=torch.long, device=device) # shape (t)

            # forward the GPT model itself
            tok_emb = self.transformer.wte(idx) # token embeddings of shape (b, t, n_embd)
            pos_emb = self.transformer.wpe(pos) # position embeddings of shape (t, n_embd)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)

            if targets is not None:
                # if we are given some desired targets also calculate the loss
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            else:
                # inference-time mini-optimization: only forward the lm_head on the very last position
                logits = self.lm_head(x[:, [-1], :]) # note: using list [-1] to preserve the time dim
                loss = None

            return logits, loss

        def crop_block_size(self, block_size):
            # model surgery to decrease the block size if necessary
            # e.g. we may load the GPT2 pretrained model checkpoint (block size 1024)
            # but want to use a smaller block size for some smaller, simpler model
            assert block_size <= self.config.block_size
            self.config.block_size = block_size
            self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
            for block in self.transformer.h:
                if hasattr(block.attn, 'bias'):
                    block.attn.bias = block.attn.bias[:,:,:block_size,:block_size]

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
            N = self.get_num_params()
            cfg = self.config
            L, H, Q, T = cfg.n_layer, cfg.n_head, cfg.n_embd//cfg.n_head, cfg.block_size
            flops_per_token = 6*N + 12*L*H*Q*T
            flops_per_fwdbwd = flops_per_token * T
            flops_per_iter = flops_per_fwdbwd * fwdbwd_per_iter
            # express our flops throughput as ratio of A100 bfloat16 peak flops
            flops_achieved = flops_per_iter * (1.0/dt) # per second
            flops_promised = 312e12 # A100 GPU bfloat16 peak flops is 312 TFLOPS
            mfu = flops_achieved / flops_promised
            return mfu

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            """
            Take a conditioning sequence of indices idx (LongTensor of shape (b,t)) and complete
            the sequence max_new_tokens times, feeding the predictions back into the model each time.
            Most likely you'll want to make sure to be in model.eval() mode of operation for this.
            """
            for _ in range(max_new_tokens):
                # if the sequence context is growing too long we must crop it at block_size
                idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
                # forward the model to get the logits for the index in the sequence
                logits, _ = self(idx_cond)
                # pluck the logits at the final step and scale by desired temperature
                logits = logits[:, -1, :] / temperature
                # optionally crop the logits to only the top k options
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float('Inf')
                # apply softmax to convert logits to (normalized) probabilities
                probs = F.softmax(logits, dim=-1)
                # sample from the distribution
                idx_next = torch.multinomial(probs, num_samples=1)
                # append sampled index to the running sequence and continue
                idx = torch.cat((idx, idx_next), dim=1)

            return idx

    return GPTConfig, GPT


def synthetic_text(n_chars=4000, seed=0):
    """A stand-in for tiny Shakespeare: words of a small alphabet, lines and
    punctuation, drawn with NumPy."""
    rng = np.random.RandomState(seed)
    letters = np.array(list("abcdefghijklmnopqrstu"))
    words = ["".join(rng.choice(letters, rng.randint(1, 7))) for _ in range(60)]
    out, size = [], 0
    while size < n_chars:
        line = " ".join(words[i] for i in rng.randint(0, len(words), rng.randint(3, 9)))
        line = line + rng.choice([".", ",", "!", "?", ":"]) + "\n"
        out.append(line)
        size += len(line)
    return "".join(out)[:n_chars]


def run(torch, n_layer=2, n_head=4, n_embd=32, block_size=16, bias=False, dropout=0.0,
        model_block_size=None, batch_size=4, gradient_accumulation_steps=2,
        learning_rate=1e-3, max_iters=6, weight_decay=1e-1, beta1=0.9, beta2=0.95,
        grad_clip=1.0, decay_lr=True, warmup_iters=2, lr_decay_iters=5, min_lr=1e-4,
        eval_interval=3, eval_iters=2, log_interval=1, eval_only=False, device='cpu',
        dtype='float32', seed=1337, num_samples=2, max_new_tokens=20, temperature=0.8,
        top_k=5, start="\n", n_chars=4000, init=None, log=print):
    """train.py's loop for ``max_iters`` on the synthetic text, then sample.py's
    generation; return every value the scripts print or compute."""
    GPTConfig, GPT = build(torch, log=log)
    results = {"losses": [], "lrs": [], "eval": [], "samples": [], "texts": []}

    # -- data/shakespeare_char/prepare.py ---------------------------------------------------
    data = synthetic_text(n_chars)
    # get all the unique characters that occur in this text
    chars = sorted(list(set(data)))
    vocab_size = len(chars)
    # create a mapping from characters to integers
    stoi = { ch:i for i,ch in enumerate(chars) }
    itos = { i:ch for i,ch in enumerate(chars) }
    def encode(s):
        return [stoi[c] for c in s] # encoder: take a string, output a list of integers
    def decode(l):
        return ''.join([itos[i] for i in l]) # decoder: take a list of integers, output a string
    # create the train and test splits
    n = len(data)
    train_ids = encode(data[:int(n*0.9)])
    val_ids = encode(data[int(n*0.9):])
    train_data = np.array(train_ids, dtype=np.uint16)
    val_data = np.array(val_ids, dtype=np.uint16)
    meta_vocab_size = vocab_size

    # -- train.py ---------------------------------------------------------------------------
    master_process = True
    seed_offset = 0
    tokens_per_iter = gradient_accumulation_steps * batch_size * block_size
    log(f"tokens per iteration will be: {tokens_per_iter:,}")

    torch.manual_seed(1337 + seed_offset)
    torch.backends.cuda.matmul.allow_tf32 = True # allow tf32 on matmul
    torch.backends.cudnn.allow_tf32 = True # allow tf32 on cudnn
    device_type = 'cuda' if 'cuda' in device else 'cpu' # for later use in torch.autocast
    # note: float16 data type will automatically use a GradScaler
    ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
    ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

    # poor man's data loader
    def get_batch(split):
        data = train_data if split == 'train' else val_data
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([torch.from_numpy((data[i:i+block_size]).astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy((data[i+1:i+1+block_size]).astype(np.int64)) for i in ix])
        if device_type == 'cuda':
            # pin arrays x,y, which allows us to move them to GPU asynchronously (non_blocking=True)
            x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
        else:
            x, y = x.to(device), y.to(device)
        return x, y

    # init these up here, can override if init_from='resume' (i.e. from a checkpoint)
    iter_num = 0
    best_val_loss = 1e9

    # model init
    model_args = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, block_size=block_size,
                      bias=bias, vocab_size=None, dropout=dropout) # start with model_args from command line
    # init a new model from scratch
    log("Initializing a new model from scratch")
    # determine the vocab size we'll use for from-scratch training
    model_args['vocab_size'] = meta_vocab_size if meta_vocab_size is not None else 50304
    if model_block_size is not None:
        # the port's stand-in for a checkpoint's larger block size (crop_block_size below)
        model_args['block_size'] = model_block_size
    gptconf = GPTConfig(**model_args)
    model = GPT(gptconf)
    # crop down the model block size if desired, using model surgery
    if block_size < model.config.block_size:
        model.crop_block_size(block_size)
        model_args['block_size'] = block_size # so that the checkpoint will have the right value
    model.to(device)
    if init is not None:
        init(model)
    results["n_params"] = (model.get_num_params(), model.get_num_params(non_embedding=False))
    results["state_keys"] = list(model.state_dict())

    # initialize a GradScaler. If enabled=False scaler is a no-op
    scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))

    # optimizer
    optimizer = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
    results["groups"] = [(len(g['params']), g['weight_decay']) for g in optimizer.param_groups]

    raw_model = model

    # helps estimate an arbitrarily accurate loss over either split using many batches
    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ['train', 'val']:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                with ctx:
                    logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    # learning rate decay scheduler (cosine with warmup)
    def get_lr(it):
        # 1) linear warmup for warmup_iters steps
        if it < warmup_iters:
            return learning_rate * (it + 1) / (warmup_iters + 1)
        # 2) if it > lr_decay_iters, return min learning rate
        if it > lr_decay_iters:
            return min_lr
        # 3) in between, use cosine decay down to min learning rate
        decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio)) # coeff ranges 0..1
        return min_lr + coeff * (learning_rate - min_lr)

    # training loop
    X, Y = get_batch('train') # fetch the very first batch
    t0 = time.time()
    local_iter_num = 0 # number of iterations in the lifetime of this process
    running_mfu = -1.0
    while True:

        # determine and set the learning rate for this iteration
        lr = get_lr(iter_num) if decay_lr else learning_rate
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        results["lrs"].append(lr)

        # evaluate the loss on train/val sets and write checkpoints
        if iter_num % eval_interval == 0 and master_process:
            losses = estimate_loss()
            log(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
            results["eval"].append((losses['train'].item(), losses['val'].item()))
            if losses['val'] < best_val_loss:
                best_val_loss = losses['val']
        if iter_num == 0 and eval_only:
            break

        # forward backward update, with optional gradient accumulation to simulate larger batch size
        # and using the GradScaler if data type is float16
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / gradient_accumulation_steps # scale the loss to account for gradient accumulation
            # immediately async prefetch next batch while model is doing the forward pass on the GPU
            X, Y = get_batch('train')
            # backward pass, with gradient scaling if training in fp16
            scaler.scale(loss).backward()
        # clip the gradient
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            results.setdefault("norms", []).append(
                float(torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)))
        # step the optimizer and scaler if training in fp16
        scaler.step(optimizer)
        scaler.update()
        # flush the gradients as soon as we can, no need for this memory anymore
        optimizer.zero_grad(set_to_none=True)

        # timing and logging
        t1 = time.time()
        dt = t1 - t0
        t0 = t1
        if iter_num % log_interval == 0 and master_process:
            # get loss as float. note: this is a CPU-GPU sync point
            # scale up to undo the division above, approximating the true total loss (exact would have been a sum)
            lossf = loss.item() * gradient_accumulation_steps
            results["losses"].append(lossf)
            if local_iter_num >= 5: # let the training loop settle a bit
                mfu = raw_model.estimate_mfu(batch_size * gradient_accumulation_steps, dt)
                running_mfu = mfu if running_mfu == -1.0 else 0.9*running_mfu + 0.1*mfu
            log(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")
        iter_num += 1
        local_iter_num += 1

        # termination conditions
        if iter_num > max_iters:
            break
    results["mfu_1s"] = raw_model.estimate_mfu(batch_size * gradient_accumulation_steps, 1.0)
    results["best_val_loss"] = float(best_val_loss)

    # -- sample.py --------------------------------------------------------------------------
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    model.eval()
    start_ids = encode(start)
    x = (torch.tensor(start_ids, dtype=torch.long, device=device)[None, ...])

    # run generation
    with torch.no_grad():
        with ctx:
            for k in range(num_samples):
                y = model.generate(x, max_new_tokens, temperature=temperature, top_k=top_k)
                log(decode(y[0].tolist()))
                log('---------------')
                results["samples"].append(y[0].tolist())
                results["texts"].append(decode(y[0].tolist()))
        # the port's check: the model's last-position logits of the first sample
        logits, _ = model(y[:, -block_size:])
        results["logits"] = logits.detach().numpy().copy()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of rasbt/LLMs-from-scratch, chapter 5 (``pkg/llms_from_scratch/ch05.py``, with
``ch02.py``'s ``GPTDatasetV1`` and ``create_dataloader_v1``): ``calc_loss_batch``,
``calc_loss_loader``, ``evaluate_model``, ``train_model_simple`` (``AdamW``, as the
chapter's training run), ``generate_and_print_sample``, ``generate`` with temperature
and top-k sampling, ``text_to_token_ids`` and ``token_ids_to_text``.

Copyright (c) Sebastian Raschka, under the Apache License 2.0 (see
https://github.com/rasbt/LLMs-from-scratch/blob/main/LICENSE.txt). Source for "Build a
Large Language Model From Scratch" (https://www.manning.com/books/build-a-large-language-model-from-scratch).

Ported by changing the imports (``import pyad as torch``): the modules' functions are
the body of ``build(torch)`` (``from .ch04 import ...`` is ``build`` of
``llms_from_scratch_ch04.py``). tiktoken's GPT-2 encoding is replaced by a character-level
tokenizer with the same ``encode(text, allowed_special=...)``/``decode`` calls, "The
Verdict" by a synthetic character text drawn with NumPy, and the GPT-2 124M
configuration by chapter 4's ``TINY_CONFIG``; ``print`` is ``log``. The plotting, the
GPT-2 weight download (``download_and_load_gpt2``, TensorFlow) is left out:
``load_weights_into_gpt`` loads a synthetic ``params`` dictionary of GPT-2's layout
(``gpt_params``, NumPy arrays from a seed) instead (``run_pretrained``).

Run it with ``python examples/ported/llms_from_scratch_ch05.py``.
"""
import importlib.util
import os
import types

import numpy as np


def _sibling(name):
    spec = importlib.util.spec_from_file_location(
        "_llms_from_scratch_" + name, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "llms_from_scratch_" + name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CharTokenizer:
    """The stand-in for ``tiktoken.get_encoding("gpt2")``: one id per character."""

    def __init__(self, chars):
        self.stoi = {ch: i for i, ch in enumerate(chars)}
        self.itos = {i: ch for i, ch in enumerate(chars)}
        self.n_vocab = len(chars)

    def encode(self, text, allowed_special=None):
        return [self.stoi[c] for c in text]

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids)


def synthetic_text(n_chars=1200, seed=123):
    """Words of a few letters drawn with NumPy, with spaces, commas and full stops."""
    rng = np.random.default_rng(seed)
    words = ["the", "verdict", "jack", "gisburn", "i", "had", "always", "thought",
             "rather", "a", "cheap", "genius", "so", "it", "was", "no", "great", "surprise"]
    out = []
    while sum(len(w) + 1 for w in out) < n_chars:
        w = words[rng.integers(len(words))]
        out.append(w + (", " if rng.random() < 0.1 else ". " if rng.random() < 0.1 else " "))
    return "".join(out)[:n_chars]


def build(torch, log=print):
    """ch02.py's dataset and loader and ch05.py's functions for the namespace ``torch``."""
    ch04 = _sibling("ch04").build(torch)
    generate_text_simple = ch04.generate_text_simple
    print = log
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

    # -- ch02.py --------------------------------------------------------------------------

    class GPTDatasetV1(Dataset):
        def __init__(self, txt, tokenizer, max_length, stride):
            self.tokenizer = tokenizer
            self.input_ids = []
            self.target_ids = []

            # Tokenize the entire text
            token_ids = tokenizer.encode(txt, allowed_special={"<|endoftext|>"})

            # Use a sliding window to chunk the book into overlapping sequences of max_length
            for i in range(0, len(token_ids) - max_length, stride):
                input_chunk = token_ids[i:i + max_length]
                target_chunk = token_ids[i + 1: i + max_length + 1]
                self.input_ids.append(torch.tensor(input_chunk))
                self.target_ids.append(torch.tensor(target_chunk))

        def __len__(self):
            return len(self.input_ids)

        def __getitem__(self, idx):
            return self.input_ids[idx], self.target_ids[idx]

    def create_dataloader_v1(txt, batch_size=4, max_length=256,
                             stride=128, shuffle=True, drop_last=True, num_workers=0,
                             tokenizer=None):

        # Initialize the tokenizer (the port: the character tokenizer is passed in)
        # tokenizer = tiktoken.get_encoding("gpt2")

        # Create dataset
        dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)

        # Create dataloader
        dataloader = DataLoader(
            dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, num_workers=num_workers)

        return dataloader

    # -- ch05.py --------------------------------------------------------------------------

    def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):

        # For-loop is the same as before: Get logits, and only focus on last time step
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -context_size:]
            with torch.no_grad():
                logits = model(idx_cond)
            logits = logits[:, -1, :]

            # New: Filter logits with top_k sampling
            if top_k is not None:
                # Keep only top_k values
                top_logits, _ = torch.topk(logits, top_k)
                min_val = top_logits[:, -1]
                logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)

            # New: Apply temperature scaling
            if temperature > 0.0:
                logits = logits / temperature

                # New (not in book): numerical stability tip to get equivalent results on mps device
                # subtract rowwise max before softmax
                logits = logits - logits.max(dim=-1, keepdim=True).values

                # Apply softmax to get probabilities
                probs = torch.softmax(logits, dim=-1)  # (batch_size, context_len)

                # Sample from the distribution
                idx_next = torch.multinomial(probs, num_samples=1)  # (batch_size, 1)

            # Otherwise same as before: get idx of the vocab entry with the highest logits value
            else:
                idx_next = torch.argmax(logits, dim=-1, keepdim=True)  # (batch_size, 1)

            if idx_next == eos_id:  # Stop generating early if end-of-sequence token is encountered and eos_id is specified
                break

            # Same as before: append sampled index to the running sequence
            idx = torch.cat((idx, idx_next), dim=1)  # (batch_size, num_tokens+1)

        return idx

    def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
                           eval_freq, eval_iter, start_context, tokenizer):
        # Initialize lists to track losses and tokens seen
        train_losses, val_losses, track_tokens_seen = [], [], []
        tokens_seen, global_step = 0, -1

        # Main training loop
        for epoch in range(num_epochs):
            model.train()  # Set model to training mode

            for input_batch, target_batch in train_loader:
                optimizer.zero_grad()  # Reset loss gradients from previous batch iteration
                loss = calc_loss_batch(input_batch, target_batch, model, device)
                loss.backward()  # Calculate loss gradients
                optimizer.step()  # Update model weights using loss gradients
                tokens_seen += input_batch.numel()
                global_step += 1

                # Optional evaluation step
                if global_step % eval_freq == 0:
                    train_loss, val_loss = evaluate_model(
                        model, train_loader, val_loader, device, eval_iter)
                    train_losses.append(train_loss)
                    val_losses.append(val_loss)
                    track_tokens_seen.append(tokens_seen)
                    print(f"Ep {epoch+1} (Step {global_step:06d}): "
                          f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")

            # Print a sample text after each epoch
            generate_and_print_sample(
                model, tokenizer, device, start_context
            )

        return train_losses, val_losses, track_tokens_seen

    def evaluate_model(model, train_loader, val_loader, device, eval_iter):
        model.eval()
        with torch.no_grad():
            train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)
            val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)
        model.train()
        return train_loss, val_loss

    def generate_and_print_sample(model, tokenizer, device, start_context):
        model.eval()
        context_size = model.pos_emb.weight.shape[0]
        encoded = text_to_token_ids(start_context, tokenizer).to(device)
        with torch.no_grad():
            token_ids = generate_text_simple(
                model=model, idx=encoded,
                max_new_tokens=50, context_size=context_size
            )
            decoded_text = token_ids_to_text(token_ids, tokenizer)
            print(decoded_text.replace("\n", " "))  # Compact print format
        model.train()

    def assign(left, right):
        if left.shape != right.shape:
            raise ValueError(f"Shape mismatch. Left: {left.shape}, Right: {right.shape}")
        return torch.nn.Parameter(torch.tensor(right))

    def load_weights_into_gpt(gpt, params):
        gpt.pos_emb.weight = assign(gpt.pos_emb.weight, params["wpe"])
        gpt.tok_emb.weight = assign(gpt.tok_emb.weight, params["wte"])

        for b in range(len(params["blocks"])):
            q_w, k_w, v_w = np.split(
                (params["blocks"][b]["attn"]["c_attn"])["w"], 3, axis=-1)
            gpt.trf_blocks[b].att.W_query.weight = assign(
                gpt.trf_blocks[b].att.W_query.weight, q_w.T)
            gpt.trf_blocks[b].att.W_key.weight = assign(
                gpt.trf_blocks[b].att.W_key.weight, k_w.T)
            gpt.trf_blocks[b].att.W_value.weight = assign(
                gpt.trf_blocks[b].att.W_value.weight, v_w.T)

            q_b, k_b, v_b = np.split(
                (params["blocks"][b]["attn"]["c_attn"])["b"], 3, axis=-1)
            gpt.trf_blocks[b].att.W_query.bias = assign(
                gpt.trf_blocks[b].att.W_query.bias, q_b)
            gpt.trf_blocks[b].att.W_key.bias = assign(
                gpt.trf_blocks[b].att.W_key.bias, k_b)
            gpt.trf_blocks[b].att.W_value.bias = assign(
                gpt.trf_blocks[b].att.W_value.bias, v_b)

            gpt.trf_blocks[b].att.out_proj.weight = assign(
                gpt.trf_blocks[b].att.out_proj.weight,
                params["blocks"][b]["attn"]["c_proj"]["w"].T)
            gpt.trf_blocks[b].att.out_proj.bias = assign(
                gpt.trf_blocks[b].att.out_proj.bias,
                params["blocks"][b]["attn"]["c_proj"]["b"])

            gpt.trf_blocks[b].ff.layers[0].weight = assign(
                gpt.trf_blocks[b].ff.layers[0].weight,
                params["blocks"][b]["mlp"]["c_fc"]["w"].T)
            gpt.trf_blocks[b].ff.layers[0].bias = assign(
                gpt.trf_blocks[b].ff.layers[0].bias,
                params["blocks"][b]["mlp"]["c_fc"]["b"])
            gpt.trf_blocks[b].ff.layers[2].weight = assign(
                gpt.trf_blocks[b].ff.layers[2].weight,
                params["blocks"][b]["mlp"]["c_proj"]["w"].T)
            gpt.trf_blocks[b].ff.layers[2].bias = assign(
                gpt.trf_blocks[b].ff.layers[2].bias,
                params["blocks"][b]["mlp"]["c_proj"]["b"])

            gpt.trf_blocks[b].norm1.scale = assign(
                gpt.trf_blocks[b].norm1.scale,
                params["blocks"][b]["ln_1"]["g"])
            gpt.trf_blocks[b].norm1.shift = assign(
                gpt.trf_blocks[b].norm1.shift,
                params["blocks"][b]["ln_1"]["b"])
            gpt.trf_blocks[b].norm2.scale = assign(
                gpt.trf_blocks[b].norm2.scale,
                params["blocks"][b]["ln_2"]["g"])
            gpt.trf_blocks[b].norm2.shift = assign(
                gpt.trf_blocks[b].norm2.shift,
                params["blocks"][b]["ln_2"]["b"])

        gpt.final_norm.scale = assign(gpt.final_norm.scale, params["g"])
        gpt.final_norm.shift = assign(gpt.final_norm.shift, params["b"])
        gpt.out_head.weight = assign(gpt.out_head.weight, params["wte"])

    def text_to_token_ids(text, tokenizer):
        encoded = tokenizer.encode(text, allowed_special={"<|endoftext|>"})
        encoded_tensor = torch.tensor(encoded).unsqueeze(0)  # add batch dimension
        return encoded_tensor

    def token_ids_to_text(token_ids, tokenizer):
        flat = token_ids.squeeze(0)  # remove batch dimension
        return tokenizer.decode(flat.tolist())

    def calc_loss_batch(input_batch, target_batch, model, device):
        input_batch, target_batch = input_batch.to(device), target_batch.to(device)
        logits = model(input_batch)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
        return loss

    def calc_loss_loader(data_loader, model, device, num_batches=None):
        total_loss = 0.
        if len(data_loader) == 0:
            return float("nan")
        elif num_batches is None:
            num_batches = len(data_loader)
        else:
            # Reduce the number of batches to match the total number of batches in the data loader
            # if num_batches exceeds the number of batches in the data loader
            num_batches = min(num_batches, len(data_loader))
        for i, (input_batch, target_batch) in enumerate(data_loader):
            if i < num_batches:
                loss = calc_loss_batch(input_batch, target_batch, model, device)
                total_loss += loss.item()
            else:
                break
        return total_loss / num_batches

    names = dict(ch04.__dict__)
    names.update({k: v for k, v in locals().items() if callable(v) and k != "print"})
    return types.SimpleNamespace(**names)


def run(torch, init=None, log=print, num_epochs=2, drop_rate=0.1, eval_freq=2,
        eval_iter=2, top_k=5, temperature=1.4, batch_size=2):
    """The chapter's training run (``gpt_train.py``'s ``main``) on the synthetic text,
    then ``generate`` with temperature and top-k. Returns every value computed."""
    ch05 = build(torch, log)
    ch04 = _sibling("ch04")
    text_data = synthetic_text()
    tokenizer = CharTokenizer(sorted(set(text_data)))
    GPT_CONFIG = dict(ch04.TINY_CONFIG, vocab_size=tokenizer.n_vocab, drop_rate=drop_rate)
    results = {}

    device = torch.device("cpu")
    torch.manual_seed(123)
    model = ch05.GPTModel(GPT_CONFIG)
    if init is not None:
        init(model)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)

    # Train/validation ratio
    train_ratio = 0.90
    split_idx = int(train_ratio * len(text_data))

    train_loader = ch05.create_dataloader_v1(
        text_data[:split_idx],
        batch_size=batch_size,
        max_length=GPT_CONFIG["context_length"],
        stride=GPT_CONFIG["context_length"] * 4,
        drop_last=True,
        shuffle=True,
        num_workers=0,
        tokenizer=tokenizer,
    )

    val_loader = ch05.create_dataloader_v1(
        text_data[split_idx:],
        batch_size=batch_size,
        max_length=GPT_CONFIG["context_length"],
        stride=GPT_CONFIG["context_length"],
        drop_last=False,
        shuffle=False,
        num_workers=0,
        tokenizer=tokenizer,
    )
    results["n_batches"] = (len(train_loader), len(val_loader))

    with torch.no_grad():
        results["initial_losses"] = (ch05.calc_loss_loader(train_loader, model, device),
                                     ch05.calc_loss_loader(val_loader, model, device))

    train_losses, val_losses, tokens_seen = ch05.train_model_simple(
        model, train_loader, val_loader, optimizer, device,
        num_epochs=num_epochs, eval_freq=eval_freq, eval_iter=eval_iter,
        start_context="the verdict ", tokenizer=tokenizer
    )
    results.update(train_losses=train_losses, val_losses=val_losses, tokens_seen=tokens_seen)

    model.eval()
    token_ids = ch05.generate_text_simple(
        model=model, idx=ch05.text_to_token_ids("the verdict ", tokenizer),
        max_new_tokens=20, context_size=GPT_CONFIG["context_length"])
    results["greedy"] = ch05.token_ids_to_text(token_ids, tokenizer)

    torch.manual_seed(123)
    token_ids = ch05.generate(
        model=model,
        idx=ch05.text_to_token_ids("the verdict ", tokenizer),
        max_new_tokens=15,
        context_size=GPT_CONFIG["context_length"],
        top_k=top_k,
        temperature=temperature
    )
    results["sampled"] = ch05.token_ids_to_text(token_ids, tokenizer)
    log("Output text:\n", results["sampled"])
    # eos_id stops the generation at the first greedy token equal to it
    token_ids = ch05.generate(model=model, idx=ch05.text_to_token_ids("the verdict ", tokenizer),
                              max_new_tokens=15, context_size=GPT_CONFIG["context_length"],
                              eos_id=tokenizer.stoi[" "])
    results["until_eos"] = ch05.token_ids_to_text(token_ids, tokenizer)
    with torch.no_grad():
        logits = model(ch05.text_to_token_ids("the verdict ", tokenizer))
    results["logits"] = logits.numpy().copy()
    results["state"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    return results


def gpt_params(cfg, seed=0):
    """A ``params`` dictionary with the layout ``load_gpt2_params_from_tf_ckpt`` returns
    (fused ``c_attn``, ``(in, out)`` weights), drawn with NumPy (float32)."""
    rng = np.random.default_rng(seed)
    d, V, T = cfg["emb_dim"], cfg["vocab_size"], cfg["context_length"]

    def r(*shape, scale=0.1):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    blocks = [{"attn": {"c_attn": {"w": r(d, 3 * d), "b": r(3 * d)},
                        "c_proj": {"w": r(d, d), "b": r(d)}},
               "mlp": {"c_fc": {"w": r(d, 4 * d), "b": r(4 * d)},
                       "c_proj": {"w": r(4 * d, d), "b": r(d)}},
               "ln_1": {"g": 1 + r(d), "b": r(d)}, "ln_2": {"g": 1 + r(d), "b": r(d)}}
              for _ in range(cfg["n_layers"])]
    return {"wte": r(V, d), "wpe": r(T, d), "blocks": blocks, "g": 1 + r(d), "b": r(d)}


def run_pretrained(torch, log=print, temperature=0.0, top_k=None):
    """The chapter's "Loading pretrained weights from OpenAI" on the tiny model:
    ``load_weights_into_gpt`` of ``gpt_params``, then ``generate``."""
    ch05 = build(torch, log)
    NEW_CONFIG = dict(_sibling("ch04").TINY_CONFIG, qkv_bias=True, drop_rate=0.0)
    params = gpt_params(NEW_CONFIG)
    gpt = ch05.GPTModel(NEW_CONFIG)
    gpt.eval()
    ch05.load_weights_into_gpt(gpt, params)
    results = {"n_parameters": len(list(gpt.parameters())),
               "tied": bool(np.array_equal(gpt.out_head.weight.detach().numpy(),
                                           gpt.tok_emb.weight.detach().numpy()))}
    try:
        ch05.assign(gpt.pos_emb.weight, params["wte"])
    except ValueError as e:
        results["mismatch"] = str(e)
    torch.manual_seed(123)
    token_ids = ch05.generate(model=gpt, idx=torch.tensor([[1, 2, 3, 4]]), max_new_tokens=12,
                              context_size=NEW_CONFIG["context_length"], top_k=top_k,
                              temperature=temperature)
    results["generated"] = token_ids.tolist()
    with torch.no_grad():
        results["logits"] = gpt(token_ids[:, -NEW_CONFIG["context_length"]:]).numpy().copy()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of karpathy/ng-video-lecture's ``bigram.py``: the bigram language model of the
"Let's build GPT" lecture (a token-embedding table read as next-token logits), its
``get_batch``, ``estimate_loss``, the ``AdamW`` loop and ``generate``.

Copyright (c) Andrej Karpathy, under the MIT License (the License section of
https://github.com/karpathy/ng-video-lecture's README).

Ported by changing the imports (``import pyad as torch``). The module-level code is the
body of ``run`` and the hyperparameters are its keyword arguments (the text's
``batch_size=32``, ``block_size=8``, ``learning_rate=1e-2``; ``max_iters``,
``eval_interval``, ``eval_iters`` and the generated length are smaller here);
``input.txt`` (Tiny Shakespeare) is a synthetic character text of a few thousand
characters drawn with NumPy; ``print`` is ``log``. ``init`` (the tests' hook to start
both frameworks from the same weights) is called on the model after it is built.

Run it with ``python examples/ported/ngvl_bigram.py``.
"""
import numpy as np


def synthetic_text(n_chars=3000, seed=0):
    """A stand-in for Tiny Shakespeare: lines of words over 20 letters with punctuation,
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


def run(torch, batch_size=32, block_size=8, max_iters=6, eval_interval=3,
        learning_rate=1e-2, eval_iters=2, max_new_tokens=40, n_chars=3000, init=None,
        log=print):
    """bigram.py for ``max_iters`` steps on the synthetic text; return every value it
    prints or computes."""
    nn = torch.nn
    F = torch.nn.functional
    results = {"losses": [], "evals": [], "lines": []}

    def print(*args):
        line = " ".join(str(a) for a in args)
        results["lines"].append(line)
        log(line)

    # hyperparameters
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    # ------------

    torch.manual_seed(1337)

    # wget https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt
    text = synthetic_text(n_chars)

    # here are all the unique characters that occur in this text
    chars = sorted(list(set(text)))
    vocab_size = len(chars)
    # create a mapping from characters to integers
    stoi = { ch:i for i,ch in enumerate(chars) }
    itos = { i:ch for i,ch in enumerate(chars) }
    encode = lambda s: [stoi[c] for c in s] # encoder: take a string, output a list of integers
    decode = lambda l: ''.join([itos[i] for i in l]) # decoder: take a list of integers, output a string

    # Train and test splits
    data = torch.tensor(encode(text), dtype=torch.long)
    n = int(0.9*len(data)) # first 90% will be train, rest val
    train_data = data[:n]
    val_data = data[n:]
    results["split"] = (len(train_data), len(val_data), vocab_size)

    # data loading
    def get_batch(split):
        # generate a small batch of data of inputs x and targets y
        data = train_data if split == 'train' else val_data
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([data[i:i+block_size] for i in ix])
        y = torch.stack([data[i+1:i+block_size+1] for i in ix])
        x, y = x.to(device), y.to(device)
        return x, y

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ['train', 'val']:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    # super simple bigram model
    class BigramLanguageModel(nn.Module):

        def __init__(self, vocab_size):
            super().__init__()
            # each token directly reads off the logits for the next token from a lookup table
            self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

        def forward(self, idx, targets=None):

            # idx and targets are both (B,T) tensor of integers
            logits = self.token_embedding_table(idx) # (B,T,C)

            if targets is None:
                loss = None
            else:
                B, T, C = logits.shape
                loss = F.cross_entropy(logits.view(B*T, C), targets.view(B*T))

            return logits, loss

        def generate(self, idx, max_new_tokens):
            # idx is (B, T) array of indices in the current context
            for _ in range(max_new_tokens):
                # get the predictions
                logits, loss = self(idx)
                # focus only on the last time step
                logits = logits[:, -1, :] # becomes (B, C)
                # apply softmax to get probabilities
                probs = F.softmax(logits, dim=-1) # (B, C)
                # sample from the distribution
                idx_next = torch.multinomial(probs, num_samples=1) # (B, 1)
                # append sampled index to the running sequence
                idx = torch.cat((idx, idx_next), dim=1) # (B, T+1)
            return idx

    model = BigramLanguageModel(vocab_size)
    m = model.to(device)
    if init is not None:
        init(model)

    # create a PyTorch optimizer
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

    for iter in range(max_iters):

        # every once in a while evaluate the loss on train and val sets
        if iter % eval_interval == 0:
            losses = estimate_loss()
            print(f"step {iter}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
            results["evals"].append((losses['train'].item(), losses['val'].item()))

        # sample a batch of data
        xb, yb = get_batch('train')

        # evaluate the loss
        logits, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        results["losses"].append(loss.item())

    # generate from the model
    context = torch.zeros((1, 1), dtype=torch.long, device=device)
    generated = m.generate(context, max_new_tokens=max_new_tokens)[0].tolist()
    print(decode(generated))
    results["generated"] = generated
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of karpathy/nn-zero-to-hero ``lectures/makemore/makemore_part2_mlp.ipynb``
("makemore: part 2", Bengio et al.'s MLP): the exploratory cells (the context dataset,
the 2-D embedding ``C[X]``, the hidden layer, the hand-made softmax and negative log
likelihood), then the "respectable" version: the train/dev/test split, the generator's
initial weights, the learning-rate exponents ``10**torch.linspace(-3, 0, 1000)``, the
minibatch SGD loop with ``F.cross_entropy``, the train and dev losses and sampling.

Copyright (c) 2022 Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nn-zero-to-hero/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells, in
order, are the body of ``run``; ``names.txt`` is ``run``'s ``words`` (the curl cell is
left out): ``synthetic_words`` draws a word list from a seed (the same for both
frameworks) after the notebook's first five names (its printed ``words[:8]``). The first,
exploratory dataset cell loops over ``words[:5]``, as the lecture does on screen: those
five names make the 32 examples that ``prob[torch.arange(32), Y]`` indexes (over the
text's ``words`` it raises in torch too). ``print`` is ``log``, and what the cells print
or display is also returned; the ``matplotlib`` cells (the loss curve, the embedding
scatter) are left out. The training loop takes ``max_steps`` steps (200000 in the text) on
batches of 32 (the text's). The draws from ``torch.Generator().manual_seed(2147483647)``
and from the global generator (``randn``, ``randint``, ``multinomial``) are the
text's; the tests pass a namespace whose ``randn``, ``randint`` and ``multinomial``
draw from one shared NumPy stream, so both frameworks see the same numbers.

Run it with ``python examples/ported/zth_part2_mlp.py``.
"""
import random

import numpy as np


def synthetic_words(seed=0, n=200):
    """A stand-in for ``names.txt``: the notebook's first five names, then ``n``
    lowercase words of 2 to 8 letters."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["emma", "olivia", "ava", "isabella", "sophia"] + [
        "".join(rng.choice(letters, rng.integers(2, 9))) for _ in range(n)]


def run(torch, words, max_steps=5, log=print):
    F = torch.nn.functional
    results = {}
    words = list(words)

    # read in all the words
    results["words8"] = words[:8]

    results["nwords"] = len(words)

    # build the vocabulary of characters and mappings to/from integers
    chars = sorted(list(set(''.join(words))))
    stoi = {s:i+1 for i,s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i:s for s,i in stoi.items()}
    log(itos)
    results["itos"] = itos

    # build the dataset

    block_size = 3 # context length: how many characters do we take to predict the next one?
    X, Y = [], []
    for w in words[:5]:

      #print(w)
      context = [0] * block_size
      for ch in w + '.':
        ix = stoi[ch]
        X.append(context)
        Y.append(ix)
        #print(''.join(itos[i] for i in context), '--->', itos[ix])
        context = context[1:] + [ix] # crop and append

    X = torch.tensor(X)
    Y = torch.tensor(Y)

    results["XY"] = (X.shape, X.dtype, Y.shape, Y.dtype)

    # build the dataset
    block_size = 3 # context length: how many characters do we take to predict the next one?

    def build_dataset(words):
      X, Y = [], []
      for w in words:

        #print(w)
        context = [0] * block_size
        for ch in w + '.':
          ix = stoi[ch]
          X.append(context)
          Y.append(ix)
          #print(''.join(itos[i] for i in context), '--->', itos[ix])
          context = context[1:] + [ix] # crop and append

      X = torch.tensor(X)
      Y = torch.tensor(Y)
      log(X.shape, Y.shape)
      return X, Y

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8*len(words))
    n2 = int(0.9*len(words))

    Xtr, Ytr = build_dataset(words[:n1])
    Xdev, Ydev = build_dataset(words[n1:n2])
    Xte, Yte = build_dataset(words[n2:])
    results["data"] = (X, Y, Xtr, Ytr, Xdev, Ydev, Xte, Yte)

    C = torch.randn((27, 2))

    emb = C[X]
    results["emb"] = (emb.shape, emb)

    W1 = torch.randn((6, 100))
    b1 = torch.randn(100)

    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)

    results["h"] = h

    results["h.shape"] = h.shape

    W2 = torch.randn((100, 27))
    b2 = torch.randn(27)

    logits = h @ W2 + b2

    results["logits.shape"] = logits.shape

    counts = logits.exp()

    prob = counts / counts.sum(1, keepdims=True)

    results["prob"] = (prob.shape, prob)

    loss = -prob[torch.arange(32), Y].log().mean()
    results["loss0"] = loss

    # ------------ now made respectable :) ---------------

    results["train_shapes"] = (Xtr.shape, Ytr.shape) # dataset

    g = torch.Generator().manual_seed(2147483647) # for reproducibility
    C = torch.randn((27, 10), generator=g)
    W1 = torch.randn((30, 200), generator=g)
    b1 = torch.randn(200, generator=g)
    W2 = torch.randn((200, 27), generator=g)
    b2 = torch.randn(27, generator=g)
    parameters = [C, W1, b1, W2, b2]

    results["nparams"] = sum(p.nelement() for p in parameters) # number of parameters in total

    for p in parameters:
      p.requires_grad = True

    lre = torch.linspace(-3, 0, 1000)
    lrs = 10**lre
    results["lrs"] = (lre, lrs)

    lri = []
    lossi = []
    stepi = []
    results["losses"] = losses = []

    for i in range(max_steps):

      # minibatch construct
      ix = torch.randint(0, Xtr.shape[0], (32,))

      # forward pass
      emb = C[Xtr[ix]] # (32, 3, 10)
      h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 200)
      logits = h @ W2 + b2 # (32, 27)
      loss = F.cross_entropy(logits, Ytr[ix])
      #print(loss.item())
      losses.append(loss.item())

      # backward pass
      for p in parameters:
        p.grad = None
      loss.backward()

      # update
      #lr = lrs[i]
      lr = 0.1 if i < 100000 else 0.01
      for p in parameters:
        p.data += -lr * p.grad

      # track stats
      #lri.append(lre[i])
      stepi.append(i)
      lossi.append(loss.log10().item())

    #print(loss.item())
    results["lossi"] = (stepi, lossi)

    emb = C[Xtr] # (32, 3, 2)
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 100)
    logits = h @ W2 + b2 # (32, 27)
    loss = F.cross_entropy(logits, Ytr)
    results["train_loss"] = loss

    emb = C[Xdev] # (32, 3, 2)
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 100)
    logits = h @ W2 + b2 # (32, 27)
    loss = F.cross_entropy(logits, Ydev)
    results["dev_loss"] = loss

    # training split, dev/validation split, test split
    # 80%, 10%, 10%

    context = [0] * block_size
    results["context_shape"] = C[torch.tensor([context])].shape

    # sample from the model
    g = torch.Generator().manual_seed(2147483647 + 10)
    samples = results["samples"] = []

    for _ in range(20):

        out = []
        context = [0] * block_size # initialize with all ...
        while True:
          emb = C[torch.tensor([context])] # (1,block_size,d)
          h = torch.tanh(emb.view(1, -1) @ W1 + b1)
          logits = h @ W2 + b2
          probs = F.softmax(logits, dim=1)
          ix = torch.multinomial(probs, num_samples=1, generator=g).item()
          context = context[1:] + [ix]
          out.append(ix)
          if ix == 0:
            break

        log(''.join(itos[i] for i in out))
        samples.append(''.join(itos[i] for i in out))

    results["parameters"] = parameters
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, synthetic_words())

"""Port of karpathy/nn-zero-to-hero ``lectures/makemore/makemore_part4_backprop.ipynb``
("makemore: becoming a backprop ninja"): the two-layer MLP with a hand-written BatchNorm,
its forward pass "chunkated" into small steps with ``retain_grad`` on every intermediate,
Exercise 1 (the manual backward pass through every one of them, each compared with
autograd's gradient by ``cmp``), Exercise 2 (the cross-entropy backward in one go),
Exercise 3 (the BatchNorm backward in one go), Exercise 4 (training with the manual
backward pass under ``torch.no_grad()``), the BatchNorm calibration, ``split_loss`` and
sampling.

Copyright (c) 2022 Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nn-zero-to-hero/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells, in
order, are the body of ``run``; ``names.txt`` is ``run``'s ``words`` (a synthetic word
list drawn from a seed, the same for both frameworks: ``synthetic_words``); ``print`` is
``log``, and what the cells print or display is also returned; the ``matplotlib`` cell
(``plt.imshow(dlogits)``) is left out. Exercise 4's loop takes ``max_steps`` steps (200000
in the text) on batches of 32 (the text's). The ``torch.Generator().manual_seed(2147483647)``
draws (``randn``, ``randint``, ``multinomial``) take the generator as in the text; the
tests pass a namespace whose ``randn``, ``randint`` and ``multinomial`` draw from one
shared NumPy stream, so both frameworks see the same numbers.

Run it with ``python examples/ported/zth_part4_backprop.py``.
"""
import random

import numpy as np


def synthetic_words(seed=0, n=200):
    """A stand-in for ``names.txt``: ``n`` lowercase words of 2 to 8 letters."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, rng.integers(2, 9))) for _ in range(n)]


def run(torch, words, max_steps=5, log=print):
    F = torch.nn.functional
    results = {}
    words = list(words)

    # read in all the words
    log(len(words))
    log(max(len(w) for w in words))
    log(words[:8])

    # build the vocabulary of characters and mappings to/from integers
    chars = sorted(list(set(''.join(words))))
    stoi = {s:i+1 for i,s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i:s for s,i in stoi.items()}
    vocab_size = len(itos)
    log(itos)
    log(vocab_size)

    # build the dataset
    block_size = 3 # context length: how many characters do we take to predict the next one?

    def build_dataset(words):
      X, Y = [], []

      for w in words:
        context = [0] * block_size
        for ch in w + '.':
          ix = stoi[ch]
          X.append(context)
          Y.append(ix)
          context = context[1:] + [ix] # crop and append

      X = torch.tensor(X)
      Y = torch.tensor(Y)
      log(X.shape, Y.shape)
      return X, Y

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8*len(words))
    n2 = int(0.9*len(words))

    Xtr,  Ytr  = build_dataset(words[:n1])     # 80%
    Xdev, Ydev = build_dataset(words[n1:n2])   # 10%
    Xte,  Yte  = build_dataset(words[n2:])     # 10%
    results["data"] = (Xtr, Ytr, Xdev, Ydev, Xte, Yte)

    # ok biolerplate done, now we get to the action:

    # utility function we will use later when comparing manual gradients to PyTorch gradients
    cmps = results["cmp"] = []

    def cmp(s, dt, t):
      ex = torch.all(dt == t.grad).item()
      app = torch.allclose(dt, t.grad)
      maxdiff = (dt - t.grad).abs().max().item()
      shape_ok = dt.shape == t.shape
      log(f'{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff} | shape is correct: {shape_ok}')
      cmps.append((s, ex, app, maxdiff, shape_ok, dt.detach().clone(), t.grad.clone()))

    n_embd = 10 # the dimensionality of the character embedding vectors
    n_hidden = 64 # the number of neurons in the hidden layer of the MLP

    g = torch.Generator().manual_seed(2147483647) # for reproducibility
    C  = torch.randn((vocab_size, n_embd),            generator=g)
    # Layer 1
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5/3)/((n_embd * block_size)**0.5)
    b1 = torch.randn(n_hidden,                        generator=g) * 0.1 # using b1 just for fun, it's useless because of BN
    # Layer 2
    W2 = torch.randn((n_hidden, vocab_size),          generator=g) * 0.1
    b2 = torch.randn(vocab_size,                      generator=g) * 0.1
    # BatchNorm parameters
    bngain = torch.randn((1, n_hidden))*0.1 + 1.0
    bnbias = torch.randn((1, n_hidden))*0.1

    # Note: I am initializating many of these parameters in non-standard ways
    # because sometimes initializating with e.g. all zeros could mask an incorrect
    # implementation of the backward pass.

    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    log(sum(p.nelement() for p in parameters)) # number of parameters in total
    results["nparams"] = sum(p.nelement() for p in parameters)
    for p in parameters:
      p.requires_grad = True

    batch_size = 32
    n = batch_size # a shorter variable also, for convenience
    # construct a minibatch
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix] # batch X,Y
    results["batch"] = (Xb, Yb)

    # forward pass, "chunkated" into smaller steps that are possible to backward one at a time

    emb = C[Xb] # embed the characters into vectors
    embcat = emb.view(emb.shape[0], -1) # concatenate the vectors
    # Linear layer 1
    hprebn = embcat @ W1 + b1 # hidden layer pre-activation
    # BatchNorm layer
    bnmeani = 1/n*hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1/(n-1)*(bndiff2).sum(0, keepdim=True) # note: Bessel's correction (dividing by n-1, not n)
    bnvar_inv = (bnvar + 1e-5)**-0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    # Non-linearity
    h = torch.tanh(hpreact) # hidden layer
    # Linear layer 2
    logits = h @ W2 + b2 # output layer
    # cross entropy loss (same as F.cross_entropy(logits, Yb))
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes # subtract max for numerical stability
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1 # if I use (1.0 / counts_sum) instead then I can't get backprop to be bit exact...
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()

    # PyTorch backward pass
    for p in parameters:
      p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, # afaik there is no cleaner way
              norm_logits, logit_maxes, logits, h, hpreact, bnraw,
             bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
             embcat, emb]:
      t.retain_grad()
    loss.backward()
    results["loss"] = loss

    # Exercise 1: backprop through the whole thing manually,
    # backpropagating through exactly all of the variables
    # as they are defined in the forward pass above, one by one

    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0/n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-counts_sum**-2) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h**2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dbnraw = bngain * dhpreact
    dbnbias = dhpreact.sum(0, keepdim=True)
    dbndiff = bnvar_inv * dbnraw
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
    dbnvar = (-0.5*(bnvar + 1e-5)**-1.5) * dbnvar_inv
    dbndiff2 = (1.0/(n-1))*torch.ones_like(bndiff2) * dbnvar
    dbndiff += (2*bndiff) * dbndiff2
    dhprebn = dbndiff.clone()
    dbnmeani = (-dbndiff).sum(0)
    dhprebn += 1.0/n * (torch.ones_like(hprebn) * dbnmeani)
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
      for j in range(Xb.shape[1]):
        ix = Xb[k,j]
        dC[ix] += demb[k,j]

    cmp('logprobs', dlogprobs, logprobs)
    cmp('probs', dprobs, probs)
    cmp('counts_sum_inv', dcounts_sum_inv, counts_sum_inv)
    cmp('counts_sum', dcounts_sum, counts_sum)
    cmp('counts', dcounts, counts)
    cmp('norm_logits', dnorm_logits, norm_logits)
    cmp('logit_maxes', dlogit_maxes, logit_maxes)
    cmp('logits', dlogits, logits)
    cmp('h', dh, h)
    cmp('W2', dW2, W2)
    cmp('b2', db2, b2)
    cmp('hpreact', dhpreact, hpreact)
    cmp('bngain', dbngain, bngain)
    cmp('bnbias', dbnbias, bnbias)
    cmp('bnraw', dbnraw, bnraw)
    cmp('bnvar_inv', dbnvar_inv, bnvar_inv)
    cmp('bnvar', dbnvar, bnvar)
    cmp('bndiff2', dbndiff2, bndiff2)
    cmp('bndiff', dbndiff, bndiff)
    cmp('bnmeani', dbnmeani, bnmeani)
    cmp('hprebn', dhprebn, hprebn)
    cmp('embcat', dembcat, embcat)
    cmp('W1', dW1, W1)
    cmp('b1', db1, b1)
    cmp('emb', demb, emb)
    cmp('C', dC, C)

    # Exercise 2: backprop through cross_entropy but all in one go
    # to complete this challenge look at the mathematical expression of the loss,
    # take the derivative, simplify the expression, and just write it out

    # now:
    loss_fast = F.cross_entropy(logits, Yb)
    log(loss_fast.item(), 'diff:', (loss_fast - loss).item())
    results["loss_fast"] = (loss_fast.item(), (loss_fast - loss).item())

    # backward pass

    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n

    cmp('logits', dlogits, logits) # I can only get approximate to be true, my maxdiff is 6e-9

    results["shapes"] = (logits.shape, Yb.shape)
    results["softmax0"] = F.softmax(logits, 1)[0]
    results["dlogits0"] = dlogits[0] * n
    results["dlogits0_sum"] = dlogits[0].sum()

    # Exercise 3: backprop through batchnorm but all in one go
    # to complete this challenge look at the mathematical expression of the output of batchnorm,
    # take the derivative w.r.t. its input, simplify the expression, and just write it out

    # now:
    hpreact_fast = bngain * (hprebn - hprebn.mean(0, keepdim=True)) / torch.sqrt(hprebn.var(0, keepdim=True, unbiased=True) + 1e-5) + bnbias
    log('max diff:', (hpreact_fast - hpreact).abs().max())
    results["hpreact_fast"] = hpreact_fast
    results["hpreact_maxdiff"] = (hpreact_fast - hpreact).abs().max()

    # backward pass

    # calculate dhprebn given dhpreact (i.e. backprop through the batchnorm)
    # (you'll also need to use some of the variables from the forward pass up above)

    dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))

    cmp('hprebn', dhprebn, hprebn) # I can only get approximate to be true, my maxdiff is 9e-10

    results["bn_shapes"] = (dhprebn.shape, bngain.shape, bnvar_inv.shape, dbnraw.shape, dbnraw.sum(0).shape)

    # Exercise 4: putting it all together!
    # Train the MLP neural net with your own backward pass

    # init
    n_embd = 10 # the dimensionality of the character embedding vectors
    n_hidden = 200 # the number of neurons in the hidden layer of the MLP

    g = torch.Generator().manual_seed(2147483647) # for reproducibility
    C  = torch.randn((vocab_size, n_embd),            generator=g)
    # Layer 1
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5/3)/((n_embd * block_size)**0.5)
    b1 = torch.randn(n_hidden,                        generator=g) * 0.1
    # Layer 2
    W2 = torch.randn((n_hidden, vocab_size),          generator=g) * 0.1
    b2 = torch.randn(vocab_size,                      generator=g) * 0.1
    # BatchNorm parameters
    bngain = torch.randn((1, n_hidden))*0.1 + 1.0
    bnbias = torch.randn((1, n_hidden))*0.1

    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    log(sum(p.nelement() for p in parameters)) # number of parameters in total
    for p in parameters:
      p.requires_grad = True

    # same optimization as last time
    batch_size = 32
    n = batch_size # convenience
    lossi = []
    results["losses"] = losses = []

    # use this context manager for efficiency once your backward pass is written (TODO)
    with torch.no_grad():

      # kick off optimization
      for i in range(max_steps):

        # minibatch construct
        ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        Xb, Yb = Xtr[ix], Ytr[ix] # batch X,Y

        # forward pass
        emb = C[Xb] # embed the characters into vectors
        embcat = emb.view(emb.shape[0], -1) # concatenate the vectors
        # Linear layer
        hprebn = embcat @ W1 + b1 # hidden layer pre-activation
        # BatchNorm layer
        # -------------------------------------------------------------
        bnmean = hprebn.mean(0, keepdim=True)
        bnvar = hprebn.var(0, keepdim=True, unbiased=True)
        bnvar_inv = (bnvar + 1e-5)**-0.5
        bnraw = (hprebn - bnmean) * bnvar_inv
        hpreact = bngain * bnraw + bnbias
        # -------------------------------------------------------------
        # Non-linearity
        h = torch.tanh(hpreact) # hidden layer
        logits = h @ W2 + b2 # output layer
        loss = F.cross_entropy(logits, Yb) # loss function

        # backward pass
        for p in parameters:
          p.grad = None
        #loss.backward() # use this for correctness comparisons, delete it later!

        # manual backprop! #swole_doge_meme
        # -----------------
        dlogits = F.softmax(logits, 1)
        dlogits[range(n), Yb] -= 1
        dlogits /= n
        # 2nd layer backprop
        dh = dlogits @ W2.T
        dW2 = h.T @ dlogits
        db2 = dlogits.sum(0)
        # tanh
        dhpreact = (1.0 - h**2) * dh
        # batchnorm backprop
        dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
        dbnbias = dhpreact.sum(0, keepdim=True)
        dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))
        # 1st layer
        dembcat = dhprebn @ W1.T
        dW1 = embcat.T @ dhprebn
        db1 = dhprebn.sum(0)
        # embedding
        demb = dembcat.view(emb.shape)
        dC = torch.zeros_like(C)
        for k in range(Xb.shape[0]):
          for j in range(Xb.shape[1]):
            ix = Xb[k,j]
            dC[ix] += demb[k,j]
        grads = [dC, dW1, db1, dW2, db2, dbngain, dbnbias]
        # -----------------

        # update
        lr = 0.1 if i < 100000 else 0.01 # step learning rate decay
        for p, grad in zip(parameters, grads):
          #p.data += -lr * p.grad # old way of cheems doge (using PyTorch grad from .backward())
          p.data += -lr * grad # new way of swole doge TODO: enable

        # track stats
        if i % 10000 == 0: # print every once in a while
          log(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
        lossi.append(loss.log10().item())
        losses.append(loss.item())
    results["lossi"] = lossi

    # calibrate the batch norm at the end of training

    with torch.no_grad():
      # pass the training set through
      emb = C[Xtr]
      embcat = emb.view(emb.shape[0], -1)
      hpreact = embcat @ W1 + b1
      # measure the mean/std over the entire training set
      bnmean = hpreact.mean(0, keepdim=True)
      bnvar = hpreact.var(0, keepdim=True, unbiased=True)
    results["bnmean"], results["bnvar"] = bnmean, bnvar

    # evaluate train and val loss
    split_losses = results["split_loss"] = {}

    @torch.no_grad() # this decorator disables gradient tracking
    def split_loss(split):
      x,y = {
        'train': (Xtr, Ytr),
        'val': (Xdev, Ydev),
        'test': (Xte, Yte),
      }[split]
      emb = C[x] # (N, block_size, n_embd)
      embcat = emb.view(emb.shape[0], -1) # concat into (N, block_size * n_embd)
      hpreact = embcat @ W1 + b1
      hpreact = bngain * (hpreact - bnmean) * (bnvar + 1e-5)**-0.5 + bnbias
      h = torch.tanh(hpreact) # (N, n_hidden)
      logits = h @ W2 + b2 # (N, vocab_size)
      loss = F.cross_entropy(logits, y)
      log(split, loss.item())
      split_losses[split] = loss.item()

    split_loss('train')
    split_loss('val')

    # sample from the model
    g = torch.Generator().manual_seed(2147483647 + 10)
    samples = results["samples"] = []

    for _ in range(20):

        out = []
        context = [0] * block_size # initialize with all ...
        while True:
          # ------------
          # forward pass:
          # Embedding
          emb = C[torch.tensor([context])] # (1,block_size,d)
          embcat = emb.view(emb.shape[0], -1) # concat into (N, block_size * n_embd)
          hpreact = embcat @ W1 + b1
          hpreact = bngain * (hpreact - bnmean) * (bnvar + 1e-5)**-0.5 + bnbias
          h = torch.tanh(hpreact) # (N, n_hidden)
          logits = h @ W2 + b2 # (N, vocab_size)
          # ------------
          # Sample
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

"""Port of karpathy/nn-zero-to-hero ``lectures/makemore/makemore_part3_bn.ipynb``
("makemore: part 3", activations, gradients and BatchNorm): the MLP with a hand-written
BatchNorm layer and its running mean/std, the calibration over the training set and
``split_loss``; then "PyTorchifying": the ``Linear``, ``BatchNorm1d`` and ``Tanh``
classes, the six-layer network with ``retain_grad`` on every layer's output, the
update-to-data ratios ``ud``, the statistics the histogram cells print (activations,
their gradients, the weights' gradients, with ``torch.histogram(t, density=True)``),
eval mode, ``split_loss``, sampling, and the bonus cells' forward/backward statistics of
a ``Linear`` layer and of ``Linear`` + BatchNorm.

Copyright (c) 2022 Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nn-zero-to-hero/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells, in
order, are the body of ``run``; ``names.txt`` is ``run``'s ``words`` (a synthetic word
list drawn from a seed, the same for both frameworks: ``synthetic_words``); ``print`` is
``log``, and what the cells print or display is also returned (the histogram cells'
``hy, hx`` with their input ``t`` too). Left out: the ``matplotlib`` calls (the histogram cells keep their
computations) and the ``ipywidgets`` BatchNorm widget. The training loops take
``max_steps`` steps (200000 in the text; the second loop's ``if i >= 1000: break``
stays) on batches of 32 (the text's). ``ud``'s ``p.data.std()`` is written
``p.detach().std()``: pyad's ``.data`` is the NumPy array, whose ``std()`` divides by
``n`` (torch's by ``n - 1``); ``data_std=True`` runs the text's line (a strict xfail in
the tests). The draws from ``torch.Generator().manual_seed(2147483647)`` (``randn``,
``randint``, ``multinomial``) are the text's; the tests pass a namespace whose
``randn``, ``randint`` and ``multinomial`` draw from one shared NumPy stream, so both
frameworks see the same numbers.

Run it with ``python examples/ported/zth_part3_bn.py``.
"""
import random

import numpy as np


def synthetic_words(seed=0, n=200):
    """A stand-in for ``names.txt``: ``n`` lowercase words of 2 to 8 letters."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, rng.integers(2, 9))) for _ in range(n)]


def run(torch, words, max_steps=5, data_std=False, log=print):
    F = torch.nn.functional
    results = {}
    words = list(words)

    # read in all the words
    results["words8"] = words[:8]

    results["len"] = len(words)

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

    # MLP revisited
    n_embd = 10 # the dimensionality of the character embedding vectors
    n_hidden = 200 # the number of neurons in the hidden layer of the MLP

    g = torch.Generator().manual_seed(2147483647) # for reproducibility
    C  = torch.randn((vocab_size, n_embd),            generator=g)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5/3)/((n_embd * block_size)**0.5) #* 0.2
    #b1 = torch.randn(n_hidden,                        generator=g) * 0.01
    W2 = torch.randn((n_hidden, vocab_size),          generator=g) * 0.01
    b2 = torch.randn(vocab_size,                      generator=g) * 0

    # BatchNorm parameters
    bngain = torch.ones((1, n_hidden))
    bnbias = torch.zeros((1, n_hidden))
    bnmean_running = torch.zeros((1, n_hidden))
    bnstd_running = torch.ones((1, n_hidden))

    parameters = [C, W1, W2, b2, bngain, bnbias]
    log(sum(p.nelement() for p in parameters)) # number of parameters in total
    results["nparams"] = sum(p.nelement() for p in parameters)
    for p in parameters:
      p.requires_grad = True

    # same optimization as last time
    batch_size = 32
    lossi = []
    losses = results["losses"] = []

    for i in range(max_steps):

      # minibatch construct
      ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
      Xb, Yb = Xtr[ix], Ytr[ix] # batch X,Y

      # forward pass
      emb = C[Xb] # embed the characters into vectors
      embcat = emb.view(emb.shape[0], -1) # concatenate the vectors
      # Linear layer
      hpreact = embcat @ W1 #+ b1 # hidden layer pre-activation
      # BatchNorm layer
      # -------------------------------------------------------------
      bnmeani = hpreact.mean(0, keepdim=True)
      bnstdi = hpreact.std(0, keepdim=True)
      hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
      with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
      # -------------------------------------------------------------
      # Non-linearity
      h = torch.tanh(hpreact) # hidden layer
      logits = h @ W2 + b2 # output layer
      loss = F.cross_entropy(logits, Yb) # loss function

      # backward pass
      for p in parameters:
        p.grad = None
      loss.backward()

      # update
      lr = 0.1 if i < 100000 else 0.01 # step learning rate decay
      for p in parameters:
        p.data += -lr * p.grad

      # track stats
      if i % 10000 == 0: # print every once in a while
        log(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
      lossi.append(loss.log10().item())
      losses.append(loss.item())
    results["lossi"] = lossi
    results["running"] = (bnmean_running, bnstd_running)

    # calibrate the batch norm at the end of training

    with torch.no_grad():
      # pass the training set through
      emb = C[Xtr]
      embcat = emb.view(emb.shape[0], -1)
      hpreact = embcat @ W1 # + b1
      # measure the mean/std over the entire training set
      bnmean = hpreact.mean(0, keepdim=True)
      bnstd = hpreact.std(0, keepdim=True)
    results["calibrated"] = (bnmean, bnstd)

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
      hpreact = embcat @ W1 # + b1
      #hpreact = bngain * (hpreact - hpreact.mean(0, keepdim=True)) / hpreact.std(0, keepdim=True) + bnbias
      hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
      h = torch.tanh(hpreact) # (N, n_hidden)
      logits = h @ W2 + b2 # (N, vocab_size)
      loss = F.cross_entropy(logits, y)
      log(split, loss.item())
      split_losses[split] = loss.item()

    split_loss('train')
    split_loss('val')
    results["mlp_parameters"] = parameters

    # SUMMARY + PYTORCHIFYING -----------

    # Let's train a deeper network
    # The classes we create here are the same API as nn.Module in PyTorch

    class Linear:

      def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out), generator=g) / fan_in**0.5
        self.bias = torch.zeros(fan_out) if bias else None

      def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
          self.out += self.bias
        return self.out

      def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


    class BatchNorm1d:

      def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        # parameters (trained with backprop)
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        # buffers (trained with a running 'momentum update')
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

      def __call__(self, x):
        # calculate the forward pass
        if self.training:
          xmean = x.mean(0, keepdim=True) # batch mean
          xvar = x.var(0, keepdim=True) # batch variance
        else:
          xmean = self.running_mean
          xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps) # normalize to unit variance
        self.out = self.gamma * xhat + self.beta
        # update the buffers
        if self.training:
          with torch.no_grad():
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
            self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

      def parameters(self):
        return [self.gamma, self.beta]

    class Tanh:
      def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out
      def parameters(self):
        return []

    n_embd = 10 # the dimensionality of the character embedding vectors
    n_hidden = 100 # the number of neurons in the hidden layer of the MLP
    g = torch.Generator().manual_seed(2147483647) # for reproducibility

    C = torch.randn((vocab_size, n_embd),            generator=g)
    layers = [
      Linear(n_embd * block_size, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      Linear(           n_hidden, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      Linear(           n_hidden, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      Linear(           n_hidden, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      Linear(           n_hidden, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      Linear(           n_hidden, vocab_size, bias=False), BatchNorm1d(vocab_size),
    ]
    # layers = [
    #   Linear(n_embd * block_size, n_hidden), Tanh(),
    #   Linear(           n_hidden, n_hidden), Tanh(),
    #   Linear(           n_hidden, n_hidden), Tanh(),
    #   Linear(           n_hidden, n_hidden), Tanh(),
    #   Linear(           n_hidden, n_hidden), Tanh(),
    #   Linear(           n_hidden, vocab_size),
    # ]

    with torch.no_grad():
      # last layer: make less confident
      layers[-1].gamma *= 0.1
      #layers[-1].weight *= 0.1
      # all other layers: apply gain
      for layer in layers[:-1]:
        if isinstance(layer, Linear):
          layer.weight *= 1.0 #5/3

    parameters = [C] + [p for layer in layers for p in layer.parameters()]
    log(sum(p.nelement() for p in parameters)) # number of parameters in total
    results["deep_nparams"] = sum(p.nelement() for p in parameters)
    for p in parameters:
      p.requires_grad = True

    # same optimization as last time
    batch_size = 32
    lossi = []
    ud = []
    losses = results["deep_losses"] = []

    for i in range(max_steps):

      # minibatch construct
      ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
      Xb, Yb = Xtr[ix], Ytr[ix] # batch X,Y

      # forward pass
      emb = C[Xb] # embed the characters into vectors
      x = emb.view(emb.shape[0], -1) # concatenate the vectors
      for layer in layers:
        x = layer(x)
      loss = F.cross_entropy(x, Yb) # loss function

      # backward pass
      for layer in layers:
        layer.out.retain_grad() # AFTER_DEBUG: would take out retain_graph
      for p in parameters:
        p.grad = None
      loss.backward()

      # update
      lr = 0.1 if i < 150000 else 0.01 # step learning rate decay
      for p in parameters:
        p.data += -lr * p.grad

      # track stats
      if i % 10000 == 0: # print every once in a while
        log(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
      lossi.append(loss.log10().item())
      losses.append(loss.item())
      with torch.no_grad():
        if data_std:
          ud.append([((lr*p.grad).std() / p.data.std()).log10().item() for p in parameters])
        else:
          ud.append([((lr*p.grad).std() / p.detach().std()).log10().item() for p in parameters])

      if i >= 1000:
        break # AFTER_DEBUG: would take out obviously to run full optimization
    results["deep_lossi"] = lossi
    results["ud"] = ud

    # visualize histograms
    stats = results["activation stats"] = []
    legends = []
    for i, layer in enumerate(layers[:-1]): # note: exclude the output layer
      if isinstance(layer, Tanh):
        t = layer.out
        log('layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%' % (i, layer.__class__.__name__, t.mean(), t.std(), (t.abs() > 0.97).float().mean()*100))
        stats.append((i, t.mean(), t.std(), (t.abs() > 0.97).float().mean()*100))
        hy, hx = torch.histogram(t, density=True)
        stats.append((t.detach(), hx[:-1].detach(), hy.detach()))
        legends.append(f'layer {i} ({layer.__class__.__name__}')
    results["activation legends"] = legends

    # visualize histograms
    stats = results["gradient stats"] = []
    legends = []
    for i, layer in enumerate(layers[:-1]): # note: exclude the output layer
      if isinstance(layer, Tanh):
        t = layer.out.grad
        log('layer %d (%10s): mean %+f, std %e' % (i, layer.__class__.__name__, t.mean(), t.std()))
        stats.append((i, t.mean(), t.std()))
        hy, hx = torch.histogram(t, density=True)
        stats.append((t.detach(), hx[:-1].detach(), hy.detach()))
        legends.append(f'layer {i} ({layer.__class__.__name__}')
    results["gradient legends"] = legends

    # visualize histograms
    stats = results["weight gradient stats"] = []
    legends = []
    for i,p in enumerate(parameters):
      t = p.grad
      if p.ndim == 2:
        log('weight %10s | mean %+f | std %e | grad:data ratio %e' % (tuple(p.shape), t.mean(), t.std(), t.std() / p.std()))
        stats.append((tuple(p.shape), t.mean(), t.std(), t.std() / p.std()))
        hy, hx = torch.histogram(t, density=True)
        stats.append((t.detach(), hx[:-1].detach(), hy.detach()))
        legends.append(f'{i} {tuple(p.shape)}')
    results["weight gradient legends"] = legends

    lines = results["ud lines"] = []
    legends = []
    for i,p in enumerate(parameters):
      if p.ndim == 2:
        lines.append([ud[j][i] for j in range(len(ud))])
        legends.append('param %d' % i)
    results["ud legends"] = legends

    deep_split_losses = results["deep_split_loss"] = {}

    @torch.no_grad() # this decorator disables gradient tracking
    def split_loss(split):
      x,y = {
        'train': (Xtr, Ytr),
        'val': (Xdev, Ydev),
        'test': (Xte, Yte),
      }[split]
      emb = C[x] # (N, block_size, n_embd)
      x = emb.view(emb.shape[0], -1) # concat into (N, block_size * n_embd)
      for layer in layers:
        x = layer(x)
      loss = F.cross_entropy(x, y)
      log(split, loss.item())
      deep_split_losses[split] = loss.item()

    # put layers into eval mode
    for layer in layers:
      layer.training = False
    split_loss('train')
    split_loss('val')

    # sample from the model
    g = torch.Generator().manual_seed(2147483647 + 10)
    samples = results["samples"] = []

    for _ in range(20):

        out = []
        context = [0] * block_size # initialize with all ...
        while True:
          # forward pass the neural net
          emb = C[torch.tensor([context])] # (1,block_size,n_embd)
          x = emb.view(emb.shape[0], -1) # concatenate the vectors
          for layer in layers:
            x = layer(x)
          logits = x
          probs = F.softmax(logits, dim=1)
          # sample from the distribution
          ix = torch.multinomial(probs, num_samples=1, generator=g).item()
          # shift the context window and track the samples
          context = context[1:] + [ix]
          out.append(ix)
          # if we sample the special '.' token, break
          if ix == 0:
            break

        log(''.join(itos[i] for i in out)) # decode and print the generated word
        samples.append(''.join(itos[i] for i in out))
    results["deep_parameters"] = parameters

    # DONE; BONUS content below, not covered in video

    # Linear: activation statistics of forward and backward pass

    g = torch.Generator().manual_seed(2147483647)

    a = torch.randn((1000,1), requires_grad=True, generator=g)          # a.grad = b.T @ c.grad
    b = torch.randn((1000,1000), requires_grad=True, generator=g)       # b.grad = c.grad @ a.T
    c = b @ a
    loss = torch.randn(1000, generator=g) @ c
    a.retain_grad()
    b.retain_grad()
    c.retain_grad()
    loss.backward()
    log('a std:', a.std().item())
    log('b std:', b.std().item())
    log('c std:', c.std().item())
    log('-----')
    log('c grad std:', c.grad.std().item())
    log('a grad std:', a.grad.std().item())
    log('b grad std:', b.grad.std().item())
    results["linear stats"] = (a.std().item(), b.std().item(), c.std().item(),
                               c.grad.std().item(), a.grad.std().item(), b.grad.std().item())

    # Linear + BatchNorm: activation statistics of forward and backward pass

    g = torch.Generator().manual_seed(2147483647)

    n = 1000
    # linear layer ---
    inp = torch.randn(n, requires_grad=True, generator=g)
    w = torch.randn((n, n), requires_grad=True, generator=g) # / n**0.5
    x = w @ inp
    # bn layer ---
    xmean = x.mean()
    xvar = x.var()
    out = (x - xmean) / torch.sqrt(xvar + 1e-5)
    # ----
    loss = out @ torch.randn(n, generator=g)
    inp.retain_grad()
    x.retain_grad()
    w.retain_grad()
    out.retain_grad()
    loss.backward()

    log('inp std: ', inp.std().item())
    log('w std: ', w.std().item())
    log('x std: ', x.std().item())
    log('out std: ', out.std().item())
    log('------')
    log('out grad std: ', out.grad.std().item())
    log('x grad std: ', x.grad.std().item())
    log('w grad std: ', w.grad.std().item())
    log('inp grad std: ', inp.grad.std().item())
    results["linear bn stats"] = (inp.std().item(), w.std().item(), x.std().item(),
                                  out.std().item(), out.grad.std().item(),
                                  x.grad.std().item(), w.grad.std().item(),
                                  inp.grad.std().item())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, synthetic_words())

"""Port of karpathy/nn-zero-to-hero ``lectures/makemore/makemore_part5_cnn1.ipynb``
("makemore: part 5", building a WaveNet): the hand-written ``Linear``, ``BatchNorm1d``
(over dimensions (0, 1) of a 3-D input), ``Tanh``, ``Embedding``, ``FlattenConsecutive``
and ``Sequential`` classes, the hierarchical network with a context of 8, its SGD
training loop, eval mode, ``split_loss``, sampling, and the "forward a single example" /
"forward all of them" cells.

Copyright (c) 2022 Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nn-zero-to-hero/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells, in
order, are the body of ``run``; ``names.txt`` is ``run``'s ``words`` (a synthetic word
list drawn from a seed, the same for both frameworks: ``synthetic_words``); ``print`` is
``log``, and what the cells print or display is also returned; the ``matplotlib`` cell
(``plt.plot(torch.tensor(lossi).view(-1, 1000).mean(1))``) is left out. The training
loop takes ``max_steps`` steps (200000 in the text) on batches of 32 (the text's); the
sizes (``n_embd = 24``, ``n_hidden = 128``) are the text's. The draws from the global
generator (``torch.manual_seed(42)``, then ``randn``, ``randint``, ``multinomial``) are
the text's; the tests pass a namespace whose ``randn``, ``randint`` and ``multinomial``
draw from one shared NumPy stream, so both frameworks see the same numbers.

Run it with ``python examples/ported/zth_part5_wavenet.py``.
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

    # shuffle up the words
    random.seed(42)
    random.shuffle(words)

    # build the dataset
    block_size = 8 # context length: how many characters do we take to predict the next one?

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

    n1 = int(0.8*len(words))
    n2 = int(0.9*len(words))
    Xtr,  Ytr  = build_dataset(words[:n1])     # 80%
    Xdev, Ydev = build_dataset(words[n1:n2])   # 10%
    Xte,  Yte  = build_dataset(words[n2:])     # 10%
    results["data"] = (Xtr, Ytr, Xdev, Ydev, Xte, Yte)

    results["examples"] = examples = []
    for x,y in zip(Xtr[:20], Ytr[:20]):
      log(''.join(itos[ix.item()] for ix in x), '-->', itos[y.item()])
      examples.append((''.join(itos[ix.item()] for ix in x), itos[y.item()]))

    # Near copy paste of the layers we have developed in Part 3

    # -----------------------------------------------------------------------------------------------
    class Linear:

      def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out)) / fan_in**0.5 # note: kaiming init
        self.bias = torch.zeros(fan_out) if bias else None

      def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
          self.out += self.bias
        return self.out

      def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])

    # -----------------------------------------------------------------------------------------------
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
          if x.ndim == 2:
            dim = 0
          elif x.ndim == 3:
            dim = (0,1)
          xmean = x.mean(dim, keepdim=True) # batch mean
          xvar = x.var(dim, keepdim=True) # batch variance
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

    # -----------------------------------------------------------------------------------------------
    class Tanh:
      def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out
      def parameters(self):
        return []

    # -----------------------------------------------------------------------------------------------
    class Embedding:

      def __init__(self, num_embeddings, embedding_dim):
        self.weight = torch.randn((num_embeddings, embedding_dim))

      def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

      def parameters(self):
        return [self.weight]

    # -----------------------------------------------------------------------------------------------
    class FlattenConsecutive:

      def __init__(self, n):
        self.n = n

      def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T//self.n, C*self.n)
        if x.shape[1] == 1:
          x = x.squeeze(1)
        self.out = x
        return self.out

      def parameters(self):
        return []

    # -----------------------------------------------------------------------------------------------
    class Sequential:

      def __init__(self, layers):
        self.layers = layers

      def __call__(self, x):
        for layer in self.layers:
          x = layer(x)
        self.out = x
        return self.out

      def parameters(self):
        # get parameters of all layers and stretch them out into one list
        return [p for layer in self.layers for p in layer.parameters()]

    torch.manual_seed(42); # seed rng for reproducibility

    # original network
    # n_embd = 10 # the dimensionality of the character embedding vectors
    # n_hidden = 300 # the number of neurons in the hidden layer of the MLP
    # model = Sequential([
    #   Embedding(vocab_size, n_embd),
    #   FlattenConsecutive(8), Linear(n_embd * 8, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    #   Linear(n_hidden, vocab_size),
    # ])

    # hierarchical network
    n_embd = 24 # the dimensionality of the character embedding vectors
    n_hidden = 128 # the number of neurons in the hidden layer of the MLP
    model = Sequential([
      Embedding(vocab_size, n_embd),
      FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      FlattenConsecutive(2), Linear(n_hidden*2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      FlattenConsecutive(2), Linear(n_hidden*2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
      Linear(n_hidden, vocab_size),
    ])

    # parameter init
    with torch.no_grad():
      model.layers[-1].weight *= 0.1 # last layer make less confident

    parameters = model.parameters()
    log(sum(p.nelement() for p in parameters)) # number of parameters in total
    results["nparams"] = sum(p.nelement() for p in parameters)
    for p in parameters:
      p.requires_grad = True

    # same optimization as last time
    batch_size = 32
    lossi = []
    results["losses"] = losses = []

    for i in range(max_steps):

      # minibatch construct
      ix = torch.randint(0, Xtr.shape[0], (batch_size,))
      Xb, Yb = Xtr[ix], Ytr[ix] # batch X,Y

      # forward pass
      logits = model(Xb)
      loss = F.cross_entropy(logits, Yb) # loss function

      # backward pass
      for p in parameters:
        p.grad = None
      loss.backward()

      # update: simple SGD
      lr = 0.1 if i < 150000 else 0.01 # step learning rate decay
      for p in parameters:
        p.data += -lr * p.grad

      # track stats
      if i % 10000 == 0: # print every once in a while
        log(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
      lossi.append(loss.log10().item())
      losses.append(loss.item())
    results["lossi"] = lossi

    # put layers into eval mode (needed for batchnorm especially)
    for layer in model.layers:
      layer.training = False
    results["running"] = [(layer.running_mean, layer.running_var) for layer in model.layers
                          if isinstance(layer, BatchNorm1d)]

    # evaluate the loss
    split_losses = results["split_loss"] = {}

    @torch.no_grad() # this decorator disables gradient tracking inside pytorch
    def split_loss(split):
      x,y = {
        'train': (Xtr, Ytr),
        'val': (Xdev, Ydev),
        'test': (Xte, Yte),
      }[split]
      logits = model(x)
      loss = F.cross_entropy(logits, y)
      log(split, loss.item())
      split_losses[split] = loss.item()

    split_loss('train')
    split_loss('val')

    # sample from the model
    samples = results["samples"] = []
    for _ in range(20):

        out = []
        context = [0] * block_size # initialize with all ...
        while True:
          # forward pass the neural net
          logits = model(torch.tensor([context]))
          probs = F.softmax(logits, dim=1)
          # sample from the distribution
          ix = torch.multinomial(probs, num_samples=1).item()
          # shift the context window and track the samples
          context = context[1:] + [ix]
          out.append(ix)
          # if we sample the special '.' token, break
          if ix == 0:
            break

        log(''.join(itos[i] for i in out)) # decode and print the generated word
        samples.append(''.join(itos[i] for i in out))

    results["examples7"] = examples = []
    for x,y in zip(Xtr[7:15], Ytr[7:15]):
      log(''.join(itos[ix.item()] for ix in x), '-->', itos[y.item()])
      examples.append((''.join(itos[ix.item()] for ix in x), itos[y.item()]))

    # forward a single example:
    logits = model(Xtr[[7]])
    results["single"] = (logits.shape, logits)

    # forward all of them
    logits = torch.zeros(8, 27)
    for i in range(8):
      logits[i] = model(Xtr[[7+i]])
    results["all"] = (logits.shape, logits)

    # convolution is a "for loop"
    # allows us to forward Linear layers efficiently over space

    results["parameters"] = parameters
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, synthetic_words())

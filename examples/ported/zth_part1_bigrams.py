"""Port of karpathy/nn-zero-to-hero ``lectures/makemore/makemore_part1_bigrams.ipynb``
("makemore: part 1", the bigram character-level language model): the bigram counts in
a dict and in an int32 ``N``, sampling rows with ``multinomial``, the smoothed
probability matrix ``P``, the log likelihood of the data, the one-hot "neural net"
(``F.one_hot(...).float() @ W``, softmax by hand, the five printed examples' negative
log likelihoods), one manual optimization step, gradient descent over the whole data
set with the ``0.01*(W**2).mean()`` regularization, and sampling from the trained net.

Copyright (c) 2022 Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/nn-zero-to-hero/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells, in
order, are the body of ``run``; ``names.txt`` is ``run``'s ``words``: ``synthetic_words``
draws a word list from a seed (the same for both frameworks) after the notebook's first
five names (its printed ``words[:10]``), so that ``words[:1]`` is ``emma`` and gives the
five bigrams the ``range(5)`` cells index. ``print`` is ``log``, and what the cells print
or display is also returned. Left out: the ``matplotlib`` cells (the annotated ``N``
heat map, ``plt.imshow(xenc)``). The stored notebook lists the four cells ``p.shape``,
``P.shape``, ``P.sum(1, keepdim=True).shape`` and ``P.sum(1).shape`` before the cell that
defines ``P`` (they ran after it): here they run after it. The gradient-descent loop
takes ``descent_steps`` steps (``range(1)`` in the stored text). The draws from
``torch.Generator().manual_seed(2147483647)`` and from the global generator (``rand``,
``randn``, ``multinomial``) are the text's; the tests pass a namespace whose ``rand``,
``randn`` and ``multinomial`` draw from one shared NumPy stream, so both frameworks see
the same numbers.

Run it with ``python examples/ported/zth_part1_bigrams.py``.
"""
import numpy as np


def synthetic_words(seed=0, n=200):
    """A stand-in for ``names.txt``: the notebook's first five names, then ``n``
    lowercase words of 2 to 8 letters."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["emma", "olivia", "ava", "isabella", "sophia"] + [
        "".join(rng.choice(letters, rng.integers(2, 9))) for _ in range(n)]


def run(torch, words, descent_steps=1, log=print):
    results = {}
    words = list(words)

    results["words10"] = words[:10]

    results["len"] = len(words)

    results["min"] = min(len(w) for w in words)

    results["max"] = max(len(w) for w in words)

    b = {}
    for w in words:
      chs = ['<S>'] + list(w) + ['<E>']
      for ch1, ch2 in zip(chs, chs[1:]):
        bigram = (ch1, ch2)
        b[bigram] = b.get(bigram, 0) + 1

    results["bigrams"] = sorted(b.items(), key = lambda kv: -kv[1])

    N = torch.zeros((27, 27), dtype=torch.int32)

    chars = sorted(list(set(''.join(words))))
    stoi = {s:i+1 for i,s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i:s for s,i in stoi.items()}


    for w in words:
      chs = ['.'] + list(w) + ['.']
      for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1

    results["N"] = N

    results["N[0]"] = N[0]

    p = N[0].float()
    p = p / p.sum()
    results["p"] = p

    g = torch.Generator().manual_seed(2147483647)
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    results["itos[ix]"] = itos[ix]

    g = torch.Generator().manual_seed(2147483647)
    p = torch.rand(3, generator=g)
    p = p / p.sum()
    results["p3"] = p

    results["multinomial100"] = torch.multinomial(p, num_samples=100, replacement=True, generator=g)

    P = (N+1).float()
    P /= P.sum(1, keepdims=True)

    results["p.shape"] = p.shape

    results["P.shape"] = P.shape

    results["P.sum(1, keepdim=True).shape"] = P.sum(1, keepdim=True).shape

    # 27, 27
    # 27,  1

    results["P.sum(1).shape"] = P.sum(1).shape

    # 27, 27
    #  1, 27

    results["P"] = P

    g = torch.Generator().manual_seed(2147483647)
    results["samples_P"] = samples = []

    for i in range(5):

      out = []
      ix = 0
      while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
          break
      log(''.join(out))
      samples.append(''.join(out))

    # GOAL: maximize likelihood of the data w.r.t. model parameters (statistical modeling)
    # equivalent to maximizing the log likelihood (because log is monotonic)
    # equivalent to minimizing the negative log likelihood
    # equivalent to minimizing the average negative log likelihood

    # log(a*b*c) = log(a) + log(b) + log(c)

    log_likelihood = 0.0
    n = 0

    for w in words:
    #for w in ["andrejq"]:
      chs = ['.'] + list(w) + ['.']
      for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        prob = P[ix1, ix2]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
        #print(f'{ch1}{ch2}: {prob:.4f} {logprob:.4f}')

    log(f'{log_likelihood=}')
    nll = -log_likelihood
    log(f'{nll=}')
    log(f'{nll/n}')
    results["likelihood"] = (log_likelihood, nll, nll/n, n)

    # create the training set of bigrams (x,y)
    xs, ys = [], []

    for w in words[:1]:
      chs = ['.'] + list(w) + ['.']
      for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        log(ch1, ch2)
        xs.append(ix1)
        ys.append(ix2)

    xs = torch.tensor(xs)
    ys = torch.tensor(ys)

    results["xs"] = xs

    results["ys"] = ys

    F = torch.nn.functional
    xenc = F.one_hot(xs, num_classes=27).float()
    results["xenc"] = xenc

    results["xenc.shape"] = xenc.shape

    results["xenc.dtype"] = xenc.dtype

    W = torch.randn((27, 1))
    results["xenc @ W"] = xenc @ W

    logits = xenc @ W # log-counts
    counts = logits.exp() # equivalent N
    probs = counts / counts.sum(1, keepdims=True)
    results["probs (27, 1)"] = probs

    results["probs[0]"] = probs[0]

    results["probs[0].shape"] = probs[0].shape

    results["probs[0].sum()"] = probs[0].sum()

    # (5, 27) @ (27, 27) -> (5, 27)

    # SUMMARY ------------------------------>>>>

    # randomly initialize 27 neurons' weights. each neuron receives 27 inputs
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g)

    xenc = F.one_hot(xs, num_classes=27).float() # input to the network: one-hot encoding
    logits = xenc @ W # predict log-counts
    counts = logits.exp() # counts, equivalent to N
    probs = counts / counts.sum(1, keepdims=True) # probabilities for next character
    # btw: the last 2 lines here are together called a 'softmax'

    results["probs.shape"] = probs.shape
    results["probs"] = probs

    examples = results["examples"] = []

    nlls = torch.zeros(5)
    for i in range(5):
      # i-th bigram:
      x = xs[i].item() # input character index
      y = ys[i].item() # label character index
      log('--------')
      log(f'bigram example {i+1}: {itos[x]}{itos[y]} (indexes {x},{y})')
      log('input to the neural net:', x)
      log('output probabilities from the neural net:', probs[i])
      log('label (actual next character):', y)
      p = probs[i, y]
      log('probability assigned by the net to the the correct character:', p.item())
      logp = torch.log(p)
      log('log likelihood:', logp.item())
      nll = -logp
      log('negative log likelihood:', nll.item())
      nlls[i] = nll
      examples.append((f'bigram example {i+1}: {itos[x]}{itos[y]} (indexes {x},{y})', x,
                       probs[i], y, p.item(), logp.item(), nll.item()))

    log('=========')
    log('average negative log likelihood, i.e. loss =', nlls.mean().item())
    results["nlls"] = (nlls, nlls.mean().item())

    # --------- !!! OPTIMIZATION !!! yay --------------

    # randomly initialize 27 neurons' weights. each neuron receives 27 inputs
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g, requires_grad=True)

    # forward pass
    xenc = F.one_hot(xs, num_classes=27).float() # input to the network: one-hot encoding
    logits = xenc @ W # predict log-counts
    counts = logits.exp() # counts, equivalent to N
    probs = counts / counts.sum(1, keepdims=True) # probabilities for next character
    loss = -probs[torch.arange(5), ys].log().mean()

    log(loss.item())
    results["loss5"] = loss.item()

    # backward pass
    W.grad = None # set to zero the gradient
    loss.backward()
    results["W.grad"] = W.grad.clone()

    W.data += -0.1 * W.grad
    results["W after one step"] = W.detach().clone()

    # --------- !!! OPTIMIZATION !!! yay, but this time actually --------------

    # create the dataset
    xs, ys = [], []
    for w in words:
      chs = ['.'] + list(w) + ['.']
      for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        xs.append(ix1)
        ys.append(ix2)
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()
    log('number of examples: ', num)
    results["num"] = num

    # initialize the 'network'
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g, requires_grad=True)

    losses = results["losses"] = []

    # gradient descent
    for k in range(descent_steps):

      # forward pass
      xenc = F.one_hot(xs, num_classes=27).float() # input to the network: one-hot encoding
      logits = xenc @ W # predict log-counts
      counts = logits.exp() # counts, equivalent to N
      probs = counts / counts.sum(1, keepdims=True) # probabilities for next character
      loss = -probs[torch.arange(num), ys].log().mean() + 0.01*(W**2).mean()
      log(loss.item())
      losses.append(loss.item())

      # backward pass
      W.grad = None # set to zero the gradient
      loss.backward()

      # update
      W.data += -50 * W.grad

    # finally, sample from the 'neural net' model
    g = torch.Generator().manual_seed(2147483647)
    results["samples_W"] = samples = []

    for i in range(5):

      out = []
      ix = 0
      while True:

        # ----------
        # BEFORE:
        #p = P[ix]
        # ----------
        # NOW:
        xenc = F.one_hot(torch.tensor([ix]), num_classes=27).float()
        logits = xenc @ W # predict log-counts
        counts = logits.exp() # counts, equivalent to N
        p = counts / counts.sum(1, keepdims=True) # probabilities for next character
        # ----------

        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
          break
      log(''.join(out))
      samples.append(''.join(out))

    results["W"] = W
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, synthetic_words())

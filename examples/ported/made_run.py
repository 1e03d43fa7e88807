"""Port of karpathy/pytorch-made: ``made.py`` (``MaskedLinear`` with its ``mask``
buffer, ``MADE`` with its orderings and connectivities drawn from
``np.random.RandomState(seed)``, cycled through ``num_masks`` seeds, and the file's
``__main__`` check of the autoregressive property by backpropagating each output) and
``run.py`` (order/connectivity-agnostic training: the masks resampled every
``resample_every`` steps, test batches averaged over ``samples`` mask draws, the summed
``binary_cross_entropy_with_logits(size_average=False) / B``, Adam with weight decay and
``StepLR`` stepped with the epoch).

Copyright (c) Andrej Karpathy, under the MIT License (the License section of
https://github.com/karpathy/pytorch-made's README).

Ported by changing the imports (``import pyad as torch``). ``made.py``'s module is
``build``, its ``__main__`` block ``made_main`` and ``run.py``'s ``__main__`` block
``run``, whose command-line ``args`` are keyword arguments (``hiddens``, ``num_masks``,
``resample_every``, ``samples``, and ``epochs`` for the text's 100); ``print`` is
``log``. Lines that differ:

- the downloaded ``binarized_mnist.npz`` is a synthetic binarized-MNIST-shaped data set
  (784 columns of 0/1 float32, a few hundred rows, drawn with NumPy from ``seed``);
- ``.cuda()`` is left out (CPU);
- ``torch._C.set_grad_enabled``, which torch 2.13 no longer has (it raises
  ``AttributeError`` there), is ``torch._C._set_grad_enabled``, and ``run`` turns grad
  mode back on when it returns (the text leaves it off after its last test epoch);
- ``MaskedLinear.set_mask``'s ``self.mask.data.copy_(...)`` writes the buffer under
  ``torch.no_grad()`` without ``.data`` (pyad's ``.data`` is the NumPy array);
  ``verbatim_data=True`` runs the text's line.

Run it with ``python examples/ported/made_run.py``.
"""
import numpy as np


def build(torch, verbatim_data=False):
    """made.py's ``MaskedLinear`` and ``MADE`` for the namespace ``torch``."""
    nn = torch.nn
    F = torch.nn.functional

    # ------------------------------------------------------------------------------

    class MaskedLinear(nn.Linear):
        """ same as Linear except has a configurable mask on the weights """

        def __init__(self, in_features, out_features, bias=True):
            super().__init__(in_features, out_features, bias)
            self.register_buffer('mask', torch.ones(out_features, in_features))

        def set_mask(self, mask):
            if verbatim_data:
                self.mask.data.copy_(torch.from_numpy(mask.astype(np.uint8).T))
            else:
                with torch.no_grad():
                    self.mask.copy_(torch.from_numpy(mask.astype(np.uint8).T))

        def forward(self, input):
            return F.linear(input, self.mask * self.weight, self.bias)

    class MADE(nn.Module):
        def __init__(self, nin, hidden_sizes, nout, num_masks=1, natural_ordering=False):
            """
            nin: integer; number of inputs
            hidden sizes: a list of integers; number of units in hidden layers
            nout: integer; number of outputs, which usually collectively parameterize some kind of 1D distribution
                  note: if nout is e.g. 2x larger than nin (perhaps the mean and std), then the first nin
                  will be all the means and the second nin will be stds. i.e. output dimensions depend on the
                  same input dimensions in "chunks" and should be carefully decoded downstream appropriately.
                  the output of running the tests for this file makes this a bit more clear with examples.
            num_masks: can be used to train ensemble over orderings/connections
            natural_ordering: force natural ordering of dimensions, don't use random permutations
            """

            super().__init__()
            self.nin = nin
            self.nout = nout
            self.hidden_sizes = hidden_sizes
            assert self.nout % self.nin == 0, "nout must be integer multiple of nin"

            # define a simple MLP neural net
            self.net = []
            hs = [nin] + hidden_sizes + [nout]
            for h0,h1 in zip(hs, hs[1:]):
                self.net.extend([
                        MaskedLinear(h0, h1),
                        nn.ReLU(),
                    ])
            self.net.pop() # pop the last ReLU for the output layer
            self.net = nn.Sequential(*self.net)

            # seeds for orders/connectivities of the model ensemble
            self.natural_ordering = natural_ordering
            self.num_masks = num_masks
            self.seed = 0 # for cycling through num_masks orderings

            self.m = {}
            self.update_masks() # builds the initial self.m connectivity
            # note, we could also precompute the masks and cache them, but this
            # could get memory expensive for large number of masks.

        def update_masks(self):
            if self.m and self.num_masks == 1: return # only a single seed, skip for efficiency
            L = len(self.hidden_sizes)

            # fetch the next seed and construct a random stream
            rng = np.random.RandomState(self.seed)
            self.seed = (self.seed + 1) % self.num_masks

            # sample the order of the inputs and the connectivity of all neurons
            self.m[-1] = np.arange(self.nin) if self.natural_ordering else rng.permutation(self.nin)
            for l in range(L):
                self.m[l] = rng.randint(self.m[l-1].min(), self.nin-1, size=self.hidden_sizes[l])

            # construct the mask matrices
            masks = [self.m[l-1][:,None] <= self.m[l][None,:] for l in range(L)]
            masks.append(self.m[L-1][:,None] < self.m[-1][None,:])

            # handle the case where nout = nin * k, for integer k > 1
            if self.nout > self.nin:
                k = int(self.nout / self.nin)
                # replicate the mask across the other outputs
                masks[-1] = np.concatenate([masks[-1]]*k, axis=1)

            # set the masks in all MaskedLinear layers
            layers = [l for l in self.net.modules() if isinstance(l, MaskedLinear)]
            for l,m in zip(layers, masks):
                l.set_mask(m)

        def forward(self, x):
            return self.net(x)

    return MaskedLinear, MADE


def made_main(torch, D=10, configs=None, init=None, log=print, verbatim_data=False):
    """made.py's ``__main__``: which inputs each output depends on, for each config.

    Returns the ``res`` lists (``(len(depends_ix), k, depends_ix, isok)`` sorted)."""
    MaskedLinear, MADE = build(torch, verbatim_data)
    from_numpy = torch.from_numpy
    Variable = torch.autograd.Variable

    # run a quick and dirty test for the autoregressive property
    rng = np.random.RandomState(14)
    x = (rng.rand(1, D) > 0.5).astype(np.float32)

    if configs is None:
        configs = [
            (D, [], D, False),                 # test various hidden sizes
            (D, [200], D, False),
            (D, [200, 220], D, False),
            (D, [200, 220, 230], D, False),
            (D, [200, 220], D, True),          # natural ordering test
            (D, [200, 220], 2*D, True),       # test nout > nin
            (D, [200, 220], 3*D, False),       # test nout > nin
        ]

    results = []
    for nin, hiddens, nout, natural_ordering in configs:

        log("checking nin %d, hiddens %s, nout %d, natural %s" %
             (nin, hiddens, nout, natural_ordering))
        model = MADE(nin, hiddens, nout, natural_ordering=natural_ordering)
        if init is not None:
            init(model)

        # run backpropagation for each dimension to compute what other
        # dimensions it depends on.
        res = []
        for k in range(nout):
            xtr = Variable(from_numpy(x), requires_grad=True)
            xtrhat = model(xtr)
            loss = xtrhat[0,k]
            loss.backward()

            depends = (xtr.grad[0].numpy() != 0).astype(np.uint8)
            depends_ix = list(np.where(depends)[0])
            isok = k % nin not in depends_ix

            res.append((len(depends_ix), k, depends_ix, isok))

        # pretty print the dependencies
        res.sort()
        for nl, k, ix, isok in res:
            log("output %2d depends on inputs: %30s : %s" % (k, ix, "OK" if isok else "NOTOK"))
        results.append(res)
    return results


def binarized_mnist(n_train=300, n_valid=200, D=28 * 28, seed=0):
    """A synthetic stand-in for ``binarized_mnist.npz``: 0/1 float32 rows of 784
    pixels, brighter towards the centre of the 28x28 image (drawn from ``seed``)."""
    rng = np.random.RandomState(seed)
    side = int(round(D ** 0.5))
    yy, xx = np.mgrid[:side, :side]
    p = np.exp(-((yy - side / 2) ** 2 + (xx - side / 2) ** 2) / (2 * (side / 5) ** 2))
    p = (0.05 + 0.8 * p).reshape(-1)[:D]

    def draw(n):
        return (rng.rand(n, D) < p).astype(np.float32)

    return {'train_data': draw(n_train), 'valid_data': draw(n_valid)}


def run(torch, hiddens='500', num_masks=1, resample_every=20, samples=1, epochs=100,
        n_train=300, n_valid=200, seed=0, init=None, log=print, trace=None,
        verbatim_data=False):
    """run.py's ``__main__`` on a synthetic data set; returns every batch's loss (test
    batches and training batches, in the order they ran).

    ``trace(name, value)``, if given, receives each epoch's learning rate, the masks
    and orderings after each resampling, and each epoch's average losses."""
    MaskedLinear, MADE = build(torch, verbatim_data)
    F = torch.nn.functional
    Variable = torch.autograd.Variable
    args = type('args', (), dict(hiddens=hiddens, num_masks=num_masks,
                                 resample_every=resample_every, samples=samples))
    trace = trace or (lambda name, value: None)
    losses = []

    # ------------------------------------------------------------------------------
    def run_epoch(split, upto=None):
        torch._C._set_grad_enabled(split == 'train') # enable/disable grad for efficiency of forwarding test batches
        model.train() if split == 'train' else model.eval()
        nsamples = 1 if split == 'train' else args.samples
        x = xtr if split == 'train' else xte
        N,D = x.size()
        B = 100 # batch size
        nsteps = N//B if upto is None else min(N//B, upto)
        lossfs = []
        for step in range(nsteps):

            # fetch the next batch of data
            xb = Variable(x[step*B:step*B+B])

            # get the logits, potentially run the same batch a number of times, resampling each time
            xbhat = torch.zeros_like(xb)
            for s in range(nsamples):
                # perform order/connectivity-agnostic training by resampling the masks
                if step % args.resample_every == 0 or split == 'test': # if in test, cycle masks every time
                    model.update_masks()
                    trace('m', {l: v.copy() for l, v in model.m.items()})
                # forward the model
                xbhat += model(xb)
            xbhat /= nsamples

            # evaluate the binary cross entropy loss
            loss = F.binary_cross_entropy_with_logits(xbhat, xb, size_average=False) / B
            lossf = loss.data.item()
            lossfs.append(lossf)
            losses.append(lossf)

            # backward/update
            if split == 'train':
                opt.zero_grad()
                loss.backward()
                opt.step()

        log("%s epoch average loss: %f" % (split, np.mean(lossfs)))
        trace(split + ' average', np.mean(lossfs))
    # ------------------------------------------------------------------------------

    # reproducibility is good
    np.random.seed(42)
    torch.manual_seed(42)

    try:
        # load the dataset
        log("loading binarized mnist from", "a synthetic data set")
        mnist = binarized_mnist(n_train, n_valid, seed=seed)
        xtr, xte = mnist['train_data'], mnist['valid_data']
        xtr = torch.from_numpy(xtr)
        xte = torch.from_numpy(xte)

        # construct model
        hidden_list = list(map(int, args.hiddens.split(',')))
        model = MADE(xtr.size(1), hidden_list, xtr.size(1), num_masks=args.num_masks)
        log("number of model parameters:",sum([np.prod(p.size()) for p in model.parameters()]))
        if init is not None:
            init(model)

        # set up the optimizer
        opt = torch.optim.Adam(model.parameters(), 1e-3, weight_decay=1e-4)
        scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=45, gamma=0.1)

        # start the training
        for epoch in range(epochs):
            log("epoch %d" % (epoch, ))
            scheduler.step(epoch)
            trace('lr', opt.param_groups[0]['lr'])
            run_epoch('test', upto=5) # run only a few batches for approximate test accuracy
            run_epoch('train')

        log("optimization done. full test set eval:")
        run_epoch('test')
    finally:
        torch._C._set_grad_enabled(True)
    return losses


if __name__ == "__main__":
    import pyad as torch
    made_main(torch, configs=[(10, [20, 22], 10, False), (10, [20, 22], 20, True)])
    losses = run(torch, hiddens='64', num_masks=2, resample_every=1, samples=2, epochs=2)
    print("last loss %.4f" % losses[-1])

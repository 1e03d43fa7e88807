"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/406_GAN.py``: a generator of
15-point "paintings" from 5 random ideas against a discriminator, the losses written
with ``torch.log``, two Adams, ``backward(retain_graph=True)``.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The artist's
``np.random.uniform`` is a seeded NumPy generator's; the plots are left out (the D
accuracy and score they show are returned, with ``.detach().numpy()`` for
``.data.numpy()``: pyad's ``.data`` is the NumPy array itself); the number of steps
and the batch size are ``run``'s keyword arguments. The text steps G before computing
D's loss on ``G_paintings.detach()``; that order is kept.

Run it with ``python examples/ported/morvan_406_GAN.py``.
"""
import numpy as np


def run(torch, n_steps=20, BATCH_SIZE=64, show_every=5, seed=0, init=None, log=print):
    nn = torch.nn
    np_random = np.random.RandomState(seed)
    results = []

    # Hyper Parameters
    LR_G = 0.0001           # learning rate for generator
    LR_D = 0.0001           # learning rate for discriminator
    N_IDEAS = 5             # think of this as number of ideas for generating an art work (Generator)
    ART_COMPONENTS = 15     # it could be total point G can draw in the canvas
    PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])

    def artist_works():     # painting from the famous artist (real target)
        a = np_random.uniform(1, 2, size=BATCH_SIZE)[:, np.newaxis]
        paintings = a * np.power(PAINT_POINTS, 2) + (a-1)
        paintings = torch.from_numpy(paintings).float()
        return paintings

    G = nn.Sequential(                      # Generator
        nn.Linear(N_IDEAS, 128),            # random ideas (could from normal distribution)
        nn.ReLU(),
        nn.Linear(128, ART_COMPONENTS),     # making a painting from these random ideas
    )

    D = nn.Sequential(                      # Discriminator
        nn.Linear(ART_COMPONENTS, 128),     # receive art work either from the famous artist or a newbie like G
        nn.ReLU(),
        nn.Linear(128, 1),
        nn.Sigmoid(),                       # tell the probability that the art work is made by artist
    )
    if init is not None:
        init(G)
        init(D)

    opt_D = torch.optim.Adam(D.parameters(), lr=LR_D)
    opt_G = torch.optim.Adam(G.parameters(), lr=LR_G)

    for step in range(n_steps):
        artist_paintings = artist_works()  # real painting from artist
        G_ideas = torch.randn(BATCH_SIZE, N_IDEAS, requires_grad=True)  # random ideas\n
        G_paintings = G(G_ideas)                    # fake painting from G (random ideas)
        prob_artist1 = D(G_paintings)               # D try to reduce this prob
        G_loss = torch.mean(torch.log(1. - prob_artist1))
        opt_G.zero_grad()
        G_loss.backward()
        opt_G.step()

        prob_artist0 = D(artist_paintings)          # D try to increase this prob
        prob_artist1 = D(G_paintings.detach())  # D try to reduce this prob
        D_loss = - torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))
        opt_D.zero_grad()
        D_loss.backward(retain_graph=True)      # reusing computational graph
        opt_D.step()
        results.extend([G_loss.item(), D_loss.item()])

        if step % show_every == 0:  # plotting
            log('D accuracy=%.2f (0.5 for D to converge)' % prob_artist0.detach().numpy().mean())
            log('D score= %.2f (-1.38 for G to converge)' % -D_loss.detach().numpy())
            results.append(float(prob_artist0.detach().numpy().mean()))
            results.extend(G_paintings.detach().numpy()[0].tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

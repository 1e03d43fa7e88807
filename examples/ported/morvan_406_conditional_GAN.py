"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/406_conditional_GAN.py``: 406's
GAN with a class label concatenated to G's ideas and to D's inputs, both losses from one
graph (``D_loss.backward(retain_graph=True)`` then ``G_loss.backward()``), and a
painting generated for the upper class at the end.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The artist's
``np.random.uniform`` is a seeded NumPy generator's; the plots are left out (what they
show is returned, with ``.detach().numpy()`` for ``.data.numpy()``: pyad's ``.data`` is
the NumPy array itself, whose ``labels.data[0, 0]`` the text also reads); the number of
steps and the batch size are ``run``'s keyword arguments. The text's order
(``opt_D.step()`` before ``G_loss.backward()`` through D's graph) fails in torch 2.13
and in pyad: D's weights, saved for the backward, were changed in place.
``step_d_after_g_backward=True`` steps both optimizers after the two backwards, G's
restricted to G's parameters (``backward(inputs=...)``), which is what the text's old
torch computed for D and, for G, with D's weights before the step.

Run it with ``python examples/ported/morvan_406_conditional_GAN.py``.
"""
import numpy as np


def run(torch, n_steps=20, BATCH_SIZE=64, show_every=5, seed=0,
        step_d_after_g_backward=False, init=None, log=print):
    nn = torch.nn
    np_random = np.random.RandomState(seed)
    results = []

    # Hyper Parameters
    LR_G = 0.0001           # learning rate for generator
    LR_D = 0.0001           # learning rate for discriminator
    N_IDEAS = 5             # think of this as number of ideas for generating an art work (Generator)
    ART_COMPONENTS = 15     # it could be total point G can draw in the canvas
    PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])

    def artist_works_with_labels():     # painting from the famous artist (real target)
        a = np_random.uniform(1, 2, size=BATCH_SIZE)[:, np.newaxis]
        paintings = a * np.power(PAINT_POINTS, 2) + (a-1)
        labels = (a-1) > 0.5            # upper paintings (1), lower paintings (0), two classes
        paintings = torch.from_numpy(paintings).float()
        labels = torch.from_numpy(labels.astype(np.float32))
        return paintings, labels

    G = nn.Sequential(                      # Generator
        nn.Linear(N_IDEAS+1, 128),          # random ideas (could from normal distribution) + class label
        nn.ReLU(),
        nn.Linear(128, ART_COMPONENTS),     # making a painting from these random ideas
    )

    D = nn.Sequential(                      # Discriminator
        nn.Linear(ART_COMPONENTS+1, 128),   # receive art work either from the famous artist or a newbie like G with label
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
        artist_paintings, labels = artist_works_with_labels()           # real painting, label from artist
        G_ideas = torch.randn(BATCH_SIZE, N_IDEAS)                      # random ideas
        G_inputs = torch.cat((G_ideas, labels), 1)                      # ideas with labels
        G_paintings = G(G_inputs)                                       # fake painting w.r.t label from G

        D_inputs0 = torch.cat((artist_paintings, labels), 1)            # all have their labels
        D_inputs1 = torch.cat((G_paintings, labels), 1)
        prob_artist0 = D(D_inputs0)                 # D try to increase this prob
        prob_artist1 = D(D_inputs1)                 # D try to reduce this prob

        D_score0 = torch.log(prob_artist0)          # maximise this for D
        D_score1 = torch.log(1. - prob_artist1)     # maximise this for D
        D_loss = - torch.mean(D_score0 + D_score1)  # minimise the negative of both two above for D
        G_loss = torch.mean(D_score1)               # minimise D score w.r.t G

        if step_d_after_g_backward:
            opt_D.zero_grad()
            D_loss.backward(retain_graph=True)      # reusing computational graph
            opt_G.zero_grad()
            G_loss.backward(inputs=list(G.parameters()))
            opt_D.step()
            opt_G.step()
        else:
            opt_D.zero_grad()
            D_loss.backward(retain_graph=True)      # reusing computational graph
            opt_D.step()

            opt_G.zero_grad()
            G_loss.backward()
            opt_G.step()
        results.extend([G_loss.item(), D_loss.item()])

        if step % show_every == 0:  # plotting
            bound = [0, 0.5] if labels.data[0, 0] == 0 else [0.5, 1]
            log('D accuracy=%.2f (0.5 for D to converge)' % prob_artist0.detach().numpy().mean())
            log('D score= %.2f (-1.38 for G to converge)' % -D_loss.detach().numpy())
            log('Class = %i' % int(labels.data[0, 0]))
            results.extend([float(prob_artist0.detach().numpy().mean()), int(labels.data[0, 0])] + bound)
            results.extend(G_paintings.detach().numpy()[0].tolist())

    # plot a generated painting for upper class
    z = torch.randn(1, N_IDEAS)
    label = torch.FloatTensor([[1.]])     # for upper class
    G_inputs = torch.cat((z, label), 1)
    G_paintings = G(G_inputs)
    results.extend(G_paintings.detach().numpy()[0].tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, step_d_after_g_backward=True)

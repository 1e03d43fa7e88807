"""Port of MorvanZhou/PyTorch-Tutorial
``tutorial-contents/501_why_torch_dynamic_graph.py``: 403's RNN regressor fed windows of
a random number of time steps each step (the dynamic graph).

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The plots are left out (the
predictions they show are returned); ``np.random.randint`` is a seeded NumPy
generator's; ``Variable(h_state.data)`` is kept (pyad's ``Variable`` of the NumPy array
is a new leaf, as torch's). The number of steps and the hidden size are ``run``'s
keyword arguments.

Run it with ``python examples/ported/morvan_501_why_torch_dynamic_graph.py``.
"""
import numpy as np


def run(torch, n_steps=60, hidden_size=32, seed=0, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    np_random = np.random.RandomState(seed)
    results = []

    torch.manual_seed(1)    # reproducible

    # Hyper Parameters
    INPUT_SIZE = 1          # rnn input size / image width
    LR = 0.02               # learning rate

    class RNN(nn.Module):
        def __init__(self):
            super(RNN, self).__init__()

            self.rnn = nn.RNN(
                input_size=1,
                hidden_size=hidden_size,     # rnn hidden unit
                num_layers=1,       # number of rnn layer
                batch_first=True,   # input & output will has batch size as 1s dimension. e.g. (batch, time_step, input_size)
            )
            self.out = nn.Linear(hidden_size, 1)

        def forward(self, x, h_state):
            # x (batch, time_step, input_size)
            # h_state (n_layers, batch, hidden_size)
            # r_out (batch, time_step, output_size)
            r_out, h_state = self.rnn(x, h_state)

            outs = []                                   # this is where you can find torch is dynamic
            for time_step in range(r_out.size(1)):      # calculate output for each time step
                outs.append(self.out(r_out[:, time_step, :]))
            return torch.stack(outs, dim=1), h_state

    rnn = RNN()
    log(rnn)
    if init is not None:
        init(rnn)

    optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)   # optimize all cnn parameters
    loss_func = nn.MSELoss()                                # the target label is not one-hotted

    h_state = None   # for initial hidden state

    ################ dynamic time steps #########
    step = 0
    for i in range(n_steps):
        dynamic_steps = np_random.randint(1, 4)  # has random time steps
        start, end = step * np.pi, (step + dynamic_steps) * np.pi  # different time steps length
        step += dynamic_steps

        # use sin predicts cos
        steps = np.linspace(start, end, 10 * dynamic_steps, dtype=np.float32)

        log(len(steps))       # print how many time step feed to RNN

        x_np = np.sin(steps)    # float32 for converting torch FloatTensor
        y_np = np.cos(steps)

        x = Variable(torch.from_numpy(x_np[np.newaxis, :, np.newaxis]))    # shape (batch, time_step, input_size)
        y = Variable(torch.from_numpy(y_np[np.newaxis, :, np.newaxis]))

        prediction, h_state = rnn(x, h_state)   # rnn output
        # !! next step is important !!
        h_state = Variable(h_state.data)        # repack the hidden state, break the connection from last iteration

        loss = loss_func(prediction, y)         # cross entropy loss
        optimizer.zero_grad()                   # clear gradients for this training step
        loss.backward()                         # backpropagation, compute gradients
        optimizer.step()                        # apply gradients
        results.append(loss.item())
        results.append(len(steps))

        # plotting
        results.extend(prediction.detach().numpy().flatten().tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/403_RNN_regressor.py``: an
``nn.RNN(batch_first=True)`` predicting cos from sin over consecutive windows, its
hidden state carried (and cut from the graph) between steps, a ``Linear`` layer applied
at each time step and ``torch.stack``ed, Adam.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The plots are left out (the
predictions they show are returned); ``h_state = h_state.data`` (which repacks the state
in torch) is ``h_state = h_state.detach()``: pyad's ``.data`` is the NumPy array itself,
which ``nn.RNN`` refuses as a state (``data_repack=True`` runs the verbatim line). The
number of steps and the hidden size are ``run``'s keyword arguments.

Run it with ``python examples/ported/morvan_403_RNN_regressor.py``.
"""
import numpy as np


def run(torch, n_steps=100, hidden_size=32, data_repack=False, init=None, log=print):
    nn = torch.nn
    results = []

    # Hyper Parameters
    TIME_STEP = 10      # rnn time step
    INPUT_SIZE = 1      # rnn input size
    LR = 0.02           # learning rate

    class RNN(nn.Module):
        def __init__(self):
            super(RNN, self).__init__()

            self.rnn = nn.RNN(
                input_size=INPUT_SIZE,
                hidden_size=hidden_size,     # rnn hidden unit
                num_layers=1,       # number of rnn layer
                batch_first=True,   # input & output will has batch size as 1s dimension. e.g. (batch, time_step, input_size)
            )
            self.out = nn.Linear(hidden_size, 1)

        def forward(self, x, h_state):
            # x (batch, time_step, input_size)
            # h_state (n_layers, batch, hidden_size)
            # r_out (batch, time_step, hidden_size)
            r_out, h_state = self.rnn(x, h_state)

            outs = []    # save all predictions
            for time_step in range(r_out.size(1)):    # calculate output for each time step
                outs.append(self.out(r_out[:, time_step, :]))
            return torch.stack(outs, dim=1), h_state

    rnn = RNN()
    log(rnn)
    if init is not None:
        init(rnn)

    optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)   # optimize all cnn parameters
    loss_func = nn.MSELoss()

    h_state = None      # for initial hidden state

    for step in range(n_steps):
        start, end = step * np.pi, (step+1)*np.pi   # time range
        # use sin predicts cos
        steps = np.linspace(start, end, TIME_STEP, dtype=np.float32)  # float32 for converting torch FloatTensor
        x_np = np.sin(steps)
        y_np = np.cos(steps)

        x = torch.from_numpy(x_np[np.newaxis, :, np.newaxis])    # shape (batch, time_step, input_size)
        y = torch.from_numpy(y_np[np.newaxis, :, np.newaxis])

        prediction, h_state = rnn(x, h_state)   # rnn output
        # !! next step is important !!
        if data_repack:
            h_state = h_state.data        # repack the hidden state, break the connection from last iteration
        else:
            h_state = h_state.detach()    # repack the hidden state, break the connection from last iteration

        loss = loss_func(prediction, y)         # calculate loss
        optimizer.zero_grad()                   # clear gradients for this training step
        loss.backward()                         # backpropagation, compute gradients
        optimizer.step()                        # apply gradients
        results.append(loss.item())

        # plotting
        results.extend(prediction.detach().numpy().flatten().tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

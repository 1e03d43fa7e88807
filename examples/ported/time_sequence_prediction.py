"""Port of pytorch/examples ``time_sequence_prediction``: two stacked ``LSTMCell`` s and
a linear read-out learn sine waves (float64), trained with L-BFGS on the whole set,
then predict the future.

Ported by changing the imports (``import pyad as torch``). The sine waves of
generate_sine_wave.py are generated here (smaller: 12 waves of 60 steps) instead of
loaded from traindata.pt, and no plot is drawn. ``optimizer="SGD"`` swaps L-BFGS for
plain SGD (L-BFGS needs ``pyad.optim.LBFGS``).

Run it with ``python examples/ported/time_sequence_prediction.py``.
"""
import numpy as np


def run(torch, steps=2, n_waves=12, length=60, future=20, device_name="cpu",
        optimizer="LBFGS", init=None, log=print):
    """Return the training loss of every closure call, then the test losses."""
    nn = torch.nn
    optim = torch.optim

    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1 = nn.LSTMCell(1, 51)
            self.lstm2 = nn.LSTMCell(51, 51)
            self.linear = nn.Linear(51, 1)
            self.dummy_param = nn.Parameter(torch.empty(0))

        def forward(self, input, future=0):
            outputs = []
            device = self.dummy_param.device
            h_t = torch.zeros(input.size(0), 51, dtype=torch.double).to(device)
            c_t = torch.zeros(input.size(0), 51, dtype=torch.double).to(device)
            h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double).to(device)
            c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double).to(device)
            for input_t in input.split(1, dim=1):
                h_t, c_t = self.lstm1(input_t, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            for i in range(future):  # if we should predict the future
                h_t, c_t = self.lstm1(output, (h_t, c_t))
                h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
                output = self.linear(h_t2)
                outputs += [output]
            outputs = torch.cat(outputs, dim=1)
            return outputs

    if device_name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("cuda is not available")
    elif device_name == "mps" and not torch.backends.mps.is_available():
        raise SystemExit("mps is not available")
    device = torch.device(device_name)
    np.random.seed(0)
    torch.manual_seed(0)
    # generate_sine_wave.py, smaller
    T = 20
    x = np.empty((n_waves, length), "int64")
    x[:] = np.array(range(length)) + np.random.randint(-4 * T, 4 * T, n_waves).reshape(
        n_waves, 1)
    data = torch.from_numpy(np.sin(x / 1.0 / T).astype("float64")).to(device)
    input = data[3:, :-1]
    target = data[3:, 1:]
    test_input = data[:3, :-1]
    test_target = data[:3, 1:]
    seq = Sequence().to(device).double()
    if init is not None:
        init(seq)
    criterion = nn.MSELoss().to(device)
    if optimizer == "LBFGS":
        # use LBFGS as optimizer since we can load the whole data to train
        opt = optim.LBFGS(seq.parameters(), lr=0.8)
    else:
        opt = optim.SGD(seq.parameters(), lr=0.5)
    losses = []
    for i in range(steps):
        log("STEP: ", i)

        def closure():
            opt.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            log("loss:", loss.item())
            losses.append(loss.item())
            loss.backward()
            return loss
        opt.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            log("test loss:", loss.item())
            losses.append(loss.item())
            y = pred.cpu().detach().numpy()
        log("predicted %d future values for %d waves" % (future, y.shape[0]))
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, optimizer="LBFGS" if hasattr(torch.optim, "LBFGS") else "SGD")

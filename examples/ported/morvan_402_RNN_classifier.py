"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/402_RNN_classifier.py``: an
``LSTM(batch_first=True)`` reading MNIST rows from a zero state (``None``), a ``Linear``
layer on its last output, Adam, and the test accuracy; then 10 predictions.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``Variable =
torch.autograd.Variable``). MNIST is synthetic uint8 images and random labels in a
``TensorDataset``; ``Variable(..., volatile=True)`` (removed from torch) is
``Variable(...)``; ``loss.data[0]`` is ``loss.item()``; ``.data.numpy()`` is
``.detach().numpy()`` (pyad's ``.data`` is the NumPy array itself); the sizes are
``run``'s keyword arguments (a narrower LSTM, 50 steps between tests in the original).

Run it with ``python examples/ported/morvan_402_RNN_classifier.py``.
"""
import numpy as np


def run(torch, EPOCH=1, BATCH_SIZE=4, hidden_size=16, LR=0.01, n_train=12, n_test=10,
        test_every=1, shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    Variable = torch.autograd.Variable
    rng = np.random.RandomState(seed)
    results = []

    torch.manual_seed(1)    # reproducible

    # Hyper Parameters
    TIME_STEP = 28          # rnn time step / image height
    INPUT_SIZE = 28         # rnn input size / image width

    # Mnist digital dataset (synthetic: ToTensor's scaling of uint8 images)
    train_images = rng.randint(0, 256, (n_train, 1, 28, 28)).astype(np.float32) / 255.
    train_data = torch.utils.data.TensorDataset(torch.from_numpy(train_images),
                                                torch.from_numpy(rng.randint(0, 10, n_train)))

    # Data Loader for easy mini-batch return in training
    train_loader = torch.utils.data.DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=shuffle)

    # convert test data into Variable, pick 2000 samples to speed up testing
    test_data_test_data = torch.from_numpy(rng.randint(0, 256, (n_test, 28, 28)).astype(np.uint8))
    test_data_test_labels = torch.from_numpy(rng.randint(0, 10, n_test))
    test_x = Variable(test_data_test_data).type(torch.FloatTensor)[:2000]/255.   # shape (2000, 28, 28) value in range(0,1)
    test_y = test_data_test_labels.numpy().squeeze()[:2000]    # covert to numpy array

    class RNN(nn.Module):
        def __init__(self):
            super(RNN, self).__init__()

            self.rnn = nn.LSTM(         # if use nn.RNN(), it hardly learns
                input_size=INPUT_SIZE,
                hidden_size=hidden_size,         # rnn hidden unit
                num_layers=1,           # number of rnn layer
                batch_first=True,       # input & output will has batch size as 1s dimension. e.g. (batch, time_step, input_size)
            )

            self.out = nn.Linear(hidden_size, 10)

        def forward(self, x):
            # x shape (batch, time_step, input_size)
            # r_out shape (batch, time_step, output_size)
            # h_n shape (n_layers, batch, hidden_size)
            # h_c shape (n_layers, batch, hidden_size)
            r_out, (h_n, h_c) = self.rnn(x, None)   # None represents zero initial hidden state

            # choose r_out at the last time step
            out = self.out(r_out[:, -1, :])
            return out

    rnn = RNN()
    log(rnn)
    if init is not None:
        init(rnn)

    optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)   # optimize all cnn parameters
    loss_func = nn.CrossEntropyLoss()                       # the target label is not one-hotted

    # training and testing
    for epoch in range(EPOCH):
        for step, (x, y) in enumerate(train_loader):        # gives batch data
            b_x = Variable(x.view(-1, 28, 28))              # reshape x to (batch, time_step, input_size)
            b_y = Variable(y)                               # batch y

            output = rnn(b_x)                               # rnn output
            loss = loss_func(output, b_y)                   # cross entropy loss
            optimizer.zero_grad()                           # clear gradients for this training step
            loss.backward()                                 # backpropagation, compute gradients
            optimizer.step()                                # apply gradients
            results.append(loss.item())

            if step % test_every == 0:
                test_output = rnn(test_x)                   # (samples, time_step, input_size)
                pred_y = torch.max(test_output, 1)[1].detach().numpy().squeeze()
                accuracy = sum(pred_y == test_y) / test_y.size
                log('Epoch: ', epoch, '| train loss: %.4f' % loss.item(), '| test accuracy: %.2f' % accuracy)
                results.append(float(accuracy))
                results.extend(test_output.detach().numpy()[:2].ravel().tolist())

    # print 10 predictions from test data
    test_output = rnn(test_x[:10].view(-1, 28, 28))
    pred_y = torch.max(test_output, 1)[1].detach().numpy().squeeze()
    log(pred_y, 'prediction number')
    log(test_y[:10], 'real number')
    results.extend(pred_y.tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of yunjey/pytorch-tutorial ``tutorials/01-basics/linear_regression/main.py``:
one ``Linear`` layer fitted to the toy data set by SGD, then its state_dict saved.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). The plot is left out (its
``model(inputs).detach().numpy()`` is kept and returned); the checkpoint goes to
``directory``. ``print`` is ``log``.

Run it with ``python examples/ported/yunjey_linear_regression.py``.
"""
import os
import tempfile

import numpy as np


def run(torch, num_epochs=60, directory=None, init=None, log=print):
    nn = torch.nn
    directory = directory or tempfile.mkdtemp()
    losses = []

    # Hyper-parameters
    input_size = 1
    output_size = 1
    learning_rate = 0.001

    # Toy dataset
    x_train = np.array([[3.3], [4.4], [5.5], [6.71], [6.93], [4.168],
                        [9.779], [6.182], [7.59], [2.167], [7.042],
                        [10.791], [5.313], [7.997], [3.1]], dtype=np.float32)

    y_train = np.array([[1.7], [2.76], [2.09], [3.19], [1.694], [1.573],
                        [3.366], [2.596], [2.53], [1.221], [2.827],
                        [3.465], [1.65], [2.904], [1.3]], dtype=np.float32)

    # Linear regression model
    model = nn.Linear(input_size, output_size)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

    # Convert numpy arrays to torch tensors
    inputs = torch.from_numpy(x_train)
    targets = torch.from_numpy(y_train)

    # Train the model
    for epoch in range(num_epochs):

        # Forward pass
        outputs = model(inputs)
        loss = criterion(outputs, targets)

        # Backward and optimize
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

        if (epoch+1) % 5 == 0:
            log('Epoch [{}/{}], Loss: {:.4f}'.format(epoch+1, num_epochs, loss.item()))

    # Plot the graph
    predicted = model(inputs).detach().numpy()
    losses.extend(predicted.ravel().tolist())

    # Save the model checkpoint
    torch.save(model.state_dict(), os.path.join(directory, 'model.ckpt'))
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch)

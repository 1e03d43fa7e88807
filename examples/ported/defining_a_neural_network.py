"""Port of the PyTorch recipe "Defining a Neural Network in PyTorch" (pytorch/tutorials
``recipes_source/recipes/defining_a_neural_network.py``): the MNIST ``Net`` defined
twice (first without a ``forward``, printed; then with one), and one random 28x28 image
passed through the second ``Net``.

Ported by changing the imports (``import pyad as torch``). ``run`` returns the printed
module reprs and the output of the forward pass; ``init`` sees each ``Net`` (the tests
load torch's initial weights). The forward pass runs in training mode, as in the text,
so its two ``Dropout2d`` layers drop (the tests draw their masks from a shared NumPy
stream); ``Dropout2d(0.5)`` of the 2-D ``fc1`` output is elementwise (torch warns).

Run it with ``python examples/ported/defining_a_neural_network.py``.
"""


def run(torch, init=None, log=print):
    """Return ``{"repr_1", "repr_2", "random_data", "result"}``."""
    nn = torch.nn
    F = torch.nn.functional
    results = {}

    class Net(nn.Module):
        def __init__(self):
          super(Net, self).__init__()

          # First 2D convolutional layer, taking in 1 input channel (image),
          # outputting 32 convolutional features, with a square kernel size of 3
          self.conv1 = nn.Conv2d(1, 32, 3, 1)
          # Second 2D convolutional layer, taking in the 32 input layers,
          # outputting 64 convolutional features, with a square kernel size of 3
          self.conv2 = nn.Conv2d(32, 64, 3, 1)

          # Designed to ensure that adjacent pixels are either all 0s or all active
          # with an input probability
          self.dropout1 = nn.Dropout2d(0.25)
          self.dropout2 = nn.Dropout2d(0.5)

          # First fully connected layer
          self.fc1 = nn.Linear(9216, 128)
          # Second fully connected layer that outputs our 10 labels
          self.fc2 = nn.Linear(128, 10)

    my_nn = Net()
    log(my_nn)
    results["repr_1"] = repr(my_nn)

    class Net(nn.Module):
        def __init__(self):
          super(Net, self).__init__()
          self.conv1 = nn.Conv2d(1, 32, 3, 1)
          self.conv2 = nn.Conv2d(32, 64, 3, 1)
          self.dropout1 = nn.Dropout2d(0.25)
          self.dropout2 = nn.Dropout2d(0.5)
          self.fc1 = nn.Linear(9216, 128)
          self.fc2 = nn.Linear(128, 10)

        # x represents our data
        def forward(self, x):
          # Pass data through conv1
          x = self.conv1(x)
          # Use the rectified-linear activation function over x
          x = F.relu(x)

          x = self.conv2(x)
          x = F.relu(x)

          # Run max pooling over x
          x = F.max_pool2d(x, 2)
          # Pass data through dropout1
          x = self.dropout1(x)
          # Flatten x with start_dim=1
          x = x.flatten(start_dim=1)
          # Pass data through fc1
          x = self.fc1(x)
          x = F.relu(x)
          x = self.dropout2(x)
          x = self.fc2(x)

          # Apply softmax to x
          output = F.log_softmax(x, dim=1)
          return output

    # Equates to one random 28x28 image
    random_data = torch.rand((1, 1, 28, 28))
    results["random_data"] = random_data

    my_nn = Net()
    if init is not None:
        init(my_nn)
    result = my_nn(random_data)
    log (result)
    results["repr_2"] = repr(my_nn)
    results["result"] = result
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of the PyTorch tutorial "Neural Networks" (pytorch/tutorials
``beginner_source/blitz/neural_networks_tutorial.py``): LeNet with ``num_flat_features``,
a backward pass of random gradients, ``MSELoss`` against ``arange(1, 11)``, the
``grad_fn`` chain, conv1's bias gradient before and after ``backward``, and one
``optim.SGD`` step.

Ported by changing the imports (``import pyad as torch``). Other changes: the original's
``target = torch.arange(1, 11)`` is an int64 target for ``MSELoss`` of a float output,
kept as written; the ``grad_fn`` names are logged, not compared (each framework names
its nodes). ``run`` returns every output, loss and gradient the tutorial prints, and
the weights after the SGD step.

Run it with ``python examples/ported/neural_networks_tutorial.py``.
"""


def run(torch, init=None, log=print):
    """Return a dict of the outputs, losses and gradients."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    results = {}

    class Net(nn.Module):

        def __init__(self):
            super(Net, self).__init__()
            # 1 input image channel, 6 output channels, 5x5 square convolution
            # kernel
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            # an affine operation: y = Wx + b
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            # Max pooling over a (2, 2) window
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            # If the size is a square you can only specify a single number
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, self.num_flat_features(x))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

        def num_flat_features(self, x):
            size = x.size()[1:]  # all dimensions except the batch dimension
            num_features = 1
            for s in size:
                num_features *= s
            return num_features

    net = Net()
    if init is not None:
        init(net)
    log(net)

    params = list(net.parameters())
    log(len(params))
    log(params[0].size())  # conv1's .weight
    results["n_params"] = len(params)
    results["conv1_weight_size"] = list(params[0].size())

    input = torch.randn(1, 1, 32, 32)
    out = net(input)
    log(out)
    results["out"] = out

    net.zero_grad()
    out.backward(torch.randn(1, 10))
    results["random_backward_grads"] = [p.grad.clone() for p in net.parameters()]

    output = net(input)
    target = torch.arange(1, 11)  # a dummy target, for example
    target = target.view(1, -1)  # make it the same shape as output
    criterion = nn.MSELoss()

    loss = criterion(output, target)
    log(loss)
    results["loss"] = loss

    log(loss.grad_fn)  # MSELoss
    log(loss.grad_fn.next_functions[0][0])  # Linear
    log(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU

    net.zero_grad()     # zeroes the gradient buffers of all parameters

    log('conv1.bias.grad before backward')
    log(net.conv1.bias.grad)
    results["conv1_bias_grad_before_is_none"] = net.conv1.bias.grad is None

    loss.backward()

    log('conv1.bias.grad after backward')
    log(net.conv1.bias.grad)
    results["conv1_bias_grad_after"] = net.conv1.bias.grad.clone()

    # create your optimizer
    optimizer = optim.SGD(net.parameters(), lr=0.01)

    # in your training loop:
    optimizer.zero_grad()   # zero the gradient buffers
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()    # Does the update
    results["step_loss"] = loss
    results["loss_after_step"] = criterion(net(input), target)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

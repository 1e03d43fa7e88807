"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/203_activation.py``: relu,
sigmoid, tanh and softplus of ``linspace(-5, 5, 200)``.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``). The plots are left out (the
curves are returned); ``x.data.numpy()`` and ``f(x).data.numpy()`` are
``.detach().numpy()`` (pyad's ``.data`` is the NumPy array itself).

Run it with ``python examples/ported/morvan_203_activation.py``.
"""


def run(torch, log=print):
    F = torch.nn.functional
    Variable = torch.autograd.Variable

    # fake data
    x = torch.linspace(-5, 5, 200)  # x data (tensor), shape=(100, 1)
    x = Variable(x)
    x_np = x.detach().numpy()   # numpy array for plotting

    # following are popular activation functions
    y_relu = torch.relu(x).detach().numpy()
    y_sigmoid = torch.sigmoid(x).detach().numpy()
    y_tanh = torch.tanh(x).detach().numpy()
    y_softplus = F.softplus(x).detach().numpy() # there's no softplus in torch
    y_softmax = torch.softmax(x, dim=0).detach().numpy() # softmax is a special kind of activation function, it is about probability
    return {"x": x_np, "relu": y_relu, "sigmoid": y_sigmoid, "tanh": y_tanh,
            "softplus": y_softplus, "softmax": y_softmax}


if __name__ == "__main__":
    import pyad as torch
    run(torch)

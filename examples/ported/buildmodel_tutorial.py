"""Port of the PyTorch tutorial "Build the Neural Network" (pytorch/tutorials
``beginner_source/basics/buildmodel_tutorial.py``): the FashionMNIST ``NeuralNetwork``
(``Flatten`` and a ``Sequential`` of ``Linear``/``ReLU``), ``Softmax`` and ``argmax`` of
a random image, and each layer on a minibatch of three images: ``Flatten``, ``Linear``,
``ReLU``, ``Sequential``, ``Softmax``, ``named_parameters``.

Ported by changing the imports (``import pyad as torch``; ``from torch import nn`` is
``nn = torch.nn``). Other changes: no torchvision import (the tutorial draws its images
with ``torch.rand``); ``run`` returns every value the tutorial prints.

Run it with ``python examples/ported/buildmodel_tutorial.py``.
"""


def run(torch, init=None, log=print):
    """Return a dict of the logits, probabilities, predictions and layer outputs."""
    nn = torch.nn
    results = {}

    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    log('Using {} device'.format(device))

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super(NeuralNetwork, self).__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28*28, 512),
                nn.ReLU(),
                nn.Linear(512, 512),
                nn.ReLU(),
                nn.Linear(512, 10),
                nn.ReLU()
            )

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    model = NeuralNetwork().to(device)
    if init is not None:
        init(model)
    log(model)

    X = torch.rand(1, 28, 28, device=device)
    logits = model(X)
    pred_probab = nn.Softmax(dim=1)(logits)
    y_pred = pred_probab.argmax(1)
    log(f"Predicted class: {y_pred}")
    results.update(logits=logits, pred_probab=pred_probab, y_pred=y_pred)

    input_image = torch.rand(3,28,28)
    log(input_image.size())
    results["input_image_size"] = list(input_image.size())

    flatten = nn.Flatten()
    flat_image = flatten(input_image)
    log(flat_image.size())
    results["flat_image"] = flat_image

    layer1 = nn.Linear(in_features=28*28, out_features=20)
    if init is not None:
        init(layer1)
    hidden1 = layer1(flat_image)
    log(hidden1.size())
    results["hidden1"] = hidden1

    log(f"Before ReLU: {hidden1}\n\n")
    hidden1 = nn.ReLU()(hidden1)
    log(f"After ReLU: {hidden1}")
    results["hidden1_relu"] = hidden1

    seq_modules = nn.Sequential(
        flatten,
        layer1,
        nn.ReLU(),
        nn.Linear(20, 10)
    )
    if init is not None:
        init(seq_modules)
    input_image = torch.rand(3,28,28)
    logits = seq_modules(input_image)
    results["seq_logits"] = logits

    softmax = nn.Softmax(dim=1)
    pred_probab = softmax(logits)
    results["seq_pred_probab"] = pred_probab

    log("Model structure: ", model, "\n\n")

    for name, param in model.named_parameters():
        log(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
        results["param " + name] = param[:2]
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

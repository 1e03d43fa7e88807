"""Port of the PyTorch tutorial "Visualizing Gradients" (pytorch/tutorials
``intermediate_source/visualizing_gradients_tutorial.py``): two MLPs of
linear -> norm -> sigmoid blocks (``BatchNorm1d`` or ``Identity``), forward hooks that
register backward hooks on every leaf module's output (``register_forward_hook``,
``Tensor.register_hook``), ten SGD steps with momentum, and the mean absolute gradient
of every layer's output.

Ported by changing the imports (``import pyad as torch``, ``nn = torch.nn``,
``optim = torch.optim``, ``F = torch.nn.functional``); ``print`` is ``log``. The
``matplotlib`` figure is left out: ``run`` returns what it plots (``layer_idx_*`` and
``avg_grads_*``), with the modules' reprs, the names in the order the backward hooks
ran, each epoch's losses and the final weights. ``epochs`` and the network's sizes are
``run``'s keywords (the text's by default).

Run it with ``python examples/ported/visualizing_gradients_tutorial.py``.
"""


def run(torch, init=None, log=print, epochs=10, in_size=28*28, hidden_size=128,
        num_layers=3):
    """Return a dict of every value the tutorial prints or plots."""
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    results = {"losses_bn": [], "losses_nobn": []}

    def fc_layer(in_size, out_size, norm_layer):
        """Return a stack of linear->norm->sigmoid layers"""
        return nn.Sequential(nn.Linear(in_size, out_size), norm_layer(out_size), nn.Sigmoid())

    class Net(nn.Module):
        """Define a network that has num_layers of linear->norm->sigmoid transformations"""
        def __init__(self, in_size=28*28, hidden_size=128,
                     out_size=10, num_layers=3, batchnorm=False):
            super().__init__()
            if batchnorm is False:
                norm_layer = nn.Identity
            else:
                norm_layer = nn.BatchNorm1d

            layers = []
            layers.append(fc_layer(in_size, hidden_size, norm_layer))

            for i in range(num_layers-1):
                layers.append(fc_layer(hidden_size, hidden_size, norm_layer))

            layers.append(nn.Linear(hidden_size, out_size))

            self.layers = nn.Sequential(*layers)

        def forward(self, x):
            x = torch.flatten(x, 1)
            return self.layers(x)

    side = int(round(in_size ** 0.5))

    # set up dummy data
    x = torch.randn(10, side, side)
    y = torch.randint(10, (10, ))

    # init model
    model_bn = Net(in_size=in_size, hidden_size=hidden_size, batchnorm=True, num_layers=num_layers)
    model_nobn = Net(in_size=in_size, hidden_size=hidden_size, batchnorm=False, num_layers=num_layers)
    if init is not None:
        init(model_bn)
        init(model_nobn)

    model_bn.train()
    model_nobn.train()

    optimizer_bn = optim.SGD(model_bn.parameters(), lr=0.01, momentum=0.9)
    optimizer_nobn = optim.SGD(model_nobn.parameters(), lr=0.01, momentum=0.9)

    log(model_bn.layers[0])
    log(model_nobn.layers[0])
    results["reprs"] = [repr(model_bn.layers[0]), repr(model_nobn.layers[0])]

    # note that wrapper functions are used for Python closure
    # so that we can pass arguments.

    def hook_forward(module_name, grads, hook_backward):
        def hook(module, args, output):
            """Forward pass hook which attaches backward pass hooks to intermediate tensors"""
            output.register_hook(hook_backward(module_name, grads))
        return hook

    def hook_backward(module_name, grads):
        def hook(grad):
            """Backward pass hook which appends gradients"""
            grads.append((module_name, grad))
        return hook

    def get_all_layers(model, hook_forward, hook_backward):
        """Register forward pass hook (which registers a backward hook) to model outputs

        Returns:
            - layers: a dict with keys as layer/module and values as layer/module names
                      e.g. layers[nn.Conv2d] = layer1.0.conv1
            - grads: a list of tuples with module name and tensor output gradient
                     e.g. grads[0] == (layer1.0.conv1, tensor.Torch(...))
        """
        layers = dict()
        grads = []
        for name, layer in model.named_modules():
            # skip Sequential and/or wrapper modules
            if any(layer.children()) is False:
                layers[layer] = name
                layer.register_forward_hook(hook_forward(name, grads, hook_backward))
        return layers, grads

    # register hooks
    layers_bn, grads_bn = get_all_layers(model_bn, hook_forward, hook_backward)
    layers_nobn, grads_nobn = get_all_layers(model_nobn, hook_forward, hook_backward)
    results["layers"] = [list(layers_bn.values()), list(layers_nobn.values())]

    for epoch in range(epochs):

        # important to clear, because we append to
        # outputs everytime we do a forward pass
        grads_bn.clear()
        grads_nobn.clear()

        optimizer_bn.zero_grad()
        optimizer_nobn.zero_grad()

        y_pred_bn = model_bn(x)
        y_pred_nobn = model_nobn(x)

        loss_bn = F.cross_entropy(y_pred_bn, y)
        loss_nobn = F.cross_entropy(y_pred_nobn, y)

        loss_bn.backward()
        loss_nobn.backward()

        optimizer_bn.step()
        optimizer_nobn.step()
        results["losses_bn"].append(loss_bn.item())
        results["losses_nobn"].append(loss_nobn.item())

    def get_grads(grads):
        layer_idx = []
        avg_grads = []
        for idx, (name, grad) in enumerate(grads):
            if grad is not None:
                avg_grad = grad.abs().mean()
                avg_grads.append(avg_grad)
                # idx is backwards since we appended in backward pass
                layer_idx.append(len(grads) - 1 - idx)
        return layer_idx, avg_grads

    layer_idx_bn, avg_grads_bn = get_grads(grads_bn)
    layer_idx_nobn, avg_grads_nobn = get_grads(grads_nobn)
    results.update(layer_idx_bn=layer_idx_bn, avg_grads_bn=avg_grads_bn,
                   layer_idx_nobn=layer_idx_nobn, avg_grads_nobn=avg_grads_nobn,
                   names_bn=[name for name, _ in grads_bn],
                   names_nobn=[name for name, _ in grads_nobn])
    results["model_bn"] = {k: v.detach().clone() for k, v in model_bn.state_dict().items()}
    results["model_nobn"] = {k: v.detach().clone() for k, v in model_nobn.state_dict().items()}
    return results


if __name__ == "__main__":
    import pyad as torch
    out = run(torch)
    for name, g in zip(out["names_bn"], out["avg_grads_bn"]):
        print("With BatchNorm", name, float(g))
    for name, g in zip(out["names_nobn"], out["avg_grads_nobn"]):
        print("Without BatchNorm", name, float(g))

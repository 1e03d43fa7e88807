"""Port of the PyTorch "Pruning Tutorial" (pytorch/tutorials
``intermediate_source/pruning_tutorial.py``, by Michela Paganini): LeNet's ``conv1``
pruned at random, by L1 norm and by channel L2 norm (a ``PruningContainer``), the
re-parametrization made permanent with ``remove``, every layer pruned by type, global
pruning across layers, and a custom ``BasePruningMethod`` (``FooBarPruningMethod``).

Ported by changing the imports (``import pyad as torch``,
``prune = torch.nn.utils.prune``, ``F = torch.nn.functional``); each ``print`` is
``log``, and what is printed is also returned. The text's
``print(module._forward_pre_hooks)`` prints an OrderedDict on torch and a list of
``(id, hook, with_kwargs)`` on pyad: the port logs it and returns the hooks' class
names in order. ``init`` sees each new LeNet (four of them), so that a test can start
both runs from the same weights; ``run(forward=True)`` also passes a batch of 28x28
images (what the 16*5*5 of ``fc1`` implies) through the last, pruned model and returns
the output and the gradient of ``fc3.bias_orig`` (not in the text).

Run it with ``python examples/ported/pruning_tutorial.py``.
"""
import numpy as np


def run(torch, init=None, log=print, forward=False):
    """Return a dict of what the tutorial prints (parameter and buffer names, pruned
    tensors, hook classes, state_dict keys, sparsities, the custom mask)."""
    nn = torch.nn
    prune = torch.nn.utils.prune
    F = torch.nn.functional
    out = {}

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    class LeNet(nn.Module):
        def __init__(self):
            super(LeNet, self).__init__()
            # 1 input image channel, 6 output channels, 3x3 square conv kernel
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5x5 image dimension
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.flatten(start_dim=1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    def new_lenet():
        net = LeNet()
        if init is not None:
            init(net)
        return net

    def names(pairs):
        return [name for name, _ in pairs]

    model = new_lenet().to(device=device)

    # Inspect a Module
    module = model.conv1
    log(list(module.named_parameters()))
    out["params_0"] = names(module.named_parameters())
    log(list(module.named_buffers()))
    out["buffers_0"] = names(module.named_buffers())

    # Pruning a Module: 30% of conv1.weight at random
    prune.random_unstructured(module, name="weight", amount=0.3)
    log(list(module.named_parameters()))
    out["params_1"] = names(module.named_parameters())
    log(list(module.named_buffers()))
    out["buffers_1"] = names(module.named_buffers())
    log(module.weight)
    out["weight_1"] = module.weight
    log(module._forward_pre_hooks)
    out["hooks_1"] = [type(h).__name__ for h in module._forward_pre_hooks.values()]

    # the 3 smallest entries of the bias by L1 norm
    prune.l1_unstructured(module, name="bias", amount=3)
    log(list(module.named_parameters()))
    out["params_2"] = names(module.named_parameters())
    log(list(module.named_buffers()))
    out["buffers_2"] = names(module.named_buffers())
    log(module.bias)
    out["bias_2"] = module.bias
    log(module._forward_pre_hooks)
    out["hooks_2"] = [type(h).__name__ for h in module._forward_pre_hooks.values()]

    # Iterative Pruning: half of the output channels by L2 norm
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    log(module.weight)
    out["weight_3"] = module.weight

    for hook in module._forward_pre_hooks.values():
        if hook._tensor_name == "weight":  # select out the correct hook
            break
    log(list(hook))  # pruning history in the container
    out["container"] = [type(hook).__name__] + [type(h).__name__ for h in hook]

    # Serializing a pruned model
    log(model.state_dict().keys())
    out["state_dict_keys"] = list(model.state_dict().keys())

    # Remove pruning re-parametrization
    log(list(module.named_parameters()))
    log(list(module.named_buffers()))
    log(module.weight)
    prune.remove(module, "weight")
    log(list(module.named_parameters()))
    out["params_4"] = names(module.named_parameters())
    out["weight_4"] = module.weight
    log(list(module.named_buffers()))
    out["buffers_4"] = names(module.named_buffers())

    # Pruning multiple parameters in a model
    new_model = new_lenet()
    for name, module in new_model.named_modules():
        # prune 20% of connections in all 2D-conv layers
        if isinstance(module, torch.nn.Conv2d):
            prune.l1_unstructured(module, name="weight", amount=0.2)
        # prune 40% of connections in all linear layers
        elif isinstance(module, torch.nn.Linear):
            prune.l1_unstructured(module, name="weight", amount=0.4)
    log(dict(new_model.named_buffers()).keys())  # to verify that all masks exist
    out["new_model_buffers"] = list(dict(new_model.named_buffers()).keys())
    out["new_model_masks"] = [b for _, b in new_model.named_buffers()]

    # Global pruning
    model = new_lenet()
    parameters_to_prune = (
        (model.conv1, "weight"),
        (model.conv2, "weight"),
        (model.fc1, "weight"),
        (model.fc2, "weight"),
        (model.fc3, "weight"),
    )
    prune.global_unstructured(
        parameters_to_prune,
        pruning_method=prune.L1Unstructured,
        amount=0.2,
    )
    out["sparsity"] = {}
    for layer in ("conv1", "conv2", "fc1", "fc2", "fc3"):
        weight = getattr(model, layer).weight
        value = 100. * float(torch.sum(weight == 0)) / float(weight.nelement())
        log("Sparsity in {}.weight: {:.2f}%".format(layer, value))
        out["sparsity"][layer] = "{:.2f}".format(value)
    global_sparsity = 100. * float(
        torch.sum(model.conv1.weight == 0)
        + torch.sum(model.conv2.weight == 0)
        + torch.sum(model.fc1.weight == 0)
        + torch.sum(model.fc2.weight == 0)
        + torch.sum(model.fc3.weight == 0)
    ) / float(
        model.conv1.weight.nelement()
        + model.conv2.weight.nelement()
        + model.fc1.weight.nelement()
        + model.fc2.weight.nelement()
        + model.fc3.weight.nelement()
    )
    log("Global sparsity: {:.2f}%".format(global_sparsity))
    out["global_sparsity"] = "{:.2f}".format(global_sparsity)

    # Extending torch.nn.utils.prune with custom pruning functions
    class FooBarPruningMethod(prune.BasePruningMethod):
        """Prune every other entry in a tensor
        """
        PRUNING_TYPE = 'unstructured'

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.flatten()[::2] = 0
            return mask

    def foobar_unstructured(module, name):
        """Prunes tensor corresponding to parameter called `name` in `module`
        by removing every other entry in the tensors."""
        FooBarPruningMethod.apply(module, name)
        return module

    model = new_lenet()
    foobar_unstructured(model.fc3, name='bias')
    log(model.fc3.bias_mask)
    out["foobar_mask"] = model.fc3.bias_mask

    if forward:
        x = torch.from_numpy(np.random.RandomState(0).rand(2, 1, 28, 28).astype(np.float32))
        output = model(x)
        output.sum().backward()
        out["output"] = output
        out["fc3_bias_orig_grad"] = model.fc3.bias_orig.grad
    return out


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of the PyTorch tutorial "Model ensembling" (pytorch/tutorials
``intermediate_source/ensembling.py``): ten MLPs run as one function by
``stack_module_state``, ``functional_call`` and ``vmap``, on a different minibatch per
model and on one shared minibatch, checked against the loop over the models.

Ported by changing the imports (``import pyad as torch``); ``from torch.func import
stack_module_state`` (and ``functional_call``, ``from torch import vmap``) are written
``stack_module_state = torch.func.stack_module_state`` and so on, so they read the
namespace ``run`` is given. Other changes: ``device`` is ``'cpu'``; the number of
minibatches in ``data`` (100) and the number of models are ``run``'s keyword arguments;
left out: the ``torch.utils.benchmark.Timer`` timings. The original's
``base_model = base_model.to('meta')`` (storage-free parameters) is kept, behind the
keyword ``to_meta=True``: pyad has no meta device, so running the file and the tests
pass ``to_meta=False`` (the copy keeps its real weights, which ``functional_call``
replaces for the call either way). ``run`` returns both loops' predictions and both
``vmap`` predictions.

Run it with ``python examples/ported/ensembling.py``.
"""
import copy


def run(torch, init=None, log=print, num_models=10, n_minibatches=100, to_meta=True):
    """Return ``(loop_predictions_1, vmap_predictions_1, loop_predictions_2,
    vmap_predictions_2)``."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(0)

    # Here's a simple MLP
    class SimpleMLP(nn.Module):
        def __init__(self):
            super(SimpleMLP, self).__init__()
            self.fc1 = nn.Linear(784, 128)
            self.fc2 = nn.Linear(128, 128)
            self.fc3 = nn.Linear(128, 10)

        def forward(self, x):
            x = x.flatten(1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.fc2(x)
            x = F.relu(x)
            x = self.fc3(x)
            return x

    device = 'cpu'

    data = torch.randn(n_minibatches, 64, 1, 28, 28, device=device)
    targets = torch.randint(10, (n_minibatches * 64,), device=device)  # noqa: F841

    models = [SimpleMLP().to(device) for _ in range(num_models)]
    if init is not None:
        for model in models:
            init(model)

    # Option 1: different minibatch for each model
    minibatches = data[:num_models]
    predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]

    # Option 2: Same minibatch
    minibatch = data[0]
    predictions2 = [model(minibatch) for model in models]

    stack_module_state = torch.func.stack_module_state

    params, buffers = stack_module_state(models)

    functional_call = torch.func.functional_call

    # Construct a "stateless" version of one of the models. It is "stateless" in
    # the sense that the parameters are meta Tensors and do not have storage.
    base_model = copy.deepcopy(models[0])
    if to_meta:
        base_model = base_model.to('meta')

    def fmodel(params, buffers, x):
        return functional_call(base_model, (params, buffers), (x,))

    log([p.size(0) for p in params.values()])  # show the leading 'num_models' dimension

    assert minibatches.shape == (num_models, 64, 1, 28, 28)  # verify minibatch has leading dimension of size 'num_models'

    vmap = torch.vmap

    predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)

    # verify the vmap predictions match the
    assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)

    predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)

    assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)
    log("vmap predictions agree with the loop")
    return (predictions_diff_minibatch_loop, predictions1_vmap, predictions2,
            predictions2_vmap)


if __name__ == "__main__":
    import pyad as torch
    run(torch, to_meta=False)

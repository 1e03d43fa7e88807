"""Port of the PyTorch tutorial "Per-sample-gradients" (pytorch/tutorials
``intermediate_source/per_sample_grads.py``): a small CNN's gradient for each sample of
a batch, by a loop of ``torch.autograd.grad`` and by ``vmap(grad(compute_loss))`` over
``functional_call``, checked against each other with the tutorial's ``allclose``.

Ported by changing the imports (``import pyad as torch``); ``from torch.func import
functional_call, vmap, grad`` is written ``functional_call, vmap, grad =
torch.func.functional_call, ...``, so it reads the namespace ``run`` is given. Other
changes: ``device`` is ``'cpu'``; the batch size is ``run``'s keyword argument (64 by
default), and ``targets`` has ``batch_size`` entries where the original writes ``(64,)``;
left out: the ``torch.utils.benchmark.Timer`` timings and ``get_perf``. ``run`` returns
the average gradient of the batch and both lists of per-sample gradients.

Run it with ``python examples/ported/per_sample_grads.py``.
"""


def run(torch, init=None, log=print, batch_size=64):
    """Return ``(average_grads, per_sample_grads, ft_per_sample_grads)``."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(0)

    # Here's a simple CNN and loss function:

    class SimpleCNN(nn.Module):
        def __init__(self):
            super(SimpleCNN, self).__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output

    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)

    device = 'cpu'

    num_models = 10  # noqa: F841 (as the tutorial)
    data = torch.randn(batch_size, 1, 28, 28, device=device)

    targets = torch.randint(10, (batch_size,), device=device)

    model = SimpleCNN().to(device=device)
    if init is not None:
        init(model)
    predictions = model(data)  # move the entire mini-batch through the model

    loss = loss_fn(predictions, targets)
    loss.backward()  # back propagate the 'average' gradient of this mini-batch
    average_grads = [p.grad.clone() for p in model.parameters()]

    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)  # prepend batch dimension for processing
        target = target.unsqueeze(0)

        prediction = model(sample)
        loss = loss_fn(prediction, target)

        return torch.autograd.grad(loss, list(model.parameters()))

    def compute_sample_grads(data, targets):
        """ manually process each sample with per sample gradient """
        sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
        sample_grads = zip(*sample_grads)
        sample_grads = [torch.stack(shards) for shards in sample_grads]
        return sample_grads

    per_sample_grads = compute_sample_grads(data, targets)

    log(per_sample_grads[0].shape)

    functional_call, vmap, grad = torch.func.functional_call, torch.func.vmap, torch.func.grad

    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)

        predictions = functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss

    ft_compute_grad = grad(compute_loss)

    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))

    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

    for i, (per_sample_grad, ft_per_sample_grad) in enumerate(
        zip(per_sample_grads, ft_per_sample_grads.values())
    ):
        is_close = torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
        if not is_close:
            abs_diff = (per_sample_grad - ft_per_sample_grad).abs()
            log(f"Gradient {i} mismatch:")
            log(f"  Max absolute difference: {abs_diff.max().item()}")
        # Keep the original assertion
        assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
    log("per-sample gradients agree")
    return average_grads, per_sample_grads, list(ft_per_sample_grads.values())


if __name__ == "__main__":
    import pyad as torch
    run(torch, batch_size=8)

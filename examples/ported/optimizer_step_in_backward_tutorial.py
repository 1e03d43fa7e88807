"""Port of the PyTorch tutorial "How to save memory by fusing the optimizer step into the
backward pass" (pytorch/tutorials
``intermediate_source/optimizer_step_in_backward_tutorial.py``): a training loop with
one ``Adam``, then one ``Adam([p], foreach=False)`` per parameter, stepped and zeroed by a
hook registered with ``Tensor.register_post_accumulate_grad_hook``.

Ported by changing the imports (``import pyad as torch``). Lines that differ, for the
CPU: torchvision's pretrained ``vit_l_16`` is a small randomly initialised
``nn.Sequential`` (``Flatten``, ``Linear``, ``GELU``, ``Linear``), ``IMAGE_SIZE`` is
``run``'s keyword (8 instead of 224), ``.cuda()`` is ``.to(device)`` with the CPU as the
device, and the CUDA memory snapshots (``torch.cuda.memory._record_memory_history``,
``_snapshot`` and the pickled files) are left out: they only record allocations. ``run``
returns each step's loss, the weights after the three steps with one optimizer and
after the three steps with the optimizer in the backward pass, the ``grad`` of every
parameter after each backward (``None``: the hook zeroes it), and the order in which
the hooks ran.

Run it with ``python examples/ported/optimizer_step_in_backward_tutorial.py``.
"""


def run(torch, init=None, log=print, IMAGE_SIZE=8, steps=3):
    """Return the losses, the weights after each half, the grads and the hook order."""
    device = "cpu"
    nn = torch.nn
    results = {"losses": [], "hook_order": [], "grads_after_backward": []}

    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * IMAGE_SIZE * IMAGE_SIZE, 16),
                          nn.GELU(), nn.Linear(16, 10)).to(device)
    if init is not None:
        init(model)
    optimizer = torch.optim.Adam(model.parameters())
    names = {p: name for name, p in model.named_parameters()}

    def train(model, optimizer):
        # create our fake image input: tensor shape is batch_size, channels, height, width
        fake_image = torch.rand(1, 3, IMAGE_SIZE, IMAGE_SIZE).to(device)

        # call our forward and backward
        loss = model.forward(fake_image)
        loss.sum().backward()
        results["losses"].append(loss.sum().item())

        # optimizer update
        optimizer.step()
        optimizer.zero_grad()

    # train 3 steps
    for _ in range(steps):
        train(model, optimizer)
    results["after_optimizer"] = {k: v.detach().clone() for k, v in model.state_dict().items()}

    # Instead of having just *one* optimizer, we will have a ``dict`` of optimizers
    # for every parameter so we could reference them in our hook.
    optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}

    # Define our hook, which will call the optimizer ``step()`` and ``zero_grad()``
    def optimizer_hook(parameter) -> None:
        results["hook_order"].append(names[parameter])
        optimizer_dict[parameter].step()
        optimizer_dict[parameter].zero_grad()

    # Register the hook onto every parameter
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(optimizer_hook)

    # Now remember our previous ``train()`` function? Since the optimizer has been
    # fused into the backward, we can remove the optimizer step and zero_grad calls.
    def train(model):
        # create our fake image input: tensor shape is batch_size, channels, height, width
        fake_image = torch.rand(1, 3, IMAGE_SIZE, IMAGE_SIZE).to(device)

        # call our forward and backward
        loss = model.forward(fake_image)
        loss.sum().backward()
        results["losses"].append(loss.sum().item())
        results["grads_after_backward"].append([p.grad for p in model.parameters()])

        # optimizer update --> no longer needed!
        # optimizer.step()
        # optimizer.zero_grad()

    # delete optimizer memory from before to get a clean slate for the next
    # memory snapshot
    del optimizer

    # train 3 steps. note that we no longer pass the optimizer into train()
    for _ in range(steps):
        train(model)
    results["after_optimizer_in_backward"] = {
        k: v.detach().clone() for k, v in model.state_dict().items()}
    results["optimizer_steps"] = [int(o.state[p]["step"]) for p, o in optimizer_dict.items()]
    log("losses:", results["losses"])
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

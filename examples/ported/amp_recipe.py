"""Port of the PyTorch recipe "Automatic Mixed Precision" (pytorch/tutorials
``recipes_source/recipes/amp_recipe.py``), its CPU parts: a stack of ``Linear`` and
``ReLU`` trained in default precision, then with ``autocast`` and ``GradScaler``
(``enabled=use_amp``), the illustration loops (``autocast`` alone, ``GradScaler``,
``unscale_`` before ``clip_grad_norm_``), and the scaler's ``state_dict`` saved and
loaded with the model's and the optimizer's.

Ported by changing the imports (``import pyad as torch``). The stored text is CUDA-only
(``torch.cuda.amp.autocast()``, ``torch.cuda.amp.GradScaler()``, ``.cuda()``, CUDA
timers and memory counters): the port runs on the CPU with the current text's
device-generic spelling, ``torch.autocast(device_type=device, dtype=torch.float16)`` and
``torch.amp.GradScaler(device)`` with ``device = "cpu"``, and its timers print the time
only. The sizes (512 x 4096, 50 batches, 3 epochs) are ``run``'s keyword arguments
(small by default); the three illustration loops run ``illustrate_epochs`` epochs (0 in
the text). ``run`` returns every loss, the dtypes the text asserts, the scaler's scale
after each step and its ``state_dict``; ``init`` sees each model.

Run it with ``python examples/ported/amp_recipe.py``.
"""
import gc
import time


def run(torch, batch_size=16, in_size=64, out_size=64, num_layers=3, num_batches=4,
        epochs=2, illustrate_epochs=0, device="cpu", init=None, log=print):
    """Return ``{"default", "autocast", "scaler", "amp", "clip", ...}``: each loop's losses."""
    r = {"default": [], "autocast": [], "autocast_dtypes": [], "scaler": [], "amp": [],
         "clip": [], "scales": []}
    timer = {}

    def start_timer():
        gc.collect()
        timer["start"] = time.time()

    def end_timer_and_print(local_msg):
        end_time = time.time()
        log("\n" + local_msg)
        log("Total execution time = {:.3f} sec".format(end_time - timer["start"]))

    def make_model(in_size, out_size, num_layers):
        layers = []
        for _ in range(num_layers - 1):
            layers.append(torch.nn.Linear(in_size, in_size))
            layers.append(torch.nn.ReLU())
        layers.append(torch.nn.Linear(in_size, out_size))
        model = torch.nn.Sequential(*tuple(layers)).to(device)
        if init is not None:
            init(model)
        return model

    # Creates data in default precision.
    data = [torch.randn(batch_size, in_size, device=device) for _ in range(num_batches)]
    targets = [torch.randn(batch_size, out_size, device=device) for _ in range(num_batches)]

    loss_fn = torch.nn.MSELoss().to(device)

    # Default Precision
    net = make_model(in_size, out_size, num_layers)
    opt = torch.optim.SGD(net.parameters(), lr=0.001)

    start_timer()
    for epoch in range(epochs):
        for input, target in zip(data, targets):
            output = net(input)
            loss = loss_fn(output, target)
            loss.backward()
            opt.step()
            opt.zero_grad() # set_to_none=True here can modestly improve performance
            r["default"].append(loss.item())
    end_timer_and_print("Default precision:")

    # Adding autocast
    for epoch in range(illustrate_epochs): # 0 epochs, this section is for illustration only
        for input, target in zip(data, targets):
            # Runs the forward pass under autocast.
            with torch.autocast(device_type=device, dtype=torch.float16):
                output = net(input)
                # output is float16 because linear layers autocast to float16.
                assert output.dtype is torch.float16

                loss = loss_fn(output, target)
                # loss is float32 because mse_loss layers autocast to float32.
                assert loss.dtype is torch.float32
            r["autocast_dtypes"].append((str(output.dtype).split(".")[-1],
                                         str(loss.dtype).split(".")[-1]))

            # Exits autocast before backward().
            loss.backward()
            opt.step()
            opt.zero_grad() # set_to_none=True here can modestly improve performance
            r["autocast"].append(loss.item())

    # Adding GradScaler
    scaler = torch.amp.GradScaler(device)

    for epoch in range(illustrate_epochs): # 0 epochs, this section is for illustration only
        for input, target in zip(data, targets):
            with torch.autocast(device_type=device, dtype=torch.float16):
                output = net(input)
                loss = loss_fn(output, target)

            # Scales loss.  Calls backward() on scaled loss to create scaled gradients.
            scaler.scale(loss).backward()

            # scaler.step() first unscales the gradients of the optimizer's assigned params.
            # If these gradients do not contain infs or NaNs, optimizer.step() is then called,
            # otherwise, optimizer.step() is skipped.
            scaler.step(opt)

            # Updates the scale for next iteration.
            scaler.update()

            opt.zero_grad()
            r["scaler"].append(loss.item())

    # All together ("Automatic Mixed Precision")
    use_amp = True

    net = make_model(in_size, out_size, num_layers)
    opt = torch.optim.SGD(net.parameters(), lr=0.001)
    scaler = torch.amp.GradScaler(device, enabled=use_amp)

    start_timer()
    for epoch in range(epochs):
        for input, target in zip(data, targets):
            with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
                output = net(input)
                loss = loss_fn(output, target)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            r["amp"].append(loss.item())
            r["scales"].append(scaler.get_scale())
    end_timer_and_print("Mixed precision:")

    # Inspecting/modifying gradients (e.g., clipping)
    for epoch in range(illustrate_epochs): # 0 epochs, this section is for illustration only
        for input, target in zip(data, targets):
            with torch.autocast(device_type=device, dtype=torch.float16):
                output = net(input)
                loss = loss_fn(output, target)
            scaler.scale(loss).backward()

            # Unscales the gradients of optimizer's assigned params in-place
            scaler.unscale_(opt)

            # Since the gradients of optimizer's assigned params are now unscaled, clips as usual.
            # You may use the same value for max_norm here as you would without gradient scaling.
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.1)

            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            r["clip"].append(loss.item())

    # Saving/Resuming
    checkpoint = {"model": net.state_dict(),
                  "optimizer": opt.state_dict(),
                  "scaler": scaler.state_dict()}

    net.load_state_dict(checkpoint["model"])
    opt.load_state_dict(checkpoint["optimizer"])
    scaler.load_state_dict(checkpoint["scaler"])
    r["scaler_state_dict"] = scaler.state_dict()
    r["net"] = net
    return r


if __name__ == "__main__":
    import pyad as torch
    run(torch)

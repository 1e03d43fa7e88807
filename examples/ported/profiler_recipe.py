"""Port of the PyTorch recipe "PyTorch Profiler" (pytorch/tutorials
``recipes_source/recipes/profiler_recipe.py``): ``torch.profiler.profile`` with
``record_function`` labels, ``key_averages()`` tables (sorted by CPU time and by memory,
grouped by input shapes and by stack), ``profile_memory``, ``export_chrome_trace``,
``with_stack``, ``schedule`` with ``on_trace_ready`` and ``prof.step()``, and
``export_memory_timeline``.

Ported by changing the imports (``import pyad as torch``; ``profile``,
``record_function``, ``ProfilerActivity`` and ``schedule`` from ``torch.profiler``);
``print`` is ``log``. Lines that differ: torchvision's ``models.resnet18()`` is a small
local ResNet of the same layout (``resnet18``: a 7x7 stem convolution, batch norm, max
pooling, two basic blocks, adaptive average pooling, a linear head; narrower), the input
is ``image_size`` pixels square (224 in the text); the trace files go to ``out_dir``
(the text writes ``trace.json``, ``/tmp/trace_<step>.json`` and
``memory_timeline.html``). Without CUDA or XPU the text prints a message and calls
``sys.exit(0)`` before its sections 5 to 8: ``run`` returns there instead, unless
``cpu_sections=True``, which runs them with ``device = 'cpu'``. ``run`` returns every
table the text prints, and the values that do not depend on timing (event names and
call counts, input shapes, the schedule's actions, the steps at which traces were
ready, the exported files).

Run it with ``python examples/ported/profiler_recipe.py``.
"""
import os
import tempfile


def resnet18(torch, width=8, num_classes=10):
    """A small stand-in for torchvision's ``resnet18()``: the same kinds of layers."""
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(
                    nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = BasicBlock(width, width)
            self.layer2 = BasicBlock(width, 2 * width, stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(2 * width, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer2(self.layer1(x))
            x = torch.flatten(self.avgpool(x), 1)
            return self.fc(x)

    return ResNet()


def _counts(prof):
    return {e.key: e.count for e in prof.key_averages()}


def run(torch, init=None, log=print, image_size=224, cpu_sections=False, out_dir=None):
    """Return the printed tables and what in them does not depend on timing."""
    profile, record_function, ProfilerActivity = (
        torch.profiler.profile, torch.profiler.record_function, torch.profiler.ProfilerActivity)

    class models:
        resnet18 = staticmethod(lambda: resnet18(torch))

    results = {}
    if out_dir is None:
        out_dir = tempfile.mkdtemp(prefix="profiler_recipe_")
    os.makedirs(out_dir, exist_ok=True)

    model = models.resnet18()
    if init is not None:
        init(model)
    inputs = torch.randn(5, 3, image_size, image_size)

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)

    results["table_cpu_time"] = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    log(results["table_cpu_time"])
    results["counts"] = _counts(prof)

    results["table_input_shape"] = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=10)
    log(results["table_input_shape"])
    results["input_shapes"] = [(e.key, e.input_shapes, e.count) for e in
                               prof.key_averages(group_by_input_shape=True)]

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        device = 'cuda'
        activities += [ProfilerActivity.CUDA]
    elif torch.xpu.is_available():
        device = 'xpu'
        activities += [ProfilerActivity.XPU]
    elif cpu_sections:
        device = 'cpu'
    else:
        log('Neither CUDA nor XPU devices are available to demonstrate profiling on acceleration devices')
        return results

    sort_by_keyword = device + "_time_total"

    model = models.resnet18().to(device)
    if init is not None:
        init(model)
    inputs = torch.randn(5, 3, image_size, image_size).to(device)

    with profile(activities=activities, record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)

    results["table_device_time"] = prof.key_averages().table(sort_by=sort_by_keyword, row_limit=10)
    log(results["table_device_time"])

    model = models.resnet18()
    if init is not None:
        init(model)
    inputs = torch.randn(5, 3, image_size, image_size)

    with profile(activities=[ProfilerActivity.CPU],
            profile_memory=True, record_shapes=True) as prof:
        model(inputs)

    results["table_self_memory"] = prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10)
    log(results["table_self_memory"])
    results["table_memory"] = prof.key_averages().table(sort_by="cpu_memory_usage", row_limit=10)
    log(results["table_memory"])

    model = models.resnet18().to(device)
    if init is not None:
        init(model)
    inputs = torch.randn(5, 3, image_size, image_size).to(device)

    with profile(activities=activities) as prof:
        model(inputs)

    prof.export_chrome_trace(os.path.join(out_dir, "trace.json"))
    results["trace"] = os.path.join(out_dir, "trace.json")

    sort_by_keyword = "self_" + device + "_time_total"

    with profile(
        activities=activities,
        with_stack=True,
    ) as prof:
        model(inputs)

    # Print aggregated stats
    results["table_stack"] = prof.key_averages(group_by_stack_n=5).table(sort_by=sort_by_keyword, row_limit=2)
    log(results["table_stack"])

    schedule = torch.profiler.schedule

    my_schedule = schedule(
        skip_first=10,
        wait=5,
        warmup=1,
        active=3,
        repeat=2)
    results["my_schedule"] = [my_schedule(step).name for step in range(30)]

    sort_by_keyword = "self_" + device + "_time_total"
    results["ready"] = []

    def trace_handler(p):
        output = p.key_averages().table(sort_by=sort_by_keyword, row_limit=10)
        log(output)
        p.export_chrome_trace(os.path.join(out_dir, "trace_" + str(p.step_num) + ".json"))
        results["ready"].append((p.step_num, _counts(p)))

    with profile(
        activities=activities,
        schedule=torch.profiler.schedule(
            wait=1,
            warmup=1,
            active=2),
        on_trace_ready=trace_handler
    ) as p:
        for idx in range(8):
            model(inputs)
            p.step()

    with profile(activities=[ProfilerActivity.CPU],
            profile_memory=True, record_shapes=True, with_stack=True) as prof:
        model(inputs)

    # Add the memory timeline export right after:
    prof.export_memory_timeline(os.path.join(out_dir, "memory_timeline.html"))
    results["files"] = sorted(os.listdir(out_dir))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, image_size=32)

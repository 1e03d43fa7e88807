"""Port of the PyTorch tutorial "Optional: Data Parallelism" (pytorch/tutorials
``beginner_source/blitz/data_parallel_tutorial.py``): a ``RandomDataset``, a shuffling
``DataLoader``, a ``Linear`` model that prints the sizes it sees, wrapped in
``nn.DataParallel`` when there is more than one GPU, and ``model.to(device)``.

Ported by changing the imports (``import pyad as torch``, ``nn = torch.nn``,
``Dataset``/``DataLoader`` from ``torch.utils.data``); ``print`` is ``log``. The
module-level parameters are ``run``'s keyword arguments, and ``run`` returns the sizes
printed inside and outside the model and each batch's input and output.
``data_parallel=True`` wraps the model in ``nn.DataParallel`` even without GPUs (on the
CPU it calls the module it wraps, as torch's does); ``shuffle`` is the ``DataLoader``'s
(``True`` in the text). On a machine without CUDA, as pyad's, the text never wraps.

Run it with ``python examples/ported/data_parallel_tutorial.py``.
"""


def run(torch, init=None, log=print, input_size=5, output_size=2, batch_size=30,
        data_size=100, shuffle=True, data_parallel=False):
    """Return the printed sizes and every batch's input and output."""
    nn = torch.nn
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader
    results = {"inside": [], "outside": [], "inputs": [], "outputs": []}

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    class RandomDataset(Dataset):

        def __init__(self, size, length):
            self.len = length
            self.data = torch.randn(length, size)

        def __getitem__(self, index):
            return self.data[index]

        def __len__(self):
            return self.len

    rand_loader = DataLoader(dataset=RandomDataset(input_size, data_size),
                             batch_size=batch_size, shuffle=shuffle)

    class Model(nn.Module):
        # Our model

        def __init__(self, input_size, output_size):
            super(Model, self).__init__()
            self.fc = nn.Linear(input_size, output_size)

        def forward(self, input):
            output = self.fc(input)
            log("\tIn Model: input size", input.size(),
                "output size", output.size())
            results["inside"].append((tuple(input.size()), tuple(output.size())))

            return output

    model = Model(input_size, output_size)
    if init is not None:
        init(model)
    if torch.cuda.device_count() > 1:
        log("Let's use", torch.cuda.device_count(), "GPUs!")
        # dim = 0 [30, xxx] -> [10, ...], [10, ...], [10, ...] on 3 GPUs
        model = nn.DataParallel(model)
    elif data_parallel:
        model = nn.DataParallel(model)
    results["wrapped"] = type(model).__name__

    model.to(device)

    for data in rand_loader:
        input = data.to(device)
        output = model(input)
        log("Outside: input size", input.size(),
            "output_size", output.size())
        results["outside"].append((tuple(input.size()), tuple(output.size())))
        results["inputs"].append(input)
        results["outputs"].append(output)
    results["device"] = str(device)
    results["device_count"] = torch.cuda.device_count()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
    run(torch, data_parallel=True)

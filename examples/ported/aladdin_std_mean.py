"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_std_mean.py``: the per-channel mean and standard deviation
of an image data set, batch by batch (``var[X] = E[X**2] - E[X]**2``).

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 (torchvision) is
synthetic images of its shape in a ``TensorDataset`` of ``n`` images (smaller in the
tests); ``tqdm(loader)`` is the loader itself; ``print`` is ``log``. ``run`` returns the
mean and the standard deviation.

Run it with ``python examples/ported/aladdin_std_mean.py``.
"""
import numpy as np


def run(torch, n=640, batch_size=64, shuffle=True, seed=0, init=None, log=print):
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)

    # cifar10 dataset
    train_set = torch.utils.data.TensorDataset(
        torch.from_numpy(rng.rand(n, 3, 32, 32).astype(np.float32)),
        torch.from_numpy(rng.randint(0, 10, n)))
    train_loader = DataLoader(dataset=train_set, batch_size=batch_size, shuffle=shuffle)

    def get_mean_std(loader):
        # var[X] = E[X**2] - E[X]**2
        channels_sum, channels_sqrd_sum, num_batches = 0, 0, 0

        for data, _ in loader:
            channels_sum += torch.mean(data, dim=[0, 2, 3])
            channels_sqrd_sum += torch.mean(data ** 2, dim=[0, 2, 3])
            num_batches += 1

        mean = channels_sum / num_batches
        std = (channels_sqrd_sum / num_batches - mean ** 2) ** 0.5

        return mean, std

    mean, std = get_mean_std(train_loader)
    log(mean)
    log(std)
    return mean, std


if __name__ == "__main__":
    import pyad as torch
    run(torch)

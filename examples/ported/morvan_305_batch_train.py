"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/305_batch_train.py``: a
``TensorDataset`` of two ``linspace``s batched by a shuffling ``DataLoader`` with two
workers.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``import torch.utils.data as
Data`` is ``Data = torch.utils.data``). ``print`` is ``log``; ``run`` returns the
batches (the tests run it with ``shuffle=False``: each framework's generator draws its
own permutation, and check that a shuffled epoch is a permutation).

Run it with ``python examples/ported/morvan_305_batch_train.py``.
"""


def run(torch, BATCH_SIZE=5, shuffle=True, log=print):
    Data = torch.utils.data
    batches = []

    torch.manual_seed(1)    # reproducible

    x = torch.linspace(1, 10, 10)       # this is x data (torch tensor)
    y = torch.linspace(10, 1, 10)       # this is y data (torch tensor)

    torch_dataset = Data.TensorDataset(x, y)
    loader = Data.DataLoader(
        dataset=torch_dataset,      # torch TensorDataset format
        batch_size=BATCH_SIZE,      # mini batch size
        shuffle=shuffle,            # random shuffle for training
        num_workers=2,              # subprocesses for loading data
    )

    def show_batch():
        for epoch in range(3):   # train entire dataset 3 times
            for step, (batch_x, batch_y) in enumerate(loader):  # for each training step
                # train your data...
                log('Epoch: ', epoch, '| Step: ', step, '| batch x: ',
                    batch_x.numpy(), '| batch y: ', batch_y.numpy())
                batches.append((epoch, step, batch_x.numpy(), batch_y.numpy()))

    show_batch()
    return batches


if __name__ == "__main__":
    import pyad as torch
    run(torch)

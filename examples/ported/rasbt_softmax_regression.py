"""Port of rasbt/deeplearning-models ``pytorch_ipynb/basic-ml/softmax-regression.ipynb``:
softmax regression (multinomial logistic regression) on MNIST with zero initial weights,
``F.cross_entropy``, SGD and ``compute_accuracy``.

deeplearning-models is MIT-licensed, Copyright (c) 2019 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape in [0, 1] (of the default dtype) and random labels in
``TensorDataset``s; ``print`` is ``log``; the notebook's cells run in order in ``run``,
whose keyword arguments are the epochs, batch size, set sizes and the training loader's
shuffling (the text's sizes are only hyperparameters: smaller in the tests). The Jupyter
``%watermark`` cells are dropped. Each step's loss, each epoch's training accuracy and
the test accuracy are returned.

Run it with ``python examples/ported/rasbt_softmax_regression.py``.
"""
import numpy as np


def run(torch, num_epochs=10, batch_size=256, n_train=1024, n_test=256, shuffle=True,
        seed=0, init=None, log=print):
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 1, 28, 28), dtype=torch.get_default_dtype()),
            torch.from_numpy(rng.randint(0, 10, n)))

    ##########################
    ### SETTINGS
    ##########################

    # Device
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    # Hyperparameters
    random_seed = 123
    learning_rate = 0.1

    # Architecture
    num_features = 784
    num_classes = 10


    ##########################
    ### MNIST DATASET
    ##########################

    train_dataset = mnist(n_train)

    test_dataset = mnist(n_test)


    train_loader = DataLoader(dataset=train_dataset,
                              batch_size=batch_size,
                              shuffle=shuffle)

    test_loader = DataLoader(dataset=test_dataset,
                             batch_size=batch_size,
                             shuffle=False)


    # Checking the dataset
    for images, labels in train_loader:
        log('Image batch dimensions:', images.shape)
        log('Image label dimensions:', labels.shape)
        break

    ##########################
    ### MODEL
    ##########################

    class SoftmaxRegression(torch.nn.Module):

        def __init__(self, num_features, num_classes):
            super(SoftmaxRegression, self).__init__()
            self.linear = torch.nn.Linear(num_features, num_classes)

            self.linear.weight.detach().zero_()
            self.linear.bias.detach().zero_()

        def forward(self, x):
            logits = self.linear(x)
            probas = F.softmax(logits, dim=1)
            return logits, probas

    model = SoftmaxRegression(num_features=num_features,
                              num_classes=num_classes)

    model.to(device)
    if init is not None:
        init(model)

    ##########################
    ### COST AND OPTIMIZER
    ##########################

    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

    # Manual seed for deterministic data loader
    torch.manual_seed(random_seed)


    def compute_accuracy(model, data_loader):
        correct_pred, num_examples = 0, 0

        for features, targets in data_loader:
            features = features.view(-1, 28*28).to(device)
            targets = targets.to(device)
            logits, probas = model(features)
            _, predicted_labels = torch.max(probas, 1)
            num_examples += targets.size(0)
            correct_pred += (predicted_labels == targets).sum()

        return correct_pred.float() / num_examples * 100


    for epoch in range(num_epochs):
        for batch_idx, (features, targets) in enumerate(train_loader):

            features = features.view(-1, 28*28).to(device)
            targets = targets.to(device)

            ### FORWARD AND BACK PROP
            logits, probas = model(features)

            # note that the PyTorch implementation of
            # CrossEntropyLoss works with logits, not
            # probabilities
            cost = F.cross_entropy(logits, targets)
            optimizer.zero_grad()
            cost.backward()

            ### UPDATE MODEL PARAMETERS
            optimizer.step()
            results.append(cost.item())

            ### LOGGING
            if not batch_idx % 50:
                log ('Epoch: %03d/%03d | Batch %03d/%03d | Cost: %.4f'
                       %(epoch+1, num_epochs, batch_idx,
                         len(train_dataset)//batch_size, cost))

        with torch.set_grad_enabled(False):
            accuracy = compute_accuracy(model, train_loader)
            results.append(float(accuracy))
            log('Epoch: %03d/%03d training accuracy: %.2f%%' % (
                  epoch+1, num_epochs,
                  accuracy))

    accuracy = compute_accuracy(model, test_loader)
    results.append(float(accuracy))
    log('Test accuracy: %.2f%%' % (accuracy))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

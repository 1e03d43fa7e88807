"""Port of rasbt/deeplearning-models ``pytorch_ipynb/mlp/mlp-dropout.ipynb``: a
multilayer perceptron with ``F.dropout(p=0.5, training=self.training)`` after each ReLU,
N(0, 0.1) initial weights written through ``weight.detach().normal_``,
``F.cross_entropy``, SGD and ``compute_accuracy`` in eval mode under ``no_grad``.

deeplearning-models is MIT-licensed, Copyright (c) 2019 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape in [0, 1] (of the default dtype) and random labels in
``TensorDataset``s; ``print`` is ``log``; the notebook's cells run in order in ``run``,
whose keyword arguments are the epochs, batch size, set sizes, the hidden widths (128
and 256 in the text: hyperparameters, narrower in the tests) and the training loader's
shuffling. The ``%watermark`` cells are dropped. In the tests ``F.dropout`` draws its
masks from a shared NumPy stream (the namespace proxy), so that both frameworks drop the
same units. Each step's loss, each epoch's training accuracy and the test accuracy are
returned.

Run it with ``python examples/ported/rasbt_mlp_dropout.py``.
"""
import time

import numpy as np


def run(torch, num_epochs=10, batch_size=64, n_train=512, n_test=128, num_hidden_1=128,
        num_hidden_2=256, shuffle=True, seed=0, init=None, log=print):
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 1, 28, 28), dtype=torch.get_default_dtype()),
            torch.from_numpy(rng.randint(0, 10, n)))

    if torch.cuda.is_available():
        torch.backends.cudnn.deterministic = True

    ##########################
    ### SETTINGS
    ##########################

    # Device
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    # Hyperparameters
    random_seed = 1
    learning_rate = 0.1
    dropout_prob = 0.5

    # Architecture
    num_features = 784
    num_classes = 10


    ##########################
    ### MNIST DATASET
    ##########################

    # Note transforms.ToTensor() scales input images
    # to 0-1 range
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

    class MultilayerPerceptron(torch.nn.Module):

        def __init__(self, num_features, num_classes):
            super(MultilayerPerceptron, self).__init__()

            ### 1st hidden layer
            self.linear_1 = torch.nn.Linear(num_features, num_hidden_1)
            # The following to lones are not necessary,
            # but used here to demonstrate how to access the weights
            # and use a different weight initialization.
            # By default, PyTorch uses Xavier/Glorot initialization, which
            # should usually be preferred.
            self.linear_1.weight.detach().normal_(0.0, 0.1)
            self.linear_1.bias.detach().zero_()

            ### 2nd hidden layer
            self.linear_2 = torch.nn.Linear(num_hidden_1, num_hidden_2)
            self.linear_2.weight.detach().normal_(0.0, 0.1)
            self.linear_2.bias.detach().zero_()

            ### Output layer
            self.linear_out = torch.nn.Linear(num_hidden_2, num_classes)
            self.linear_out.weight.detach().normal_(0.0, 0.1)
            self.linear_out.bias.detach().zero_()

        def forward(self, x):
            out = self.linear_1(x)
            out = F.relu(out)
            out = F.dropout(out, p=dropout_prob, training=self.training)

            out = self.linear_2(out)
            out = F.relu(out)
            out = F.dropout(out, p=dropout_prob, training=self.training)

            logits = self.linear_out(out)
            probas = F.softmax(logits, dim=1)
            return logits, probas


    torch.manual_seed(random_seed)
    model = MultilayerPerceptron(num_features=num_features,
                                 num_classes=num_classes)

    model = model.to(device)
    if init is not None:
        init(model)

    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

    def compute_accuracy(net, data_loader):
        net.eval()
        correct_pred, num_examples = 0, 0
        with torch.no_grad():
            for features, targets in data_loader:
                features = features.view(-1, 28*28).to(device)
                targets = targets.to(device)
                logits, probas = net(features)
                _, predicted_labels = torch.max(probas, 1)
                num_examples += targets.size(0)
                correct_pred += (predicted_labels == targets).sum()
            return correct_pred.float()/num_examples * 100


    start_time = time.time()
    for epoch in range(num_epochs):
        model.train()
        for batch_idx, (features, targets) in enumerate(train_loader):

            features = features.view(-1, 28*28).to(device)
            targets = targets.to(device)

            ### FORWARD AND BACK PROP
            logits, probas = model(features)
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
                         len(train_loader), cost))

        accuracy = compute_accuracy(model, train_loader)
        results.append(float(accuracy))
        log('Epoch: %03d/%03d training accuracy: %.2f%%' % (
              epoch+1, num_epochs,
              accuracy))

        log('Time elapsed: %.2f min' % ((time.time() - start_time)/60))

    log('Total Training Time: %.2f min' % ((time.time() - start_time)/60))

    accuracy = compute_accuracy(model, test_loader)
    results.append(float(accuracy))
    log('Test accuracy: %.2f%%' % (accuracy))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

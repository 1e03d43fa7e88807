"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/Basics/pytorch_rnn_gru_lstm.py`` (``model`` = ``"RNN_LSTM"``, the text's
choice, ``"RNN"`` or ``"RNN_GRU"``) and ``ML/Pytorch/Basics/pytorch_bidirectional_lstm.py``
(``model="BRNN"``): many-to-one recurrent classifiers of MNIST rows (``batch_first=True``,
zero initial states), ``CrossEntropyLoss``, Adam and ``check_accuracy``.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). MNIST (torchvision) is
synthetic images of its shape and random labels in a ``TensorDataset`` with torchvision's
``train`` attribute; ``print`` is ``log``; ``hidden_size`` (256 in the texts, a
hyperparameter), the epochs, batch size and set sizes are ``run``'s keyword arguments
(smaller in the tests); the learning rate is each text's (0.005, and 0.001 for the
bidirectional LSTM). Each step's loss and the accuracy counts are returned.

Run it with ``python examples/ported/aladdin_rnn_gru_lstm.py``.
"""
import numpy as np


def run(torch, model="RNN_LSTM", hidden_size=256, num_epochs=2, batch_size=64,
        n_train=128, n_test=64, shuffle=True, seed=0, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []
    model_name = model

    def mnist(n, train):
        dataset = torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 1, 28, 28), dtype=torch.get_default_dtype()),
            torch.from_numpy(rng.randint(0, 10, n)))
        dataset.train = train
        return dataset

    # Set device
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    # Hyperparameters
    input_size = 28
    num_layers = 2
    num_classes = 10
    sequence_length = 28
    learning_rate = 0.001 if model_name == "BRNN" else 0.005

    # Recurrent neural network (many-to-one)
    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, num_layers, num_classes):
            super(RNN, self).__init__()
            self.hidden_size = hidden_size
            self.num_layers = num_layers
            self.rnn = nn.RNN(input_size, hidden_size, num_layers, batch_first=True)
            self.fc = nn.Linear(hidden_size * sequence_length, num_classes)

        def forward(self, x):
            # Set initial hidden and cell states
            h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)

            # Forward propagate LSTM
            out, _ = self.rnn(x, h0)
            out = out.reshape(out.shape[0], -1)

            # Decode the hidden state of the last time step
            out = self.fc(out)
            return out

    # Recurrent neural network with GRU (many-to-one)
    class RNN_GRU(nn.Module):
        def __init__(self, input_size, hidden_size, num_layers, num_classes):
            super(RNN_GRU, self).__init__()
            self.hidden_size = hidden_size
            self.num_layers = num_layers
            self.gru = nn.GRU(input_size, hidden_size, num_layers, batch_first=True)
            self.fc = nn.Linear(hidden_size * sequence_length, num_classes)

        def forward(self, x):
            # Set initial hidden and cell states
            h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)

            # Forward propagate LSTM
            out, _ = self.gru(x, h0)
            out = out.reshape(out.shape[0], -1)

            # Decode the hidden state of the last time step
            out = self.fc(out)
            return out

    # Recurrent neural network with LSTM (many-to-one)
    class RNN_LSTM(nn.Module):
        def __init__(self, input_size, hidden_size, num_layers, num_classes):
            super(RNN_LSTM, self).__init__()
            self.hidden_size = hidden_size
            self.num_layers = num_layers
            self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
            self.fc = nn.Linear(hidden_size * sequence_length, num_classes)

        def forward(self, x):
            # Set initial hidden and cell states
            h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)
            c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)

            # Forward propagate LSTM
            out, _ = self.lstm(
                x, (h0, c0)
            )  # out: tensor of shape (batch_size, seq_length, hidden_size)
            out = out.reshape(out.shape[0], -1)

            # Decode the hidden state of the last time step
            out = self.fc(out)
            return out

    # pytorch_bidirectional_lstm.py: Create a bidirectional LSTM
    class BRNN(nn.Module):
        def __init__(self, input_size, hidden_size, num_layers, num_classes):
            super(BRNN, self).__init__()
            self.hidden_size = hidden_size
            self.num_layers = num_layers
            self.lstm = nn.LSTM(
                input_size, hidden_size, num_layers, batch_first=True, bidirectional=True
            )
            self.fc = nn.Linear(hidden_size * 2, num_classes)

        def forward(self, x):
            h0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(device)
            c0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(device)

            out, _ = self.lstm(x, (h0, c0))
            out = self.fc(out[:, -1, :])

            return out

    # Load Data
    train_dataset = mnist(n_train, True)
    test_dataset = mnist(n_test, False)

    train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=shuffle)
    test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, shuffle=shuffle)

    # Initialize network
    model = {"RNN": RNN, "RNN_GRU": RNN_GRU, "RNN_LSTM": RNN_LSTM, "BRNN": BRNN}[model_name](
        input_size, hidden_size, num_layers, num_classes).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)

    # Train Network
    for epoch in range(num_epochs):
        for batch_idx, (data, targets) in enumerate(train_loader):
            # Get data to cuda if possible
            data = data.to(device=device).squeeze(1)
            targets = targets.to(device=device)

            # forward
            scores = model(data)
            loss = criterion(scores, targets)
            results.append(loss.item())

            # backward
            optimizer.zero_grad()
            loss.backward()

            # gradient descent or adam step
            optimizer.step()

    # Check accuracy on training & test to see how good our model
    def check_accuracy(loader, model):
        if loader.dataset.train:
            log("Checking accuracy on training data")
        else:
            log("Checking accuracy on test data")

        num_correct = 0
        num_samples = 0

        # Set model to eval
        model.eval()

        with torch.no_grad():
            for x, y in loader:
                x = x.to(device=device).squeeze(1)
                y = y.to(device=device)

                scores = model(x)
                _, predictions = scores.max(1)
                num_correct += (predictions == y).sum()
                num_samples += predictions.size(0)

            log(
                f"Got {num_correct} / {num_samples} with \
                  accuracy {float(num_correct)/float(num_samples)*100:.2f}"
            )
            results.extend([int(num_correct), num_samples])
        # Set model back to train
        model.train()

    check_accuracy(train_loader, model)
    check_accuracy(test_loader, model)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, hidden_size=32, n_train=64, n_test=32, num_epochs=1)

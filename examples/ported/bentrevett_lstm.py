"""Port of bentrevett/pytorch-sentiment-analysis ``2 - Recurrent Neural Networks.ipynb``:
a multi-layer bidirectional ``nn.LSTM(batch_first=True)`` over packed padded sequences
(``pack_padded_sequence(enforce_sorted=False)``, ``pad_packed_sequence``) whose last
forward and backward states feed a ``Linear`` head, the collate function with the
lengths, ``initialize_weights`` (``xavier_normal_``, ``orthogonal_``, ``zeros_``),
pretrained vectors assigned to ``model.embedding.weight.data``, Adam (``lr=5e-4``),
``CrossEntropyLoss``, the ``train``/``evaluate`` loops with ``get_accuracy``, the best
``state_dict`` saved and reloaded for the test set, and ``predict_sentiment`` of the
notebook's four sentences.

Copyright (c) 2017 Ben Trevett, under the MIT License (see
https://github.com/bentrevett/pytorch-sentiment-analysis/blob/main/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells are
the body of ``run``; ``print`` is ``log``; the plots and the cells that only display a
value are dropped. ``datasets``' IMDb, torchtext's tokenizer, vocabulary and GloVe, and
``tqdm`` are not available: ``_bentrevett_data.py`` gives a synthetic vocabulary (the
specials ``<unk>`` and ``<pad>`` first), seeded integer reviews of the real layout (the
tokenize/numericalize ``map`` cells are what it draws), seeded "pretrained" vectors and a
``tqdm`` without the bar. The sizes (``embedding_dim`` and ``hidden_dim`` 300,
``n_layers`` 2, ``bidirectional``, ``dropout_rate`` 0.5, ``batch_size`` 512,
``max_length`` 256, ``n_epochs`` 10, the vocabulary) are keyword arguments (only
hyperparameters); the tests run a few tiny batches, and ``shuffle=False`` there (the
training loader's shuffling draws from each framework's own generator). The model file
goes to ``workdir`` (a temporary directory by default). ``train`` also appends each
batch's loss to the returned results. ``run`` returns those losses, the parameter count,
each epoch's metrics, the test loss and accuracy and the four predictions.

Run it with ``python examples/ported/bentrevett_lstm.py``.
"""
import collections
import importlib.util
import os
import tempfile

import numpy as np


def _sibling(name):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_bentrevett_" + name,
                                                  os.path.join(here, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_data = _sibling("_bentrevett_data")
tqdm = _data.tqdm


def run(torch, vocab_size=200, embedding_dim=300, hidden_dim=300, n_layers=2,
        bidirectional=True, dropout_rate=0.5, batch_size=512, max_length=256,
        n_train=1000, n_test=500, n_epochs=10, shuffle=True, init=None, log=print,
        workdir=None):
    nn = torch.nn
    optim = torch.optim
    results = []
    workdir = workdir or tempfile.mkdtemp()

    seed = 1234

    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True

    # datasets.load_dataset("imdb"), the tokenizer and the vocabulary are synthetic
    tokenizer = _data.tokenizer
    vocab = _data.build_vocab(vocab_size)
    columns = ["ids", "label", "length"]
    train_data = _data.synthetic_split(torch, vocab, n_train, max_length, columns)
    test_data = _data.synthetic_split(torch, vocab, n_test, max_length, columns)

    test_size = 0.25

    train_valid_data = train_data.train_test_split(test_size=test_size)
    train_data = train_valid_data["train"]
    valid_data = train_valid_data["test"]

    unk_index = vocab["<unk>"]
    pad_index = vocab["<pad>"]

    vocab.set_default_index(unk_index)

    def get_collate_fn(pad_index):
        def collate_fn(batch):
            batch_ids = [i["ids"] for i in batch]
            batch_ids = nn.utils.rnn.pad_sequence(
                batch_ids, padding_value=pad_index, batch_first=True
            )
            batch_length = [i["length"] for i in batch]
            batch_length = torch.stack(batch_length)
            batch_label = [i["label"] for i in batch]
            batch_label = torch.stack(batch_label)
            batch = {"ids": batch_ids, "length": batch_length, "label": batch_label}
            return batch

        return collate_fn

    def get_data_loader(dataset, batch_size, pad_index, shuffle=False):
        collate_fn = get_collate_fn(pad_index)
        data_loader = torch.utils.data.DataLoader(
            dataset=dataset,
            batch_size=batch_size,
            collate_fn=collate_fn,
            shuffle=shuffle,
        )
        return data_loader

    train_data_loader = get_data_loader(train_data, batch_size, pad_index, shuffle=shuffle)
    valid_data_loader = get_data_loader(valid_data, batch_size, pad_index)
    test_data_loader = get_data_loader(test_data, batch_size, pad_index)

    class LSTM(nn.Module):
        def __init__(
            self,
            vocab_size,
            embedding_dim,
            hidden_dim,
            output_dim,
            n_layers,
            bidirectional,
            dropout_rate,
            pad_index,
        ):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
            self.lstm = nn.LSTM(
                embedding_dim,
                hidden_dim,
                n_layers,
                bidirectional=bidirectional,
                dropout=dropout_rate,
                batch_first=True,
            )
            self.fc = nn.Linear(hidden_dim * 2 if bidirectional else hidden_dim, output_dim)
            self.dropout = nn.Dropout(dropout_rate)

        def forward(self, ids, length):
            # ids = [batch size, seq len]
            # length = [batch size]
            embedded = self.dropout(self.embedding(ids))
            # embedded = [batch size, seq len, embedding dim]
            packed_embedded = nn.utils.rnn.pack_padded_sequence(
                embedded, length, batch_first=True, enforce_sorted=False
            )
            packed_output, (hidden, cell) = self.lstm(packed_embedded)
            # hidden = [n layers * n directions, batch size, hidden dim]
            # cell = [n layers * n directions, batch size, hidden dim]
            output, output_length = nn.utils.rnn.pad_packed_sequence(packed_output)
            # output = [batch size, seq len, hidden dim * n directions]
            if self.lstm.bidirectional:
                hidden = self.dropout(torch.cat([hidden[-1], hidden[-2]], dim=-1))
                # hidden = [batch size, hidden dim * 2]
            else:
                hidden = self.dropout(hidden[-1])
                # hidden = [batch size, hidden dim]
            prediction = self.fc(hidden)
            # prediction = [batch size, output dim]
            return prediction

    vocab_size = len(vocab)
    output_dim = len(train_data.unique("label"))

    model = LSTM(
        vocab_size,
        embedding_dim,
        hidden_dim,
        output_dim,
        n_layers,
        bidirectional,
        dropout_rate,
        pad_index,
    )

    def count_parameters(model):
        return sum(p.numel() for p in model.parameters() if p.requires_grad)

    log(f"The model has {count_parameters(model):,} trainable parameters")
    results.append(count_parameters(model))

    def initialize_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LSTM):
            for name, param in m.named_parameters():
                if "bias" in name:
                    nn.init.zeros_(param)
                elif "weight" in name:
                    nn.init.orthogonal_(param)

    model.apply(initialize_weights)

    pretrained_embedding = _data.pretrained_vectors(torch, vocab, embedding_dim)

    model.embedding.weight.data = pretrained_embedding
    if init is not None:
        init(model)

    lr = 5e-4

    optimizer = optim.Adam(model.parameters(), lr=lr)

    criterion = nn.CrossEntropyLoss()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = model.to(device)
    criterion = criterion.to(device)

    def train(dataloader, model, criterion, optimizer, device):
        model.train()
        epoch_losses = []
        epoch_accs = []
        for batch in tqdm.tqdm(dataloader, desc="training..."):
            ids = batch["ids"].to(device)
            length = batch["length"]
            label = batch["label"].to(device)
            prediction = model(ids, length)
            loss = criterion(prediction, label)
            accuracy = get_accuracy(prediction, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_losses.append(loss.item())
            epoch_accs.append(accuracy.item())
            results.append(loss.item())
        return np.mean(epoch_losses), np.mean(epoch_accs)

    def evaluate(dataloader, model, criterion, device):
        model.eval()
        epoch_losses = []
        epoch_accs = []
        with torch.no_grad():
            for batch in tqdm.tqdm(dataloader, desc="evaluating..."):
                ids = batch["ids"].to(device)
                length = batch["length"]
                label = batch["label"].to(device)
                prediction = model(ids, length)
                loss = criterion(prediction, label)
                accuracy = get_accuracy(prediction, label)
                epoch_losses.append(loss.item())
                epoch_accs.append(accuracy.item())
        return np.mean(epoch_losses), np.mean(epoch_accs)

    def get_accuracy(prediction, label):
        batch_size, _ = prediction.shape
        predicted_classes = prediction.argmax(dim=-1)
        correct_predictions = predicted_classes.eq(label).sum()
        accuracy = correct_predictions / batch_size
        return accuracy

    best_valid_loss = float("inf")

    metrics = collections.defaultdict(list)

    for epoch in range(n_epochs):
        train_loss, train_acc = train(
            train_data_loader, model, criterion, optimizer, device
        )
        valid_loss, valid_acc = evaluate(valid_data_loader, model, criterion, device)
        metrics["train_losses"].append(train_loss)
        metrics["train_accs"].append(train_acc)
        metrics["valid_losses"].append(valid_loss)
        metrics["valid_accs"].append(valid_acc)
        if valid_loss < best_valid_loss:
            best_valid_loss = valid_loss
            torch.save(model.state_dict(), os.path.join(workdir, "lstm.pt"))
        log(f"epoch: {epoch}")
        log(f"train_loss: {train_loss:.3f}, train_acc: {train_acc:.3f}")
        log(f"valid_loss: {valid_loss:.3f}, valid_acc: {valid_acc:.3f}")
    results.append([metrics["train_losses"], metrics["train_accs"],
                    metrics["valid_losses"], metrics["valid_accs"]])

    model.load_state_dict(torch.load(os.path.join(workdir, "lstm.pt")))

    test_loss, test_acc = evaluate(test_data_loader, model, criterion, device)

    log(f"test_loss: {test_loss:.3f}, test_acc: {test_acc:.3f}")
    results.append([test_loss, test_acc])

    def predict_sentiment(text, model, tokenizer, vocab, device):
        tokens = tokenizer(text)
        ids = vocab.lookup_indices(tokens)
        length = torch.LongTensor([len(ids)])
        tensor = torch.LongTensor(ids).unsqueeze(dim=0).to(device)
        prediction = model(tensor, length).squeeze(dim=0)
        probability = torch.softmax(prediction, dim=-1)
        predicted_class = prediction.argmax(dim=-1).item()
        predicted_probability = probability[predicted_class].item()
        return predicted_class, predicted_probability

    for text in ["This film is terrible!", "This film is great!",
                 "This film is not terrible, it's great!",
                 "This film is not great, it's terrible!"]:
        results.append(predict_sentiment(text, model, tokenizer, vocab, device))
    return results


if __name__ == "__main__":
    import pyad as torch
    results = run(torch, embedding_dim=16, hidden_dim=16, batch_size=32, max_length=32, n_train=128,
                  n_test=32, n_epochs=3)
    print("predictions:", results[-4:])

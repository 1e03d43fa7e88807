"""Port of bentrevett/pytorch-sentiment-analysis ``3 - Convolutional Neural
Networks.ipynb``: ``nn.Conv1d`` filters of three widths (an ``nn.ModuleList``) over the
permuted embeddings, ``torch.relu``, max-over-time pooling (``max(dim=-1).values``),
dropout and a ``Linear`` head, ``initialize_weights`` (``xavier_normal_``,
``kaiming_normal_(nonlinearity="relu")``, ``zeros_``), the collate function and
``DataLoader``, pretrained vectors assigned to ``model.embedding.weight.data``, Adam,
``CrossEntropyLoss``, the ``train``/``evaluate`` loops with ``get_accuracy``, the best
``state_dict`` saved and reloaded for the test set, and ``predict_sentiment`` (padded to
``min_length``) of the notebook's four sentences.

Copyright (c) 2017 Ben Trevett, under the MIT License (see
https://github.com/bentrevett/pytorch-sentiment-analysis/blob/main/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells are
the body of ``run``; ``print`` is ``log``; the plots and the cells that only display a
value are dropped. ``datasets``' IMDb, torchtext's tokenizer, vocabulary and GloVe, and
``tqdm`` are not available: ``_bentrevett_data.py`` gives a synthetic vocabulary (the
specials ``<unk>`` and ``<pad>`` first), seeded integer reviews of the real layout (the
tokenize/numericalize ``map`` cells are what it draws), seeded "pretrained" vectors and a
``tqdm`` without the bar. The sizes (``embedding_dim`` 300, ``n_filters`` 100,
``filter_sizes`` [3, 5, 7], ``dropout_rate`` 0.25, ``batch_size`` 512, ``max_length``
256, ``n_epochs`` 10, the vocabulary) are keyword arguments (only
hyperparameters); the tests run a few tiny batches, and ``shuffle=False`` there (the
training loader's shuffling draws from each framework's own generator). The model file
goes to ``workdir`` (a temporary directory by default). ``train`` also appends each
batch's loss to the returned results. ``run`` returns those losses, the parameter count,
each epoch's metrics, the test loss and accuracy and the four predictions.

Run it with ``python examples/ported/bentrevett_cnn.py``.
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


def run(torch, vocab_size=200, embedding_dim=300, n_filters=100, filter_sizes=(3, 5, 7),
        dropout_rate=0.25, batch_size=512, max_length=256,
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
    train_data = _data.synthetic_split(torch, vocab, n_train, max_length)
    test_data = _data.synthetic_split(torch, vocab, n_test, max_length)

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
            batch_label = [i["label"] for i in batch]
            batch_label = torch.stack(batch_label)
            batch = {"ids": batch_ids, "label": batch_label}
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

    class CNN(nn.Module):
        def __init__(
            self,
            vocab_size,
            embedding_dim,
            n_filters,
            filter_sizes,
            output_dim,
            dropout_rate,
            pad_index,
        ):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
            self.convs = nn.ModuleList(
                [
                    nn.Conv1d(embedding_dim, n_filters, filter_size)
                    for filter_size in filter_sizes
                ]
            )
            self.fc = nn.Linear(len(filter_sizes) * n_filters, output_dim)
            self.dropout = nn.Dropout(dropout_rate)

        def forward(self, ids):
            # ids = [batch size, seq len]
            embedded = self.dropout(self.embedding(ids))
            # embedded = [batch size, seq len, embedding dim]
            embedded = embedded.permute(0, 2, 1)
            # embedded = [batch size, embedding dim, seq len]
            conved = [torch.relu(conv(embedded)) for conv in self.convs]
            # conved_n = [batch size, n filters, seq len - filter_sizes[n] + 1]
            pooled = [conv.max(dim=-1).values for conv in conved]
            # pooled_n = [batch size, n filters]
            cat = self.dropout(torch.cat(pooled, dim=-1))
            # cat = [batch size, n filters * len(filter_sizes)]
            prediction = self.fc(cat)
            # prediction = [batch size, output dim]
            return prediction

    vocab_size = len(vocab)
    filter_sizes = list(filter_sizes)
    output_dim = len(train_data.unique("label"))

    model = CNN(
        vocab_size,
        embedding_dim,
        n_filters,
        filter_sizes,
        output_dim,
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
        elif isinstance(m, nn.Conv1d):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.zeros_(m.bias)

    model.apply(initialize_weights)

    pretrained_embedding = _data.pretrained_vectors(torch, vocab, embedding_dim)

    model.embedding.weight.data = pretrained_embedding
    if init is not None:
        init(model)

    optimizer = optim.Adam(model.parameters())

    criterion = nn.CrossEntropyLoss()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = model.to(device)
    criterion = criterion.to(device)

    def train(data_loader, model, criterion, optimizer, device):
        model.train()
        epoch_losses = []
        epoch_accs = []
        for batch in tqdm.tqdm(data_loader, desc="training..."):
            ids = batch["ids"].to(device)
            label = batch["label"].to(device)
            prediction = model(ids)
            loss = criterion(prediction, label)
            accuracy = get_accuracy(prediction, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_losses.append(loss.item())
            epoch_accs.append(accuracy.item())
            results.append(loss.item())
        return np.mean(epoch_losses), np.mean(epoch_accs)

    def evaluate(data_loader, model, criterion, device):
        model.eval()
        epoch_losses = []
        epoch_accs = []
        with torch.no_grad():
            for batch in tqdm.tqdm(data_loader, desc="evaluating..."):
                ids = batch["ids"].to(device)
                label = batch["label"].to(device)
                prediction = model(ids)
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
            torch.save(model.state_dict(), os.path.join(workdir, "cnn.pt"))
        log(f"epoch: {epoch}")
        log(f"train_loss: {train_loss:.3f}, train_acc: {train_acc:.3f}")
        log(f"valid_loss: {valid_loss:.3f}, valid_acc: {valid_acc:.3f}")
    results.append([metrics["train_losses"], metrics["train_accs"],
                    metrics["valid_losses"], metrics["valid_accs"]])

    model.load_state_dict(torch.load(os.path.join(workdir, "cnn.pt")))

    test_loss, test_acc = evaluate(test_data_loader, model, criterion, device)

    log(f"test_loss: {test_loss:.3f}, test_acc: {test_acc:.3f}")
    results.append([test_loss, test_acc])

    def predict_sentiment(text, model, tokenizer, vocab, device, min_length, pad_index):
        tokens = tokenizer(text)
        ids = vocab.lookup_indices(tokens)
        if len(ids) < min_length:
            ids += [pad_index] * (min_length - len(ids))
        tensor = torch.LongTensor(ids).unsqueeze(dim=0).to(device)
        prediction = model(tensor).squeeze(dim=0)
        probability = torch.softmax(prediction, dim=-1)
        predicted_class = prediction.argmax(dim=-1).item()
        predicted_probability = probability[predicted_class].item()
        return predicted_class, predicted_probability

    min_length = max(filter_sizes)
    for text in ["This film is terrible!", "This film is great!",
                 "This film is not terrible, it's great!",
                 "This film is not great, it's terrible!"]:
        results.append(predict_sentiment(text, model, tokenizer, vocab, device,
                                         min_length, pad_index))
    return results


if __name__ == "__main__":
    import pyad as torch
    results = run(torch, embedding_dim=16, n_filters=8, batch_size=32, max_length=32, n_train=128,
                  n_test=32, n_epochs=3)
    print("predictions:", results[-4:])

"""Port of pytorch/tutorials ``intermediate_source/char_rnn_classification_tutorial.py``
("NLP From Scratch: Classifying Names with a Character-Level RNN"): names as one-hot
letter tensors ``<line_length x 1 x n_letters>``, an ``nn.RNN`` whose last hidden state
feeds a ``Linear`` and ``LogSoftmax``, trained with ``NLLLoss`` summed over shuffled
mini-batches, ``clip_grad_norm_`` and ``SGD``; then the confusion matrix of a test
split.

Ported by changing the imports (``import pyad as torch``). The names files are replaced
by synthetic names (random letters from a seeded NumPy stream, a few per language); the
``NamesDataset`` class is kept but takes those names instead of reading a directory,
and is split by ``torch.utils.data.random_split`` with a seeded generator as the
original (the two frameworks' generators differ, so the split is by explicit index
lists here: ``Subset``). ``labels_uniq`` is sorted after loading (the original's
``list(set)`` order depends on string hashing, which differs between processes). The
plots are left out, the epochs are few and the batches small.

Run it with ``python examples/ported/char_rnn_classification.py``.
"""
import random
import string
import time

import numpy as np


def run(torch, n_per_class=6, n_classes=4, n_epoch=3, n_batch_size=4, n_hidden=32,
        learning_rate=0.15, seed=2, init=None, log=print):
    """Train for ``n_epoch``; return every mini-batch loss, each epoch's average and the
    confusion matrix of the test split (flattened)."""
    nn = torch.nn
    rng = np.random.RandomState(seed)

    # We can use "_" to represent an out-of-vocabulary character, that is, any character
    # we are not handling in our model
    allowed_characters = string.ascii_letters + " .,;'" + "_"
    n_letters = len(allowed_characters)

    # Find letter index from all_letters, e.g. "a" = 0
    def letterToIndex(letter):
        # return our out-of-vocabulary character if we encounter a letter unknown to
        # our model
        if letter not in allowed_characters:
            return allowed_characters.find("_")
        else:
            return allowed_characters.find(letter)

    # Turn a line into a <line_length x 1 x n_letters>,
    # or an array of one-hot letter vectors
    def lineToTensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li, letter in enumerate(line):
            tensor[li][0][letterToIndex(letter)] = 1
        return tensor

    class NamesDataset(torch.utils.data.Dataset):

        def __init__(self, names_by_label):
            self.load_time = time.localtime  # for provenance of the dataset
            labels_set = set()  # set of all classes

            self.data = []
            self.data_tensors = []
            self.labels = []
            self.labels_tensors = []

            # read all the names (the original: one ``.txt`` file per language)
            for label, lines in names_by_label.items():
                labels_set.add(label)
                for name in lines:
                    self.data.append(name)
                    self.data_tensors.append(lineToTensor(name))
                    self.labels.append(label)

            # Cache the tensor representation of the labels
            self.labels_uniq = list(labels_set)
            for idx in range(len(self.labels)):
                temp_tensor = torch.tensor([self.labels_uniq.index(self.labels[idx])],
                                           dtype=torch.long)
                self.labels_tensors.append(temp_tensor)

        def __len__(self):
            return len(self.data)

        def __getitem__(self, idx):
            data_item = self.data[idx]
            data_label = self.labels[idx]
            data_tensor = self.data_tensors[idx]
            label_tensor = self.labels_tensors[idx]

            return label_tensor, data_tensor, data_label, data_item

    languages = ["Czech", "German", "Italian", "Japanese", "Korean", "Polish"][:n_classes]
    letters = np.array(list(string.ascii_lowercase + "'"))
    names = {}
    for k, language in enumerate(sorted(languages)):
        # each language favours a few letters, so that there is something to learn
        weights = np.ones(len(letters))
        weights[rng.choice(len(letters), 5, replace=False)] = 8.0
        names[language] = [
            "".join(rng.choice(letters, rng.randint(3, 8),
                                          p=weights / weights.sum())).capitalize()
            for _ in range(n_per_class)]
    alldata = NamesDataset(names)
    alldata.labels_uniq.sort()  # a set's order depends on the string hashes
    alldata.labels_tensors = [torch.tensor([alldata.labels_uniq.index(label)],
                                           dtype=torch.long) for label in alldata.labels]
    log(f"loaded {len(alldata)} items of data")

    order = rng.permutation(len(alldata)).tolist()
    n_train = int(0.85 * len(alldata))
    train_set = torch.utils.data.Subset(alldata, order[:n_train])
    test_set = torch.utils.data.Subset(alldata, order[n_train:])
    log(f"train examples = {len(train_set)}, validation examples = {len(test_set)}")

    class CharRNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super(CharRNN, self).__init__()

            self.rnn = nn.RNN(input_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, line_tensor):
            rnn_out, hidden = self.rnn(line_tensor)
            output = self.h2o(hidden[0])
            output = self.softmax(output)

            return output

    rnn = CharRNN(n_letters, n_hidden, len(alldata.labels_uniq))
    if init is not None:
        init(rnn)

    def label_from_output(output, output_labels):
        top_n, top_i = output.topk(1)
        label_i = top_i[0].item()
        return output_labels[label_i], label_i

    batch_losses = []

    def train(rnn, training_data, n_epoch=10, n_batch_size=64, report_every=50,
              learning_rate=0.2, criterion=nn.NLLLoss()):
        """
        Learn on a batch of training_data for a specified number of iterations and
        reporting thresholds
        """
        # Keep track of losses for plotting
        current_loss = 0
        all_losses = []
        rnn.train()
        optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)

        start = time.time()
        log(f"training on data set with n = {len(training_data)}")

        for iter in range(1, n_epoch + 1):
            rnn.zero_grad()  # clear the gradients

            # create some minibatches
            # we cannot use dataloaders because each of our names is a different length
            batches = list(range(len(training_data)))
            random.shuffle(batches)
            batches = np.array_split(batches, len(batches) // n_batch_size)

            for idx, batch in enumerate(batches):
                batch_loss = 0
                for i in batch:  # for each example in this batch
                    (label_tensor, text_tensor, label, text) = training_data[i]
                    output = rnn.forward(text_tensor)
                    loss = criterion(output, label_tensor)
                    batch_loss += loss

                # optimize parameters
                batch_loss.backward()
                nn.utils.clip_grad_norm_(rnn.parameters(), 3)
                optimizer.step()
                optimizer.zero_grad()

                current_loss += batch_loss.item() / len(batch)
                batch_losses.append(batch_loss.item())

            all_losses.append(current_loss / len(batches))
            if iter % report_every == 0:
                log(f"{iter} ({iter / n_epoch:.0%}): \t average batch loss = "
                    f"{all_losses[-1]}")
            current_loss = 0

        return all_losses

    random.seed(seed)
    start = time.time()
    all_losses = train(rnn, train_set, n_epoch=n_epoch, n_batch_size=n_batch_size,
                       learning_rate=learning_rate, report_every=1)
    end = time.time()
    log(f"training took {end - start}s")

    def evaluate(rnn, testing_data, classes):
        confusion = torch.zeros(len(classes), len(classes))

        rnn.eval()  # set to eval mode
        with torch.no_grad():  # do not record the gradients during eval phase
            for i in range(len(testing_data)):
                (label_tensor, text_tensor, label, text) = testing_data[i]
                output = rnn(text_tensor)
                guess, guess_i = label_from_output(output, classes)
                label_i = classes.index(label)
                confusion[label_i][guess_i] += 1

        # Normalize by dividing every row by its sum
        for i in range(len(classes)):
            denom = confusion[i].sum()
            if denom > 0:
                confusion[i] = confusion[i] / denom
        return confusion

    confusion = evaluate(rnn, test_set, classes=alldata.labels_uniq)
    log(confusion)
    return batch_losses + all_losses + confusion.numpy().ravel().tolist()


if __name__ == "__main__":
    import pyad as torch
    run(torch)

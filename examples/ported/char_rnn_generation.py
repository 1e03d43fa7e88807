"""Port of pytorch/tutorials ``intermediate_source/char_rnn_generation_tutorial.py``
("NLP From Scratch: Generating Names with a Character-Level RNN"): an RNN cell built from
``Linear`` layers over the concatenated category, letter and hidden state (``i2h``,
``i2o``, ``o2o``, ``Dropout``, ``LogSoftmax``), trained letter by letter on random
(category, name) pairs with ``NLLLoss`` summed into ``torch.Tensor([0])`` and a manual
SGD update; then names sampled greedily by ``topk`` for each category.

Ported by changing the imports (``import pyad as torch``). The names files are replaced
by synthetic names (random letters from a seeded NumPy stream, a few per language); the
iterations are few; the plots are left out. One line differs
(``data_add=False``): torch's ``p.data.add_(p.grad.data, alpha=-learning_rate)`` is
written ``with torch.no_grad(): p.add_(p.grad, alpha=-learning_rate)``, because pyad's
``.data`` is the NumPy array (see the porting guide). ``torch.Tensor([0])`` is kept:
pyad's ``Tensor`` (the ``Variable`` class) reads a list as torch's legacy constructor
does, in the default float dtype.

Run it with ``python examples/ported/char_rnn_generation.py``.
"""
import random
import string
import time
import math

import numpy as np


def run(torch, n_per_class=5, n_classes=3, n_iters=12, print_every=4, plot_every=4,
        n_hidden=32, seed=3, data_add=False, init=None, log=print):
    """Train for ``n_iters`` names; return every name's loss, the sampled names' letter
    indices and the plotted averages."""
    nn = torch.nn
    results = []

    all_letters = string.ascii_letters + " .,;'-"
    n_letters = len(all_letters) + 1  # Plus EOS marker

    # Build the category_lines dictionary, a list of lines per category
    # (the original: one ``data/names/*.txt`` file per language)
    rng = np.random.RandomState(seed)
    category_lines = {}
    all_categories = []
    letters = np.array(list(string.ascii_lowercase))
    for category in ["Czech", "German", "Italian", "Japanese", "Russian"][:n_classes]:
        all_categories.append(category)
        weights = np.ones(len(letters))
        weights[rng.choice(len(letters), 4, replace=False)] = 10.0
        category_lines[category] = [
            "".join(rng.choice(letters, rng.randint(3, 7),
                               p=weights / weights.sum())).capitalize()
            for _ in range(n_per_class)]

    n_categories = len(all_categories)
    log('# categories:', n_categories, all_categories)

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super(RNN, self).__init__()
            self.hidden_size = hidden_size

            self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
            self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
            self.o2o = nn.Linear(hidden_size + output_size, output_size)
            self.dropout = nn.Dropout(0.1)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, category, input, hidden):
            input_combined = torch.cat((category, input, hidden), 1)
            hidden = self.i2h(input_combined)
            output = self.i2o(input_combined)
            output_combined = torch.cat((hidden, output), 1)
            output = self.o2o(output_combined)
            output = self.dropout(output)
            output = self.softmax(output)
            return output, hidden

        def initHidden(self):
            return torch.zeros(1, self.hidden_size)

    # Random item from a list
    def randomChoice(l):
        return l[random.randint(0, len(l) - 1)]

    # Get a random category and random line from that category
    def randomTrainingPair():
        category = randomChoice(all_categories)
        line = randomChoice(category_lines[category])
        return category, line

    # One-hot vector for category
    def categoryTensor(category):
        li = all_categories.index(category)
        tensor = torch.zeros(1, n_categories)
        tensor[0][li] = 1
        return tensor

    # One-hot matrix of first to last letters (not including EOS) for input
    def inputTensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li in range(len(line)):
            letter = line[li]
            tensor[li][0][all_letters.find(letter)] = 1
        return tensor

    # ``LongTensor`` of second letter to end (EOS) for target
    def targetTensor(line):
        letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
        letter_indexes.append(n_letters - 1)  # EOS
        return torch.LongTensor(letter_indexes)

    # Make category, input, and target tensors from a random category, line pair
    def randomTrainingExample():
        category, line = randomTrainingPair()
        category_tensor = categoryTensor(category)
        input_line_tensor = inputTensor(line)
        target_line_tensor = targetTensor(line)
        return category_tensor, input_line_tensor, target_line_tensor

    criterion = nn.NLLLoss()

    learning_rate = 0.0005

    def train(category_tensor, input_line_tensor, target_line_tensor):
        target_line_tensor.unsqueeze_(-1)
        hidden = rnn.initHidden()

        rnn.zero_grad()

        loss = torch.Tensor([0])  # you can also just simply use ``loss = 0``

        for i in range(input_line_tensor.size(0)):
            output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
            l = criterion(output, target_line_tensor[i])
            loss += l

        loss.backward()

        for p in rnn.parameters():
            if data_add:
                p.data.add_(p.grad.data, alpha=-learning_rate)
            else:
                with torch.no_grad():
                    p.add_(p.grad, alpha=-learning_rate)

        return output, loss.item() / input_line_tensor.size(0)

    def timeSince(since):
        now = time.time()
        s = now - since
        m = math.floor(s / 60)
        s -= m * 60
        return '%dm %ds' % (m, s)

    rnn = RNN(n_letters, n_hidden, n_letters)
    if init is not None:
        init(rnn)

    all_losses = []
    total_loss = 0  # Reset every ``plot_every`` ``iters``

    random.seed(seed)
    start = time.time()

    for iter in range(1, n_iters + 1):
        output, loss = train(*randomTrainingExample())
        total_loss += loss
        results.append(loss)

        if iter % print_every == 0:
            log('%s (%d %d%%) %.4f' % (timeSince(start), iter, iter / n_iters * 100, loss))

        if iter % plot_every == 0:
            all_losses.append(total_loss / plot_every)
            total_loss = 0

    max_length = 20

    # Sample from a category and starting letter
    def sample(category, start_letter='A'):
        with torch.no_grad():  # no need to track history in sampling
            category_tensor = categoryTensor(category)
            input = inputTensor(start_letter)
            hidden = rnn.initHidden()

            output_name = start_letter

            for i in range(max_length):
                output, hidden = rnn(category_tensor, input[0], hidden)
                topv, topi = output.topk(1)
                topi = topi[0][0]
                if topi == n_letters - 1:
                    break
                else:
                    letter = all_letters[topi]
                    output_name += letter
                input = inputTensor(letter)

            return output_name

    # Get multiple samples from one category and multiple starting letters
    def samples(category, start_letters='ABC'):
        for start_letter in start_letters:
            name = sample(category, start_letter)
            log(name)
            results.extend(all_letters.find(c) for c in name)

    for category in all_categories:
        samples(category, 'ABC')
    return results + all_losses


if __name__ == "__main__":
    import pyad as torch

    run(torch)

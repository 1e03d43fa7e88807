"""Port of yunjey/pytorch-tutorial ``tutorials/02-intermediate/language_model`` (main.py
and data_utils.py's ``Dictionary`` and ``Corpus``): an ``Embedding``, an
``LSTM(batch_first=True)`` and a ``Linear`` decoder trained with truncated
backpropagation (``detach`` of the states), ``clip_grad_norm_`` and Adam, then words
sampled with ``torch.multinomial`` and ``input.fill_``.

pytorch-tutorial is MIT-licensed, Copyright (c) 2017 Yunjey Choi.

Ported by changing the imports (``import pyad as torch``). The Penn Treebank file is a
small synthetic text written to ``directory``, which also gets the samples and the
checkpoint; ``from data_utils import Dictionary, Corpus`` is the two classes defined
in ``run`` (they need the namespace); ``print`` is ``log``; the sizes are ``run``'s
keyword arguments. data_utils' ``ids = torch.LongTensor(tokens)`` (torch's legacy
constructor of a given size) is kept.

Run it with ``python examples/ported/yunjey_language_model.py``.
"""
import os
import tempfile

import numpy as np

WORDS = ("the a cat dog sat on mat ran to house big small red blue and with "
         "runs sees tree under").split()


def synthetic_text(path, n_lines=24, seed=0):
    rng = np.random.RandomState(seed)
    with open(path, 'w') as f:
        for _ in range(n_lines):
            f.write(' ' + ' '.join(WORDS[i] for i in rng.randint(0, len(WORDS),
                                                                rng.randint(4, 12))) + ' \n')


def run(torch, embed_size=16, hidden_size=32, num_layers=1, num_epochs=2, num_samples=30,
        batch_size=4, seq_length=6, learning_rate=0.002, seed=0, directory=None,
        init=None, log=print):
    nn = torch.nn
    clip_grad_norm_ = torch.nn.utils.clip_grad_norm_
    directory = directory or tempfile.mkdtemp()
    synthetic_text(os.path.join(directory, 'train.txt'), seed=seed)
    results = []

    class Dictionary(object):
        def __init__(self):
            self.word2idx = {}
            self.idx2word = {}
            self.idx = 0

        def add_word(self, word):
            if not word in self.word2idx:
                self.word2idx[word] = self.idx
                self.idx2word[self.idx] = word
                self.idx += 1

        def __len__(self):
            return len(self.word2idx)

    class Corpus(object):
        def __init__(self):
            self.dictionary = Dictionary()

        def get_data(self, path, batch_size=20):
            # Add words to the dictionary
            with open(path, 'r') as f:
                tokens = 0
                for line in f:
                    words = line.split() + ['<eos>']
                    tokens += len(words)
                    for word in words:
                        self.dictionary.add_word(word)

            # Tokenize the file content
            ids = torch.LongTensor(tokens)
            token = 0
            with open(path, 'r') as f:
                for line in f:
                    words = line.split() + ['<eos>']
                    for word in words:
                        ids[token] = self.dictionary.word2idx[word]
                        token += 1
            num_batches = ids.size(0) // batch_size
            ids = ids[:num_batches*batch_size]
            return ids.view(batch_size, -1)

    # Device configuration
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    # Load "Penn Treebank" dataset
    corpus = Corpus()
    ids = corpus.get_data(os.path.join(directory, 'train.txt'), batch_size)
    vocab_size = len(corpus.dictionary)
    num_batches = ids.size(1) // seq_length
    results.extend(ids.reshape(-1).tolist())

    # RNN based language model
    class RNNLM(nn.Module):
        def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
            super(RNNLM, self).__init__()
            self.embed = nn.Embedding(vocab_size, embed_size)
            self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
            self.linear = nn.Linear(hidden_size, vocab_size)

        def forward(self, x, h):
            # Embed word ids to vectors
            x = self.embed(x)

            # Forward propagate LSTM
            out, (h, c) = self.lstm(x, h)

            # Reshape output to (batch_size*sequence_length, hidden_size)
            out = out.reshape(out.size(0)*out.size(1), out.size(2))

            # Decode hidden states of all time steps
            out = self.linear(out)
            return out, (h, c)

    model = RNNLM(vocab_size, embed_size, hidden_size, num_layers).to(device)
    if init is not None:
        init(model)

    # Loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

    # Truncated backpropagation
    def detach(states):
        return [state.detach() for state in states]

    # Train the model
    for epoch in range(num_epochs):
        # Set initial hidden and cell states
        states = (torch.zeros(num_layers, batch_size, hidden_size).to(device),
                  torch.zeros(num_layers, batch_size, hidden_size).to(device))

        for i in range(0, ids.size(1) - seq_length, seq_length):
            # Get mini-batch inputs and targets
            inputs = ids[:, i:i+seq_length].to(device)
            targets = ids[:, (i+1):(i+1)+seq_length].to(device)

            # Forward pass
            states = detach(states)
            outputs, states = model(inputs, states)
            loss = criterion(outputs, targets.reshape(-1))

            # Backward and optimize
            optimizer.zero_grad()
            loss.backward()
            clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            results.append(loss.item())

            step = (i+1) // seq_length
            if step % 100 == 0:
                log('Epoch [{}/{}], Step[{}/{}], Loss: {:.4f}, Perplexity: {:5.2f}'
                    .format(epoch+1, num_epochs, step, num_batches, loss.item(), np.exp(loss.item())))

    # Test the model
    sample = os.path.join(directory, 'sample.txt')
    with torch.no_grad():
        with open(sample, 'w') as f:
            # Set intial hidden and cell states
            state = (torch.zeros(num_layers, 1, hidden_size).to(device),
                     torch.zeros(num_layers, 1, hidden_size).to(device))

            # Select one word id randomly
            prob = torch.ones(vocab_size)
            input = torch.multinomial(prob, num_samples=1).unsqueeze(1).to(device)

            for i in range(num_samples):
                # Forward propagate RNN
                output, state = model(input, state)

                # Sample a word id
                prob = output.exp()
                word_id = torch.multinomial(prob, num_samples=1).item()
                results.append(word_id)

                # Fill input with sampled word id for the next time step
                input.fill_(word_id)

                # File write
                word = corpus.dictionary.idx2word[word_id]
                word = '\n' if word == '<eos>' else word + ' '
                f.write(word)

                if (i+1) % 100 == 0:
                    log('Sampled [{}/{}] words and save to {}'.format(i+1, num_samples, sample))

    # Save the model checkpoints
    torch.save(model.state_dict(), os.path.join(directory, 'model.ckpt'))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

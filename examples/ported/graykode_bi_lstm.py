"""Port of graykode/nlp-tutorial ``3-3.Bi-LSTM/Bi-LSTM.py``: a bidirectional ``nn.LSTM``
over zero-padded one-hot prefixes of a sentence, predicting each next word from the last
output; Adam, then the argmax words.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (10000 in
the text, a few in the tests) and logs every ``print_every`` (1000 in the text);
``.data.max(1, keepdim=True)`` is ``.detach().max(1, keepdim=True)`` (pyad's ``.data`` is
the NumPy array itself). ``run`` returns the loss of every step and the predicted words.

Run it with ``python examples/ported/graykode_bi_lstm.py``.
"""
import numpy as np


def run(torch, epochs=10000, print_every=1000, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    results = []

    def make_batch():
        input_batch = []
        target_batch = []

        words = sentence.split()
        for i, word in enumerate(words[:-1]):
            input = [word_dict[n] for n in words[:(i + 1)]]
            input = input + [0] * (max_len - len(input))
            target = word_dict[words[i + 1]]
            input_batch.append(np.eye(n_class)[input])
            target_batch.append(target)

        return input_batch, target_batch

    class BiLSTM(nn.Module):
        def __init__(self):
            super(BiLSTM, self).__init__()

            self.lstm = nn.LSTM(input_size=n_class, hidden_size=n_hidden, bidirectional=True)
            self.W = nn.Linear(n_hidden * 2, n_class, bias=False)
            self.b = nn.Parameter(torch.ones([n_class]))

        def forward(self, X):
            input = X.transpose(0, 1)  # input : [n_step, batch_size, n_class]

            hidden_state = torch.zeros(1*2, len(X), n_hidden)   # [num_layers(=1) * num_directions(=2), batch_size, n_hidden]
            cell_state = torch.zeros(1*2, len(X), n_hidden)     # [num_layers(=1) * num_directions(=2), batch_size, n_hidden]

            outputs, (_, _) = self.lstm(input, (hidden_state, cell_state))
            outputs = outputs[-1]  # [batch_size, n_hidden]
            model = self.W(outputs) + self.b  # model : [batch_size, n_class]
            return model

    n_hidden = 5 # number of hidden units in one cell

    sentence = (
        'Lorem ipsum dolor sit amet consectetur adipisicing elit '
        'sed do eiusmod tempor incididunt ut labore et dolore magna '
        'aliqua Ut enim ad minim veniam quis nostrud exercitation'
    )

    word_dict = {w: i for i, w in enumerate(list(set(sentence.split())))}
    number_dict = {i: w for i, w in enumerate(list(set(sentence.split())))}
    n_class = len(word_dict)
    max_len = len(sentence.split())

    model = BiLSTM()
    if init is not None:
        init(model)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)

    input_batch, target_batch = make_batch()
    input_batch = torch.FloatTensor(input_batch)
    target_batch = torch.LongTensor(target_batch)

    # Training
    for epoch in range(epochs):
        optimizer.zero_grad()
        output = model(input_batch)
        loss = criterion(output, target_batch)
        if (epoch + 1) % print_every == 0:
            log('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.6f}'.format(loss))

        loss.backward()
        optimizer.step()
        results.append(loss.item())

    predict = model(input_batch).detach().max(1, keepdim=True)[1]
    log(sentence)
    log([number_dict[n.item()] for n in predict.squeeze()])
    results.extend(number_dict[n.item()] for n in predict.squeeze())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

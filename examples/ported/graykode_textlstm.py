"""Port of graykode/nlp-tutorial ``3-2.TextLSTM/TextLSTM.py``: an ``nn.LSTM`` over the
first three letters of ten four-letter words (one-hot), from zero states built in
``forward``, predicting the fourth letter; Adam, then the argmax letters.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (1000 in the
text, a few in the tests) and logs every ``print_every`` (100 in the text); ``n_hidden``
(128 in the text) is a keyword argument; ``.data.max(1, keepdim=True)`` is
``.detach().max(1, keepdim=True)`` (pyad's ``.data`` is the NumPy array itself).
``run`` returns the loss of every step and the predicted letters.

Run it with ``python examples/ported/graykode_textlstm.py``.
"""
import numpy as np


def run(torch, epochs=1000, print_every=100, n_hidden=128, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    results = []

    def make_batch():
        input_batch, target_batch = [], []

        for seq in seq_data:
            input = [word_dict[n] for n in seq[:-1]] # 'm', 'a' , 'k' is input
            target = word_dict[seq[-1]] # 'e' is target
            input_batch.append(np.eye(n_class)[input])
            target_batch.append(target)

        return input_batch, target_batch

    class TextLSTM(nn.Module):
        def __init__(self):
            super(TextLSTM, self).__init__()

            self.lstm = nn.LSTM(input_size=n_class, hidden_size=n_hidden)
            self.W = nn.Linear(n_hidden, n_class, bias=False)
            self.b = nn.Parameter(torch.ones([n_class]))

        def forward(self, X):
            input = X.transpose(0, 1)  # X : [n_step, batch_size, n_class]

            hidden_state = torch.zeros(1, len(X), n_hidden)  # [num_layers(=1) * num_directions(=1), batch_size, n_hidden]
            cell_state = torch.zeros(1, len(X), n_hidden)     # [num_layers(=1) * num_directions(=1), batch_size, n_hidden]

            outputs, (_, _) = self.lstm(input, (hidden_state, cell_state))
            outputs = outputs[-1]  # [batch_size, n_hidden]
            model = self.W(outputs) + self.b  # model : [batch_size, n_class]
            return model

    n_step = 3 # number of cells(= number of Step)

    char_arr = [c for c in 'abcdefghijklmnopqrstuvwxyz']
    word_dict = {n: i for i, n in enumerate(char_arr)}
    number_dict = {i: w for i, w in enumerate(char_arr)}
    n_class = len(word_dict)  # number of class(=number of vocab)

    seq_data = ['make', 'need', 'coal', 'word', 'love', 'hate', 'live', 'home', 'hash', 'star']

    model = TextLSTM()
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

    inputs = [sen[:3] for sen in seq_data]

    predict = model(input_batch).detach().max(1, keepdim=True)[1]
    log(inputs, '->', [number_dict[n.item()] for n in predict.squeeze()])
    results.extend(number_dict[n.item()] for n in predict.squeeze())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

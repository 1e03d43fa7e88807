"""Port of graykode/nlp-tutorial ``3-1.TextRNN/TextRNN.py``: an ``nn.RNN`` over one-hot
words from a given zero state, a bias-free ``Linear`` plus an ``nn.Parameter`` bias on
its last output, predicting the third word of three sentences; Adam, then the argmax
words.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (5000 in the
text, a few in the tests) and logs every ``print_every`` (1000 in the text);
``.data.max(1, keepdim=True)`` is ``.detach().max(1, keepdim=True)`` (pyad's ``.data`` is
the NumPy array itself). ``run`` returns the loss of every step and the predicted words.

Run it with ``python examples/ported/graykode_textrnn.py``.
"""
import numpy as np


def run(torch, epochs=5000, print_every=1000, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    results = []

    def make_batch():
        input_batch = []
        target_batch = []

        for sen in sentences:
            word = sen.split()  # space tokenizer
            input = [word_dict[n] for n in word[:-1]]  # create (1~n-1) as input
            target = word_dict[word[-1]]  # create (n) as target, We usually call this 'casual language model'

            input_batch.append(np.eye(n_class)[input])
            target_batch.append(target)

        return input_batch, target_batch

    class TextRNN(nn.Module):
        def __init__(self):
            super(TextRNN, self).__init__()
            self.rnn = nn.RNN(input_size=n_class, hidden_size=n_hidden)
            self.W = nn.Linear(n_hidden, n_class, bias=False)
            self.b = nn.Parameter(torch.ones([n_class]))

        def forward(self, hidden, X):
            X = X.transpose(0, 1) # X : [n_step, batch_size, n_class]
            outputs, hidden = self.rnn(X, hidden)
            # outputs : [n_step, batch_size, num_directions(=1) * n_hidden]
            # hidden : [num_layers(=1) * num_directions(=1), batch_size, n_hidden]
            outputs = outputs[-1] # [batch_size, num_directions(=1) * n_hidden]
            model = self.W(outputs) + self.b # model : [batch_size, n_class]
            return model

    n_step = 2 # number of cells(= number of Step)
    n_hidden = 5 # number of hidden units in one cell

    sentences = ["i like dog", "i love coffee", "i hate milk"]

    word_list = " ".join(sentences).split()
    word_list = list(set(word_list))
    word_dict = {w: i for i, w in enumerate(word_list)}
    number_dict = {i: w for i, w in enumerate(word_list)}
    n_class = len(word_dict)
    batch_size = len(sentences)

    model = TextRNN()
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

        # hidden : [num_layers * num_directions, batch, hidden_size]
        hidden = torch.zeros(1, batch_size, n_hidden)
        # input_batch : [batch_size, n_step, n_class]
        output = model(hidden, input_batch)

        # output : [batch_size, n_class], target_batch : [batch_size] (LongTensor, not one-hot)
        loss = criterion(output, target_batch)
        if (epoch + 1) % print_every == 0:
            log('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.6f}'.format(loss))

        loss.backward()
        optimizer.step()
        results.append(loss.item())

    input = [sen.split()[:2] for sen in sentences]

    # Predict
    hidden = torch.zeros(1, batch_size, n_hidden)
    predict = model(hidden, input_batch).detach().max(1, keepdim=True)[1]
    log([sen.split()[:2] for sen in sentences], '->', [number_dict[n.item()] for n in predict.squeeze()])
    results.extend(number_dict[n.item()] for n in predict.squeeze())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

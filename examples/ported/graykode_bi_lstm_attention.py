"""Port of graykode/nlp-tutorial ``4-3.Bi-LSTM(Attention)/Bi-LSTM(Attention).py``: an
``Embedding``, a bidirectional ``nn.LSTM`` whose final hidden states score every output
(``bmm``, ``softmax``) into an attention context, a ``Linear`` head; Adam on six
three-word sentences, then the verdict on ``'sorry hate you'`` and the attention
weights.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (5000 in the
text, a few in the tests) and logs every ``print_every`` (1000 in the text);
``.data.numpy()`` and ``.data.max(1, keepdim=True)`` are ``.detach().numpy()`` and
``.detach().max(1, keepdim=True)`` (pyad's ``.data`` is the NumPy array itself). The
matplotlib lines are left out: the ``attention`` weights that the text shows with
``matshow`` are computed as written and returned (the figure, its tick labels and
``plt.show`` are dropped). ``run`` returns the loss of every step, the test logits, the
verdict and the last step's attention weights.

Run it with ``python examples/ported/graykode_bi_lstm_attention.py``.
"""
import numpy as np


def run(torch, epochs=5000, print_every=1000, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    results = []

    class BiLSTM_Attention(nn.Module):
        def __init__(self):
            super(BiLSTM_Attention, self).__init__()

            self.embedding = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, n_hidden, bidirectional=True)
            self.out = nn.Linear(n_hidden * 2, num_classes)

        # lstm_output : [batch_size, n_step, n_hidden * num_directions(=2)], F matrix
        def attention_net(self, lstm_output, final_state):
            hidden = final_state.view(-1, n_hidden * 2, 1)   # hidden : [batch_size, n_hidden * num_directions(=2), 1(=n_layer)]
            attn_weights = torch.bmm(lstm_output, hidden).squeeze(2) # attn_weights : [batch_size, n_step]
            soft_attn_weights = F.softmax(attn_weights, 1)
            # [batch_size, n_hidden * num_directions(=2), n_step] * [batch_size, n_step, 1] = [batch_size, n_hidden * num_directions(=2), 1]
            context = torch.bmm(lstm_output.transpose(1, 2), soft_attn_weights.unsqueeze(2)).squeeze(2)
            return context, soft_attn_weights.detach().numpy() # context : [batch_size, n_hidden * num_directions(=2)]

        def forward(self, X):
            input = self.embedding(X) # input : [batch_size, len_seq, embedding_dim]
            input = input.permute(1, 0, 2) # input : [len_seq, batch_size, embedding_dim]

            hidden_state = torch.zeros(1*2, len(X), n_hidden) # [num_layers(=1) * num_directions(=2), batch_size, n_hidden]
            cell_state = torch.zeros(1*2, len(X), n_hidden) # [num_layers(=1) * num_directions(=2), batch_size, n_hidden]

            # final_hidden_state, final_cell_state : [num_layers(=1) * num_directions(=2), batch_size, n_hidden]
            output, (final_hidden_state, final_cell_state) = self.lstm(input, (hidden_state, cell_state))
            output = output.permute(1, 0, 2) # output : [batch_size, len_seq, n_hidden]
            attn_output, attention = self.attention_net(output, final_hidden_state)
            return self.out(attn_output), attention # model : [batch_size, num_classes], attention : [batch_size, n_step]

    embedding_dim = 2 # embedding size
    n_hidden = 5  # number of hidden units in one cell
    num_classes = 2  # 0 or 1

    # 3 words sentences (=sequence_length is 3)
    sentences = ["i love you", "he loves me", "she likes baseball", "i hate you", "sorry for that", "this is awful"]
    labels = [1, 1, 1, 0, 0, 0]  # 1 is good, 0 is not good.

    word_list = " ".join(sentences).split()
    word_list = list(set(word_list))
    word_dict = {w: i for i, w in enumerate(word_list)}
    vocab_size = len(word_dict)

    model = BiLSTM_Attention()
    if init is not None:
        init(model)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)

    inputs = torch.LongTensor([np.asarray([word_dict[n] for n in sen.split()]) for sen in sentences])
    targets = torch.LongTensor([out for out in labels])  # To using Torch Softmax Loss function

    # Training
    for epoch in range(epochs):
        optimizer.zero_grad()
        output, attention = model(inputs)
        loss = criterion(output, targets)
        if (epoch + 1) % print_every == 0:
            log('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.6f}'.format(loss))

        loss.backward()
        optimizer.step()
        results.append(loss.item())

    # Test
    test_text = 'sorry hate you'
    tests = [np.asarray([word_dict[n] for n in test_text.split()])]
    test_batch = torch.LongTensor(tests)

    # Predict
    predict, _ = model(test_batch)
    results.append(predict.detach().numpy().copy())
    predict = predict.detach().max(1, keepdim=True)[1]
    if predict[0][0] == 0:
        log(test_text,"is Bad Mean...")
        results.append("Bad")
    else:
        log(test_text,"is Good Mean!!")
        results.append("Good")

    # (the matshow figure of `attention` left out: its weights)
    results.append(np.array(attention))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

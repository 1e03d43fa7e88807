"""Port of graykode/nlp-tutorial ``2-1.TextCNN/TextCNN.py``: Kim's convolutional sentence
classifier (an ``Embedding``, a ``ModuleList`` of ``Conv2d`` n-gram filters, ``relu``,
a ``MaxPool2d`` built in ``forward``, ``permute``, ``cat`` and ``reshape``, a bias-free
``Linear`` plus an ``nn.Parameter`` bias) on six three-word sentences, Adam, then the
verdict on ``'sorry hate you'``.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (5000 in the
text, a few in the tests) and logs every ``print_every`` (1000 in the text);
``.data.max(1, keepdim=True)`` is ``.detach().max(1, keepdim=True)`` (pyad's ``.data`` is
the NumPy array itself). ``run`` returns the loss of every step, the test logits and the
verdict.

Run it with ``python examples/ported/graykode_textcnn.py``.
"""
import numpy as np


def run(torch, epochs=5000, print_every=1000, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    results = []

    class TextCNN(nn.Module):
        def __init__(self):
            super(TextCNN, self).__init__()
            self.num_filters_total = num_filters * len(filter_sizes)
            self.W = nn.Embedding(vocab_size, embedding_size)
            self.Weight = nn.Linear(self.num_filters_total, num_classes, bias=False)
            self.Bias = nn.Parameter(torch.ones([num_classes]))
            self.filter_list = nn.ModuleList([nn.Conv2d(1, num_filters, (size, embedding_size)) for size in filter_sizes])

        def forward(self, X):
            embedded_chars = self.W(X) # [batch_size, sequence_length, embedding_size]
            embedded_chars = embedded_chars.unsqueeze(1) # add channel(=1) [batch, channel(=1), sequence_length, embedding_size]

            pooled_outputs = []
            for i, conv in enumerate(self.filter_list):
                # conv : [input_channel(=1), output_channel(=3), (filter_height, filter_width), bias_option]
                h = F.relu(conv(embedded_chars))
                # mp : ((filter_height, filter_width))
                mp = nn.MaxPool2d((sequence_length - filter_sizes[i] + 1, 1))
                # pooled : [batch_size(=6), output_height(=1), output_width(=1), output_channel(=3)]
                pooled = mp(h).permute(0, 3, 2, 1)
                pooled_outputs.append(pooled)

            h_pool = torch.cat(pooled_outputs, len(filter_sizes)) # [batch_size(=6), output_height(=1), output_width(=1), output_channel(=3) * 3]
            h_pool_flat = torch.reshape(h_pool, [-1, self.num_filters_total]) # [batch_size(=6), output_height * output_width * (output_channel * 3)]
            model = self.Weight(h_pool_flat) + self.Bias # [batch_size, num_classes]
            return model

    embedding_size = 2 # embedding size
    sequence_length = 3 # sequence length
    num_classes = 2 # number of classes
    filter_sizes = [2, 2, 2] # n-gram windows
    num_filters = 3 # number of filters

    # 3 words sentences (=sequence_length is 3)
    sentences = ["i love you", "he loves me", "she likes baseball", "i hate you", "sorry for that", "this is awful"]
    labels = [1, 1, 1, 0, 0, 0]  # 1 is good, 0 is not good.

    word_list = " ".join(sentences).split()
    word_list = list(set(word_list))
    word_dict = {w: i for i, w in enumerate(word_list)}
    vocab_size = len(word_dict)

    model = TextCNN()
    if init is not None:
        init(model)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)

    inputs = torch.LongTensor([np.asarray([word_dict[n] for n in sen.split()]) for sen in sentences])
    targets = torch.LongTensor([out for out in labels]) # To using Torch Softmax Loss function

    # Training
    for epoch in range(epochs):
        optimizer.zero_grad()
        output = model(inputs)

        # output : [batch_size, num_classes], target_batch : [batch_size] (LongTensor, not one-hot)
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
    logits = model(test_batch)
    results.extend(logits.detach().numpy().ravel().tolist())
    predict = logits.detach().max(1, keepdim=True)[1]
    if predict[0][0] == 0:
        log(test_text,"is Bad Mean...")
        results.append("Bad")
    else:
        log(test_text,"is Good Mean!!")
        results.append("Good")
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of the PyTorch tutorial "Building Models with PyTorch" (pytorch/tutorials
``beginner_source/introyt/modelsyt_tutorial.py``): a ``Module`` with ``Linear``, ``ReLU``
and ``Softmax`` layers, printed, with its ``parameters()``; a ``Linear`` layer's output;
the (defined, not run) ``LeNet`` and ``LSTMTagger``; ``MaxPool2d`` of an unbatched input,
``BatchNorm1d`` and ``Dropout``.

Ported by changing the imports (``import pyad as torch``): the tutorial's
``import torch.functional as F`` is ``F = torch.functional`` (``run`` takes the
namespace). The tutorial's ``print`` is ``run``'s ``log``, and ``run`` returns every
value it prints (the modules' reprs as strings). The two ``Dropout`` outputs, which the
text prints without naming them, are the last two things ``run`` logs. ``init`` sees
each module the text builds (the tests load torch's initial weights into pyad's). As in the tutorial, the
``LeNet`` and ``LSTMTagger`` classes are only defined (their ``F.max_pool2d``,
``F.relu`` and ``F.log_softmax`` are ``torch.nn.functional``'s, which the text's
``torch.functional`` does not have in torch either).

Run it with ``python examples/ported/modelsyt_tutorial.py``.
"""


def run(torch, init=None, log=print):
    """Return a dict of every value the tutorial prints."""
    r = {}

    def built(module):
        if init is not None:
            init(module)
        return module

    class TinyModel(torch.nn.Module):

        def __init__(self):
            super(TinyModel, self).__init__()

            self.linear1 = torch.nn.Linear(100, 200)
            self.activation = torch.nn.ReLU()
            self.linear2 = torch.nn.Linear(200, 10)
            self.softmax = torch.nn.Softmax()

        def forward(self, x):
            x = self.linear1(x)
            x = self.activation(x)
            x = self.linear2(x)
            x = self.softmax(x)
            return x

    tinymodel = built(TinyModel())

    log('The model:')
    log(tinymodel)

    log('\n\nJust one layer:')
    log(tinymodel.linear2)
    r.update(model_repr=str(tinymodel), layer_repr=str(tinymodel.linear2))

    log('\n\nModel params:')
    for param in tinymodel.parameters():
        log(param)
    r["model_params"] = list(tinymodel.parameters())
    r["model_params_are_Parameters"] = [isinstance(p, torch.nn.Parameter)
                                        for p in tinymodel.parameters()]

    log('\n\nLayer params:')
    for param in tinymodel.linear2.parameters():
        log(param)
    r["layer_params"] = list(tinymodel.linear2.parameters())

    lin = built(torch.nn.Linear(3, 2))
    x = torch.rand(1, 3)
    log('Input:')
    log(x)

    log('\n\nWeight and Bias parameters:')
    for param in lin.parameters():
        log(param)
    r["lin_params"] = list(lin.parameters())

    y = lin(x)
    log('\n\nOutput:')
    log(y)
    r.update(lin_x=x, lin_y=y)

    F = torch.functional

    class LeNet(torch.nn.Module):

        def __init__(self):
            super(LeNet, self).__init__()
            # 1 input image channel (black & white), 6 output channels, 3x3 square convolution
            # kernel
            self.conv1 = torch.nn.Conv2d(1, 6, 5)
            self.conv2 = torch.nn.Conv2d(6, 16, 3)
            # an affine operation: y = Wx + b
            self.fc1 = torch.nn.Linear(16 * 6 * 6, 120)  # 6*6 from image dimension
            self.fc2 = torch.nn.Linear(120, 84)
            self.fc3 = torch.nn.Linear(84, 10)

        def forward(self, x):
            # Max pooling over a (2, 2) window
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            # If the size is a square you can only specify a single number
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, self.num_flat_features(x))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

        def num_flat_features(self, x):
            size = x.size()[1:]  # all dimensions except the batch dimension
            num_features = 1
            for s in size:
                num_features *= s
            return num_features

    class LSTMTagger(torch.nn.Module):

        def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
            super(LSTMTagger, self).__init__()
            self.hidden_dim = hidden_dim

            self.word_embeddings = torch.nn.Embedding(vocab_size, embedding_dim)

            # The LSTM takes word embeddings as inputs, and outputs hidden states
            # with dimensionality hidden_dim.
            self.lstm = torch.nn.LSTM(embedding_dim, hidden_dim)

            # The linear layer that maps from hidden state space to tag space
            self.hidden2tag = torch.nn.Linear(hidden_dim, tagset_size)

        def forward(self, sentence):
            embeds = self.word_embeddings(sentence)
            lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
            tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
            tag_scores = F.log_softmax(tag_space, dim=1)
            return tag_scores

    my_tensor = torch.rand(1, 6, 6)
    log(my_tensor)

    maxpool_layer = torch.nn.MaxPool2d(3)
    log(maxpool_layer(my_tensor))
    r.update(maxpool_in=my_tensor, maxpool_out=maxpool_layer(my_tensor))

    my_tensor = torch.rand(1, 4, 4) * 20 + 5
    log(my_tensor)

    log(my_tensor.mean())

    norm_layer = built(torch.nn.BatchNorm1d(4))
    normed_tensor = norm_layer(my_tensor)
    log(normed_tensor)

    log(normed_tensor.mean())
    r.update(norm_in=my_tensor, norm_in_mean=my_tensor.mean(), normed=normed_tensor,
             normed_mean=normed_tensor.mean(), running_mean=norm_layer.running_mean,
             running_var=norm_layer.running_var)

    my_tensor = torch.rand(1, 4, 4)

    dropout = torch.nn.Dropout(p=0.4)
    log(dropout(my_tensor))
    log(dropout(my_tensor))
    r.update(dropout_in=my_tensor, dropout_repr=str(dropout))   # (the outputs: log's)
    return r


if __name__ == "__main__":
    import pyad as torch
    run(torch)

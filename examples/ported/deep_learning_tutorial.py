"""Port of pytorch/tutorials ``beginner_source/nlp/deep_learning_tutorial.py`` ("Deep
Learning for NLP with PyTorch: Deep Learning with PyTorch"): an affine map
(``nn.Linear``), ``F.relu``, ``F.softmax`` and ``F.log_softmax``, then the
logistic-regression bag-of-words classifier (``BoWClassifier``: ``Linear`` and
``log_softmax``) trained with ``NLLLoss`` and ``SGD`` for 100 epochs on four sentences,
its test log-probabilities and the weight column of "creo" printed before and after.

Ported by changing the imports (``import pyad as torch``); the text is the tutorial's
current one (no ``autograd.Variable`` wrappers, the evaluation runs under
``torch.no_grad()``). The module-level imports are ``run``'s namespace and its ``print``
is ``run``'s ``log``; each model built goes through ``init`` (the tests load torch's
initial weights there), and the number of epochs is ``run``'s ``epochs``.

Run it with ``python examples/ported/deep_learning_tutorial.py``.
"""


def run(torch, epochs=100, log=print, init=None):
    """Run the tutorial; return the loss of every step, the test log-probabilities
    before and after training and the "creo" column before and after."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    print = log  # noqa: A001
    init = init or (lambda model: None)
    results = []

    torch.manual_seed(1)

    lin = nn.Linear(5, 3)  # maps from R^5 to R^3, parameters A, b
    init(lin)
    # data is 2x5.  A maps from 5 to 3... can we map "data" under A?
    data = torch.randn(2, 5)
    print(lin(data))  # yes

    # In pytorch, most non-linearities are in torch.functional (we have it imported as F)
    # Note that non-linearites typically don't have parameters like affine maps do.
    # That is, they don't have weights that are updated during training.
    data = torch.randn(2, 2)
    print(data)
    print(F.relu(data))

    # Softmax is also in torch.nn.functional
    data = torch.randn(5)
    print(data)
    print(F.softmax(data, dim=0))
    print(F.softmax(data, dim=0).sum())  # Sums to 1 because it is a distribution!
    print(F.log_softmax(data, dim=0))  # theres also log_softmax

    data = [("me gusta comer en la cafeteria".split(), "SPANISH"),
            ("Give it to me".split(), "ENGLISH"),
            ("No creo que sea una buena idea".split(), "SPANISH"),
            ("No it is not a good idea to get lost at sea".split(), "ENGLISH")]

    test_data = [("Yo creo que si".split(), "SPANISH"),
                 ("it is lost on me".split(), "ENGLISH")]

    # word_to_ix maps each word in the vocab to a unique integer, which will be its
    # index into the Bag of words vector
    word_to_ix = {}
    for sent, _ in data + test_data:
        for word in sent:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    print(word_to_ix)

    VOCAB_SIZE = len(word_to_ix)
    NUM_LABELS = 2

    class BoWClassifier(nn.Module):  # inheriting from nn.Module!

        def __init__(self, num_labels, vocab_size):
            # calls the init function of nn.Module.  Dont get confused by syntax,
            # just always do it in an nn.Module
            super(BoWClassifier, self).__init__()

            # Define the parameters that you will need.  In this case, we need A and b,
            # the parameters of the affine mapping.
            # Torch defines nn.Linear(), which provides the affine map.
            # Make sure you understand why the input dimension is vocab_size
            # and the output is num_labels!
            self.linear = nn.Linear(vocab_size, num_labels)

            # NOTE! The non-linearity log softmax does not have parameters! So we don't
            # need to worry about that here

        def forward(self, bow_vec):
            # Pass the input through the linear layer,
            # then pass that through log_softmax.
            # Many non-linearities and other functions are in torch.nn.functional
            return F.log_softmax(self.linear(bow_vec), dim=1)

    def make_bow_vector(sentence, word_to_ix):
        vec = torch.zeros(len(word_to_ix))
        for word in sentence:
            vec[word_to_ix[word]] += 1
        return vec.view(1, -1)

    def make_target(label, label_to_ix):
        return torch.LongTensor([label_to_ix[label]])

    model = BoWClassifier(NUM_LABELS, VOCAB_SIZE)
    init(model)

    # the model knows its parameters.  The first output below is A, the second is b.
    # Whenever you assign a component to a class variable in the __init__ function
    # of a module, which was done with the line
    # self.linear = nn.Linear(...)
    # Then through some Python magic from the PyTorch devs, your module
    # (in this case, BoWClassifier) will store knowledge of the nn.Linear's parameters
    for param in model.parameters():
        print(param)

    # To run the model, pass in a BoW vector
    # Here we don't need to train, so the code is wrapped in torch.no_grad()
    with torch.no_grad():
        sample = data[0]
        bow_vector = make_bow_vector(sample[0], word_to_ix)
        log_probs = model(bow_vector)
        print(log_probs)
        results.extend(log_probs.numpy().ravel().tolist())

    label_to_ix = {"SPANISH": 0, "ENGLISH": 1}

    # Run on test data before we train, just to see a before-and-after
    with torch.no_grad():
        for instance, label in test_data:
            bow_vec = make_bow_vector(instance, word_to_ix)
            log_probs = model(bow_vec)
            print(log_probs)
            results.extend(log_probs.numpy().ravel().tolist())

    # Print the matrix column corresponding to "creo"
    print(next(model.parameters())[:, word_to_ix["creo"]])
    results.extend(next(model.parameters())[:, word_to_ix["creo"]].tolist())

    loss_function = nn.NLLLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)

    # Usually you want to pass over the training data several times.
    # 100 is much bigger than on a real data set, but real datasets have more than
    # two instances.  Usually, somewhere between 5 and 30 epochs is reasonable.
    for epoch in range(epochs):
        for instance, label in data:
            # Step 1. Remember that PyTorch accumulates gradients.
            # We need to clear them out before each instance
            model.zero_grad()

            # Step 2. Make our BOW vector and also we must wrap the target in a
            # Tensor as an integer. For example, if the target is SPANISH, then
            # we wrap the integer 0. The loss function then knows that the 0th
            # element of the log probabilities is the log probability
            # corresponding to SPANISH
            bow_vec = make_bow_vector(instance, word_to_ix)
            target = make_target(label, label_to_ix)

            # Step 3. Run our forward pass.
            log_probs = model(bow_vec)

            # Step 4. Compute the loss, gradients, and update the parameters by
            # calling optimizer.step()
            loss = loss_function(log_probs, target)
            loss.backward()
            optimizer.step()
            results.append(loss.item())

    with torch.no_grad():
        for instance, label in test_data:
            bow_vec = make_bow_vector(instance, word_to_ix)
            log_probs = model(bow_vec)
            print(log_probs)
            results.extend(log_probs.numpy().ravel().tolist())

    # Index corresponding to Spanish goes up, English goes down!
    print(next(model.parameters())[:, word_to_ix["creo"]])
    results.extend(next(model.parameters())[:, word_to_ix["creo"]].tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

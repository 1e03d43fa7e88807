"""Port of pytorch/tutorials ``beginner_source/nlp/word_embeddings_tutorial.py`` ("Deep
Learning for NLP with PyTorch: Word Embeddings"): an ``nn.Embedding`` lookup, then the
N-gram language model (``Embedding``, two ``Linear``s, ``relu``, ``log_softmax``) trained
on Shakespeare's Sonnet 2 trigrams with ``NLLLoss`` and ``SGD``, printing the total loss
of each epoch; then the Continuous Bag-of-Words exercise's data and
``make_context_vector``.

Ported by changing the imports (``import pyad as torch``). The module-level imports are
``run``'s namespace and its ``print`` is ``run``'s ``log``; each model built goes
through ``init``, and the number of epochs is ``run``'s ``epochs``. The tutorial's
``vocab = set(test_sentence)`` gives the word indices in the set's order, which depends
on string hashing (it differs between processes): both vocabularies are sorted here
after the ``set`` line, so that torch's run and pyad's give each word the same index.
The CBOW class is the tutorial's exercise (its methods are ``pass``); ``cbow=True``
adds a solution, which is not the tutorial's text: the sum of the context embeddings
through one ``Linear`` and ``log_softmax``, trained as the N-gram model.

Run it with ``python examples/ported/word_embeddings_tutorial.py``.
"""


def run(torch, epochs=10, cbow=True, cbow_epochs=10, log=print, init=None):
    """Run the tutorial; return the embedding looked up, every step's loss, the total
    loss of each epoch (and the same for the CBOW solution)."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    print = log  # noqa: A001
    init = init or (lambda model: None)
    results = []

    torch.manual_seed(1)

    word_to_ix = {"hello": 0, "world": 1}
    embeds = nn.Embedding(2, 5)  # 2 words in vocab, 5 dimensional embeddings
    init(embeds)
    lookup_tensor = torch.tensor([word_to_ix["hello"]], dtype=torch.long)
    hello_embed = embeds(lookup_tensor)
    print(hello_embed)
    results.extend(hello_embed.detach().numpy().ravel().tolist())

    CONTEXT_SIZE = 2
    EMBEDDING_DIM = 10
    # We will use Shakespeare Sonnet 2
    test_sentence = """When forty winters shall besiege thy brow,
And dig deep trenches in thy beauty's field,
Thy youth's proud livery so gazed on now,
Will be a totter'd weed of small worth held:
Then being asked, where all thy beauty lies,
Where all the treasure of thy lusty days;
To say, within thine own deep sunken eyes,
Were an all-eating shame, and thriftless praise.
How much more praise deserv'd thy beauty's use,
If thou couldst answer 'This fair child of mine
Shall sum my count, and make my old excuse,'
Proving his beauty by succession thine!
This were to be new made when thou art old,
And see thy blood warm when thou feel'st it cold.""".split()
    # we should tokenize the input, but we will ignore that for now
    # build a list of tuples.  Each tuple is ([ word_i-2, word_i-1 ], target word)
    trigrams = [([test_sentence[i], test_sentence[i + 1]], test_sentence[i + 2])
                for i in range(len(test_sentence) - 2)]
    # print the first 3, just so you can see what they look like
    print(trigrams[:3])

    vocab = set(test_sentence)
    vocab = sorted(vocab)  # the port: a set's order depends on the string hashes
    word_to_ix = {word: i for i, word in enumerate(vocab)}

    class NGramLanguageModeler(nn.Module):

        def __init__(self, vocab_size, embedding_dim, context_size):
            super(NGramLanguageModeler, self).__init__()
            self.embeddings = nn.Embedding(vocab_size, embedding_dim)
            self.linear1 = nn.Linear(context_size * embedding_dim, 128)
            self.linear2 = nn.Linear(128, vocab_size)

        def forward(self, inputs):
            embeds = self.embeddings(inputs).view((1, -1))
            out = F.relu(self.linear1(embeds))
            out = self.linear2(out)
            log_probs = F.log_softmax(out, dim=1)
            return log_probs

    losses = []
    loss_function = nn.NLLLoss()
    model = NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE)
    init(model)
    optimizer = optim.SGD(model.parameters(), lr=0.001)

    for epoch in range(epochs):
        total_loss = 0
        for context, target in trigrams:

            # Step 1. Prepare the inputs to be passed to the model (i.e, turn the words
            # into integer indices and wrap them in tensors)
            context_idxs = torch.tensor([word_to_ix[w] for w in context],
                                        dtype=torch.long)

            # Step 2. Recall that torch *accumulates* gradients. Before passing in a
            # new instance, you need to zero out the gradients from the old
            # instance
            model.zero_grad()

            # Step 3. Run the forward pass, getting log probabilities over next
            # words
            log_probs = model(context_idxs)

            # Step 4. Compute your loss function. (Again, Torch wants the target
            # word wrapped in a tensor)
            loss = loss_function(log_probs, torch.tensor([word_to_ix[target]],
                                                         dtype=torch.long))

            # Step 5. Do the backward pass and update the gradient
            loss.backward()
            optimizer.step()

            # Get the Python number from a 1-element Tensor by calling tensor.item()
            total_loss += loss.item()
            results.append(loss.item())
        losses.append(total_loss)
    print(losses)  # The loss decreased every iteration over the training data!
    results.extend(losses)

    # To get the embedding of a particular word, e.g. "beauty"
    print(model.embeddings.weight[word_to_ix["beauty"]])
    results.extend(model.embeddings.weight[word_to_ix["beauty"]].detach().numpy().tolist())

    CONTEXT_SIZE = 2  # 2 words to the left, 2 to the right
    raw_text = """We are about to study the idea of a computational process.
Computational processes are abstract beings that inhabit computers.
As they evolve, processes manipulate other abstract things called data.
The evolution of a process is directed by a pattern of rules
called a program. People create programs to direct processes. In effect,
we conjure the spirits of the computer with our spells.""".split()

    # By deriving a set from `raw_text`, we deduplicate the array
    vocab = set(raw_text)
    vocab = sorted(vocab)  # the port: a set's order depends on the string hashes
    vocab_size = len(vocab)

    word_to_ix = {word: i for i, word in enumerate(vocab)}
    data = []
    for i in range(2, len(raw_text) - 2):
        context = [raw_text[i - 2], raw_text[i - 1],
                   raw_text[i + 1], raw_text[i + 2]]
        target = raw_text[i]
        data.append((context, target))
    print(data[:5])

    class CBOW(nn.Module):

        def __init__(self):
            pass

        def forward(self, inputs):
            pass

    # create your model and train.  here are some functions to help you make
    # the data ready for use by your module

    def make_context_vector(context, word_to_ix):
        idxs = [word_to_ix[w] for w in context]
        return torch.tensor(idxs, dtype=torch.long)

    make_context_vector(data[0][0], word_to_ix)  # example
    results.extend(make_context_vector(data[0][0], word_to_ix).tolist())

    if not cbow:
        return results

    # -- not the tutorial's text: a solution of the exercise ---------------------------
    class CBOW(nn.Module):  # noqa: F811

        def __init__(self, vocab_size, embedding_dim):
            super(CBOW, self).__init__()
            self.embeddings = nn.Embedding(vocab_size, embedding_dim)
            self.linear = nn.Linear(embedding_dim, vocab_size)

        def forward(self, inputs):
            embeds = self.embeddings(inputs).sum(dim=0).view((1, -1))
            return F.log_softmax(self.linear(embeds), dim=1)

    model = CBOW(vocab_size, EMBEDDING_DIM)
    init(model)
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for epoch in range(cbow_epochs):
        total_loss = 0
        for context, target in data:
            model.zero_grad()
            log_probs = model(make_context_vector(context, word_to_ix))
            loss = loss_function(log_probs, torch.tensor([word_to_ix[target]],
                                                         dtype=torch.long))
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
            results.append(loss.item())
        losses.append(total_loss)
    print(losses)
    results.extend(losses)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

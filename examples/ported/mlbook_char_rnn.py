"""Port of rasbt/machine-learning-book ``ch15/ch15_part3.py`` (Chapter 15, Modeling
Sequential Data Using Recurrent Neural Networks, project two): the character-level
language model: the text encoded to integers and cut into chunks, a ``Dataset`` of
(input, target) pairs, an ``Embedding`` + ``LSTM(batch_first=True)`` + ``Linear`` model
stepped one character at a time from ``init_hidden``'s zero states, trained with
``CrossEntropyLoss`` summed over the sequence and Adam, ``Categorical`` samples of
softmax probabilities and the ``sample`` text generator with scaled logits.

machine-learning-book is MIT-licensed, Copyright (c) 2021 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). The Project Gutenberg text of
*The Mysterious Island* (``1268-0.txt``) is a synthetic text between the markers the
text looks for, of ``n_chars`` characters drawn from a seeded NumPy stream (a
``text`` argument replaces it); ``print`` is ``log``. The cells run in order in
``run``, whose keyword arguments are the sequence length, batch size, embedding and
hidden sizes, the number of epochs (training steps), the generated text's length and
the loader's shuffling (the text's sizes are only hyperparameters: smaller in the
tests). The text's ``device = torch.device("cuda:0")`` is ``"cuda:0"`` where CUDA is
available and ``"cpu"`` otherwise (``.to("cuda:0")`` raises on a CPU-only build, in
torch as in pyad). ``init`` is called with the model (the tests start pyad's from
torch's weights and draw the samples from one NumPy stream). The loss is printed every
``print_every`` epochs (500 in the text). Returned: each step's loss, the printed
probabilities and samples and the generated texts.

Run it with ``python examples/ported/mlbook_char_rnn.py``.
"""
import numpy as np


def synthetic_text(n_chars, seed=0):
    rng = np.random.RandomState(seed)
    letters = np.array(list("abcdefghilmnorstuwy ,.\nTI"))
    body = "".join(rng.choice(letters, n_chars))
    return ("Project Gutenberg header\nTHE MYSTERIOUS ISLAND\n" + body
            + "The island\nEnd of the Project Gutenberg EBook\n")


def run(torch, seq_length=40, batch_size=64, embed_dim=256, rnn_hidden_size=512,
        num_epochs=10000, print_every=500, len_generated=500, n_chars=20000,
        shuffle=True, text=None, init=None, log=print):
    nn = torch.nn
    Dataset = torch.utils.data.Dataset
    DataLoader = torch.utils.data.DataLoader
    Categorical = torch.distributions.Categorical
    init = init or (lambda model: None)
    results = {'losses': []}

    ## Reading and processing text
    text = text if text is not None else synthetic_text(n_chars)

    start_indx = text.find('THE MYSTERIOUS ISLAND')
    end_indx = text.find('End of the Project Gutenberg')

    text = text[start_indx:end_indx]
    char_set = set(text)
    log('Total Length:', len(text))
    log('Unique Characters:', len(char_set))

    chars_sorted = sorted(char_set)
    char2int = {ch:i for i,ch in enumerate(chars_sorted)}
    char_array = np.array(chars_sorted)

    text_encoded = np.array(
        [char2int[ch] for ch in text],
        dtype=np.int32)

    log('Text encoded shape: ', text_encoded.shape)

    log(text[:15], '     == Encoding ==> ', text_encoded[:15])
    log(text_encoded[15:21], ' == Reverse  ==> ', ''.join(char_array[text_encoded[15:21]]))

    for ex in text_encoded[:5]:
        log('{} -> {}'.format(ex, char_array[ex]))

    chunk_size = seq_length + 1

    text_chunks = [text_encoded[i:i+chunk_size]
                   for i in range(len(text_encoded)-chunk_size+1)]

    ## inspection:
    for seq in text_chunks[:1]:
        input_seq = seq[:seq_length]
        target = seq[seq_length]
        log(input_seq, ' -> ', target)
        log(repr(''.join(char_array[input_seq])),
            ' -> ', repr(''.join(char_array[target])))

    class TextDataset(Dataset):
        def __init__(self, text_chunks):
            self.text_chunks = text_chunks

        def __len__(self):
            return len(self.text_chunks)

        def __getitem__(self, idx):
            text_chunk = self.text_chunks[idx]
            return text_chunk[:-1].long(), text_chunk[1:].long()

    seq_dataset = TextDataset(torch.tensor(text_chunks))

    for i, (seq, target) in enumerate(seq_dataset):
        log(' Input (x):', repr(''.join(char_array[seq])))
        log('Target (y):', repr(''.join(char_array[target])))
        log()
        if i == 1:
            break

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    torch.manual_seed(1)
    seq_dl = DataLoader(seq_dataset, batch_size=batch_size, shuffle=shuffle, drop_last=True)

    # ### Building a character-level RNN model

    class RNN(nn.Module):
        def __init__(self, vocab_size, embed_dim, rnn_hidden_size):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_dim)
            self.rnn_hidden_size = rnn_hidden_size
            self.rnn = nn.LSTM(embed_dim, rnn_hidden_size,
                               batch_first=True)
            self.fc = nn.Linear(rnn_hidden_size, vocab_size)

        def forward(self, x, hidden, cell):
            out = self.embedding(x).unsqueeze(1)
            out, (hidden, cell) = self.rnn(out, (hidden, cell))
            out = self.fc(out).reshape(out.size(0), -1)
            return out, hidden, cell

        def init_hidden(self, batch_size):
            hidden = torch.zeros(1, batch_size, self.rnn_hidden_size)
            cell = torch.zeros(1, batch_size, self.rnn_hidden_size)
            return hidden.to(device), cell.to(device)

    vocab_size = len(char_array)

    torch.manual_seed(1)
    model = RNN(vocab_size, embed_dim, rnn_hidden_size)
    init(model)
    model = model.to(device)

    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005)

    torch.manual_seed(1)

    for epoch in range(num_epochs):
        hidden, cell = model.init_hidden(batch_size)
        seq_batch, target_batch = next(iter(seq_dl))
        seq_batch = seq_batch.to(device)
        target_batch = target_batch.to(device)
        optimizer.zero_grad()
        loss = 0
        for c in range(seq_length):
            pred, hidden, cell = model(seq_batch[:, c], hidden, cell)
            loss += loss_fn(pred, target_batch[:, c])
        loss.backward()
        optimizer.step()
        loss = loss.item()/seq_length
        results['losses'].append(loss)
        if epoch % print_every == 0:
            log(f'Epoch {epoch} loss: {loss:.4f}')

    # ### Evaluation phase: generating new text passages

    torch.manual_seed(1)

    logits = torch.tensor([[1.0, 1.0, 1.0]])

    log('Probabilities:', nn.functional.softmax(logits, dim=1).numpy()[0])

    m = Categorical(logits=logits)
    samples = m.sample((10,))

    log(samples.numpy())
    results['samples_uniform'] = samples.numpy().tolist()

    torch.manual_seed(1)

    logits = torch.tensor([[1.0, 1.0, 3.0]])

    log('Probabilities:', nn.functional.softmax(logits, dim=1).numpy()[0])

    m = Categorical(logits=logits)
    samples = m.sample((10,))

    log(samples.numpy())
    results['samples_skewed'] = samples.numpy().tolist()

    def sample(model, starting_str,
               len_generated_text=500,
               scale_factor=1.0):

        encoded_input = torch.tensor([char2int[s] for s in starting_str])
        encoded_input = torch.reshape(encoded_input, (1, -1))

        generated_str = starting_str

        model.eval()
        hidden, cell = model.init_hidden(1)
        hidden = hidden.to('cpu')
        cell = cell.to('cpu')
        for c in range(len(starting_str)-1):
            _, hidden, cell = model(encoded_input[:, c].view(1), hidden, cell)

        last_char = encoded_input[:, -1]
        for i in range(len_generated_text):
            logits, hidden, cell = model(last_char.view(1), hidden, cell)
            logits = torch.squeeze(logits, 0)
            scaled_logits = logits * scale_factor
            m = Categorical(logits=scaled_logits)
            last_char = m.sample()
            generated_str += str(char_array[last_char])

        return generated_str

    torch.manual_seed(1)
    model.to('cpu')
    results['generated'] = [sample(model, starting_str='The island',
                                   len_generated_text=len_generated)]
    log(results['generated'][-1])

    # * **Predictability vs. randomness**

    logits = torch.tensor([[1.0, 1.0, 3.0]])

    log('Probabilities before scaling:        ', nn.functional.softmax(logits, dim=1).numpy()[0])

    log('Probabilities after scaling with 0.5:', nn.functional.softmax(0.5*logits, dim=1).numpy()[0])

    log('Probabilities after scaling with 0.1:', nn.functional.softmax(0.1*logits, dim=1).numpy()[0])

    torch.manual_seed(1)
    results['generated'].append(sample(model, starting_str='The island',
                                       len_generated_text=len_generated,
                                       scale_factor=2.0))
    log(results['generated'][-1])

    torch.manual_seed(1)
    results['generated'].append(sample(model, starting_str='The island',
                                       len_generated_text=len_generated,
                                       scale_factor=0.5))
    log(results['generated'][-1])
    return results, model


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of pytorch/tutorials ``intermediate_source/seq2seq_translation_tutorial.py``
("NLP From Scratch: Translation with a Sequence to Sequence Network and Attention"):
the ``Lang`` vocabularies, an ``EncoderRNN`` (``Embedding``, ``GRU(batch_first=True)``,
``Dropout``), the plain ``DecoderRNN`` and the ``AttnDecoderRNN`` with
``BahdanauAttention`` (``bmm`` of the softmaxed scores with the keys), teacher forcing
in training and greedy ``topk`` decoding in ``evaluate``; ``NLLLoss`` and two ``Adam``s.

Ported by changing the imports (``import pyad as torch``). The French-English pairs
file is replaced by synthetic sentence pairs over a small vocabulary (each "French"
sentence a word-by-word mapping of its "English" one, reversed as the original's
``prepareData('eng', 'fra', True)``), already normalised; ``MAX_LENGTH`` and the sizes
are small; the plots are left out.

Run it with ``python examples/ported/seq2seq_translation.py``.
"""
import random
import time
import math

import numpy as np


def run(torch, n_pairs=24, hidden_size=32, batch_size=8, n_epochs=3, attention=True,
        seed=0, init=None, log=print):
    """Train for ``n_epochs``; return every batch loss, each epoch's loss, and the loss
    of the greedy decoding of a few training sentences."""
    nn = torch.nn
    optim = torch.optim
    F = torch.nn.functional
    TensorDataset = torch.utils.data.TensorDataset
    DataLoader = torch.utils.data.DataLoader
    RandomSampler = torch.utils.data.RandomSampler

    device = torch.device("cpu")
    results = []

    SOS_token = 0
    EOS_token = 1

    class Lang:
        def __init__(self, name):
            self.name = name
            self.word2index = {}
            self.word2count = {}
            self.index2word = {0: "SOS", 1: "EOS"}
            self.n_words = 2  # Count SOS and EOS

        def addSentence(self, sentence):
            for word in sentence.split(' '):
                self.addWord(word)

        def addWord(self, word):
            if word not in self.word2index:
                self.word2index[word] = self.n_words
                self.word2count[word] = 1
                self.index2word[self.n_words] = word
                self.n_words += 1
            else:
                self.word2count[word] += 1

    MAX_LENGTH = 6

    rng = np.random.RandomState(seed)
    english = ["i", "you", "he", "she", "am", "are", "is", "not", "tired", "happy",
               "here", "home", "a", "teacher", "student"]
    french = ["je", "tu", "il", "elle", "suis", "es", "est", "pas", "fatigue",
              "heureux", "ici", "maison", "un", "professeur", "etudiant"]

    def readLangs(lang1, lang2, reverse=False):
        log("Reading lines...")
        pairs = []
        for _ in range(n_pairs):
            words = rng.randint(0, len(english), rng.randint(2, MAX_LENGTH))
            pairs.append([' '.join(english[w] for w in words),
                          ' '.join(french[w] for w in words)])

        # Reverse pairs, make Lang instances
        if reverse:
            pairs = [list(reversed(p)) for p in pairs]
            input_lang = Lang(lang2)
            output_lang = Lang(lang1)
        else:
            input_lang = Lang(lang1)
            output_lang = Lang(lang2)

        return input_lang, output_lang, pairs

    def prepareData(lang1, lang2, reverse=False):
        input_lang, output_lang, pairs = readLangs(lang1, lang2, reverse)
        log("Read %s sentence pairs" % len(pairs))
        log("Counting words...")
        for pair in pairs:
            input_lang.addSentence(pair[0])
            output_lang.addSentence(pair[1])
        log("Counted words:")
        log(input_lang.name, input_lang.n_words)
        log(output_lang.name, output_lang.n_words)
        return input_lang, output_lang, pairs

    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.1):
            super(EncoderRNN, self).__init__()
            self.hidden_size = hidden_size

            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            output, hidden = self.gru(embedded)
            return output, hidden

    class DecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size):
            super(DecoderRNN, self).__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long,
                                        device=device).fill_(SOS_token)
            decoder_hidden = encoder_hidden
            decoder_outputs = []

            for i in range(MAX_LENGTH):
                decoder_output, decoder_hidden = self.forward_step(decoder_input,
                                                                   decoder_hidden)
                decoder_outputs.append(decoder_output)

                if target_tensor is not None:
                    # Teacher forcing: Feed the target as the next input
                    decoder_input = target_tensor[:, i].unsqueeze(1)  # Teacher forcing
                else:
                    # Without teacher forcing: use its own predictions as the next input
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()  # detach from history as input

            decoder_outputs = torch.cat(decoder_outputs, dim=1)
            decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
            # We return `None` for consistency in the training loop
            return decoder_outputs, decoder_hidden, None

        def forward_step(self, input, hidden):
            output = self.embedding(input)
            output = F.relu(output)
            output, hidden = self.gru(output, hidden)
            output = self.out(output)
            return output, hidden

    class BahdanauAttention(nn.Module):
        def __init__(self, hidden_size):
            super(BahdanauAttention, self).__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)

            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)

            return context, weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size, dropout_p=0.1):
            super(AttnDecoderRNN, self).__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = BahdanauAttention(hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long,
                                        device=device).fill_(SOS_token)
            decoder_hidden = encoder_hidden
            decoder_outputs = []
            attentions = []

            for i in range(MAX_LENGTH):
                decoder_output, decoder_hidden, attn_weights = self.forward_step(
                    decoder_input, decoder_hidden, encoder_outputs
                )
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)

                if target_tensor is not None:
                    # Teacher forcing: Feed the target as the next input
                    decoder_input = target_tensor[:, i].unsqueeze(1)  # Teacher forcing
                else:
                    # Without teacher forcing: use its own predictions as the next input
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()  # detach from history as input

            decoder_outputs = torch.cat(decoder_outputs, dim=1)
            decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
            attentions = torch.cat(attentions, dim=1)

            return decoder_outputs, decoder_hidden, attentions

        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(input))

            query = hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            input_gru = torch.cat((embedded, context), dim=2)

            output, hidden = self.gru(input_gru, hidden)
            output = self.out(output)

            return output, hidden, attn_weights

    def indexesFromSentence(lang, sentence):
        return [lang.word2index[word] for word in sentence.split(' ')]

    def tensorFromSentence(lang, sentence):
        indexes = indexesFromSentence(lang, sentence)
        indexes.append(EOS_token)
        return torch.tensor(indexes, dtype=torch.long, device=device).view(1, -1)

    def get_dataloader(batch_size):
        input_lang, output_lang, pairs = prepareData('eng', 'fra', True)

        n = len(pairs)
        input_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
        target_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)

        for idx, (inp, tgt) in enumerate(pairs):
            inp_ids = indexesFromSentence(input_lang, inp)
            tgt_ids = indexesFromSentence(output_lang, tgt)
            inp_ids.append(EOS_token)
            tgt_ids.append(EOS_token)
            input_ids[idx, :len(inp_ids)] = inp_ids
            target_ids[idx, :len(tgt_ids)] = tgt_ids

        train_data = TensorDataset(torch.LongTensor(input_ids).to(device),
                                   torch.LongTensor(target_ids).to(device))

        train_sampler = RandomSampler(train_data)
        train_dataloader = DataLoader(train_data, sampler=train_sampler,
                                      batch_size=batch_size)
        return input_lang, output_lang, train_dataloader, pairs

    def train_epoch(dataloader, encoder, decoder, encoder_optimizer,
                    decoder_optimizer, criterion):

        total_loss = 0
        for data in dataloader:
            input_tensor, target_tensor = data

            encoder_optimizer.zero_grad()
            decoder_optimizer.zero_grad()

            encoder_outputs, encoder_hidden = encoder(input_tensor)
            decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)

            loss = criterion(
                decoder_outputs.view(-1, decoder_outputs.size(-1)),
                target_tensor.view(-1)
            )
            loss.backward()

            encoder_optimizer.step()
            decoder_optimizer.step()

            total_loss += loss.item()
            results.append(loss.item())

        return total_loss / len(dataloader)

    def asMinutes(s):
        m = math.floor(s / 60)
        s -= m * 60
        return '%dm %ds' % (m, s)

    def timeSince(since, percent):
        now = time.time()
        s = now - since
        es = s / (percent)
        rs = es - s
        return '%s (- %s)' % (asMinutes(s), asMinutes(rs))

    def train(train_dataloader, encoder, decoder, n_epochs, learning_rate=0.001,
              print_every=100, plot_every=100):
        start = time.time()
        plot_losses = []
        print_loss_total = 0  # Reset every print_every
        plot_loss_total = 0  # Reset every plot_every

        encoder_optimizer = optim.Adam(encoder.parameters(), lr=learning_rate)
        decoder_optimizer = optim.Adam(decoder.parameters(), lr=learning_rate)
        criterion = nn.NLLLoss()

        for epoch in range(1, n_epochs + 1):
            loss = train_epoch(train_dataloader, encoder, decoder, encoder_optimizer,
                               decoder_optimizer, criterion)
            print_loss_total += loss
            plot_loss_total += loss

            if epoch % print_every == 0:
                print_loss_avg = print_loss_total / print_every
                print_loss_total = 0
                log('%s (%d %d%%) %.4f' % (timeSince(start, epoch / n_epochs),
                                           epoch, epoch / n_epochs * 100, print_loss_avg))

            if epoch % plot_every == 0:
                plot_loss_avg = plot_loss_total / plot_every
                plot_losses.append(plot_loss_avg)
                plot_loss_total = 0

        return plot_losses

    def evaluate(encoder, decoder, sentence, input_lang, output_lang):
        with torch.no_grad():
            input_tensor = tensorFromSentence(input_lang, sentence)

            encoder_outputs, encoder_hidden = encoder(input_tensor)
            decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs,
                                                                    encoder_hidden)

            _, topi = decoder_outputs.topk(1)
            decoded_ids = topi.squeeze()

            decoded_words = []
            for idx in decoded_ids:
                if idx.item() == EOS_token:
                    decoded_words.append('<EOS>')
                    break
                decoded_words.append(output_lang.index2word[idx.item()])
        return decoded_words, decoder_attn

    def evaluateRandomly(encoder, decoder, n=10):
        for i in range(n):
            pair = random.choice(pairs)
            log('>', pair[0])
            log('=', pair[1])
            output_words, _ = evaluate(encoder, decoder, pair[0], input_lang, output_lang)
            output_sentence = ' '.join(output_words)
            log('<', output_sentence)
            log('')

    input_lang, output_lang, train_dataloader, pairs = get_dataloader(batch_size)

    torch.manual_seed(seed)
    encoder = EncoderRNN(input_lang.n_words, hidden_size).to(device)
    if attention:
        decoder = AttnDecoderRNN(hidden_size, output_lang.n_words).to(device)
    else:
        decoder = DecoderRNN(hidden_size, output_lang.n_words).to(device)
    if init is not None:
        init(encoder)
        init(decoder)

    results += train(train_dataloader, encoder, decoder, n_epochs, print_every=1,
                     plot_every=1)

    encoder.eval()
    decoder.eval()
    random.seed(seed)
    evaluateRandomly(encoder, decoder, n=3)
    # the greedy decoding of the first sentences, and its attention weights
    for pair in pairs[:3]:
        output_words, attentions = evaluate(encoder, decoder, pair[0], input_lang,
                                            output_lang)
        results.append(len(output_words))
        if attentions is not None:
            results.extend(attentions.numpy().ravel().tolist())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of bentrevett/pytorch-seq2seq ``4 - Packed Padded Sequences, Masking, Inference
and BLEU.ipynb``: the attention model of notebook 3 with the source lengths
(``pack_padded_sequence(embedded, src_len.to('cpu'))`` into the bidirectional
``nn.GRU``, ``pad_packed_sequence``), the source mask (``(src != src_pad_idx)
.permute(1, 0)``, ``masked_fill(mask == 0, -1e10)`` before the softmax), teacher
forcing, ``init_weights``, Adam, ``clip_grad_norm_``, the ``train``/``evaluate`` loops,
the best ``state_dict`` saved and reloaded for the test set, and ``translate_sentence``
(greedy decoding of one sentence, its attention written row by row into a zeros
Variable) of the notebook's train, validation and test examples 12, 14 and 18.

Copyright (c) 2018 Ben Trevett, under the MIT License (see
https://github.com/bentrevett/pytorch-seq2seq/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells are
the body of ``run``; ``print`` is ``log``; ``display_attention`` (a matplotlib figure)
is dropped and the attention it shows is returned; the BLEU cells are dropped
(torchtext's ``bleu_score`` is not available). torchtext, spaCy and Multi30k are not
available: ``Field`` gives the special tokens and a synthetic vocabulary
(``<unk>``, ``<pad>``, ``<sos>``, ``<eos>``, then ``t4``, ``t5``, ...), the examples
are token lists of random lengths (``np.random`` after the seed cell) and
``bucket_iterator`` is ``BucketIterator`` with ``sort_within_batch`` by source length and
``include_lengths`` (``batch.src`` is the pair of ids and lengths). The sizes (embedding
256, hidden 512, dropout 0.5, batch 128, 10 epochs) are keyword arguments (only
hyperparameters); the tests run a few tiny batches. ``init_weights``'s
``nn.init.normal_(param.data, ...)`` and ``nn.init.constant_(param.data, 0)`` take
``param`` (pyad's ``.data`` is the NumPy array: ``verbatim_data=True`` runs the text's
lines). The model file goes to ``workdir`` (a temporary directory by default). ``train``
also appends each batch's loss to the returned results (after the parameter count; then
each epoch's train/valid loss, the test loss and each example's translation and
attention).

Run it with ``python examples/ported/bentrevett_packed.py``.
"""
import math
import os
import random
import tempfile
import time
import types

import numpy as np

spacy = None  # not available: translate_sentence gets token lists, as in the notebook


class Field:
    """The part of torchtext's legacy ``Field`` the notebook uses: ``init_token``,
    ``eos_token``, ``pad_token`` and ``vocab.stoi``/``vocab.itos`` of a synthetic
    vocabulary (``<unk>``, ``<pad>``, ``<sos>``, ``<eos>``, then ``t4``, ``t5``, ...)."""

    def __init__(self, vocab_size):
        self.init_token, self.eos_token, self.pad_token = '<sos>', '<eos>', '<pad>'
        itos = ['<unk>', '<pad>', '<sos>', '<eos>'] + [f't{i}' for i in range(4, vocab_size)]
        self.vocab = Vocab(itos)


class Vocab:
    """``itos``, ``stoi`` and ``len`` of a torchtext legacy ``Vocab``."""

    def __init__(self, itos):
        self.itos = itos
        self.stoi = {s: i for i, s in enumerate(itos)}

    def __len__(self):
        return len(self.itos)


def synthetic_examples(n, src_vocab, trg_vocab, min_len=3, max_len=7):
    """A ``Dataset`` of ``n`` examples, each with ``src`` and ``trg`` token lists of random
    lengths (``np.random``), as ``vars(example)`` gives."""
    examples = []
    for _ in range(n):
        example = types.SimpleNamespace()
        for name, vocab in (('src', src_vocab), ('trg', trg_vocab)):
            length = np.random.randint(min_len, max_len + 1)
            setattr(example, name, [f't{i}' for i in np.random.randint(4, vocab, length)])
        examples.append(example)
    return types.SimpleNamespace(examples=examples)


def bucket_iterator(torch, data, batch_size, src_field, trg_field):
    """``BucketIterator`` with ``sort_within_batch=True``, ``sort_key=len(x.src)`` and the
    source field's ``include_lengths=True``: ``[len, batch]`` ``LongTensor``s with
    ``<sos>``/``<eos>`` and ``<pad>``, each batch sorted by decreasing source length,
    ``batch.src`` the pair (ids, lengths)."""
    def numericalize(field, tokens, length):
        ids = [field.vocab.stoi[t] for t in [field.init_token] + tokens + [field.eos_token]]
        return ids + [field.vocab.stoi[field.pad_token]] * (length + 2 - len(ids))

    batches = []
    for start in range(0, len(data.examples), batch_size):
        chunk = sorted(data.examples[start:start + batch_size], key=lambda x: len(x.src),
                       reverse=True)
        batch = types.SimpleNamespace()
        src_max = max(len(x.src) for x in chunk)
        trg_max = max(len(x.trg) for x in chunk)
        src = np.ascontiguousarray(
            np.array([numericalize(src_field, x.src, src_max) for x in chunk]).T)
        trg = np.ascontiguousarray(
            np.array([numericalize(trg_field, x.trg, trg_max) for x in chunk]).T)
        batch.src = (torch.LongTensor(src), torch.LongTensor([len(x.src) + 2 for x in chunk]))
        batch.trg = torch.LongTensor(trg)
        batches.append(batch)
    return batches


def run(torch, input_dim=24, output_dim=20, enc_emb_dim=256, dec_emb_dim=256,
        enc_hid_dim=512, dec_hid_dim=512, enc_dropout=0.5, dec_dropout=0.5, batch_size=128,
        n_train=256, n_valid=128, n_test=128, n_epochs=10, init=None, log=print,
        workdir=None, verbatim_data=False):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    results = []
    workdir = workdir or tempfile.mkdtemp()

    SEED = 1234

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.cuda.manual_seed(SEED)
    torch.backends.cudnn.deterministic = True

    # the data pipeline (torchtext's Multi30k, Field, BucketIterator) is synthetic
    SRC, TRG = Field(input_dim), Field(output_dim)
    train_data = synthetic_examples(n_train, input_dim, output_dim)
    valid_data = synthetic_examples(n_valid, input_dim, output_dim)
    test_data = synthetic_examples(n_test, input_dim, output_dim)
    train_iterator = bucket_iterator(torch, train_data, batch_size, SRC, TRG)
    valid_iterator = bucket_iterator(torch, valid_data, batch_size, SRC, TRG)
    test_iterator = bucket_iterator(torch, test_data, batch_size, SRC, TRG)

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    class Encoder(nn.Module):
        def __init__(self, input_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout):
            super().__init__()

            self.embedding = nn.Embedding(input_dim, emb_dim)

            self.rnn = nn.GRU(emb_dim, enc_hid_dim, bidirectional = True)

            self.fc = nn.Linear(enc_hid_dim * 2, dec_hid_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, src, src_len):

            #src = [src len, batch size]
            #src_len = [batch size]

            embedded = self.dropout(self.embedding(src))

            #embedded = [src len, batch size, emb dim]

            #need to explicitly put lengths on cpu!
            packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, src_len.to('cpu'))

            packed_outputs, hidden = self.rnn(packed_embedded)

            #packed_outputs is a packed sequence containing all hidden states
            #hidden is now from the final non-padded element in the batch

            outputs, _ = nn.utils.rnn.pad_packed_sequence(packed_outputs)

            #outputs is now a non-packed sequence, all hidden states obtained
            #  when the input is a pad token are all zeros

            #outputs = [src len, batch size, hid dim * num directions]
            #hidden = [n layers * num directions, batch size, hid dim]

            #hidden is stacked [forward_1, backward_1, forward_2, backward_2, ...]
            #outputs are always from the last layer

            #hidden [-2, :, : ] is the last of the forwards RNN
            #hidden [-1, :, : ] is the last of the backwards RNN

            #initial decoder hidden is final hidden state of the forwards and backwards
            #  encoder RNNs fed through a linear layer
            hidden = torch.tanh(self.fc(torch.cat((hidden[-2,:,:], hidden[-1,:,:]), dim = 1)))

            #outputs = [src len, batch size, enc hid dim * 2]
            #hidden = [batch size, dec hid dim]

            return outputs, hidden

    class Attention(nn.Module):
        def __init__(self, enc_hid_dim, dec_hid_dim):
            super().__init__()

            self.attn = nn.Linear((enc_hid_dim * 2) + dec_hid_dim, dec_hid_dim)
            self.v = nn.Linear(dec_hid_dim, 1, bias = False)

        def forward(self, hidden, encoder_outputs, mask):

            #hidden = [batch size, dec hid dim]
            #encoder_outputs = [src len, batch size, enc hid dim * 2]

            batch_size = encoder_outputs.shape[1]
            src_len = encoder_outputs.shape[0]

            #repeat decoder hidden state src_len times
            hidden = hidden.unsqueeze(1).repeat(1, src_len, 1)

            encoder_outputs = encoder_outputs.permute(1, 0, 2)

            #hidden = [batch size, src len, dec hid dim]
            #encoder_outputs = [batch size, src len, enc hid dim * 2]

            energy = torch.tanh(self.attn(torch.cat((hidden, encoder_outputs), dim = 2)))

            #energy = [batch size, src len, dec hid dim]

            attention = self.v(energy).squeeze(2)

            #attention = [batch size, src len]

            attention = attention.masked_fill(mask == 0, -1e10)

            return F.softmax(attention, dim = 1)

    class Decoder(nn.Module):
        def __init__(self, output_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout, attention):
            super().__init__()

            self.output_dim = output_dim
            self.attention = attention

            self.embedding = nn.Embedding(output_dim, emb_dim)

            self.rnn = nn.GRU((enc_hid_dim * 2) + emb_dim, dec_hid_dim)

            self.fc_out = nn.Linear((enc_hid_dim * 2) + dec_hid_dim + emb_dim, output_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, input, hidden, encoder_outputs, mask):

            #input = [batch size]
            #hidden = [batch size, dec hid dim]
            #encoder_outputs = [src len, batch size, enc hid dim * 2]
            #mask = [batch size, src len]

            input = input.unsqueeze(0)

            #input = [1, batch size]

            embedded = self.dropout(self.embedding(input))

            #embedded = [1, batch size, emb dim]

            a = self.attention(hidden, encoder_outputs, mask)

            #a = [batch size, src len]

            a = a.unsqueeze(1)

            #a = [batch size, 1, src len]

            encoder_outputs = encoder_outputs.permute(1, 0, 2)

            #encoder_outputs = [batch size, src len, enc hid dim * 2]

            weighted = torch.bmm(a, encoder_outputs)

            #weighted = [batch size, 1, enc hid dim * 2]

            weighted = weighted.permute(1, 0, 2)

            #weighted = [1, batch size, enc hid dim * 2]

            rnn_input = torch.cat((embedded, weighted), dim = 2)

            #rnn_input = [1, batch size, (enc hid dim * 2) + emb dim]

            output, hidden = self.rnn(rnn_input, hidden.unsqueeze(0))

            #output = [seq len, batch size, dec hid dim * n directions]
            #hidden = [n layers * n directions, batch size, dec hid dim]

            #seq len, n layers and n directions will always be 1 in this decoder, therefore:
            #output = [1, batch size, dec hid dim]
            #hidden = [1, batch size, dec hid dim]
            #this also means that output == hidden
            assert (output == hidden).all()

            embedded = embedded.squeeze(0)
            output = output.squeeze(0)
            weighted = weighted.squeeze(0)

            prediction = self.fc_out(torch.cat((output, weighted, embedded), dim = 1))

            #prediction = [batch size, output dim]

            return prediction, hidden.squeeze(0), a.squeeze(1)

    class Seq2Seq(nn.Module):
        def __init__(self, encoder, decoder, src_pad_idx, device):
            super().__init__()

            self.encoder = encoder
            self.decoder = decoder
            self.src_pad_idx = src_pad_idx
            self.device = device

        def create_mask(self, src):
            mask = (src != self.src_pad_idx).permute(1, 0)
            return mask

        def forward(self, src, src_len, trg, teacher_forcing_ratio = 0.5):

            #src = [src len, batch size]
            #src_len = [batch size]
            #trg = [trg len, batch size]
            #teacher_forcing_ratio is probability to use teacher forcing
            #e.g. if teacher_forcing_ratio is 0.75 we use teacher forcing 75% of the time

            batch_size = src.shape[1]
            trg_len = trg.shape[0]
            trg_vocab_size = self.decoder.output_dim

            #tensor to store decoder outputs
            outputs = torch.zeros(trg_len, batch_size, trg_vocab_size).to(self.device)

            #encoder_outputs is all hidden states of the input sequence, back and forwards
            #hidden is the final forward and backward hidden states, passed through a linear layer
            encoder_outputs, hidden = self.encoder(src, src_len)

            #first input to the decoder is the <sos> tokens
            input = trg[0,:]

            mask = self.create_mask(src)

            #mask = [batch size, src len]

            for t in range(1, trg_len):

                #insert input token embedding, previous hidden state, all encoder hidden states
                #  and mask
                #receive output tensor (predictions) and new hidden state
                output, hidden, _ = self.decoder(input, hidden, encoder_outputs, mask)

                #place predictions in a tensor holding predictions for each token
                outputs[t] = output

                #decide if we are going to use teacher forcing or not
                teacher_force = random.random() < teacher_forcing_ratio

                #get the highest predicted token from our predictions
                top1 = output.argmax(1)

                #if teacher forcing, use actual next token as next input
                #if not, use predicted token
                input = trg[t] if teacher_force else top1

            return outputs

    INPUT_DIM = len(SRC.vocab)
    OUTPUT_DIM = len(TRG.vocab)
    ENC_EMB_DIM = enc_emb_dim
    DEC_EMB_DIM = dec_emb_dim
    ENC_HID_DIM = enc_hid_dim
    DEC_HID_DIM = dec_hid_dim
    ENC_DROPOUT = enc_dropout
    DEC_DROPOUT = dec_dropout
    SRC_PAD_IDX = SRC.vocab.stoi[SRC.pad_token]

    attn = Attention(ENC_HID_DIM, DEC_HID_DIM)
    enc = Encoder(INPUT_DIM, ENC_EMB_DIM, ENC_HID_DIM, DEC_HID_DIM, ENC_DROPOUT)
    dec = Decoder(OUTPUT_DIM, DEC_EMB_DIM, ENC_HID_DIM, DEC_HID_DIM, DEC_DROPOUT, attn)

    model = Seq2Seq(enc, dec, SRC_PAD_IDX, device).to(device)

    def init_weights(m):
        for name, param in m.named_parameters():
            if 'weight' in name:
                if verbatim_data:
                    nn.init.normal_(param.data, mean=0, std=0.01)
                else:
                    nn.init.normal_(param, mean=0, std=0.01)
            else:
                if verbatim_data:
                    nn.init.constant_(param.data, 0)
                else:
                    nn.init.constant_(param, 0)

    model.apply(init_weights)
    if init is not None:
        init(model)

    def count_parameters(model):
        return sum(p.numel() for p in model.parameters() if p.requires_grad)

    log(f'The model has {count_parameters(model):,} trainable parameters')
    results.append(count_parameters(model))

    optimizer = optim.Adam(model.parameters())

    TRG_PAD_IDX = TRG.vocab.stoi[TRG.pad_token]

    criterion = nn.CrossEntropyLoss(ignore_index = TRG_PAD_IDX)

    def train(model, iterator, optimizer, criterion, clip):

        model.train()

        epoch_loss = 0

        for i, batch in enumerate(iterator):

            src, src_len = batch.src
            trg = batch.trg

            optimizer.zero_grad()

            output = model(src, src_len, trg)

            #trg = [trg len, batch size]
            #output = [trg len, batch size, output dim]

            output_dim = output.shape[-1]

            output = output[1:].view(-1, output_dim)
            trg = trg[1:].view(-1)

            #trg = [(trg len - 1) * batch size]
            #output = [(trg len - 1) * batch size, output dim]

            loss = criterion(output, trg)

            loss.backward()

            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)

            optimizer.step()

            epoch_loss += loss.item()
            results.append(loss.item())

        return epoch_loss / len(iterator)

    def evaluate(model, iterator, criterion):

        model.eval()

        epoch_loss = 0

        with torch.no_grad():

            for i, batch in enumerate(iterator):

                src, src_len = batch.src
                trg = batch.trg

                output = model(src, src_len, trg, 0) #turn off teacher forcing

                #trg = [trg len, batch size]
                #output = [trg len, batch size, output dim]

                output_dim = output.shape[-1]

                output = output[1:].view(-1, output_dim)
                trg = trg[1:].view(-1)

                #trg = [(trg len - 1) * batch size]
                #output = [(trg len - 1) * batch size, output dim]

                loss = criterion(output, trg)

                epoch_loss += loss.item()

        return epoch_loss / len(iterator)

    def epoch_time(start_time, end_time):
        elapsed_time = end_time - start_time
        elapsed_mins = int(elapsed_time / 60)
        elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
        return elapsed_mins, elapsed_secs

    N_EPOCHS = n_epochs
    CLIP = 1

    best_valid_loss = float('inf')

    for epoch in range(N_EPOCHS):

        start_time = time.time()

        train_loss = train(model, train_iterator, optimizer, criterion, CLIP)
        valid_loss = evaluate(model, valid_iterator, criterion)

        end_time = time.time()

        epoch_mins, epoch_secs = epoch_time(start_time, end_time)

        if valid_loss < best_valid_loss:
            best_valid_loss = valid_loss
            torch.save(model.state_dict(), os.path.join(workdir, 'tut4-model.pt'))

        log(f'Epoch: {epoch+1:02} | Time: {epoch_mins}m {epoch_secs}s')
        log(f'\tTrain Loss: {train_loss:.3f} | Train PPL: {math.exp(train_loss):7.3f}')
        log(f'\t Val. Loss: {valid_loss:.3f} |  Val. PPL: {math.exp(valid_loss):7.3f}')
        results.append([train_loss, valid_loss])

    model.load_state_dict(torch.load(os.path.join(workdir, 'tut4-model.pt')))

    test_loss = evaluate(model, test_iterator, criterion)

    log(f'| Test Loss: {test_loss:.3f} | Test PPL: {math.exp(test_loss):7.3f} |')
    results.append(test_loss)

    def translate_sentence(sentence, src_field, trg_field, model, device, max_len = 50):

        model.eval()

        if isinstance(sentence, str):
            nlp = spacy.load('de')
            tokens = [token.text.lower() for token in nlp(sentence)]
        else:
            tokens = [token.lower() for token in sentence]

        tokens = [src_field.init_token] + tokens + [src_field.eos_token]

        src_indexes = [src_field.vocab.stoi[token] for token in tokens]

        src_tensor = torch.LongTensor(src_indexes).unsqueeze(1).to(device)

        src_len = torch.LongTensor([len(src_indexes)])

        with torch.no_grad():
            encoder_outputs, hidden = model.encoder(src_tensor, src_len)

        mask = model.create_mask(src_tensor)

        trg_indexes = [trg_field.vocab.stoi[trg_field.init_token]]

        attentions = torch.zeros(max_len, 1, len(src_indexes)).to(device)

        for i in range(max_len):

            trg_tensor = torch.LongTensor([trg_indexes[-1]]).to(device)

            with torch.no_grad():
                output, hidden, attention = model.decoder(trg_tensor, hidden, encoder_outputs, mask)

            attentions[i] = attention

            pred_token = output.argmax(1).item()

            trg_indexes.append(pred_token)

            if pred_token == trg_field.vocab.stoi[trg_field.eos_token]:
                break

        trg_tokens = [trg_field.vocab.itos[i] for i in trg_indexes]

        return trg_tokens[1:], attentions[:len(trg_tokens)-1]

    for data, example_idx in ((train_data, 12), (valid_data, 14), (test_data, 18)):

        src = vars(data.examples[example_idx])['src']
        trg = vars(data.examples[example_idx])['trg']

        log(f'src = {src}')
        log(f'trg = {trg}')

        translation, attention = translate_sentence(src, SRC, TRG, model, device)

        log(f'predicted trg = {translation}')
        results.append(translation)
        results.append(attention.numpy().copy())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, enc_emb_dim=16, dec_emb_dim=16, enc_hid_dim=32, dec_hid_dim=32, batch_size=16,
        n_train=32, n_valid=16, n_test=20, n_epochs=2)

"""Port of bentrevett/pytorch-seq2seq ``3 - Neural Machine Translation by Jointly
Learning to Align and Translate.ipynb``: a bidirectional ``nn.GRU`` encoder whose final
forward and backward states, through a ``Linear`` and ``tanh``, start a ``nn.GRU``
decoder with Bahdanau attention (``Attention``: ``repeat``, ``permute``, ``cat``,
``tanh``, a bias-free ``v``, ``F.softmax``; the weighted source vector by ``torch.bmm``),
teacher forcing, ``init_weights`` (weights from N(0, 0.01), biases 0), Adam,
``clip_grad_norm_``, the ``train``/``evaluate`` loops and the best ``state_dict`` saved and
reloaded for the test set.

Copyright (c) 2018 Ben Trevett, under the MIT License (see
https://github.com/bentrevett/pytorch-seq2seq/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells are
the body of ``run``; ``print`` is ``log``. torchtext, spaCy and Multi30k are not
available: the ``Field``/``BucketIterator`` pipeline is replaced by a synthetic
vocabulary (torchtext's special tokens first: ``<unk>`` 0, ``<pad>`` 1, ``<sos>`` 2,
``<eos>`` 3) and seeded integer sentences of random lengths (``np.random`` after the
seed cell), padded per batch into ``[len, batch]`` ``LongTensor``s as
``batch.src``/``batch.trg``. The sizes (embedding 256, hidden 512, dropout 0.5, batch
128, 10 epochs in the notebook) are keyword arguments (only hyperparameters); the tests
run a few tiny batches. ``init_weights``'s ``nn.init.normal_(param.data, ...)`` and
``nn.init.constant_(param.data, 0)`` take ``param`` (``nn.init`` runs under
``no_grad``; pyad's ``.data`` is the NumPy array: ``verbatim_data=True`` runs the text's
lines). The model file goes to ``workdir`` (a temporary directory by default).
``train`` also appends each batch's loss to the returned results, and the decoder each
step's attention weights ``a`` (returned last, after the parameter count, the losses,
each epoch's train/valid loss and the test loss).

Run it with ``python examples/ported/bentrevett_attention.py``.
"""
import math
import os
import random
import tempfile
import time

import numpy as np


def synthetic_batches(torch, n_sentences, batch_size, src_vocab, trg_vocab,
                      min_len=3, max_len=7, pad=1, sos=2, eos=3):
    """``BucketIterator``'s batches of ``np.random`` sentences: ``batch.src`` and
    ``batch.trg`` are ``[len, batch]`` with ``<sos>``/``<eos>`` added and ``<pad>``
    after the shorter ones (the stand-in for Multi30k)."""
    class Batch:
        pass

    batches = []
    for start in range(0, n_sentences, batch_size):
        n = min(batch_size, n_sentences - start)
        batch = Batch()
        for name, vocab in (("src", src_vocab), ("trg", trg_vocab)):
            lengths = np.random.randint(min_len, max_len + 1, n)
            ids = np.full((max(lengths) + 2, n), pad, dtype=np.int64)
            for j, length in enumerate(lengths):
                ids[0, j] = sos
                ids[1:length + 1, j] = np.random.randint(4, vocab, length)
                ids[length + 1, j] = eos
            setattr(batch, name, torch.LongTensor(ids))
        batches.append(batch)
    return batches


def run(torch, input_dim=24, output_dim=20, enc_emb_dim=256, dec_emb_dim=256,
        enc_hid_dim=512, dec_hid_dim=512, enc_dropout=0.5, dec_dropout=0.5, batch_size=128,
        n_train=256, n_valid=128, n_test=128, n_epochs=10, init=None, log=print,
        workdir=None, verbatim_data=False):
    nn = torch.nn
    F = torch.nn.functional
    attentions = []
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
    train_iterator = synthetic_batches(torch, n_train, batch_size, input_dim, output_dim)
    valid_iterator = synthetic_batches(torch, n_valid, batch_size, input_dim, output_dim)
    test_iterator = synthetic_batches(torch, n_test, batch_size, input_dim, output_dim)

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    class Encoder(nn.Module):
        def __init__(self, input_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout):
            super().__init__()

            self.embedding = nn.Embedding(input_dim, emb_dim)

            self.rnn = nn.GRU(emb_dim, enc_hid_dim, bidirectional = True)

            self.fc = nn.Linear(enc_hid_dim * 2, dec_hid_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, src):

            #src = [src len, batch size]

            embedded = self.dropout(self.embedding(src))

            #embedded = [src len, batch size, emb dim]

            outputs, hidden = self.rnn(embedded)

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

        def forward(self, hidden, encoder_outputs):

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

            #attention= [batch size, src len]

            return F.softmax(attention, dim=1)

    class Decoder(nn.Module):
        def __init__(self, output_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout, attention):
            super().__init__()

            self.output_dim = output_dim
            self.attention = attention

            self.embedding = nn.Embedding(output_dim, emb_dim)

            self.rnn = nn.GRU((enc_hid_dim * 2) + emb_dim, dec_hid_dim)

            self.fc_out = nn.Linear((enc_hid_dim * 2) + dec_hid_dim + emb_dim, output_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, input, hidden, encoder_outputs):

            #input = [batch size]
            #hidden = [batch size, dec hid dim]
            #encoder_outputs = [src len, batch size, enc hid dim * 2]

            input = input.unsqueeze(0)

            #input = [1, batch size]

            embedded = self.dropout(self.embedding(input))

            #embedded = [1, batch size, emb dim]

            a = self.attention(hidden, encoder_outputs)

            #a = [batch size, src len]
            attentions.append(a.detach().numpy().copy())

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

            return prediction, hidden.squeeze(0)

    class Seq2Seq(nn.Module):
        def __init__(self, encoder, decoder, device):
            super().__init__()

            self.encoder = encoder
            self.decoder = decoder
            self.device = device

        def forward(self, src, trg, teacher_forcing_ratio = 0.5):

            #src = [src len, batch size]
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
            encoder_outputs, hidden = self.encoder(src)

            #first input to the decoder is the <sos> tokens
            input = trg[0,:]

            for t in range(1, trg_len):

                #insert input token embedding, previous hidden state and all encoder hidden states
                #receive output tensor (predictions) and new hidden state
                output, hidden = self.decoder(input, hidden, encoder_outputs)

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

    INPUT_DIM = input_dim
    OUTPUT_DIM = output_dim
    ENC_EMB_DIM = enc_emb_dim
    DEC_EMB_DIM = dec_emb_dim
    ENC_HID_DIM = enc_hid_dim
    DEC_HID_DIM = dec_hid_dim
    ENC_DROPOUT = enc_dropout
    DEC_DROPOUT = dec_dropout

    attn = Attention(ENC_HID_DIM, DEC_HID_DIM)
    enc = Encoder(INPUT_DIM, ENC_EMB_DIM, ENC_HID_DIM, DEC_HID_DIM, ENC_DROPOUT)
    dec = Decoder(OUTPUT_DIM, DEC_EMB_DIM, ENC_HID_DIM, DEC_HID_DIM, DEC_DROPOUT, attn)

    model = Seq2Seq(enc, dec, device).to(device)

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

    TRG_PAD_IDX = 1  # TRG.vocab.stoi[TRG.pad_token]

    criterion = nn.CrossEntropyLoss(ignore_index = TRG_PAD_IDX)

    def train(model, iterator, optimizer, criterion, clip):

        model.train()

        epoch_loss = 0

        for i, batch in enumerate(iterator):

            src = batch.src
            trg = batch.trg

            optimizer.zero_grad()

            output = model(src, trg)

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

                src = batch.src
                trg = batch.trg

                output = model(src, trg, 0) #turn off teacher forcing

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
            torch.save(model.state_dict(), os.path.join(workdir, 'tut3-model.pt'))

        log(f'Epoch: {epoch+1:02} | Time: {epoch_mins}m {epoch_secs}s')
        log(f'\tTrain Loss: {train_loss:.3f} | Train PPL: {math.exp(train_loss):7.3f}')
        log(f'\t Val. Loss: {valid_loss:.3f} |  Val. PPL: {math.exp(valid_loss):7.3f}')
        results.append([train_loss, valid_loss])

    model.load_state_dict(torch.load(os.path.join(workdir, 'tut3-model.pt')))

    test_loss = evaluate(model, test_iterator, criterion)

    log(f'| Test Loss: {test_loss:.3f} | Test PPL: {math.exp(test_loss):7.3f} |')
    results.append(test_loss)
    results.append(attentions)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, enc_emb_dim=16, dec_emb_dim=16, enc_hid_dim=32, dec_hid_dim=32, batch_size=16, n_train=32,
        n_valid=16, n_test=16, n_epochs=2)

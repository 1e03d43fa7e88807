"""Port of bentrevett/pytorch-seq2seq ``2 - Learning Phrase Representations using RNN
Encoder-Decoder for Statistical Machine Translation.ipynb``: an ``nn.GRU`` encoder whose
final state is the context vector, fed to the ``nn.GRU`` decoder at every step (``cat``
with the embedded token) and to its ``Linear`` head (``cat`` of the embedding, the new
hidden state and the context), teacher forcing, ``init_weights`` (N(0, 0.01)), Adam,
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
run a few tiny batches. ``init_weights``'s ``nn.init.normal_(param.data, mean=0,
std=0.01)`` takes ``param`` (``nn.init`` runs under ``no_grad``; pyad's ``.data`` is the
NumPy array: ``verbatim_data=True`` runs the text's line). The model file goes to
``workdir`` (a temporary directory by default). ``train`` also appends each batch's loss
to the returned results (after the parameter count; then each epoch's train/valid loss
and the test loss).

Run it with ``python examples/ported/bentrevett_gru.py``.
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
        hid_dim=512, enc_dropout=0.5, dec_dropout=0.5, batch_size=128,
        n_train=256, n_valid=128, n_test=128, n_epochs=10, init=None, log=print,
        workdir=None, verbatim_data=False):
    nn = torch.nn
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

    class Encoder(nn.Module):
        def __init__(self, input_dim, emb_dim, hid_dim, dropout):
            super().__init__()

            self.hid_dim = hid_dim

            self.embedding = nn.Embedding(input_dim, emb_dim) #no dropout as only one layer!

            self.rnn = nn.GRU(emb_dim, hid_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, src):

            #src = [src len, batch size]

            embedded = self.dropout(self.embedding(src))

            #embedded = [src len, batch size, emb dim]

            outputs, hidden = self.rnn(embedded) #no cell state!

            #outputs = [src len, batch size, hid dim * n directions]
            #hidden = [n layers * n directions, batch size, hid dim]

            #outputs are always from the top hidden layer

            return hidden

    class Decoder(nn.Module):
        def __init__(self, output_dim, emb_dim, hid_dim, dropout):
            super().__init__()

            self.hid_dim = hid_dim
            self.output_dim = output_dim

            self.embedding = nn.Embedding(output_dim, emb_dim)

            self.rnn = nn.GRU(emb_dim + hid_dim, hid_dim)

            self.fc_out = nn.Linear(emb_dim + hid_dim * 2, output_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, input, hidden, context):

            #input = [batch size]
            #hidden = [n layers * n directions, batch size, hid dim]
            #context = [n layers * n directions, batch size, hid dim]

            #n layers and n directions in the decoder will both always be 1, therefore:
            #hidden = [1, batch size, hid dim]
            #context = [1, batch size, hid dim]

            input = input.unsqueeze(0)

            #input = [1, batch size]

            embedded = self.dropout(self.embedding(input))

            #embedded = [1, batch size, emb dim]

            emb_con = torch.cat((embedded, context), dim = 2)

            #emb_con = [1, batch size, emb dim + hid dim]

            output, hidden = self.rnn(emb_con, hidden)

            #output = [seq len, batch size, hid dim * n directions]
            #hidden = [n layers * n directions, batch size, hid dim]

            #seq len, n layers and n directions will always be 1 in the decoder, therefore:
            #output = [1, batch size, hid dim]
            #hidden = [1, batch size, hid dim]

            output = torch.cat((embedded.squeeze(0), hidden.squeeze(0), context.squeeze(0)),
                               dim = 1)

            #output = [batch size, emb dim + hid dim * 2]

            prediction = self.fc_out(output)

            #prediction = [batch size, output dim]

            return prediction, hidden

    class Seq2Seq(nn.Module):
        def __init__(self, encoder, decoder, device):
            super().__init__()

            self.encoder = encoder
            self.decoder = decoder
            self.device = device

            assert encoder.hid_dim == decoder.hid_dim, \
                "Hidden dimensions of encoder and decoder must be equal!"

        def forward(self, src, trg, teacher_forcing_ratio = 0.5):

            #src = [src len, batch size]
            #trg = [trg len, batch size]
            #teacher_forcing_ratio is probability to use teacher forcing
            #e.g. if teacher_forcing_ratio is 0.75 we use ground-truth inputs 75% of the time

            batch_size = trg.shape[1]
            trg_len = trg.shape[0]
            trg_vocab_size = self.decoder.output_dim

            #tensor to store decoder outputs
            outputs = torch.zeros(trg_len, batch_size, trg_vocab_size).to(self.device)

            #last hidden state of the encoder is the context
            context = self.encoder(src)

            #context also used as the initial hidden state of the decoder
            hidden = context

            #first input to the decoder is the <sos> tokens
            input = trg[0,:]

            for t in range(1, trg_len):

                #insert input token embedding, previous hidden state and the context state
                #receive output tensor (predictions) and new hidden state
                output, hidden = self.decoder(input, hidden, context)

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
    HID_DIM = hid_dim
    ENC_DROPOUT = enc_dropout
    DEC_DROPOUT = dec_dropout

    enc = Encoder(INPUT_DIM, ENC_EMB_DIM, HID_DIM, ENC_DROPOUT)
    dec = Decoder(OUTPUT_DIM, DEC_EMB_DIM, HID_DIM, DEC_DROPOUT)

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    model = Seq2Seq(enc, dec, device).to(device)

    def init_weights(m):
        for name, param in m.named_parameters():
            if verbatim_data:
                nn.init.normal_(param.data, mean=0, std=0.01)
            else:
                nn.init.normal_(param, mean=0, std=0.01)

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
            torch.save(model.state_dict(), os.path.join(workdir, 'tut2-model.pt'))

        log(f'Epoch: {epoch+1:02} | Time: {epoch_mins}m {epoch_secs}s')
        log(f'\tTrain Loss: {train_loss:.3f} | Train PPL: {math.exp(train_loss):7.3f}')
        log(f'\t Val. Loss: {valid_loss:.3f} |  Val. PPL: {math.exp(valid_loss):7.3f}')
        results.append([train_loss, valid_loss])

    model.load_state_dict(torch.load(os.path.join(workdir, 'tut2-model.pt')))

    test_loss = evaluate(model, test_iterator, criterion)

    log(f'| Test Loss: {test_loss:.3f} | Test PPL: {math.exp(test_loss):7.3f} |')
    results.append(test_loss)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, enc_emb_dim=16, dec_emb_dim=16, hid_dim=32, batch_size=16, n_train=32,
        n_valid=16, n_test=16, n_epochs=2)

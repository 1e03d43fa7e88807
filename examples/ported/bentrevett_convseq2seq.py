"""Port of bentrevett/pytorch-seq2seq ``5 - Convolutional Sequence to Sequence
Learning.ipynb``: token and position embeddings, ``nn.Conv1d`` blocks with ``F.glu`` and
scaled residual connections (``torch.sqrt(torch.FloatTensor([0.5]))``), the decoder's
causal left padding (``torch.zeros(...).fill_(trg_pad_idx)`` and ``cat``) and its
attention over the encoder's conved and combined outputs (``torch.matmul``,
``F.softmax(dim=2)``), Adam, ``CrossEntropyLoss(ignore_index=)``, ``clip_grad_norm_``
(``CLIP = 0.1``), the ``train``/``evaluate`` loops on ``trg[:,:-1]`` and
``trg[:,1:].contiguous().view(-1)``, the best ``state_dict`` saved and reloaded for the
test set, and ``translate_sentence`` (greedy decoding that re-runs the decoder on the
growing target) of the notebook's training example 2.

Copyright (c) 2018 Ben Trevett, under the MIT License (see
https://github.com/bentrevett/pytorch-seq2seq/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The notebook's code cells are
the body of ``run``; ``print`` is ``log``; ``display_attention`` (a matplotlib figure)
is dropped and the attention it shows is returned; the validation and test examples'
translations and the BLEU cells are not ported (torchtext's ``bleu_score`` is not
available). torchtext, spaCy and Multi30k are not available: ``Field`` gives the
special tokens and a synthetic vocabulary (``<unk>``, ``<pad>``, ``<sos>``, ``<eos>``,
then ``t4``, ``t5``, ...), the examples are token lists of random lengths
(``np.random`` after the seed cell) and ``bucket_iterator`` is ``BucketIterator`` of the
``batch_first=True`` fields (``[batch, len]`` ``LongTensor``s). The sizes (``EMB_DIM``
256, ``HID_DIM`` 512, 10 blocks each side, kernel 3, dropout 0.25, batch 128, 10 epochs)
are keyword arguments (only hyperparameters); the tests run a few tiny batches. The
model file goes to ``workdir`` (a temporary directory by default). ``train`` also
appends each batch's loss to the returned results (after the parameter count; then each
epoch's train/valid loss, the test loss, and the example's translation and attention).

Run it with ``python examples/ported/bentrevett_convseq2seq.py``.
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
    """``BucketIterator`` of ``batch_first=True`` fields: ``[batch, len]``
    ``LongTensor``s with ``<sos>``/``<eos>`` and ``<pad>`` after the shorter ones."""
    def numericalize(field, tokens, length):
        ids = [field.vocab.stoi[t] for t in [field.init_token] + tokens + [field.eos_token]]
        return ids + [field.vocab.stoi[field.pad_token]] * (length + 2 - len(ids))

    batches = []
    for start in range(0, len(data.examples), batch_size):
        chunk = data.examples[start:start + batch_size]
        batch = types.SimpleNamespace()
        src_max = max(len(x.src) for x in chunk)
        trg_max = max(len(x.trg) for x in chunk)
        batch.src = torch.LongTensor([numericalize(src_field, x.src, src_max) for x in chunk])
        batch.trg = torch.LongTensor([numericalize(trg_field, x.trg, trg_max) for x in chunk])
        batches.append(batch)
    return batches


def run(torch, input_dim=24, output_dim=20, emb_dim=256, hid_dim=512, enc_layers=10,
        dec_layers=10, enc_kernel_size=3, dec_kernel_size=3, enc_dropout=0.25,
        dec_dropout=0.25, batch_size=128, n_train=256, n_valid=128, n_test=128,
        n_epochs=10, init=None, log=print, workdir=None):
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

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    train_iterator = bucket_iterator(torch, train_data, batch_size, SRC, TRG)
    valid_iterator = bucket_iterator(torch, valid_data, batch_size, SRC, TRG)
    test_iterator = bucket_iterator(torch, test_data, batch_size, SRC, TRG)

    class Encoder(nn.Module):
        def __init__(self,
                     input_dim,
                     emb_dim,
                     hid_dim,
                     n_layers,
                     kernel_size,
                     dropout,
                     device,
                     max_length = 100):
            super().__init__()

            assert kernel_size % 2 == 1, "Kernel size must be odd!"

            self.device = device

            self.scale = torch.sqrt(torch.FloatTensor([0.5])).to(device)

            self.tok_embedding = nn.Embedding(input_dim, emb_dim)
            self.pos_embedding = nn.Embedding(max_length, emb_dim)

            self.emb2hid = nn.Linear(emb_dim, hid_dim)
            self.hid2emb = nn.Linear(hid_dim, emb_dim)

            self.convs = nn.ModuleList([nn.Conv1d(in_channels = hid_dim,
                                                  out_channels = 2 * hid_dim,
                                                  kernel_size = kernel_size,
                                                  padding = (kernel_size - 1) // 2)
                                        for _ in range(n_layers)])

            self.dropout = nn.Dropout(dropout)

        def forward(self, src):

            #src = [batch size, src len]

            batch_size = src.shape[0]
            src_len = src.shape[1]

            #create position tensor
            pos = torch.arange(0, src_len).unsqueeze(0).repeat(batch_size, 1).to(self.device)

            #pos = [0, 1, 2, 3, ..., src len - 1]

            #pos = [batch size, src len]

            #embed tokens and positions
            tok_embedded = self.tok_embedding(src)
            pos_embedded = self.pos_embedding(pos)

            #tok_embedded = pos_embedded = [batch size, src len, emb dim]

            #combine embeddings by elementwise summing
            embedded = self.dropout(tok_embedded + pos_embedded)

            #embedded = [batch size, src len, emb dim]

            #pass embedded through linear layer to convert from emb dim to hid dim
            conv_input = self.emb2hid(embedded)

            #conv_input = [batch size, src len, hid dim]

            #permute for convolutional layer
            conv_input = conv_input.permute(0, 2, 1)

            #conv_input = [batch size, hid dim, src len]

            #begin convolutional blocks...

            for i, conv in enumerate(self.convs):

                #pass through convolutional layer
                conved = conv(self.dropout(conv_input))

                #conved = [batch size, 2 * hid dim, src len]

                #pass through GLU activation function
                conved = F.glu(conved, dim = 1)

                #conved = [batch size, hid dim, src len]

                #apply residual connection
                conved = (conved + conv_input) * self.scale

                #conved = [batch size, hid dim, src len]

                #set conv_input to conved for next loop iteration
                conv_input = conved

            #...end convolutional blocks

            #permute and convert back to emb dim
            conved = self.hid2emb(conved.permute(0, 2, 1))

            #conved = [batch size, src len, emb dim]

            #elementwise sum output (conved) and input (embedded) to be used for attention
            combined = (conved + embedded) * self.scale

            #combined = [batch size, src len, emb dim]

            return conved, combined

    class Decoder(nn.Module):
        def __init__(self,
                     output_dim,
                     emb_dim,
                     hid_dim,
                     n_layers,
                     kernel_size,
                     dropout,
                     trg_pad_idx,
                     device,
                     max_length = 100):
            super().__init__()

            self.kernel_size = kernel_size
            self.trg_pad_idx = trg_pad_idx
            self.device = device

            self.scale = torch.sqrt(torch.FloatTensor([0.5])).to(device)

            self.tok_embedding = nn.Embedding(output_dim, emb_dim)
            self.pos_embedding = nn.Embedding(max_length, emb_dim)

            self.emb2hid = nn.Linear(emb_dim, hid_dim)
            self.hid2emb = nn.Linear(hid_dim, emb_dim)

            self.attn_hid2emb = nn.Linear(hid_dim, emb_dim)
            self.attn_emb2hid = nn.Linear(emb_dim, hid_dim)

            self.fc_out = nn.Linear(emb_dim, output_dim)

            self.convs = nn.ModuleList([nn.Conv1d(in_channels = hid_dim,
                                                  out_channels = 2 * hid_dim,
                                                  kernel_size = kernel_size)
                                        for _ in range(n_layers)])

            self.dropout = nn.Dropout(dropout)

        def calculate_attention(self, embedded, conved, encoder_conved, encoder_combined):

            #embedded = [batch size, trg len, emb dim]
            #conved = [batch size, hid dim, trg len]
            #encoder_conved = encoder_combined = [batch size, src len, emb dim]

            #permute and convert back to emb dim
            conved_emb = self.attn_hid2emb(conved.permute(0, 2, 1))

            #conved_emb = [batch size, trg len, emb dim]

            combined = (conved_emb + embedded) * self.scale

            #combined = [batch size, trg len, emb dim]

            energy = torch.matmul(combined, encoder_conved.permute(0, 2, 1))

            #energy = [batch size, trg len, src len]

            attention = F.softmax(energy, dim=2)

            #attention = [batch size, trg len, src len]

            attended_encoding = torch.matmul(attention, encoder_combined)

            #attended_encoding = [batch size, trg len, emd dim]

            #convert from emb dim -> hid dim
            attended_encoding = self.attn_emb2hid(attended_encoding)

            #attended_encoding = [batch size, trg len, hid dim]

            #apply residual connection
            attended_combined = (conved + attended_encoding.permute(0, 2, 1)) * self.scale

            #attended_combined = [batch size, hid dim, trg len]

            return attention, attended_combined

        def forward(self, trg, encoder_conved, encoder_combined):

            #trg = [batch size, trg len]
            #encoder_conved = encoder_combined = [batch size, src len, emb dim]

            batch_size = trg.shape[0]
            trg_len = trg.shape[1]

            #create position tensor
            pos = torch.arange(0, trg_len).unsqueeze(0).repeat(batch_size, 1).to(self.device)

            #pos = [batch size, trg len]

            #embed tokens and positions
            tok_embedded = self.tok_embedding(trg)
            pos_embedded = self.pos_embedding(pos)

            #tok_embedded = [batch size, trg len, emb dim]
            #pos_embedded = [batch size, trg len, emb dim]

            #combine embeddings by elementwise summing
            embedded = self.dropout(tok_embedded + pos_embedded)

            #embedded = [batch size, trg len, emb dim]

            #pass embedded through linear layer to go through emb dim -> hid dim
            conv_input = self.emb2hid(embedded)

            #conv_input = [batch size, trg len, hid dim]

            #permute for convolutional layer
            conv_input = conv_input.permute(0, 2, 1)

            #conv_input = [batch size, hid dim, trg len]

            batch_size = conv_input.shape[0]
            hid_dim = conv_input.shape[1]

            for i, conv in enumerate(self.convs):

                #apply dropout
                conv_input = self.dropout(conv_input)

                #need to pad so decoder can't "cheat"
                padding = torch.zeros(batch_size,
                                      hid_dim,
                                      self.kernel_size - 1).fill_(self.trg_pad_idx).to(self.device)

                padded_conv_input = torch.cat((padding, conv_input), dim = 2)

                #padded_conv_input = [batch size, hid dim, trg len + kernel size - 1]

                #pass through convolutional layer
                conved = conv(padded_conv_input)

                #conved = [batch size, 2 * hid dim, trg len]

                #pass through GLU activation function
                conved = F.glu(conved, dim = 1)

                #conved = [batch size, hid dim, trg len]

                #calculate attention
                attention, conved = self.calculate_attention(embedded,
                                                             conved,
                                                             encoder_conved,
                                                             encoder_combined)

                #attention = [batch size, trg len, src len]

                #apply residual connection
                conved = (conved + conv_input) * self.scale

                #conved = [batch size, hid dim, trg len]

                #set conv_input to conved for next loop iteration
                conv_input = conved

            conved = self.hid2emb(conved.permute(0, 2, 1))

            #conved = [batch size, trg len, emb dim]

            output = self.fc_out(self.dropout(conved))

            #output = [batch size, trg len, output dim]

            return output, attention

    class Seq2Seq(nn.Module):
        def __init__(self, encoder, decoder):
            super().__init__()

            self.encoder = encoder
            self.decoder = decoder

        def forward(self, src, trg):

            #src = [batch size, src len]
            #trg = [batch size, trg len - 1] (<eos> token sliced off the end)

            #calculate z^u (encoder_conved) and (z^u + e) (encoder_combined)
            #encoder_conved is output from final encoder conv. block
            #encoder_combined is encoder_conved plus (elementwise) src embedding plus
            #  positional embeddings
            encoder_conved, encoder_combined = self.encoder(src)

            #encoder_conved = [batch size, src len, emb dim]
            #encoder_combined = [batch size, src len, emb dim]

            #calculate predictions of next words
            #output is a batch of predictions for each word in the trg sentence
            #attention a batch of attention scores across the src sentence for
            #  each word in the trg sentence
            output, attention = self.decoder(trg, encoder_conved, encoder_combined)

            #output = [batch size, trg len - 1, output dim]
            #attention = [batch size, trg len - 1, src len]

            return output, attention

    INPUT_DIM = len(SRC.vocab)
    OUTPUT_DIM = len(TRG.vocab)
    EMB_DIM = emb_dim
    HID_DIM = hid_dim # each conv. layer has 2 * hid_dim filters
    ENC_LAYERS = enc_layers # number of conv. blocks in encoder
    DEC_LAYERS = dec_layers # number of conv. blocks in decoder
    ENC_KERNEL_SIZE = enc_kernel_size # must be odd!
    DEC_KERNEL_SIZE = dec_kernel_size # can be even or odd
    ENC_DROPOUT = enc_dropout
    DEC_DROPOUT = dec_dropout
    TRG_PAD_IDX = TRG.vocab.stoi[TRG.pad_token]

    enc = Encoder(INPUT_DIM, EMB_DIM, HID_DIM, ENC_LAYERS, ENC_KERNEL_SIZE, ENC_DROPOUT, device)
    dec = Decoder(OUTPUT_DIM, EMB_DIM, HID_DIM, DEC_LAYERS, DEC_KERNEL_SIZE, DEC_DROPOUT, TRG_PAD_IDX, device)

    model = Seq2Seq(enc, dec).to(device)
    if init is not None:
        init(model)

    def count_parameters(model):
        return sum(p.numel() for p in model.parameters() if p.requires_grad)

    log(f'The model has {count_parameters(model):,} trainable parameters')
    results.append(count_parameters(model))

    optimizer = optim.Adam(model.parameters())

    criterion = nn.CrossEntropyLoss(ignore_index = TRG_PAD_IDX)

    def train(model, iterator, optimizer, criterion, clip):

        model.train()

        epoch_loss = 0

        for i, batch in enumerate(iterator):

            src = batch.src
            trg = batch.trg

            optimizer.zero_grad()

            output, _ = model(src, trg[:,:-1])

            #output = [batch size, trg len - 1, output dim]
            #trg = [batch size, trg len]

            output_dim = output.shape[-1]

            output = output.contiguous().view(-1, output_dim)
            trg = trg[:,1:].contiguous().view(-1)

            #output = [batch size * trg len - 1, output dim]
            #trg = [batch size * trg len - 1]

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

                output, _ = model(src, trg[:,:-1])

                #output = [batch size, trg len - 1, output dim]
                #trg = [batch size, trg len]

                output_dim = output.shape[-1]

                output = output.contiguous().view(-1, output_dim)
                trg = trg[:,1:].contiguous().view(-1)

                #output = [batch size * trg len - 1, output dim]
                #trg = [batch size * trg len - 1]

                loss = criterion(output, trg)

                epoch_loss += loss.item()

        return epoch_loss / len(iterator)

    def epoch_time(start_time, end_time):
        elapsed_time = end_time - start_time
        elapsed_mins = int(elapsed_time / 60)
        elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
        return elapsed_mins, elapsed_secs

    N_EPOCHS = n_epochs
    CLIP = 0.1

    best_valid_loss = float('inf')

    for epoch in range(N_EPOCHS):

        start_time = time.time()

        train_loss = train(model, train_iterator, optimizer, criterion, CLIP)
        valid_loss = evaluate(model, valid_iterator, criterion)

        end_time = time.time()

        epoch_mins, epoch_secs = epoch_time(start_time, end_time)

        if valid_loss < best_valid_loss:
            best_valid_loss = valid_loss
            torch.save(model.state_dict(), os.path.join(workdir, 'tut5-model.pt'))

        log(f'Epoch: {epoch+1:02} | Time: {epoch_mins}m {epoch_secs}s')
        log(f'\tTrain Loss: {train_loss:.3f} | Train PPL: {math.exp(train_loss):7.3f}')
        log(f'\t Val. Loss: {valid_loss:.3f} |  Val. PPL: {math.exp(valid_loss):7.3f}')
        results.append([train_loss, valid_loss])

    model.load_state_dict(torch.load(os.path.join(workdir, 'tut5-model.pt')))

    test_loss = evaluate(model, test_iterator, criterion)

    log(f'| Test Loss: {test_loss:.3f} | Test PPL: {math.exp(test_loss):7.3f} |')
    results.append(test_loss)

    def translate_sentence(sentence, src_field, trg_field, model, device, max_len = 50):

        model.eval()

        if isinstance(sentence, str):
            nlp = spacy.load('de_core_news_sm')
            tokens = [token.text.lower() for token in nlp(sentence)]
        else:
            tokens = [token.lower() for token in sentence]

        tokens = [src_field.init_token] + tokens + [src_field.eos_token]

        src_indexes = [src_field.vocab.stoi[token] for token in tokens]

        src_tensor = torch.LongTensor(src_indexes).unsqueeze(0).to(device)

        with torch.no_grad():
            encoder_conved, encoder_combined = model.encoder(src_tensor)

        trg_indexes = [trg_field.vocab.stoi[trg_field.init_token]]

        for i in range(max_len):

            trg_tensor = torch.LongTensor(trg_indexes).unsqueeze(0).to(device)

            with torch.no_grad():
                output, attention = model.decoder(trg_tensor, encoder_conved, encoder_combined)

            pred_token = output.argmax(2)[:,-1].item()

            trg_indexes.append(pred_token)

            if pred_token == trg_field.vocab.stoi[trg_field.eos_token]:
                break

        trg_tokens = [trg_field.vocab.itos[i] for i in trg_indexes]

        return trg_tokens[1:], attention

    example_idx = 2

    src = vars(train_data.examples[example_idx])['src']
    trg = vars(train_data.examples[example_idx])['trg']

    log(f'src = {src}')
    log(f'trg = {trg}')

    translation, attention = translate_sentence(src, SRC, TRG, model, device)

    log(f'predicted trg = {translation}')
    results.append(translation)
    results.append(attention.numpy().copy())
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch, emb_dim=16, hid_dim=32, enc_layers=2, dec_layers=2, batch_size=16,
        n_train=32, n_valid=16, n_test=16, n_epochs=2)

"""Port of bentrevett/pytorch-seq2seq ``6 - Attention is All You Need.ipynb``: the
Transformer encoder and decoder (token embeddings scaled by ``sqrt(hid_dim)`` plus learnt
position embeddings, ``MultiHeadAttentionLayer`` with ``view``/``permute`` heads,
``torch.matmul`` scores over ``sqrt(head_dim)``, ``masked_fill(mask == 0, -1e10)``,
``torch.softmax`` and dropout on the attention, ``PositionwiseFeedforwardLayer``,
residual ``LayerNorm``s), the source pad mask and the target pad-and-subsequent mask
(``torch.tril(torch.ones(..., device=...)).bool()`` and ``&``), ``initialize_weights``
(``xavier_uniform_`` of every weight of more than one dimension), Adam (``lr=0.0005``),
``CrossEntropyLoss(ignore_index=)``, ``clip_grad_norm_``, the ``train``/``evaluate``
loops on ``trg[:,:-1]``, the best ``state_dict`` saved and reloaded for the test set,
and ``translate_sentence`` (greedy decoding with the masks) of the notebook's training
example 8.

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
``batch_first=True`` fields. The sizes (``HID_DIM`` 256, 3 layers and 8 heads each side,
``PF_DIM`` 512, dropout 0.1, batch 128, 10 epochs) are keyword arguments (only
hyperparameters); the tests run a few tiny batches. ``initialize_weights``'s
``nn.init.xavier_uniform_(m.weight.data)`` takes ``m.weight`` (pyad's ``.data`` is the
NumPy array: ``verbatim_data=True`` runs the text's line). The model file goes to
``workdir`` (a temporary directory by default). ``train`` also appends each batch's loss
to the returned results (after the parameter count; then each epoch's train/valid loss,
the test loss, and the example's translation and attention).

Run it with ``python examples/ported/bentrevett_transformer.py``.
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


def run(torch, input_dim=24, output_dim=20, hid_dim=256, enc_layers=3, dec_layers=3,
        enc_heads=8, dec_heads=8, enc_pf_dim=512, dec_pf_dim=512, enc_dropout=0.1,
        dec_dropout=0.1, batch_size=128, n_train=256, n_valid=128, n_test=128,
        n_epochs=10, init=None, log=print, workdir=None, verbatim_data=False):
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
                     hid_dim,
                     n_layers,
                     n_heads,
                     pf_dim,
                     dropout,
                     device,
                     max_length = 100):
            super().__init__()

            self.device = device

            self.tok_embedding = nn.Embedding(input_dim, hid_dim)
            self.pos_embedding = nn.Embedding(max_length, hid_dim)

            self.layers = nn.ModuleList([EncoderLayer(hid_dim,
                                                      n_heads,
                                                      pf_dim,
                                                      dropout,
                                                      device)
                                         for _ in range(n_layers)])

            self.dropout = nn.Dropout(dropout)

            self.scale = torch.sqrt(torch.FloatTensor([hid_dim])).to(device)

        def forward(self, src, src_mask):

            #src = [batch size, src len]
            #src_mask = [batch size, 1, 1, src len]

            batch_size = src.shape[0]
            src_len = src.shape[1]

            pos = torch.arange(0, src_len).unsqueeze(0).repeat(batch_size, 1).to(self.device)

            #pos = [batch size, src len]

            src = self.dropout((self.tok_embedding(src) * self.scale) + self.pos_embedding(pos))

            #src = [batch size, src len, hid dim]

            for layer in self.layers:
                src = layer(src, src_mask)

            #src = [batch size, src len, hid dim]

            return src

    class EncoderLayer(nn.Module):
        def __init__(self,
                     hid_dim,
                     n_heads,
                     pf_dim,
                     dropout,
                     device):
            super().__init__()

            self.self_attn_layer_norm = nn.LayerNorm(hid_dim)
            self.ff_layer_norm = nn.LayerNorm(hid_dim)
            self.self_attention = MultiHeadAttentionLayer(hid_dim, n_heads, dropout, device)
            self.positionwise_feedforward = PositionwiseFeedforwardLayer(hid_dim,
                                                                         pf_dim,
                                                                         dropout)
            self.dropout = nn.Dropout(dropout)

        def forward(self, src, src_mask):

            #src = [batch size, src len, hid dim]
            #src_mask = [batch size, 1, 1, src len]

            #self attention
            _src, _ = self.self_attention(src, src, src, src_mask)

            #dropout, residual connection and layer norm
            src = self.self_attn_layer_norm(src + self.dropout(_src))

            #src = [batch size, src len, hid dim]

            #positionwise feedforward
            _src = self.positionwise_feedforward(src)

            #dropout, residual and layer norm
            src = self.ff_layer_norm(src + self.dropout(_src))

            #src = [batch size, src len, hid dim]

            return src

    class MultiHeadAttentionLayer(nn.Module):
        def __init__(self, hid_dim, n_heads, dropout, device):
            super().__init__()

            assert hid_dim % n_heads == 0

            self.hid_dim = hid_dim
            self.n_heads = n_heads
            self.head_dim = hid_dim // n_heads

            self.fc_q = nn.Linear(hid_dim, hid_dim)
            self.fc_k = nn.Linear(hid_dim, hid_dim)
            self.fc_v = nn.Linear(hid_dim, hid_dim)

            self.fc_o = nn.Linear(hid_dim, hid_dim)

            self.dropout = nn.Dropout(dropout)

            self.scale = torch.sqrt(torch.FloatTensor([self.head_dim])).to(device)

        def forward(self, query, key, value, mask = None):

            batch_size = query.shape[0]

            #query = [batch size, query len, hid dim]
            #key = [batch size, key len, hid dim]
            #value = [batch size, value len, hid dim]

            Q = self.fc_q(query)
            K = self.fc_k(key)
            V = self.fc_v(value)

            #Q = [batch size, query len, hid dim]
            #K = [batch size, key len, hid dim]
            #V = [batch size, value len, hid dim]

            Q = Q.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
            K = K.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
            V = V.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)

            #Q = [batch size, n heads, query len, head dim]
            #K = [batch size, n heads, key len, head dim]
            #V = [batch size, n heads, value len, head dim]

            energy = torch.matmul(Q, K.permute(0, 1, 3, 2)) / self.scale

            #energy = [batch size, n heads, query len, key len]

            if mask is not None:
                energy = energy.masked_fill(mask == 0, -1e10)

            attention = torch.softmax(energy, dim = -1)

            #attention = [batch size, n heads, query len, key len]

            x = torch.matmul(self.dropout(attention), V)

            #x = [batch size, n heads, query len, head dim]

            x = x.permute(0, 2, 1, 3).contiguous()

            #x = [batch size, query len, n heads, head dim]

            x = x.view(batch_size, -1, self.hid_dim)

            #x = [batch size, query len, hid dim]

            x = self.fc_o(x)

            #x = [batch size, query len, hid dim]

            return x, attention

    class PositionwiseFeedforwardLayer(nn.Module):
        def __init__(self, hid_dim, pf_dim, dropout):
            super().__init__()

            self.fc_1 = nn.Linear(hid_dim, pf_dim)
            self.fc_2 = nn.Linear(pf_dim, hid_dim)

            self.dropout = nn.Dropout(dropout)

        def forward(self, x):

            #x = [batch size, seq len, hid dim]

            x = self.dropout(torch.relu(self.fc_1(x)))

            #x = [batch size, seq len, pf dim]

            x = self.fc_2(x)

            #x = [batch size, seq len, hid dim]

            return x

    class Decoder(nn.Module):
        def __init__(self,
                     output_dim,
                     hid_dim,
                     n_layers,
                     n_heads,
                     pf_dim,
                     dropout,
                     device,
                     max_length = 100):
            super().__init__()

            self.device = device

            self.tok_embedding = nn.Embedding(output_dim, hid_dim)
            self.pos_embedding = nn.Embedding(max_length, hid_dim)

            self.layers = nn.ModuleList([DecoderLayer(hid_dim,
                                                      n_heads,
                                                      pf_dim,
                                                      dropout,
                                                      device)
                                         for _ in range(n_layers)])

            self.fc_out = nn.Linear(hid_dim, output_dim)

            self.dropout = nn.Dropout(dropout)

            self.scale = torch.sqrt(torch.FloatTensor([hid_dim])).to(device)

        def forward(self, trg, enc_src, trg_mask, src_mask):

            #trg = [batch size, trg len]
            #enc_src = [batch size, src len, hid dim]
            #trg_mask = [batch size, 1, trg len, trg len]
            #src_mask = [batch size, 1, 1, src len]

            batch_size = trg.shape[0]
            trg_len = trg.shape[1]

            pos = torch.arange(0, trg_len).unsqueeze(0).repeat(batch_size, 1).to(self.device)

            #pos = [batch size, trg len]

            trg = self.dropout((self.tok_embedding(trg) * self.scale) + self.pos_embedding(pos))

            #trg = [batch size, trg len, hid dim]

            for layer in self.layers:
                trg, attention = layer(trg, enc_src, trg_mask, src_mask)

            #trg = [batch size, trg len, hid dim]
            #attention = [batch size, n heads, trg len, src len]

            output = self.fc_out(trg)

            #output = [batch size, trg len, output dim]

            return output, attention

    class DecoderLayer(nn.Module):
        def __init__(self,
                     hid_dim,
                     n_heads,
                     pf_dim,
                     dropout,
                     device):
            super().__init__()

            self.self_attn_layer_norm = nn.LayerNorm(hid_dim)
            self.enc_attn_layer_norm = nn.LayerNorm(hid_dim)
            self.ff_layer_norm = nn.LayerNorm(hid_dim)
            self.self_attention = MultiHeadAttentionLayer(hid_dim, n_heads, dropout, device)
            self.encoder_attention = MultiHeadAttentionLayer(hid_dim, n_heads, dropout, device)
            self.positionwise_feedforward = PositionwiseFeedforwardLayer(hid_dim,
                                                                         pf_dim,
                                                                         dropout)
            self.dropout = nn.Dropout(dropout)

        def forward(self, trg, enc_src, trg_mask, src_mask):

            #trg = [batch size, trg len, hid dim]
            #enc_src = [batch size, src len, hid dim]
            #trg_mask = [batch size, 1, trg len, trg len]
            #src_mask = [batch size, 1, 1, src len]

            #self attention
            _trg, _ = self.self_attention(trg, trg, trg, trg_mask)

            #dropout, residual connection and layer norm
            trg = self.self_attn_layer_norm(trg + self.dropout(_trg))

            #trg = [batch size, trg len, hid dim]

            #encoder attention
            _trg, attention = self.encoder_attention(trg, enc_src, enc_src, src_mask)

            #dropout, residual connection and layer norm
            trg = self.enc_attn_layer_norm(trg + self.dropout(_trg))

            #trg = [batch size, trg len, hid dim]

            #positionwise feedforward
            _trg = self.positionwise_feedforward(trg)

            #dropout, residual and layer norm
            trg = self.ff_layer_norm(trg + self.dropout(_trg))

            #trg = [batch size, trg len, hid dim]
            #attention = [batch size, n heads, trg len, src len]

            return trg, attention

    class Seq2Seq(nn.Module):
        def __init__(self,
                     encoder,
                     decoder,
                     src_pad_idx,
                     trg_pad_idx,
                     device):
            super().__init__()

            self.encoder = encoder
            self.decoder = decoder
            self.src_pad_idx = src_pad_idx
            self.trg_pad_idx = trg_pad_idx
            self.device = device

        def make_src_mask(self, src):

            #src = [batch size, src len]

            src_mask = (src != self.src_pad_idx).unsqueeze(1).unsqueeze(2)

            #src_mask = [batch size, 1, 1, src len]

            return src_mask

        def make_trg_mask(self, trg):

            #trg = [batch size, trg len]

            trg_pad_mask = (trg != self.trg_pad_idx).unsqueeze(1).unsqueeze(2)

            #trg_pad_mask = [batch size, 1, 1, trg len]

            trg_len = trg.shape[1]

            trg_sub_mask = torch.tril(torch.ones((trg_len, trg_len), device = self.device)).bool()

            #trg_sub_mask = [trg len, trg len]

            trg_mask = trg_pad_mask & trg_sub_mask

            #trg_mask = [batch size, 1, trg len, trg len]

            return trg_mask

        def forward(self, src, trg):

            #src = [batch size, src len]
            #trg = [batch size, trg len]

            src_mask = self.make_src_mask(src)
            trg_mask = self.make_trg_mask(trg)

            #src_mask = [batch size, 1, 1, src len]
            #trg_mask = [batch size, 1, trg len, trg len]

            enc_src = self.encoder(src, src_mask)

            #enc_src = [batch size, src len, hid dim]

            output, attention = self.decoder(trg, enc_src, trg_mask, src_mask)

            #output = [batch size, trg len, output dim]
            #attention = [batch size, n heads, trg len, src len]

            return output, attention

    INPUT_DIM = len(SRC.vocab)
    OUTPUT_DIM = len(TRG.vocab)
    HID_DIM = hid_dim
    ENC_LAYERS = enc_layers
    DEC_LAYERS = dec_layers
    ENC_HEADS = enc_heads
    DEC_HEADS = dec_heads
    ENC_PF_DIM = enc_pf_dim
    DEC_PF_DIM = dec_pf_dim
    ENC_DROPOUT = enc_dropout
    DEC_DROPOUT = dec_dropout

    enc = Encoder(INPUT_DIM,
                  HID_DIM,
                  ENC_LAYERS,
                  ENC_HEADS,
                  ENC_PF_DIM,
                  ENC_DROPOUT,
                  device)

    dec = Decoder(OUTPUT_DIM,
                  HID_DIM,
                  DEC_LAYERS,
                  DEC_HEADS,
                  DEC_PF_DIM,
                  DEC_DROPOUT,
                  device)

    SRC_PAD_IDX = SRC.vocab.stoi[SRC.pad_token]
    TRG_PAD_IDX = TRG.vocab.stoi[TRG.pad_token]

    model = Seq2Seq(enc, dec, SRC_PAD_IDX, TRG_PAD_IDX, device).to(device)

    def count_parameters(model):
        return sum(p.numel() for p in model.parameters() if p.requires_grad)

    log(f'The model has {count_parameters(model):,} trainable parameters')
    results.append(count_parameters(model))

    def initialize_weights(m):
        if hasattr(m, 'weight') and m.weight.dim() > 1:
            if verbatim_data:
                nn.init.xavier_uniform_(m.weight.data)
            else:
                nn.init.xavier_uniform_(m.weight)

    model.apply(initialize_weights)
    if init is not None:
        init(model)

    LEARNING_RATE = 0.0005

    optimizer = torch.optim.Adam(model.parameters(), lr = LEARNING_RATE)

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
            torch.save(model.state_dict(), os.path.join(workdir, 'tut6-model.pt'))

        log(f'Epoch: {epoch+1:02} | Time: {epoch_mins}m {epoch_secs}s')
        log(f'\tTrain Loss: {train_loss:.3f} | Train PPL: {math.exp(train_loss):7.3f}')
        log(f'\t Val. Loss: {valid_loss:.3f} |  Val. PPL: {math.exp(valid_loss):7.3f}')
        results.append([train_loss, valid_loss])

    model.load_state_dict(torch.load(os.path.join(workdir, 'tut6-model.pt')))

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

        src_mask = model.make_src_mask(src_tensor)

        with torch.no_grad():
            enc_src = model.encoder(src_tensor, src_mask)

        trg_indexes = [trg_field.vocab.stoi[trg_field.init_token]]

        for i in range(max_len):

            trg_tensor = torch.LongTensor(trg_indexes).unsqueeze(0).to(device)

            trg_mask = model.make_trg_mask(trg_tensor)

            with torch.no_grad():
                output, attention = model.decoder(trg_tensor, enc_src, trg_mask, src_mask)

            pred_token = output.argmax(2)[:,-1].item()

            trg_indexes.append(pred_token)

            if pred_token == trg_field.vocab.stoi[trg_field.eos_token]:
                break

        trg_tokens = [trg_field.vocab.itos[i] for i in trg_indexes]

        return trg_tokens[1:], attention

    example_idx = 8

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
    run(torch, hid_dim=32, enc_layers=2, dec_layers=2, enc_heads=4, dec_heads=4,
        enc_pf_dim=64, dec_pf_dim=64, batch_size=16,
        n_train=32, n_valid=16, n_test=16, n_epochs=2)

"""Port of pytorch/examples ``language_translation`` (src/model.py, src/data.py's masks
and main.py's training, validation and greedy decoding): a sequence-to-sequence
``nn.Transformer`` (sequence-first) with ``Embedding``s and a sinusoidal
``PositionalEncoding`` buffer (``register_buffer``, ``[:, 0::2] =`` slice assignment),
``generate_square_subsequent_mask`` (``triu``, ``== 1``, ``.transpose``,
``masked_fill`` with ``-inf``), boolean source and padding masks,
``CrossEntropyLoss(ignore_index=PAD)`` and Adam with the paper's betas and eps, then
greedy decoding (``torch.ones(1, 1).fill_(...).type(torch.long)``, ``torch.max(...,
dim=1)``, ``type_as``).

Ported by changing the imports (``import pyad as torch``). Multi30k and the spaCy
tokenizers are replaced by seeded synthetic token sequences with padding (the target
is the source reversed), the ``DataLoader``s by lists of batches, and the logging,
progress bars and checkpoints are left out. The original's ``Translator.encode`` and
``decode`` pass extra arguments to ``PositionalEncoding.forward`` (which takes one);
here they call it with the embedding alone.

Run it with ``python examples/ported/language_translation.py``.
"""
import math

import numpy as np

PAD_IDX, BOS_IDX, EOS_IDX = 1, 2, 3


def synthetic_batches(n_batches, batch, vocab, seed):
    """(src, tgt) pairs of (length, batch) int64 arrays: ``<bos> words <eos> <pad>...``,
    the target the source's words reversed."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n_batches):
        lengths = rng.randint(2, 7, batch)
        L = lengths.max() + 2
        src = np.full((L, batch), PAD_IDX, dtype=np.int64)
        tgt = np.full((L, batch), PAD_IDX, dtype=np.int64)
        for b, n in enumerate(lengths):
            words = rng.randint(4, vocab, n)
            src[:n + 2, b] = [BOS_IDX, *words, EOS_IDX]
            tgt[:n + 2, b] = [BOS_IDX, *words[::-1], EOS_IDX]
        out.append((src, tgt))
    return out


def run(torch, epochs=2, n_batches=3, batch=4, vocab=14, embed_size=16, attn_heads=2,
        enc_layers=2, dec_layers=2, dim_feedforward=32, dropout=0.0, lr=1e-3, seed=0,
        init=None, log=print):
    """Train ``epochs`` epochs and validate after each; return the training losses, the
    validation losses and the greedy translation of one sentence."""
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(seed)
    DEVICE = torch.device("cpu")

    class PositionalEncoding(nn.Module):
        def __init__(
            self,
            emb_size,
            dropout,
            maxlen=5000
        ):
            super(PositionalEncoding, self).__init__()
            den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
            pos = torch.arange(0, maxlen).reshape(maxlen, 1)
            pos_embedding = torch.zeros((maxlen, emb_size))
            pos_embedding[:, 0::2] = torch.sin(pos * den)
            pos_embedding[:, 1::2] = torch.cos(pos * den)
            pos_embedding = pos_embedding.unsqueeze(-2)

            self.dropout = nn.Dropout(dropout)
            self.register_buffer('pos_embedding', pos_embedding)

        def forward(self, token_embedding):
            return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])

    class Translator(nn.Module):
        def __init__(
                self,
                num_encoder_layers,
                num_decoder_layers,
                embed_size,
                num_heads,
                src_vocab_size,
                tgt_vocab_size,
                dim_feedforward,
                dropout
        ):
            super(Translator, self).__init__()

            # Output of embedding must be equal (embed_size)
            self.src_embedding = nn.Embedding(src_vocab_size, embed_size)
            self.tgt_embedding = nn.Embedding(tgt_vocab_size, embed_size)

            self.pos_enc = PositionalEncoding(embed_size, dropout, maxlen=64)

            self.transformer = nn.Transformer(
                d_model=embed_size,
                nhead=num_heads,
                num_encoder_layers=num_encoder_layers,
                num_decoder_layers=num_decoder_layers,
                dim_feedforward=dim_feedforward,
                dropout=dropout
            )

            self.ff = nn.Linear(embed_size, tgt_vocab_size)

        def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):

            src_emb = self.pos_enc(self.src_embedding(src))
            tgt_emb = self.pos_enc(self.tgt_embedding(trg))

            outs = self.transformer(
                src_emb,
                tgt_emb,
                src_mask,
                tgt_mask,
                None,
                src_padding_mask,
                tgt_padding_mask,
                memory_key_padding_mask
            )

            return self.ff(outs)

        def encode(self, src, src_mask):
            embed = self.src_embedding(src)
            pos_enc = self.pos_enc(embed)
            return self.transformer.encoder(pos_enc, src_mask)

        def decode(self, tgt, memory, tgt_mask):
            embed = self.tgt_embedding(tgt)
            pos_enc = self.pos_enc(embed)
            return self.transformer.decoder(pos_enc, memory, tgt_mask)

    def generate_square_subsequent_mask(size, device):
        mask = (torch.triu(torch.ones((size, size), device=device)) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
        return mask

    def create_mask(src, tgt, pad_idx, device):
        src_seq_len = src.shape[0]
        tgt_seq_len = tgt.shape[0]

        tgt_mask = generate_square_subsequent_mask(tgt_seq_len, device)
        src_mask = torch.zeros((src_seq_len, src_seq_len), device=device).type(torch.bool)

        src_padding_mask = (src == pad_idx).transpose(0, 1)
        tgt_padding_mask = (tgt == pad_idx).transpose(0, 1)
        return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask

    def greedy_decode(model, src, src_mask, max_len, start_symbol, end_symbol):
        src = src.to(DEVICE)
        src_mask = src_mask.to(DEVICE)

        memory = model.encode(src, src_mask)
        ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)

        for _ in range(max_len-1):
            memory = memory.to(DEVICE)
            tgt_mask = (generate_square_subsequent_mask(ys.size(0), DEVICE).type(torch.bool)).to(DEVICE)
            out = model.decode(ys, memory, tgt_mask)

            out = out.transpose(0, 1)

            prob = model.ff(out[:, -1])
            _, next_word = torch.max(prob, dim=1)
            next_word = next_word.item()

            ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
            if next_word == end_symbol:
                break

        return ys

    def train(model, train_dl, loss_fn, optim, special_symbols):
        losses = []
        model.train()
        for src, tgt in train_dl:
            src = src.to(DEVICE)
            tgt = tgt.to(DEVICE)

            tgt_input = tgt[:-1, :]

            src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, special_symbols["<pad>"], DEVICE)

            logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)

            optim.zero_grad()

            tgt_out = tgt[1:, :]

            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            loss.backward()

            optim.step()
            losses.append(loss.item())
        return losses

    def validate(model, valid_dl, loss_fn, special_symbols):
        losses = 0
        model.eval()

        for src, tgt in valid_dl:
            src = src.to(DEVICE)
            tgt = tgt.to(DEVICE)

            tgt_input = tgt[:-1, :]

            src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, special_symbols["<pad>"], DEVICE)

            logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)

            tgt_out = tgt[1:, :]
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            losses += loss.item()

        return losses / len(list(valid_dl))

    special_symbols = {"<pad>": PAD_IDX, "<bos>": BOS_IDX, "<eos>": EOS_IDX}
    train_dl = [(torch.from_numpy(s), torch.from_numpy(t))
                for s, t in synthetic_batches(n_batches, batch, vocab, seed)]
    valid_dl = [(torch.from_numpy(s), torch.from_numpy(t))
                for s, t in synthetic_batches(2, batch, vocab, seed + 1)]

    model = Translator(
        num_encoder_layers=enc_layers,
        num_decoder_layers=dec_layers,
        embed_size=embed_size,
        num_heads=attn_heads,
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
        dim_feedforward=dim_feedforward,
        dropout=dropout
    ).to(DEVICE)
    if init is not None:
        init(model)

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=special_symbols["<pad>"])
    optim = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)

    results = []
    for epoch in range(1, epochs + 1):
        train_loss = train(model, train_dl, loss_fn, optim, special_symbols)
        val_loss = validate(model, valid_dl, loss_fn, special_symbols)
        results += train_loss + [val_loss]
        log(f"Epoch: {epoch}\n\tTrain loss: {np.mean(train_loss):.3f}\n\tVal loss: {val_loss:.3f}")

    # translate one sentence, as main.py's inference loop
    model.eval()
    src = valid_dl[0][0][:, :1]
    src = src[src != PAD_IDX].view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    tgt_tokens = greedy_decode(
        model, src, src_mask, max_len=num_tokens+5, start_symbol=BOS_IDX, end_symbol=EOS_IDX
    ).flatten()
    output_as_list = list(tgt_tokens.cpu().numpy())
    log(f"translation: {output_as_list}")
    return results + [float(t) for t in output_as_list]


if __name__ == "__main__":
    import pyad
    run(pyad, epochs=4)

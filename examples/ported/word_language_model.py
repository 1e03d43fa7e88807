"""Port of pytorch/examples ``word_language_model`` (model.py and main.py's training loop):
an LSTM, GRU, RNN_TANH/RNN_RELU or Transformer language model trained by truncated
backpropagation through time with gradient clipping and plain SGD.

Ported by changing the imports (``import pyad as torch``); the corpus is a synthetic
token stream of the same form (integers below ``ntokens``) instead of Wikitext-2, and a
few batches are run. The parameter update ``p.data.add_(p.grad, alpha=-lr)`` is written
``with torch.no_grad(): p.add_(p.grad, alpha=-lr)`` (pyad's ``.data`` is the array).

Run it with ``python examples/ported/word_language_model.py [--model Transformer]``.
"""
import argparse
import math

import numpy as np


def build(torch):
    """The model classes of model.py, for the namespace ``torch``."""
    nn = torch.nn
    F = torch.nn.functional

    class RNNModel(nn.Module):
        """An embedding, a recurrent module and a linear decoder."""

        def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5,
                     tie_weights=False):
            super().__init__()
            self.ntoken = ntoken
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            if rnn_type in ("LSTM", "GRU"):
                self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
            else:
                nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
                self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity,
                                  dropout=dropout)
            self.decoder = nn.Linear(nhid, ntoken)
            if tie_weights:
                if nhid != ninp:
                    raise ValueError("When using the tied flag, nhid must be equal to emsize")
                self.decoder.weight = self.encoder.weight
            self.init_weights()
            self.rnn_type = rnn_type
            self.nhid = nhid
            self.nlayers = nlayers

        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.encoder.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output)
            decoded = decoded.view(-1, self.ntoken)
            return F.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            if self.rnn_type == "LSTM":
                return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                        weight.new_zeros(self.nlayers, bsz, self.nhid))
            return weight.new_zeros(self.nlayers, bsz, self.nhid)

    class PositionalEncoding(nn.Module):
        """Sine and cosine position codes added to the embeddings."""

        def __init__(self, d_model, dropout=0.1, max_len=5000):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2).float()
                                 * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            pe = pe.unsqueeze(0).transpose(0, 1)
            self.register_buffer("pe", pe)

        def forward(self, x):
            x = x + self.pe[:x.size(0), :]
            return self.dropout(x)

    class TransformerModel(nn.Transformer):
        """A Transformer encoder language model (nn.Transformer's decoder replaced by a
        linear layer, as in the original)."""

        def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
            super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                             num_encoder_layers=nlayers, dropout=dropout)
            self.model_type = "Transformer"
            self.src_mask = None
            self.pos_encoder = PositionalEncoding(ninp, dropout)
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.ninp = ninp
            self.decoder = nn.Linear(ninp, ntoken)
            self.init_weights()

        def _generate_square_subsequent_mask(self, sz):
            mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
            return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(
                mask == 1, float(0.0))

        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, src, has_mask=True):
            if has_mask:
                if self.src_mask is None or self.src_mask.size(0) != len(src):
                    self.src_mask = self._generate_square_subsequent_mask(len(src))
            else:
                self.src_mask = None
            src = self.input_emb(src) * math.sqrt(self.ninp)
            src = self.pos_encoder(src)
            output = self.encoder(src, mask=self.src_mask)
            output = self.decoder(output)
            return F.log_softmax(output, dim=-1)

    return RNNModel, TransformerModel


def run(torch, model_type="LSTM", ntokens=100, emsize=32, nhid=32, nlayers=2, nhead=2,
        lr=20.0, clip=0.25, bptt=10, batch_size=4, corpus_len=200, dropout=0.2,
        tied=False, steps=None, seed=1111, init=None, log=print):
    """Train on a synthetic corpus; return the training loss of every batch.

    ``init(model)``, when given, is called once the model is built (the test copies
    torch's initial weights into pyad's model there)."""
    nn = torch.nn
    torch.manual_seed(seed)
    RNNModel, TransformerModel = build(torch)
    # a synthetic corpus: a noisy repeating pattern of token ids, so there is something
    # to learn
    rng = np.random.RandomState(seed)
    pattern = rng.randint(0, ntokens, 17)
    stream = np.where(rng.rand(corpus_len) < 0.8, np.resize(pattern, corpus_len),
                      rng.randint(0, ntokens, corpus_len))
    corpus = torch.from_numpy(stream.astype(np.int64))

    def batchify(data, bsz):
        nbatch = data.size(0) // bsz
        data = data.narrow(0, 0, nbatch * bsz)
        return data.view(bsz, -1).t().contiguous()

    train_data = batchify(corpus, batch_size)

    if model_type == "Transformer":
        model = TransformerModel(ntokens, emsize, nhead, nhid, nlayers, dropout)
    else:
        model = RNNModel(model_type, ntokens, emsize, nhid, nlayers, dropout, tied)
    if init is not None:
        init(model)
    criterion = nn.NLLLoss()

    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)

    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i)
        data = source[i:i + seq_len]
        target = source[i + 1:i + 1 + seq_len].view(-1)
        return data, target

    model.train()
    losses = []
    if model_type != "Transformer":
        hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        if steps is not None and batch >= steps:
            break
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        if model_type == "Transformer":
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
        log("| batch %3d | loss %5.2f | ppl %8.2f" % (batch, loss.item(),
                                                     math.exp(loss.item())))
    return losses


if __name__ == "__main__":
    import pyad as torch
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="LSTM",
                        help="RNN_TANH, RNN_RELU, LSTM, GRU or Transformer")
    parser.add_argument("--steps", type=int, default=None)
    args = parser.parse_args()
    losses = run(torch, model_type=args.model, steps=args.steps)
    print("first loss %.4f, last loss %.4f (%d batches)" % (losses[0], losses[-1],
                                                              len(losses)))

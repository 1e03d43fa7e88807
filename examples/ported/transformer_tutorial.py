"""Port of pytorch/tutorials ``beginner_source/transformer_tutorial.py`` ("Language
Modeling with ``nn.Transformer`` and torchtext"): a ``TransformerModel`` (``Embedding``
scaled by ``sqrt(d_model)``, the sine/cosine ``PositionalEncoding`` buffer written
through strided slices, ``nn.TransformerEncoder`` of ``TransformerEncoderLayer``s, a
``Linear`` head) trained by SGD with ``clip_grad_norm_`` and a ``StepLR`` of step size
``1.0``; ``batchify``/``get_batch`` over a flat token stream, ``evaluate`` in eval mode,
the best model's ``state_dict`` saved to a ``TemporaryDirectory`` and loaded back for
the test set.

Ported by changing the imports (``import pyad as torch``; ``from torch import nn,
Tensor`` and ``from torch.nn import TransformerEncoder, TransformerEncoderLayer`` are
attribute lookups on ``run``'s namespace). WikiText-2 and torchtext's tokenizer and
vocabulary are replaced by synthetic token streams (a noisy periodic sequence over a
small vocabulary, so the model has something to learn); the sizes (``emsize``,
``d_hid``, ``bptt``, the batch sizes) are small and the timings are not printed. The
original's ``init_weights`` writes through ``.data`` (``weight.data.uniform_``,
``bias.data.zero_()``): in pyad ``.data`` is the NumPy array, so the default writes the
same calls under ``with torch.no_grad():``; ``data_init=True`` runs the original lines.

Run it with ``python examples/ported/transformer_tutorial.py``.
"""
import math
import os
import time
from tempfile import TemporaryDirectory
from typing import Tuple

import numpy as np


def run(torch, ntokens=40, emsize=32, d_hid=32, nlayers=2, nhead=2, dropout=0.2,
        batch_size=4, eval_batch_size=3, bptt=8, n_train=4 * 8 * 4 + 1, n_val=3 * 8 * 2,
        n_test=3 * 8 * 2, epochs=3, lr=5.0, seed=0, data_init=False, init=None,
        log=print):
    """Train for ``epochs``; return every training loss, each epoch's validation loss
    and the best model's test loss."""
    nn, Tensor = torch.nn, torch.Tensor
    TransformerEncoder = torch.nn.TransformerEncoder
    TransformerEncoderLayer = torch.nn.TransformerEncoderLayer
    dataset = torch.utils.data.dataset
    results = []

    class TransformerModel(nn.Module):

        def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int,
                     nlayers: int, dropout: float = 0.5):
            super().__init__()
            self.model_type = 'Transformer'
            self.pos_encoder = PositionalEncoding(d_model, dropout)
            encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
            self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
            self.embedding = nn.Embedding(ntoken, d_model)
            self.d_model = d_model
            self.linear = nn.Linear(d_model, ntoken)

            self.init_weights()

        def init_weights(self) -> None:
            initrange = 0.1
            if data_init:
                self.embedding.weight.data.uniform_(-initrange, initrange)
                self.linear.bias.data.zero_()
                self.linear.weight.data.uniform_(-initrange, initrange)
            else:
                with torch.no_grad():
                    self.embedding.weight.uniform_(-initrange, initrange)
                    self.linear.bias.zero_()
                    self.linear.weight.uniform_(-initrange, initrange)

        def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
            """
            Arguments:
                src: Tensor, shape ``[seq_len, batch_size]``
                src_mask: Tensor, shape ``[seq_len, seq_len]``

            Returns:
                output Tensor of shape ``[seq_len, batch_size, ntoken]``
            """
            src = self.embedding(src) * math.sqrt(self.d_model)
            src = self.pos_encoder(src)
            output = self.transformer_encoder(src, src_mask)
            output = self.linear(output)
            return output

    class PositionalEncoding(nn.Module):

        def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)

            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer('pe', pe)

        def forward(self, x: Tensor) -> Tensor:
            """
            Arguments:
                x: Tensor, shape ``[seq_len, batch_size, embedding_dim]``
            """
            x = x + self.pe[:x.size(0)]
            return self.dropout(x)

    # synthetic "WikiText-2": token streams that mostly repeat a period-7 pattern
    rng = np.random.RandomState(seed)
    pattern = rng.randint(1, ntokens, 7)

    def text(n):
        tokens = pattern[np.arange(n) % 7].copy()
        noise = rng.rand(n) < 0.2
        tokens[noise] = rng.randint(0, ntokens, noise.sum())
        return tokens

    def data_process(raw_text_iter: dataset.IterableDataset) -> Tensor:
        """Converts raw text into a flat Tensor."""
        data = [torch.tensor(item, dtype=torch.long) for item in raw_text_iter]
        return torch.cat(tuple(filter(lambda t: t.numel() > 0, data)))

    # a few "lines" per split, one of them empty (filtered out as the original's)
    train_data = data_process([text(n_train // 2), text(0), text(n_train - n_train // 2)])
    val_data = data_process([text(n_val)])
    test_data = data_process([text(n_test)])

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    def batchify(data: Tensor, bsz: int) -> Tensor:
        """Divides the data into ``bsz`` separate sequences, removing extra elements
        that wouldn't cleanly fit.

        Arguments:
            data: Tensor, shape ``[N]``
            bsz: int, batch size

        Returns:
            Tensor of shape ``[N // bsz, bsz]``
        """
        seq_len = data.size(0) // bsz
        data = data[:seq_len * bsz]
        data = data.view(bsz, seq_len).t().contiguous()
        return data.to(device)

    train_data = batchify(train_data, batch_size)  # shape ``[seq_len, batch_size]``
    val_data = batchify(val_data, eval_batch_size)
    test_data = batchify(test_data, eval_batch_size)

    def get_batch(source: Tensor, i: int) -> Tuple[Tensor, Tensor]:
        """
        Args:
            source: Tensor, shape ``[full_seq_len, batch_size]``
            i: int

        Returns:
            tuple (data, target), where data has shape ``[seq_len, batch_size]`` and
            target has shape ``[seq_len * batch_size]``
        """
        seq_len = min(bptt, len(source) - 1 - i)
        data = source[i:i+seq_len]
        target = source[i+1:i+1+seq_len].reshape(-1)
        return data, target

    model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, dropout).to(device)
    if init is not None:
        init(model)

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)

    def train(model: nn.Module) -> None:
        model.train()  # turn on train mode
        total_loss = 0.
        log_interval = 2
        start_time = time.time()

        num_batches = len(train_data) // bptt
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            data, targets = get_batch(train_data, i)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            loss = criterion(output_flat, targets)

            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()

            results.append(loss.item())
            total_loss += loss.item()
            if batch % log_interval == 0 and batch > 0:
                lr = scheduler.get_last_lr()[0]
                ms_per_batch = (time.time() - start_time) * 1000 / log_interval
                cur_loss = total_loss / log_interval
                ppl = math.exp(cur_loss)
                log(f'| epoch {epoch:3d} | {batch:5d}/{num_batches:5d} batches | '
                    f'lr {lr:02.2f} | ms/batch {ms_per_batch:5.2f} | '
                    f'loss {cur_loss:5.2f} | ppl {ppl:8.2f}')
                total_loss = 0
                start_time = time.time()

    def evaluate(model: nn.Module, eval_data: Tensor) -> float:
        model.eval()  # turn on evaluation mode
        total_loss = 0.
        with torch.no_grad():
            for i in range(0, eval_data.size(0) - 1, bptt):
                data, targets = get_batch(eval_data, i)
                seq_len = data.size(0)
                output = model(data)
                output_flat = output.view(-1, ntokens)
                total_loss += seq_len * criterion(output_flat, targets).item()
        return total_loss / (len(eval_data) - 1)

    best_val_loss = float('inf')

    with TemporaryDirectory() as tempdir:
        best_model_params_path = os.path.join(tempdir, "best_model_params.pt")

        for epoch in range(1, epochs + 1):
            epoch_start_time = time.time()
            train(model)
            val_loss = evaluate(model, val_data)
            results.append(val_loss)
            val_ppl = math.exp(val_loss)
            elapsed = time.time() - epoch_start_time
            log('-' * 89)
            log(f'| end of epoch {epoch:3d} | time: {elapsed:5.2f}s | '
                f'valid loss {val_loss:5.2f} | valid ppl {val_ppl:8.2f}')
            log('-' * 89)

            if val_loss < best_val_loss:
                best_val_loss = val_loss
                torch.save(model.state_dict(), best_model_params_path)

            scheduler.step()
        model.load_state_dict(torch.load(best_model_params_path))  # load best model states

    test_loss = evaluate(model, test_data)
    results.append(test_loss)
    test_ppl = math.exp(test_loss)
    log('=' * 89)
    log(f'| End of training | test loss {test_loss:5.2f} | '
        f'test ppl {test_ppl:8.2f}')
    log('=' * 89)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

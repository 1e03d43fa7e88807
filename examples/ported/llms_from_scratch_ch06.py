"""Port of rasbt/LLMs-from-scratch, chapter 6 (``pkg/llms_from_scratch/ch06.py`` and the
chapter's ``gpt_class_finetune.py`` main): ``SpamDataset``, ``calc_accuracy_loader``,
``calc_loss_batch``/``calc_loss_loader`` on the last token's logits, ``evaluate_model``,
``train_classifier_simple`` and ``classify_review``, fine-tuning chapter 4's
``GPTModel`` with a new two-class ``out_head``, every parameter frozen but the last
transformer block's, the final norm's and the head's (``requires_grad = False``), trained
by ``AdamW``.

Copyright (c) Sebastian Raschka, under the Apache License 2.0 (see
https://github.com/rasbt/LLMs-from-scratch/blob/main/LICENSE.txt). Source for "Build a
Large Language Model From Scratch" (https://www.manning.com/books/build-a-large-language-model-from-scratch).

Ported by changing the imports (``import pyad as torch``): the module's classes and
functions are the body of ``build(torch)``. The SMS Spam Collection download is
replaced by synthetic "spam" and "ham" messages drawn with NumPy, written as CSV text
into ``io.StringIO`` files; pandas (not a pyad dependency) by a small CSV reader with the
three things ``SpamDataset`` asks of its frame (``data["Text"]``, ``data.iloc[i]["Label"]``,
``len(data)``); tiktoken by chapter 5's character tokenizer (the pad token
``<|endoftext|>``, GPT-2's 50256, is the tokenizer's last id); the pretrained GPT-2
weights by chapter 4's ``TINY_CONFIG`` model (context length 64, ``qkv_bias``) from a seed; ``print`` is ``log``. The
download helpers, ``create_balanced_dataset``/``random_split`` (pandas) and the plots
are left out.

Run it with ``python examples/ported/llms_from_scratch_ch06.py``.
"""
import csv
import importlib.util
import io
import os
import types

import numpy as np


def _sibling(name):
    spec = importlib.util.spec_from_file_location(
        "_llms_from_scratch_" + name, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "llms_from_scratch_" + name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Frame:
    """The part of a pandas ``DataFrame`` that ``SpamDataset`` uses."""

    def __init__(self, rows):
        self.rows = rows
        self.iloc = rows

    def __getitem__(self, column):
        return [row[column] for row in self.rows]

    def __len__(self):
        return len(self.rows)


def _read_csv(csv_file):
    rows = list(csv.DictReader(csv_file))
    for row in rows:
        row["Label"] = int(row["Label"])
    return _Frame(rows)


pd = types.SimpleNamespace(read_csv=_read_csv)


def synthetic_messages(n, seed):
    """``n`` (text, label) pairs: label 1 ("spam") messages use the spam words."""
    rng = np.random.default_rng(seed)
    ham = ["see", "you", "at", "home", "later", "ok", "dinner", "call", "me", "when"]
    spam = ["win", "free", "cash", "prize", "now", "claim", "txt", "urgent", "offer"]
    rows = []
    for i in range(n):
        label = int(rng.random() < 0.5)
        words = spam if label else ham
        k = int(rng.integers(2, 6))
        rows.append((" ".join(words[j] for j in rng.integers(0, len(words), k)), label))
    return rows


def to_csv(rows):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Text", "Label"])
    writer.writerows(rows)
    out.seek(0)
    return out


def build(torch, log=print):
    """ch06.py's classes and functions for the namespace ``torch``."""
    print = log
    Dataset = torch.utils.data.Dataset

    class SpamDataset(Dataset):
        def __init__(self, csv_file, tokenizer, max_length=None, pad_token_id=50256):
            self.data = pd.read_csv(csv_file)

            # Pre-tokenize texts
            self.encoded_texts = [
                tokenizer.encode(text) for text in self.data["Text"]
            ]

            if max_length is None:
                self.max_length = self._longest_encoded_length()
            else:
                self.max_length = max_length
                # Truncate sequences if they are longer than max_length
                self.encoded_texts = [
                    encoded_text[:self.max_length]
                    for encoded_text in self.encoded_texts
                ]

            # Pad sequences to the longest sequence
            self.encoded_texts = [
                encoded_text + [pad_token_id] * (self.max_length - len(encoded_text))
                for encoded_text in self.encoded_texts
            ]

        def __getitem__(self, index):
            encoded = self.encoded_texts[index]
            label = self.data.iloc[index]["Label"]
            return (
                torch.tensor(encoded, dtype=torch.long),
                torch.tensor(label, dtype=torch.long)
            )

        def __len__(self):
            return len(self.data)

        def _longest_encoded_length(self):
            max_length = 0
            for encoded_text in self.encoded_texts:
                encoded_length = len(encoded_text)
                if encoded_length > max_length:
                    max_length = encoded_length
            return max_length

    def calc_accuracy_loader(data_loader, model, device, num_batches=None):
        model.eval()
        correct_predictions, num_examples = 0, 0

        if num_batches is None:
            num_batches = len(data_loader)
        else:
            num_batches = min(num_batches, len(data_loader))
        for i, (input_batch, target_batch) in enumerate(data_loader):
            if i < num_batches:
                input_batch, target_batch = input_batch.to(device), target_batch.to(device)

                with torch.no_grad():
                    logits = model(input_batch)[:, -1, :]  # Logits of last output token
                predicted_labels = torch.argmax(logits, dim=-1)

                num_examples += predicted_labels.shape[0]
                correct_predictions += (predicted_labels == target_batch).sum().item()
            else:
                break
        return correct_predictions / num_examples

    def calc_loss_batch(input_batch, target_batch, model, device):
        input_batch, target_batch = input_batch.to(device), target_batch.to(device)
        logits = model(input_batch)[:, -1, :]  # Logits of last output token
        loss = torch.nn.functional.cross_entropy(logits, target_batch)
        return loss

    def calc_loss_loader(data_loader, model, device, num_batches=None):
        total_loss = 0.
        if len(data_loader) == 0:
            return float("nan")
        elif num_batches is None:
            num_batches = len(data_loader)
        else:
            # Reduce the number of batches to match the total number of batches in the data loader
            # if num_batches exceeds the number of batches in the data loader
            num_batches = min(num_batches, len(data_loader))
        for i, (input_batch, target_batch) in enumerate(data_loader):
            if i < num_batches:
                loss = calc_loss_batch(input_batch, target_batch, model, device)
                total_loss += loss.item()
            else:
                break
        return total_loss / num_batches

    def evaluate_model(model, train_loader, val_loader, device, eval_iter):
        model.eval()
        with torch.no_grad():
            train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)
            val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)
        model.train()
        return train_loss, val_loss

    def train_classifier_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
                                eval_freq, eval_iter):
        # Initialize lists to track losses and examples seen
        train_losses, val_losses, train_accs, val_accs = [], [], [], []
        examples_seen, global_step = 0, -1

        # Main training loop
        for epoch in range(num_epochs):
            model.train()  # Set model to training mode

            for input_batch, target_batch in train_loader:
                optimizer.zero_grad()  # Reset loss gradients from previous batch iteration
                loss = calc_loss_batch(input_batch, target_batch, model, device)
                loss.backward()  # Calculate loss gradients
                optimizer.step()  # Update model weights using loss gradients
                examples_seen += input_batch.shape[0]  # New: track examples instead of tokens
                global_step += 1

                # Optional evaluation step
                if global_step % eval_freq == 0:
                    train_loss, val_loss = evaluate_model(
                        model, train_loader, val_loader, device, eval_iter)
                    train_losses.append(train_loss)
                    val_losses.append(val_loss)
                    print(f"Ep {epoch+1} (Step {global_step:06d}): "
                          f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")

            # Calculate accuracy after each epoch
            train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=eval_iter)
            val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=eval_iter)
            print(f"Training accuracy: {train_accuracy*100:.2f}% | ", end="")
            print(f"Validation accuracy: {val_accuracy*100:.2f}%")
            train_accs.append(train_accuracy)
            val_accs.append(val_accuracy)

        return train_losses, val_losses, train_accs, val_accs, examples_seen

    def classify_review(text, model, tokenizer, device, max_length=None, pad_token_id=50256):
        model.eval()

        # Prepare inputs to the model
        input_ids = tokenizer.encode(text)
        supported_context_length = model.pos_emb.weight.shape[0]
        # Note: In the book, this was originally written as pos_emb.weight.shape[1] by mistake
        # It didn't break the code but would have caused unnecessary truncation (to 768 instead of 1024)

        # Truncate sequences if they too long
        input_ids = input_ids[:min(max_length, supported_context_length)]

        # Pad sequences to the longest sequence
        input_ids += [pad_token_id] * (max_length - len(input_ids))
        input_tensor = torch.tensor(input_ids, device=device).unsqueeze(0) # add batch dimension

        # Model inference
        with torch.no_grad():
            logits = model(input_tensor)[:, -1, :]  # Logits of the last output token
        predicted_label = torch.argmax(logits, dim=-1).item()

        # Return the classified result
        return "spam" if predicted_label == 1 else "not spam"

    return types.SimpleNamespace(**{k: v for k, v in locals().items()
                                    if callable(v) and k != "print"})


def run(torch, init=None, log=print, num_epochs=2, drop_rate=0.0, batch_size=4,
        eval_freq=2, eval_iter=2):
    """``gpt_class_finetune.py``'s main on the synthetic messages; returns every value
    computed."""
    ch05 = _sibling("ch05")
    ch06 = build(torch, log)
    gpt = ch05.build(torch, log)
    tokenizer = ch05.CharTokenizer(sorted(set("abcdefghijklmnopqrstuvwxyz ")) + ["<|endoftext|>"])
    pad_token_id = tokenizer.n_vocab - 1
    BASE_CONFIG = dict(_sibling("ch04").TINY_CONFIG, vocab_size=tokenizer.n_vocab,
                       context_length=64, drop_rate=drop_rate, qkv_bias=True)
    results = {}
    device = torch.device("cpu")

    train_dataset = ch06.SpamDataset(to_csv(synthetic_messages(24, 1)), max_length=None,
                                     tokenizer=tokenizer, pad_token_id=pad_token_id)
    val_dataset = ch06.SpamDataset(to_csv(synthetic_messages(8, 2)),
                                   max_length=train_dataset.max_length,
                                   tokenizer=tokenizer, pad_token_id=pad_token_id)
    assert train_dataset.max_length <= BASE_CONFIG["context_length"]
    results["max_length"] = train_dataset.max_length

    torch.manual_seed(123)
    train_loader = torch.utils.data.DataLoader(
        dataset=train_dataset, batch_size=batch_size, shuffle=True, num_workers=0,
        drop_last=True)
    val_loader = torch.utils.data.DataLoader(
        dataset=val_dataset, batch_size=batch_size, num_workers=0, drop_last=False)

    model = gpt.GPTModel(BASE_CONFIG)
    model.eval()

    # -- Modify and pretrained model
    for param in model.parameters():
        param.requires_grad = False

    torch.manual_seed(123)

    num_classes = 2
    model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
    model.to(device)

    for param in model.trf_blocks[-1].parameters():
        param.requires_grad = True

    for param in model.final_norm.parameters():
        param.requires_grad = True
    if init is not None:
        init(model)
    results["trainable"] = [n for n, p in model.named_parameters() if p.requires_grad]

    # -- Finetune modified model
    torch.manual_seed(123)
    results["initial_accuracy"] = (
        ch06.calc_accuracy_loader(train_loader, model, device, num_batches=eval_iter),
        ch06.calc_accuracy_loader(val_loader, model, device))
    with torch.no_grad():
        results["initial_loss"] = ch06.calc_loss_loader(val_loader, model, device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.1)
    train_losses, val_losses, train_accs, val_accs, examples_seen = ch06.train_classifier_simple(
        model, train_loader, val_loader, optimizer, device,
        num_epochs=num_epochs, eval_freq=eval_freq, eval_iter=eval_iter,
    )
    results.update(train_losses=train_losses, val_losses=val_losses, train_accs=train_accs,
                   val_accs=val_accs, examples_seen=examples_seen)

    # -- Evaluate model
    results["val_accuracy"] = ch06.calc_accuracy_loader(val_loader, model, device)
    results["reviews"] = [ch06.classify_review(text, model, tokenizer, device,
                                               max_length=train_dataset.max_length,
                                               pad_token_id=pad_token_id)
                          for text in ["win free cash now", "see you at home later"]]
    with torch.no_grad():
        results["logits"] = model(next(iter(val_loader))[0])[:, -1, :].numpy().copy()
    results["state"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    results["frozen_grads"] = [p.grad is None for n, p in model.named_parameters()
                               if not p.requires_grad]
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

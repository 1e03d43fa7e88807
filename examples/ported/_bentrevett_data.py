"""Stand-ins for the data pipeline of bentrevett/pytorch-sentiment-analysis's notebooks
(``bentrevett_nbow.py``, ``bentrevett_lstm.py``, ``bentrevett_cnn.py``): Hugging Face
``datasets``' IMDb, torchtext's ``basic_english`` tokenizer,
``build_vocab_from_iterator`` and GloVe vectors, and ``tqdm`` are not available, so the
reviews are seeded integer sequences of the real layout (a list of examples, each a dict
of ``ids``, ``label`` and ``length`` tensors, as ``with_format(type="torch")`` gives) over
a small synthetic vocabulary, and the "pretrained" vectors are seeded normal draws. Every
draw comes from ``np.random``, which each notebook seeds first, so torch and pyad see the
same numbers.
"""
import re

import numpy as np

# the words of the notebooks' predict_sentiment examples first, then filler words
WORDS = ["the", ".", ",", "a", "and", "of", "to", "'", "this", "film", "is", "terrible",
         "great", "not", "it", "s", "!"]


def tokenizer(text):
    """torchtext's ``basic_english``, roughly: lower case, punctuation split off."""
    return re.findall(r"[a-z0-9]+|[^a-z0-9\s]", text.lower())


class Vocab:
    """The part of torchtext's ``Vocab`` the notebooks use."""

    def __init__(self, itos):
        self._itos = list(itos)
        self._stoi = {token: index for index, token in enumerate(self._itos)}
        self._default = None

    def __len__(self):
        return len(self._itos)

    def __contains__(self, token):
        return token in self._stoi

    def __getitem__(self, token):
        if self._default is None:
            return self._stoi[token]
        return self._stoi.get(token, self._default)

    def set_default_index(self, index):
        self._default = index

    def lookup_indices(self, tokens):
        return [self[token] for token in tokens]

    def lookup_tokens(self, indices):
        return [self._itos[index] for index in indices]

    def get_itos(self):
        return list(self._itos)


def build_vocab(vocab_size, specials=("<unk>", "<pad>")):
    """``build_vocab_from_iterator(..., specials=special_tokens)``: the specials first."""
    itos = list(specials) + WORDS
    itos += [f"w{i}" for i in range(max(0, vocab_size - len(itos)))]
    return Vocab(itos[:max(vocab_size, len(specials) + len(WORDS))])


class Dataset(list):
    """A list of examples with ``datasets.Dataset.unique``."""

    def unique(self, column):
        return sorted({int(example[column]) for example in self})

    def train_test_split(self, test_size):
        """A seeded random split, as ``datasets``' (``"test"`` is the validation set)."""
        order = np.random.permutation(len(self))
        n_test = int(np.ceil(test_size * len(self)))
        return {"train": Dataset(self[i] for i in order[n_test:]),
                "test": Dataset(self[i] for i in order[:n_test])}


def synthetic_split(torch, vocab, n, max_length, columns=("ids", "label"), min_length=7):
    """``n`` reviews of ``min_length`` to ``max_length`` token ids (the specials never
    drawn) and a 0/1 label, as ``with_format(type="torch", columns=columns)``."""
    examples = Dataset()
    for _ in range(n):
        length = int(np.random.randint(min_length, max_length + 1))
        example = {"ids": torch.tensor(np.random.randint(2, len(vocab), length)),
                   "label": torch.tensor(np.int64(np.random.randint(0, 2))),
                   "length": torch.tensor(np.int64(length))}
        examples.append({key: example[key] for key in columns})
    return examples


def pretrained_vectors(torch, vocab, dim):
    """``vectors.get_vecs_by_tokens(vocab.get_itos())``: zeros for ``<unk>`` and
    ``<pad>`` (GloVe has neither), seeded normal draws for the rest."""
    vectors = np.random.standard_normal((len(vocab), dim)).astype(np.float32)
    vectors[:2] = 0.0
    return torch.tensor(vectors)


class tqdm:  # noqa: N801 -- tqdm.tqdm(iterable, desc=...) without the progress bar
    @staticmethod
    def tqdm(iterable, desc=None):
        return iterable

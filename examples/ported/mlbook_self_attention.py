"""Port of rasbt/machine-learning-book ``ch16/ch16-part1-self-attention.py`` (Chapter 16,
Transformers -- Improving Natural Language Processing with Attention Mechanisms, part
1): self-attention from scratch on an embedded 8-word sentence: the dot-product scores
by nested loops and by ``matmul``, ``F.softmax`` attention weights and context vectors,
scaled dot-product attention with query, key and value matrices, and the multi-head
projections by ``repeat``, ``torch.bmm``/``matmul`` and ``permute`` into a ``Linear``.

machine-learning-book is MIT-licensed, Copyright (c) 2021 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). The script's cells run in
order in ``run``; the values its notebook cells display (bare expressions) are collected
and returned, with the ``allclose`` checks, and the package-version check is dropped.
``init`` is called with the ``Embedding`` and the ``Linear`` (the tests start pyad's
from torch's weights and draw ``torch.rand`` from one NumPy stream).

Run it with ``python examples/ported/mlbook_self_attention.py``.
"""


def run(torch, init=None, log=print):
    F = torch.nn.functional
    init = init or (lambda model: None)
    shown = {}

    def show(name, value):
        # what a notebook cell displays
        shown[name] = value.detach().numpy().tolist() if hasattr(value, "detach") else (
            list(value) if not isinstance(value, bool) else value)
        return value

    # input sequence / sentence:
    #  "Can you help me to translate this sentence"

    sentence = torch.tensor(
        [0, # can
         7, # you
         1, # help
         2, # me
         5, # to
         6, # translate
         4, # this
         3] # sentence
    )

    show('sentence', sentence)

    torch.manual_seed(123)
    embed = torch.nn.Embedding(10, 16)
    init(embed)
    embedded_sentence = embed(sentence).detach()
    show('embedded_sentence.shape', embedded_sentence.shape)

    omega = torch.empty(8, 8)

    for i, x_i in enumerate(embedded_sentence):
        for j, x_j in enumerate(embedded_sentence):
            omega[i, j] = torch.dot(x_i, x_j)

    omega_mat = embedded_sentence.matmul(embedded_sentence.T)

    show('allclose(omega_mat, omega)', torch.allclose(omega_mat, omega))

    attention_weights = F.softmax(omega, dim=1)
    show('attention_weights.shape', attention_weights.shape)

    show('attention_weights.sum(dim=1)', attention_weights.sum(dim=1))

    x_2 = embedded_sentence[1, :]
    context_vec_2 = torch.zeros(x_2.shape)
    for j in range(8):
        x_j = embedded_sentence[j, :]
        context_vec_2 += attention_weights[1, j] * x_j

    show('context_vec_2', context_vec_2)

    context_vectors = torch.matmul(
            attention_weights, embedded_sentence)

    show('allclose(context_vec_2, context_vectors[1])',
         torch.allclose(context_vec_2, context_vectors[1]))

    # ###  Parameterizing the self-attention mechanism: scaled dot-product attention

    torch.manual_seed(123)

    d = embedded_sentence.shape[1]
    U_query = torch.rand(d, d)
    U_key = torch.rand(d, d)
    U_value = torch.rand(d, d)

    x_2 = embedded_sentence[1]
    query_2 = U_query.matmul(x_2)

    key_2 = U_key.matmul(x_2)
    value_2 = U_value.matmul(x_2)

    keys = U_key.matmul(embedded_sentence.T).T
    show('allclose(key_2, keys[1])', torch.allclose(key_2, keys[1]))

    values = U_value.matmul(embedded_sentence.T).T
    show('allclose(value_2, values[1])', torch.allclose(value_2, values[1]))

    omega_23 = query_2.dot(keys[2])
    show('omega_23', omega_23)

    omega_2 = query_2.matmul(keys.T)
    show('omega_2', omega_2)

    attention_weights_2 = F.softmax(omega_2 / d**0.5, dim=0)
    show('attention_weights_2', attention_weights_2)

    context_vector_2 = attention_weights_2.matmul(values)
    show('context_vector_2', context_vector_2)

    # ###  Encoding context embeddings via multi-head attention

    torch.manual_seed(123)

    d = embedded_sentence.shape[1]
    one_U_query = torch.rand(d, d)

    h = 8
    multihead_U_query = torch.rand(h, d, d)
    multihead_U_key = torch.rand(h, d, d)
    multihead_U_value = torch.rand(h, d, d)

    multihead_query_2 = multihead_U_query.matmul(x_2)
    show('multihead_query_2.shape', multihead_query_2.shape)

    multihead_key_2 = multihead_U_key.matmul(x_2)
    multihead_value_2 = multihead_U_value.matmul(x_2)

    show('multihead_key_2[2]', multihead_key_2[2])

    stacked_inputs = embedded_sentence.T.repeat(8, 1, 1)
    show('stacked_inputs.shape', stacked_inputs.shape)

    multihead_keys = torch.bmm(multihead_U_key, stacked_inputs)
    show('multihead_keys.shape', multihead_keys.shape)

    multihead_keys = multihead_keys.permute(0, 2, 1)
    show('multihead_keys.shape (permuted)', multihead_keys.shape)

    show('multihead_keys[2, 1]', multihead_keys[2, 1]) # index: [2nd attention head, 2nd key]

    multihead_values = torch.matmul(multihead_U_value, stacked_inputs)
    multihead_values = multihead_values.permute(0, 2, 1)
    show('multihead_values', multihead_values)
    show('multihead_value_2', multihead_value_2)

    multihead_z_2 = torch.rand(8, 16)

    linear = torch.nn.Linear(8*16, 16)
    init(linear)
    context_vector_2 = linear(multihead_z_2.flatten())
    show('context_vector_2.shape', context_vector_2.shape)
    show('context_vector_2 (multi-head)', context_vector_2)
    show('one_U_query', one_U_query)
    for name, value in shown.items():
        log(name, value)
    return shown, None


if __name__ == "__main__":
    import pyad as torch
    run(torch)

"""Port of graykode/nlp-tutorial ``5-2.BERT/BERT.py``: BERT's pre-training written out
(token, position and segment embeddings, ``make_batch``'s masked-LM and next-sentence
sampling with Python's ``random``, pad masks, multi-head attention whose output
``Linear`` and ``LayerNorm`` are built inside ``forward``, the erf ``gelu``, the pooled
``[CLS]`` classifier, ``torch.gather`` of the masked positions, a decoder tied to the
token embedding); Adam, then the masked tokens and the isNext verdict it predicts.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (100 in the
text, a few in the tests) and logs every ``print_every`` (10 in the text); the sizes
``n_layers``, ``n_heads``, ``d_model``, ``d_ff`` and ``d_k = d_v`` (6, 12, 768, 3072, 64
in the text) are keyword arguments (narrower in the tests); ``seq_k.data.eq(0)`` and
``.data.max(...)``/``.data.numpy()`` are ``seq_k.detach().eq(0)`` and
``.detach().max(...)``/``.detach().numpy()`` (pyad's ``.data`` is the NumPy array
itself). ``run`` returns the loss of every step, the logits and the predictions.

Run it with ``python examples/ported/graykode_bert.py``.
"""
import math
import re
from random import *
import numpy as np


def run(torch, epochs=100, print_every=10, n_layers=6, n_heads=12, d_model=768,
        d_ff=768 * 4, d_k=64, init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    d_v = d_k
    results = []

    # sample IsNext and NotNext to be same in small batch size
    def make_batch():
        batch = []
        positive = negative = 0
        while positive != batch_size/2 or negative != batch_size/2:
            tokens_a_index, tokens_b_index= randrange(len(sentences)), randrange(len(sentences)) # sample random index in sentences
            tokens_a, tokens_b= token_list[tokens_a_index], token_list[tokens_b_index]
            input_ids = [word_dict['[CLS]']] + tokens_a + [word_dict['[SEP]']] + tokens_b + [word_dict['[SEP]']]
            segment_ids = [0] * (1 + len(tokens_a) + 1) + [1] * (len(tokens_b) + 1)

            # MASK LM
            n_pred =  min(max_pred, max(1, int(round(len(input_ids) * 0.15)))) # 15 % of tokens in one sentence
            cand_maked_pos = [i for i, token in enumerate(input_ids)
                              if token != word_dict['[CLS]'] and token != word_dict['[SEP]']]
            shuffle(cand_maked_pos)
            masked_tokens, masked_pos = [], []
            for pos in cand_maked_pos[:n_pred]:
                masked_pos.append(pos)
                masked_tokens.append(input_ids[pos])
                if random() < 0.8:  # 80%
                    input_ids[pos] = word_dict['[MASK]'] # make mask
                elif random() < 0.5:  # 10%
                    index = randint(0, vocab_size - 1) # random index in vocabulary
                    input_ids[pos] = word_dict[number_dict[index]] # replace

            # Zero Paddings
            n_pad = maxlen - len(input_ids)
            input_ids.extend([0] * n_pad)
            segment_ids.extend([0] * n_pad)

            # Zero Padding (100% - 15%) tokens
            if max_pred > n_pred:
                n_pad = max_pred - n_pred
                masked_tokens.extend([0] * n_pad)
                masked_pos.extend([0] * n_pad)

            if tokens_a_index + 1 == tokens_b_index and positive < batch_size/2:
                batch.append([input_ids, segment_ids, masked_tokens, masked_pos, True]) # IsNext
                positive += 1
            elif tokens_a_index + 1 != tokens_b_index and negative < batch_size/2:
                batch.append([input_ids, segment_ids, masked_tokens, masked_pos, False]) # NotNext
                negative += 1
        return batch
    # Proprecessing Finished

    def get_attn_pad_mask(seq_q, seq_k):
        batch_size, len_q = seq_q.size()
        batch_size, len_k = seq_k.size()
        # eq(zero) is PAD token
        pad_attn_mask = seq_k.detach().eq(0).unsqueeze(1)  # batch_size x 1 x len_k(=len_q), one is masking
        return pad_attn_mask.expand(batch_size, len_q, len_k)  # batch_size x len_q x len_k

    def gelu(x):
        "Implementation of the gelu activation function by Hugging Face"
        return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))

    class Embedding(nn.Module):
        def __init__(self):
            super(Embedding, self).__init__()
            self.tok_embed = nn.Embedding(vocab_size, d_model)  # token embedding
            self.pos_embed = nn.Embedding(maxlen, d_model)  # position embedding
            self.seg_embed = nn.Embedding(n_segments, d_model)  # segment(token type) embedding
            self.norm = nn.LayerNorm(d_model)

        def forward(self, x, seg):
            seq_len = x.size(1)
            pos = torch.arange(seq_len, dtype=torch.long)
            pos = pos.unsqueeze(0).expand_as(x)  # (seq_len,) -> (batch_size, seq_len)
            embedding = self.tok_embed(x) + self.pos_embed(pos) + self.seg_embed(seg)
            return self.norm(embedding)

    class ScaledDotProductAttention(nn.Module):
        def __init__(self):
            super(ScaledDotProductAttention, self).__init__()

        def forward(self, Q, K, V, attn_mask):
            scores = torch.matmul(Q, K.transpose(-1, -2)) / np.sqrt(d_k) # scores : [batch_size x n_heads x len_q(=len_k) x len_k(=len_q)]
            scores.masked_fill_(attn_mask, -1e9) # Fills elements of self tensor with value where mask is one.
            attn = nn.Softmax(dim=-1)(scores)
            context = torch.matmul(attn, V)
            return context, attn

    class MultiHeadAttention(nn.Module):
        def __init__(self):
            super(MultiHeadAttention, self).__init__()
            self.W_Q = nn.Linear(d_model, d_k * n_heads)
            self.W_K = nn.Linear(d_model, d_k * n_heads)
            self.W_V = nn.Linear(d_model, d_v * n_heads)
        def forward(self, Q, K, V, attn_mask):
            # q: [batch_size x len_q x d_model], k: [batch_size x len_k x d_model], v: [batch_size x len_k x d_model]
            residual, batch_size = Q, Q.size(0)
            # (B, S, D) -proj-> (B, S, D) -split-> (B, S, H, W) -trans-> (B, H, S, W)
            q_s = self.W_Q(Q).view(batch_size, -1, n_heads, d_k).transpose(1,2)  # q_s: [batch_size x n_heads x len_q x d_k]
            k_s = self.W_K(K).view(batch_size, -1, n_heads, d_k).transpose(1,2)  # k_s: [batch_size x n_heads x len_k x d_k]
            v_s = self.W_V(V).view(batch_size, -1, n_heads, d_v).transpose(1,2)  # v_s: [batch_size x n_heads x len_k x d_v]

            attn_mask = attn_mask.unsqueeze(1).repeat(1, n_heads, 1, 1) # attn_mask : [batch_size x n_heads x len_q x len_k]

            # context: [batch_size x n_heads x len_q x d_v], attn: [batch_size x n_heads x len_q(=len_k) x len_k(=len_q)]
            context, attn = ScaledDotProductAttention()(q_s, k_s, v_s, attn_mask)
            context = context.transpose(1, 2).contiguous().view(batch_size, -1, n_heads * d_v) # context: [batch_size x len_q x n_heads * d_v]
            output = nn.Linear(n_heads * d_v, d_model)(context)
            return nn.LayerNorm(d_model)(output + residual), attn # output: [batch_size x len_q x d_model]

    class PoswiseFeedForwardNet(nn.Module):
        def __init__(self):
            super(PoswiseFeedForwardNet, self).__init__()
            self.fc1 = nn.Linear(d_model, d_ff)
            self.fc2 = nn.Linear(d_ff, d_model)

        def forward(self, x):
            # (batch_size, len_seq, d_model) -> (batch_size, len_seq, d_ff) -> (batch_size, len_seq, d_model)
            return self.fc2(gelu(self.fc1(x)))

    class EncoderLayer(nn.Module):
        def __init__(self):
            super(EncoderLayer, self).__init__()
            self.enc_self_attn = MultiHeadAttention()
            self.pos_ffn = PoswiseFeedForwardNet()

        def forward(self, enc_inputs, enc_self_attn_mask):
            enc_outputs, attn = self.enc_self_attn(enc_inputs, enc_inputs, enc_inputs, enc_self_attn_mask) # enc_inputs to same Q,K,V
            enc_outputs = self.pos_ffn(enc_outputs) # enc_outputs: [batch_size x len_q x d_model]
            return enc_outputs, attn

    class BERT(nn.Module):
        def __init__(self):
            super(BERT, self).__init__()
            self.embedding = Embedding()
            self.layers = nn.ModuleList([EncoderLayer() for _ in range(n_layers)])
            self.fc = nn.Linear(d_model, d_model)
            self.activ1 = nn.Tanh()
            self.linear = nn.Linear(d_model, d_model)
            self.activ2 = gelu
            self.norm = nn.LayerNorm(d_model)
            self.classifier = nn.Linear(d_model, 2)
            # decoder is shared with embedding layer
            embed_weight = self.embedding.tok_embed.weight
            n_vocab, n_dim = embed_weight.size()
            self.decoder = nn.Linear(n_dim, n_vocab, bias=False)
            self.decoder.weight = embed_weight
            self.decoder_bias = nn.Parameter(torch.zeros(n_vocab))

        def forward(self, input_ids, segment_ids, masked_pos):
            output = self.embedding(input_ids, segment_ids)
            enc_self_attn_mask = get_attn_pad_mask(input_ids, input_ids)
            for layer in self.layers:
                output, enc_self_attn = layer(output, enc_self_attn_mask)
            # output : [batch_size, len, d_model], attn : [batch_size, n_heads, d_mode, d_model]
            # it will be decided by first token(CLS)
            h_pooled = self.activ1(self.fc(output[:, 0])) # [batch_size, d_model]
            logits_clsf = self.classifier(h_pooled) # [batch_size, 2]

            masked_pos = masked_pos[:, :, None].expand(-1, -1, output.size(-1)) # [batch_size, max_pred, d_model]
            # get masked position from final output of transformer.
            h_masked = torch.gather(output, 1, masked_pos) # masking position [batch_size, max_pred, d_model]
            h_masked = self.norm(self.activ2(self.linear(h_masked)))
            logits_lm = self.decoder(h_masked) + self.decoder_bias # [batch_size, max_pred, n_vocab]

            return logits_lm, logits_clsf

    # BERT Parameters
    maxlen = 30 # maximum of length
    batch_size = 6
    max_pred = 5  # max tokens of prediction
    n_segments = 2

    text = (
        'Hello, how are you? I am Romeo.\n'
        'Hello, Romeo My name is Juliet. Nice to meet you.\n'
        'Nice meet you too. How are you today?\n'
        'Great. My baseball team won the competition.\n'
        'Oh Congratulations, Juliet\n'
        'Thanks you Romeo'
    )
    sentences = re.sub("[.,!?\\-]", '', text.lower()).split('\n')  # filter '.', ',', '?', '!'
    word_list = list(set(" ".join(sentences).split()))
    word_dict = {'[PAD]': 0, '[CLS]': 1, '[SEP]': 2, '[MASK]': 3}
    for i, w in enumerate(word_list):
        word_dict[w] = i + 4
    number_dict = {i: w for i, w in enumerate(word_dict)}
    vocab_size = len(word_dict)

    token_list = list()
    for sentence in sentences:
        arr = [word_dict[s] for s in sentence.split()]
        token_list.append(arr)

    model = BERT()
    if init is not None:
        init(model)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)

    batch = make_batch()
    if torch.cuda.is_available():
        input_ids, segment_ids, masked_tokens, masked_pos, isNext = map(torch.cuda.LongTensor, zip(*batch))
    else:
        input_ids, segment_ids, masked_tokens, masked_pos, isNext = map(torch.LongTensor, zip(*batch))

    for epoch in range(epochs):
        optimizer.zero_grad()
        logits_lm, logits_clsf = model(input_ids, segment_ids, masked_pos)
        loss_lm = criterion(logits_lm.transpose(1, 2), masked_tokens) # for masked LM
        loss_lm = (loss_lm.float()).mean()
        loss_clsf = criterion(logits_clsf, isNext) # for sentence classification
        loss = loss_lm + loss_clsf
        if (epoch + 1) % print_every == 0:
            log('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.6f}'.format(loss))
        loss.backward()
        optimizer.step()
        results.append(loss.item())

    # Predict mask tokens ans isNext
    if torch.cuda.is_available():
        input_ids, segment_ids, masked_tokens, masked_pos, isNext = map(torch.cuda.LongTensor, zip(batch[0]))
    else:
        input_ids, segment_ids, masked_tokens, masked_pos, isNext = map(torch.LongTensor, zip(batch[0]))
    log(text)
    log([number_dict[w.item()] for w in input_ids[0] if number_dict[w.item()] != '[PAD]'])

    logits_lm, logits_clsf = model(input_ids, segment_ids, masked_pos)
    results.append(logits_lm.detach().numpy().copy())
    results.append(logits_clsf.detach().numpy().copy())
    logits_lm = logits_lm.detach().max(2)[1][0].detach().numpy()
    log('masked tokens list : ',[pos.item() for pos in masked_tokens[0] if pos.item() != 0])
    log('predict masked tokens list : ',[pos for pos in logits_lm if pos != 0])
    results.append([int(pos) for pos in logits_lm])

    logits_clsf = logits_clsf.detach().max(1)[1].detach().numpy()[0]
    log('isNext : ', True if isNext else False)
    log('predict isNext : ',True if logits_clsf else False)
    results.append(str(bool(logits_clsf)))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

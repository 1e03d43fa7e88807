"""Port of graykode/nlp-tutorial ``5-1.Transformer/Transformer.py``: the Transformer of
"Attention Is All You Need" written out (sinusoid positions in a frozen
``Embedding.from_pretrained``, pad masks from ``eq(0)``, the subsequent mask from
``np.triu`` as ``byte()`` added to a bool mask, ``masked_fill_``, multi-head attention
with a residual ``LayerNorm``, ``Conv1d`` feed-forward layers), trained with teacher
forcing on one German-English sentence pair; Adam, then the argmax words and the first
head's attention of the last layer.

Copyright (c) 2018 TaeHwan Jung, under the MIT License (see
https://github.com/graykode/nlp-tutorial/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The script's ``__main__`` code
is the body of ``run``; ``print`` is ``log``; the loop takes ``epochs`` steps (20 in the
text, a few in the tests); the sizes ``d_model``, ``d_ff``, ``d_k = d_v``, ``n_layers``
and ``n_heads`` (512, 2048, 64, 6, 8 in the text) are keyword arguments (narrower in the
tests); ``seq_k.data.eq(0)``, ``.data.max(1, keepdim=True)`` and ``.data.numpy()`` are
``seq_k.detach().eq(0)``, ``.detach().max(1, keepdim=True)`` and ``.detach().numpy()``
(pyad's ``.data`` is the NumPy array itself). The matplotlib lines of ``showgraph`` are
left out: the attention matrix it shows is computed as written and returned (the
figure, its tick labels and ``plt.show`` are dropped). ``run`` returns the loss of every
step, the predicted words and the three attention matrices.

Run it with ``python examples/ported/graykode_transformer.py``.
"""
import numpy as np


def run(torch, epochs=20, d_model=512, d_ff=2048, d_k=64, n_layers=6, n_heads=8,
        init=None, log=print):
    nn = torch.nn
    optim = torch.optim
    d_v = d_k
    results = []

    # S: Symbol that shows starting of decoding input
    # E: Symbol that shows starting of decoding output
    # P: Symbol that will fill in blank sequence if current batch data size is short than time steps

    def make_batch(sentences):
        input_batch = [[src_vocab[n] for n in sentences[0].split()]]
        output_batch = [[tgt_vocab[n] for n in sentences[1].split()]]
        target_batch = [[tgt_vocab[n] for n in sentences[2].split()]]
        return torch.LongTensor(input_batch), torch.LongTensor(output_batch), torch.LongTensor(target_batch)

    def get_sinusoid_encoding_table(n_position, d_model):
        def cal_angle(position, hid_idx):
            return position / np.power(10000, 2 * (hid_idx // 2) / d_model)
        def get_posi_angle_vec(position):
            return [cal_angle(position, hid_j) for hid_j in range(d_model)]

        sinusoid_table = np.array([get_posi_angle_vec(pos_i) for pos_i in range(n_position)])
        sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
        sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1
        return torch.FloatTensor(sinusoid_table)

    def get_attn_pad_mask(seq_q, seq_k):
        batch_size, len_q = seq_q.size()
        batch_size, len_k = seq_k.size()
        # eq(zero) is PAD token
        pad_attn_mask = seq_k.detach().eq(0).unsqueeze(1)  # batch_size x 1 x len_k(=len_q), one is masking
        return pad_attn_mask.expand(batch_size, len_q, len_k)  # batch_size x len_q x len_k

    def get_attn_subsequent_mask(seq):
        attn_shape = [seq.size(0), seq.size(1), seq.size(1)]
        subsequent_mask = np.triu(np.ones(attn_shape), k=1)
        subsequent_mask = torch.from_numpy(subsequent_mask).byte()
        return subsequent_mask

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
            self.linear = nn.Linear(n_heads * d_v, d_model)
            self.layer_norm = nn.LayerNorm(d_model)

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
            output = self.linear(context)
            return self.layer_norm(output + residual), attn # output: [batch_size x len_q x d_model]

    class PoswiseFeedForwardNet(nn.Module):
        def __init__(self):
            super(PoswiseFeedForwardNet, self).__init__()
            self.conv1 = nn.Conv1d(in_channels=d_model, out_channels=d_ff, kernel_size=1)
            self.conv2 = nn.Conv1d(in_channels=d_ff, out_channels=d_model, kernel_size=1)
            self.layer_norm = nn.LayerNorm(d_model)

        def forward(self, inputs):
            residual = inputs # inputs : [batch_size, len_q, d_model]
            output = nn.ReLU()(self.conv1(inputs.transpose(1, 2)))
            output = self.conv2(output).transpose(1, 2)
            return self.layer_norm(output + residual)

    class EncoderLayer(nn.Module):
        def __init__(self):
            super(EncoderLayer, self).__init__()
            self.enc_self_attn = MultiHeadAttention()
            self.pos_ffn = PoswiseFeedForwardNet()

        def forward(self, enc_inputs, enc_self_attn_mask):
            enc_outputs, attn = self.enc_self_attn(enc_inputs, enc_inputs, enc_inputs, enc_self_attn_mask) # enc_inputs to same Q,K,V
            enc_outputs = self.pos_ffn(enc_outputs) # enc_outputs: [batch_size x len_q x d_model]
            return enc_outputs, attn

    class DecoderLayer(nn.Module):
        def __init__(self):
            super(DecoderLayer, self).__init__()
            self.dec_self_attn = MultiHeadAttention()
            self.dec_enc_attn = MultiHeadAttention()
            self.pos_ffn = PoswiseFeedForwardNet()

        def forward(self, dec_inputs, enc_outputs, dec_self_attn_mask, dec_enc_attn_mask):
            dec_outputs, dec_self_attn = self.dec_self_attn(dec_inputs, dec_inputs, dec_inputs, dec_self_attn_mask)
            dec_outputs, dec_enc_attn = self.dec_enc_attn(dec_outputs, enc_outputs, enc_outputs, dec_enc_attn_mask)
            dec_outputs = self.pos_ffn(dec_outputs)
            return dec_outputs, dec_self_attn, dec_enc_attn

    class Encoder(nn.Module):
        def __init__(self):
            super(Encoder, self).__init__()
            self.src_emb = nn.Embedding(src_vocab_size, d_model)
            self.pos_emb = nn.Embedding.from_pretrained(get_sinusoid_encoding_table(src_len+1, d_model),freeze=True)
            self.layers = nn.ModuleList([EncoderLayer() for _ in range(n_layers)])

        def forward(self, enc_inputs): # enc_inputs : [batch_size x source_len]
            enc_outputs = self.src_emb(enc_inputs) + self.pos_emb(torch.LongTensor([[1,2,3,4,0]]))
            enc_self_attn_mask = get_attn_pad_mask(enc_inputs, enc_inputs)
            enc_self_attns = []
            for layer in self.layers:
                enc_outputs, enc_self_attn = layer(enc_outputs, enc_self_attn_mask)
                enc_self_attns.append(enc_self_attn)
            return enc_outputs, enc_self_attns

    class Decoder(nn.Module):
        def __init__(self):
            super(Decoder, self).__init__()
            self.tgt_emb = nn.Embedding(tgt_vocab_size, d_model)
            self.pos_emb = nn.Embedding.from_pretrained(get_sinusoid_encoding_table(tgt_len+1, d_model),freeze=True)
            self.layers = nn.ModuleList([DecoderLayer() for _ in range(n_layers)])

        def forward(self, dec_inputs, enc_inputs, enc_outputs): # dec_inputs : [batch_size x target_len]
            dec_outputs = self.tgt_emb(dec_inputs) + self.pos_emb(torch.LongTensor([[5,1,2,3,4]]))
            dec_self_attn_pad_mask = get_attn_pad_mask(dec_inputs, dec_inputs)
            dec_self_attn_subsequent_mask = get_attn_subsequent_mask(dec_inputs)
            dec_self_attn_mask = torch.gt((dec_self_attn_pad_mask + dec_self_attn_subsequent_mask), 0)

            dec_enc_attn_mask = get_attn_pad_mask(dec_inputs, enc_inputs)

            dec_self_attns, dec_enc_attns = [], []
            for layer in self.layers:
                dec_outputs, dec_self_attn, dec_enc_attn = layer(dec_outputs, enc_outputs, dec_self_attn_mask, dec_enc_attn_mask)
                dec_self_attns.append(dec_self_attn)
                dec_enc_attns.append(dec_enc_attn)
            return dec_outputs, dec_self_attns, dec_enc_attns

    class Transformer(nn.Module):
        def __init__(self):
            super(Transformer, self).__init__()
            self.encoder = Encoder()
            self.decoder = Decoder()
            self.projection = nn.Linear(d_model, tgt_vocab_size, bias=False)
        def forward(self, enc_inputs, dec_inputs):
            enc_outputs, enc_self_attns = self.encoder(enc_inputs)
            dec_outputs, dec_self_attns, dec_enc_attns = self.decoder(dec_inputs, enc_inputs, enc_outputs)
            dec_logits = self.projection(dec_outputs) # dec_logits : [batch_size x tgt_len x tgt_vocab_size]
            return dec_logits.view(-1, dec_logits.size(-1)), enc_self_attns, dec_self_attns, dec_enc_attns

    def showgraph(attn):
        attn = attn[-1].squeeze(0)[0]
        attn = attn.squeeze(0).detach().numpy()
        # (the matshow figure of `attn`, its tick labels and plt.show() left out)
        results.append(attn.copy())

    sentences = ['ich mochte ein bier P', 'S i want a beer', 'i want a beer E']

    # Transformer Parameters
    # Padding Should be Zero
    src_vocab = {'P': 0, 'ich': 1, 'mochte': 2, 'ein': 3, 'bier': 4}
    src_vocab_size = len(src_vocab)

    tgt_vocab = {'P': 0, 'i': 1, 'want': 2, 'a': 3, 'beer': 4, 'S': 5, 'E': 6}
    number_dict = {i: w for i, w in enumerate(tgt_vocab)}
    tgt_vocab_size = len(tgt_vocab)

    src_len = 5 # length of source
    tgt_len = 5 # length of target

    model = Transformer()
    if init is not None:
        init(model)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)

    enc_inputs, dec_inputs, target_batch = make_batch(sentences)

    for epoch in range(epochs):
        optimizer.zero_grad()
        outputs, enc_self_attns, dec_self_attns, dec_enc_attns = model(enc_inputs, dec_inputs)
        loss = criterion(outputs, target_batch.contiguous().view(-1))
        log('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.6f}'.format(loss))
        loss.backward()
        optimizer.step()
        results.append(loss.item())

    # Test
    predict, _, _, _ = model(enc_inputs, dec_inputs)
    results.append(predict.detach().numpy().copy())
    predict = predict.detach().max(1, keepdim=True)[1]
    log(sentences[0], '->', [number_dict[n.item()] for n in predict.squeeze()])
    results.extend(number_dict[n.item()] for n in predict.squeeze())

    log('first head of last state enc_self_attns')
    showgraph(enc_self_attns)

    log('first head of last state dec_self_attns')
    showgraph(dec_self_attns)

    log('first head of last state dec_enc_attns')
    showgraph(dec_enc_attns)
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)

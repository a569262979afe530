"""A tiny BERT-style sequence classifier: token, position and segment embeddings, encoder
layers of multi-head self-attention (Dense projections, ``BatchMatMul`` scores, softmax
over a padding mask) and a GELU feed-forward network, each followed by a residual add and
LayerNorm, then a tanh pooler on the first token and a Dense head."""

import math

import numpy as np

import msc as ms
from msc import nn, ops

VOCAB, SEQ, HIDDEN, HEADS, LAYERS, FFN, NUM_LABELS = 50, 8, 32, 4, 2, 64, 3


class SelfAttention(nn.Cell):
    def __init__(self, hidden=HIDDEN, heads=HEADS):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Dense(hidden, hidden)
        self.key = nn.Dense(hidden, hidden)
        self.value = nn.Dense(hidden, hidden)
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.context = ops.BatchMatMul()
        self.softmax = nn.Softmax()
        self.scale = 1.0 / math.sqrt(self.head_dim)

    def heads_first(self, x):
        b, s, _ = x.shape
        return ops.transpose(ops.reshape(x, (b, s, self.heads, self.head_dim)), (0, 2, 1, 3))

    def construct(self, x, mask_bias):
        b, s, d = x.shape
        q, k, v = (self.heads_first(f(x)) for f in (self.query, self.key, self.value))
        probs = self.softmax(self.scores(q, k) * self.scale + mask_bias)
        context = ops.transpose(self.context(probs, v), (0, 2, 1, 3))
        return ops.reshape(context, (b, s, d))


class EncoderLayer(nn.Cell):
    def __init__(self, hidden=HIDDEN, heads=HEADS, ffn=FFN):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.attention_out = nn.Dense(hidden, hidden)
        self.attention_norm = nn.LayerNorm((hidden,), epsilon=1e-12)
        self.intermediate = nn.Dense(hidden, ffn, activation=nn.GELU(approximate=False))
        self.output = nn.Dense(ffn, hidden)
        self.output_norm = nn.LayerNorm((hidden,), epsilon=1e-12)

    def construct(self, x, mask_bias):
        x = self.attention_norm(x + self.attention_out(self.attention(x, mask_bias)))
        return self.output_norm(x + self.output(self.intermediate(x)))


class BertClassifier(nn.Cell):
    """``(input_ids, input_mask)``, both int32 (batch, seq); 1 in the mask marks a real
    token. Returns the logits (batch, labels)."""

    def __init__(self, vocab=VOCAB, seq=SEQ, hidden=HIDDEN, layers=LAYERS, labels=NUM_LABELS):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(seq, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.position_ids = ms.Tensor(np.arange(seq, dtype=np.int32)[None])
        self.embedding_norm = nn.LayerNorm((hidden,), epsilon=1e-12)
        self.layers = nn.CellList([EncoderLayer(hidden) for _ in range(layers)])
        self.pooler = nn.Dense(hidden, hidden, activation="tanh")
        self.classifier = nn.Dense(hidden, labels)

    def construct(self, input_ids, input_mask):
        segments = ops.zeros_like(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(self.position_ids) \
            + self.token_type_embeddings(segments)
        x = self.embedding_norm(x)
        keep = ops.cast(ops.reshape(input_mask, (input_mask.shape[0], 1, 1, -1)), ms.float32)
        mask_bias = (1.0 - keep) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return self.classifier(self.pooler(x[:, 0]))

"""A BERT-base-shaped encoder with fewer layers, as MindSpore's model collection writes
BERT: token, position and segment embeddings with LayerNorm, then post-norm encoder
layers (hidden 768, 12 heads, FFN 3072) of multi-head self-attention over a padding mask
and an exact-GELU feed-forward network, each followed by a residual add and LayerNorm.
``BertClassifier`` adds the tanh pooler on the first token and a Dense head, and
``ClassifierLoss`` the sparse softmax cross-entropy a fine-tuning step minimises. No
dropout: every system computes the same numbers. The vocabulary is smaller than BERT's
30522 tokens; the encoder is BERT-base's."""

import math

import numpy as np

import msc as ms
from msc import nn, ops

VOCAB, SEQ, HIDDEN, HEADS, FFN, LAYERS, NUM_LABELS = 8192, 128, 768, 12, 3072, 2, 2


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


class BertEncoder(nn.Cell):
    """``(input_ids, input_mask)``, both int32 (batch, seq); 1 in the mask marks a real
    token. Returns the last layer's hidden states, float32 (batch, seq, hidden)."""

    def __init__(self, layers=LAYERS, vocab=VOCAB, seq=SEQ, hidden=HIDDEN, heads=HEADS,
                 ffn=FFN):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(seq, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.position_ids = ms.Tensor(np.arange(seq, dtype=np.int32)[None])
        self.embedding_norm = nn.LayerNorm((hidden,), epsilon=1e-12)
        self.layers = nn.CellList([EncoderLayer(hidden, heads, ffn) for _ in range(layers)])

    def construct(self, input_ids, input_mask):
        segments = ops.zeros_like(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(self.position_ids) \
            + self.token_type_embeddings(segments)
        x = self.embedding_norm(x)
        keep = ops.cast(ops.reshape(input_mask, (input_mask.shape[0], 1, 1, -1)), ms.float32)
        mask_bias = (1.0 - keep) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x


class BertClassifier(nn.Cell):
    """The encoder, the tanh pooler on the first token and a Dense head: the logits."""

    def __init__(self, layers=LAYERS, labels=NUM_LABELS, vocab=VOCAB, seq=SEQ, hidden=HIDDEN,
                 heads=HEADS, ffn=FFN):
        super().__init__()
        self.bert = BertEncoder(layers, vocab, seq, hidden, heads, ffn)
        self.pooler = nn.Dense(hidden, hidden, activation="tanh")
        self.classifier = nn.Dense(hidden, labels)

    def construct(self, input_ids, input_mask):
        return self.classifier(self.pooler(self.bert(input_ids, input_mask)[:, 0]))


class ClassifierLoss(nn.Cell):
    """The mean sparse softmax cross-entropy of ``net``'s logits against int32 labels."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, input_ids, input_mask, labels):
        return self.loss(self.net(input_ids, input_mask), labels)


def bert2():
    return BertEncoder(2)


def bert4():
    return BertEncoder(4)


def bert2_classifier():
    return BertClassifier(2)

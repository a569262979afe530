"""A tiny GPT: token and learned position embeddings, a stack of pre-norm decoder
blocks (causal multi-head attention with a fused QKV projection, a GELU MLP) and a
language-model head tied to nothing, returning next-token logits; ``NextTokenLoss`` is
the mean sparse softmax cross-entropy a training step minimises, ``gpt_small`` a larger
stack of the same blocks."""

import math

import numpy as np

import msc as ms
from msc import nn, ops

VOCAB, SEQ, DIM, HEADS, LAYERS = 64, 8, 32, 4, 2


class CausalSelfAttention(nn.Cell):
    def __init__(self, dim=DIM, heads=HEADS, seq=SEQ):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.c_attn = nn.Dense(dim, 3 * dim)
        self.c_proj = nn.Dense(dim, dim)
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.bias = ms.Tensor(np.triu(np.full((seq, seq), -1e9, np.float32), k=1))
        self.matmul = ops.BatchMatMul()
        self.matmul_t = ops.BatchMatMul(transpose_b=True)

    def split(self, t):
        b, s, _ = t.shape
        return ops.transpose(ops.reshape(t, (b, s, self.heads, self.head_dim)), (0, 2, 1, 3))

    def construct(self, x):
        b, s, d = x.shape
        q, k, v = ops.split(self.c_attn(x), d, axis=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        att = ops.softmax(self.matmul_t(q, k) * self.scale + self.bias[:s, :s], axis=-1)
        y = ops.transpose(self.matmul(att, v), (0, 2, 1, 3))
        return self.c_proj(ops.reshape(y, (b, s, d)))


class MLP(nn.Cell):
    def __init__(self, dim=DIM):
        super().__init__()
        self.c_fc = nn.Dense(dim, 4 * dim)
        self.gelu = nn.GELU()
        self.c_proj = nn.Dense(4 * dim, dim)

    def construct(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class GPTBlock(nn.Cell):
    def __init__(self, dim=DIM, heads=HEADS, seq=SEQ):
        super().__init__()
        self.ln_1 = nn.LayerNorm((dim,), epsilon=1e-5)
        self.attn = CausalSelfAttention(dim, heads, seq)
        self.ln_2 = nn.LayerNorm((dim,), epsilon=1e-5)
        self.mlp = MLP(dim)

    def construct(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Cell):
    """``input_ids`` int32 (batch, seq <= SEQ) -> logits float32 (batch, seq, vocab)."""

    def __init__(self, vocab=VOCAB, seq=SEQ, dim=DIM, layers=LAYERS, heads=HEADS):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(seq, dim)
        self.blocks = nn.SequentialCell([GPTBlock(dim, heads, seq) for _ in range(layers)])
        self.ln_f = nn.LayerNorm((dim,), epsilon=1e-5)
        self.lm_head = nn.Dense(dim, vocab, has_bias=False)
        self.positions = ms.Tensor(np.arange(seq, dtype=np.int32))

    def construct(self, input_ids):
        s = input_ids.shape[1]
        x = self.wte(input_ids) + self.wpe(self.positions[:s])
        return self.lm_head(self.ln_f(self.blocks(x)))


class NextTokenLoss(nn.Cell):
    """``(input_ids, labels)``, both int32 (batch, seq): the mean sparse softmax
    cross-entropy of ``net``'s logits at every position against the labels."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, input_ids, labels):
        logits = self.net(input_ids)
        return self.loss(ops.reshape(logits, (-1, logits.shape[-1])), ops.reshape(labels, (-1,)))


def gpt_small():
    """Two blocks of width 384 (6 heads) over 128 positions and 2048 tokens."""
    return TinyGPT(vocab=2048, seq=128, dim=384, layers=2, heads=6)

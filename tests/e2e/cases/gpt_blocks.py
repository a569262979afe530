"""A small GPT-like stack for the end-to-end tests, and a second entry in the same file.

``GPTStack`` is three pre-norm transformer blocks (causal multi-head attention and a GELU
MLP) over a (batch, seq, dim) input; it returns the hidden states, a tuple with each
block's keys (nested tuple outputs) and the number of blocks (a constant output).
``gated`` is a ``@jit`` function with an ``input_signature``, so ``msc compile`` can pick
either entry from this file.
"""

import math

import numpy as np

import msc as ms
from msc import nn, ops

BATCH, SEQ, DIM, HEADS, LAYERS = 2, 8, 32, 4, 2


class Block(nn.Cell):
    def __init__(self, dim=DIM, heads=HEADS):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.ln1 = nn.LayerNorm((dim,))
        self.qkv = nn.Dense(dim, 3 * dim)
        self.proj = nn.Dense(dim, dim)
        self.ln2 = nn.LayerNorm((dim,))
        self.fc = nn.Dense(dim, 4 * dim)
        self.out = nn.Dense(4 * dim, dim)
        self.act = nn.GELU()
        mask = np.triu(np.full((SEQ, SEQ), -1e9, np.float32), k=1)
        self.mask = ms.Tensor(mask)

    def split_heads(self, t):
        b, s, _ = t.shape
        t = ops.reshape(t, (b, s, self.heads, self.head_dim))
        t = ops.transpose(t, (0, 2, 1, 3))
        return ops.reshape(t, (b * self.heads, s, self.head_dim))

    def construct(self, x):
        b, s, d = x.shape
        qkv = self.qkv(self.ln1(x))
        q = self.split_heads(qkv[:, :, 0:d])
        k = self.split_heads(qkv[:, :, d:2 * d])
        v = self.split_heads(qkv[:, :, 2 * d:3 * d])
        scores = ops.bmm(q, ops.transpose(k, (0, 2, 1))) * self.scale
        probs = ops.softmax(scores + self.mask, axis=-1)
        att = ops.bmm(probs, v)
        att = ops.transpose(ops.reshape(att, (b, self.heads, s, self.head_dim)), (0, 2, 1, 3))
        x = x + self.proj(ops.reshape(att, (b, s, d)))
        x = x + self.out(self.act(self.fc(self.ln2(x))))
        return x, k


class GPTStack(nn.Cell):
    def __init__(self):
        super().__init__()
        ms.set_seed(7)
        self.blocks = nn.CellList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm((DIM,))

    def construct(self, x):
        keys = ()
        for block in self.blocks:
            x, k = block(x)
            keys = keys + (k,)
        return self.ln_f(x), keys, len(self.blocks)


@ms.jit(input_signature=(ms.Tensor(shape=(4, 6), dtype=ms.float32),
                         ms.Tensor(shape=(6,), dtype=ms.float32)))
def gated(x, g):
    return ops.sigmoid(g) * x + ops.tanh(x)

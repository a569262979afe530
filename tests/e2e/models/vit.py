"""A Vision Transformer as MindSpore's model collection writes one: the image cut into
patches by a convolution whose kernel and stride are the patch size, a learned class
token and position embedding, pre-norm encoder blocks (multi-head self-attention with a
fused query-key-value projection, an exact-GELU MLP, each inside a residual), a final
LayerNorm and a Dense head on the class token. No dropout: every system computes the same
numbers.

``vit_ti16`` is ViT-Ti/16's shape (224x224 images, patches of 16, width 192, 3 heads,
MLP 768, 12 blocks) with a 10-class head; ``vit_tiny`` a small one for tests."""

import math

import msc as ms
from msc import Parameter, nn, ops


class PatchEmbedding(nn.Cell):
    """(batch, channels, H, W) -> (batch, patches, dim): one convolution, kernel = stride =
    patch, then the patch grid flattened into a sequence."""

    def __init__(self, patch, channels, dim):
        super().__init__()
        self.proj = nn.Conv2d(channels, dim, patch, stride=patch, pad_mode="valid",
                              has_bias=True)

    def construct(self, x):
        x = self.proj(x)
        b, d, h, w = x.shape
        return ops.transpose(ops.reshape(x, (b, d, h * w)), (0, 2, 1))


class Attention(nn.Cell):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.qkv = nn.Dense(dim, 3 * dim)
        self.proj = nn.Dense(dim, dim)
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.context = ops.BatchMatMul()
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        b, n, d = x.shape
        qkv = ops.reshape(self.qkv(x), (b, n, 3, self.heads, self.head_dim))
        qkv = ops.transpose(qkv, (2, 0, 3, 1, 4))  # (3, batch, heads, tokens, head_dim)
        q, k, v = qkv[0], qkv[1], qkv[2]
        probs = self.softmax(self.scores(q, k) * self.scale)
        context = ops.transpose(self.context(probs, v), (0, 2, 1, 3))
        return self.proj(ops.reshape(context, (b, n, d)))


class Mlp(nn.Cell):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Dense(dim, hidden)
        self.gelu = nn.GELU(approximate=False)
        self.fc2 = nn.Dense(hidden, dim)

    def construct(self, x):
        return self.fc2(self.gelu(self.fc1(x)))


class Block(nn.Cell):
    """Pre-norm: x + attn(norm1(x)), then x + mlp(norm2(x))."""

    def __init__(self, dim, heads, mlp):
        super().__init__()
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.mlp = Mlp(dim, mlp)

    def construct(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Cell):
    """float32 images (batch, channels, image, image) -> logits float32 (batch, classes)."""

    def __init__(self, image=32, patch=8, channels=3, dim=32, depth=2, heads=4, mlp=64,
                 classes=10):
        super().__init__()
        tokens = (image // patch) ** 2 + 1
        self.patch_embed = PatchEmbedding(patch, channels, dim)
        self.cls_token = Parameter(ops.zeros((1, 1, dim), ms.float32), name="cls_token")
        self.pos_embed = Parameter(ops.zeros((1, tokens, dim), ms.float32), name="pos_embed")
        self.blocks = nn.CellList([Block(dim, heads, mlp) for _ in range(depth)])
        self.norm = nn.LayerNorm((dim,), epsilon=1e-6)
        self.head = nn.Dense(dim, classes)

    def construct(self, x):
        x = self.patch_embed(x)
        cls = ops.broadcast_to(self.cls_token, (x.shape[0], 1, x.shape[2]))
        x = ops.concat((cls, x), axis=1) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def vit_ti16():
    """ViT-Ti/16's shape, 10 classes."""
    return ViT(image=224, patch=16, dim=192, depth=12, heads=3, mlp=768)


def vit_tiny():
    """32x32 images in 8x8 patches (17 tokens), width 32, 4 heads, 2 blocks."""
    return ViT()

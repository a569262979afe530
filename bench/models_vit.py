"""``bench_models.py``'s Vision Transformer written for numpy (float64, the reference every
system's result is checked against) and for JAX: ``tests/e2e/models/vit.py``'s
``vit_ti16``, with the Parameter names msc and MindSpore give its cells.

The forward pass is written once over an op set ``o`` (``models_bert``'s ``NumpyMath`` or
``jax_math``), with ``models_bert``'s Dense, LayerNorm and attention. The patch
embedding is not a convolution here: the image is cut into patches by reshapes and each
patch flattened and multiplied by the convolution's weight (kernel = stride = patch makes
them the same), which checks msc's convolution against a product.

This file imports only the standard library at top level: the peer interpreters import it
in their workers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from models_bert import attention, dense, jax_math, layer_norm

# vit.py's vit_ti16: ViT-Ti/16 (image, patch, channels, width, heads, MLP, blocks), 10
# classes; the batch
VIT = {"image": 224, "patch": 16, "channels": 3, "dim": 192, "heads": 3, "mlp": 768,
       "depth": 12, "classes": 10}
VIT_BATCH = 2
EPS = 1e-6  # every LayerNorm's


def vit_shapes() -> dict[str, tuple[int, ...]]:
    """Every Parameter of ``vit_ti16()``."""
    d, m, p = VIT["dim"], VIT["mlp"], VIT["patch"]
    tokens = (VIT["image"] // p) ** 2 + 1
    shapes = {"cls_token": (1, 1, d), "pos_embed": (1, tokens, d),
              "patch_embed.proj.weight": (d, VIT["channels"], p, p),
              "patch_embed.proj.bias": (d,)}
    for i in range(VIT["depth"]):
        a = f"blocks.{i}."
        for name, out, cin in (("attn.qkv", 3 * d, d), ("attn.proj", d, d),
                               ("mlp.fc1", m, d), ("mlp.fc2", d, m)):
            shapes.update({f"{a}{name}.weight": (out, cin), f"{a}{name}.bias": (out,)})
        for norm in ("norm1", "norm2"):
            shapes.update({f"{a}{norm}.gamma": (d,), f"{a}{norm}.beta": (d,)})
    shapes.update({"norm.gamma": (d,), "norm.beta": (d,),
                   "head.weight": (VIT["classes"], d), "head.bias": (VIT["classes"],)})
    return shapes


def vit_logits(o: Any, p: dict[str, Any], x: Any) -> Any:
    """``vit_ti16``'s logits of float32 images (batch, channels, image, image)."""
    b, c, size, _ = x.shape
    k, d, grid = VIT["patch"], VIT["dim"], size // VIT["patch"]
    # (b, c, grid, k, grid, k) -> one row per patch, ordered as the weight's (c, k, k)
    patches = o.f(x).reshape(b, c, grid, k, grid, k).transpose(0, 2, 4, 1, 3, 5) \
        .reshape(b, grid * grid, c * k * k)
    w = o.f(p["patch_embed.proj.weight"]).reshape(d, c * k * k)
    x = patches @ w.T + o.f(p["patch_embed.proj.bias"])
    x = o.concat([o.f(p["cls_token"]).repeat(b, 0), x], 1) + o.f(p["pos_embed"])
    for i in range(VIT["depth"]):
        a = f"blocks.{i}."
        qkv = dense(o, p, f"{a}attn.qkv", layer_norm(o, p, f"{a}norm1", x, EPS))
        y = attention(o, qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:], VIT["heads"], 0.0)
        x = x + dense(o, p, f"{a}attn.proj", y)
        h = dense(o, p, f"{a}mlp.fc1", layer_norm(o, p, f"{a}norm2", x, EPS))
        h = 0.5 * h * (1.0 + o.erf(h * 0.7071067811865476))  # exact GELU
        x = x + dense(o, p, f"{a}mlp.fc2", h)
    return dense(o, p, "head", layer_norm(o, p, "norm", x, EPS)[:, 0])


def jax_vit_forward(jax: Any, jnp: Any) -> Callable[..., Any]:
    """``vit_ti16`` for ``jax.jit``: (params, images) -> logits."""
    o = jax_math(jax, jnp)
    return lambda p, x: vit_logits(o, p, x)

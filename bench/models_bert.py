"""The transformers of ``bench_models.py`` written for numpy (float64, the reference every
system's result is checked against) and for JAX: ``tests/e2e/models/bert_base.py``'s
BERT-base-shaped encoder (inference, and a classifier's fine-tuning step with
AdamWeightDecay) and ``tests/e2e/models/gpt_tiny.py``'s ``gpt_small`` (a next-token
training step with Momentum), with the Parameter names msc and MindSpore give their cells.

The forward passes are written once over an op set ``o`` (``NumpyMath`` or ``jax_math``'s):
what differs between float64 numpy and JAX is only the elementwise functions.

This file imports only the standard library at top level: the peer interpreters import it
in their workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# bert_base.py's sizes: vocabulary, positions, hidden, heads, FFN, labels; the batch
BERT = {"vocab": 8192, "seq": 128, "hidden": 768, "heads": 12, "ffn": 3072, "labels": 2}
BERT_BATCH, BERT_PADDED = 2, 32  # the second sequence ends in BERT_PADDED padding tokens
# gpt_tiny.py's gpt_small: vocabulary, positions, width, heads, blocks; the batch
GPT = {"vocab": 2048, "seq": 128, "dim": 384, "heads": 6, "layers": 2}
GPT_BATCH = 2
# the fine-tuning step's AdamWeightDecay (LayerNorm's gamma and beta not decayed, as
# MindSpore's default filter says) and the GPT step's Momentum
ADAM = {"lr": 5e-5, "beta1": 0.9, "beta2": 0.999, "eps": 1e-6, "weight_decay": 0.01}
LR, MOMENTUM = 0.01, 0.9


# --- Parameters and inputs ----------------------------------------------------------------------


def bert_shapes(layers: int, classifier: bool) -> dict[str, tuple[int, ...]]:
    """Every Parameter of ``BertEncoder(layers)`` (or ``BertClassifier(layers)``)."""
    h, f = BERT["hidden"], BERT["ffn"]
    pre = "bert." if classifier else ""
    shapes = {f"{pre}word_embeddings.embedding_table": (BERT["vocab"], h),
              f"{pre}position_embeddings.embedding_table": (BERT["seq"], h),
              f"{pre}token_type_embeddings.embedding_table": (2, h),
              f"{pre}embedding_norm.gamma": (h,), f"{pre}embedding_norm.beta": (h,)}
    for i in range(layers):
        a = f"{pre}layers.{i}."
        for name in ("attention.query", "attention.key", "attention.value", "attention_out"):
            shapes.update({f"{a}{name}.weight": (h, h), f"{a}{name}.bias": (h,)})
        shapes.update({f"{a}attention_norm.gamma": (h,), f"{a}attention_norm.beta": (h,),
                       f"{a}intermediate.weight": (f, h), f"{a}intermediate.bias": (f,),
                       f"{a}output.weight": (h, f), f"{a}output.bias": (h,),
                       f"{a}output_norm.gamma": (h,), f"{a}output_norm.beta": (h,)})
    if classifier:
        shapes.update({"pooler.weight": (h, h), "pooler.bias": (h,),
                       "classifier.weight": (BERT["labels"], h),
                       "classifier.bias": (BERT["labels"],)})
    return shapes


def gpt_shapes() -> dict[str, tuple[int, ...]]:
    """Every Parameter of ``gpt_small()``."""
    d, v = GPT["dim"], GPT["vocab"]
    shapes = {"wte.embedding_table": (v, d), "wpe.embedding_table": (GPT["seq"], d)}
    for i in range(GPT["layers"]):
        a = f"blocks.{i}."
        for name, out, cin in (("attn.c_attn", 3 * d, d), ("attn.c_proj", d, d),
                               ("mlp.c_fc", 4 * d, d), ("mlp.c_proj", d, 4 * d)):
            shapes.update({f"{a}{name}.weight": (out, cin), f"{a}{name}.bias": (out,)})
        for norm in ("ln_1", "ln_2"):
            shapes.update({f"{a}{norm}.gamma": (d,), f"{a}{norm}.beta": (d,)})
    shapes.update({"ln_f.gamma": (d,), "ln_f.beta": (d,), "lm_head.weight": (v, d)})
    return shapes


def bert_inputs() -> tuple[Any, Any]:
    """int32 token ids and padding mask (batch, seq): the last sequence is padded."""
    import numpy as np

    shape = (BERT_BATCH, BERT["seq"])
    ids = np.random.default_rng(0).integers(1, BERT["vocab"], shape).astype(np.int32)
    mask = np.ones(shape, np.int32)
    mask[-1, -BERT_PADDED:] = 0
    return np.where(mask == 1, ids, 0).astype(np.int32), mask


def bert_labels() -> Any:
    import numpy as np

    return np.random.default_rng(1).integers(0, BERT["labels"], BERT_BATCH).astype(np.int32)


def gpt_tokens() -> tuple[Any, Any]:
    """int32 token ids (batch, seq) and the next tokens, their labels."""
    import numpy as np

    tokens = np.random.default_rng(0).integers(0, GPT["vocab"], (GPT_BATCH, GPT["seq"] + 1))
    return tokens[:, :-1].astype(np.int32), tokens[:, 1:].astype(np.int32)


# --- the networks, over an op set ---------------------------------------------------------------


class NumpyMath:
    """The elementwise functions in float64 numpy."""

    @staticmethod
    def f(a: Any) -> Any:
        import numpy as np

        return np.asarray(a, np.float64)

    @staticmethod
    def exp(a: Any) -> Any:
        import numpy as np

        return np.exp(a)

    @staticmethod
    def sqrt(a: Any) -> Any:
        import numpy as np

        return np.sqrt(a)

    @staticmethod
    def tanh(a: Any) -> Any:
        import numpy as np

        return np.tanh(a)

    @staticmethod
    def concat(parts: list[Any], axis: int) -> Any:
        import numpy as np

        return np.concatenate(parts, axis)

    @staticmethod
    def erf(a: Any) -> Any:
        try:
            from scipy.special import erf
        except ImportError:  # an interpreter without scipy: the standard library's, per element
            import numpy as np

            return np.vectorize(math.erf, otypes=[np.float64])(a)
        return erf(a)


def jax_math(jax: Any, jnp: Any) -> Any:
    """The elementwise functions in JAX (float32)."""
    class JaxMath:
        f = staticmethod(lambda a: a)
        exp, sqrt, tanh = staticmethod(jnp.exp), staticmethod(jnp.sqrt), staticmethod(jnp.tanh)
        erf = staticmethod(jax.scipy.special.erf)
        concat = staticmethod(jnp.concatenate)
    return JaxMath


def dense(o: Any, p: dict[str, Any], name: str, x: Any, bias: bool = True) -> Any:
    y = x @ o.f(p[f"{name}.weight"]).T
    return y + o.f(p[f"{name}.bias"]) if bias else y


def layer_norm(o: Any, p: dict[str, Any], name: str, x: Any, eps: float) -> Any:
    c = x - x.mean(-1, keepdims=True)
    return c / o.sqrt((c * c).mean(-1, keepdims=True) + eps) * o.f(p[f"{name}.gamma"]) \
        + o.f(p[f"{name}.beta"])


def attention(o: Any, q: Any, k: Any, v: Any, heads: int, bias: Any) -> Any:
    """Multi-head softmax attention of (batch, seq, width) projections; ``bias`` is added
    to the scores (the padding mask's or the causal one)."""
    b, s, d = q.shape

    def split(t: Any) -> Any:
        return t.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)

    scores = split(q) @ split(k).transpose(0, 1, 3, 2) * (1.0 / math.sqrt(d // heads)) + bias
    e = o.exp(scores - scores.max(-1, keepdims=True))
    return ((e / e.sum(-1, keepdims=True)) @ split(v)).transpose(0, 2, 1, 3).reshape(b, s, d)


def bert_encoder(o: Any, p: dict[str, Any], ids: Any, mask: Any, layers: int,
                 pre: str = "") -> Any:
    """``BertEncoder``'s last hidden states."""
    x = o.f(p[f"{pre}word_embeddings.embedding_table"])[ids] \
        + o.f(p[f"{pre}position_embeddings.embedding_table"])[None, :ids.shape[1]] \
        + o.f(p[f"{pre}token_type_embeddings.embedding_table"])[0]
    x = layer_norm(o, p, f"{pre}embedding_norm", x, 1e-12)
    bias = (1.0 - mask[:, None, None, :]) * -10000.0
    for i in range(layers):
        a = f"{pre}layers.{i}."
        q, k, v = (dense(o, p, f"{a}attention.{n}", x) for n in ("query", "key", "value"))
        ctx = attention(o, q, k, v, BERT["heads"], bias)
        x = layer_norm(o, p, f"{a}attention_norm", x + dense(o, p, f"{a}attention_out", ctx),
                       1e-12)
        h = dense(o, p, f"{a}intermediate", x)
        h = 0.5 * h * (1.0 + o.erf(h * (1.0 / math.sqrt(2.0))))  # exact GELU
        x = layer_norm(o, p, f"{a}output_norm", x + dense(o, p, f"{a}output", h), 1e-12)
    return x


def bert_logits(o: Any, p: dict[str, Any], ids: Any, mask: Any, layers: int) -> Any:
    """``BertClassifier``'s logits: the pooler on the first token, then the head."""
    pooled = o.tanh(dense(o, p, "pooler", bert_encoder(o, p, ids, mask, layers, "bert.")[:, 0]))
    return dense(o, p, "classifier", pooled)


def gpt_logits(o: Any, p: dict[str, Any], ids: Any) -> Any:
    """``gpt_small``'s next-token logits (pre-norm blocks, causal attention, tanh GELU)."""
    import numpy as np

    s, d = ids.shape[1], GPT["dim"]
    x = o.f(p["wte.embedding_table"])[ids] + o.f(p["wpe.embedding_table"])[:s]
    causal = np.triu(np.full((s, s), -1e9, np.float32), k=1)
    for i in range(GPT["layers"]):
        a = f"blocks.{i}."
        qkv = dense(o, p, f"{a}attn.c_attn", layer_norm(o, p, f"{a}ln_1", x, 1e-5))
        y = attention(o, qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:], GPT["heads"],
                      o.f(causal))
        x = x + dense(o, p, f"{a}attn.c_proj", y)
        h = dense(o, p, f"{a}mlp.c_fc", layer_norm(o, p, f"{a}ln_2", x, 1e-5))
        h = 0.5 * h * (1.0 + o.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
        x = x + dense(o, p, f"{a}mlp.c_proj", h)
    return dense(o, p, "lm_head", layer_norm(o, p, "ln_f", x, 1e-5), bias=False)


# --- JAX: inference and the training steps -----------------------------------------------------


def jax_bert_forward(layers: int, jax: Any, jnp: Any) -> Callable[..., Any]:
    """``BertEncoder(layers)`` for ``jax.jit``: (params, ids, mask) -> hidden states."""
    o = jax_math(jax, jnp)
    return lambda p, ids, mask: bert_encoder(o, p, ids, mask, layers)


def jax_train_step(kind: str, jax: Any, jnp: Any, w: dict[str, Any],
                   inputs: tuple[Any, ...]) -> Callable[[], Any]:
    """One jitted step of ``kind`` ("bert2-train": the classifier's sparse cross-entropy
    and MindSpore's AdamWeightDecay, no bias correction, decay added to the step;
    "gpt-train": next-token cross-entropy and Momentum), written by hand. ``inputs`` end
    with the labels. Returns the step (it returns the loss)."""
    o = jax_math(jax, jnp)

    def cross_entropy(logits: Any, y: Any) -> Any:
        logp = jax.nn.log_softmax(logits.reshape(-1, logits.shape[-1]), -1)
        return -jnp.take_along_axis(logp, y.reshape(-1, 1), 1).mean()

    if kind == "bert2-train":
        def loss_fn(p: Any, ids: Any, mask: Any, y: Any) -> Any:
            return cross_entropy(bert_logits(o, p, ids, mask, 2), y)
    else:
        def loss_fn(p: Any, ids: Any, y: Any) -> Any:  # type: ignore[misc]
            return cross_entropy(gpt_logits(o, p, ids), y)
    decay = {k: "beta" not in k and "gamma" not in k for k in w}
    a = ADAM

    @jax.jit
    def step(p: Any, m: Any, v: Any, *xs: Any) -> Any:
        loss, g = jax.value_and_grad(loss_fn)(p, *xs)
        if kind != "bert2-train":
            m = {k: MOMENTUM * m[k] + g[k] for k in p}
            return loss, {k: p[k] - LR * m[k] for k in p}, m, v
        m = {k: a["beta1"] * m[k] + (1 - a["beta1"]) * g[k] for k in p}
        v = {k: a["beta2"] * v[k] + (1 - a["beta2"]) * g[k] * g[k] for k in p}
        upd = {k: m[k] / (jnp.sqrt(v[k]) + a["eps"])
               + (a["weight_decay"] * p[k] if decay[k] else 0.0) for k in p}
        return loss, {k: p[k] - a["lr"] * upd[k] for k in p}, m, v

    state = [{k: jnp.asarray(x) for k, x in w.items()}]
    state += [{k: jnp.zeros_like(x) for k, x in state[0].items()} for _ in range(2)]
    xs = [jnp.asarray(x) for x in inputs]

    def run() -> Any:
        loss, state[0], state[1], state[2] = step(*state, *xs)
        return jax.block_until_ready(loss)
    return run

"""Attention and transformer layers with MindSpore 2.10's signatures, defaults and
Parameter names: ``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer``,
``nn.TransformerDecoderLayer``, ``nn.TransformerEncoder``, ``nn.TransformerDecoder`` and
``nn.Transformer``.

Everything is composed from existing ops (Dense, BatchMatMul, Softmax, LayerNorm, shape
ops), so gradients, batching and both code-generation targets come for free. Attention
follows MindSpore's arithmetic: queries and keys are each divided by ``head_dim ** 0.25``,
boolean masks become ``-inf`` and are merged with float masks the way MindSpore merges them.

The stacked layers of an encoder or decoder are deep copies of one layer, so they are
marked as reusable blocks: a compiled model builds one layer graph and calls it once per
layer with that layer's weights, instead of inlining every copy.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from msc.common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from msc.common.tensor import Parameter, apply
from msc.errors import GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.nn.cell import Cell
from msc.nn.layer.activation import GELU, ReLU
from msc.nn.layer.basic import Dense, Dropout, _dropout_scale
from msc._checkparam import _bool, _int
from msc.nn.layer.container import CellList
from msc.nn.layer.normalization import LayerNorm
from msc.ops import functional as F
from msc.ops.function import array_func as A

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _fail(message: str) -> GraphValueError:
    return GraphValueError(message, user_loc())


def _is_mask_dtype(mask: Any) -> bool:
    return mask.dtype == dtypes.bool_ or mask.dtype.is_float


# --- the attention computation ------------------------------------------------------------


def _check_ranks(query: Any, key: Any, value: Any, key_padding_mask: Any,
                 attn_mask: Any, num_heads: int) -> bool:
    """MindSpore's rank checks; True for batched (3-d) inputs."""
    if query.ndim not in (2, 3):
        raise _fail(f"The `query` should be unbatched 2D or batched 3D tensor, but got "
                    f"`query` with {query.ndim}D.")
    batched = query.ndim == 3
    kind = "batched" if batched else "unbatched"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise _fail(f"For {kind} `query`, the `key` and `value` must be {query.ndim}D tensor, "
                    f"but got `key` with {key.ndim}D and `value` with {value.ndim}D.")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise _fail(f"For {kind} `query`, the `key_padding_mask` must be `None` or "
                    f"{query.ndim - 1}D, but got `key_padding_mask` with "
                    f"{key_padding_mask.ndim}D.")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise _fail(f"For {kind} `query`, the `attn_mask` must be `None`, 2-D or 3-D, but "
                    f"got `attn_mask` with {attn_mask.ndim}D.")
    return batched


def _split_heads(x: Any, batch: int, num_heads: int) -> Any:
    """(S, N, E) -> (N, heads, S, E // heads)."""
    seq, _, embed = x.shape
    x = F.reshape(x, (seq, batch, num_heads, embed // num_heads))
    return F.transpose(x, (1, 2, 0, 3))


def _append_zero_key(mask: Any) -> Any:
    """One more source position, not masked (False, or 0.0), at the end of the last axis."""
    pad = F.zeros(tuple(mask.shape[:-1]) + (1,), mask.dtype)
    return F.concat((mask, pad), -1)


def _attn_mask_4d(attn_mask: Any, batch: int, num_heads: int, tgt: int, src: int) -> Any:
    """A (L, S) or (N * heads, L, S) mask as (1, 1, L, S) or (N, heads, L, S)."""
    if attn_mask.dtype == dtypes.uint8:
        attn_mask = F.cast(attn_mask, dtypes.bool_)
    elif not _is_mask_dtype(attn_mask):
        raise _fail(f"`attn_mask` only support float, byte, and bool types, but got not "
                    f"{attn_mask.dtype}.")
    want = (tgt, src) if attn_mask.ndim == 2 else (batch * num_heads, tgt, src)
    if tuple(attn_mask.shape) != want:
        raise _fail(f"The shape of the `attn_mask` should be {want}, but got "
                    f"{tuple(attn_mask.shape)}.")
    return F.reshape(attn_mask, (1, 1) + want if attn_mask.ndim == 2
                     else (batch, num_heads, tgt, src))


def _merge_masks(attn_mask: Any, key_padding_mask: Any, dtype: dtypes.DType) -> Any:
    """One additive mask in ``dtype`` (or None): boolean masks are or-ed together, a float
    mask adds the other (a boolean one as 0/1, as MindSpore does); True becomes -inf."""
    if attn_mask is None:
        mask = key_padding_mask
    elif key_padding_mask is None:
        mask = attn_mask
    elif attn_mask.dtype == dtypes.bool_:
        mask = apply(Op.LogicalOr, attn_mask, F.cast(key_padding_mask, dtypes.bool_))
    else:
        mask = attn_mask + F.cast(key_padding_mask, attn_mask.dtype)
    if mask is None:
        return None
    if mask.dtype == dtypes.bool_:
        return A.masked_fill(F.zeros(tuple(mask.shape), dtype), mask, float("-inf"))
    return mask if mask.dtype == dtype else F.cast(mask, dtype)


def _scaled_dot_product(q: Any, k: Any, v: Any, mask: Any, dropout: float,
                        training: bool) -> tuple[Any, Any]:
    """softmax(q k^T / sqrt(d) + mask) v on (N, heads, L|S, d) tensors; also the weights."""
    scale = math.sqrt(math.sqrt(q.shape[-1]))
    scores = F.matmul(q / scale, F.transpose(k, (0, 1, 3, 2)) / scale)
    if mask is not None:
        scores = scores + mask
    weights = F.softmax(scores, -1)
    if training and dropout > 0:
        weights = weights * _dropout_scale(weights, 1.0 - dropout)
    return F.matmul(weights, v), weights


# --- nn.MultiheadAttention ----------------------------------------------------------------


class MultiheadAttention(Cell):
    """Multi-head attention: ``Concat(head_1, ..., head_h) W_out`` with
    ``head_i = softmax(Q_i K_i^T / sqrt(d) + mask) V_i`` on projected queries, keys and values.

    Args:
        embed_dim, num_heads: model width and number of heads (``embed_dim`` divisible by it).
        dropout: dropout probability of the attention weights (training only).
        has_bias: biases on the input and output projections.
        add_bias_kv: learnt ``bias_k``/``bias_v`` appended to the keys and values.
        add_zero_attn: a zero key and value appended after the heads are split.
        kdim, vdim: key and value widths (default ``embed_dim``); when either differs,
            ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` replace ``in_proj_weight``.
        batch_first: inputs are (N, L, E) instead of (L, N, E).
        dtype: dtype of the Parameters.

    ``construct(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True)`` returns ``(output, weights)``, or
    ``(output,)`` when ``need_weights`` is False.

    Example:
        >>> mha = nn.MultiheadAttention(8, 2)
        >>> x = ms.Tensor(np.ones((5, 3, 8), np.float32))
        >>> [t.shape for t in mha(x, x, x)]
        [(5, 3, 8), (3, 5, 5)]
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0,
                 has_bias: bool = True, add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.embed_dim = _int(embed_dim, "embed_dim", cls, positive=True)
        self.num_heads = _int(num_heads, "num_heads", cls, positive=True)
        self.kdim = embed_dim if kdim is None else _int(kdim, "kdim", cls, positive=True)
        self.vdim = embed_dim if vdim is None else _int(vdim, "vdim", cls, positive=True)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout = dropout
        self.batch_first = _bool(batch_first, "batch_first", cls)
        self.add_zero_attn = _bool(add_zero_attn, "add_zero_attn", cls)
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise _fail("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        dtype = dtypes.float32 if dtype is None else dtype
        self.dtype = dtype

        def weight(init: Any, shape: tuple[int, ...], name: str) -> Parameter:
            return Parameter(initializer(init, shape, dtype), name=name)

        if self._qkv_same_embed_dim:
            self.in_proj_weight = weight(XavierUniform(), (3 * embed_dim, embed_dim),
                                         "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = weight(XavierUniform(), (embed_dim, embed_dim), "q_proj_weight")
            self.k_proj_weight = weight(XavierUniform(), (embed_dim, self.kdim), "k_proj_weight")
            self.v_proj_weight = weight(XavierUniform(), (embed_dim, self.vdim), "v_proj_weight")
            self.in_proj_weight = None
        self.in_proj_bias = weight("zeros", (3 * embed_dim,), "in_proj_bias") \
            if _bool(has_bias, "has_bias", cls) else None
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias,
                              weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), dtype=dtype)
        if _bool(add_bias_kv, "add_bias_kv", cls):
            self.bias_k = weight(XavierNormal(), (1, 1, embed_dim), "bias_k")
            self.bias_v = weight(XavierNormal(), (1, 1, embed_dim), "bias_v")
        else:
            self.bias_k = self.bias_v = None

    def construct(self, query: Any, key: Any, value: Any, key_padding_mask: Any = None,
                  need_weights: bool = True, attn_mask: Any = None,
                  average_attn_weights: bool = True) -> tuple[Any, ...]:
        if key_padding_mask is not None and not _is_mask_dtype(key_padding_mask):
            raise _fail("only bool and floating types of key_padding_mask are supported")
        batched = _check_ranks(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        if self.batch_first and batched:
            query, key, value = (A.swapaxes(t, 0, 1) for t in (query, key, value))
        if not batched:
            query, key, value = (F.expand_dims(t, 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = F.expand_dims(key_padding_mask, 0)
        out, weights = self._attend(query, key, value, key_padding_mask, attn_mask,
                                    average_attn_weights)
        if not batched:
            out, weights = F.squeeze(out, 1), F.squeeze(weights, 0)
        elif self.batch_first:
            out = A.swapaxes(out, 0, 1)
        return (out, weights) if need_weights else (out,)

    def _project(self, query: Any, key: Any, value: Any) -> tuple[Any, Any, Any]:
        """The input projections of (L|S, N, E*) queries, keys and values."""
        if self._qkv_same_embed_dim:
            if tuple(key.shape) != tuple(value.shape):
                raise _fail(f"The shape of `key` {tuple(key.shape)} does not match `value` "
                            f"{tuple(value.shape)}.")
            weights = F.split(self.in_proj_weight, self.embed_dim)
        else:
            if tuple(key.shape[:2]) != tuple(value.shape[:2]):
                raise _fail(f"The sequence length and batch dims of `key`: "
                            f"{tuple(key.shape[:2])} do not match `value`: "
                            f"{tuple(value.shape[:2])}.")
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        biases = (None,) * 3 if self.in_proj_bias is None \
            else F.split(self.in_proj_bias, self.embed_dim)
        return tuple(F.dense(x, w, b)  # type: ignore[return-value]
                     for x, w, b in zip((query, key, value), weights, biases))

    def _attend(self, query: Any, key: Any, value: Any, key_padding_mask: Any,
                attn_mask: Any, average: bool) -> tuple[Any, Any]:
        """Attention of (L, N, E) queries over (S, N, E*) keys and values."""
        tgt, batch, embed = query.shape
        heads = self.num_heads
        if embed != self.embed_dim:
            raise _fail(f"The `embed_dim` should be {self.embed_dim}, but got {embed}.")
        q, k, v = self._project(query, key, value)
        if attn_mask is not None:
            attn_mask = _attn_mask_4d(attn_mask, batch, heads, tgt, key.shape[0])
        extra = [self.bias_k is not None, self.add_zero_attn]
        if self.bias_k is not None:
            k = F.concat((k, F.tile(self.bias_k, (1, batch, 1))), 0)
            v = F.concat((v, F.tile(self.bias_v, (1, batch, 1))), 0)
        q, k, v = (_split_heads(t, batch, heads) for t in (q, k, v))
        if self.add_zero_attn:
            zeros = F.zeros((batch, heads, 1, self.head_dim), k.dtype)
            k, v = F.concat((k, zeros), 2), F.concat((v, zeros), 2)
        for _ in range(sum(extra)):
            attn_mask = None if attn_mask is None else _append_zero_key(attn_mask)
            key_padding_mask = None if key_padding_mask is None \
                else _append_zero_key(key_padding_mask)
        src = k.shape[2]
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (batch, src):
                raise _fail(f"The shape of `key_padding_mask` should be {(batch, src)}, but "
                            f"got {tuple(key_padding_mask.shape)}.")
            key_padding_mask = F.reshape(key_padding_mask, (batch, 1, 1, src))
        mask = _merge_masks(attn_mask, key_padding_mask, q.dtype)
        out, weights = _scaled_dot_product(q, k, v, mask, self.dropout, self.training)
        out = F.reshape(F.transpose(out, (2, 0, 1, 3)), (tgt, batch, embed))
        out = F.dense(out, self.out_proj.weight, self.out_proj.bias)
        if average:
            weights = F.sum(weights, 1) / heads
        return out, weights

    def extend_repr(self) -> str:
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"batch_first={self.batch_first}")


# --- encoder and decoder layers -----------------------------------------------------------


def _activation(activation: Any) -> Any:
    """'relu'/'gelu' (exact), ops.relu/ops.gelu, or an nn.ReLU/nn.GELU Cell; MindSpore's
    ValueError otherwise.

    NOTE: MindSpore 2.10 documents nn.ReLU/nn.GELU instances but rejects them (its check
    for plain callables also catches Cells); msc accepts them as documented."""
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise _fail(f"The activation must be relu/gelu, but get {activation}")
        return getattr(F, activation)
    if isinstance(activation, Cell):
        if not isinstance(activation, (ReLU, GELU)):
            raise _fail(f"The argument 'activation' must be nn.ReLU or nn.GELU instance, but "
                        f"get {activation}.")
        return activation
    if not callable(activation):
        raise _fail(f"The argument 'activation' must be str, callable or Cell instance, but "
                    f"get {activation}.")
    if activation is not getattr(F, "relu") and activation is not F.gelu:
        raise _fail(f"The argument 'activation' must be ops.relu or ops.gelu instance, but "
                    f"get {activation}.")
    return activation


def _check_padding_mask(mask: Any) -> None:
    if mask is not None and not _is_mask_dtype(mask):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class _Layer(Cell):
    """What encoder and decoder layers share: settings, the feed-forward block, norms."""

    norms = 2

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        if self.norms == 3:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                     batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                            bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                            bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)
        for i in range(1, self.norms + 1):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for i in range(1, self.norms + 1):
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.activation1 = activation
        self.activation = _activation(activation)
        self.d_model, self.nhead, self.dim_feedforward = d_model, nhead, dim_feedforward
        self.dropout_num, self.layernorm_eps = dropout, layer_norm_eps
        self.batch_first = batch_first
        self.norm_first = _bool(norm_first, "norm_first", self.cls_name)
        self.dtype = dtype

    def config(self) -> tuple[Any, ...]:
        """The constructor arguments that rebuild this layer (with fresh weights)."""
        return (self.d_model, self.nhead, self.dim_feedforward, self.dropout_num,
                self.activation1, self.layernorm_eps, self.batch_first, self.norm_first,
                self.dtype)

    def _sa_block(self, x: Any, attn_mask: Any, key_padding_mask: Any) -> Any:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Any) -> Any:
        x = self.dense2(self.dropout(self.activation(self.dense1(x))))
        return getattr(self, f"dropout{self.norms}")(x)

    def _residuals(self, x: Any, blocks: list[Any]) -> Any:
        """``x + block(norm(x))`` per block (norm_first), else ``norm(x + block(x))``."""
        for i, block in enumerate(blocks, 1):
            norm = getattr(self, f"norm{i}")
            x = x + block(norm(x)) if self.norm_first else norm(x + block(x))
        return x


class TransformerEncoderLayer(_Layer):
    """Self-attention and a feed-forward block, each with a residual connection and a
    LayerNorm (before the block with ``norm_first``, after the sum otherwise).

    ``construct(src, src_mask=None, src_key_padding_mask=None)``; the Parameters are
    ``self_attn.*``, ``dense1.*``, ``dense2.*``, ``norm1.*`` and ``norm2.*``.

    Example:
        >>> layer = nn.TransformerEncoderLayer(8, 2, 16)
        >>> layer(ms.Tensor(np.ones((5, 3, 8), np.float32))).shape
        (5, 3, 8)
    """

    def construct(self, src: Any, src_mask: Any = None, src_key_padding_mask: Any = None) -> Any:
        _check_padding_mask(src_key_padding_mask)
        return self._residuals(src, [
            lambda x: self._sa_block(x, src_mask, src_key_padding_mask), self._ff_block])


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the encoder's output (``multihead_attn``) and a
    feed-forward block, each with a residual connection and a LayerNorm.

    ``construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)``.
    """

    norms = 3

    def construct(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                  tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None) -> Any:
        def cross(x: Any) -> Any:
            x = self.multihead_attn(x, memory, memory, attn_mask=memory_mask,
                                    key_padding_mask=memory_key_padding_mask,
                                    need_weights=False)[0]
            return self.dropout2(x)

        return self._residuals(tgt, [
            lambda x: self._sa_block(x, tgt_mask, tgt_key_padding_mask), cross, self._ff_block])


# --- stacks -------------------------------------------------------------------------------


class _Stack(Cell):
    """``num_layers`` deep copies of a ``layer_class`` layer rebuilt from ``layer``'s
    settings (fresh weights, equal in every copy, as in MindSpore), then an optional
    ``norm``. The copies are reusable blocks."""

    layer_class: type[_Layer]

    def __init__(self, layer: Any, num_layers: int, norm: Any = None):
        super().__init__()
        block = self.layer_class(*_Layer.config(layer))
        block.no_inline = True
        self.layers = CellList([copy.deepcopy(block) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def _run(self, x: Any, extra: tuple[Any, ...], masks: tuple[Any, ...]) -> Any:
        # Positional tensors only (trailing Nones dropped), so each call can share one graph.
        args = [*extra, *masks]
        while args and args[-1] is None:
            args.pop()
        for layer in self.layers:
            x = layer(x, *args)
        return x if self.norm is None else self.norm(x)


class TransformerEncoder(_Stack):
    """A stack of ``num_layers`` copies of ``encoder_layer``'s configuration, then ``norm``.

    ``construct(src, src_mask=None, src_key_padding_mask=None)``.
    """

    layer_class = TransformerEncoderLayer

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: Cell | None = None):
        super().__init__(encoder_layer, num_layers, norm)

    def construct(self, src: Any, src_mask: Any = None, src_key_padding_mask: Any = None) -> Any:
        _check_padding_mask(src_key_padding_mask)
        return self._run(src, (), (src_mask, src_key_padding_mask))


class TransformerDecoder(_Stack):
    """A stack of ``num_layers`` copies of ``decoder_layer``'s configuration, then ``norm``.

    ``construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)``.
    """

    layer_class = TransformerDecoderLayer

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: Cell | None = None):
        super().__init__(decoder_layer, num_layers, norm)

    def construct(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                  tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None) -> Any:
        return self._run(tgt, (memory,), (tgt_mask, memory_mask, tgt_key_padding_mask,
                                          memory_key_padding_mask))


class Transformer(Cell):
    """An encoder (``num_encoder_layers`` layers and a final LayerNorm) and a decoder
    (likewise) with every Parameter of two or more dims drawn again from Xavier-uniform.

    ``construct(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None)``.

    Example:
        >>> net = nn.Transformer(8, 2, 1, 1, 16)
        >>> src = ms.Tensor(np.ones((5, 3, 8), np.float32))
        >>> net(src, src[:4]).shape
        (4, 3, 8)
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", custom_encoder: Cell | None = None,
                 custom_decoder: Cell | None = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        settings = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                    batch_first, norm_first, dtype)
        for name, given, stack, layer, count in (
                ("encoder", custom_encoder, TransformerEncoder, TransformerEncoderLayer,
                 num_encoder_layers),
                ("decoder", custom_decoder, TransformerDecoder, TransformerDecoderLayer,
                 num_decoder_layers)):
            setattr(self, name, given if given is not None else stack(
                layer(*settings), count, LayerNorm((d_model,), epsilon=layer_norm_eps,
                                                   dtype=dtype)))
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def construct(self, src: Any, tgt: Any, src_mask: Any = None, tgt_mask: Any = None,
                  memory_mask: Any = None, src_key_padding_mask: Any = None,
                  tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None) -> Any:
        axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[axis] != tgt.shape[axis]:
            raise _fail("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise _fail("The number of features for 'src' and 'tgt' must be equal to "
                        "`d_model`.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

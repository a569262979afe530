"""nn.MultiheadAttention and the Transformer layers against a numpy implementation
written here: eagerly, compiled (python target; numba on one small case), gradients
against central differences, Parameter names as MindSpore 2.10 spells them, and an
optional comparison with MindSpore itself on the same weights."""

from __future__ import annotations

import math
import os
import subprocess
import textwrap

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.compiler import arg_spec, compile_entry

RNG = np.random.default_rng(7)
ROOT = __file__.rsplit("/tests/", 1)[0]
PEER = os.path.join(ROOT, ".peers", "ms", "bin", "python")


def _x(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _t(a: np.ndarray) -> ms.Tensor:
    return ms.Tensor(a)


def _params(cell: nn.Cell, prefix: str = "") -> dict[str, np.ndarray]:
    return {n[len(prefix):]: p.asnumpy() for n, p in cell.parameters_and_names()
            if n.startswith(prefix)}


def _close(got: np.ndarray, want: np.ndarray, tol: float = 1e-5) -> None:
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# --- the numpy reference ------------------------------------------------------------------


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _pad_columns(mask: np.ndarray | None, n: int) -> np.ndarray | None:
    if mask is None or n == 0:
        return mask
    return np.concatenate([mask, np.zeros(mask.shape[:-1] + (n,), mask.dtype)], -1)


def _row_mask(attn_mask, kpm, b: int, h: int, heads: int) -> np.ndarray | None:
    """The additive (L, S) mask of batch ``b``, head ``h`` (MindSpore's merging rules)."""
    a = None if attn_mask is None else (attn_mask if attn_mask.ndim == 2
                                        else attn_mask[b * heads + h])
    k = None if kpm is None else kpm[b][None, :]
    if a is None:
        m = k
    elif k is None:
        m = a
    elif a.dtype == bool:
        m = np.logical_or(a, k.astype(bool))
    else:
        m = a + k.astype(a.dtype)
    if m is not None and m.dtype == bool:
        m = np.where(m, -np.inf, 0.0)
    return m


def np_mha(query, key, value, p, heads, kpm=None, attn_mask=None, batch_first=False,
           add_zero_attn=False, average=True):
    """Multi-head attention head by head, from MindSpore's parameter layout ``p``."""
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = (t[:, None] for t in (query, key, value))
        kpm = None if kpm is None else kpm[None]
    elif batch_first:
        query, key, value = (t.swapaxes(0, 1) for t in (query, key, value))
    if attn_mask is not None and attn_mask.dtype == np.uint8:
        attn_mask = attn_mask.astype(bool)
    tgt, batch, embed = query.shape
    hd = embed // heads
    if "in_proj_weight" in p:
        wq, wk, wv = np.split(p["in_proj_weight"], 3)
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    bq, bk, bv = np.split(p["in_proj_bias"], 3) if "in_proj_bias" in p else (0, 0, 0)
    q, k, v = query @ wq.T + bq, key @ wk.T + bk, value @ wv.T + bv
    extra = 0
    if "bias_k" in p:
        k = np.concatenate([k, np.tile(p["bias_k"], (1, batch, 1))])
        v = np.concatenate([v, np.tile(p["bias_v"], (1, batch, 1))])
        extra += 1
    if add_zero_attn:
        k = np.concatenate([k, np.zeros((1, batch, embed), k.dtype)])
        v = np.concatenate([v, np.zeros((1, batch, embed), v.dtype)])
        extra += 1
    attn_mask, kpm = _pad_columns(attn_mask, extra), _pad_columns(kpm, extra)
    out = np.zeros((tgt, batch, embed), q.dtype)
    weights = np.zeros((batch, heads, tgt, k.shape[0]), q.dtype)
    for b in range(batch):
        for h in range(heads):
            cols = slice(h * hd, (h + 1) * hd)
            s = q[:, b, cols] @ k[:, b, cols].T / math.sqrt(hd)
            m = _row_mask(attn_mask, kpm, b, h, heads)
            a = _softmax(s if m is None else s + m)
            weights[b, h] = a
            out[:, b, cols] = a @ v[:, b, cols]
    out = out @ p["out_proj.weight"].T + p.get("out_proj.bias", 0)
    if average:
        weights = weights.mean(1)
    if unbatched:
        return out[:, 0], weights[0]
    return (out.swapaxes(0, 1) if batch_first else out), weights


def _layer_norm(x, g, b, eps=1e-5):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def _gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def _relu(x):
    return np.maximum(x, 0)


def np_layer(x, p, heads, memory=None, norm_first=False, act=_relu, batch_first=False,
             masks=(None, None), memory_masks=(None, None)):
    """An encoder layer (``memory`` None) or a decoder layer, from parameters ``p``."""
    def sub(prefix):
        return {k[len(prefix):]: v for k, v in p.items() if k.startswith(prefix)}

    def self_attn(y):
        return np_mha(y, y, y, sub("self_attn."), heads, masks[1], masks[0], batch_first)[0]

    def cross(y):
        return np_mha(y, memory, memory, sub("multihead_attn."), heads, memory_masks[1],
                      memory_masks[0], batch_first)[0]

    def ff(y):
        return act(y @ p["dense1.weight"].T + p["dense1.bias"]) @ p["dense2.weight"].T \
            + p["dense2.bias"]

    blocks = [self_attn] + ([cross] if memory is not None else []) + [ff]
    for i, block in enumerate(blocks, 1):
        g, b = p[f"norm{i}.gamma"], p[f"norm{i}.beta"]
        x = x + block(_layer_norm(x, g, b)) if norm_first else _layer_norm(x + block(x), g, b)
    return x


# --- MultiheadAttention ---------------------------------------------------------------------


def _mha_inputs(batch_first, unbatched=False, kdim=6, vdim=6, tgt=4, src=5, batch=2, e=6):
    def shape(seq, dim):
        if unbatched:
            return (seq, dim)
        return (batch, seq, dim) if batch_first else (seq, batch, dim)
    return _x(*shape(tgt, e)), _x(*shape(src, kdim)), _x(*shape(src, vdim))


MHA_CASES = {
    "plain": ({}, {}),
    "batch_first_bool_masks": ({"batch_first": True},
                               {"attn_mask": np.triu(np.ones((4, 5), bool), 2),
                                "key_padding_mask": np.array([[0, 0, 0, 0, 1],
                                                              [0, 0, 0, 1, 1]], bool)}),
    "float_masks_merged": ({}, {"attn_mask": _x(2 * 3, 4, 5),
                                "key_padding_mask": np.array([[0, 0, 0, 1, 1],
                                                              [1, 0, 0, 0, 0]], bool)}),
    "bool_attn_float_padding": ({}, {"attn_mask": np.eye(4, 5, dtype=bool),
                                     "key_padding_mask": np.array([[0, 0, 0, 1.5, 0],
                                                                   [0, -2, 0, 0, 0]],
                                                                  np.float32)}),
    "uint8_mask_per_head": ({"average": False},
                            {"attn_mask": np.concatenate(  # the first key is never masked
                                [np.zeros((6, 4, 1), np.uint8),
                                 (RNG.random((6, 4, 4)) < 0.4).astype(np.uint8)], -1)}),
    "bias_kv_zero_attn": ({"add_bias_kv": True, "add_zero_attn": True},
                          {"attn_mask": np.triu(np.ones((4, 5), bool), 1),
                           "key_padding_mask": np.array([[0, 0, 0, 0, 1]] * 2, bool)}),
    "kdim_vdim_no_bias": ({"kdim": 3, "vdim": 5, "has_bias": False, "batch_first": True}, {}),
    "unbatched": ({"unbatched": True}, {"key_padding_mask": np.array([0, 0, 1, 0, 0], bool),
                                        "attn_mask": _x(3, 4, 5)}),
}


def _mha_case(name):
    options, masks = MHA_CASES[name]
    options = dict(options)
    average = options.pop("average", True)
    unbatched = options.pop("unbatched", False)
    net = nn.MultiheadAttention(6, 3, **options)
    q, k, v = _mha_inputs(options.get("batch_first", False), unbatched,
                          options.get("kdim", 6), options.get("vdim", 6))
    want = np_mha(q, k, v, _params(net), 3, masks.get("key_padding_mask"),
                  masks.get("attn_mask"), options.get("batch_first", False),
                  options.get("add_zero_attn", False), average)
    args = (_t(q), _t(k), _t(v))
    kwargs = {n: _t(m) for n, m in masks.items()}
    kwargs["average_attn_weights"] = average
    return net, args, kwargs, want


@pytest.mark.parametrize("name", MHA_CASES)
def test_multihead_attention_matches_numpy_eagerly(name):
    net, args, kwargs, want = _mha_case(name)
    out, weights = net(*args, **kwargs)
    assert out.dtype == ms.float32 and out.shape == want[0].shape
    assert weights.shape == want[1].shape
    _close(out.asnumpy(), want[0])
    _close(weights.asnumpy(), want[1])


@pytest.mark.parametrize("name", ["batch_first_bool_masks", "bias_kv_zero_attn", "unbatched"])
def test_multihead_attention_compiles_to_the_eager_result(name):
    net, args, kwargs, want = _mha_case(name)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    out, weights = net(*args, **kwargs)
    _close(out.asnumpy(), want[0])
    _close(weights.asnumpy(), want[1])


def test_need_weights_false_returns_a_one_tuple():
    net, args, kwargs, want = _mha_case("plain")
    result = net(*args, need_weights=False)
    assert isinstance(result, tuple) and len(result) == 1
    _close(result[0].asnumpy(), want[0])


def test_attention_dropout_in_training():
    net, args, kwargs, want = _mha_case("plain")
    net.dropout = 0.5
    _close(net(*args)[1].asnumpy(), want[1])  # inference: no dropout
    ms.set_seed(3)
    weights = net.set_train()(*args, average_attn_weights=False)[1].asnumpy()
    per_head = np_mha(*(a.asnumpy() for a in args), _params(net), 3, average=False)[1]
    dropped = weights == 0
    assert dropped.any() and not dropped.all()
    _close(weights[~dropped], 2 * per_head[~dropped])  # the kept ones scaled by 1 / 0.5


def test_multihead_attention_parameters_as_in_mindspore():
    # names and shapes as MindSpore 2.10 reports them (parameters_and_names)
    net = nn.MultiheadAttention(8, 2)
    assert [(n, p.name, p.shape) for n, p in net.parameters_and_names()] == [
        ("in_proj_weight", "in_proj_weight", (24, 8)), ("in_proj_bias", "in_proj_bias", (24,)),
        ("out_proj.weight", "out_proj.weight", (8, 8)), ("out_proj.bias", "out_proj.bias", (8,))]
    assert not net.in_proj_bias.asnumpy().any()
    bound = math.sqrt(6 / (8 + 24))
    assert 0.5 * bound < np.abs(net.in_proj_weight.asnumpy()).max() <= bound
    net = nn.MultiheadAttention(8, 2, has_bias=False, add_bias_kv=True, kdim=4, vdim=6,
                                dtype=ms.float16)
    assert [(n, p.shape) for n, p in net.parameters_and_names()] == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 4)), ("v_proj_weight", (8, 6)),
        ("bias_k", (1, 1, 8)), ("bias_v", (1, 1, 8)), ("out_proj.weight", (8, 8))]
    assert all(p.dtype == ms.float16 for p in net.get_parameters())


def test_multihead_attention_errors():
    with pytest.raises(ValueError, match="divisible by 'num_heads'"):
        nn.MultiheadAttention(8, 3)
    net = nn.MultiheadAttention(6, 3)
    q = _t(_x(4, 2, 6))
    with pytest.raises(ValueError, match="`key` and `value` must be 3D"):
        net(q, _t(_x(5, 6)), _t(_x(5, 6)))
    with pytest.raises(ValueError, match="unbatched 2D or batched 3D"):
        net(_t(_x(6)), _t(_x(6)), _t(_x(6)))
    with pytest.raises(ValueError, match="only bool and floating types"):
        net(q, q, q, key_padding_mask=_t(np.zeros((2, 4), np.int32)))
    with pytest.raises(ValueError, match=r"`attn_mask` should be \(4, 4\)"):
        net(q, q, q, attn_mask=_t(np.zeros((4, 5), bool)))
    with pytest.raises(ValueError, match="only support float, byte, and bool"):
        net(q, q, q, attn_mask=_t(np.zeros((4, 4), np.int32)))
    with pytest.raises(ValueError, match=r"`key_padding_mask` should be \(2, 4\)"):
        net(q, q, q, key_padding_mask=_t(np.zeros((2, 3), bool)))
    with pytest.raises(ValueError, match="`embed_dim` should be 6"):
        net(_t(_x(4, 2, 4)), q, q)


# --- encoder and decoder layers ---------------------------------------------------------


@pytest.mark.parametrize("norm_first, activation, batch_first", [
    (False, "relu", False), (True, "gelu", True), (False, ops.gelu, True),
    (True, nn.ReLU(), False)])
def test_encoder_layer_matches_numpy(norm_first, activation, batch_first):
    layer = nn.TransformerEncoderLayer(6, 2, 10, activation=activation,
                                       batch_first=batch_first, norm_first=norm_first)
    x = _x(3, 4, 6)
    mask, kpm = np.triu(np.ones((4, 4) if batch_first else (3, 3), bool), 1), None
    if batch_first:
        kpm = np.array([[0, 0, 0, 1]] * 3, bool)
    act = _gelu if activation in ("gelu", ops.gelu) else _relu
    want = np_layer(x, _params(layer), 2, norm_first=norm_first, act=act,
                    batch_first=batch_first, masks=(mask, kpm))
    out = layer(_t(x), _t(mask), None if kpm is None else _t(kpm))
    _close(out.asnumpy(), want)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    _close(layer(_t(x), _t(mask), None if kpm is None else _t(kpm)).asnumpy(), want)


def test_encoder_layer_on_the_numba_target():
    layer = nn.TransformerEncoderLayer(4, 2, 8, norm_first=True)
    x = _x(3, 2, 4)
    want = np_layer(x, _params(layer), 2, norm_first=True)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    _close(layer(_t(x)).asnumpy(), want)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_numpy(norm_first):
    layer = nn.TransformerDecoderLayer(6, 3, 8, norm_first=norm_first, batch_first=True)
    tgt, memory = _x(2, 3, 6), _x(2, 5, 6)
    tgt_mask = np.triu(np.ones((3, 3), bool), 1)
    memory_kpm = np.array([[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]], bool)
    want = np_layer(tgt, _params(layer), 3, memory, norm_first, batch_first=True,
                    masks=(tgt_mask, None), memory_masks=(None, memory_kpm))
    args = (_t(tgt), _t(memory))
    kwargs = {"tgt_mask": _t(tgt_mask), "memory_key_padding_mask": _t(memory_kpm)}
    _close(layer(*args, **kwargs).asnumpy(), want)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    _close(layer(*args, **kwargs).asnumpy(), want)


def test_layer_parameters_as_in_mindspore():
    attn = ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    tail = ["dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias"]
    enc = [f"self_attn.{n}" for n in attn] + tail + \
        [f"norm{i}.{n}" for i in (1, 2) for n in ("gamma", "beta")]
    dec = [f"{a}.{n}" for a in ("self_attn", "multihead_attn") for n in attn] + tail + \
        [f"norm{i}.{n}" for i in (1, 2, 3) for n in ("gamma", "beta")]
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert [p.name for p in layer.trainable_params()] == enc
    assert layer.dense1.weight.shape == (16, 8) and layer.dense2.weight.shape == (8, 16)
    assert [p.name for p in nn.TransformerDecoderLayer(8, 2, 16).trainable_params()] == dec
    stack = nn.TransformerEncoder(layer, 2, nn.LayerNorm((8,)))
    assert [p.name for p in stack.trainable_params()] == \
        [f"layers.{i}.{n}" for i in (0, 1) for n in enc] + ["norm.gamma", "norm.beta"]
    model = nn.Transformer(8, 2, 1, 2, 16)
    names = [p.name for p in model.trainable_params()]
    assert names == [f"encoder.layers.0.{n}" for n in enc] + \
        ["encoder.norm.gamma", "encoder.norm.beta"] + \
        [f"decoder.layers.{i}.{n}" for i in (0, 1) for n in dec] + \
        ["decoder.norm.gamma", "decoder.norm.beta"]


def test_stacked_layers_are_equal_fresh_copies():
    layer = nn.TransformerEncoderLayer(4, 2, 8)
    stack = nn.TransformerEncoder(layer, 3)
    w = [lay.self_attn.in_proj_weight for lay in stack.layers]
    assert w[0] is not w[1] and np.array_equal(w[0].asnumpy(), w[2].asnumpy())
    assert not np.array_equal(w[0].asnumpy(), layer.self_attn.in_proj_weight.asnumpy())


def test_activation_errors():
    for bad, match in (("tanh", "must be relu/gelu"), (nn.Tanh(), "nn.ReLU or nn.GELU"),
                       (ops.tanh, "ops.relu or ops.gelu"), (3, "str, callable or Cell")):
        with pytest.raises(ValueError, match=match):
            nn.TransformerEncoderLayer(4, 2, 8, activation=bad)


def test_padding_mask_dtype_is_an_assertion_in_encoders():
    layer = nn.TransformerEncoderLayer(4, 2, 8)
    x, bad = _t(_x(3, 2, 4)), _t(np.zeros((2, 3), np.int32))
    with pytest.raises(AssertionError, match="key_padding_mask"):
        layer(x, src_key_padding_mask=bad)
    with pytest.raises(AssertionError, match="key_padding_mask"):
        nn.TransformerEncoder(layer, 2)(x, src_key_padding_mask=bad)


# --- stacks -----------------------------------------------------------------------------


def test_transformer_matches_numpy_layer_by_layer():
    model = nn.Transformer(6, 2, 2, 1, 8, batch_first=True, norm_first=True)
    p = _params(model)
    src, tgt = _x(2, 5, 6), _x(2, 3, 6)
    src_kpm = np.array([[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]], bool)
    tgt_mask = np.triu(np.ones((3, 3), bool), 1)

    def sub(prefix):
        return {k[len(prefix):]: v for k, v in p.items() if k.startswith(prefix)}

    memory = src
    for i in range(2):
        memory = np_layer(memory, sub(f"encoder.layers.{i}."), 2, norm_first=True,
                          batch_first=True, masks=(None, src_kpm))
    memory = _layer_norm(memory, p["encoder.norm.gamma"], p["encoder.norm.beta"])
    out = np_layer(tgt, sub("decoder.layers.0."), 2, memory, True, batch_first=True,
                   masks=(tgt_mask, None), memory_masks=(None, src_kpm))
    want = _layer_norm(out, p["decoder.norm.gamma"], p["decoder.norm.beta"])
    args = (_t(src), _t(tgt))
    kwargs = {"tgt_mask": _t(tgt_mask), "src_key_padding_mask": _t(src_kpm),
              "memory_key_padding_mask": _t(src_kpm)}
    _close(model(*args, **kwargs).asnumpy(), want)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    _close(model(*args, **kwargs).asnumpy(), want)


def test_transformer_reinitialises_matrices_and_checks_features():
    model = nn.Transformer(8, 2, 1, 1, 16)
    w = model.encoder.layers[0].dense1.weight.asnumpy()
    assert np.abs(w).max() <= math.sqrt(6 / (8 + 16))  # xavier, not HeUniform's 1/sqrt(8)
    with pytest.raises(ValueError, match="equal to `d_model`"):
        model(_t(_x(3, 2, 8)), _t(_x(3, 2, 4)))


def test_encoder_layers_compile_once_and_are_called_per_layer():
    x = _x(3, 2, 4)
    sizes = {}
    for n in (1, 6):
        stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), n, nn.LayerNorm((4,)))
        ms.set_context(reuse="lazy_inline")
        compiled = compile_entry(stack, [arg_spec(x)], store=None, target="python")
        sizes[n] = sum(len(g.nodes) for g in compiled.module.graphs)
        entry = compiled.module.entry_graph
        assert [node.op.name for node in entry.nodes].count("Call") == n
        assert len(compiled.module.graphs) == 2
    assert sizes[6] - sizes[1] == 5  # one Call per extra layer
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python", reuse="lazy_inline")
    want = np.asarray(x)
    for layer in stack.layers:
        want = np_layer(want, _params(layer), 2)
    want = _layer_norm(want, stack.norm.gamma.asnumpy(), stack.norm.beta.asnumpy())
    _close(stack(_t(x)).asnumpy(), want)


# --- gradients ------------------------------------------------------------------------------


class _Loss(nn.Cell):
    def __init__(self, layer, weight):
        super().__init__()
        self.layer = layer
        self.weight = weight

    def construct(self, x, mask):
        return (self.layer(x, mask) * self.weight).sum()


def test_encoder_layer_gradients_match_central_differences():
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=ms.float64)
    x, r = _x(3, 2, 4, dtype=np.float64), _x(3, 2, 4, dtype=np.float64)
    mask = np.triu(np.ones((3, 3), bool), 1)
    net = _Loss(layer, _t(r))
    params = net.trainable_params()
    ms.set_context(jit_target="python")
    _, (gx, gw) = ms.value_and_grad(net, 0, params)(_t(x), _t(mask))
    base = _params(layer)

    def loss(inp, p):
        return float((np_layer(inp, p, 2, masks=(mask, None)) * r).sum())

    def central(f, a, eps=1e-6):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            up = f()
            a[i] = old - eps
            g[i] = (up - f()) / (2 * eps)
            a[i] = old
        return g

    _close(gx.asnumpy(), central(lambda: loss(x, base), x), 1e-6)
    for param, grad in zip(params, gw, strict=True):
        key = param.name.removeprefix("layer.")
        _close(grad.asnumpy(), central(lambda: loss(x, base), base[key]), 1e-6)


# --- MindSpore itself (optional) ------------------------------------------------------------


ORACLE = textwrap.dedent("""
    import sys
    import numpy as np
    import mindspore as ms
    from mindspore import nn
    data = dict(np.load(sys.argv[1]))
    out = {}
    mha = nn.MultiheadAttention(6, 3, add_bias_kv=True, add_zero_attn=True, batch_first=True)
    layer = nn.TransformerEncoderLayer(6, 2, 8, activation="gelu", norm_first=True)
    model = nn.Transformer(6, 2, 1, 1, 8)
    for prefix, net in (("mha.", mha), ("layer.", layer), ("model.", model)):
        for name, p in net.parameters_and_names():
            p.set_data(ms.Tensor(data[prefix + name]))
    T = ms.Tensor
    out["mha"], out["mha_w"] = (t.asnumpy() for t in mha(
        T(data["q"]), T(data["k"]), T(data["k"]), key_padding_mask=T(data["kpm"]),
        attn_mask=T(data["float_mask"])))
    out["layer"] = layer(T(data["src"]), T(data["bool_mask"])).asnumpy()
    out["model"] = model(T(data["src"]), T(data["tgt"]),
                         tgt_mask=T(data["tgt_mask"])).asnumpy()
    np.savez(sys.argv[2], **out)
""")


@pytest.mark.skipif(not os.path.exists(PEER), reason="MindSpore 2.10 is not installed here")
def test_same_results_as_mindspore_on_the_same_weights(tmp_path):
    mha = nn.MultiheadAttention(6, 3, add_bias_kv=True, add_zero_attn=True, batch_first=True)
    layer = nn.TransformerEncoderLayer(6, 2, 8, activation="gelu", norm_first=True)
    model = nn.Transformer(6, 2, 1, 1, 8)
    data = {f"{prefix}{n}": v for prefix, net in (("mha.", mha), ("layer.", layer),
                                                  ("model.", model))
            for n, v in _params(net).items()}
    data.update(q=_x(2, 4, 6), k=_x(2, 5, 6), kpm=np.array([[0, 0, 0, 1, 0]] * 2, bool),
                float_mask=_x(4, 5), src=_x(5, 2, 6), bool_mask=np.eye(5, dtype=bool),
                tgt=_x(3, 2, 6), tgt_mask=np.triu(np.ones((3, 3), bool), 1))
    np.savez(tmp_path / "in.npz", **data)
    (tmp_path / "oracle.py").write_text(ORACLE)
    subprocess.run([PEER, "oracle.py", "in.npz", "out.npz"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    want = np.load(tmp_path / "out.npz")
    T = ms.Tensor
    out, weights = mha(T(data["q"]), T(data["k"]), T(data["k"]), key_padding_mask=T(data["kpm"]),
                       attn_mask=T(data["float_mask"]))
    _close(out.asnumpy(), want["mha"])
    _close(weights.asnumpy(), want["mha_w"])
    _close(layer(T(data["src"]), T(data["bool_mask"])).asnumpy(), want["layer"])
    _close(model(T(data["src"]), T(data["tgt"]), tgt_mask=T(data["tgt_mask"])).asnumpy(),
           want["model"])


"""The tiny Vision Transformer of ``tests/e2e/models/vit.py`` (patch convolution, class
token, position embedding, pre-norm blocks with fused-QKV attention and an exact-GELU
MLP) gives the same logits eagerly, in GRAPH_MODE on the python and numba targets, and as
msc's ONNX export run by onnxruntime (skipped where onnxruntime is not installed), all
against a float64 numpy forward written here from the weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import Tensor

from .cases.models import ROOT, load_file

DIM, HEADS, PATCH, DEPTH = 32, 4, 8, 2  # vit_tiny's


@pytest.fixture(scope="module")
def model():
    """vit_tiny with random weights (LayerNorm's gamma near 1), its weights and a batch of
    two 32x32 images."""
    module = load_file(ROOT / "tests" / "e2e" / "models" / "vit.py", "_vit_test_model")
    net = module.vit_tiny()
    rng = np.random.default_rng(7)
    weights = {}
    for name, param in net.parameters_dict().items():
        shape = tuple(param.shape)
        if name.endswith(".gamma"):
            w = rng.uniform(0.5, 1.5, shape)
        elif name.endswith(".weight"):
            w = rng.standard_normal(shape) / math.sqrt(np.prod(shape[1:]))
        else:
            w = rng.standard_normal(shape) * 0.5
        weights[name] = w.astype(np.float32)
        param.set_data(Tensor(weights[name]))
    x = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    return net, weights, x


def numpy_vit(w: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The ViT in float64 numpy: each patch a window of the image times the flattened
    kernel, each head's attention in a loop."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    b, grid = x.shape[0], x.shape[2] // PATCH
    kernel = w["patch_embed.proj.weight"].reshape(DIM, -1)
    tokens = np.empty((b, grid * grid, DIM))
    for i in range(grid):
        for j in range(grid):
            window = x[:, :, i * PATCH:(i + 1) * PATCH, j * PATCH:(j + 1) * PATCH]
            tokens[:, i * grid + j] = window.reshape(b, -1) @ kernel.T
    tokens += w["patch_embed.proj.bias"]
    h = np.concatenate([np.tile(w["cls_token"], (b, 1, 1)), tokens], 1) + w["pos_embed"]

    def norm(name, t):
        mean, var = t.mean(-1, keepdims=True), t.var(-1, keepdims=True)
        return (t - mean) / np.sqrt(var + 1e-6) * w[f"{name}.gamma"] + w[f"{name}.beta"]

    def dense(name, t):
        return t @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    hd = DIM // HEADS
    erf = np.vectorize(math.erf)
    for layer in range(DEPTH):
        a = f"blocks.{layer}."
        qkv = dense(a + "attn.qkv", norm(a + "norm1", h))
        heads = []
        for head in range(HEADS):
            q, k, v = (qkv[..., part * DIM + head * hd:part * DIM + (head + 1) * hd]
                       for part in range(3))
            s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
            p = np.exp(s - s.max(-1, keepdims=True))
            heads.append(p / p.sum(-1, keepdims=True) @ v)
        h = h + dense(a + "attn.proj", np.concatenate(heads, -1))
        m = dense(a + "mlp.fc1", norm(a + "norm2", h))
        h = h + dense(a + "mlp.fc2", 0.5 * m * (1.0 + erf(m / math.sqrt(2.0))))
    return dense("head", norm("norm", h)[:, 0])


def test_eager_and_graph_targets_match_numpy(model):
    net, weights, x = model
    want = numpy_vit(weights, x)
    assert want.shape == (2, 10) and want.std() > 0.1
    results = {"eager": net(Tensor(x)).asnumpy()}
    for target in ("python", "numba"):
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
        results[target] = net(Tensor(x)).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for mode, got in results.items():
        assert got.dtype == np.float32 and got.shape == want.shape, mode
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=mode)


def test_the_class_token_and_positions_count(model):
    """The logits read the class token, and the position embedding tells patches apart:
    swapping two patches of the image changes the logits."""
    net, weights, x = model
    swapped = x.copy()
    swapped[:, :, :8, :8], swapped[:, :, :8, 8:16] = x[:, :, :8, 8:16], x[:, :, :8, :8]
    a, b = net(Tensor(x)).asnumpy(), net(Tensor(swapped)).asnumpy()
    np.testing.assert_allclose(b, numpy_vit(weights, swapped), rtol=1e-4, atol=1e-5)
    assert np.abs(a - b).max() > 1e-3


def test_onnx_export_runs_in_onnxruntime(model, tmp_path):
    ort = pytest.importorskip("onnxruntime", reason="the ViT's ONNX export is run by "
                              "onnxruntime: pip install 'msc[onnx]'")
    net, weights, x = model
    path = ms.export(net, Tensor(x), file_name=str(tmp_path / "vit"), file_format="ONNX")
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {session.get_inputs()[0].name: x})
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, numpy_vit(weights, x), rtol=1e-4, atol=1e-5)

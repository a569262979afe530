"""What a deeper model costs to compile: the kernels of the library (``outline.py``,
``library.py``) are keyed by structure, not by position or size, so a model of N identical
blocks needs as many distinct kernels as one of a single block, and a deeper model only
calls them more often. Code generation only: nothing is handed to Numba."""

from __future__ import annotations

import re

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.codegen import outline as outlining
from msc.codegen.lower import lower_module
from tests.codegen import compile_fn
from tests.e2e.models.bert_base import BertClassifier, BertEncoder, ClassifierLoss
from tests.e2e.models.resnet import BasicBlock

BATCH, SEQ, VOCAB = 2, 4, 16


def encoder(depth: int) -> nn.Cell:
    """BERT-shaped encoder layers (attention, padding mask, GELU FFN, LayerNorm), tiny."""
    return BertEncoder(depth, vocab=VOCAB, seq=SEQ, hidden=8, heads=2, ffn=16)


def encoder_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    mask = np.ones((BATCH, SEQ), np.int32)
    mask[-1, -1] = 0
    return [rng.integers(0, VOCAB, (BATCH, SEQ)).astype(np.int32), mask]


def fine_tuning_step(depth: int) -> nn.Cell:
    """A training step over the encoder: its gradients and AdamWeightDecay's update."""
    net = BertClassifier(depth, vocab=VOCAB, seq=SEQ, hidden=8, heads=2, ffn=16)
    opt = nn.AdamWeightDecay(net.trainable_params(), 1e-3, weight_decay=0.01)
    step = nn.TrainOneStepCell(ClassifierLoss(net), opt)
    step.set_train(True)
    return step


def step_inputs() -> list[np.ndarray]:
    return [*encoder_inputs(), np.array([0, 1], np.int32)]


def conv_stack(depth: int) -> nn.Cell:
    """ResNet basic blocks (``tests/e2e/models/resnet.py``): convolution, batch norm, ReLU,
    the identity shortcut."""
    return nn.SequentialCell([BasicBlock(4, 4) for _ in range(depth)])


def conv_inputs() -> list[np.ndarray]:
    return [np.random.default_rng(0).normal(size=(2, 4, 6, 6)).astype(np.float32)]


MODELS = {"encoder": (encoder, encoder_inputs), "fine-tuning": (fine_tuning_step, step_inputs),
          "conv": (conv_stack, conv_inputs)}


def kernels(make, inputs, depth: int) -> tuple[set[str], int]:
    """The distinct kernels the numba module of ``make(depth)`` calls, and its calls."""
    net = make(depth)
    if not net.training:
        net.set_train(False)
    spec = lower_module(compile_fn(net, inputs()).module, "numba", "test")
    names = {name for name, _ in spec.library} | {k.name for k in spec.callees}
    calls = [c for c in re.findall(r"\b(_k_\w+)\(", "\n".join(spec.kernel.lines))
             if c in names]
    return names, len(calls)


@pytest.mark.parametrize("model", MODELS)
def test_the_kernels_do_not_grow_with_the_number_of_identical_blocks(model, monkeypatch):
    monkeypatch.setattr(outlining, "OUTLINE_LINES", 0)  # outline however small
    make, inputs = MODELS[model]
    # from two blocks on: the first block may fuse differently where it meets what comes
    # before it (the encoder's attention mask, computed once, joins the first block's loop)
    two, calls_two = kernels(make, inputs, 2)
    four, calls_four = kernels(make, inputs, 4)
    assert two and four == two  # the same kernels, by name (a hash of their source) ...
    assert calls_four > calls_two  # ... called more often


def test_the_tiny_encoder_is_the_models_own_math():
    """The model the counts are taken on computes what its numpy twin does (eager)."""
    import math

    net = encoder(2)
    net.set_train(False)
    ids, mask = encoder_inputs()
    got = net(ms.Tensor(ids), ms.Tensor(mask)).asnumpy()
    p = {k: v.asnumpy().astype(np.float64) for k, v in net.parameters_dict().items()}

    def ln(x, name):
        c = x - x.mean(-1, keepdims=True)
        return c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-12) * p[f"{name}.gamma"] \
            + p[f"{name}.beta"]

    def dense(x, name):
        return x @ p[f"{name}.weight"].T + p[f"{name}.bias"]

    x = p["word_embeddings.embedding_table"][ids] + p["position_embeddings.embedding_table"] \
        + p["token_type_embeddings.embedding_table"][0]
    x = ln(x, "embedding_norm")
    bias = (1.0 - mask[:, None, None, :]) * -10000.0
    erf = np.vectorize(math.erf)
    for i in range(2):
        a = f"layers.{i}."
        q, k, v = (dense(x, f"{a}attention.{n}").reshape(BATCH, SEQ, 2, 4).transpose(0, 2, 1, 3)
                   for n in ("query", "key", "value"))
        s = q @ k.transpose(0, 1, 3, 2) / 2.0 + bias
        e = np.exp(s - s.max(-1, keepdims=True))
        ctx = ((e / e.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(BATCH, SEQ, 8)
        x = ln(x + dense(ctx, f"{a}attention_out"), f"{a}attention_norm")
        h = dense(x, f"{a}intermediate")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = ln(x + dense(h, f"{a}output"), f"{a}output_norm")
    np.testing.assert_allclose(got, x, rtol=1e-4, atol=1e-5)


class Windows(nn.Cell):
    """Convolutions of four windows (kernel, stride, padding, dilation), each too narrow
    for shifted products, and a 1-D one; deep enough for gemm both ways."""

    def __init__(self):
        super().__init__()
        self.same = nn.Conv2d(8, 32, 3, pad_mode="pad", padding=1)
        self.down = nn.Conv2d(8, 32, 3, stride=2, pad_mode="pad", padding=1)
        self.wide = nn.Conv2d(8, 32, 7, stride=2, pad_mode="pad", padding=3)
        self.dilated = nn.Conv2d(8, 32, 3, pad_mode="pad", padding=2, dilation=2)
        self.line = nn.Conv1d(8, 32, 5, stride=2, pad_mode="pad", padding=1)

    def construct(self, x):
        return self.same(x).sum() + self.down(x).sum() + self.wide(x).sum() + \
            self.dilated(x).sum() + self.line(x[:, :, 0]).sum()


def test_convolution_windows_are_views_the_driver_copies(monkeypatch):
    """A convolution's windows are a strided view of its zero-bordered input, which the
    driver copies into the columns (numpy's copy), and a transposed one's columns are
    added tap by tap into a bordered accumulator by the driver: the convolutions of a
    training step, forward and backward, 1-D or 2-D, compile no kernel of their own. Nor
    do the products, numpy's, one call over a stack of examples: no kernel links BLAS."""
    monkeypatch.setattr(outlining, "OUTLINE_LINES", 0)
    net = Windows()
    x = np.random.default_rng(1).normal(size=(2, 8, 9, 9)).astype(np.float32)

    grad = ms.ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    spec = lower_module(compile_fn(grad, [x]).module, "numba", "test")
    calls = "\n".join(spec.kernel.lines)
    kernels = [source for stem, source in spec.library_files if not stem.startswith("_msc_rt_")]
    # five forward windows, and each filter gradient's (a convolution of the input too)
    assert len(re.findall(r"^\w+ = np\.lib\.stride_tricks\.as_strided\(", calls, re.M)) >= 10
    assert re.search(r"^\w+\[:, :, [\d:, ]+\] \+= tap\w*$", calls, re.M), calls  # col2im's
    assert not any("as_strided" in source or "_rt_matmul" in source for source in kernels)
    # col2im's products, one call over the batch's stack (the loop over examples gone)
    assert re.search(r"^_rt_products\(\w+\.T, \w+\[:2\], \w+\[:2\]\)", calls, re.M), calls
    assert not re.search(r"^\s*for ", calls, re.M), calls


class Ranks(nn.Cell):
    """One chain over arrays of four, three and two dimensions, and over a (1, C, 1, 1)
    per-channel array: each ends in a reduction."""

    def construct(self, a, b, c, s):
        return [(ms.ops.relu(x * 2.0 + 1.0) - 3.0).sum() for x in (a, b, c, s)]


def test_one_structure_is_one_kernel_at_every_rank(monkeypatch):
    """The loops of a chain over whole arrays merge into one (``fusion.merged_axes``): the
    library holds one kernel for all four calls, whatever their rank."""
    monkeypatch.setattr(outlining, "OUTLINE_LINES", 0)
    rng = np.random.default_rng(2)
    inputs = [rng.normal(size=shape).astype(np.float32)
              for shape in ((2, 3, 4, 5), (6, 7, 8), (9, 10), (1, 11, 1, 1))]
    spec = lower_module(compile_fn(Ranks(), inputs).module, "numba", "test")
    chains = {name for name, stem in spec.library
              if "np.maximum(" in dict(spec.library_files)[stem]}
    calls = re.findall(r"\b(_k_\w+)\(", "\n".join(spec.kernel.lines))
    assert len(chains) == 1 and sum(c in chains for c in calls) == 4, spec.kernel.lines
    got = [float(x.asnumpy()) for x in Ranks()(*map(ms.Tensor, inputs))]
    want = [float((np.maximum(x * 2 + 1, 0) - 3).sum(dtype=np.float64)) for x in inputs]
    np.testing.assert_allclose(got, want, rtol=1e-5)

"""``msc.export(..., file_format="ONNX")`` and ``msc.onnx.export``: the exported model, run
by onnxruntime, gives what msc gives for LeNet-5, ResNet's basic block (batch norm in
inference mode), the README's MLP, a transformer encoder layer, tensor ``if``s and a
``while`` loop; every op of the primitive table converts or is listed with its reason; an
op without an ONNX form is msc's error at the user's line; MINDIR and AIR say they are
not supported. Skipped where onnx or onnxruntime is not installed
(``pip install 'msc[onnx]'``)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.errors import ExportError
from tests.e2e.cases.models import ROOT

onnx = pytest.importorskip("onnx", reason="ONNX export tests need onnx: pip install 'msc[onnx]'")
ort = pytest.importorskip("onnxruntime",
                          reason="ONNX round trips need onnxruntime: pip install 'msc[onnx]'")

sys.path[:0] = [str(ROOT / "tests" / "e2e" / "models"), str(ROOT / "examples")]
from lenet import LeNet5  # noqa: E402
from mlp import MLP  # noqa: E402
from resnet_block import BasicBlock  # noqa: E402
from select_vs_if import if_net  # noqa: E402

F32 = np.float32


def run_onnx(path, *arrays):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})


def leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in leaves(v)]
    return [value.asnumpy() if isinstance(value, ms.Tensor) else np.asarray(value)]


def check_round_trip(net, arrays, tmp_path, rtol=1e-5, atol=1e-5):
    path = ms.export(net, *[ms.Tensor(a) for a in arrays], file_name=str(tmp_path / "net"),
                     file_format="ONNX")
    assert path == str(tmp_path / "net.onnx")
    got = run_onnx(path, *arrays)
    want = leaves(net(*[ms.Tensor(a) for a in arrays]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return onnx.load(path)


def test_lenet5_round_trip_with_weights_as_initializers(tmp_path, rng):
    model = check_round_trip(LeNet5(), [rng.standard_normal((2, 1, 32, 32)).astype(F32)],
                             tmp_path)
    names = {i.name for i in model.graph.initializer}
    assert {"conv1.weight", "fc1.weight", "fc3.bias"} <= names
    assert [i.name for i in model.graph.input] == ["x"]  # the weights are not inputs
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [2, 1, 32, 32]  # static: the example input's shape
    assert model.opset_import[0].version == 17


def test_resnet_basic_block_exports_batch_norm_in_inference_mode(tmp_path, rng):
    block = BasicBlock().set_train(True)  # as after training: export infers
    for name, p in block.parameters_and_names():  # statistics unlike the initial 0 and 1
        if "moving" in name:
            p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(F32)))
    x = rng.standard_normal((2, 8, 8, 8)).astype(F32)
    path = ms.export(block, ms.Tensor(x), file_name=str(tmp_path / "block.onnx"),
                     file_format="ONNX")
    assert block.training  # export switched to inference and back
    block.set_train(False)
    np.testing.assert_allclose(run_onnx(path, x)[0], block(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)


def test_readme_mlp_round_trip_with_its_shape_output(tmp_path, rng):
    """The MLP returns (probabilities, y.shape): the shape's ints are int64 outputs."""
    check_round_trip(MLP(), [rng.standard_normal((4, 64)).astype(F32)], tmp_path)


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_transformer_encoder_layer_round_trip(tmp_path, rng, activation):
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation=activation)
    layer.set_train(False)
    check_round_trip(layer, [rng.standard_normal((2, 5, 16)).astype(F32)], tmp_path,
                     rtol=1e-4, atol=1e-5)


def test_tensor_ifs_become_onnx_if_nodes(tmp_path):
    """The tutorial's if_net with its branches kept: 100 ONNX Ifs, -5050 as in Python."""
    ms.set_context(if_to_select=False)
    x, y = np.array([0]), np.array([1])
    path = ms.export(if_net, ms.Tensor(x), ms.Tensor(y), file_name=str(tmp_path / "if_net"))
    model = onnx.load(path)
    assert sum(n.op_type == "If" for n in model.graph.node) == 100
    value, out = 0, 0
    for _ in range(100):
        value = value - 1 if value < 1 else value + 1
        out += value
    assert run_onnx(path, x, y)[0].tolist() == [out] == [-5050]


@ms.jit
def halve_until_small(x, n):
    while x.max() > 1.0:
        x = x / 2.0
        n = n + 1
    return x, n


def test_while_loop_becomes_an_onnx_loop(tmp_path):
    x = np.array([3.0, 40.0], F32)
    path = ms.export(halve_until_small, ms.Tensor(x), ms.Tensor(np.array(0)),
                     file_name=str(tmp_path / "loop"))
    assert any(n.op_type == "Loop" for n in onnx.load(path).graph.node)
    got_x, got_n = run_onnx(path, x, np.array(0))
    np.testing.assert_array_equal(got_x, x / 64)  # 40 needs six halvings to reach 1
    assert int(got_n) == 6


class Elementwise(nn.Cell):
    """Ops the exporter composes from others, weak scalars, integer floor division."""

    def construct(self, x, i):
        a = ops.expm1(x) + ops.log1p(ops.abs(x)) + ops.erfc(x) + ops.softplus(x)
        b = ops.floor_mod(x, 0.7) + ops.trunc(x * 3) + ops.rsqrt(ops.abs(x) + 1)
        c = ops.clip_by_value(x, -0.5, 0.5) + ops.hypot(x, 2.0) + ops.log2(ops.abs(x) + 1)
        d = ops.floor_div(i, 3) + ops.floor_mod(i, -3) + (i > 0).astype(ms.int32)
        return a * b - c, d, ops.cumsum(x, 1), ops.argmax(x, 1), x.mean((0,), True)


def test_composed_elementwise_and_reduction_ops(tmp_path, rng):
    x = rng.standard_normal((3, 4)).astype(F32)
    i = rng.integers(-7, 8, (3, 4)).astype(np.int32)
    check_round_trip(Elementwise(), [x, i], tmp_path)


class Indexing(nn.Cell):
    def construct(self, x, idx):
        parts = ops.split(x, 2, 1)
        y = ops.concat((parts[1], parts[0]), 0)
        z = ops.stack((x[1:, ::-2], x[:2, 1::2]), 0)
        return y[::2, None, 1], z, ops.gather(x, idx, 0), ops.tile(x[0], (2, 1)).T


def test_slicing_splitting_and_gathering(tmp_path, rng):
    x = rng.standard_normal((3, 4)).astype(F32)
    check_round_trip(Indexing(), [x, np.array([2, 0, -1], np.int32)], tmp_path)


class Decoder(nn.Cell):
    """Transposed convolutions: strided, grouped, dilated with padding, and the input
    gradient of a stride-2 convolution of a 6x6 input (ONNX's output_padding makes up the
    row and column that convolution did not reach)."""

    def __init__(self):
        super().__init__()
        self.up = nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="same")
        self.grouped = nn.Conv2dTranspose(6, 4, 2, stride=2, group=2)
        self.dilated = nn.Conv2dTranspose(4, 2, 3, pad_mode="pad", padding=1, dilation=2)
        self.grad_input = ops.Conv2DBackpropInput(2, 3, stride=2)
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 36, dtype=F32).reshape(2, 2, 3, 3)),
                              name="w")

    def construct(self, x):
        y = self.dilated(self.grouped(self.up(x)))
        return y, self.grad_input(y[:, :, :2, :2], self.w, (2, 2, 6, 6))


def test_transposed_convolutions(tmp_path, rng):
    check_round_trip(Decoder(), [rng.standard_normal((2, 4, 5, 5)).astype(F32)], tmp_path)


class Sorted(nn.Cell):
    def construct(self, x):
        y = x * 2
        values, _ = ops.sort(y)
        return values


def test_an_op_without_onnx_form_is_an_error_at_the_users_line(tmp_path):
    with pytest.raises(ExportError) as info:
        ms.export(Sorted(), ms.Tensor(np.ones((2, 3), F32)), file_name=str(tmp_path / "s"),
                  file_format="ONNX")
    text = str(info.value)
    assert "'Sort'" in text and "stable order" in text
    assert f"{__file__}:{Sorted.construct.__code__.co_firstlineno + 2}:" in text
    assert not (tmp_path / "s.onnx").exists()


class CTC(nn.Cell):
    def construct(self, log_probs, targets, input_lengths, target_lengths):
        return ops.ctc_loss(log_probs, targets, input_lengths, target_lengths)


def test_the_ctc_loss_is_refused_with_its_reason(tmp_path):
    args = (ms.Tensor(np.full((4, 2, 3), -np.log(3), F32)),
            ms.Tensor(np.array([[1, 2], [2, 0]], np.int32)),
            ms.Tensor(np.array([4, 3], np.int32)), ms.Tensor(np.array([2, 1], np.int32)))
    with pytest.raises(ExportError, match="'CTCLossV2': ONNX has no CTC loss operator"):
        ms.export(CTC(), *args, file_name=str(tmp_path / "c"), file_format="ONNX")
    assert not (tmp_path / "c.onnx").exists()


@pytest.mark.parametrize("fmt", ["MINDIR", "AIR"])
def test_mindir_and_air_are_not_supported(tmp_path, fmt):
    with pytest.raises(ExportError, match=f"file_format='{fmt}'.* not supported by msc"):
        ms.export(LeNet5(), ms.Tensor(np.ones((1, 1, 32, 32), F32)),
                  file_name=str(tmp_path / "lenet"), file_format=fmt)
    assert not list(tmp_path.iterdir())


def test_unknown_format_is_a_value_error_and_dynamic_axes_are_refused(tmp_path):
    x = ms.Tensor(np.ones((1, 64), F32))
    with pytest.raises(ValueError, match="must be one of"):
        ms.export(MLP(), x, file_name=str(tmp_path / "m"), file_format="TFLITE")
    with pytest.raises(ValueError, match="dynamic_axes is not supported"):
        ms.onnx.export(MLP(), x, file_name=str(tmp_path / "m"), dynamic_axes={"x": {0: "n"}})


def test_names_and_weights_as_inputs(tmp_path, rng):
    """``input_names``/``output_names`` name the graph's tensors; ``export_params=False``
    makes the weights inputs the caller feeds."""
    net, x = LeNet5(), rng.standard_normal((1, 1, 32, 32)).astype(F32)
    path = ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "l.onnx"),
                          input_names=["image"], output_names=["logits"], export_params=False)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feed = {"image": x, **{p.name: p.asnumpy() for p in net.get_parameters()}}
    assert [i.name for i in sess.get_inputs()] == list(feed)
    (logits,) = sess.run(["logits"], feed)
    np.testing.assert_allclose(logits, net(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)


def test_every_primitive_converts_or_says_why_not():
    from msc.ir.primitives import PRIMITIVES
    from msc.onnx.ops import CONVERTERS, NOT_EXPORTED

    converted = {p.name for p in CONVERTERS}
    refused = {p.name for p in NOT_EXPORTED}
    assert not converted & refused
    assert converted | refused == set(PRIMITIVES)

"""Convolution and pooling layers and ops: eager == GRAPH_MODE on both targets == naive
numpy loops; MindSpore's parameter names and shapes; gradients against central
differences; a LeNet-5 in graph mode; the errors for bad arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen.cases_conv import naive_conv, naive_conv_transpose, naive_max_pool

TARGETS = ["numba", "python"]
RNG = np.random.default_rng(7)


def _x(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, shape).astype(np.float32)


def _graph(net: Any, *inputs: np.ndarray, target: str) -> Any:
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    try:
        out = net(*(Tensor(x) for x in inputs))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return out


def _numpy(out: Any) -> Any:
    return tuple(_numpy(o) for o in out) if isinstance(out, tuple) else out.asnumpy()


def naive_avg_pool(x: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
                   pad: tuple[int, ...], counted: tuple[int, ...] | None) -> np.ndarray:
    """Window means: the sum over in-range taps over the taps inside the input grown by
    ``counted`` per side (None: the whole kernel)."""
    nd = x.ndim - 2
    size = tuple((x.shape[2 + i] + pad[2 * i] + pad[2 * i + 1] - kernel[i]) // stride[i] + 1
                 for i in range(nd))
    out = np.zeros(x.shape[:2] + size, x.dtype)
    for lead in np.ndindex(*x.shape[:2]):
        for p in np.ndindex(*size):
            total, count = 0.0, 0
            for tap in np.ndindex(*kernel):
                at = [p[i] * stride[i] - pad[2 * i] + tap[i] for i in range(nd)]
                if all(0 <= at[i] < x.shape[2 + i] for i in range(nd)):
                    total += x[lead + tuple(at)]
                if counted is None or all(-counted[i] <= at[i] < x.shape[2 + i] + counted[i]
                                          for i in range(nd)):
                    count += 1
            out[lead + p] = total / count
    return out


class Layers(nn.Cell):
    """Every layer at once (one compile per target)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(4, 6, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.conv2 = nn.Conv2d(4, 6, (3, 2), pad_mode="same", group=2, dilation=(1, 2))
        self.conv2p = nn.Conv2d(4, 2, 2, pad_mode="pad", padding=(1, 0, 2, 1), stride=2)
        self.conv3 = nn.Conv3d(4, 2, 2, pad_mode="valid", has_bias=True)
        self.up2 = nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="same", has_bias=True)
        self.up2p = nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=1,
                                       output_padding=1, group=2)
        self.up1 = nn.Conv1dTranspose(4, 3, 2, stride=3, pad_mode="valid")
        self.max1 = nn.MaxPool1d(3, 2, pad_mode="same")
        self.max2 = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True)
        self.avg1 = nn.AvgPool1d(3, 2, pad_mode="pad", padding=1, count_include_pad=False)
        self.avg2 = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1)
        self.avg2s = nn.AvgPool2d(2, 2, pad_mode="same")
        self.aavg1 = nn.AdaptiveAvgPool1d(4)
        self.aavg2 = nn.AdaptiveAvgPool2d((3, None))
        self.amax2 = nn.AdaptiveMaxPool2d((2, 4))

    def construct(self, x1: Any, x2: Any, x3: Any) -> Any:
        return (self.conv1(x1), self.conv2(x2), self.conv2p(x2), self.conv3(x3), self.up2(x2),
                self.up2p(x2), self.up1(x1), self.max1(x1), self.max2(x2), self.avg1(x1),
                self.avg2(x2), self.avg2s(x2), self.aavg1(x1), self.aavg2(x2), self.amax2(x2))


def _adaptive(x: np.ndarray, sizes: tuple[int, ...], reduce: Any) -> np.ndarray:
    nd = len(sizes)
    out = np.zeros(x.shape[:-nd] + sizes, x.dtype)
    for p in np.ndindex(*sizes):
        box = tuple(slice(i * n // s, -(-(i + 1) * n // s))
                    for i, n, s in zip(p, x.shape[-nd:], sizes))
        out[(...,) + p] = reduce(x[(...,) + box], axis=tuple(range(-nd, 0)))
    return out


def _expected(net: Layers, x1: np.ndarray, x2: np.ndarray, x3: np.ndarray) -> tuple[Any, ...]:
    w = {name: p.asnumpy() for name, p in net.parameters_and_names()}
    w1 = w["conv1.weight"][:, :, 0]
    return (
        naive_conv(x1, w1, (2,), (1,), (1, 1)) + w["conv1.bias"][:, None],
        # 'same' on (7, 6) with kernel (3, 2), dilation (1, 2): spans 3, pads (1, 1) twice
        naive_conv(x2, w["conv2.weight"], (1, 1), (1, 2), (1, 1, 1, 1), 2),
        naive_conv(x2, w["conv2p.weight"], (2, 2), (1, 1), (1, 0, 2, 1)),
        naive_conv(x3, w["conv3.weight"], (1, 1, 1), (1, 1, 1), (0,) * 6)
        + w["conv3.bias"][:, None, None, None],
        # 'same', stride 2: (14, 12) out; the kernel 3 needs one unit of padding, after
        naive_conv_transpose(x2, w["up2.weight"], (2, 2), (1, 1), (0, 1, 0, 1), 1, (14, 12))
        + w["up2.bias"][:, None, None],
        np.pad(naive_conv_transpose(x2, w["up2p.weight"], (2, 2), (1, 1), (1, 1, 1, 1), 2,
                                    (13, 11)), ((0, 0), (0, 0), (0, 1), (0, 1))),
        naive_conv_transpose(x1, w["up1.weight"][:, :, 0], (3,), (1,), (0, 0), 1, (27,)),
        naive_max_pool(x1, (3,), (2,), (1, 1)),
        naive_max_pool(x2, (3, 3), (2, 2), (1, 1, 1, 2)),  # ceil mode: one more column
        naive_avg_pool(x1, (3,), (2,), (1, 1), (0,)),
        naive_avg_pool(x2, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),
        naive_avg_pool(x2, (2, 2), (2, 2), (0, 1, 0, 0), (0, 0)),
        _adaptive(x1, (4,), np.mean), _adaptive(x2, (3, 6), np.mean),
        _adaptive(x2, (2, 4), np.max),
    )


def test_layers_eager_and_graph_on_both_targets_match_numpy_loops() -> None:
    ms.set_seed(5)
    net = Layers()
    inputs = (_x(2, 4, 9), _x(2, 4, 7, 6), _x(1, 4, 3, 4, 3))
    want = _expected(net, *inputs)
    eager = _numpy(net(*(Tensor(x) for x in inputs)))
    for i, (got, expect) in enumerate(zip(eager, want)):
        assert got.dtype == np.float32 and got.shape == expect.shape, i
        np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-5, err_msg=str(i))
    for target in TARGETS:
        graph = _numpy(_graph(net, *inputs, target=target))
        for i, (got, expect) in enumerate(zip(graph, eager)):
            np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5,
                                       err_msg=f"{target} {i}")


# MindSpore 2.10 prints these names and shapes for the same constructor calls
@pytest.mark.parametrize("make, want", [
    (lambda: nn.Conv1d(4, 6, 3), [("weight", (6, 4, 1, 3))]),
    (lambda: nn.Conv2d(4, 6, 3), [("weight", (6, 4, 3, 3))]),
    (lambda: nn.Conv3d(4, 6, 3), [("weight", (6, 4, 3, 3, 3))]),
    (lambda: nn.Conv2d(4, 6, 3, has_bias=True, group=2), [("weight", (6, 2, 3, 3)),
                                                          ("bias", (6,))]),
    (lambda: nn.Conv2dTranspose(4, 6, 3, has_bias=True, group=2), [("weight", (4, 3, 3, 3)),
                                                                   ("bias", (6,))]),
    (lambda: nn.Conv1dTranspose(4, 6, 3, has_bias=True), [("weight", (4, 6, 1, 3)),
                                                          ("bias", (6,))]),
])
def test_parameter_names_and_shapes_follow_mindspore(make: Any, want: Any) -> None:
    net = make()
    assert [(p.name, p.shape) for p in net.get_parameters()] == want
    assert net.pad_mode == "same" and net.weight.dtype == ms.float32


def test_default_initialisers_are_bounded_like_mindspores() -> None:
    """HeUniform(sqrt(5)) weights and Uniform(1/sqrt(fan_in)) bias: both within
    1/sqrt(fan_in), fan_in = in/group * prod(kernel)."""
    ms.set_seed(0)
    net = nn.Conv2d(8, 16, 3, has_bias=True, group=2)
    bound = 1 / np.sqrt(4 * 9)
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(b).max() <= bound and np.unique(b).size == 16


class SmallNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, stride=(2, 1), pad_mode="pad", padding=1,
                              has_bias=True, group=2)
        self.up = nn.Conv2dTranspose(4, 2, 2, stride=2, pad_mode="valid")
        self.pool = nn.MaxPool2d(2, 1)
        self.avg = nn.AvgPool2d(2, 2, pad_mode="same")

    def construct(self, x: Any) -> Any:
        y = self.pool(ops.tanh(self.conv(x)))
        return (self.avg(self.up(y)) * self.avg(self.up(y))).sum()


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
def test_small_conv_net_gradients_match_central_differences(mode: str) -> None:
    ms.set_seed(2)
    net = SmallNet()
    params = net.trainable_params()
    x = RNG.uniform(-1, 1, (2, 2, 6, 5)).astype(np.float64).astype(np.float32)
    grad = ops.GradOperation(get_all=True, get_by_list=True)(net, params)
    if mode == "eager":
        (dx,), dparams = grad(Tensor(x))
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
        (dx,), dparams = grad(Tensor(x))
        ms.set_context(mode=ms.PYNATIVE_MODE)
    values = [x] + [p.asnumpy().copy() for p in params]
    analytic = [dx.asnumpy()] + [d.asnumpy() for d in dparams]

    def loss(arrays: list[np.ndarray]) -> float:
        for p, v in zip(params, arrays[1:]):
            p.set_data(Tensor(v.astype(np.float32)))
        out = float(net(Tensor(arrays[0].astype(np.float32))).asnumpy())
        for p, v in zip(params, values[1:]):
            p.set_data(Tensor(v))
        return out

    eps = 1e-3
    for k, (value, got) in enumerate(zip(values, analytic)):
        direction = RNG.standard_normal(value.shape)
        plus = [v + eps * direction if j == k else v for j, v in enumerate(values)]
        minus = [v - eps * direction if j == k else v for j, v in enumerate(values)]
        numeric = (loss(plus) - loss(minus)) / (2 * eps)
        np.testing.assert_allclose(np.sum(got * direction), numeric, rtol=2e-2, atol=2e-3,
                                   err_msg=f"{mode} operand {k}")


class LeNet5(nn.Cell):
    def __init__(self, num_class: int = 10, num_channel: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x: Any) -> Any:
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


@pytest.mark.parametrize("target", TARGETS)
def test_lenet5_runs_in_graph_mode(target: str) -> None:
    ms.set_seed(1)
    net = LeNet5()
    x = _x(3, 1, 32, 32)
    w = {name: p.asnumpy() for name, p in net.parameters_and_names()}
    h = naive_max_pool(np.maximum(naive_conv(x, w["conv1.weight"], (1, 1), (1, 1), (0,) * 4),
                                  0), (2, 2), (2, 2), (0,) * 4)
    h = naive_max_pool(np.maximum(naive_conv(h, w["conv2.weight"], (1, 1), (1, 1), (0,) * 4),
                                  0), (2, 2), (2, 2), (0,) * 4).reshape(3, -1)
    for i in (1, 2):
        h = np.maximum(h @ w[f"fc{i}.weight"].T + w[f"fc{i}.bias"], 0)
    want = h @ w["fc3.weight"].T + w["fc3.bias"]
    got = _graph(net, x, target=target).asnumpy()
    assert got.shape == (3, 10) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), got, rtol=1e-5, atol=1e-6)


def test_ops_forms_match_numpy_loops() -> None:
    x, w = _x(2, 4, 5, 6), _x(6, 2, 2, 3)
    got = ops.conv2d(Tensor(x), Tensor(w), Tensor(np.ones(6, np.float32)), stride=2,
                     pad_mode="pad", padding=(1, 2), groups=2).asnumpy()
    want = naive_conv(x, w, (2, 2), (1, 1), (1, 1, 2, 2), 2) + 1
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    cls = ops.Conv2D(6, (2, 3), pad_mode="pad", pad=(1, 0, 0, 2), group=2)(Tensor(x), Tensor(w))
    np.testing.assert_allclose(cls.asnumpy(), naive_conv(x, w, (1, 1), (1, 1), (1, 0, 0, 2), 2),
                               rtol=1e-5, atol=1e-5)
    dy = _x(2, 6, 5, 6)
    back = ops.Conv2DBackpropInput(6, (2, 3), pad_mode="pad", pad=(1, 0, 0, 2), group=2)(
        Tensor(dy), Tensor(w), (2, 4, 5, 6))
    np.testing.assert_allclose(back.asnumpy(), naive_conv_transpose(
        dy, w, (1, 1), (1, 1), (1, 0, 0, 2), 2, (5, 6)), rtol=1e-5, atol=1e-5)
    x3, w3 = _x(1, 2, 4, 3, 5), _x(3, 2, 2, 1, 3)
    np.testing.assert_allclose(ops.conv3d(Tensor(x3), Tensor(w3), dilation=(1, 1, 2)).asnumpy(),
                               naive_conv(x3, w3, (1,) * 3, (1, 1, 2), (0,) * 6),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ops.MaxPool(2, 2, "same")(Tensor(x)).asnumpy(),
                               naive_max_pool(x, (2, 2), (2, 2), (0, 1, 0, 0)))
    np.testing.assert_allclose(ops.AvgPool(3, 2, "same")(Tensor(x)).asnumpy(),
                               naive_avg_pool(x, (3, 3), (2, 2), (1, 1, 0, 1), (0, 0)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.avg_pool2d(Tensor(x), 2, 2, divisor_override=3).asnumpy(),
                               naive_avg_pool(x, (2, 2), (2, 2), (0,) * 4, None) * 4 / 3,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.adaptive_max_pool2d(Tensor(x), (3, 4)).asnumpy(),
                               _adaptive(x, (3, 4), np.max))
    np.testing.assert_allclose(ops.AdaptiveAvgPool2D(2)(Tensor(x)).asnumpy(),
                               _adaptive(x, (2, 2), np.mean), rtol=1e-5, atol=1e-6)


def test_max_pool_gradient_goes_to_the_first_maximum_of_a_tie() -> None:
    x = np.array([[[[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]]]], np.float32)
    dx = ops.grad(lambda t: ops.max_pool2d(t, 2, 1).sum())(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(dx, [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0]]]])


@pytest.mark.parametrize("size", [9, 40])  # 3 x 121 and 3 x 1764 output positions
def test_eager_conv_on_either_side_of_the_batched_matmul(size: int) -> None:
    """The numpy runtime multiplies the whole batch at once up to 4096 output positions
    and image by image above: both against the naive loops, dilated."""
    x, w = _x(3, 2, size + 4, size + 4), _x(4, 2, 3, 3)
    got = ops.conv2d(Tensor(x), Tensor(w), stride=1, pad_mode="pad", padding=1,
                     dilation=2).asnumpy()
    want = naive_conv(x, w, (1, 1), (2, 2), (1, 1, 1, 1), 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


class _Pool(nn.Cell):
    """The MaxPool primitive's own rules (``ops.max_pool2d`` follows MindSpore's
    MaxPoolWithArgmaxV2: no maximum below the dtype's lowest value, a NaN never wins)."""

    def __init__(self) -> None:
        super().__init__()
        self.pool = nn.MaxPool2d(2, 2, "pad", 1)

    def construct(self, x: Any) -> Any:
        return self.pool(x)


@pytest.mark.parametrize("target", ["numba", "python"])
def test_max_pool_window_with_nan_or_only_minus_infinity(target: str) -> None:
    """A NaN anywhere in a window is its maximum (numpy's np.max); a window of -inf and
    padding is -inf. The numba forward scan tracks no argmax: this pins its NaN rule."""
    x = np.array([[[[np.nan, 1.0, 2.0, -np.inf], [0.0, 5.0, -np.inf, -np.inf],
                    [3.0, np.nan, 1.0, 0.0], [4.0, 2.0, 7.0, 6.0]]]], np.float32)
    got = _graph(_Pool(), x, target=target).asnumpy()
    want = naive_max_pool(np.where(np.isnan(x), np.float32(99), x), (2, 2), (2, 2), (1, 1, 1, 1))
    want[np.isnan(naive_window_has_nan(x))] = np.nan
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 0, 2] == -np.inf  # its window: padding and one -inf


def naive_window_has_nan(x: np.ndarray) -> np.ndarray:
    """NaN where a 2x2 window (stride 2, padding 1) holds a NaN, else 0."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, 1, 3, 3), np.float32)
    for i, j in np.ndindex(3, 3):
        if np.isnan(padded[0, 0, 2 * i:2 * i + 2, 2 * j:2 * j + 2]).any():
            out[0, 0, i, j] = np.nan
    return out


@pytest.mark.parametrize("call, error, match", [
    (lambda: nn.Conv2d(4, 6, 3, group=4), ValueError, "group"),
    (lambda: nn.Conv2d(4, 6, 3, pad_mode="full"), ValueError, "pad_mode"),
    (lambda: nn.Conv2d(4, 6, 3, padding=1), ValueError, "padding"),
    (lambda: nn.Conv2d(4, 6, 0), ValueError, "kernel_size"),
    (lambda: nn.Conv2d(4, 6, 3, has_bias=1), TypeError, "has_bias"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, output_padding=1), ValueError, "output_padding"),
    (lambda: nn.MaxPool2d(2, 2, padding=1), ValueError, "pad_mode"),
    (lambda: nn.Conv2d(4, 6, 3)(Tensor(_x(1, 3, 5, 5))), ValueError, "channels"),
    (lambda: nn.Conv2d(4, 6, 3)(Tensor(_x(4, 5, 5))), ValueError, "4-D"),
    (lambda: nn.Conv2d(4, 6, 7, pad_mode="valid")(Tensor(_x(1, 4, 5, 5))), ValueError,
     "does not fit"),
    (lambda: ops.conv2d(Tensor(_x(1, 4, 5, 5)), Tensor(_x(6, 4, 3, 3).astype(np.float16))),
     TypeError, "same dtype"),
    (lambda: ops.conv2d(Tensor(np.ones((1, 4, 5, 5), np.int32)),
                        Tensor(np.ones((6, 4, 3, 3), np.int32))), TypeError, "float"),
])
def test_bad_arguments_raise_mindsporess_error_types(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()

"""Models the native target's tests compile: a file ``msc compile --native`` reads."""

import numpy as np

import msc as ms
from msc import Parameter, Tensor, nn, ops


class Block(nn.Cell):
    """Convolution, batch norm, a residual ReLU, pooling, a dense layer and softmax."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(8, 4)

    def construct(self, x):
        y = self.relu(self.bn(self.conv(x)) + x)
        return ops.softmax(self.fc(ops.mean(y, (2, 3))))


def with_weights(net, scale=0.5):
    """``net`` in eval mode with weights drawn from a fixed seed (every process alike)."""
    rng = np.random.default_rng(3)
    for p in net.get_parameters():
        value = rng.standard_normal(p.shape) * scale
        if "variance" in p.name:  # batch norm's moving variance: positive
            value = 0.5 + np.abs(value)
        p.set_data(Tensor(value.astype(p.dtype.np_name)))
    net.set_train(False)
    return net


def block():
    return with_weights(Block())


class Loops(nn.Cell):
    """A tensor ``while`` whose trip count the input decides, an ``if`` on a reduction,
    and two outputs of different dtypes."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(-1, 1, 9).reshape(3, 3).astype(np.float32)),
                           name="w")

    def construct(self, x, n):
        i = ops.zeros((), ms.int32)
        while i < n:
            x = ops.tanh(ops.matmul(x, self.w.T)) * 2.0 + 0.25
            i = i + 1
        if x.sum() > 0:
            y = x * 3.0
        else:
            y = x - 1.0
        return y, (i * 2).astype(ms.int64)


class Step(nn.Cell):
    """One training step of ``net`` with Momentum: it writes its Parameters."""

    def __init__(self, net, lr):
        super().__init__()
        self.net = net
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(self.net.trainable_params(), learning_rate=lr, momentum=0.9)
        self.step = nn.TrainOneStepCell(nn.WithLossCell(self.net, loss), opt)

    def construct(self, x, label):
        return self.step(x, label)


def _stepped(net, lr, seed, scale):
    step = Step(net, lr)
    rng = np.random.default_rng(seed)
    for p in net.get_parameters():  # (the optimizer's moments start at zero)
        p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * scale))
    return step


def step():
    """A small MLP's step."""
    return _stepped(nn.SequentialCell([nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 3)]), 0.1, 4, 0.5)


def conv_step():
    """Two 3x3 convolutions of 32 channels: the second's input gradient adds its taps
    into views of a bordered accumulator (``+=`` into an array view)."""
    net = nn.SequentialCell([
        nn.Conv2d(3, 32, 3, pad_mode="pad", padding=1, has_bias=True), nn.ReLU(),
        nn.Conv2d(32, 32, 3, pad_mode="pad", padding=1), nn.ReLU(),
        nn.Flatten(), nn.Dense(32 * 2 * 2, 3)])
    return _stepped(net, 0.05, 6, 0.1)


def winograd_step():
    """A step whose second convolution (32 channels, 14x14) takes the Winograd path: the
    library keeps its transformed filters between calls, and each step changes them."""
    net = nn.SequentialCell([
        nn.Conv2d(3, 32, 3, pad_mode="pad", padding=1, has_bias=True), nn.ReLU(),
        nn.Conv2d(32, 32, 3, pad_mode="pad", padding=1), nn.ReLU(),
        nn.Flatten(), nn.Dense(32 * 14 * 14, 3)])
    return _stepped(net, 0.01, 6, 0.1)


def encoder():
    """The model zoo-shaped tiny BERT classifier of the end-to-end tests, eval mode."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e",
                                    "models"))
    from bert_tiny import BertClassifier

    return with_weights(BertClassifier(), 0.2)


class Printing(nn.Cell):
    def construct(self, x):
        ops.Print()("x is", x)
        return x * 2


def basic_block(channels=8, out_channels=16, stride=2, scale=0.5):
    """The end-to-end tests' ResNet basic block (two 3x3 convolutions, batch norm, a
    projected shortcut: stride 2 from 8 to 16 channels)."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e",
                                    "models"))
    from resnet_block import BasicBlock

    return with_weights(BasicBlock(channels, out_channels, stride), scale)


def winograd_block():
    """A basic block whose 3x3 convolutions of 32 channels take the Winograd path."""
    return basic_block(32, 32, 1, scale=0.1)


class PaddedConv(nn.Cell):
    """A 3x3 convolution of 33 to 35 channels with a border on some sides only: the
    Winograd runtime adds the border row by row."""

    def __init__(self, padding):
        super().__init__()
        self.conv = nn.Conv2d(33, 35, 3, pad_mode="pad", padding=padding, has_bias=False)

    def construct(self, x):
        return self.conv(x)


def one_sided_conv():
    return with_weights(PaddedConv((1, 0, 0, 1)), scale=0.1)


def unpadded_conv():
    return with_weights(PaddedConv(0), scale=0.1)


class StridedConv(nn.Cell):
    """A stride-2 3x3 convolution whose columns (144 x 4096 an example, 2.4 MB) go
    through im2col a chunk of output rows at a time, with a bias and a ReLU after it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 8, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        return ops.relu(self.conv(x))


def strided_conv():
    return with_weights(StridedConv(), scale=0.2)


class VectorMath(nn.Cell):
    """Each float32 function the runtimes compute from arithmetic (exp in float32, the
    others in float64), and softmax rows."""

    def construct(self, x):
        return (ops.exp(x), ops.tanh(x), ops.sigmoid(x), ops.erf(x), ops.erfc(x),
                ops.gelu(x), ops.gelu(x, approximate="tanh"), ops.softmax(x, axis=-1))


class StemPool(nn.Cell):
    """ResNet's stem pooling: 3x3 windows, stride 2, padded by one (a -inf border)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)

    def construct(self, x):
        return self.pool(x)


class RowFolds(nn.Cell):
    """Rows long enough for the runtimes' 16-lane folds (197: 12 vectors and a rest of 5):
    softmax and log-softmax (a maximum and a sum a row), a layer norm (a sum and a sum of
    squares), a sum and a maximum."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm((197,))

    def construct(self, x):
        return (ops.softmax(x, axis=-1), ops.log_softmax(x, axis=-1), self.norm(x),
                ops.reduce_sum(x, -1), ops.reduce_max(x, -1))


class WeightProducts(nn.Cell):
    """Products by weights, each of at least 2^22 multiply-adds (the library's packed
    kernel): a dense layer with a bias (x @ W.T), one without, and x @ W by a Parameter;
    70 rows and 300, 200 and 330 columns, which fill no whole kernel or panel."""

    def __init__(self):
        super().__init__()
        self.up = nn.Dense(256, 300)
        self.down = nn.Dense(300, 200, has_bias=False)
        self.w = Parameter(Tensor(np.zeros((200, 330), np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(self.down(ops.relu(self.up(x))), self.w)


def weight_products():
    return with_weights(WeightProducts(), 0.1)


def weight_conv():
    """A convolution whose product by its filters is large enough for the packed kernel
    (40 x 900 x 400 multiply-adds: 40 filter rows, 900 output positions, 28 panels of 32
    columns and a rest of 4)."""
    return with_weights(nn.Conv2d(16, 40, 5, pad_mode="valid", has_bias=True), 0.1)


class ScaledFilters(nn.Cell):
    """A Winograd convolution by filters made in the call (weights times an input): not
    the model's weights, so the transform kept between calls is checked against them."""

    def __init__(self):
        super().__init__()
        w = np.random.default_rng(8).standard_normal((32, 32, 3, 3)) * 0.1
        self.w = Parameter(Tensor(w.astype(np.float32)), name="w")

    def construct(self, x, s):
        return ops.conv2d(x, self.w * s, pad_mode="pad", padding=1)


def scaled_filters():
    return ScaledFilters()


class ActivationProducts(nn.Cell):
    """Products of two activations (as attention's), each of at least 2^20 multiply-adds:
    a @ b, a @ b.T and a.T @ b (as a weight gradient's), the runtime's own kernel packing
    b's panels as it goes."""

    def construct(self, x, y):
        p = ops.matmul(ops.tanh(x), y)
        q = ops.matmul(p, ops.transpose(ops.sin(y), (1, 0)))
        return ops.matmul(ops.transpose(ops.cos(x), (1, 0)), q)


def activation_products():
    return ActivationProducts()


def deep_conv():
    """A convolution of more filters (96) than output positions (49), the product's weights
    larger than its windows (the threads then split the filters' rows)."""
    return with_weights(nn.Conv2d(64, 96, 3, pad_mode="valid", has_bias=True), 0.05)

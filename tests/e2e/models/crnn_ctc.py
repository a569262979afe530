"""A small CRNN (convolutions, a bidirectional LSTM, a per-step classifier) trained with
``ops.CTCLoss`` on sparse labels and a train step that clips the gradients' global norm,
the structure of the model zoo's CRNN (official/cv/CRNN), in MindSpore's API: run with
``--mindspore`` under MindSpore, else under msc (``--target=python`` for msc's python
target). Prints the losses of three steps. Written for msc's tests, after the zoo's
structure (its code is not copied)."""

import json
import sys

import numpy as np

if "--mindspore" in sys.argv:
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn, ops
    from mindspore.ops import operations as P
else:
    import msc as ms
    from msc import Parameter, Tensor, nn, ops
    from msc.ops import operations as P

BATCH, HEIGHT, WIDTH, CLASSES, LABELS, HIDDEN = 2, 4, 8, 5, 3, 6


class Features(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=(2, 1), stride=(2, 1))

    def construct(self, x):
        return self.pool(self.relu(self.bn(self.conv(x))))  # (N, 4, H / 2, W)


class Recognizer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = Features()
        self.rnn = nn.LSTM(4 * HEIGHT // 2, HIDDEN, bidirectional=True)
        self.classify = nn.Dense(2 * HIDDEN, CLASSES)
        self.h0 = Tensor(np.zeros((2, BATCH, HIDDEN), np.float32))

    def construct(self, x):
        x = self.features(x)
        x = ops.transpose(ops.reshape(x, (BATCH, -1, WIDTH)), (2, 0, 1))  # (T, N, C)
        y, _ = self.rnn(x, (self.h0, self.h0))
        steps = y.shape[0]
        return ops.reshape(self.classify(ops.reshape(y, (steps * BATCH, -1))),
                           (steps, BATCH, CLASSES))


class SparseCTC(nn.Cell):
    """Every label sequence as long as the longest: its sparse indices are fixed."""

    def __init__(self):
        super().__init__()
        indices = [[b, j] for b in range(BATCH) for j in range(LABELS)]
        self.indices = Parameter(Tensor(np.array(indices, np.int64)), name="indices",
                                 requires_grad=False)
        self.lengths = Parameter(Tensor(np.full(BATCH, WIDTH, np.int32)), name="lengths",
                                 requires_grad=False)
        self.ctc = P.CTCLoss(ctc_merge_repeated=True)

    def construct(self, logits, labels):
        loss, _ = self.ctc(logits, self.indices, ops.reshape(labels, (-1,)), self.lengths)
        return loss.mean()


class ClippedStep(nn.Cell):
    """A train step whose gradients are scaled to a global norm of at most 1."""

    def __init__(self, network, optimizer):
        super().__init__(auto_prefix=False)
        self.network, self.optimizer = network, optimizer
        self.weights = optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.map = ops.HyperMap()

    def construct(self, data, label):
        loss = self.network(data, label)
        sens = ops.fill(loss.dtype, loss.shape, 1.0)
        grads = self.grad(self.network, self.weights)(data, label, sens)
        norm = ops.sqrt(ops.addn(self.map(lambda g: (g * g).sum(), grads)))
        scale = 1.0 / ops.maximum(norm, 1.0)
        grads = self.map(ops.partial(lambda s, g: g * s, scale), grads)
        return ops.depend(loss, self.optimizer(grads))


def main():
    ms.set_context(mode=ms.GRAPH_MODE)
    for arg in sys.argv[1:]:
        if arg.startswith("--target="):
            ms.set_context(jit_target=arg.split("=", 1)[1])
    rng = np.random.default_rng(0)
    net = Recognizer()
    for p in sorted(net.trainable_params(), key=lambda p: p.name):
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.3).astype(np.float32)))
    train = nn.WithLossCell(net, SparseCTC())
    step = ClippedStep(train, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    images = Tensor(rng.standard_normal((BATCH, 1, HEIGHT, WIDTH)).astype(np.float32))
    labels = Tensor(rng.integers(0, CLASSES - 1, (BATCH, LABELS)).astype(np.int32))
    losses = [float(step(images, labels).asnumpy()) for _ in range(3)]
    print(json.dumps({"losses": losses, "names": sorted(p.name for p in net.trainable_params())}))


if __name__ == "__main__":
    main()

"""Run by tests/communication/test_data_parallel.py under ``mpiexec -n 2``: for each
network and optimizer, two ranks train data-parallel on their halves of a batch
(``gradients_mean=True``), and each rank checks that its weights equal one process's
trained on the whole batch, and the other rank's exactly. Prints one line per
configuration; any failure raises (and aborts both ranks)."""

import sys

import numpy as np

import msc as ms
from msc import nn, ops
from msc.communication import get_group_size, get_rank, init
from tests.communication.mpi import say

STEPS = 4


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(8, 16), nn.Dense(16, 4)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="valid")
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4 * 4 * 4, 4)

    def construct(self, x):
        return self.fc(ops.relu(self.bn(self.conv(x))).reshape(x.shape[0], -1))


class Halves(nn.Cell):
    """One process's loss of the data-parallel step: the mean of the halves' losses, each
    half through the network on its own (BatchNorm's statistics are per rank)."""

    def __init__(self, net, loss_fn, halves):
        super().__init__(auto_prefix=False)
        self.net, self.loss_fn, self.halves = net, loss_fn, halves

    def construct(self, x, y):
        n = x.shape[0] // self.halves
        total = 0.0
        for i in range(self.halves):
            total = total + self.loss_fn(self.net(x[i * n:(i + 1) * n]), y[i * n:(i + 1) * n])
        return total / self.halves


OPTIMIZERS = {
    "SGD": lambda p: nn.SGD(p, learning_rate=0.1),
    "Momentum": lambda p: nn.Momentum(p, learning_rate=0.05, momentum=0.9),
    "Adam": lambda p: nn.Adam(p, learning_rate=0.01),
}


def trainable(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


def main():
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    data = np.random.default_rng(7)
    for make_net, shape in ((MLP, (8, 8)), (ConvBN, (8, 3, 6, 6))):
        x = data.standard_normal(shape).astype(np.float32)
        y = data.integers(0, 4, shape[0]).astype(np.int32)
        half = shape[0] // size
        mine = slice(rank * half, (rank + 1) * half)
        for name, make_opt in OPTIMIZERS.items():
            ms.set_seed(100 + rank)  # different initial weights: the broadcast evens them
            loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                         gradients_mean=True)
            net = make_net()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                       make_opt(net.trainable_params()))
            ms.reset_auto_parallel_context()
            ref_net = make_net()
            for p, q in zip(ref_net.get_parameters(), net.get_parameters()):
                p.set_data(ms.Tensor(q.asnumpy().copy()))
            halves = size if make_net is ConvBN else 1
            ref = nn.TrainOneStepCell(Halves(ref_net, loss_fn, halves),
                                      make_opt(ref_net.trainable_params()))
            for _ in range(STEPS):  # the step reduces its gradients: it was made so
                step(ms.Tensor(x[mine]), ms.Tensor(y[mine]))
            start = trainable(ref_net)
            for _ in range(STEPS):
                ref(ms.Tensor(x), ms.Tensor(y))
            got, want = trainable(net), trainable(ref_net)
            assert all(not np.allclose(w, s) for w, s in zip(want, start)), "nothing trained"
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
            every = ops.AllGather()(ms.Tensor(np.concatenate([g.ravel() for g in got])[None]))
            every = every.asnumpy()
            assert all(np.array_equal(every[0], row) for row in every), "ranks differ"
            say(f"ok {make_net.__name__} {name} rank {rank}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

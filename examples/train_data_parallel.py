"""Data-parallel training of a small MLP on N ranks, written as for MindSpore.

    msc run -n 2 examples/train_data_parallel.py --steps 20     (or: mpiexec -n 2 python ...)

Each rank takes its shard of every batch; ``TrainOneStepCell``, made under
``ParallelMode.DATA_PARALLEL``, starts every rank from rank 0's weights and averages the
gradients over the ranks (``gradients_mean=True``) with one all-reduce per step, so the
ranks keep equal weights and train as one process would on the whole batch. Rank 0
prints the losses; the script checks at the end that every rank holds the same weights.

``mpiexec -n 2 python -m msc compile examples/train_data_parallel.py train_step --input
f32[32,16] --input i32[32] -o out`` writes the step as an artifact (rank 0 writes it) that
runs under ``mpiexec -n 2`` where numpy, numba and mpi4py are installed but not msc:
each rank calls ``forward(x_shard, labels_shard)``.
"""

from __future__ import annotations

import argparse

import numpy as np

import msc as ms
from msc import Tensor, nn, ops
from msc.communication import get_group_size, get_rank, init

FEATURES, HIDDEN, CLASSES, BATCH = 16, 32, 4, 64


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(FEATURES, HIDDEN, activation="relu")
        self.out = nn.Dense(HIDDEN, CLASSES)

    def construct(self, x):
        return self.out(self.hidden(x))


def train_step() -> nn.Cell:
    """The data-parallel training step (a Cell factory for msc compile)."""
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    ms.set_seed(0)
    net = MLP()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), optimizer)


def data(batch: int = BATCH) -> tuple[np.ndarray, np.ndarray]:
    """Points labelled by the arg-max of a random linear teacher."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, FEATURES)).astype(np.float32)
    teacher = rng.standard_normal((FEATURES, CLASSES))
    return x, np.argmax(x @ teacher, axis=1).astype(np.int32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--target", choices=("numba", "python"), default="numba")
    args = ap.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=args.target)
    step = train_step()
    rank, size = get_rank(), get_group_size()
    x, labels = data()
    shard = slice(rank * BATCH // size, (rank + 1) * BATCH // size)
    for k in range(args.steps):
        loss = step(Tensor(x[shard]), Tensor(labels[shard]))
        if rank == 0 and (k % 5 == 0 or k == args.steps - 1):
            print(f"step {k:3d}  loss on rank 0's shard {float(loss.asnumpy()):.4f}")
    weights = np.concatenate([p.asnumpy().ravel() for p in step.network.trainable_params()])
    every = ops.AllGather()(Tensor(weights[None])).asnumpy()
    assert all(np.array_equal(every[0], row) for row in every), "the ranks' weights differ"
    if rank == 0:
        print(f"{size} ranks hold the same weights")


if __name__ == "__main__":
    main()

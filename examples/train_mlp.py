"""Train a small MLP classifier on synthetic data, eagerly and compiled.

    python examples/train_mlp.py                # 30 steps, numba target
    python examples/train_mlp.py --steps 100 --target python

The model, loss, optimizer and train step are written as for MindSpore: ``nn.Dense``
layers, ``nn.SoftmaxCrossEntropyWithLogits``, ``nn.WithLossCell``, ``nn.Momentum`` and ``nn.TrainOneStepCell``. The
script trains the same seeded model twice — in PyNative mode and in GRAPH_MODE, where
the whole step (forward, backward, update) is one compiled graph — prints both loss
curves side by side, checks they agree, and prints the median time per step.

``msc compile examples/train_mlp.py train_step --input f32[64,16] --input i32[64] -o out``
writes the step as an artifact: ``forward(x, labels)`` returns the loss and updates the
weights in place; ``save_weights(path)`` keeps them.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import msc as ms
from msc import Tensor, nn

FEATURES, HIDDEN, CLASSES, BATCH = 16, 32, 4, 64


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(FEATURES, HIDDEN, activation="relu")
        self.out = nn.Dense(HIDDEN, CLASSES)

    def construct(self, x):
        return self.out(self.hidden(x))


def train_step() -> nn.Cell:
    """The seeded model wrapped into one training step (a Cell factory for msc compile)."""
    ms.set_seed(0)
    net = MLP()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), optimizer)


def data() -> tuple[np.ndarray, np.ndarray]:
    """Points labelled by the arg-max of a random linear teacher."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    teacher = rng.standard_normal((FEATURES, CLASSES))
    return x, np.argmax(x @ teacher, axis=1).astype(np.int32)


def train(mode: int, steps: int) -> tuple[list[float], list[float]]:
    """(loss per step, seconds per step) in ``mode``."""
    ms.set_context(mode=mode)
    step = train_step()
    x, labels = (Tensor(a) for a in data())
    losses, seconds = [], []
    for _ in range(steps):
        start = time.perf_counter()
        losses.append(float(step(x, labels).asnumpy()))
        seconds.append(time.perf_counter() - start)
    return losses, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--target", choices=("numba", "python"), default="numba")
    args = ap.parse_args()
    ms.set_context(jit_target=args.target)
    eager, eager_s = train(ms.PYNATIVE_MODE, args.steps)
    graph, graph_s = train(ms.GRAPH_MODE, args.steps)
    print(f"{'step':>4}  {'eager loss':>10}  {'compiled loss':>13}")
    for k, (a, b) in enumerate(zip(eager, graph)):
        print(f"{k:>4}  {a:>10.5f}  {b:>13.5f}")
    np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)
    print(f"the curves agree; loss {graph[0]:.4f} -> {graph[-1]:.4f}")
    print(f"median time per step: eager {statistics.median(eager_s) * 1e3:.2f} ms, "
          f"compiled {statistics.median(graph_s[1:]) * 1e3:.3f} ms "
          f"(first compiled step, with compiling: {graph_s[0]:.2f} s)")


if __name__ == "__main__":
    main()

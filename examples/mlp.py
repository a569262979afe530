"""A two-layer MLP, written the way models often are: with a little redundancy.

`msc ir examples/mlp.py --input f32[32,64]` shows the optimized graph: the repeated
ReLU is computed once (CSE), the unused temperature tensor is dropped (DCE), and the
constant scale folds away (constant folding).

Run as a script, it compares PyNative (eager) execution with GRAPH_MODE.
"""

import numpy as np

import msc as ms
from msc import nn, ops


class MLP(nn.Cell):
    def __init__(self, d_in=64, d_hidden=128, d_out=10):
        super().__init__()
        self.fc1 = nn.Dense(d_in, d_hidden)
        self.fc2 = nn.Dense(d_hidden, d_out)
        self.scale = ms.Tensor(np.ones(d_hidden, np.float32))

    def construct(self, x):
        h = self.fc1(x)
        gate = ops.relu(h)
        act = ops.relu(h)                    # the same value again: CSE merges it
        temperature = ops.exp(h)             # never used: DCE removes it
        scale = self.scale * 2.0 - 1.0       # constants only: folded at compile time
        y = self.fc2((gate + act) * scale * 0.5)
        return ops.softmax(y, axis=-1), y.shape


if __name__ == "__main__":
    ms.set_seed(0)
    net = MLP()
    x = ms.Tensor(np.random.default_rng(0).normal(size=(32, 64)).astype(np.float32))
    eager_probs, shape = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph_probs, graph_shape = net(x)
    err = np.abs(eager_probs.asnumpy() - graph_probs.asnumpy()).max()
    print(f"output {graph_shape}, rows sum to {graph_probs.asnumpy().sum(-1).mean():.4f}")
    print(f"max |eager - graph| = {err:.2e}")

"""A GPT-like stack of N identical blocks, compiled once per block with ``@lazy_inline``.

Each block is matmul + bias, GELU, matmul + bias, a residual add and a layer norm
(attention-free). ``@lazy_inline`` on ``Block.__init__`` makes the compiler build the
block's graph once and call it N times, each call with its own block's weights:

    python examples/lazy_inline_gpt.py 16             # N = 16: compile, run, compare
    python examples/lazy_inline_gpt.py 16 --reuse off # every block inlined instead
    msc ir examples/lazy_inline_gpt.py GPT --input 'f32[8,64]'  # one @Block_construct, 4 calls

The script prints the IR's graphs and node counts, the compile time and the largest
difference from eager (PyNative) execution.
"""

import argparse
import time

import numpy as np

import msc as ms
from msc import nn

WIDTH = 64


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Dense(width, 4 * width)
        self.act = nn.GELU()
        self.fc2 = nn.Dense(4 * width, width)
        self.norm = nn.LayerNorm((width,))

    def construct(self, x):
        return self.norm(x + self.fc2(self.act(self.fc1(x))))


class GPT(nn.Cell):
    def __init__(self, n_blocks=4, width=WIDTH):
        super().__init__()
        self.blocks = nn.CellList([Block(width) for _ in range(n_blocks)])
        self.head = nn.Dense(width, width)

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=4, help="number of blocks")
    parser.add_argument("--reuse", choices=("lazy_inline", "auto", "off"), default="lazy_inline")
    args = parser.parse_args()
    ms.set_seed(0)
    net = GPT(args.n)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((8, WIDTH)).astype(np.float32))
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, reuse=args.reuse)
    start = time.perf_counter()
    out = net(x).asnumpy()
    seconds = time.perf_counter() - start
    from msc.frontend.jit import cell_cache

    compiled = next(iter(cell_cache(net).entries.values()))
    for graph in compiled.module.graphs:
        calls = sum(1 for g in compiled.module.graphs for n in g.nodes
                    if n.op.name == "Call" and n.attr["graph"] is graph)
        used = f", called from {calls} sites" if calls else ""
        print(f"@{graph.name}: {len(graph.nodes)} nodes{used}")
    print(f"N = {args.n}, reuse {args.reuse}: compile and first run {seconds:.2f} s, "
          f"max |compiled - eager| = {np.abs(out - eager).max():.2e}")


if __name__ == "__main__":
    main()

"""The cuda target against the numba target and hand-written numba.cuda kernels: per call
(median) and first call (compile + run) on the MLP and the GPT-like stack.

    python bench/bench_cuda.py            # on a GPU
    NUMBA_ENABLE_CUDASIM=1 python bench/bench_cuda.py --quick   # no GPU: the simulator

Without a GPU it runs under Numba's CUDA simulator at small shapes, which shows that the
code runs, not how fast: it says so in its first line.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

import lazy_inline_gpt  # noqa: E402
import mlp  # noqa: E402
from numba import config, cuda  # noqa: E402

import msc as ms  # noqa: E402
from msc.compiler import compile_entry  # noqa: E402
from msc.common.tensor import Tensor  # noqa: E402


@cuda.jit
def _dense_relu(x, w, b, out, relu):
    """Hand-written: one thread per output element of x @ w.T + b (ReLU'd if ``relu``)."""
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        acc = b[j]
        for k in range(x.shape[1]):
            acc += x[i, k] * w[j, k]
        out[i, j] = max(acc, 0.0) if relu else acc


@cuda.jit
def _softmax_rows(x, out):
    """Hand-written: one thread per row."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        top = x[i, 0]
        for k in range(x.shape[1]):
            top = max(top, x[i, k])
        total = 0.0
        for k in range(x.shape[1]):
            total += math.exp(x[i, k] - top)
        for k in range(x.shape[1]):
            out[i, k] = math.exp(x[i, k] - top) / total


def hand_mlp(net: mlp.MLP):
    """The MLP by hand: weights on the device once, three kernel launches per call."""
    w = [cuda.to_device(p.asnumpy()) for p in (net.fc1.weight, net.fc1.bias,
                                                 net.fc2.weight, net.fc2.bias)]

    def forward(x: np.ndarray) -> np.ndarray:
        d = cuda.to_device(x)
        h = cuda.device_array((x.shape[0], w[0].shape[0]), np.float32)
        y = cuda.device_array((x.shape[0], w[2].shape[0]), np.float32)
        out = cuda.device_array_like(y)
        _dense_relu[(math.ceil(h.shape[0] / 8), math.ceil(h.shape[1] / 8)), (8, 8)](
            d, w[0], w[1], h, True)
        _dense_relu[(math.ceil(y.shape[0] / 8), math.ceil(y.shape[1] / 8)), (8, 8)](
            h, w[2], w[3], y, False)
        _softmax_rows[math.ceil(y.shape[0] / 32), 32](y, out)
        return out.copy_to_host()
    return forward


def timed(fn, x, calls: int) -> tuple[float, float]:
    """(first call, median of later calls) in seconds."""
    start = time.perf_counter()
    fn(x)
    first = time.perf_counter() - start
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return first, statistics.median(times)


def compiled(net, x: np.ndarray, target: str):
    """A function running ``net`` compiled for ``target`` (compile cache off)."""
    state = {}

    def call(a: np.ndarray):
        if "c" not in state:
            state["c"] = compile_entry(net, [Tensor(a)], target=target, store=None)
        return state["c"].run([Tensor(a)])
    return call


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small shapes, few calls")
    args = ap.parse_args()
    sim = bool(config.ENABLE_CUDASIM)
    if sim:
        sys.setswitchinterval(1e-5)
        print("no GPU: figures under the simulator are not performance figures")
    else:
        print(f"GPU: {cuda.get_current_device().name.decode()}")
    quick = args.quick or sim
    ms.set_context(jit_tier="numba")  # the numba target's first call waits for Numba
    batch, calls = (2, 3) if quick else (256, 50)
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    rows = []
    net = mlp.MLP()
    x = rng.normal(size=(batch, 64)).astype(np.float32)
    for label, fn in (("msc cuda", compiled(net, x, "cuda")),
                      ("msc numba", compiled(net, x, "numba")),
                      ("numba.cuda by hand", hand_mlp(net))):
        rows.append((f"MLP {batch}x64->128->10", label, *timed(fn, x, calls)))
    gpt = lazy_inline_gpt.GPT(n_blocks=2 if quick else 4, width=8 if quick else 64)
    g = rng.normal(size=(batch, 8 if quick else 64)).astype(np.float32)
    for label, fn in (("msc cuda", compiled(gpt, g, "cuda")),
                      ("msc numba", compiled(gpt, g, "numba"))):
        rows.append((f"GPT-like stack, input {g.shape}", label, *timed(fn, g, calls)))
    print(f"{'workload':<32} {'code':<20} {'first call':>12} {'per call':>12} {'vs cuda':>8}")
    base = {}
    for workload, label, first, per in rows:
        base.setdefault(workload, per)
        print(f"{workload:<32} {label:<20} {first * 1e3:>10.1f}ms {per * 1e6:>10.1f}us "
              f"{per / base[workload]:>7.2f}x")


if __name__ == "__main__":
    main()

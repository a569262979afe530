"""Run under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set before numba.cuda is
first imported, so in a process of its own): every op family and every example compiled
for the cuda target at tiny shapes, checked against numpy written here and against the
python target. Prints one JSON line per check: {"name", "ok", "detail"}.

``python tests/cuda/sim_checks.py`` runs them all; ``test_simulator.py`` reads the lines.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]
sys.setswitchinterval(1e-5)  # the simulator's threads hand over the GIL at once

import msc as ms  # noqa: E402
from msc import nn, ops  # noqa: E402
from msc.compiler import compile_entry  # noqa: E402
from msc.common.tensor import Tensor  # noqa: E402

RNG = np.random.default_rng(0)
CHECKS: list[tuple[str, Callable[[], None]]] = []


def _one_shared_array_per_line() -> None:
    """Numba's simulator hands each block's threads the shared array of a source line by
    looking it up and, when missing, making one: two simulated threads (Python threads)
    can both miss and each write into an array of its own, so a reduction reads garbage
    (a negative sum of squares in the layer norm). A lock makes the lookup atomic, as
    shared memory is on a GPU."""
    from numba.core import types
    from numba.cuda.simulator.kernelapi import FakeCUDAShared
    from numba.np import numpy_support

    lock, dynamic = threading.Lock(), FakeCUDAShared.array

    def array(self: Any, shape: Any, dtype: Any) -> Any:
        if shape == 0:  # dynamic shared memory: one buffer, nothing to look up
            return dynamic(self, shape, dtype)
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        frame = sys._getframe(1)  # the kernel's line names the array
        key = (frame.f_code.co_filename, frame.f_lineno)
        with lock:
            found = self._allocations.get(key)
            if found is None:
                found = self._allocations[key] = np.empty(shape, dtype)
        return found

    FakeCUDAShared.array = array


_one_shared_array_per_line()


def check(fn: Callable[[], None]) -> Callable[[], None]:
    CHECKS.append((fn.__name__, fn))
    return fn


def normal(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype(np.float32)


def run(entry: Any, *arrays: Any, target: str = "cuda") -> Any:
    """``entry`` compiled for ``target`` (no compile cache), on ``arrays``, as numpy."""
    args = [tensors(a) for a in arrays]
    return as_numpy(compile_entry(entry, args, target=target, store=None).run(args))


def tensors(value: Any) -> Any:
    return tuple(map(tensors, value)) if isinstance(value, tuple) else Tensor(value)


def as_numpy(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(as_numpy(v) for v in value)
    return value.asnumpy() if isinstance(value, Tensor) else value


def same(got: Any, want: Any, tol: float = 1e-5) -> None:
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same(g, w, tol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{got.dtype}{got.shape} != {want.dtype}{want.shape}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def against_python(entry: Any, *arrays: np.ndarray, tol: float = 1e-5) -> Any:
    got = run(entry, *arrays)
    same(got, run(entry, *arrays, target="python"), tol)
    return got


# --- op families ---------------------------------------------------------------------------


@ms.jit
def chain(x, y):
    z = ops.exp(x) * 0.5 + ops.tanh(y) - ops.sigmoid(x * y)
    z = ops.select(x > y, z, ops.gelu(z)) + ops.sqrt(ops.abs(x)) + ops.floor(y * 3)
    return ops.cast(z, ms.float64), ops.maximum(z, float("inf") * 0 + x), x < 0


@check
def elementwise():
    x, y = normal(3, 5), normal(3, 5)
    got = against_python(chain, x, y)
    s = 1 / (1 + np.exp(-(x * y)))
    z = np.exp(x) * 0.5 + np.tanh(y) - s
    assert np.all(np.isnan(got[1])) and got[2].dtype == np.bool_
    same(got[2], x < 0)
    assert np.abs(got[0][x > y] - (z + np.sqrt(np.abs(x)) + np.floor(y * 3))[x > y]).max() < 1e-4


@ms.jit
def gelu_erf(x):
    return ops.gelu(x, approximate="none")


@check
def gelu_far_left():
    """float32 GeLU by erf where 1 + erf(x / sqrt 2) cancels (x below -8.3): x Phi(x) is
    still a float32 there, as the host targets and numpy's erfc give it."""
    x = np.array([-13.0, -11.0, -9.0, -6.0, -1.5, 0.0, 0.7, 3.0], np.float32)
    got = run(gelu_erf, x)
    np.testing.assert_allclose(got, run(gelu_erf, x, target="python"), rtol=1e-4, atol=0)
    wide = x.astype(np.float64)
    want = 0.5 * wide * np.vectorize(math.erfc)(-wide / math.sqrt(2))
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-4, atol=0)


@ms.jit
def broadcast(x, row, col):
    return x * row + col - 1.0, (row + col) * 2


@check
def broadcasting():
    x, row, col = normal(4, 3), normal(3), normal(4, 1)
    got = against_python(broadcast, x, row, col)
    same(got, (x * row + col - np.float32(1), (row + col) * np.float32(2)))


@ms.jit
def reductions(x):
    return (ops.reduce_sum(x, 1), ops.ReduceMean(keep_dims=True)(x, (1, 2)),
            ops.reduce_max(x, 0), ops.reduce_min(x, -1), ops.reduce_sum(x))


@check
def reduce_families():
    x = normal(2, 5, 3)
    same(against_python(reductions, x),
         (x.sum(1), x.mean((1, 2), keepdims=True), x.max(0), x.min(-1), x.sum()))


@ms.jit
def softmaxes(x):
    return ops.softmax(x, axis=-1), ops.softmax(x, axis=0), ops.log_softmax(x, axis=1)


@check
def softmax():
    x = normal(3, 6)

    def reference(a, axis):
        e = np.exp(a - a.max(axis, keepdims=True))
        return e / e.sum(axis, keepdims=True)

    same(against_python(softmaxes, x),
         (reference(x, -1), reference(x, 0), np.log(reference(x, 1))))


@check
def layer_norm():
    net = nn.LayerNorm((6,))
    x = normal(2, 3, 6)
    got = against_python(net, x)
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    same(got, ((x - mean) / np.sqrt(var + np.float32(1e-7))).astype(np.float32), 1e-4)


@ms.jit
def products(a, b, c, w, bias):
    return (ops.matmul(a, b), ops.BatchMatMul(transpose_b=True)(c, c),
            ops.dense(a, w, bias), ops.MatMul(transpose_a=True)(b, b))


@check
def matmuls():
    a, b, c, w, bias = normal(5, 6), normal(6, 7), normal(2, 3, 6), normal(4, 6), normal(4)
    same(against_python(products, a, b, c, w, bias),
         (a @ b, c @ c.transpose(0, 2, 1), a @ w.T + bias, b.T @ b), 1e-4)


@ms.jit
def branchy(x, n):
    if x.sum() > 0:
        x = x * 2
    else:
        x = x - 1
    while n < 3:
        x = x + 1
        n = n + 1
    return x, n


@check
def control_flow_on_the_host():
    x = normal(4)
    for sign in (1, -1):
        xs = np.abs(x) * sign
        want = (xs * 2 if xs.sum() > 0 else xs - 1) + 3
        same(against_python(branchy, xs, np.array(0, np.int32)),
             (want.astype(np.float32), np.array(3, np.int32)))


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.arange(4, dtype=np.float32)), name="w")
        self.n = ms.Parameter(Tensor(np.zeros((), np.int32)), name="n")

    def construct(self, x):
        old = self.w * 1
        ops.assign(self.w, self.w * 2 + x)
        ops.assign_add(self.n, 1)
        ops.Print()("w is", self.w)
        return old, self.w + 0


@check
def parameter_assign():
    x = normal(4)
    net = Accumulate()
    first = run(net, x)
    second = run(net, x)  # the writes of the first call persist
    w0 = np.arange(4, dtype=np.float32)
    w1 = w0 * 2 + x
    same(first, (w0, w1))
    same(second, (w1, w1 * 2 + x))
    same(net.w.asnumpy(), w1 * 2 + x)
    same(net.n.asnumpy(), np.array(2, np.int32))


@ms.jit
def host_fallback(x, i):
    return ops.transpose(x, (1, 0)), ops.gather(x, i, 0), ops.concat((x, x), 0)


@check
def ops_on_the_host():
    x, i = normal(3, 2), np.array([2, 0], np.int32)
    same(against_python(host_fallback, x, i), (x.T, x[i], np.concatenate((x, x))))


# --- the examples --------------------------------------------------------------------------


@check
def example_mlp_against_numba_target():
    import mlp

    ms.set_seed(0)
    net, x = mlp.MLP(), normal(2, 64)
    got = run(net, x)
    same(got, run(net, x, target="numba"), 1e-5)
    same(got, run(net, x, target="python"), 1e-5)


@check
def example_lazy_inline_gpt():
    import lazy_inline_gpt

    ms.set_seed(0)
    against_python(lazy_inline_gpt.GPT(n_blocks=2, width=8), normal(2, 8), tol=1e-4)


@check
def example_compile_cache():
    import compile_cache

    against_python(compile_cache.func, normal(1), normal(1))


@check
def example_select_vs_if():
    import select_vs_if

    for fn in (select_vs_if.if_net, select_vs_if.select_net):
        against_python(fn, np.array([0], np.int64), np.array([1], np.int64))


@check
def example_side_effects():
    import side_effects

    for make in (side_effects.ForwardNet, side_effects.ReadCopy, side_effects.ReadName,
                 side_effects.tutorial_backward_net):
        x = np.array([2, 3], np.int32)
        same(run(make(), x), run(make(), x, target="python"))


@check
def example_hypermap_jit_class_vmap():
    import hypermap
    import jit_class
    import vmap

    grads = tuple(np.full(16, 1.0 + i, np.float32) for i in range(3))
    for cls in (hypermap.HyperMapUpdate, hypermap.LoopUpdate):
        same(run(cls(3), grads), run(cls(3), grads, target="python"))
    same(run(jit_class.ClassAttribute()), np.array([1, 2, 3]))
    against_python(vmap.manually_batched, normal(3, 2))


@check
def example_train_mlp():
    import train_mlp

    x, y = train_mlp.data()
    x, y = x[:8], y[:8]
    same(run(train_mlp.train_step(), x, y), run(train_mlp.train_step(), x, y, target="python"),
         1e-4)


def main() -> int:
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=False, jit_tier="numba")
    wanted = set(sys.argv[1:])
    for name, fn in CHECKS:
        if wanted and name not in wanted:
            continue
        try:
            fn()
            result = {"name": name, "ok": True, "detail": ""}
        except Exception:  # noqa: BLE001 - reported to the test, which fails with it
            result = {"name": name, "ok": False, "detail": traceback.format_exc()}
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

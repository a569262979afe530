"""The reference tutorial's "Using Vmap for Batch Processing": hswish over (100, 2).

    python examples/vmap.py             # the tutorial's 100 rows
    python examples/vmap.py --rows 20   # a shorter for loop

``vmap(hswish_func, in_axes=(0,))(x)`` batches the function for one row into whole-array
operations (msc's ``vmap`` is an IR transform: the batched graph has the same size for
any number of rows); ``manually_batched`` is the tutorial's ``@jit`` function whose
``for`` loop over the rows is unrolled into one hswish per row and a ``stack``. The script
prints each one's first call (compile + run) and its time per call, and their ratios,
and checks that both equal hswish computed with numpy.
"""

import argparse
import time

import numpy as np

import msc as ms
from msc import ops, vmap


def hswish_func(x):
    return ops.HSwish()(x)


@ms.jit
def manually_batched(xs):
    output = []
    for i in range(xs.shape[0]):
        output.append(hswish_func(xs[i]))
    return ops.stack(output)


def timed(fn, x, calls=200):
    """(first call in seconds, median seconds per later call, result)."""
    start = time.perf_counter()
    out = fn(x)
    first = time.perf_counter() - start
    per_call = []
    for _ in range(calls):
        start = time.perf_counter()
        fn(x)
        per_call.append(time.perf_counter() - start)
    return first, float(np.median(per_call)), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100)
    rows = ap.parse_args().rows
    x_np = (np.random.default_rng(0).standard_normal((rows, 2)) * 100).astype(np.float32)
    x = ops.sub(ms.Tensor(x_np), 0)
    want = x_np * np.clip(x_np + 3, 0, 6) / 6
    results = {}
    for name, fn in (("vmap", vmap(hswish_func, in_axes=(0,))),
                     ("for loop", manually_batched)):
        first, per_call, out = timed(fn, x)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, atol=1e-6)
        results[name] = (first, per_call)
        print(f"{name:>8}: first call {first:.3f} s, per call {per_call * 1e6:.1f} us")
    (vf, vp), (lf, lp) = results["vmap"], results["for loop"]
    print(f"for loop / vmap: first call {lf / vf:.1f}x, per call {lp / vp:.1f}x")


if __name__ == "__main__":
    main()

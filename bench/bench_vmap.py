"""``vmap`` against a Python ``for`` loop: the tutorial's hswish over (100, 2).

Run ``python bench/bench_vmap.py`` (``--quick``: 2 rounds of shorter batches;
``--systems`` picks a subset, ``--json`` keeps the raw rounds). The reference tutorial's
"Using Vmap for Batch Processing" section, each case in a fresh process per round:

- ``vmap``: ``vmap(hswish_func, in_axes=(0,))(x)`` called at the top level in PyNative
  mode (msc and MindSpore compile it; JAX: ``jax.jit(jax.vmap(hswish))``);
- ``loop``: the tutorial's ``manually_batched``, a ``@jit`` function whose ``for`` loop
  over the 100 rows appends ``hswish_func(xs[i])`` and stacks the list (JAX: the same
  loop under ``jax.jit``);
- numpy: the same formula on the whole array, for scale.

Each worker reports its first call (compile + one run, after the imports) and the
per-call latency after warm-up (median of batches), and fails loudly unless its result
equals a float64 numpy hswish within 1e-6. One thread everywhere, peers in their own
interpreters (a missing one prints "not installed"), compile caches off (msc's, JAX's).

This file imports only the standard library at top level: the peers run it as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (add_round_args, first_call_cell, fmt_s, machine, numba_tier_after,
                     round_defaults, row_problem, run_in_worker, save_json, time_per_call)
from bench_compile_cache import init_note, start_msc
from bench_control import med, ok

CASES = {  # case -> (system, label)
    "msc-vmap": ("msc", "msc `vmap` (PyNative, compiled)"),
    "msc-loop": ("msc", "msc `@jit` for loop + `stack`"),
    "ms-vmap": ("mindspore", "MindSpore `vmap`"),
    "ms-loop": ("mindspore", "MindSpore `@jit` for loop + `stack`"),
    "jax-vmap": ("jax", "JAX `jax.jit(jax.vmap(f))`"),
    "jax-loop": ("jax", "JAX `jax.jit` for loop + `stack`"),
    "numpy": ("numpy", "numpy on the whole array"),
}
SYSTEMS = ("msc", "mindspore", "jax", "numpy")
SHAPE, TOL = (100, 2), 1e-6


def data() -> Any:
    import numpy as np

    return (np.random.default_rng(0).standard_normal(SHAPE) * 100).astype(np.float32)


def check(case: str, out: Any) -> float:
    import numpy as np

    x = data().astype(np.float64)
    want = x * np.clip(x + 3, 0, 6) / 6
    got = np.asarray(out)
    if got.dtype != np.float32 or got.shape != SHAPE:
        raise AssertionError(f"{case}: got {got.dtype}{got.shape}, want float32{SHAPE}")
    err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))
    if not err < TOL:
        raise AssertionError(f"{case}: max relative error {err:.3g} >= {TOL}")
    return err


def tutorial(ms: Any, ops: Any, vmap: Any, loop: bool) -> Callable[[Any], Any]:
    """The tutorial's two programs, from msc's or MindSpore's modules."""
    def hswish_func(x):  # type: ignore[no-untyped-def]
        return ops.HSwish()(x)

    @ms.jit
    def manually_batched(xs):  # type: ignore[no-untyped-def]
        output = []
        for i in range(xs.shape[0]):
            output.append(hswish_func(xs[i]))
        return ops.stack(output)

    return manually_batched if loop else vmap(hswish_func, in_axes=(0,))


def setup(case: str) -> tuple[Callable[[], Any], Callable[[Any], Any], dict[str, Any]]:
    system, loop = CASES[case][0], case.endswith("loop")
    x_np = data()
    if system == "msc":
        import_s, init_s = start_msc()
        import msc as ms
        from msc import ops, vmap
        ms.set_context(jit_target="numba", enable_compile_cache=False)
        fn, x = tutorial(ms, ops, vmap, loop), ms.Tensor(x_np)
        return (lambda: fn(x)), (lambda r: r.asnumpy()), {
            "import_s": import_s, "init_s": init_s, "version": ms.__version__}
    if system == "mindspore":
        t0 = time.perf_counter()
        import mindspore as ms
        from mindspore import ops, vmap
        import_s = time.perf_counter() - t0
        ms.set_device("CPU")
        ms.device_context.cpu.op_tuning.threads_num(1)
        fn, x = tutorial(ms, ops, vmap, loop), ms.Tensor(x_np)
        return (lambda: fn(x)), (lambda r: r.asnumpy()), {"import_s": import_s,
                                                           "version": ms.__version__}
    if system == "jax":
        import numpy as np
        t0 = time.perf_counter()
        import jax
        import jax.numpy as jnp
        import_s = time.perf_counter() - t0
        jax.config.update("jax_enable_compilation_cache", False)

        def hswish(x):  # type: ignore[no-untyped-def]
            return x * jnp.clip(x + 3, 0, 6) / 6

        def manually_batched(xs):  # type: ignore[no-untyped-def]
            return jnp.stack([hswish(xs[i]) for i in range(xs.shape[0])])

        jfn = jax.jit(manually_batched if loop else jax.vmap(hswish, in_axes=(0,)))
        xj = jax.device_put(x_np)
        return (lambda: jax.block_until_ready(jfn(xj))), np.asarray, {
            "import_s": import_s, "version": jax.__version__}
    import numpy as np
    return (lambda: x_np * np.clip(x_np + 3, 0, 6) / 6), np.asarray, {
        "import_s": 0.0, "version": np.__version__}


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    call, to_np, info = setup(case)
    t0 = time.perf_counter()
    out = call()
    first_s = time.perf_counter() - t0
    err = check(case, to_np(out))
    tier = numba_tier_after(t0) if CASES[case][0] == "msc" else {}
    per_call_s, n = time_per_call(call, batches, batch_s)
    check(case, to_np(call()))
    return {"first_s": first_s, "per_call_s": per_call_s, "calls_per_batch": n,
            "max_rel_err": err, **tier, **info}


def report(results: dict[str, Any], args: argparse.Namespace, start: datetime) -> str:
    versions = {CASES[c][0]: rows[0]["version"] for c, rows in results.items()
                if ok(rows) and "version" in rows[0]}
    out = [f"Machine: {machine(start)}. "
           f"One thread everywhere, one pinned CPU per process. Versions: "
           + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
           f"Fresh process per case and round; medians of {args.rounds} round(s); first "
           f"call after the imports; per call = median of {args.batches} batches of >= "
           f"{args.batch_seconds * 1e3:.0f} ms after warm-up; compile caches off.", "",
           f"### the tutorial's hswish over float32{list(SHAPE)}", "",
           "| case | first call (compile + run) | per call |", "| --- | ---: | ---: |"]
    for case, (_, label) in CASES.items():
        rows = results.get(case, None)
        if case not in results:
            continue
        problem = row_problem(rows)
        if problem is not None:
            out.append(f"| {label} | {problem} | |")
            continue
        out.append(f"| {label} | {first_call_cell(rows)} | "
                   f"{fmt_s(med(rows, lambda r: r['per_call_s']))} |")
    out.append("")
    for a, b, what in (("msc-loop", "msc-vmap", "msc for loop / vmap"),
                       ("ms-loop", "ms-vmap", "MindSpore for loop / vmap"),
                       ("jax-loop", "jax-vmap", "JAX for loop / vmap"),
                       ("msc-vmap", "jax-vmap", "msc vmap / JAX vmap"),
                       ("msc-vmap", "ms-vmap", "msc vmap / MindSpore vmap")):
        if ok(results.get(a)) and ok(results.get(b)):
            first = [med(results[c], lambda r: r["first_s"]) for c in (a, b)]
            per = [med(results[c], lambda r: r["per_call_s"]) for c in (a, b)]
            out.append(f"- {what}: first call {first[0] / first[1]:.2f}x, per call "
                       f"{per[0] / per[1]:.2f}x")
    inits = [r["init_s"] for c, rows in results.items() if CASES[c][0] == "msc" and ok(rows)
             for r in rows]
    return "\n".join(out + init_note(inits, "first-call"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_round_args(ap)
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--worker", choices=list(CASES), help=argparse.SUPPRESS)
    args = round_defaults(ap.parse_args(argv))
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return 0
    start = datetime.now(timezone.utc)
    results: dict[str, Any] = {}
    for rnd in range(args.rounds):
        for case, (system, _) in CASES.items():  # interleaved: load spikes hit every case
            if system not in args.systems or (case in results and results[case] is None):
                continue
            print(f"round {rnd + 1}/{args.rounds}: {case}", file=sys.stderr)
            r = run_in_worker(__file__, "msc" if system == "numpy" else system, case, args)
            if r is None:
                results[case] = None
            else:
                results.setdefault(case, []).append(r)
    print(report(results, args, start))
    save_json(args.json, results)
    return 1 if any("error" in r for rows in results.values() for r in rows or []) else 0


if __name__ == "__main__":
    sys.exit(main())

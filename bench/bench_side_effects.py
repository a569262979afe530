"""Load elimination: bytes copied and time per call at each level, for many Loads and Assigns.

Run ``python bench/bench_side_effects.py`` (``--quick``: 2 rounds of shorter batches;
``--json`` keeps the raw rounds). The model, a GRAPH_MODE Cell run by msc and MindSpore
from the same source, keeps an EMA of the input in each of 32 float32[65536] Parameters
(8 MiB of weights) and accumulates what each weight was before its write::

    a = w * 1                          # the old value: the Load's buffer, not a copy
    ops.assign(w, w * 0.9 + x * 0.1)   # the EMA write
    acc = acc + a * 0.5                # even steps: reads only the old value
    acc = acc + (a - w)                # odd steps: the old value and the new one

Every step reads its old value after the write, so it needs a copy unless the read
moves above the write: level 0 copies all 48 Loads, level 1 the 32 old values, level 2
moves the even steps' ``a * 0.5`` above their writes and copies the 16 odd ones (their
``a - w`` reads the new value: it cannot move), level 3 copies nothing and the result
is wrong. msc's level is ``set_context(side_effect_load_elim=level)``, MindSpore's the
environment variable ``MS_DEV_SIDE_EFFECT_LOAD_ELIM``, read at process start.

Each case runs in a fresh process per round: its first call (compile + run) is checked
against a float64 numpy reference from the same starting weights (the returned ``acc``
and the 32 updated weights), then timed (median of batches after warm-up; the weights
keep moving, which changes no cost). The same worker times a hand-written numpy version
of the update (each read placed before its write, so it copies nothing) for the
"÷ numpy" column. msc rows fail loudly when levels 0-2 are wrong and report level 3's
error; MindSpore rows report whether its first result is right. The TensorMove count
and bytes copied come from msc's optimized IR: straight-line code, so each copy runs
once per call. "Arrays allocated per call" is Numba's runtime count for one call
(``NUMBA_NRT_STATS``): copies and temporaries alike (at level 2 a moved read fuses with
the computations that use it, so it holds no buffer across the write). msc: numba
target, compile cache
off, Numba's one-time set-up done before the timed first call (as in
``bench_control.py``). One thread everywhere,
MindSpore in its own interpreter (a missing one prints "not installed") and a
temporary working directory.

JAX has no row: it is functional, with no in-place weights, so there is no Load, no
write to order against it, and nothing for a level to decide.

This file imports only the standard library at top level (besides the other
benchmarks, which do too): MindSpore's interpreter runs it as a worker.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (add_round_args, fmt_s, machine, round_defaults, row_problem, run_in_worker,
                     save_json, time_per_call)
from bench_compile_cache import init_note, start_msc
from bench_control import med

N_PARAMS, SIZE, TOL = 32, 1 << 16, 1e-4
LEVELS = (0, 1, 2, 3)
CASES = {f"{s}-{level}": (system, level) for s, system in (("msc", "msc"), ("ms", "mindspore"))
         for level in LEVELS}
LABELS = {"msc": "msc (numba target)", "mindspore": "MindSpore 2.10"}


class CheckFailed(AssertionError):
    """A result at levels 0-2 that differs from its reference."""


# --- the model: one source for msc and MindSpore, and its numpy versions ----------------------


def ema_cell(ms: Any, nn: Any, ops: Any, weights: Any) -> Any:
    """The EMA Cell built from msc's or MindSpore's modules, on float32 ``weights``."""

    class EmaNet(nn.Cell):
        def __init__(self):  # type: ignore[no-untyped-def]
            super().__init__()
            self.ws = ms.ParameterTuple([ms.Parameter(ms.Tensor(w), name=f"w{i}")
                                         for i, w in enumerate(weights)])

        def construct(self, x):  # type: ignore[no-untyped-def]
            acc = x * 0
            for i, w in enumerate(self.ws):
                a = w * 1
                ops.assign(w, w * 0.9 + x * 0.1)
                if i % 2 == 0:
                    acc = acc + a * 0.5
                else:
                    acc = acc + (a - w)
            return acc

    return EmaNet()


def model_data() -> tuple[Any, Any]:
    """(weights float32[N_PARAMS, SIZE], x float32[SIZE])."""
    import numpy as np

    rng = np.random.default_rng(0)
    return (rng.standard_normal((N_PARAMS, SIZE)).astype(np.float32),
            rng.standard_normal(SIZE).astype(np.float32))


def reference(weights: Any, x: Any) -> tuple[Any, Any]:
    """(acc, updated weights) of one call, computed in float64 and cast to float32."""
    import numpy as np

    w, x64 = weights.astype(np.float64), x.astype(np.float64)
    new = 0.9 * w + 0.1 * x64
    acc = np.zeros_like(x64)
    for i in range(N_PARAMS):
        acc += 0.5 * w[i] if i % 2 == 0 else w[i] - new[i]
    return acc.astype(np.float32), new.astype(np.float32)


def numpy_update(ws: list[Any], x: Any) -> Any:
    """The update by hand: every read of the old value before the in-place write."""
    import numpy as np

    acc = np.zeros_like(x)
    xs = x * np.float32(0.1)
    for i, w in enumerate(ws):
        if i % 2 == 0:
            acc += w * np.float32(0.5)
            w *= np.float32(0.9)
            w += xs
        else:
            new = w * np.float32(0.9)
            new += xs
            acc += w - new
            w[...] = new
    return acc


def error(acc: Any, weights: list[Any], ref: tuple[Any, Any]) -> float:
    """Max abs difference of (acc, weights) from the reference; inf for a wrong dtype/shape."""
    import numpy as np

    got = [acc] + list(weights)
    if any(g.dtype != np.float32 or g.shape != (SIZE,) for g in got) or len(got) != N_PARAMS + 1:
        return float("inf")
    return max(float(np.max(np.abs(g.astype(np.float64) - r)))
               for g, r in zip(got, [ref[0], *ref[1]]))


# --- per-system setup: (the call, acc and weights as numpy, what to report) -------------------

Setup = tuple[Callable[[], Any], Callable[[Any], tuple[Any, list[Any]]], Callable[[], dict]]


def setup_msc(level: int, weights: Any, x: Any) -> Setup:
    import numpy as np

    import_s, init_s = start_msc()
    import msc as ms
    from msc import nn, ops
    from msc.frontend.jit import cell_cache
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba", enable_compile_cache=False,
                   side_effect_load_elim=level)
    net = ema_cell(ms, nn, ops, weights)
    xt = ms.Tensor(x)

    def info() -> dict[str, Any]:
        (compiled,) = cell_cache(net).entries.values()
        nodes = compiled.module.entry_graph.nodes
        moves = [n.out.type for n in nodes if n.op.name == "TensorMove"]
        load_elim = [p for p in compiled.report.as_dicts() if p["name"] == "load_elim"]
        return {"arrays": arrays_per_call(lambda: net(xt)), "import_s": import_s,
                "init_s": init_s, "version": ms.__version__,
                "loads": sum(n.op.name == "Load" for n in nodes), "moves": len(moves),
                "bytes": sum(t.size * np.dtype(t.dtype.np).itemsize for t in moves),
                "phases": dict(compiled.timings), "notes": list(compiled.report.notes),
                "load_elim_s": sum(p["seconds"] or 0.0 for p in load_elim)}

    as_np = lambda r: (np.array(r.asnumpy()), [np.array(p.asnumpy()) for p in net.ws])
    return (lambda: net(xt)), as_np, info


def arrays_per_call(call: Callable[[], Any]) -> int | None:
    """How many arrays one call allocates in Numba's runtime (copies and temporaries
    alike); None unless NUMBA_NRT_STATS=1 (``run_worker`` sets it for msc)."""
    from numba.core.runtime import rtsys

    try:
        before = rtsys.get_allocation_stats().alloc
    except RuntimeError:
        return None
    call()
    return int(rtsys.get_allocation_stats().alloc - before)


def setup_mindspore(level: int, weights: Any, x: Any) -> Setup:
    t0 = time.perf_counter()
    import mindspore as ms
    from mindspore import nn, ops
    import_s = time.perf_counter() - t0
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.device_context.cpu.op_tuning.threads_num(1)
    net = ema_cell(ms, nn, ops, weights)
    xt = ms.Tensor(x)
    as_np = lambda r: (r.asnumpy(), [p.asnumpy() for p in net.ws])
    return (lambda: net(xt)), as_np, lambda: {"import_s": import_s, "version": ms.__version__}


# --- the worker: one case, one fresh process --------------------------------------------------


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    system, level = CASES[case]
    weights, x = model_data()
    ref = reference(weights, x)
    call, as_np, info = {"msc": setup_msc, "mindspore": setup_mindspore}[system](
        level, weights, x)
    t0 = time.perf_counter()
    out = call()
    first_s = time.perf_counter() - t0
    err = error(*as_np(out), ref)
    if system == "msc" and level < 3 and not err < TOL:
        raise CheckFailed(f"{case}: max |compiled - numpy| = {err:.3g} >= {TOL}")
    per_call_s, n = time_per_call(call, batches, batch_s)
    hand = [w.copy() for w in weights]
    np_err = error(numpy_update(hand, x), hand, ref)
    if not np_err < TOL:
        raise CheckFailed(f"{case}: the hand-written numpy update is off by {np_err:.3g}")
    numpy_s, _ = time_per_call(lambda: numpy_update(hand, x), batches, batch_s)
    return {"first_s": first_s, "per_call_s": per_call_s, "numpy_s": numpy_s,
            "calls_per_batch": n, "max_abs_err": err, **info()}


def run_worker(case: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """One fresh process at the case's level (None where the peer is not installed)."""
    system, level = CASES[case]
    env = {"MS_DEV_SIDE_EFFECT_LOAD_ELIM": str(level),
           "MSC_SIDE_EFFECT_LOAD_ELIM": None}  # the context sets msc's level
    if system == "msc":
        env["NUMBA_NRT_STATS"] = "1"  # counts the kernel's allocations (atomic adds)
    return run_in_worker(__file__, system, case, args, env)


# --- the driver and its table -----------------------------------------------------------------

Results = dict[str, "list[dict[str, Any]] | None"]  # case -> one row per round


def verdict(rows: list[dict[str, Any]]) -> str:
    worst = max(r["max_abs_err"] for r in rows)
    return f"right ({worst:.1e})" if worst < TOL else f"**wrong** (max abs err {worst:.3g})"


def table(results: Results) -> str:
    out = [("| system | level | TensorMove / Load | bytes copied per call | arrays allocated "
            "per call | per call | ÷ numpy | first call (compile + run) | load_elim pass "
            "| first result (max abs err) |"),
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for case, (system, level) in CASES.items():
        if case not in results:
            continue
        rows, head = results[case], f"| {LABELS[system]} | {level} |"
        if (problem := row_problem(rows)) is not None:
            out.append(f"{head} {problem} | | | | | | | |")
            continue
        r0 = rows[0]
        copies = (f"{r0['moves']} / {r0['loads']} | {r0['bytes'] / 2**20:.2f} MiB | "
                  f"{'—' if r0['arrays'] is None else r0['arrays']}"
                  if system == "msc" else "— | — | —")
        ratio = med(rows, lambda r: r["per_call_s"] / r["numpy_s"])
        pass_s = fmt_s(med(rows, lambda r: r["load_elim_s"])) if system == "msc" else "—"
        out.append(f"{head} {copies} | {fmt_s(med(rows, lambda r: r['per_call_s']))} | "
                   f"{ratio:.2f}x | {fmt_s(med(rows, lambda r: r['first_s']))} | {pass_s} | "
                   f"{verdict(rows)} |")
    return "\n".join(out)


def notes(results: Results) -> list[str]:
    good = {c: rows for c, rows in results.items()
            if rows and all("per_call_s" in r for r in rows)}
    numpy_s = [r["numpy_s"] for rows in good.values() for r in rows]
    lines = []
    if numpy_s:
        lines.append(f"- hand-written numpy update, per call: {fmt_s(statistics.median(numpy_s))}"
                     f" (median over all workers; the ratios are taken per worker).")
    for case, rows in good.items():
        if CASES[case][0] == "msc":
            lines.append(f"- {case}: `{'; '.join(rows[0]['notes'])}`")
    if "msc-1" in good and "msc-2" in good:
        one, two = good["msc-1"][0], good["msc-2"][0]
        if one["arrays"] is not None and two["arrays"] is not None:
            lines.append(f"- msc level 2 against level 1: {one['moves'] - two['moves']} fewer "
                         f"copies, {two['arrays'] - one['arrays']:+d} arrays allocated per "
                         f"call.")
    return lines + init_note([r["init_s"] for c, rows in good.items() if CASES[c][0] == "msc"
                              for r in rows], "first-call")


def report(results: Results, args: argparse.Namespace, start: datetime) -> str:
    found: dict[str, str] = {}
    for case, rows in results.items():
        for r in rows or []:
            if "version" in r:
                found.setdefault(LABELS[CASES[case][0]].split()[0], r["version"])
    names = ", ".join(f"{k} {v}" for k, v in found.items())
    head = [f"Machine: {machine(start)}. "
            f"One thread everywhere, one pinned CPU per process. Versions: {names}.",
            (f"Fresh process per case and round; medians of {args.rounds} round(s); per call "
             f"= median of {args.batches} batches of >= {args.batch_seconds * 1e3:.0f} ms "
             f"after warm-up."), "",
            (f"### EMA update over {N_PARAMS} float32[{SIZE}] Parameters "
             f"({N_PARAMS * SIZE * 4 / 2**20:.0f} MiB of weights)"), ""]
    return "\n".join(head + [table(results), ""] + notes(results))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_round_args(ap)
    ap.add_argument("--systems", nargs="+", default=list(LABELS), choices=list(LABELS))
    ap.add_argument("--worker", choices=list(CASES), help=argparse.SUPPRESS)
    args = round_defaults(ap.parse_args(argv))
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return 0
    start = datetime.now(timezone.utc)
    results: Results = {}
    for rnd in range(args.rounds):
        for case, (system, _) in CASES.items():  # interleaved, so load spikes hit every case
            if system not in args.systems or (case in results and results[case] is None):
                continue
            print(f"round {rnd + 1}/{args.rounds}: {case}", file=sys.stderr)
            r = run_worker(case, args)
            if r is None:
                results[case] = None
            else:
                results.setdefault(case, []).append(r)  # type: ignore[union-attr]
    print(report(results, args, start))
    save_json(args.json, results)
    failed = any("error" in r for rows in results.values() for r in rows or [])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Control flow and tensor maps: ``if`` against ``select``, ``HyperMap`` against a loop.

Run ``python bench/bench_control.py`` (``--quick``: 2 rounds of shorter batches;
``--systems`` and ``--workloads`` pick a subset, ``--json`` keeps the raw rounds). Two
workloads from the reference tutorials, each case in a fresh process per round:

- ``nets``: ``examples/select_vs_if.py``'s ``if_net`` (100 tensor ``if``s unrolled) and
  ``select_net`` (the same with ``ops.select``) on int64[1] inputs [0] and [1]; both
  give -5050. msc (numba target) compiles ``if_net`` with its ``if_to_select`` pass on
  (the default) and off (``set_context(if_to_select=False)``); MindSpore 2.10 runs the
  same source under ``@ms.jit``; JAX jits ``select_net`` written with ``jnp.where`` and
  ``if_net`` written with one ``lax.cond`` per iteration (64-bit mode, for int64).
- ``hypermap``: ``examples/hypermap.py``'s SGD-style update ``p - 0.1 * g`` over 64
  float32[16] Parameters, mapped with ``C.HyperMap`` over a ``MultitypeFuncGraph``
  against the same update in a Python ``for`` loop (GRAPH_MODE Cells; the same source
  under MindSpore), and JAX's ``jax.tree_util.tree_map`` against a loop, both jitted.

Each worker reports its first call (compile + one run) and the per-call latency after
warm-up (median of batches); the tables show medians over rounds. msc rows also show
the optimized module's IR (entry-graph nodes, ``Select`` / ``If`` nodes, every node
including branch regions) and where the first call went: msc's own phases, then each
Numba compile (own time, and in brackets the part holding the LLVM lock) from Numba's
event stream. Numba's one-time per-process set-up is done before msc's timed call, as
in ``bench_reuse.py``, and reported apart. msc's compile cache and JAX's are off.

Every worker fails loudly unless its result is right: -5050 (int64, shape (1,)) for the
nets; for the update, 64 float32[16] outputs within 1e-5 of a float64 numpy reference.
One thread everywhere, peers in their own interpreters (a missing one prints "not
installed") and a temporary working directory, as in ``bench_codegen.py``.

This file imports only the standard library at top level (besides the other
benchmarks, which do too): the peer interpreters run it as workers.
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
from bench_reuse import numba_compiles, numba_events

CASES = {  # workload -> case -> (system, label)
    "nets": {"msc-if": ("msc", "msc `if_net`, if->select on (default)"),
             "msc-if-tiered": ("msc", "msc `if_net`, tiered: the python tier answers first"),
             "msc-if-off": ("msc", "msc `if_net`, `if_to_select=False`"),
             "msc-select": ("msc", "msc `select_net`"),
             "ms-if": ("mindspore", "MindSpore `@ms.jit` `if_net`"),
             "ms-select": ("mindspore", "MindSpore `@ms.jit` `select_net`"),
             "jax-cond": ("jax", "JAX `jax.jit` `if_net` (`lax.cond` per iteration)"),
             "jax-where": ("jax", "JAX `jax.jit` `select_net` (`jnp.where`)")},
    "hypermap": {"msc-hypermap": ("msc", "msc `HyperMap`"),
                 "msc-hypermap-tiered": ("msc", "msc `HyperMap`, tiered"),
                 "msc-loop": ("msc", "msc `for` loop"),
                 "ms-hypermap": ("mindspore", "MindSpore `HyperMap`"),
                 "ms-loop": ("mindspore", "MindSpore `for` loop"),
                 "jax-tree-map": ("jax", "JAX `jax.tree_util.tree_map`"),
                 "jax-loop": ("jax", "JAX `for` loop")}}
WORKLOAD_OF = {c: w for w, cases in CASES.items() for c in cases}
SYSTEM_OF = {c: s for cases in CASES.values() for c, (s, _) in cases.items()}
SYSTEMS = ("msc", "mindspore", "jax")
NET_RESULT, N_PARAMS, WIDTH, LR, TOL = -5050, 64, 16, 0.1, 1e-5


class CheckFailed(AssertionError):
    """A compiled result that differs from its reference."""


# --- the models: the examples' source, run by msc and MindSpore alike ------------------------

ops: Any = None  # msc.ops or mindspore.ops, bound by the worker before compiling


def if_net(x, y):  # type: ignore[no-untyped-def]
    out = 0
    for _ in range(100):
        if x < y:
            x = x - y
        else:
            x = x + y
        out = out + x
    return out


def select_net(x, y):  # type: ignore[no-untyped-def]
    out = x
    for _ in range(100):
        cond = x < y
        x = ops.select(cond, x - y, x + y)
        out = out + x
    return out


def update_cells(ms: Any, nn: Any, C: Any, F: Any, data: tuple[Any, Any]) -> dict[str, Any]:
    """The HyperMap example's two Cells, built from msc's or MindSpore's modules."""
    update = C.MultitypeFuncGraph("update")

    @update.register("Number", "Tensor", "Tensor")
    def _update(lr, param, grad):  # type: ignore[no-untyped-def]
        return param - lr * grad

    def make_params():  # type: ignore[no-untyped-def]
        return ms.ParameterTuple([ms.Parameter(ms.Tensor(p), name=f"p{i}")
                                  for i, p in enumerate(data[0])])

    class HyperMapUpdate(nn.Cell):
        def __init__(self):  # type: ignore[no-untyped-def]
            super().__init__()
            self.params = make_params()
            self.hyper_map = C.HyperMap()

        def construct(self, grads):  # type: ignore[no-untyped-def]
            return self.hyper_map(F.partial(update, 0.1), self.params, grads)

    class LoopUpdate(nn.Cell):
        def __init__(self):  # type: ignore[no-untyped-def]
            super().__init__()
            self.params = make_params()

        def construct(self, grads):  # type: ignore[no-untyped-def]
            out = ()
            for param, grad in zip(self.params, grads):
                out = out + (update(0.1, param, grad),)
            return out

    return {"hypermap": HyperMapUpdate, "loop": LoopUpdate}


def update_data() -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    return tuple(rng.standard_normal((2, N_PARAMS, WIDTH)).astype(np.float32))  # type: ignore


def check(case: str, out: Any) -> float:
    """Fails unless ``out`` (numpy arrays) is the case's right answer; returns the error."""
    import numpy as np

    if WORKLOAD_OF[case] == "nets":
        a = np.asarray(out)
        if a.dtype != np.int64 or a.shape != (1,) or int(a[0]) != NET_RESULT:
            raise CheckFailed(f"{case}: got {a!r} ({a.dtype}, {a.shape}), want int64 [-5050]")
        return 0.0
    params, grads = update_data()
    ref = params.astype(np.float64) - LR * grads.astype(np.float64)
    if len(out) != N_PARAMS or any(o.dtype != np.float32 or o.shape != (WIDTH,) for o in out):
        raise CheckFailed(f"{case}: want {N_PARAMS} float32 ({WIDTH},) outputs, got "
                          f"{[(o.dtype, o.shape) for o in out][:3]}... ({len(out)})")
    err = float(np.max(np.abs(np.stack(out).astype(np.float64) - ref)))
    if not err < TOL:
        raise CheckFailed(f"{case}: max |compiled - numpy| = {err:.3g} >= {TOL}")
    return err


# --- per-system setup: (the call, its result as numpy, what to report after the first call) ---

Setup = tuple[Callable[[], Any], Callable[[Any], Any], Callable[[], dict[str, Any]]]


def setup_msc(case: str) -> Setup:
    import numpy as np

    global ops
    import_s, init_s = start_msc()
    import msc as ms
    from msc import nn
    from msc import ops as msc_ops
    from msc.frontend.jit import cell_cache
    from msc.ops import composite as C
    from msc.ops import functional as F
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba", enable_compile_cache=False,
                   if_to_select=case != "msc-if-off",
                   jit_tier="auto" if case.endswith("-tiered") else "numba")
    if WORKLOAD_OF[case] == "nets":
        ops = msc_ops
        fn = ms.jit(select_net if case == "msc-select" else if_net)
        x, y = ms.Tensor(np.array([0], np.int64)), ms.Tensor(np.array([1], np.int64))
        call, cache, to_np = (lambda: fn(x, y)), (lambda: fn.cache), (lambda r: r.asnumpy())
    else:
        data = update_data()
        net = update_cells(ms, nn, C, F, data)[case.split("-")[1]]()
        grads = tuple(ms.Tensor(g) for g in data[1])
        call, cache = (lambda: net(grads)), (lambda: cell_cache(net))
        to_np = lambda r: [t.asnumpy() for t in r]

    def info() -> dict[str, Any]:
        from msc.ir.nodes import iter_nodes

        (compiled,) = cache().entries.values()
        module = compiled.module
        entry = [n.op.name for n in module.entry_graph.nodes]
        return {"import_s": import_s, "init_s": init_s, "version": ms.__version__,
                "entry_nodes": len(entry), "select": entry.count("Select"),
                "if": entry.count("If"), "all_nodes": sum(1 for _ in iter_nodes(module)),
                "graphs": len(module.graphs), "phases": dict(compiled.timings),
                "passes": compiled.report.as_dicts()}

    return call, to_np, info


def setup_mindspore(case: str) -> Setup:
    global ops
    t0 = time.perf_counter()
    import mindspore as ms
    from mindspore import nn
    from mindspore import ops as ms_ops
    from mindspore.ops import composite as C
    from mindspore.ops import functional as F
    import_s = time.perf_counter() - t0
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.device_context.cpu.op_tuning.threads_num(1)
    if WORKLOAD_OF[case] == "nets":
        import numpy as np

        ops = ms_ops
        fn = ms.jit(select_net if case == "ms-select" else if_net)
        x, y = ms.Tensor(np.array([0], np.int64)), ms.Tensor(np.array([1], np.int64))
        call, to_np = (lambda: fn(x, y)), (lambda r: r.asnumpy())
    else:
        data = update_data()
        net = update_cells(ms, nn, C, F, data)[case.split("-")[1]]()
        grads = tuple(ms.Tensor(g) for g in data[1])
        call, to_np = (lambda: net(grads)), (lambda r: [t.asnumpy() for t in r])
    return call, to_np, lambda: {"import_s": import_s, "version": ms.__version__}


def setup_jax(case: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    from jax import lax
    import_s = time.perf_counter() - t0
    jax.config.update("jax_enable_compilation_cache", False)  # a cold first call
    if WORKLOAD_OF[case] == "nets":
        jax.config.update("jax_enable_x64", True)  # int64 inputs, as the others get

        def cond_net(x, y):  # type: ignore[no-untyped-def]
            out = 0
            for _ in range(100):
                x = lax.cond((x < y).reshape(()), lambda v: v - y, lambda v: v + y, x)
                out = out + x
            return out

        def where_net(x, y):  # type: ignore[no-untyped-def]
            out = x
            for _ in range(100):
                x = jnp.where(x < y, x - y, x + y)
                out = out + x
            return out

        fn = jax.jit(cond_net if case == "jax-cond" else where_net)
        args: tuple[Any, ...] = (jax.device_put(np.array([0], np.int64)),
                                 jax.device_put(np.array([1], np.int64)))
    else:
        def update(lr, p, g):  # type: ignore[no-untyped-def]
            return p - lr * g

        def tree_map_update(ps, gs):  # type: ignore[no-untyped-def]
            return jax.tree_util.tree_map(lambda p, g: update(LR, p, g), ps, gs)

        def loop_update(ps, gs):  # type: ignore[no-untyped-def]
            out = ()
            for p, g in zip(ps, gs):
                out = out + (update(LR, p, g),)
            return out

        fn = jax.jit(tree_map_update if case == "jax-tree-map" else loop_update)
        args = tuple(tuple(jax.device_put(a) for a in arrs) for arrs in update_data())
    to_np = (lambda r: np.asarray(r)) if WORKLOAD_OF[case] == "nets" else \
        (lambda r: [np.asarray(a) for a in r])
    return (lambda: jax.block_until_ready(fn(*args)), to_np,
            lambda: {"import_s": import_s, "version": jax.__version__})


# --- the worker: one case, one fresh process --------------------------------------------------


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    system = SYSTEM_OF[case]
    call, to_np, info = {"msc": setup_msc, "mindspore": setup_mindspore,
                         "jax": setup_jax}[system](case)
    if system == "msc":
        with numba_events() as events:
            t0 = time.perf_counter()
            out = call()
            first_s = time.perf_counter() - t0
    else:
        t0 = time.perf_counter()
        out = call()
        first_s = time.perf_counter() - t0
    err = check(case, to_np(out))
    tiered = {}
    if case.endswith("-tiered"):  # per call is the numba tier's, once it took over
        from msc.tiering import wait_for_compiles

        wait_for_compiles()
        tiered = {"numba_after_s": time.perf_counter() - t0}
    per_call_s, n = time_per_call(call, batches, batch_s)
    check(case, to_np(call()))
    result = {"first_s": first_s, "per_call_s": per_call_s, **tiered,
              "calls_per_batch": n, "max_abs_err": err, **info()}
    if system == "msc":
        result["numba"] = numba_compiles(events)
    return result


def run_worker(case: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """One fresh process (None where the peer is not installed)."""
    return run_in_worker(__file__, SYSTEM_OF[case], case, args)


# --- the driver and its tables ----------------------------------------------------------------

Results = dict[str, "list[dict[str, Any]] | None"]  # case -> one row per round


def med(rows: list[dict[str, Any]], get: Callable[[dict[str, Any]], float]) -> float:
    return statistics.median(get(r) for r in rows)


def ok(rows: list[dict[str, Any]] | None) -> bool:
    return bool(rows) and all("first_s" in r for r in rows)  # type: ignore[union-attr]


def table(workload: str, results: Results) -> str:
    nets = workload == "nets"
    ir = ("| entry IR nodes | Select | If | all nodes (regions included) |" if nets
          else "| IR nodes after parsing | optimized IR nodes |")
    out = [f"| case | first call (compile + run) | per call {ir}",
           "| --- | ---: | ---: |" + " ---: |" * (4 if nets else 2)]
    for case, (system, label) in CASES[workload].items():
        if case not in results:
            continue
        rows, blanks = results[case], " |" * (4 if nets else 2)
        if (problem := row_problem(rows)) is not None:
            out.append(f"| {label} | {problem} | |{blanks}")
            continue
        cells = [fmt_s(med(rows, lambda r: r["first_s"])),
                 fmt_s(med(rows, lambda r: r["per_call_s"]))]
        r0 = rows[0]
        if system != "msc":
            cells += ["—"] * (4 if nets else 2)
        elif nets:
            cells += [str(r0[k]) for k in ("entry_nodes", "select", "if", "all_nodes")]
        else:
            cells += [str(r0["passes"][0]["nodes_after"]), str(r0["all_nodes"])]
        if "numba_after_s" in r0:
            label += f" (numba tier after {fmt_s(med(rows, lambda r: r['numba_after_s']))})"
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def split_table(workload: str, results: Results) -> str:
    """Where msc's first call goes: its phases, Numba's compiles, the rest."""
    out = [("| case | first call | parse | optimize (slowest pass) | codegen "
            "| Numba compiles (LLVM) | load + run + rest |"),
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for case, (system, label) in CASES[workload].items():
        rows = results.get(case)
        if system != "msc" or not ok(rows):
            continue

        def part(get: Callable[[dict[str, Any]], float], rows: Any = rows) -> str:
            return fmt_s(med(rows, get))

        def numba(r: dict[str, Any], key: str) -> float:
            return sum(v[key] for v in r["numba"].values())

        slowest = max(rows[0]["passes"][1:] or [{"name": "-", "seconds": 0.0}],
                      key=lambda s: s["seconds"] or 0.0)
        rest = part(lambda r: r["first_s"] - sum(r["phases"].values()) - numba(r, "own_s"))
        out.append(f"| {label} | {part(lambda r: r['first_s'])} | "
                   f"{part(lambda r: r['phases'].get('parse', 0.0))} | "
                   f"{part(lambda r: r['phases'].get('optimize', 0.0))} "
                   f"({slowest['name']} {fmt_s(slowest['seconds'] or 0.0)}) | "
                   f"{part(lambda r: r['phases'].get('codegen', 0.0))} | "
                   f"{part(lambda r: numba(r, 'own_s'))} ({part(lambda r: numba(r, 'llvm_s'))}) | "
                   f"{rest} |")
    return "\n".join(out)


def notes(results: Results) -> list[str]:
    lines = []

    def first(case: str) -> float | None:
        rows = results.get(case)
        return med(rows, lambda r: r["first_s"]) if ok(rows) else None  # type: ignore[arg-type]

    for a, b, what in (("msc-if-off", "msc-if", "msc if_net compile, if->select off / on"),
                       ("msc-if", "msc-select", "msc if_net (select on) / select_net compile"),
                       ("ms-if", "ms-select", "MindSpore if_net / select_net compile"),
                       ("msc-loop", "msc-hypermap", "msc loop / HyperMap compile"),
                       ("ms-loop", "ms-hypermap", "MindSpore loop / HyperMap compile")):
        fa, fb = first(a), first(b)
        if fa is not None and fb is not None:
            lines.append(f"- {what}: {fa / fb:.2f}x")
    return lines + init_note([r["init_s"] for case, rows in results.items()
                              if SYSTEM_OF[case] == "msc" and ok(rows)
                              for r in rows], "first-call")  # type: ignore[union-attr]


def versions(results: Results) -> str:
    found: dict[str, str] = {}
    for case, rows in results.items():
        for r in rows or []:
            if "version" in r:
                found.setdefault({"msc": "msc", "mindspore": "MindSpore",
                                  "jax": "JAX"}[SYSTEM_OF[case]], r["version"])
    from importlib.metadata import PackageNotFoundError, version

    try:
        found["Numba"] = version("numba")
    except PackageNotFoundError:  # a header line only
        found["Numba"] = "not installed"
    return ", ".join(f"{k} {v}" for k, v in found.items())


def report(results: dict[str, Results], args: argparse.Namespace, start: datetime) -> str:
    flat = {c: r for rs in results.values() for c, r in rs.items()}
    out = [(f"Machine: {machine(start)}. "
            f"One thread everywhere, one pinned CPU per process. Versions: "
            f"{versions(flat)}."),
           (f"Fresh process per case and round; medians of {args.rounds} round(s); per call "
            f"= median of {args.batches} batches of >= {args.batch_seconds * 1e3:.0f} ms "
            f"after warm-up. msc: numba target, compile cache off; JAX: compilation cache "
            f"off."), ""]
    titles = {"nets": ("tutorial `if_net` / `select_net`, int64[1] inputs [0] and [1] "
                       "(result -5050)"),
              "hypermap": (f"SGD-style update `p - 0.1 * g` over {N_PARAMS} "
                           f"float32[{WIDTH}] Parameters")}
    for workload in args.workloads:
        res = results[workload]
        out += [f"### {titles[workload]}", "", table(workload, res), ""]
        if any(SYSTEM_OF[c] == "msc" for c in res):
            out += [("msc's first call, split (medians; Numba compiles: own time, nested "
                     "compiles excluded, in brackets the part holding the LLVM lock):"), "",
                    split_table(workload, res), ""]
    return "\n".join(out + notes(flat))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_round_args(ap)
    ap.add_argument("--workloads", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--worker", choices=list(SYSTEM_OF), help=argparse.SUPPRESS)
    args = round_defaults(ap.parse_args(argv))
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return 0
    start = datetime.now(timezone.utc)
    results: dict[str, Results] = {w: {} for w in args.workloads}
    for rnd in range(args.rounds):
        for workload in args.workloads:
            for case in CASES[workload]:  # interleaved, so load spikes hit every case
                if SYSTEM_OF[case] not in args.systems or (
                        case in results[workload] and results[workload][case] is None):
                    continue
                print(f"round {rnd + 1}/{args.rounds}: {case}", file=sys.stderr)
                r = run_worker(case, args)
                if r is None:
                    results[workload][case] = None
                else:
                    results[workload].setdefault(case, []).append(r)  # type: ignore[union-attr]
    print(report(results, args, start))
    save_json(args.json, results)
    failed = any("error" in r for rs in results.values() for rows in rs.values()
                 for r in rows or [])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

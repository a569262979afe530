"""msc's compiled code against the systems a user would pick instead.

Run ``python bench/bench_codegen.py`` (``--quick`` for fewer repeats). Every
measurement runs in a fresh subprocess per system and round, so imports, JIT
caches and allocator state never leak between systems: each worker reports its
import time, its first call (compile + run) and the per-call latency after warm-up
(median over batches of calls). The table shows medians over rounds; the "÷ JAX"
column is the median of per-round ratios, taken within this one run.

Peers run with their own interpreters when installed: JAX from ``.peers/jax``
and MindSpore from ``.peers/ms`` (see the README section "Benchmarks"); a missing
peer prints "not installed". BLAS, OpenMP, Numba and XLA are all pinned to one
thread so that no system gets more cores than another.

This file imports only the standard library at top level: the peer interpreters
do not have msc installed, and they run this same file as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from harness import (ONE_CPU_NOTE, ONE_THREAD, PEERS, ROOT, fmt_s, machine, numba_tier_after,
                     one_cpu, row_problem, save_json, time_per_call)

SYSTEMS = ("msc-numba", "msc-numba-wait", "msc-numba-kernel", "msc-python", "msc-eager",
           "numpy", "numba-hand", "jax", "mindspore", "copyto")
LABELS = {"msc-numba": "msc compiled, numba target (`@ms.jit` / GRAPH_MODE), tiered",
          "msc-numba-wait": "  ...first call waiting for Numba (`jit_tier=\"numba\"`)",
          "msc-numba-kernel": "  ...its generated `run()` alone (no msc dispatch)",
          "msc-python": "msc compiled, python (numpy) target",
          "msc-eager": "msc eager (PyNative)",
          "numpy": "numpy, hand-written",
          "numba-hand": "Numba, hand-written `@njit`",
          "jax": "JAX `jax.jit`",
          "mindspore": "MindSpore 2.10 graph mode (`@ms.jit` / GRAPH_MODE)",
          "copyto": "`np.copyto(out, x)` into a kept array (the memory-bandwidth floor)"}
WORKLOADS = {"loop200": "tutorial 200-iteration model, 1-element float32 tensors",
             "mlp": "two-layer MLP, x 256x512 -> Dense 512 -> ReLU -> Dense 10, float32",
             "chain": "elementwise chain `relu(x * 1.5 + 0.25) * 2.0 - x`, x float32[10M] "
                      "(a, b, c Python floats: constants of the graph)"}
ONLY = {"copyto": ("chain",)}  # systems that run only some workloads
MLP_SHAPE = (256, 512, 512, 10)  # batch, in, hidden, out
CHAIN_SIZE = 10_000_000


# --- the models, written once as plain Python where the systems allow it ------------------


def loop200(input_x: Any, input_y: Any) -> Any:
    """The reference tutorial's model: 600 tiny ops on 1-element tensors."""
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output


ops: Any = None  # msc.ops or mindspore.ops, bound by the worker before compiling ``chain``


def chain(x: Any) -> Any:
    """A long elementwise chain over a large tensor: memory-bound."""
    return ops.relu(x * 1.5 + 0.25) * 2.0 - x


def mlp_cell(nn: Any, tensor: Callable[[Any], Any], w: dict[str, Any]) -> Any:
    """The MLP as an ``nn.Cell``; the same source runs under msc and MindSpore."""

    class MLP(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Dense(MLP_SHAPE[1], MLP_SHAPE[2], weight_init=tensor(w["w1"]),
                                bias_init=tensor(w["b1"]))
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(MLP_SHAPE[2], MLP_SHAPE[3], weight_init=tensor(w["w2"]),
                                bias_init=tensor(w["b2"]))

        def construct(self, x):  # type: ignore[no-untyped-def]
            return self.fc2(self.relu(self.fc1(x)))

    return MLP()


def workload_data(workload: str) -> tuple[dict[str, Any], Any]:
    """Inputs/weights (float32) and the float64 numpy reference output."""
    import numpy as np

    if workload == "loop200":
        d = {"x": np.array([1.0], np.float32), "y": np.array([0.5], np.float32)}
        return d, np.array([301.0])
    if workload == "chain":
        x = np.random.default_rng(0).normal(size=CHAIN_SIZE).astype(np.float32)
        x64 = x.astype(np.float64)
        return {"x": x}, np.maximum(x64 * 1.5 + 0.25, 0) * 2.0 - x64
    rng = np.random.default_rng(0)
    n, d_in, d_h, d_out = MLP_SHAPE
    d = {"x": rng.normal(size=(n, d_in)),
         "w1": rng.uniform(-1, 1, (d_h, d_in)) / np.sqrt(d_in), "b1": rng.uniform(-.1, .1, d_h),
         "w2": rng.uniform(-1, 1, (d_out, d_h)) / np.sqrt(d_h), "b2": rng.uniform(-.1, .1, d_out)}
    ref = np.maximum(d["x"] @ d["w1"].T + d["b1"], 0) @ d["w2"].T + d["b2"]
    return {k: v.astype(np.float32) for k, v in d.items()}, ref


# --- per-system setup: import seconds, one call, its result to numpy, version ------------

Setup = tuple[float, Callable[[], Any], Callable[[Any], Any], str]


_MSC_ENTRY: list[Any] = []


def setup_msc(system: str, workload: str, d: dict[str, Any]) -> Setup:
    global ops
    t0 = time.perf_counter()
    import msc as ms
    from msc import nn
    import_s = time.perf_counter() - t0
    ops = ms.ops
    ms.set_context(jit_target="python" if system == "msc-python" else "numba",
                   jit_tier="auto" if system == "msc-numba" else "numba")
    if system != "msc-eager":
        ms.set_context(mode=ms.GRAPH_MODE)
    inputs = [ms.Tensor(d["x"])] + ([ms.Tensor(d["y"])] if workload == "loop200" else [])
    if workload in ("loop200", "chain"):
        fn = loop200 if workload == "loop200" else chain
        entry: Any = fn if system == "msc-eager" else ms.jit(fn)
    else:
        entry = mlp_cell(nn, ms.Tensor, d)
    call = lambda: entry(*inputs)
    _MSC_ENTRY[:] = [entry]
    if system == "msc-numba-kernel":
        return 0.0, _msc_kernel_call(call, entry, inputs), lambda r: r, ms.__version__
    return import_s, call, lambda r: r.asnumpy() if hasattr(r, "asnumpy") else r, ms.__version__


def _msc_kernel_call(call: Callable[[], Any], entry: Any, inputs: list[Any]) -> Callable[[], Any]:
    """After one compiling call, the generated module's ``run`` on prepared arrays: the
    floor under msc's per-call dispatch (reaches into msc internals; diagnostic only)."""
    call()
    (compiled,) = msc_cache(entry).entries.values()
    args = [t.asnumpy() for t in inputs] + compiled.binding.current()  # weight arenas
    args += list(compiled.spec.constants)
    run = compiled.code.run
    return lambda: run(*args)


def setup_numpy(workload: str, d: dict[str, Any]) -> Setup:
    import numpy as np

    if workload == "loop200":
        x, y = d["x"], d["y"]
        return 0.0, lambda: loop200(x, y), np.asarray, np.__version__
    if workload == "chain":
        x = d["x"]
        return 0.0, lambda: np.maximum(x * 1.5 + 0.25, 0) * 2.0 - x, np.asarray, np.__version__
    x, w1, b1, w2, b2 = (d[k] for k in ("x", "w1", "b1", "w2", "b2"))
    w1t, w2t = np.ascontiguousarray(w1.T), np.ascontiguousarray(w2.T)
    return 0.0, lambda: np.maximum(x @ w1t + b1, 0) @ w2t + b2, np.asarray, np.__version__


def setup_numba(workload: str, d: dict[str, Any]) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import numba
    import_s = time.perf_counter() - t0
    if workload == "loop200":

        @numba.njit(cache=False)
        def fused(x, y):  # type: ignore[no-untyped-def]
            out = np.empty_like(x)
            for i in range(x.size):
                xi, acc = x[i], x[i]
                for _ in range(200):
                    acc = xi + xi * y[i] + acc
                out[i] = acc
            return out

        x, y = d["x"], d["y"]
        return import_s, lambda: fused(x, y), np.asarray, numba.__version__
    if workload == "chain":

        @numba.njit(cache=False, error_model="numpy")
        def fused_chain(x, out):  # type: ignore[no-untyped-def]
            for i in range(x.size):
                out[i] = max(x[i] * np.float32(1.5) + np.float32(0.25), np.float32(0)) \
                    * np.float32(2.0) - x[i]
            return out

        x = d["x"]
        out = np.empty_like(x)  # preallocated: what a compiler could do with no allocation
        return import_s, lambda: fused_chain(x, out), np.asarray, numba.__version__

    @numba.njit(cache=False)
    def mlp(x, w1t, b1, w2t, b2):  # type: ignore[no-untyped-def]
        h = np.dot(x, w1t)
        for i in range(h.shape[0]):
            for j in range(h.shape[1]):
                h[i, j] = max(h[i, j] + b1[j], np.float32(0))
        out = np.dot(h, w2t)
        for i in range(out.shape[0]):
            for j in range(out.shape[1]):
                out[i, j] += b2[j]
        return out

    args = (d["x"], np.ascontiguousarray(d["w1"].T), d["b1"], np.ascontiguousarray(d["w2"].T),
            d["b2"])
    return import_s, lambda: mlp(*args), np.asarray, numba.__version__


def setup_jax(workload: str, d: dict[str, Any]) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    import_s = time.perf_counter() - t0
    jax.config.update("jax_enable_compilation_cache", False)  # a cold first call
    dev = {k: jax.device_put(v) for k, v in d.items()}
    if workload == "loop200":
        fn = jax.jit(loop200)
        args = (dev["x"], dev["y"])
    elif workload == "chain":
        fn = jax.jit(lambda x: jnp.maximum(x * 1.5 + 0.25, 0) * 2.0 - x)
        args = (dev["x"],)
    else:
        def mlp(x, w1, b1, w2, b2):  # type: ignore[no-untyped-def]
            return jnp.maximum(x @ w1.T + b1, 0) @ w2.T + b2

        fn = jax.jit(mlp)
        args = tuple(dev[k] for k in ("x", "w1", "b1", "w2", "b2"))
    return import_s, lambda: fn(*args).block_until_ready(), np.asarray, jax.__version__


def setup_mindspore(workload: str, d: dict[str, Any]) -> Setup:
    t0 = time.perf_counter()
    import mindspore as ms
    from mindspore import nn
    import_s = time.perf_counter() - t0
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.device_context.cpu.op_tuning.threads_num(1)  # kernel threads; its scheduler keeps its own
    x = ms.Tensor(d["x"])
    if workload == "chain":
        globals()["ops"] = ms.ops
        fn = ms.jit(chain)
        call = lambda: fn(x)
    elif workload == "loop200":
        y = ms.Tensor(d["y"])
        fn = ms.jit(loop200)
        call = lambda: fn(x, y)
    else:
        net = mlp_cell(nn, ms.Tensor, d)
        call = lambda: net(x)
    return import_s, call, lambda r: r.asnumpy(), ms.__version__


def setup_copyto(workload: str, d: dict[str, Any]) -> Setup:
    import numpy as np

    x = d["x"]
    out = np.empty_like(x)
    return 0.0, lambda: np.copyto(out, x), lambda r: np.maximum(x * 1.5 + 0.25, 0) * 2.0 - x, \
        np.__version__  # (its result is no result: the reference passes the error check)


def setup(system: str, workload: str, d: dict[str, Any]) -> Setup:
    if system.startswith("msc"):
        return setup_msc(system, workload, d)
    return {"numpy": setup_numpy, "numba-hand": setup_numba, "jax": setup_jax,
            "mindspore": setup_mindspore, "copyto": setup_copyto}[system](workload, d)


# --- the worker: one system, one workload, one fresh process ---------------------------------


def worker(system: str, workload: str, batches: int, batch_s: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    import numpy as np
    numpy_import_s = time.perf_counter() - t0

    d, ref = workload_data(workload)
    import_s, call, to_np, version = setup(system, workload, d)
    if system == "numpy":
        import_s = numpy_import_s
    t0 = time.perf_counter()
    out = call()
    first_s = time.perf_counter() - t0
    err = float(np.max(np.abs(np.asarray(to_np(out), np.float64) - ref)))
    tiered = {}
    if system == "msc-numba":  # the python tier answered; per call is the numba tier's
        tiered = numba_tier_after(t0)
        out = call()
        err = max(err, float(np.max(np.abs(np.asarray(to_np(out), np.float64) - ref))))
    per_call_s, n = time_per_call(call, batches, batch_s)
    return {"import_s": import_s, "first_s": first_s, "per_call_s": per_call_s,
            "calls_per_batch": n, "max_abs_err": err, "version": version, **tiered,
            "phases": msc_phases() if system in ("msc-numba-wait", "msc-python") else {}}


def msc_phases() -> dict[str, float]:
    """The compile phases msc timed itself (frontend, passes, code generation); empty if
    msc's internals moved, so that the timed rows still come out."""
    try:
        (compiled,) = msc_cache(_MSC_ENTRY[0]).entries.values()
        return {k: float(v) for k, v in compiled.timings.items()}
    except (AttributeError, ValueError, TypeError):
        return {}


def msc_cache(entry: Any) -> Any:
    """The compile cache of a ``@jit`` function or a Cell (msc internals; diagnostics)."""
    from msc.frontend import jit as msc_jit

    return entry.cache if hasattr(entry, "cache") else msc_jit.cell_cache(entry)


def run_worker(system: str, workload: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """One fresh process; None where the peer is not installed."""
    exe = PEERS.get(system, sys.executable)
    if not os.path.exists(exe):
        return None
    env = {**os.environ, **ONE_THREAD}
    if system.startswith("msc"):
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    cmd = [exe, os.path.abspath(__file__), "--worker", system, workload,
           "--batches", str(args.batches), "--batch-seconds", str(args.batch_seconds)]
    with tempfile.TemporaryDirectory(prefix="msc-bench-") as cwd:  # MindSpore writes rank_0/
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=600, check=False, preexec_fn=one_cpu)
        except subprocess.TimeoutExpired:
            return {"error": "no result within 600 s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        return {"error": f"exit {p.returncode}: " + " | ".join(tail)}
    return json.loads(lines[-1][len("RESULT "):])


# --- the driver and its tables --------------------------------------------------------------


def med(rows: list[dict[str, Any]], key: str) -> float | None:
    vals = [r[key] for r in rows if key in r]
    return statistics.median(vals) if vals else None


Results = dict[str, "list[dict[str, Any]] | None"]  # system -> one row per round


def table(workload: str, results: Results) -> str:
    jax_rows = [r for r in results.get("jax") or [] if "per_call_s" in r]
    header = ("| system | per call | ÷ JAX per call | import | first call (compile + run) "
              "| import + first call | max abs err |")
    out = [f"### {WORKLOADS[workload]}", "", header,
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for system in [s for s in SYSTEMS if s in results]:
        rows = results[system]
        if (problem := row_problem(rows)) is not None:
            out.append(f"| {LABELS[system]} | {problem} | | | | | |")
            continue
        ratios = [r["per_call_s"] / j["per_call_s"] for r in rows for j in jax_rows
                  if j["round"] == r["round"]]
        ratio = f"{statistics.median(ratios):.2f}x" if ratios else "—"
        imp, first = med(rows, "import_s"), med(rows, "first_s")
        total = statistics.median(r["import_s"] + r["first_s"] for r in rows)
        if system == "msc-numba-kernel":  # measured after msc-numba's own compile
            imp = first = total = None
        out.append(f"| {LABELS[system]} | {fmt_s(med(rows, 'per_call_s'))} | {ratio} | "
                   f"{fmt_s(imp)} | {fmt_s(first)} | {fmt_s(total)} | "
                   f"{max(r['max_abs_err'] for r in rows):.1e} |")
    return "\n".join(out + summary(results))


def summary(results: Results) -> list[str]:
    """The issue's target (msc's compiled call vs JAX's) and where msc's first call goes."""
    lines = [""]
    msc, jax = results.get("msc-numba"), results.get("jax")
    if ok(msc) and ok(jax):
        m, j = med(msc, "per_call_s"), med(jax, "per_call_s")
        wins = sum(a["per_call_s"] < b["per_call_s"] for a in msc for b in jax
                   if a["round"] == b["round"])
        lines.append(f"msc numba per call {fmt_s(m)} vs JAX {fmt_s(j)}: msc is "
                     f"{'faster' if m < j else 'slower'} (faster in {wins} of {len(msc)} rounds).")
    if ok(msc) and "numba_after_s" in msc[0]:
        lines.append(f"msc tiered: the first call ran on the python tier; the numba tier "
                     f"took over {fmt_s(med(msc, 'numba_after_s'))} after it started.")
    copy = results.get("copyto")
    for system in ("msc-numba", "msc-numba-kernel", "numba-hand", "numpy", "jax"):
        rows = results.get(system)
        if ok(copy) and ok(rows):  # the chain's floor: reading x and writing one array
            ratios = [r["per_call_s"] / c["per_call_s"] for r in rows for c in copy
                      if c["round"] == r["round"]]
            lines.append(f"{system} per call / `np.copyto`: {statistics.median(ratios):.2f}x.")
    for system in ("msc-numba-wait", "msc-python"):
        rows = results.get(system)
        if ok(rows) and rows[0].get("phases"):
            ph = {k: statistics.median(r["phases"].get(k, 0.0) for r in rows)
                  for k in rows[0]["phases"]}
            rest = med(rows, "first_s") - sum(ph.values())
            lines.append(f"{system} first call: " + ", ".join(f"{k} {fmt_s(v)}" for k, v in
                                                              ph.items())
                         + f", then loading and running the generated code {fmt_s(rest)}.")
    return lines if len(lines) > 1 else []


def ok(rows: list[dict[str, Any]] | None) -> bool:
    return rows is not None and len(rows) > 0 and all("per_call_s" in r for r in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 rounds of 5 short batches")
    ap.add_argument("--rounds", type=int, default=None, help="fresh processes per system")
    ap.add_argument("--batches", type=int, default=None)
    ap.add_argument("--batch-seconds", type=float, default=None)
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--json", help="also write the raw per-round results here")
    ap.add_argument("--worker", nargs=2, metavar=("SYSTEM", "WORKLOAD"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.batches = args.batches or (5 if args.quick else 7)
    args.batch_seconds = args.batch_seconds or (0.02 if args.quick else 0.05)
    if args.worker:
        print("RESULT " + json.dumps(worker(*args.worker, args.batches, args.batch_seconds)))
        return 0
    results: dict[str, Results] = {w: {} for w in args.workloads}
    versions: dict[str, str] = {}
    start = datetime.now(timezone.utc)
    for rnd in range(args.rounds):
        for workload in args.workloads:
            for system in args.systems:  # interleaved, so load spikes hit every system
                if workload not in ONLY.get(system, (workload,)):
                    continue
                print(f"round {rnd + 1}/{args.rounds}: {workload} {system}", file=sys.stderr)
                r = run_worker(system, workload, args)
                if r is None:
                    results[workload][system] = None
                    continue
                r["round"] = rnd
                results[workload].setdefault(system, []).append(r)  # type: ignore[union-attr]
                versions.setdefault(system, r.get("version", "?"))
    print(f"Machine: {machine(start)}. One thread everywhere ({ONE_CPU_NOTE}; "
          f"{', '.join(k + '=1' for k in ONE_THREAD if k.endswith('THREADS'))}, XLA "
          f"single-threaded Eigen). Medians of {args.rounds} fresh processes per system; "
          f"per call = median of {args.batches} batches of >= {args.batch_seconds * 1e3:.0f} ms.")
    names = {"msc-numba": "msc", "numpy": "numpy", "numba-hand": "numba", "jax": "jax",
             "mindspore": "mindspore"}
    print("Versions: " + ", ".join(f"{names[s]} {v}" for s, v in versions.items() if s in names)
          + ".\n")
    for workload in args.workloads:
        print(table(workload, results[workload]) + "\n")
    save_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Compile time of N identical blocks with and without subgraph reuse (``@lazy_inline``).

Run ``python bench/bench_reuse.py`` (``--quick``: N = 1, 4, 16, 64 and one round). The
model is ``examples/lazy_inline_gpt.py``: N blocks of Dense 64->256, GELU, Dense 256->64,
a residual add and a LayerNorm, then a head Dense, on a float32 (8, 64) input. Every
(system, N, round) is a fresh process; the table shows medians over rounds of the first
call (compile + one run), and processes that pass ``--timeout`` show as "> T s" (a
larger N of that system is then not run: it would take longer still).

- msc with reuse (``set_context(reuse="lazy_inline")``, the default: one
  ``Block_construct`` graph and kernel, called N times) and without (``reuse="off"``:
  every block inlined), compile cache off. Numba's one-time per-process set-up is done
  before the timed call (the accounting JAX gets from starting its backend first) and
  reported apart. The worker also records msc's phase timings, the optimized IR's node
  and graph counts, and each Numba compile (exclusive of the compiles nested in it,
  and the part of it spent in LLVM) from Numba's event stream.
- MindSpore 2.10 graph mode, the same Cell source with ``@lazy_inline(policy="front")``
  on ``Block.__init__`` and without (plain ``@lazy_inline`` compiles on Ascend only).
- ``jax.jit`` of the same model as a pure function: a Python loop over the blocks,
  unrolled by tracing (first call includes ``block_until_ready``).

Every worker fails loudly unless its result matches: msc against eager (PyNative)
execution of the same net, the peers against a float64 numpy reference computed from
their own weights (max abs difference below 1e-4). One thread everywhere, peers in
their own interpreters and a temporary working directory, as in ``bench_codegen.py``.

This file imports only the standard library at top level (besides the two other
benchmarks, which do too): the peer interpreters run it as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ONE_THREAD, PEERS, ROOT, fmt_s, machine, one_cpu, save_json, time_per_call
from bench_compile_cache import init_note, numba_init

SYSTEMS = ("msc", "msc-off", "msc-tiered", "ms-lazy", "ms-plain", "jax")
NODE_SYSTEMS = ("msc", "msc-off")  # their cells add the IR's node and graph counts
PEER_OF = {"ms-lazy": "mindspore", "ms-plain": "mindspore", "jax": "jax"}
NS, QUICK_NS = (1, 2, 4, 8, 16, 32, 64), (1, 4, 16, 64)
WIDTH, BATCH, TOL, LN_EPS = 64, 8, 1e-4, 1e-7


class CheckFailed(AssertionError):
    """A compiled result that differs from its reference."""


def check(system: str, n: int, out: Any, ref: Any) -> float:
    import numpy as np

    err = float(np.max(np.abs(np.asarray(out, np.float64) - ref)))
    if not err < TOL:
        raise CheckFailed(f"{system}, N={n}: max |compiled - reference| = {err:.3g} >= {TOL}")
    return err


def reference(x: Any, params: list[Any]) -> Any:
    """The model in float64 numpy from a flat weight list: 6 per block, then the head."""
    import numpy as np

    h, p = x.astype(np.float64), [np.asarray(a, np.float64) for a in params]
    for i in range(0, len(p) - 2, 6):
        w1, b1, w2, b2, gamma, beta = p[i:i + 6]
        a = h @ w1.T + b1
        a = 0.5 * a * (1.0 + np.tanh(0.7978845608028654 * (a + 0.044715 * a ** 3)))
        y = h + a @ w2.T + b2
        mean = y.mean(-1, keepdims=True)
        var = ((y - mean) ** 2).mean(-1, keepdims=True)
        h = (y - mean) / np.sqrt(var + LN_EPS) * gamma + beta
    return h @ p[-2].T + p[-1]


# --- msc ------------------------------------------------------------------------------------


def worker_msc(system: str, n: int, x: Any) -> dict[str, Any]:
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import msc as ms
    from lazy_inline_gpt import GPT
    from msc.frontend.jit import cell_cache

    ms.set_seed(0)
    net = GPT(n)
    eager = net(ms.Tensor(x)).asnumpy()
    tiered = system == "msc-tiered"  # the python tier answers; Numba is not set up first
    t0 = time.perf_counter()
    if not tiered:
        numba_init()
    init_s = time.perf_counter() - t0
    ms.set_context(mode=ms.GRAPH_MODE, reuse="off" if system == "msc-off" else "lazy_inline",
                   enable_compile_cache=False, jit_tier="auto" if tiered else "numba")
    with numba_events() as events:
        t0 = time.perf_counter()
        out = net(ms.Tensor(x)).asnumpy()
        first_s = time.perf_counter() - t0
    err = check(system, n, out, eager)
    after = {}
    if tiered:
        from msc.tiering import wait_for_compiles

        wait_for_compiles()
        after = {"numba_after_s": time.perf_counter() - t0}
        err = max(err, check(system, n, net(ms.Tensor(x)).asnumpy(), eager))
    xt = ms.Tensor(x)
    per_call_s, _ = time_per_call(lambda: net(xt), batches=5, batch_s=0.05)
    (compiled,) = cell_cache(net).entries.values()
    graphs = compiled.module.graphs
    return {"first_s": first_s, "per_call_s": per_call_s, "init_s": init_s,
            "phases": dict(compiled.timings),
            "numba": numba_compiles(events), "entry": compiled.spec.kernel.name,
            "graph_names": [g.name for g in graphs],
            "nodes": sum(len(g.nodes) for g in graphs), "graphs": len(graphs),
            "max_abs_err": err, "version": ms.__version__, **after}


class numba_events:
    """Numba's compile and LLVM-lock events, in order, while the block runs."""

    KINDS = ("numba:compile", "numba:llvm_lock")

    def __enter__(self) -> list[tuple[float, str, bool, str]]:
        from numba.core import event

        self.events: list[tuple[float, str, bool, str]] = []
        log = self.events

        class Recorder(event.Listener):  # type: ignore[misc]
            def on_start(self, ev: Any) -> None:
                log.append((time.perf_counter(), ev.kind, True, _dispatcher_name(ev)))

            def on_end(self, ev: Any) -> None:
                log.append((time.perf_counter(), ev.kind, False, _dispatcher_name(ev)))

        self.listener = Recorder()
        for kind in self.KINDS:
            event.register(kind, self.listener)
        return self.events

    def __exit__(self, *exc: Any) -> None:
        from numba.core import event

        for kind in self.KINDS:
            event.unregister(kind, self.listener)


def _dispatcher_name(ev: Any) -> str:
    data = ev.data if isinstance(ev.data, dict) else {}
    return getattr(getattr(data.get("dispatcher"), "py_func", None), "__name__", "")


def numba_compiles(events: list[tuple[float, str, bool, str]]) -> dict[str, dict[str, float]]:
    """Per compiled function: seconds in its own compile (nested compiles excluded) and,
    of those, seconds holding the LLVM lock (outermost holds only)."""
    out: dict[str, dict[str, float]] = {}
    stack: list[list[Any]] = []  # [name, start, seconds in nested compiles]
    llvm_depth, llvm_start = 0, 0.0
    for t, kind, start, name in events:
        if kind == "numba:llvm_lock":
            llvm_depth += 1 if start else -1
            if start and llvm_depth == 1:
                llvm_start = t
            elif not start and llvm_depth == 0 and stack:
                row = out.setdefault(stack[-1][0], {"own_s": 0.0, "llvm_s": 0.0})
                row["llvm_s"] += t - llvm_start
        elif start:
            stack.append([name, t, 0.0])
        else:
            fn, t0, nested = stack.pop()
            row = out.setdefault(fn, {"own_s": 0.0, "llvm_s": 0.0})
            row["own_s"] += t - t0 - nested
            if stack:
                stack[-1][2] += t - t0
    return out


# --- MindSpore and JAX ----------------------------------------------------------------------


def gpt_cell(nn: Any, init_deco: Any, n: int) -> Any:
    """The example's model as MindSpore source; ``init_deco`` wraps ``Block.__init__``."""

    class Block(nn.Cell):
        def __init__(self, width):  # type: ignore[no-untyped-def]
            super().__init__()
            self.fc1 = nn.Dense(width, 4 * width)
            self.act = nn.GELU()
            self.fc2 = nn.Dense(4 * width, width)
            self.norm = nn.LayerNorm((width,), epsilon=LN_EPS)

        def construct(self, x):  # type: ignore[no-untyped-def]
            return self.norm(x + self.fc2(self.act(self.fc1(x))))

    if init_deco is not None:
        Block.__init__ = init_deco(Block.__init__)

    class GPT(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.CellList([Block(WIDTH) for _ in range(n)])
            self.head = nn.Dense(WIDTH, WIDTH)

        def construct(self, x):  # type: ignore[no-untyped-def]
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    return GPT()


def worker_mindspore(system: str, n: int, x: Any) -> dict[str, Any]:
    import mindspore as ms
    from mindspore import lazy_inline, nn

    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.device_context.cpu.op_tuning.threads_num(1)
    ms.set_seed(0)
    net = gpt_cell(nn, lazy_inline(policy="front") if system == "ms-lazy" else None, n)
    xt = ms.Tensor(x)
    t0 = time.perf_counter()
    out = net(xt).asnumpy()
    first_s = time.perf_counter() - t0
    params = [p.asnumpy() for p in net.trainable_params()]
    return {"first_s": first_s, "version": ms.__version__,
            "max_abs_err": check(system, n, out, reference(x, params))}


def worker_jax(n: int, x: Any) -> dict[str, Any]:
    import numpy as np
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_compilation_cache", False)

    def gpt(h: Any, params: list[Any]) -> Any:
        for i in range(0, len(params) - 2, 6):  # unrolled while tracing
            w1, b1, w2, b2, gamma, beta = params[i:i + 6]
            y = h + jax.nn.gelu(h @ w1.T + b1, approximate=True) @ w2.T + b2
            mean = y.mean(-1, keepdims=True)
            var = ((y - mean) ** 2).mean(-1, keepdims=True)
            h = (y - mean) / jnp.sqrt(var + LN_EPS) * gamma + beta
        return h @ params[-2].T + params[-1]

    rng = np.random.default_rng(1)
    params: list[Any] = []
    for d_in, d_out in [(WIDTH, 4 * WIDTH), (4 * WIDTH, WIDTH)] * n + [(WIDTH, WIDTH)]:
        params += [rng.uniform(-1, 1, (d_out, d_in)) / np.sqrt(d_in), rng.uniform(-.1, .1, d_out)]
        if len(params) % 6 == 4:  # after fc2: the LayerNorm's gamma and beta
            params += [rng.uniform(0.5, 1.5, WIDTH), rng.uniform(-.1, .1, WIDTH)]
    params = [p.astype(np.float32) for p in params]
    dev = [jax.device_put(p) for p in params]
    xd = jax.device_put(x)  # starts the backend before the timed call
    fn = jax.jit(gpt)
    t0 = time.perf_counter()
    out = fn(xd, dev).block_until_ready()
    first_s = time.perf_counter() - t0
    return {"first_s": first_s, "version": jax.__version__,
            "max_abs_err": check("jax", n, np.asarray(out), reference(x, params))}


def worker(system: str, n: int) -> dict[str, Any]:
    import numpy as np

    x = np.random.default_rng(0).standard_normal((BATCH, WIDTH)).astype(np.float32)
    if system.startswith("msc"):
        return worker_msc(system, n, x)
    return worker_jax(n, x) if system == "jax" else worker_mindspore(system, n, x)


# --- the driver -----------------------------------------------------------------------------


def run_worker(system: str, n: int, timeout: float) -> dict[str, Any] | None:
    """One fresh process, killed with its process group at ``timeout``; None where the
    peer is not installed."""
    exe = PEERS[PEER_OF[system]] if system in PEER_OF else sys.executable
    if not os.path.exists(exe):
        return None
    with tempfile.TemporaryDirectory(prefix="msc-reuse-bench-") as tmp:
        # MindSpore writes rank_0/ into its working directory, msc its generated code
        # and Numba's cache into TMPDIR: both go with the folder, even after a kill
        env = {**os.environ, **ONE_THREAD, "TMPDIR": tmp}
        if system.startswith("msc"):
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
        cmd = [exe, os.path.abspath(__file__), "--worker", system, str(n)]
        with subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True,
                              preexec_fn=one_cpu) as p:
            try:
                stdout, stderr = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                return {"timeout": True}
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        tail = " | ".join((stderr or stdout).strip().splitlines()[-3:])
        print(f"FAILED: {system}, N={n}: exit {p.returncode}: {tail}", file=sys.stderr)
        return {"error": f"exit {p.returncode}: {tail}"}
    return json.loads(lines[-1][len("RESULT "):])  # type: ignore[no-any-return]


Results = dict[str, dict[int, "list[dict[str, Any]] | None"]]  # system -> N -> rounds


def measure(args: argparse.Namespace) -> Results:
    results: Results = {s: {} for s in args.systems}
    for rnd in range(args.rounds):
        for n in args.ns:
            for system in args.systems:  # interleaved, so load spikes hit every system
                done = results[system]
                if None in done.values() or any(r.get("timeout") for m, rows in done.items()
                                                if m <= n for r in rows or []):
                    continue  # not installed, or this or a smaller N already timed out
                print(f"round {rnd + 1}/{args.rounds}: {system} N={n}", file=sys.stderr)
                r = run_worker(system, n, args.timeout)
                if r is None:
                    done[n] = None
                else:
                    done.setdefault(n, []).append(r)  # type: ignore[union-attr]
    return results


def med(rows: list[dict[str, Any]], get: Any) -> float:
    return statistics.median(get(r) for r in rows)


def cell(rows: list[dict[str, Any]] | None, timeout: float, nodes: bool = False) -> list[str]:
    """A system's table cells for one N: compile seconds (and IR nodes / graphs)."""
    blank = [""] if nodes else []
    if rows is None:
        return ["not run (a smaller N timed out)"] + blank
    if any(r.get("timeout") for r in rows):
        return [f"> {timeout:.0f} s"] + blank
    if any("error" in r for r in rows):
        return ["failed: " + next(r["error"] for r in rows if "error" in r)[:80]] + blank
    first = fmt_s(med(rows, lambda r: r["first_s"]))
    if "numba_after_s" in rows[0]:
        first += f" (numba tier after {fmt_s(med(rows, lambda r: r['numba_after_s']))})"
    return [first, f"{rows[0]['nodes']} / {rows[0]['graphs']}"] if nodes else [first]


def table(results: Results, args: argparse.Namespace) -> str:
    out = ["| N | msc reuse: compile | nodes / graphs | msc off: compile | nodes / graphs "
           "| msc reuse, tiered: first call | MindSpore `lazy_inline(policy=\"front\")` "
           "| MindSpore plain | JAX `jax.jit` |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n in args.ns:
        row = [str(n)]
        for system in SYSTEMS:
            done, nodes = results.get(system), system in NODE_SYSTEMS
            if done is None:
                row += ["—"] * (2 if nodes else 1)
            elif done and all(v is None for v in done.values()):
                row += ["not installed"] + ([""] if nodes else [])
            else:
                row += cell(done.get(n), args.timeout, nodes)
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


def per_call_table(results: Results, ns: list[int]) -> str:
    """msc's time per call after compiling, with and without reuse (a shared graph costs
    one dispatch from Python per call site)."""
    out = ["| N | msc reuse: per call | msc off: per call |", "| ---: | ---: | ---: |"]
    for n in ns:
        row = [str(n)]
        for system in ("msc", "msc-off"):
            rows = results.get(system, {}).get(n)
            row.append(fmt_s(statistics.median(r["per_call_s"] for r in rows))
                       if _ok(rows) else "—")  # type: ignore[union-attr]
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


def _ok(rows: list[dict[str, Any]] | None) -> bool:
    return bool(rows) and all("first_s" in r for r in rows)  # type: ignore[union-attr]


def kernel_kind(r: dict[str, Any], fn: str) -> str:
    """A Numba-compiled function's part: the entry graph's kernel (or its parts), a shared
    graph's kernel, or a helper (msc's runtime helpers, Numba's own overloads)."""
    if fn.startswith(r["entry"]):
        return "entry"
    others = [g for g in r.get("graph_names", ["Block_construct"]) if g != r["entry"]]
    return "block" if any(fn.startswith(g) for g in others) else "helpers"


def split_table(results: Results, system: str, ns: list[int]) -> str:
    """Where msc's first call goes: its phases, Numba's compiles, the rest."""
    out = ["| N | first call | parse + optimize | codegen | Numba: entry kernel (LLVM) "
           "| Numba: shared-graph kernel (LLVM) | Numba: helpers (LLVM) | load + run + rest |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n in ns:
        rows = results.get(system, {}).get(n)
        if not _ok(rows):
            continue

        def numba(r: dict[str, Any], which: str, key: str = "own_s") -> float:
            return sum(v[key] for k, v in r["numba"].items() if kernel_kind(r, k) == which)

        def part(get: Any) -> str:
            return fmt_s(med(rows, get))  # type: ignore[arg-type]

        def both(which: str) -> str:
            llvm = part(lambda r: numba(r, which, "llvm_s"))
            return f"{part(lambda r: numba(r, which))} ({llvm})"

        rest = part(lambda r: r["first_s"] - sum(r["phases"].values())
                    - sum(v["own_s"] for v in r["numba"].values()))
        out.append(f"| {n} | {part(lambda r: r['first_s'])} | "
                   f"{part(lambda r: r['phases']['parse'] + r['phases']['optimize'])} | "
                   f"{part(lambda r: r['phases']['codegen'])} | {both('entry')} | "
                   f"{both('block') if system == 'msc' else '—'} | {both('helpers')} | {rest} |")
    return "\n".join(out)


def notes(results: Results, args: argparse.Namespace) -> list[str]:
    lines = []
    lo, hi = min(args.ns), max(args.ns)
    for system, label in (("msc", "msc reuse"), ("msc-off", "msc off"), ("ms-lazy",
                          "MindSpore lazy_inline"), ("ms-plain", "MindSpore plain"),
                          ("jax", "JAX")):
        a, b = results.get(system, {}).get(lo), results.get(system, {}).get(hi)
        if _ok(a) and _ok(b):
            ratio = med(b, lambda r: r["first_s"]) / med(a, lambda r: r["first_s"])  # type: ignore
            lines.append(f"- {label}: compile(N={hi}) / compile(N={lo}) = {ratio:.2f}")
    return lines + init_note([r["init_s"] for s in ("msc", "msc-off")
                              for rows in results.get(s, {}).values() if _ok(rows)
                              for r in rows], "compile")  # type: ignore[union-attr]


def versions(results: Results) -> str:
    found = {}
    for system, label in (("msc", "msc"), ("ms-plain", "MindSpore"), ("ms-lazy", "MindSpore"),
                          ("jax", "JAX")):
        for rows in results.get(system, {}).values():
            for r in rows or []:
                if "version" in r:
                    found.setdefault(label, r["version"])
    try:
        from importlib.metadata import version

        found["Numba"] = version("numba")
    except Exception:  # noqa: BLE001  (a header line only)
        pass
    return ", ".join(f"{k} {v}" for k, v in found.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="N = 1, 4, 16, 64; one round")
    ap.add_argument("--rounds", type=int, default=None, help="fresh processes per (system, N)")
    ap.add_argument("--ns", type=int, nargs="+", default=None, help="block counts")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    ap.add_argument("--json", help="also write the raw per-round results here")
    ap.add_argument("--worker", nargs=2, metavar=("SYSTEM", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker[0], int(args.worker[1]))))
        return 0
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.ns = sorted(args.ns or (QUICK_NS if args.quick else NS))
    start = datetime.now(timezone.utc)
    results = measure(args)
    print(f"Machine: {machine(start)}. "
          f"One thread everywhere, one pinned CPU per process. Versions: {versions(results)}.")
    print(f"First call (compile + one run) in a fresh process per system, N and round; "
          f"medians of {args.rounds} round(s); limit {args.timeout:.0f} s per process. "
          f"Model: examples/lazy_inline_gpt.py, input float32 ({BATCH}, {WIDTH}).\n")
    print(table(results, args) + "\n")
    print(per_call_table(results, args.ns) + "\n")
    print("\n".join(notes(results, args)))
    for system, label in (("msc", "msc with reuse"), ("msc-off", "msc without reuse")):
        if system in args.systems:
            print(f"\n### {label}: where the first call goes (Numba compiles: own time, "
                  f"nested compiles excluded; in brackets the part holding the LLVM lock)\n")
            print(split_table(results, system, args.ns))
    save_json(args.json, results)
    failed = any("error" in r for rs in results.values() for rows in rs.values()
                 for r in rows or [])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""msc's own compile time: the frontend (parse), the passes (optimize) and code generation
(lower + render for the numba target), without Numba.

Run ``python bench/bench_compile_phases.py`` (``--quick`` for fewer rounds). Models: the
reference tutorial's 200-iteration loop (600 tiny ops), the tutorial's ``if_net`` (100
tensor ``if``s; as compiled by default, and with ``if_to_select`` off so the ifs stay
regions) and ``examples/lazy_inline_gpt.py`` (4 shared blocks). Two rows per model:

- first build in a fresh process, what a user's first compile pays beyond importing
  msc's modules (the Jinja2 import, environment and templates and the runtime helpers'
  parse are in codegen), median over processes;
- steady state, the median of repeated builds in one process.

``--against DIR`` also runs every worker on the msc checkout in DIR (another commit, for
a before/after table) and adds the ratio of totals. Times are CPU seconds of the worker
(``time.process_time``), which a busy machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_codegen import loop200
from harness import ROOT, fmt_s, machine

MODELS = ("loop200", "if_net", "if_kept", "gpt")
PHASES = ("parse", "optimize", "codegen")


def build_once(name: str) -> dict[str, float]:
    """One build of model ``name`` in this process: seconds per phase."""
    import time

    import msc as ms
    import msc.frontend.calls  # noqa: F401  (modules load before timing, as the passes do)
    import msc.frontend.reuse  # noqa: F401
    import msc.nn  # noqa: F401
    from msc.codegen.lower import lower_module
    from msc.codegen.render import render
    from msc.frontend.specialize import specialize
    from msc.ir import dtypes
    from msc.ir.types import TensorType
    from msc.optimizer.pipeline import passes, run_pipeline

    entry, specs = _model(ms, name, TensorType, dtypes)
    t0 = time.process_time()
    parsed = specialize(entry, specs, reuse="lazy_inline")
    t1 = time.process_time()
    module, _ = run_pipeline(parsed.module, passes=passes(if_to_select=name != "if_kept"))
    t2 = time.process_time()
    render(lower_module(module, "numba", "bench"))
    t3 = time.process_time()
    return {"parse": t1 - t0, "optimize": t2 - t1, "codegen": t3 - t2}


def _model(ms: Any, name: str, tensor_type: Any, dtypes: Any) -> tuple[Any, tuple[Any, ...]]:
    if name == "loop200":
        f32 = tensor_type(dtypes.float32, (1,))
        return ms.jit(loop200), (f32, f32)
    if name == "gpt":
        sys.path.insert(0, os.path.join(ROOT, "examples"))
        import lazy_inline_gpt

        ms.set_seed(0)
        return lazy_inline_gpt.GPT(4), (tensor_type(dtypes.float32, (8, 64)),)
    import bench_control

    i64 = tensor_type(dtypes.int64, ())
    return ms.jit(bench_control.if_net), (i64, i64)


def worker(name: str, builds: int) -> dict[str, Any]:
    first = build_once(name)
    steady = [build_once(name) for _ in range(builds)]
    return {"first": first, "steady": {p: statistics.median(s[p] for s in steady)
                                       for p in PHASES}}


def run(root: str, name: str, builds: int) -> dict[str, Any]:
    """One fresh worker process on the msc checkout at ``root``."""
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name,
                        "--builds", str(builds)], env=env, capture_output=True, text=True,
                       check=False, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"worker {name} on {root} failed: {p.stderr.strip()[-400:]}")
    return json.loads(lines[-1][len("RESULT "):])  # type: ignore[no-any-return]


def table(results: dict[str, dict[str, list[dict[str, Any]]]], roots: list[str]) -> str:
    head = "| model | build | checkout | parse | optimize | codegen | total |"
    out = [head, "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for name in MODELS:
        for kind in ("first", "steady"):
            totals = []
            for root in roots:
                rows = results[root][name]
                med = {p: statistics.median(r[kind][p] for r in rows) for p in PHASES}
                totals.append(sum(med.values()))
                label = "this" if root == ROOT else os.path.basename(root.rstrip(os.sep))
                out.append(f"| {name} | {kind} | {label} | "
                           + " | ".join(fmt_s(med[p]) for p in PHASES)
                           + f" | {fmt_s(totals[-1])} |")
            if len(roots) == 2:
                out.append(f"| {name} | {kind} | ratio this ÷ other | | | | "
                           f"{totals[0] / totals[1]:.2f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 processes per model")
    ap.add_argument("--processes", type=int, default=None, help="fresh processes per model")
    ap.add_argument("--builds", type=int, default=7, help="steady-state builds per process")
    ap.add_argument("--against", metavar="DIR", help="also time the msc checkout in DIR")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.builds)))
        return 0
    processes = args.processes or (3 if args.quick else 7)
    roots = [ROOT] + ([os.path.abspath(args.against)] if args.against else [])
    start = datetime.now(timezone.utc)
    results: dict[str, dict[str, list[dict[str, Any]]]] = {r: {m: [] for m in MODELS}
                                                            for r in roots}
    for i in range(processes):
        for name in MODELS:
            for root in roots:  # interleaved, so load spikes hit every checkout
                print(f"round {i + 1}/{processes}: {name} ({root})", file=sys.stderr)
                results[root][name].append(run(root, name, args.builds))
    print(f"Machine: {machine(start)}. CPU time per phase, medians: first build over "
          f"{processes} fresh processes, steady state over {args.builds} builds each.\n")
    print(table(results, roots))
    return 0


if __name__ == "__main__":
    sys.exit(main())

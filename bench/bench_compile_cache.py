"""The first call in a fresh process with a cold and with a warm compile cache.

Run ``python bench/bench_compile_cache.py`` (``--quick`` for 2 rounds). The model is
the reference tutorial's 200-iteration loop on float32[1] inputs [1] and [2] (result
601). Every round gives each system a fresh, empty cache folder: one process fills
it (the cold first call), then a second, new process uses it (the warm first call).
The table shows medians over rounds; "warm ÷ cold" is the median of per-round ratios.

Each worker also checks that the cache did what the row claims, and fails loudly
otherwise: msc's warm call must be a hit with no Numba compile (the kernel
dispatcher's ``stats.cache_misses`` empty), JAX's must record a persistent-cache hit,
MindSpore's must print its "Use the compilation cache" warning.

msc runs twice: as a user's script sees it, where Numba's one-time per-process set-up
(its typing and target registries, about 0.5 s) falls into the first call, and with
that set-up done before the timed call ("Numba initialised"), the accounting JAX and
MindSpore get since importing them starts their runtimes. ``msc compile`` is timed as
whole subprocesses. msc's modules are imported from bytecode compiled by an untimed
priming run, as for an installed package (``--source-imports``: compile them from
source in every process, as PYTHONDONTWRITEBYTECODE=1 does); the peers' site-packages
already hold bytecode. One thread everywhere, as in ``bench_codegen.py``; peers run
in their own interpreters (a missing one prints "not installed"), in a temporary
working directory (MindSpore writes ``rank_0/`` there).

A last table times start-up alone (``--startup N`` fresh processes, 10 by default):
``import numpy``, then ``import msc`` beyond it, then ``msc.nn`` and ``msc.ops``, which
load on first use; a cache hit of ``msc compile`` on a ``@jit`` model pays only the first two.

This file imports only the standard library at top level (besides ``bench_codegen``,
which does too): the peer interpreters run it as workers without msc installed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_codegen import loop200
from harness import ONE_CPU_NOTE, ONE_THREAD, PEERS, ROOT, fmt_s, machine, one_cpu

SYSTEMS = ("msc", "msc-init", "msc-cli", "jax", "mindspore")
LABELS = {"msc": "msc `@ms.jit`, numba target",
          "msc-init": "  same, Numba initialised before the call",
          "msc-cli": "`msc compile` (whole process)",
          "jax": "JAX `jax.jit`, persistent cache",
          "mindspore": "MindSpore 2.10 `@ms.jit`, compile cache"}
INPUTS, EXPECTED = (1.0, 2.0), 601.0
MS_HIT = "Use the compilation cache"  # MindSpore's warning on a hit
CLI_MODEL = '''"""The tutorial's 200-iteration model, for ``msc compile``."""
import msc as ms


@ms.jit
def loop200(input_x, input_y):
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output
'''


class CheckFailed(AssertionError):
    """The cache did not do what this row reports (a hit that compiled, a cold hit)."""


# --- per-system setup: (import s, init s, the call, its result as float, check, version) ---

Setup = tuple[float, float, Callable[[], Any], Callable[[Any], float],
              Callable[[str], dict[str, Any]], str]


def numba_init() -> None:
    """Numba's one-time per-process set-up: importing it, then filling the CPU target's
    typing and lowering registries, which its first compile or cache load would do."""
    import numba  # noqa: F401
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()


def start_msc() -> tuple[float, float]:
    """Seconds to import msc, then to set Numba up (``numba_init``): the two start-up costs
    workers report apart from their first call."""
    t0 = time.perf_counter()
    import msc  # noqa: F401
    import msc.frontend.jit  # noqa: F401
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    numba_init()
    return import_s, time.perf_counter() - t0


def init_note(inits: list[float], column: str) -> list[str]:
    """The report line on Numba's set-up time, kept out of ``column`` (none without data)."""
    if not inits:
        return []
    return [f"- Numba's one-time per-process set-up (import + registry refresh), done before "
            f"msc's timed call and not in its {column} column: "
            f"{fmt_s(statistics.median(inits))} (median over all msc processes)."]


def setup_msc(system: str, cache_dir: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import msc as ms
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    if system == "msc-init":
        numba_init()
    init_s = time.perf_counter() - t0 if system == "msc-init" else 0.0
    # jit_tier="numba": this table times the compile cache's own cold and warm paths (a
    # tiered cold call answers from the numpy tier; bench_codegen.py times that)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba", enable_compile_cache=True,
                   compile_cache_path=cache_dir, jit_tier="numba")
    fn = ms.jit(loop200)
    x, y = (ms.Tensor(np.array([v], np.float32)) for v in INPUTS)

    def check(phase: str) -> dict[str, Any]:
        (compiled,) = fn.cache.entries.values()
        want = "hit" if phase == "warm" else "miss"
        if compiled.cache != want:
            raise CheckFailed(f"msc, {phase} cache: expected a {want}, got "
                              f"{compiled.cache} ({compiled.cache_why})")
        kernel = getattr(compiled.code, compiled.manifest["kernel"])
        if phase == "warm" and kernel.stats.cache_misses:
            raise CheckFailed(f"msc, warm cache: Numba compiled the kernel "
                              f"({dict(kernel.stats.cache_misses)})")
        return {"cache": compiled.cache, "lookup_s": compiled.timings.get("cache"),
                "phases": {} if want == "hit" else dict(compiled.timings)}

    return (import_s, init_s, lambda: fn(x, y), lambda r: float(r.asnumpy()[0]), check,
            ms.__version__)


def setup_jax(system: str, cache_dir: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import jax
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    events: list[str] = []
    jax.monitoring.register_event_listener(lambda name, **kw: events.append(name))
    x, y = (jax.device_put(np.array([v], np.float32)) for v in INPUTS)  # starts the backend
    init_s = time.perf_counter() - t0
    fn = jax.jit(loop200)

    def check(phase: str) -> dict[str, Any]:
        hits = events.count("/jax/compilation_cache/cache_hits")
        misses = events.count("/jax/compilation_cache/cache_misses")
        if (hits, misses) != ((1, 0) if phase == "warm" else (0, 1)):
            raise CheckFailed(f"JAX, {phase} cache: {hits} persistent-cache hits, "
                              f"{misses} misses")
        return {"cache": "hit" if hits else "miss"}

    return (import_s, init_s, lambda: fn(x, y).block_until_ready(),
            lambda r: float(np.asarray(r)[0]), check, jax.__version__)


def setup_mindspore(system: str, cache_dir: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import mindspore as ms
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=cache_dir)
    ms.device_context.cpu.op_tuning.threads_num(1)
    x, y = (ms.Tensor(np.array([v], np.float32)) for v in INPUTS)
    init_s = time.perf_counter() - t0
    fn = ms.jit(loop200)
    # hit or miss shows only in MindSpore's log on stderr: the driver checks it
    return (import_s, init_s, lambda: fn(x, y), lambda r: float(r.asnumpy()[0]),
            lambda phase: {}, ms.__version__)


# --- the worker: one system, one phase, one fresh process -----------------------------------


def worker(system: str, phase: str, cache_dir: str, profile_top: int) -> dict[str, Any]:
    import numpy  # noqa: F401  (not counted as the system's import, as in bench_codegen)

    setup = setup_mindspore if system == "mindspore" else \
        setup_jax if system == "jax" else setup_msc
    import_s, init_s, call, value, check, version = setup(system, cache_dir)
    profiler = None
    if profile_top:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t0 = time.perf_counter()
    out = call()
    first_s = time.perf_counter() - t0
    if profiler is not None:
        profiler.disable()
    if value(out) != EXPECTED:
        raise CheckFailed(f"{system}: the model returned {value(out)}, expected {EXPECTED}")
    result = {"import_s": import_s, "init_s": init_s, "first_s": first_s, "version": version,
              **check(phase)}
    if system.startswith("msc"):
        from importlib.metadata import version as dist_version

        result["numba"] = dist_version("numba")
    if profiler is not None:
        result["profile"] = profile_text(profiler, profile_top)
    return result


def profile_text(profiler: Any, top: int) -> str:
    """The ``top`` functions by cumulative time, paths cut to the package."""
    import io
    import pstats

    buf = io.StringIO()
    pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(top)
    text = re.sub(r"\S*/(site-packages|lib/python3\.\d+|msc-cache-bench-\w+)/", "", buf.getvalue())
    return text.replace(ROOT + os.sep, "")


# --- the driver -----------------------------------------------------------------------------


def worker_env(system: str, pycache: str | None) -> dict[str, str]:
    env = {**os.environ, **ONE_THREAD}
    if system.startswith("msc"):
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
        if pycache:  # bytecode as an installed package has it, kept out of the tree
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = pycache
    if system == "mindspore":
        env["GLOG_v"] = "2"  # warnings on: the hit/miss line
    return env


def run_worker(system: str, phase: str, cache_dir: str, tmp: str, pycache: str | None,
               profile_top: int = 0) -> dict[str, Any] | None:
    """One fresh process; None where the peer is not installed."""
    if system == "msc-cli":
        return run_cli(phase, cache_dir, tmp, pycache)
    exe = PEERS.get(system, sys.executable)
    if not os.path.exists(exe):
        return None
    cmd = [exe, os.path.abspath(__file__), "--worker", system, phase, cache_dir,
           "--profile-top", str(profile_top)]
    p = _run(cmd, system, pycache)
    if isinstance(p, dict):
        return p
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        return _failed(system, phase, p)
    r = json.loads(lines[-1][len("RESULT "):])
    if system == "mindspore":
        r["cache"] = "hit" if MS_HIT in p.stderr else "miss"
        if r["cache"] != ("hit" if phase == "warm" else "miss"):
            return _failed(system, phase, p, f"MindSpore, {phase} cache: a {r['cache']}")
    return r


def _run(cmd: list[str], system: str, pycache: str | None) -> Any:
    with tempfile.TemporaryDirectory(prefix="msc-bench-") as cwd:  # MindSpore writes rank_0/
        try:
            return subprocess.run(cmd, cwd=cwd, env=worker_env(system, pycache),
                                  capture_output=True, text=True, timeout=600, check=False,
                                  preexec_fn=one_cpu)
        except subprocess.TimeoutExpired:
            return {"error": "no result within 600 s"}


def _failed(system: str, phase: str, p: Any, why: str = "") -> dict[str, Any]:
    tail = " | ".join((p.stderr or p.stdout).strip().splitlines()[-3:])
    error = why or f"exit {p.returncode}: {tail}"
    print(f"FAILED: {system}, {phase} cache: {error}", file=sys.stderr)
    return {"error": error}


def run_cli(phase: str, cache_dir: str, tmp: str, pycache: str | None) -> dict[str, Any]:
    """``msc compile`` as a user runs it; its report gives the phases and hit or miss."""
    model = os.path.join(tmp, "cli_model.py")
    if not os.path.exists(model):
        with open(model, "w") as f:
            f.write(CLI_MODEL)
    out = tempfile.mkdtemp(prefix="artifact-", dir=tmp)
    cmd = [sys.executable, "-m", "msc", "compile", model, "loop200", "--input", "f32[1]",
           "--input", "f32[1]", "-o", out, "--cache-dir", cache_dir, "--explain-cache"]
    t0 = time.perf_counter()
    p = _run(cmd, "msc-cli", pycache)
    wall = time.perf_counter() - t0
    if isinstance(p, dict):
        return p
    if p.returncode != 0:
        return _failed("msc-cli", phase, p)
    found = re.search(r"^cache: (hit|miss)", p.stdout, re.MULTILINE)
    want = "hit" if phase == "warm" else "miss"
    made = os.path.exists(os.path.join(out, "manifest.json"))
    if not found or found.group(1) != want or not made:
        return _failed("msc-cli", phase, p, f"msc compile, {phase} cache: expected a {want}, "
                                            f"report: {p.stdout.strip()[:200]}")
    rows = re.finditer(r"^(parse|optimize|codegen|numba|cache)\s+([0-9.]+)$", p.stdout,
                       re.MULTILINE)
    phases = {m.group(1): float(m.group(2)) / 1e3 for m in rows}
    return {"first_s": wall, "cache": want, "lookup_s": phases.pop("cache", None),
            "phases": phases}


STARTUP = ("import time; t0 = time.perf_counter(); import numpy; t1 = time.perf_counter(); "
           "import msc; t2 = time.perf_counter(); msc.nn, msc.ops; t3 = time.perf_counter(); "
           "print('RESULT', t1 - t0, t2 - t1, t3 - t2)")


def startup(runs: int, pycache: str | None) -> list[list[float]]:
    """Per fresh process: seconds to import numpy, then msc beyond it, then its layers and
    ops namespace (``msc.nn``, ``msc.ops``, loaded on first use)."""
    rows = []
    for _ in range(runs):
        p = _run([sys.executable, "-c", STARTUP], "msc", pycache)
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")] \
            if not isinstance(p, dict) else []
        if not line:
            raise CheckFailed(f"start-up probe failed: {getattr(p, 'stderr', p)}")
        rows.append([float(v) for v in line[-1].split()[1:]])
    return rows


def startup_table(rows: list[list[float]]) -> str:
    cols = [statistics.median(r[i] for r in rows) for i in range(3)]
    return ("| import numpy | import msc, beyond numpy | then `msc.nn` and `msc.ops` |\n"
            "| ---: | ---: | ---: |\n" + "| " + " | ".join(fmt_s(c) for c in cols) + " |")


Results = dict[str, "list[dict[str, Any]] | None"]  # system -> one row per round (cold, warm)


def measure(args: argparse.Namespace, tmp: str) -> Results:
    pycache = None if args.source_imports else os.path.join(tmp, "pycache")
    for system in args.systems:  # untimed: bytecode, disk caches
        print(f"priming: {system}", file=sys.stderr)
        run_worker(system, "cold", os.path.join(tmp, f"prime-{system}"), tmp, pycache)
    results: Results = {}
    if args.startup:
        print("start-up probes", file=sys.stderr)
        results["startup"] = startup(args.startup, pycache)  # type: ignore[assignment]
    for rnd in range(args.rounds):
        for system in args.systems:  # interleaved, so load spikes hit every system
            print(f"round {rnd + 1}/{args.rounds}: {system}", file=sys.stderr)
            cache_dir = os.path.join(tmp, f"{system}-{rnd}")
            os.mkdir(cache_dir)
            cold = run_worker(system, "cold", cache_dir, tmp, pycache)
            if cold is None:
                results[system] = None
                continue
            warm = run_worker(system, "warm", cache_dir, tmp, pycache) \
                if "error" not in cold else cold
            results.setdefault(system, []).append({"cold": cold, "warm": warm})  # type: ignore
    if args.profile:
        for system in [s for s in ("msc", "msc-init") if s in args.systems]:
            r = run_worker(system, "warm", os.path.join(tmp, f"{system}-{args.rounds - 1}"),
                           tmp, pycache, profile_top=args.profile)
            print(f"\n### cProfile of {system}'s warm first call (top {args.profile} by "
                  f"cumulative time)\n\n```\n{(r or {}).get('profile', r)}```", file=sys.stderr)
    return results


def table(results: Results) -> str:
    header = ("| system | import | init before the call | first call, cold cache "
              "| first call, warm cache | warm ÷ cold | cache lookup (warm) "
              "| import + init + warm first call |")
    out = [header, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for system, rows in results.items():
        if rows is None:
            out.append(f"| {LABELS[system]} | not installed | | | | | | |")
            continue
        bad = [r[p]["error"] for r in rows for p in ("cold", "warm") if "error" in r[p]]
        if bad:
            out.append(f"| {LABELS[system]} | failed: {bad[0][:160]} | | | | | | |")
            continue
        ratio = statistics.median(r["warm"]["first_s"] / r["cold"]["first_s"] for r in rows)
        cli = system == "msc-cli"
        total = statistics.median(r["warm"]["import_s"] + r["warm"]["init_s"]
                                  + r["warm"]["first_s"] for r in rows) if not cli else None
        lookup = fmt_s(_med(rows, "warm", "lookup_s")) if system.startswith("msc") else "—"
        init_s = _med(rows, "warm", "init_s")
        imp, init = (("—", "—") if cli else
                     (fmt_s(_med(rows, "warm", "import_s")), fmt_s(init_s) if init_s else "none"))
        cold, warm = fmt_s(_med(rows, "cold", "first_s")), fmt_s(_med(rows, "warm", "first_s"))
        out.append(f"| {LABELS[system]} | {imp} | {init} | {cold} | {warm} | {ratio:.3f} | "
                   f"{lookup} | {fmt_s(total)} |")
    return "\n".join(out)


def _med(rows: list[dict[str, Any]], phase: str, key: str) -> float:
    return statistics.median(r[phase].get(key) or 0.0 for r in rows)


def summary(results: Results) -> list[str]:
    """Where msc's cold compile goes (its own timings) and what Numba's set-up costs."""
    lines = []
    for system, what in (("msc", "msc cold first call"), ("msc-cli", "msc compile, cold")):
        rows = results.get(system)
        if rows and all("error" not in r["cold"] for r in rows):
            keys = rows[0]["cold"].get("phases", {})
            ph = {k: statistics.median(r["cold"]["phases"].get(k, 0.0) for r in rows)
                  for k in keys}
            lines.append(f"{what}: " + ", ".join(f"{k} {fmt_s(v)}" for k, v in ph.items()) + ".")
    rows = results.get("msc-init")
    if rows and all("error" not in r["warm"] for r in rows):
        init = statistics.median(r["warm"]["init_s"] for r in rows)
        lines.append(f"Numba's one-time per-process set-up (import + registry refresh): "
                     f"{fmt_s(init)}; without it in advance it falls into msc's first call.")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 rounds")
    ap.add_argument("--rounds", type=int, default=None, help="cold + warm process pairs")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--source-imports", action="store_true",
                    help="msc's modules compiled from source in every process")
    ap.add_argument("--startup", type=int, default=10, metavar="N",
                    help="fresh processes timing import msc (0: skip)")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="also profile one warm msc process: top N functions (stderr)")
    ap.add_argument("--json", help="also write the raw per-round results here")
    ap.add_argument("--worker", nargs=3, metavar=("SYSTEM", "PHASE", "DIR"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--profile-top", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.rounds = args.rounds or (2 if args.quick else 5)
    if args.worker:
        print("RESULT " + json.dumps(worker(*args.worker, args.profile_top)))
        return 0
    start = datetime.now(timezone.utc)
    with tempfile.TemporaryDirectory(prefix="msc-cache-bench-") as tmp:
        results = measure(args, tmp)
    probes = results.pop("startup", None)
    rows = {s: r for s, r in results.items() if r}
    versions = {s: rows[s][0]["cold"].get("version") for s in ("msc", "jax", "mindspore")
                if s in rows and "version" in rows[s][0]["cold"]}
    if "msc" in rows and "numba" in rows["msc"][0]["cold"]:
        versions["numba"] = rows["msc"][0]["cold"]["numba"]
    print(f"Machine: {machine(start)}. One thread everywhere ({ONE_CPU_NOTE}; "
          f"{', '.join(k + '=1' for k in ONE_THREAD if k.endswith('THREADS'))}, XLA "
          f"single-threaded Eigen). Medians of {args.rounds} rounds; each round: a fresh empty "
          f"cache folder per system, one process fills it (cold), a new one uses it (warm). "
          f"msc imports {'from source' if args.source_imports else 'from bytecode'}.")
    print("Versions: " + ", ".join(f"{s} {v}" for s, v in versions.items()) + ".\n")
    print("### tutorial 200-iteration model, float32[1], first call in a fresh process\n")
    print(table(results) + "\n")
    print("\n".join(summary(results)))
    if probes:
        print(f"\n### start-up: `import msc` in a fresh process (median of {len(probes)})\n")
        print(startup_table(probes))  # type: ignore[arg-type]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = any("error" in r[p] for rs in results.values() if rs for r in rs
                 for p in ("cold", "warm"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

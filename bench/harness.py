"""What every fresh-process benchmark shares: where the peers live, one thread and one
pinned CPU per worker, the worker launch, per-call timing, rounds and table formatting.

This file imports only the standard library at top level: the peer interpreters run the
benchmark files, and so this one, as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = {"jax": os.path.join(ROOT, ".peers", "jax", "bin", "python"),
         "mindspore": os.path.join(ROOT, ".peers", "ms", "bin", "python")}
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "NUMBA_NUM_THREADS": "1", "MSC_NUM_THREADS": "1", "JAX_PLATFORMS": "cpu",
              "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}
ONE_CPU_NOTE = "one pinned CPU per process"


def threads_env(n: int) -> dict[str, str]:
    """The environment of a worker given ``n`` threads and every CPU (``--threads N``):
    each system's pools sized ``n`` (onnxruntime and MindSpore read MSC_BENCH_THREADS)."""
    count = str(n)
    return {"OPENBLAS_NUM_THREADS": count, "OMP_NUM_THREADS": count, "MKL_NUM_THREADS": count,
            "NUMBA_NUM_THREADS": count, "MSC_NUM_THREADS": count, "JAX_PLATFORMS": "cpu",
            "MSC_BENCH_THREADS": count,
            "XLA_FLAGS": f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={n}"}


def bench_threads() -> int:
    """The threads a worker's system may use: 1, or ``--threads N``'s N."""
    return int(os.environ.get("MSC_BENCH_THREADS", "1"))


def one_cpu() -> None:
    """Pins a worker process, and every thread it will start, to one CPU (``preexec_fn``):
    the environment above limits the thread pools that read it, but XLA's CPU runtime
    runs threads of its own whatever XLA_FLAGS say (about 1.6 CPUs busy on the MLP)."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def save_json(path: str | None, results: Any) -> None:
    """The raw per-round results, when ``--json`` asked for them."""
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


def numba_tier_after(start: float) -> dict[str, float]:
    """After an msc first call: waits for the numba tier (the python tier answered it) and
    says how long after ``start`` it took over, so per call is the numba tier's."""
    from msc.tiering import wait_for_compiles

    wait_for_compiles()
    return {"numba_after_s": time.perf_counter() - start}


def first_call_cell(rows: list[dict[str, Any]]) -> str:
    """The median first call, and when the numba tier took over where it was tiered."""
    cell = fmt_s(statistics.median(r["first_s"] for r in rows))
    after = [r["numba_after_s"] for r in rows if "numba_after_s" in r]
    return cell + (f" (numba tier after {fmt_s(statistics.median(after))})" if after else "")


def time_per_call(call: Callable[[], Any], batches: int, batch_s: float) -> tuple[float, int]:
    """(median seconds per call over ``batches`` batches of about ``batch_s`` each, calls per
    batch), after a short warm-up."""
    for _ in range(3):
        call()
    n, spent = 1, 0.0
    while spent < batch_s / 4 and n < 1 << 20:  # calibrate the calls per batch
        n *= 2
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        spent = time.perf_counter() - t0
    n = max(1, int(n * batch_s / max(spent, 1e-9)))
    per_call = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        per_call.append((time.perf_counter() - t0) / n)
    return statistics.median(per_call), n


def fmt_s(s: float | None) -> str:
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs" if s < 1e-4 else f"{s * 1e6:.0f} µs"
    return f"{s * 1e3:.2f} ms" if s < 1.0 else f"{s:.2f} s"


def add_round_args(ap: argparse.ArgumentParser) -> None:
    """The options every fresh-process benchmark takes: rounds, batches, timeout, JSON."""
    ap.add_argument("--quick", action="store_true", help="2 rounds of 5 short batches")
    ap.add_argument("--rounds", type=int, default=None, help="fresh processes per case")
    ap.add_argument("--batches", type=int, default=None)
    ap.add_argument("--batch-seconds", type=float, default=None)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    ap.add_argument("--json", help="also write the raw per-round results here")
    ap.add_argument("--threads", type=int, default=0, metavar="N",
                    help="N threads and every CPU per process instead of one pinned CPU")


def round_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """``add_round_args``'s defaults, shorter with ``--quick``."""
    args.rounds = args.rounds or (2 if args.quick else 3)
    args.batches = args.batches or (5 if args.quick else 7)
    args.batch_seconds = args.batch_seconds or (0.02 if args.quick else 0.05)
    return args


def run_in_worker(script: str, system: str, case: str, args: Any,
                  env: dict[str, str] | None = None) -> dict[str, Any] | None:
    """``script --worker case`` in a fresh process of ``system``'s interpreter (None where
    that peer is not installed), one thread, in a temporary working directory, killed with
    its process group at ``args.timeout``: the dict its last ``RESULT`` line holds, or
    ``{"error": ...}``. ``env`` adds to (or, with None values, removes from) its
    environment."""
    exe = PEERS.get(system, sys.executable)
    if not os.path.exists(exe):
        return None
    with tempfile.TemporaryDirectory(prefix="msc-bench-") as tmp:
        # MindSpore writes rank_0/ into its working directory, msc its generated code
        # and Numba's cache into TMPDIR: both go with the folder
        threads = getattr(args, "threads", 0)
        full = {**os.environ, **(threads_env(threads) if threads else ONE_THREAD),
                "TMPDIR": tmp}
        if system == "msc":
            full["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, full.get("PYTHONPATH")]))
        for key, value in (env or {}).items():
            if value is None:
                full.pop(key, None)
            else:
                full[key] = value
        cmd = [exe, os.path.abspath(script), "--worker", case, "--batches",
               str(args.batches), "--batch-seconds", str(args.batch_seconds)]
        with subprocess.Popen(cmd, cwd=tmp, env=full, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True,
                              preexec_fn=None if threads else one_cpu) as p:
            try:
                stdout, stderr = p.communicate(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                return {"error": f"no result within {args.timeout:.0f} s"}
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        tail = " | ".join((stderr or stdout).strip().splitlines()[-3:])
        print(f"FAILED: {case}: exit {p.returncode}: {tail}", file=sys.stderr)
        return {"error": f"exit {p.returncode}: {tail}"}
    return json.loads(lines[-1][len("RESULT "):])  # type: ignore[no-any-return]


def row_problem(rows: list[dict[str, Any]] | None) -> str | None:
    """Why a case has no figures: "not installed" (no rows), "failed: ..." (a worker's
    error), else None."""
    if rows is None:
        return "not installed"
    bad = [r["error"] for r in rows if "error" in r]
    return f"failed: {bad[0][:120]}" if bad else None


def machine(start: datetime) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    forced = os.environ.get("OPENBLAS_CORETYPE")
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy's "
            f"OpenBLAS kernels: {blas_kernels()}"
            f"{f' (OPENBLAS_CORETYPE={forced})' if forced else ''}, "
            f"run started {start:%Y-%m-%d %H:%M} UTC")


#: Prints the core name numpy's bundled OpenBLAS chose its kernels for (a wheel's).
_BLAS_CORE = """
import ctypes, glob, os, numpy
for lib in glob.glob(os.path.join(os.path.dirname(numpy.__file__), "..", "numpy.libs", "*openblas*")):
    for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                 "openblas_get_corename64_", "openblas_get_corename"):
        get = getattr(ctypes.CDLL(lib), name, None)
        if get is not None:
            get.restype = ctypes.c_char_p
            print(get().decode())
            raise SystemExit
"""


def blas_kernels() -> str:
    """Which kernels numpy's OpenBLAS runs (msc's products are numpy's): "Haswell" (AVX2)
    where "SkylakeX" (AVX-512) would be on the same CPU halves a convolution's speed."""
    try:
        done = subprocess.run([sys.executable, "-c", _BLAS_CORE], capture_output=True,
                              text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"

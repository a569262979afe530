"""Data-parallel scaling: ResNet-18's training step (batch 8 per rank, float32[8, 3, 64,
64], ``tests/e2e/models/resnet.py``, sparse softmax cross-entropy, Momentum(0.01, 0.9))
on 1 and 2 ranks.

Run ``python bench/bench_distributed.py`` (``--ranks 1,2``, ``--steps``, ``--target``;
needs ``pip install -e ".[distributed]"``). Each rank count is one ``mpiexec`` launch:
every rank builds the step under ``ParallelMode.DATA_PARALLEL`` (``gradients_mean``),
compiles it (numba target, waiting for Numba; the compile cache and kernel library
serve later launches), makes ``--warmup`` steps, then times ``--steps`` steps, each
after a barrier. A step takes its slowest rank's time; the table shows the median step,
and throughput is all ranks' samples over it; scaling
efficiency is throughput at N ranks over N times throughput at 1. The gradients'
all-reduce (one flat float32 buffer of every trainable weight, with the ranks' shape
check before it) is timed apart, on the same buffer size, between barriers, and set
against the step. One BLAS and Numba thread per rank.

A control row runs 2 ranks that each train on their own, with no all-reduce (no
``DATA_PARALLEL``): what two processes sharing the machine get at best, so the
efficiency a data-parallel step could reach here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH, SHAPE, CLASSES = 8, (3, 64, 64), 10
THREADS = {k: "1" for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                            "MKL_NUM_THREADS")}


def worker(args: argparse.Namespace) -> None:
    import numpy as np
    from mpi4py import MPI

    import msc as ms
    from msc import nn
    from msc.communication import get_group_size, get_rank, init

    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "models"))
    from resnet import resnet18

    init()
    rank, size = get_rank(), get_group_size()
    comm = MPI.COMM_WORLD
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=args.target, jit_tier=None
                   if args.target == "python" else "numba")
    if not args.control:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    ms.set_seed(0)
    net = resnet18(CLASSES)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train(True)
    rng = np.random.default_rng(rank)
    x = ms.Tensor(rng.standard_normal((BATCH, *SHAPE)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, CLASSES, BATCH).astype(np.int32))
    start = time.perf_counter()
    step(x, y)
    first = time.perf_counter() - start
    for _ in range(args.warmup):
        step(x, y)
    mine = []
    for _ in range(args.steps):
        comm.Barrier()
        start = time.perf_counter()
        step(x, y)
        mine.append(time.perf_counter() - start)
    # a step lasts as long as its slowest rank; the median step resists a noisy neighbour
    slowest = np.max(comm.allgather(mine), axis=0)
    step_s = float(np.median(slowest))

    count = sum(int(np.prod(p.shape)) for p in net.trainable_params())
    buf, out = np.ones(count, np.float32), np.empty(count, np.float32)
    from msc.runtime.comm_rt import _rt_all_reduce

    ranks = tuple(range(size))
    _rt_all_reduce(buf, out, "sum", "hccl_world_group", ranks)
    times = []
    for _ in range(10):
        comm.Barrier()
        t = time.perf_counter()
        _rt_all_reduce(buf, out, "sum", "hccl_world_group", ranks)
        times.append(time.perf_counter() - t)
    reduce_s = comm.allreduce(sorted(times)[len(times) // 2], op=MPI.MAX)
    if rank == 0:
        print(json.dumps({"ranks": size, "control": args.control, "first_call_s": first,
                          "step_s": step_s, "samples_per_s": size * BATCH / step_s,
                          "allreduce_s": reduce_s, "floats": count}), flush=True)


def launch(n: int, args: argparse.Namespace, control: bool = False) -> dict:
    from msc.communication.launch import find_mpiexec

    command = [find_mpiexec(), "-n", str(n), sys.executable, os.path.abspath(__file__),
               "--worker", "--steps", str(args.steps), "--warmup", str(args.warmup),
               "--target", args.target] + (["--control"] if control else [])
    env = {**os.environ, **THREADS,
           "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"{n} ranks failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--target", choices=("numba", "python"), default="numba")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--control", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    rows = [launch(int(n), args) for n in args.ranks.split(",")]
    if rows[-1]["ranks"] > 1:
        rows.append(launch(rows[-1]["ranks"], args, control=True))
    base = rows[0]["samples_per_s"] / rows[0]["ranks"]
    print(f"ResNet-18 training step, batch {BATCH} per rank, {args.target} target")
    print(f"{'ranks':>5} {'step s':>8} {'samples/s':>10} {'efficiency':>10} "
          f"{'all-reduce s':>12} {'of step':>8}")
    for r in rows:
        eff = r["samples_per_s"] / (r["ranks"] * base)
        share = r["allreduce_s"] / r["step_s"] if r["ranks"] > 1 and not r["control"] else 0.0
        ranks = f"{r['ranks']}*" if r["control"] else str(r["ranks"])
        print(f"{ranks:>5} {r['step_s']:>8.3f} {r['samples_per_s']:>10.2f} "
              f"{eff:>10.0%} {r['allreduce_s'] if not r['control'] else 0:>12.4f} "
              f"{share:>8.1%}")
    print("(* control: each rank trains on its own, no all-reduce)")
    print(f"({rows[-1]['floats']:,} float32 gradients reduced as one buffer)")


if __name__ == "__main__":
    main()

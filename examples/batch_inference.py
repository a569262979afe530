"""Batch inference on N ranks: an inference artifact scores a large array, each rank its
own shard, and rank 0 gathers the scores. It needs numpy, mpi4py and the artifact's
target (numba, or nothing more for --target python) -- not msc.

    msc compile examples/scorer.py Scorer --input f32[256,32] -o scorer
    mpiexec -n 2 python examples/batch_inference.py scorer --rows 100000 --out scores.npy

The rows here are made from a seed (the same on every rank, so the scores do not depend
on N); a real job reads its shard of a file instead (``np.load(path,
mmap_mode="r")[lo:hi]`` reads only those rows) or a list of files
(``files[rank::size]``). The artifact takes a fixed batch: the last chunk of a shard is
padded, and its padding's scores dropped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np
from mpi4py import MPI


def load(folder: str):
    """The artifact's module and its input's (batch, features) shape."""
    manifest = json.loads((Path(folder) / "manifest.json").read_text())
    sys.path.insert(0, str(Path(folder).resolve()))
    module = importlib.import_module(Path(manifest["module"]).stem)
    return module, tuple(manifest["inputs"][0]["shape"])


def score(model, rows: np.ndarray, batch: int) -> np.ndarray:
    """The model's output on ``rows``, ``batch`` rows per call (the last one padded)."""
    out = []
    for start in range(0, len(rows), batch):
        chunk = rows[start:start + batch]
        padded = np.zeros((batch, *rows.shape[1:]), rows.dtype)
        padded[:len(chunk)] = chunk
        out.append(np.asarray(model.forward(padded))[:len(chunk)])
    return np.concatenate(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("artifact", help="the folder msc compile wrote")
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--out", help="rank 0 saves the scores here (.npy)")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    model, (batch, features) = load(args.artifact)
    bounds = np.linspace(0, args.rows, size + 1).astype(int)  # rank r: rows lo..hi
    lo, hi = bounds[rank], bounds[rank + 1]
    data = np.random.default_rng(0).standard_normal((args.rows, features), np.float32)
    rows = data[lo:hi]  # stands for np.load(path, mmap_mode="r")[lo:hi]
    start = time.perf_counter()
    mine = np.ascontiguousarray(score(model, rows, batch))
    seconds = time.perf_counter() - start
    counts = [(b - a) * mine.shape[1] for a, b in zip(bounds[:-1], bounds[1:])]
    scores = np.empty((args.rows, mine.shape[1]), mine.dtype) if rank == 0 else None
    comm.Gatherv(mine, (scores, counts) if rank == 0 else None, root=0)
    slowest = comm.reduce(seconds, op=MPI.MAX, root=0)
    if rank == 0:
        print(f"{args.rows} rows scored on {size} ranks in {slowest:.2f} s "
              f"({args.rows / slowest:,.0f} rows/s); classes chosen: "
              f"{np.bincount(scores.argmax(1), minlength=scores.shape[1]).tolist()}")
        if args.out:
            np.save(args.out, scores)


if __name__ == "__main__":
    main()

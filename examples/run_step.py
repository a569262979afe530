"""Data-parallel training through an artifact on N ranks, with numpy, mpi4py and the
artifact's target (numba, or nothing more for --target python) -- not msc.

    mpiexec -n 2 python -m msc compile examples/train_data_parallel.py train_step \\
        --input f32[32,16] --input i32[32] -o dp_step
    mpiexec -n 2 python examples/run_step.py dp_step --steps 20

Each rank imports the artifact's module and calls ``forward(x_shard, labels_shard)`` on
its shard of every batch: one training step, whose gradients the module averages over
the ranks with one all-reduce. The data are made as ``examples/train_data_parallel.py``
makes them (again here: this script does not import msc), so the losses are that
script's. Rank 0 prints the losses; at the end the script checks that every rank holds
the same weights. The artifact refuses to run on another number of ranks than the one
it was compiled on.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

CLASSES = 4  # examples/train_data_parallel.py's


def load(folder: str):
    """The artifact's module and its first input's (rows per rank, features) shape."""
    manifest = json.loads((Path(folder) / "manifest.json").read_text())
    sys.path.insert(0, str(Path(folder).resolve()))
    module = importlib.import_module(Path(manifest["module"]).stem)
    return module, tuple(manifest["inputs"][0]["shape"])


def data(batch: int, features: int) -> tuple[np.ndarray, np.ndarray]:
    """Points labelled by the arg-max of a random linear teacher (train_data_parallel.data)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, features)).astype(np.float32)
    teacher = rng.standard_normal((features, CLASSES))
    return x, np.argmax(x @ teacher, axis=1).astype(np.int32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("artifact", help="the folder msc compile wrote")
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    step, (rows, features) = load(args.artifact)
    x, labels = data(rows * size, features)
    shard = slice(rank * rows, (rank + 1) * rows)
    for k in range(args.steps):
        loss = float(step.forward(x[shard], labels[shard]))
        if rank == 0 and (k % 5 == 0 or k == args.steps - 1):
            print(f"step {k:3d}  loss on rank 0's shard {loss:.4f}", flush=True)
    weights = np.concatenate([np.ravel(w) for w in step.load_weights()])
    every = comm.allgather(weights)
    assert all(np.array_equal(every[0], w) for w in every), "the ranks' weights differ"
    if rank == 0:
        print(f"{size} ranks hold the same weights")


if __name__ == "__main__":
    main()

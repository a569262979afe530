"""Run by tests/communication/test_artifact.py under ``mpiexec -n 2`` in a venv without
msc: each rank imports the data-parallel train step artifact, trains on its half of the
batch and saves its weights as ``trained_<rank>.npz`` and its report as
``report_<rank>.json`` (files, not stdout: mpiexec may join the ranks' lines)."""

import importlib
import json
import sys

import numpy as np
from mpi4py import MPI

folder, data, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, folder)
step = importlib.import_module("TrainOneStepCell_construct")
rank, size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
with np.load(data) as f:
    x, labels = f["x"], f["labels"]
half = x.shape[0] // size
mine = slice(rank * half, (rank + 1) * half)
losses = [float(step.forward(x[mine], labels[mine])) for _ in range(steps)]
step.save_weights(f"trained_{rank}.npz")
with open(f"report_{rank}.json", "w") as f:
    json.dump({"rank": rank, "losses": losses, "msc": "msc" in sys.modules}, f)

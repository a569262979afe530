"""Run by tests/communication/test_faults.py under ``mpiexec -n 2``; ``argv[1]`` picks
the fault: ``mismatch`` (the ranks all-reduce different shapes in a graph; each rank
writes its error to ``argv[2]``/rankN.txt), ``raises`` (rank 1 raises while rank 0 waits
in a collective; its stderr goes to ``argv[2]``/rank1-stderr.txt), ``killed`` (rank 1 is
killed)."""

import os
import signal
import sys

import numpy as np

import msc as ms
from msc import ops
from msc.communication import get_rank, init


def main(fault):
    init()
    rank = get_rank()
    total = ops.AllReduce()
    if fault == "mismatch":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
        try:
            ms.jit(lambda v: total(v) * 2)(ms.Tensor(np.ones((3 + rank, 2), np.float32)))
        except RuntimeError as e:  # kept whole: mpiexec may interleave the ranks' stderr
            path = os.path.join(sys.argv[2], f"rank{rank}")
            with open(path + ".tmp", "w") as f:
                f.write(str(e))
            os.replace(path + ".tmp", path + ".txt")  # whole, even if aborted next
            raise
    elif rank == 1:
        if fault == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        # the traceback and the abort notice go to a file, whole before the abort: mpiexec
        # may stop forwarding stderr part-way once the job aborts
        sys.stderr = open(os.path.join(sys.argv[2], "rank1-stderr.txt"), "w", buffering=1)
        raise ValueError("rank 1 fails on purpose")
    total(ms.Tensor(np.ones(2, np.float32)))  # rank 0 waits here for rank 1, in vain
    print("rank 0 was not stopped", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

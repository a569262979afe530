"""``msc run -n N script.py [args]``: N ranks of ``script.py`` through the ``mpiexec`` of
the ``distributed`` extra (MPICH's wheel puts it beside the interpreter), and what
``msc compile`` does when it runs on several ranks."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from msc.communication.management import INSTALL, GlobalComm


def find_mpiexec() -> str:
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError(f"msc run needs mpiexec: {INSTALL}")
    return found


def run(n: int, script: str, args: Sequence[str], hostfile: str | None = None) -> int:
    """Launch ``n`` ranks of ``python script args`` and wait; their exit status."""
    command = [find_mpiexec(), "-n", str(n)]
    if hostfile is not None:
        command += ["-f", hostfile]
    return subprocess.call([*command, sys.executable, script, *args])


#: What launchers tell each process its rank by: Open MPI, MPICH's and Intel MPI's
#: hydra (PMI), PMIx, MVAPICH, Slurm's srun.
RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
                  "SLURM_PROCID")


def launcher_rank() -> int | None:
    """This process's world rank as its launcher (``mpiexec``, ``srun``) set it, read from
    the environment without starting MPI; None outside a launcher."""
    for name in RANK_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return None


def on_ranks(output: str, write: Callable[[str], Any]) -> Any:
    """``write(folder)`` for ``msc compile`` on every rank of an initialised job (which
    builds the graphs together: a data-parallel step broadcasts its weights): rank 0
    writes ``output``, the others a temporary folder; then the ranks compare their
    generated modules, which must not depend on the rank that made them. Returns rank
    0's artifact, None on the other ranks. Launched on several ranks without ``init()``
    (nothing to build together), rank 0 alone writes: the others would race it for the
    same folder."""
    from msc.communication.management import get_group_size, get_rank

    if not GlobalComm.INITED:
        return write(output) if launcher_rank() in (None, 0) else None
    if get_group_size() == 1:
        return write(output)
    from mpi4py import MPI

    rank = get_rank()
    scratch = None if rank == 0 else tempfile.mkdtemp(prefix="msc-rank-")
    try:
        info = write(output if scratch is None else scratch)
        text = (Path(info.path) / info.module_file).read_text(encoding="utf-8")
        code = re.sub(r"(?m)^Dependency hash: .*$", "", text)  # it names the rank's key
        digests = MPI.COMM_WORLD.allgather(hashlib.sha256(code.encode()).hexdigest())
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if len(set(digests)) != 1:
        raise RuntimeError("the ranks generated different code (the graph reads the rank, "
                           "for example get_rank() in construct): one artifact cannot "
                           "serve them all")
    return info if rank == 0 else None

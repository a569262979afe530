"""Launching a script on 2 ranks with the ``mpiexec`` of the ``distributed`` extra (the
MPICH wheel puts it beside the interpreter). The tests skip, saying why, where mpi4py or
mpiexec is missing."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RANKS = Path(__file__).parent / "ranks"


def mpiexec() -> str:
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        found = None
    if found is None:
        pytest.skip('needs mpi4py and mpiexec: pip install -e ".[distributed]"')
    return found


def launch(args, n=2, timeout=300, env=None, cwd=None, python=None, msc_run=False):
    """``mpiexec -n n python args...`` (or ``msc run -n n args...``) with this checkout's
    msc first on the path."""
    exe = mpiexec()  # or skip
    base = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    start = [sys.executable, "-m", "msc", "run", "-n", str(n)] if msc_run else \
        [exe, "-n", str(n), str(python or sys.executable)]
    return subprocess.run([*start, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=base if env is None else env)

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


def launch(args, n=2, timeout=300, env=None, cwd=None, python=None, msc_run=False,
           report=None):
    """``mpiexec -n n python args...`` (or ``msc run -n n args...``) with this checkout's
    msc first on the path; the ranks' ``say`` lines go to files ``report.<rank>``."""
    exe = mpiexec()  # or skip
    base = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    if report is not None:
        base["MSC_TEST_REPORT"] = str(report)
    start = [sys.executable, "-m", "msc", "run", "-n", str(n)] if msc_run else \
        [exe, "-n", str(n), str(python or sys.executable)]
    return subprocess.run([*start, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=base if env is None else env)


def say(line: str) -> None:
    """A rank's check, printed and appended whole to its own report file: ``mpiexec``
    may interleave the ranks' stdout under load (a test reads the files: ``reported``)."""
    from mpi4py import MPI

    print(line, flush=True)
    if os.environ.get("MSC_TEST_REPORT"):
        with open(f"{os.environ['MSC_TEST_REPORT']}.{MPI.COMM_WORLD.Get_rank()}", "a") as f:
            f.write(line + "\n")


def reported(report: Path, n: int = 2) -> list[str]:
    """Every line the ranks said, rank by rank."""
    return [line for r in range(n) if Path(f"{report}.{r}").exists()
            for line in Path(f"{report}.{r}").read_text().splitlines()]

"""Faults on 2 ranks: a rank that raises or is killed stops the other, which waits in a
collective, instead of leaving it hanging (MPI ``Abort``, or ``mpiexec`` itself); ranks
that run different shapes fail at their first collective, naming each rank's shape.
The subprocess timeout bounds the wait."""

import pytest

from .mpi import RANKS, launch


@pytest.mark.parametrize("fault", ["raises", "killed"])
def test_a_failing_rank_stops_the_other(fault, tmp_path):
    proc = launch([RANKS / "faults.py", fault, tmp_path], timeout=120)
    assert proc.returncode != 0
    assert "rank 0 was not stopped" not in proc.stdout
    if fault == "raises":
        said = (tmp_path / "rank1-stderr.txt").read_text()
        assert "ValueError: rank 1 fails on purpose" in said
        assert said.endswith("rank 1 failed: aborting every rank\n")


def test_ranks_running_different_shapes_fail_at_the_first_collective(tmp_path):
    proc = launch([RANKS / "faults.py", "mismatch", tmp_path], timeout=120)
    assert proc.returncode != 0
    errors = [p.read_text() for p in sorted(tmp_path.glob("rank*.txt"))]
    assert errors, proc.stderr  # a rank may be aborted before it writes: one is enough
    for error in errors:
        assert error == (
            "the ranks run different collectives (different graphs or input shapes): rank 0: "
            "all-reduce of a float32 tensor of shape (3, 2); rank 1: all-reduce of a float32 "
            "tensor of shape (4, 2)")

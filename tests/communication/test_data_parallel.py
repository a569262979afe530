"""Data-parallel training on 2 ranks (one ``mpiexec`` launch for every configuration):
the ranks train an MLP and a conv net with BatchNorm on their halves of a batch with
SGD, Momentum and Adam, and each checks its weights against one process's on the whole
batch (``ranks/train_data_parallel.py``), launched by ``msc run -n 2``."""

from .mpi import RANKS, launch, reported


def test_two_ranks_on_halves_train_like_one_process_on_the_whole_batch(tmp_path):
    proc = launch([RANKS / "train_data_parallel.py"], msc_run=True, report=tmp_path / "report")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    said = reported(tmp_path / "report")
    for net in ("MLP", "ConvBN"):
        for opt in ("SGD", "Momentum", "Adam"):
            for rank in (0, 1):
                assert f"ok {net} {opt} rank {rank}" in said, (net, opt, rank)

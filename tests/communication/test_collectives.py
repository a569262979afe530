"""Each collective against numpy on 2 ranks, eagerly, in a compiled graph and through its
gradient, and the functional forms and a group (one ``mpiexec`` launch:
``ranks/collectives.py``); the argument checks that need no MPI job run here."""

import pytest

import msc as ms
from msc import ops

from .mpi import RANKS, launch, reported

CHECKS = ["eager AllReduce sum", "eager AllReduce max", "eager AllReduce min",
          "eager AllReduce prod", "eager AllReduce sum through shared memory",
          "eager AllGather", "eager ReduceScatter", "eager Broadcast",
          "all_reduce avg", "all_gather_into_tensor", "reduce_scatter_tensor max",
          "broadcast in place", "group AllGather",
          *(f"{kind} AllReduce {op}" for op in ("sum", "max", "min", "prod")
            for kind in ("graph", "grad")),
          "graph AllGather", "grad AllGather", "graph ReduceScatter", "grad ReduceScatter",
          "graph Broadcast", "grad Broadcast", "eager DistributedGradReducer mean",
          "graph DistributedGradReducer mean", "numba AllReduce", "numba AllGather"]


def test_every_collective_against_numpy_on_two_ranks(tmp_path):
    proc = launch([RANKS / "collectives.py"], report=tmp_path / "report")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    said = reported(tmp_path / "report")
    missing = [(c, r) for c in CHECKS for r in (0, 1) if f"ok {c} rank {r}" not in said]
    assert not missing, missing


def test_without_mpi4py_init_names_the_install_command(monkeypatch):
    import sys

    from msc.communication import init

    monkeypatch.setitem(sys.modules, "mpi4py", None)  # an import of it fails
    with pytest.raises(ImportError, match=r'pip install "msc\[distributed\]"'):
        init()


def test_collectives_need_init_and_valid_arguments():
    with pytest.raises(RuntimeError, match=r"For 'AllReduce', .*communication.init\(\)"):
        ops.AllReduce()(ms.Tensor([1.0]))
    with pytest.raises(TypeError, match="ReduceOp"):
        ops.AllReduce("mean")
    with pytest.raises(TypeError, match="root_rank"):
        ops.Broadcast("0")
    with pytest.raises(ms.GraphValueError, match="not supported: msc trains"):
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    with pytest.raises(ms.GraphValueError, match="unknown auto-parallel option"):
        ms.set_auto_parallel_context(gradient_mean=True)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    try:
        assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
        assert ms.get_auto_parallel_context("gradients_mean") is True
        assert ms.get_auto_parallel_context("device_num") == 1
    finally:
        ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"

"""A data-parallel train step as an artifact: ``msc compile`` on 2 ranks writes it (rank
0), and 2 ranks run it under ``mpiexec`` in a venv that cannot import msc (its packages
are numpy and mpi4py, the MPI library on the library path). Both ranks end with the
weights of one process trained on the whole batch."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import msc as ms

from ..e2e.test_deploy_venv import clean_env, venv_python
from .mpi import RANKS, ROOT, launch

EXAMPLE = ROOT / "examples" / "train_data_parallel.py"
STEPS = 3


def bare_venv(root: Path) -> Path:
    """A venv without pip that sees numpy's and mpi4py's folders (a .pth file lists them)
    and nothing else of this interpreter's: not msc, which is installed elsewhere."""
    import mpi4py

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   env=clean_env(), timeout=120)
    python = venv_python(root)
    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True, env=clean_env()).stdout
    folders = {str(Path(m.__file__).parents[1]) for m in (np, mpi4py)}
    (Path(site.strip()) / "deps.pth").write_text("\n".join(sorted(folders)) + "\n")
    return python


def test_the_data_parallel_step_artifact_runs_on_two_ranks_without_msc(tmp_path):
    art = tmp_path / "art"
    proc = launch(["-m", "msc", "compile", EXAMPLE, "train_step", "--input", "f32[16,16]",
                   "--input", "i32[16]", "--target", "python", "-o", art, "--quiet",
                   "--no-cache"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import train_data_parallel as example
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    x, labels = example.data(32)
    np.savez(tmp_path / "data.npz", x=x, labels=labels)

    python = bare_venv(tmp_path / "venv")
    env = {**clean_env(), "LD_LIBRARY_PATH": os.pathsep.join(
        filter(None, [str(Path(sys.prefix) / "lib"), os.environ.get("LD_LIBRARY_PATH")]))}
    no_msc = subprocess.run([str(python), "-c", "import msc"], capture_output=True,
                            text=True, env=env, cwd=tmp_path, timeout=120)
    assert "No module named 'msc'" in no_msc.stderr
    proc = launch([RANKS / "run_artifact.py", art, tmp_path / "data.npz", STEPS],
                  python=python, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("report_*.json"))]
    assert sorted(r["rank"] for r in reports) == [0, 1]
    assert not any(r["msc"] for r in reports)

    # one process, the whole batch, the same seeded start (stand-alone)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    ms.set_seed(0)
    net = example.MLP()
    step = ms.nn.TrainOneStepCell(
        ms.nn.WithLossCell(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                    reduction="mean")),
        ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    for _ in range(STEPS):
        step(ms.Tensor(x), ms.Tensor(labels))
    with np.load(tmp_path / "trained_0.npz") as a, np.load(tmp_path / "trained_1.npz") as b:
        for p in net.trainable_params():
            assert np.array_equal(a[p.name], b[p.name]), p.name
            np.testing.assert_allclose(a[p.name], p.asnumpy(), rtol=2e-5, atol=2e-6)

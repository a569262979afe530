"""``examples/lenet_mnist.py``: LeNet-5 through ``Model.train`` on a generated MNIST-format
folder with ``LossMonitor`` and ``ModelCheckpoint``; under msc, and against MindSpore 2.10
running the same file where it is installed in ``.peers/ms`` (same loss curve, accuracy,
checkpoint names and weights: the data order and the initial weights are fixed)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import msc as ms

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "lenet_mnist.py"
MINDSPORE = ROOT / ".peers" / "ms" / "bin" / "python"


def run(python, folder, *flags):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MSC_PROGRESS="1")
    env.pop("MSC_JIT_TIER", None)  # the default tiers, as a user runs it: no wait for Numba
    proc = subprocess.run([str(python), str(EXAMPLE), "--folder", str(folder), *flags],
                          capture_output=True, text=True, cwd=folder, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(m[1]) for m in re.finditer(r"^epoch: 1 step: \d+, loss is (\S+)$",
                                               proc.stdout, re.M)]
    accuracy = float(re.search(r"^accuracy: (\S+)$", proc.stdout, re.M)[1])
    return losses, accuracy, proc


@pytest.fixture(scope="module")
def msc_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lenet-msc")
    return folder, run(sys.executable, folder)


def test_lenet_trains_and_checkpoints_under_msc(msc_run):
    folder, (losses, accuracy, proc) = msc_run
    assert len(losses) == 20  # 640 images in batches of 32, one line per step
    assert np.mean(losses[-5:]) < np.mean(losses[:5]) and accuracy > 0.3
    assert sorted(os.listdir(folder / "checkpoints")) == ["lenet-1_10.ckpt", "lenet-1_20.ckpt"]
    assert "epoch 1/1: 20 steps" in proc.stderr  # the progress line (stderr is not a tty)
    params = ms.load_checkpoint(str(folder / "checkpoints" / "lenet-1_20.ckpt"))
    assert {"conv1.weight", "fc3.bias", "moments.fc1.weight", "learning_rate"} <= set(params)


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms: "
                    "the example's loss curve is compared with MindSpore's only where it is")
def test_lenet_loss_curve_and_checkpoints_match_mindspore(msc_run, tmp_path):
    folder, (losses, accuracy, _) = msc_run
    ms_losses, ms_accuracy, _ = run(MINDSPORE, tmp_path, "--mindspore")
    np.testing.assert_allclose(losses, ms_losses, rtol=1e-4, atol=1e-5)
    assert accuracy == ms_accuracy
    names = sorted(os.listdir(tmp_path / "checkpoints"))
    assert names == sorted(os.listdir(folder / "checkpoints"))
    theirs = ms.load_checkpoint(str(tmp_path / "checkpoints" / names[-1]))
    mine = ms.load_checkpoint(str(folder / "checkpoints" / names[-1]))
    assert set(theirs) == set(mine)  # Momentum's momentum is a Parameter in both
    for name, param in mine.items():
        np.testing.assert_allclose(param.asnumpy(), theirs[name].asnumpy(), rtol=1e-3,
                                   atol=1e-5, err_msg=name)


def test_without_folder_the_example_names_its_temporary_folder_and_removes_it(tmp_path):
    """Run as a first-time user runs it: no --folder. It says where the data and the
    checkpoints go and leaves nothing behind in the temporary folder's parent."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    proc = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first = proc.stdout.splitlines()[0]
    m = re.fullmatch(r"data and checkpoints: (\S+) \(a temporary folder, removed at the "
                     r"end; --folder DIR keeps them\)", first)
    assert m and Path(m[1]).parent == tmp_path, first
    assert "checkpoints: lenet-1_10.ckpt lenet-1_20.ckpt" in proc.stdout
    assert os.listdir(tmp_path) == []

"""A small CRNN trained with ``ops.CTCLoss`` (sparse labels) and a gradient-clipping train
step (``GradOperation`` with sens, ``HyperMap``, ``ops.partial`` of a graph tensor),
``tests/e2e/models/crnn_ctc.py``: three steps in graph mode on both targets, finite and
falling, and equal to MindSpore's losses where ``.peers/ms`` is installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from .cases.models import ROOT

MODEL = ROOT / "tests" / "e2e" / "models" / "crnn_ctc.py"
MINDSPORE = ROOT / ".peers" / "ms" / "bin" / "python"


def _losses(python: str, *args: str, env: dict[str, str] | None = None) -> list[float]:
    proc = subprocess.run([python, str(MODEL), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])["losses"]


def _msc(target: str) -> list[float]:
    return _losses(sys.executable, f"--target={target}",
                   env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("target", ["numba", "python"])
def test_crnn_trains_with_ctc(target):
    losses = _msc(target)
    assert np.isfinite(losses).all() and losses[0] > losses[1] > losses[2]


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the CTC ops are checked against enumerated alignments in tests/ops")
def test_crnn_losses_match_mindspore():
    np.testing.assert_allclose(_msc("numba"), _losses(str(MINDSPORE), "--mindspore"),
                               rtol=1e-5)

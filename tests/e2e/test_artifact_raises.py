"""A model whose own run-time check fires on zeros still compiles to an artifact (``msc
compile`` runs each kernel once on zeros to compile it), and the artifact raises the
model's exception only when the check holds."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .cases.models import run_msc

MODEL = """
from msc import nn


class Checked(nn.Cell):
    def construct(self, x):
        if x.sum() < 1:
            raise ValueError("the inputs sum to less than 1")
        return x * 2
"""


@pytest.mark.parametrize("target", ["numba", "python"])
def test_a_model_that_raises_on_zeros_compiles_and_raises_at_run_time(target, tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    proc = run_msc("compile", "model.py", "Checked", "--input", "f32[2]", "-o", "art",
                   "--target", target, "--quiet", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    code = ("import sys; sys.modules['msc'] = None\nimport numpy as np\nsys.path.insert(0, 'art')\n"
            "import Checked_construct as m\nprint(m.forward(np.ones(2, np.float32)))\n"
            "try:\n    m.forward(np.zeros(2, np.float32))\nexcept ValueError as e:\n"
            "    print('raised', e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[2. 2.]", "raised the inputs sum to less than 1"]


ALWAYS = """
from msc import nn


class Refused(nn.Cell):
    def construct(self, x):
        if x.shape[0] == 2:
            raise RuntimeError("two rows are not supported")
        return x
"""


def test_a_raise_reached_while_building_is_the_users_error_without_a_traceback(tmp_path):
    (tmp_path / "model.py").write_text(ALWAYS)
    proc = run_msc("compile", "model.py", "Refused", "--input", "f32[2]", "-o", "art",
                   "--quiet", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-2:] == [
        "RuntimeError: two rows are not supported",
        f"raised while building the graph, at {tmp_path / 'model.py'}:8:13"]
    assert not (tmp_path / "art").exists()

"""A compiled training step and a compiled gradient as artifacts: ``msc compile`` writes
them, a fresh process that cannot import msc runs them; the train step's loss curve
equals the in-process one, its weights change in place, and ``save_weights`` /
``load_weights`` carry them to another process."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from .cases.models import ROOT, run_msc

NO_MSC = "import sys; sys.modules['msc'] = None\n"  # an import of msc would fail


def run_fresh(code: str, cwd) -> str:
    proc = subprocess.run([sys.executable, "-c", NO_MSC + code], capture_output=True,
                          text=True, cwd=cwd, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def train_artifact(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "art"
    proc = run_msc("compile", str(ROOT / "examples" / "train_mlp.py"), "train_step",
                   "--input", "f32[64,16]", "--input", "i32[64]", "-o", str(out), "--quiet",
                   "--no-cache")
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_train_step_artifact_trains_like_the_compiled_cell(train_artifact, tmp_path):
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import train_mlp
    finally:
        sys.path.remove(str(ROOT / "examples"))
    import msc as ms

    ms.set_context(jit_target="python")
    want, _ = train_mlp.train(ms.GRAPH_MODE, 6)
    x, labels = train_mlp.data()
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "labels.npy", labels)
    load = (f"import importlib, json, numpy as np\nsys.path.insert(0, {str(train_artifact)!r})\n"
            "m = importlib.import_module('TrainOneStepCell_construct')\n"
            "x, labels = np.load('x.npy'), np.load('labels.npy')\n")
    first = json.loads(run_fresh(load + "losses = [float(m.forward(x, labels)) for _ in "
                                 "range(5)]\nm.save_weights('trained.npz')\n"
                                 "print(json.dumps(losses))", tmp_path))
    np.testing.assert_allclose(first, want[:5], rtol=1e-5)
    assert first[-1] < first[0]
    resumed = json.loads(run_fresh(load + "m.load_weights('trained.npz')\n"
                                   "print(json.dumps(float(m.forward(x, labels))))", tmp_path))
    np.testing.assert_allclose(resumed, want[5], rtol=1e-5)
    bundled = np.load(train_artifact / "weights.npz")
    trained = np.load(tmp_path / "trained.npz")
    assert not np.array_equal(bundled["hidden.weight"], trained["hidden.weight"])
    assert int(trained["global_step"][0]) == 5


def test_save_weights_never_overwrites_the_bundled_file(train_artifact, tmp_path):
    code = (f"import importlib\nsys.path.insert(0, {str(train_artifact)!r})\n"
            "m = importlib.import_module('TrainOneStepCell_construct')\n"
            "try:\n    m.save_weights(m.os.path.join(m._HERE, 'weights.npz'))\n"
            "except ValueError as e:\n    print('refused')\n")
    assert run_fresh(code, tmp_path) == "refused"


def test_the_tutorials_backward_net_as_an_artifact(tmp_path):
    out = tmp_path / "art"
    proc = run_msc("compile", str(ROOT / "examples" / "side_effects.py"),
                   "tutorial_backward_net", "--input", "i32[]", "-o", str(out), "--quiet",
                   "--no-cache")
    assert proc.returncode == 0, proc.stderr
    code = (f"import importlib, numpy as np\nsys.path.insert(0, {str(out)!r})\n"
            "m = importlib.import_module('BackwardNet_construct')\n"
            "(g,) = m.forward(np.array(1, np.int32))\nprint(g.dtype, int(g))")
    assert run_fresh(code, tmp_path) == "int32 3"

"""What the compile cache's key depends on, observed from fresh processes.

Each test writes a small project (a model, a helper module it calls, a module it only
imports) into a temporary folder and runs it with real subprocesses sharing one cache
folder: a second process with nothing changed must do no frontend, optimizer, codegen
or Numba work; a changed helper file or constant must miss with the reference
tutorial's warning naming what changed, and give the new result; weights and
unrelated files must not matter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from msc.cache import MISMATCH

MODEL = '''
import json, os
import numpy as np
import msc as ms
from msc import nn
import helpers, unrelated

ms.set_context(mode=ms.GRAPH_MODE, jit_target=os.environ.get("TARGET", "python"),
               enable_compile_cache=True, compile_cache_path=os.environ["CACHE"])
LOOPS = int(os.environ.get("LOOPS", "3"))  # a global that construct reads


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = float(os.environ.get("K", "1.5"))
        self.dense = nn.Dense(4, 3)

    def construct(self, x):
        y = helpers.scale(x) * self.k
        for _ in range(LOOPS):
            y = y + x
        return self.dense(y)


ms.set_seed(int(os.environ.get("SEED", "0")))
net = Net()
x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 4)
out = net(x)
from msc.compiler import COUNTERS
from msc.frontend.jit import cell_cache
c = next(iter(cell_cache(net).entries.values()))
kernel = getattr(c.code, c.manifest["kernel"], None)
stats = getattr(kernel, "stats", None)
print(json.dumps({
    "out": out.asnumpy().tolist(), "x": x.asnumpy().tolist(),
    "w": net.dense.weight.asnumpy().tolist(), "b": net.dense.bias.asnumpy().tolist(),
    "cache": c.cache, "why": c.cache_why, "timings": sorted(c.timings), "entry": str(c.entry_dir),
    "counters": dict(COUNTERS),
    "numba_misses": None if stats is None else len(stats.cache_misses),
    "numba_hits": None if stats is None else len(stats.cache_hits)}))
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "helpers.py").write_text("def scale(x):\n    return x * 2.0\n")
    (tmp_path / "unrelated.py").write_text("def describe():\n    return 'eager only'\n")
    return tmp_path


def run(project: Path, **env: str) -> tuple[dict, str]:
    """One fresh process running model.py; (its JSON report, its stderr)."""
    full = {**os.environ, "CACHE": str(project / "cache"), **env}
    proc = subprocess.run([sys.executable, "model.py"], cwd=project, env=full,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def expected(report: dict, helper_factor: float, k: float, loops: int) -> np.ndarray:
    x = np.array(report["x"], np.float32)
    y = x * helper_factor * k + loops * x
    return y @ np.array(report["w"], np.float32).T + np.array(report["b"], np.float32)


def test_second_process_loads_the_entry_with_no_compile_work(project):
    first, err1 = run(project, TARGET="numba")
    second, err2 = run(project, TARGET="numba")
    assert first["cache"] == "miss" and "stored as" in first["why"]
    assert first["counters"] == {"parse": 1, "optimize": 1, "codegen": 1}
    assert second["cache"] == "hit" and second["entry"] == first["entry"]
    assert second["counters"] == {} and second["timings"] == ["cache"]
    assert second["numba_misses"] == 0 and second["numba_hits"] == 1  # Numba loaded, not compiled
    assert second["out"] == first["out"]
    np.testing.assert_allclose(second["out"], expected(second, 2.0, 1.5, 3), rtol=1e-5)
    assert MISMATCH not in err1 + err2


def test_editing_a_helper_module_misses_and_names_the_file(project):
    first, _ = run(project)
    (project / "helpers.py").write_text("def scale(x):\n    return x * 3.0\n")
    second, err = run(project)
    assert second["cache"] == "miss" and second["counters"]["parse"] == 1
    assert MISMATCH in err and f"file {project / 'helpers.py'} changed" in err
    np.testing.assert_allclose(second["out"], expected(second, 3.0, 1.5, 3), rtol=1e-5)
    assert not np.allclose(second["out"], first["out"])
    third, err3 = run(project)
    assert third["cache"] == "hit" and MISMATCH not in err3


def test_changing_a_constant_attribute_misses_and_names_it(project):
    run(project)
    second, err = run(project, K="2.5")
    assert second["cache"] == "miss" and MISMATCH in err
    assert "self.k changed (was 1.5, now 2.5)" in err
    np.testing.assert_allclose(second["out"], expected(second, 2.0, 2.5, 3), rtol=1e-5)
    back, err_back = run(project)  # the first entry is still there: a hit, no warning
    assert back["cache"] == "hit" and MISMATCH not in err_back


def test_a_global_read_from_the_environment_is_part_of_the_key(project):
    """MindSpore's cache served the stale graph here (a loop count read from an
    environment variable, no source file changed)."""
    run(project)
    second, err = run(project, LOOPS="5")
    assert second["cache"] == "miss" and "__main__.LOOPS changed (was 3, now 5)" in err
    np.testing.assert_allclose(second["out"], expected(second, 2.0, 1.5, 5), rtol=1e-5)


def test_unrelated_files_and_weights_are_not_part_of_the_key(project):
    first, _ = run(project)
    (project / "unrelated.py").write_text("def describe():\n    return 'edited'\n")
    (project / "notes.txt").write_text("a new file\n")
    second, err = run(project, SEED="7")  # other weights: inputs, not dependencies
    assert second["cache"] == "hit" and MISMATCH not in err and second["counters"] == {}
    assert second["w"] != first["w"]
    np.testing.assert_allclose(second["out"], expected(second, 2.0, 1.5, 3), rtol=1e-5)


def test_msc_compile_uses_the_cache_and_explains_misses(project):
    cache = project / "cache"
    (project / "cli_model.py").write_text(textwrap.dedent('''
        import msc as ms
        import helpers

        @ms.jit
        def func(x, y):
            return helpers.scale(x) + y
    '''))
    args = [sys.executable, "-m", "msc.cli", "compile", "cli_model.py", "func", "--input",
            "f32[3]", "--input", "f32[3]", "--cache-dir", str(cache), "--explain-cache"]

    def compile_to(out: str, *python: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(args[:1] + list(python) + args[1:] + ["-o", out], cwd=project,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc

    cold = compile_to("a")
    assert "cache: miss: no entry" in cold.stdout and "numba: compiling" in cold.stdout
    warm = compile_to("b", "-X", "importtime")
    assert "cache: hit" in warm.stdout and "numba: compiling" not in warm.stdout
    assert "parse" not in warm.stdout.split("phase")[1]
    imported = {line.rsplit("|", 1)[1].strip() for line in warm.stderr.splitlines()
                if line.startswith("import time:")}
    assert not imported & {"numba", "llvmlite", "jinja2", "msc.frontend.evaluator",
                           "msc.optimizer.pipeline", "msc.codegen.lower"}  # a hit needs none
    probe = ("import json, sys, numpy as np; sys.path.insert(0, 'b'); import func as m; "
             "r = m.forward(np.ones(3, np.float32), np.arange(3, dtype=np.float32)); "
             "print(json.dumps([r.tolist(), len(m.func.stats.cache_misses)]))")
    ran = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True,
                         text=True, timeout=120)
    assert json.loads(ran.stdout) == [[2.0, 3.0, 4.0], 0], ran.stderr
    (project / "helpers.py").write_text("def scale(x):\n    return x * 3.0\n")
    edited = compile_to("c")
    assert f"file {project / 'helpers.py'} changed" in edited.stdout
    assert "msc: warning: " + MISMATCH in edited.stderr
    folders = {p.name for p in cache.iterdir()}
    nocache = subprocess.run(args[:-3] + ["--no-cache", "-o", "d"], cwd=project,
                             capture_output=True, text=True, timeout=120)
    assert nocache.returncode == 0 and {p.name for p in cache.iterdir()} == folders


# --- in process (python target: no Numba compile, fast) ------------------------------------


def make_scaled(n: float):
    import msc as ms

    @ms.jit
    def scaled(x):
        return x * n

    return scaled


def test_closure_values_are_part_of_the_key(tmp_path):
    import msc as ms

    ms.set_context(jit_target="python", enable_compile_cache=True,
                   compile_cache_path=str(tmp_path))
    x = ms.Tensor(np.ones(2, np.float32))
    first = make_scaled(2.0)
    assert first(x).asnumpy().tolist() == [2.0, 2.0]
    again = make_scaled(2.0)  # a new function object, same code and closure: a hit
    assert again(x).asnumpy().tolist() == [2.0, 2.0]
    assert next(iter(again.cache.entries.values())).cache == "hit"
    with pytest.warns(UserWarning, match="closure variable 'n'"):
        other = make_scaled(5.0)(x)
    assert other.asnumpy().tolist() == [5.0, 5.0]


class _Config:
    scale = 4.0


def _hidden_config():
    cfg = _Config()
    return lambda: cfg


GET_CONFIG = _hidden_config()


def test_a_read_the_cache_cannot_find_again_is_compiled_but_not_stored(tmp_path):
    import msc as ms

    @ms.jit
    def uses_hidden(x):
        return x * GET_CONFIG().scale

    ms.set_context(jit_target="python", enable_compile_cache=True,
                   compile_cache_path=str(tmp_path))
    out = uses_hidden(ms.Tensor(np.ones(2, np.float32)))
    assert out.asnumpy().tolist() == [4.0, 4.0]
    compiled = next(iter(uses_hidden.cache.entries.values()))
    assert compiled.entry_dir is None and "not stored" in compiled.cache_why
    assert "not reachable" in compiled.cache_why


def test_the_numba_part_of_the_key_names_both_versions_and_the_cpu(monkeypatch):
    """Read without importing Numba or llvmlite; Numba's CPU overrides change it."""
    from importlib.metadata import version

    from msc.cache.key import _numba_host

    host = _numba_host.__wrapped__()
    assert host["version"] == version("numba") and host["llvmlite"] == version("llvmlite")
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "+sse2")
    other = _numba_host.__wrapped__()
    assert other["cpu"] == "generic" and other["features"] != host["features"]

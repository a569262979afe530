"""Every common way to import an artifact works, each in a fresh process: by name from
``sys.path``, ``importlib.import_module``, by file path with and without registering it
in ``sys.modules``, and ``runpy.run_path``; all give the same result. A numba artifact
finds numpy's BLAS where neither msc nor SciPy is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from .cases.models import CASES, numpy_output, run_msc

WAYS = {
    "import": "sys.path.insert(0, folder); import MLP_construct as m; forward = m.forward",
    "import_module": "sys.path.insert(0, folder); "
                     "forward = importlib.import_module('MLP_construct').forward",
    "path, registered": "spec = importlib.util.spec_from_file_location('any', path); "
                        "m = importlib.util.module_from_spec(spec); sys.modules['any'] = m; "
                        "spec.loader.exec_module(m); forward = m.forward",
    "path, unregistered": "spec = importlib.util.spec_from_file_location('other', path); "
                          "m = importlib.util.module_from_spec(spec); "
                          "spec.loader.exec_module(m); forward = m.forward",
    "runpy": "forward = runpy.run_path(path)['forward']",
}


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    folders = {}
    for target in ("numba", "python"):
        out = tmp_path_factory.mktemp(f"mlp-{target}")
        proc = run_msc(*CASES["mlp"].compile_args(target, out, "--quiet", "--no-cache"))
        assert proc.returncode == 0, proc.stderr
        folders[target] = out
    return folders


@pytest.mark.parametrize("target", ["numba", "python"])
def test_every_way_of_importing_gives_the_same_result(artifacts, target, tmp_path):
    folder = artifacts[target]
    x = np.random.default_rng(0).normal(size=(32, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    results = {}
    for way, code in WAYS.items():
        script = (f"import importlib, importlib.util, runpy, sys\nimport numpy as np\n"
                  f"folder, path = {str(folder)!r}, {str(folder / 'MLP_construct.py')!r}\n"
                  f"{code}\n"
                  f"out = forward(np.load({str(tmp_path / 'x.npy')!r}))\n"
                  f"np.save({str(tmp_path / 'out.npy')!r}, np.asarray(out[0]))\n")
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              cwd=tmp_path, timeout=600)
        assert proc.returncode == 0, f"{way}: {proc.stderr}"
        results[way] = np.load(tmp_path / "out.npy")
    first = results["import"]
    for way, got in results.items():
        np.testing.assert_array_equal(got, first, err_msg=way)


PRINTING = """
import numpy as np
from msc import nn, ops, Tensor, Parameter


class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mean = Parameter(Tensor(np.zeros(3, np.float32)), name="mean")

    def construct(self, x):
        old = self.mean * 1
        ops.assign(self.mean, old * 0.5 + x * 0.5)
        ops.print_("mean", self.mean)
        return old
"""


@pytest.fixture(scope="module")
def printing_artifact(tmp_path_factory):
    folder = tmp_path_factory.mktemp("printing")
    (folder / "model.py").write_text(PRINTING)
    proc = run_msc("compile", "model.py", "Stateful", "--input", "f32[3]", "-o", "art",
                   "--target", "numba", "--quiet", "--no-cache", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return folder / "art"


def _run_way(way: str, folder, cwd) -> str:
    script = (f"import importlib, importlib.util, runpy, sys\nimport numpy as np\n"
              f"folder, path = {str(folder)!r}, {str(folder / 'Stateful_construct.py')!r}\n"
              f"{WAYS[way].replace('MLP_construct', 'Stateful_construct')}\n"
              f"for k in range(2):\n    print(forward(np.full(3, 2.0 ** k, np.float32)))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    assert proc.returncode == 0, f"{way}: {proc.stderr}"
    return proc.stdout


@pytest.mark.parametrize("way", WAYS)
def test_the_first_import_compiling_leaves_a_cache_every_way_loads(printing_artifact, way,
                                                                   tmp_path):
    """Without Numba's cache (another machine, another Numba), the first import compiles
    and writes the cache; the kernels must be compiled in the module's own globals (a
    print finds its helper) under the name the next process imports them by."""
    folder = tmp_path / "art"
    shutil.copytree(printing_artifact, folder, ignore=shutil.ignore_patterns("__pycache__"))
    first = _run_way(way, folder, tmp_path)
    assert (folder / "__pycache__").is_dir()
    assert "mean" in first and first == _run_way("import", folder, tmp_path)
    assert first == _run_way("path, unregistered", folder, tmp_path)


BLAS_PROBE = """
import json, sys
sys.modules["msc"] = sys.modules["scipy"] = None  # a machine with numpy and numba only
import numpy as np
sys.path.insert(0, sys.argv[1])
import MLP_construct as m
probs, shape = m.forward(np.load(sys.argv[2]))
np.save(sys.argv[3], probs)
kernels = [v for name, v in vars(m).items() if hasattr(v, "py_func")
           and not name.startswith("_rt_")]  # the model's kernels, not the helpers
print(json.dumps({"blas": m._HAVE_BLAS, "names": [k.py_func.__qualname__ for k in kernels],
                  "hits": sum(len(k.stats.cache_hits) for k in kernels),
                  "misses": sum(len(k.stats.cache_misses) for k in kernels)}))
"""


def test_a_numba_artifact_calls_numpys_blas_where_msc_is_absent(artifacts, tmp_path):
    """The artifact finds the BLAS numpy bundles with neither msc nor SciPy importable,
    its kernel (compiled by msc compile into the BLAS flavour) loads from the shipped
    Numba cache in this fresh process, and the result is numpy's."""
    folder = artifacts["numba"]
    x = np.random.default_rng(5).normal(size=(32, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    proc = subprocess.run([sys.executable, "-c", BLAS_PROBE, str(folder), str(tmp_path / "x.npy"),
                           str(tmp_path / "out.npy")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["blas"] is True
    assert report["names"] and all(n.endswith("__blas") for n in report["names"])
    assert (report["hits"], report["misses"]) == (len(report["names"]), 0)
    want, _ = numpy_output(CASES["mlp"], folder / "weights.npz", [x])
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), want, rtol=1e-5, atol=1e-6)


CONSTANTS = """
import numpy as np
from msc import nn, ops, Tensor, Parameter


class WithConstants(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.full((3, 3), 0.5, np.float32)), name="w")
        self.scale = Tensor(np.array([1.0, -2.0, 3.0], np.float32))

    def construct(self, x):
        return ops.matmul(x * self.scale, self.w)
"""


def test_a_numba_artifact_with_constants_loads_its_kernels_without_compiling(tmp_path):
    """``msc compile`` compiled the kernels for read-only constants; the artifact passes its
    constants read-only too, so its first call loads from Numba's cache and compiles nothing."""
    (tmp_path / "consts.py").write_text(CONSTANTS)
    out = tmp_path / "art"
    proc = run_msc("compile", str(tmp_path / "consts.py"), "WithConstants", "--input",
                   "f32[2,3]", "-o", str(out), "--quiet", "--cache-dir", str(tmp_path / "c"))
    assert proc.returncode == 0, proc.stderr
    script = ("import sys\nimport numpy as np\nfrom numba.core.dispatcher import Dispatcher\n"
              f"sys.path.insert(0, {str(out)!r})\nimport WithConstants_construct as m\n"
              "x = np.arange(6, dtype=np.float32).reshape(2, 3)\n"
              "got = np.asarray(m.forward(x))\n"
              "assert np.allclose(got, (x * [1, -2, 3]) @ np.full((3, 3), 0.5)), got\n"
              "kernels = [d for d in vars(m).values() if isinstance(d, Dispatcher)]\n"
              "assert kernels and all(d.signatures for d in kernels if d.stats.cache_hits)\n"
              "print(sum(len(d.stats.cache_hits) for d in kernels),"
              " sum(len(d.stats.cache_misses) for d in kernels))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    hits, misses = map(int, proc.stdout.split())
    assert hits >= 1 and misses == 0


OUTLINED = """
import numpy as np
import msc.codegen.outline
from msc import Tensor, nn

msc.codegen.outline.OUTLINE_LINES = 0  # outline however small: the kernels are files


def weight(i):
    return Tensor(np.random.default_rng(i).normal(size=(3, 3, 3, 3)).astype(np.float32) * 0.2)


class Blocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.convs = nn.CellList([nn.Conv2d(3, 3, 3, pad_mode="same", weight_init=weight(i))
                                  for i in range(3)])
        self.relu = nn.ReLU()

    def construct(self, x):
        for conv in self.convs:
            x = self.relu(conv(x)) + x
        return x
"""


def test_an_outlined_artifact_carries_its_kernels_and_runs_anywhere_without_compiling(
        tmp_path):
    """The artifact's library kernels are files in its own kernels/ folder, compiled by
    ``msc compile``; a copy of the folder (another machine of the same kind) loads them
    from Numba's cache on its first call."""
    (tmp_path / "blocks.py").write_text(OUTLINED)
    out = tmp_path / "art"
    proc = run_msc("compile", str(tmp_path / "blocks.py"), "Blocks", "--input", "f32[2,3,5,5]",
                   "-o", str(out), "--quiet", "--cache-dir", str(tmp_path / "c"))
    assert proc.returncode == 0, proc.stderr
    kernels = sorted(p.name for p in (out / "kernels").glob("*.py"))
    assert kernels[0].startswith("_msc_k_") and kernels[-1].startswith("_msc_rt_")
    moved = tmp_path / "elsewhere" / "art"
    shutil.copytree(out, moved)
    x = np.random.default_rng(0).normal(size=(2, 3, 5, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    script = ("import sys\nimport numpy as np\n"
              f"sys.path.insert(0, {str(moved)!r})\nimport Blocks_construct as m\n"
              f"np.save({str(tmp_path / 'got.npy')!r}, np.asarray(m.forward("
              f"np.load({str(tmp_path / 'x.npy')!r}))))\n"
              "ks = [d for n, mod in list(sys.modules.items()) if n.startswith('_msc_k_')\n"
              "      for k, d in vars(mod).items() if k.startswith('_k_')]\n"
              "print(len(ks), sum(len(d.stats.cache_misses) for d in ks))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600,
                          env={**os.environ, "MSC_KERNEL_CACHE_PATH": str(tmp_path / "none")})
    assert proc.returncode == 0, proc.stderr
    count, compiled = map(int, proc.stdout.split())
    assert count >= 1 and compiled == 0
    assert not (tmp_path / "none").exists()  # an artifact never touches msc's library

    import msc as ms
    import msc.codegen.outline

    threshold = msc.codegen.outline.OUTLINE_LINES
    sys.path.insert(0, str(tmp_path))
    try:
        import blocks  # (sets the outlining threshold: put it back)
    finally:
        sys.path.remove(str(tmp_path))
        msc.codegen.outline.OUTLINE_LINES = threshold
    eager = blocks.Blocks()(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(np.load(tmp_path / "got.npy"), eager, rtol=1e-5, atol=1e-6)

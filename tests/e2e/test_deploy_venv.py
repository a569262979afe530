"""Deployment: artifact folders copied to fresh venvs that hold numpy (python target) or
numpy and numba (numba target) but not msc, imported there and run in a subprocess.

The venvs are built once per test module; pip installs the versions this interpreter
runs, so its wheel cache serves them.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import llvmlite
import numba
import numpy as np
import pytest

from .cases.models import CASES, assert_same, eager_output, start_msc

RUNNER = Path(__file__).parent / "cases" / "deploy_runner.py"
PACKAGES = {
    "python": [f"numpy=={np.__version__}"],
    "numba": [f"numpy=={np.__version__}", f"numba=={numba.__version__}",
              f"llvmlite=={llvmlite.__version__}"],
}
# (case, target) pairs the tests deploy.
DEPLOYED = [("mlp", "python"), ("gpt", "python"), ("loop200", "numba"), ("mlp", "numba")]


def clean_env():
    """No way back to the msc checkout: no PYTHONPATH, no user site-packages."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    return {**env, "PYTHONNOUSERSITE": "1"}


def venv_python(root):
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    """{"python": numpy only, "numba": numpy + numba}: interpreters of fresh venvs."""
    root = tmp_path_factory.mktemp("venvs")
    pythons, installs = {}, []
    for target, packages in PACKAGES.items():
        subprocess.run([sys.executable, "-m", "venv", str(root / target)], check=True,
                       env=clean_env(), timeout=300)
        pythons[target] = venv_python(root / target)
        installs.append(subprocess.Popen(
            [str(pythons[target]), "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", *packages],
            env=clean_env(), cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True))
    for proc in installs:
        out, _ = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"pip install failed:\n{out}"
    return pythons


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """The deployed artifacts, compiled concurrently by ``msc compile``."""
    root = tmp_path_factory.mktemp("built")
    procs = {(name, target): start_msc(*CASES[name].compile_args(target, root / f"{name}-{target}"))
             for name, target in DEPLOYED}
    for key, proc in procs.items():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{key}: {err}"
    return {key: root / f"{key[0]}-{key[1]}" for key in procs}


def decode(structure, arrays):
    if "tuple" in structure:
        return tuple(decode(s, arrays) for s in structure["tuple"])
    if "array" in structure:
        return arrays[structure["array"]]
    value = structure["value"]
    assert type(value).__name__ == structure["type"]
    return value


def deploy_and_run(python, artifact, case, mode, tmp_path, rng):
    """Copy the folder away from the build, run it in ``python``; returns (result, report,
    eager result)."""
    folder = tmp_path / "deployed" / artifact.name
    shutil.copytree(artifact, folder)
    inputs = case.make_inputs(rng)
    np.savez(tmp_path / "inputs.npz", **{f"x{i}": x for i, x in enumerate(inputs)})
    proc = subprocess.run([str(python), str(RUNNER), mode, str(folder), case.kernel,
                           str(tmp_path / "inputs.npz"), str(tmp_path / "outputs.npz")],
                          capture_output=True, text=True, cwd=tmp_path, env=clean_env(),
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    assert Path(report["module_file"]).resolve() == (folder / f"{case.kernel}.py").resolve()
    with np.load(tmp_path / "outputs.npz", allow_pickle=False) as f:
        result = decode(report["structure"], {k: f[k] for k in f.files})
    return result, report, eager_output(case, folder / "weights.npz", inputs)


def test_msc_is_not_importable_in_the_venvs(venvs, tmp_path):
    for target, python in venvs.items():
        proc = subprocess.run([str(python), "-c", "import msc"], capture_output=True,
                              text=True, cwd=tmp_path, env=clean_env(), timeout=120)
        assert proc.returncode != 0 and "No module named 'msc'" in proc.stderr, target
    has_numba = subprocess.run([str(venvs["python"]), "-c", "import numba"],
                               capture_output=True, cwd=tmp_path, env=clean_env(), timeout=120)
    assert has_numba.returncode != 0   # the python target really runs on numpy alone


@pytest.mark.parametrize("mode", ["path", "syspath"])
@pytest.mark.parametrize("name", ["mlp", "gpt"])
def test_python_artifact_runs_where_only_numpy_is_installed(venvs, artifacts, name, mode,
                                                            tmp_path, rng):
    result, report, eager = deploy_and_run(venvs["python"], artifacts[name, "python"],
                                           CASES[name], mode, tmp_path, rng)
    assert_same(result, eager)
    assert report["loaded"] == [] and report["msc_importable"] is False


@pytest.mark.parametrize("mode", ["path", "syspath"])
def test_numba_artifact_runs_where_only_numpy_and_numba_are_installed(venvs, artifacts, mode,
                                                                     tmp_path, rng):
    result, report, eager = deploy_and_run(venvs["numba"], artifacts["loop200", "numba"],
                                           CASES["loop200"], mode, tmp_path, rng)
    assert_same(result, eager)
    assert report["loaded"] == ["numba"] and report["msc_importable"] is False


# NOTE: strict: once the numba target's matmul stops needing scipy this passes, and the
# marker must go.
def test_numba_artifact_with_matmul_runs_without_scipy(venvs, artifacts, tmp_path, rng):
    result, _, eager = deploy_and_run(venvs["numba"], artifacts["mlp", "numba"],
                                      CASES["mlp"], "syspath", tmp_path, rng)
    assert_same(result, eager)

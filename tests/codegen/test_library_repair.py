"""Nothing on disk breaks a compile: a kernel library (or an artifact's ``kernels/``) whose
files are damaged is mended by the next process, which answers right with one warning.
Kernel sources that do not hash to their names are written again from the copy every
generated module carries; Numba cache entries that do not load are compiled again
(``_rt_library`` and ``_rt_guard`` in ``msc/templates/numba.py.j2``). Real processes,
real Numba; the damaged artifacts run without msc."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from msc.codegen.library import intact

MODEL = '''
import numpy as np

import msc.codegen.outline
from msc import nn

msc.codegen.outline.OUTLINE_LINES = 0  # outline however small


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)) + x)


def make():
    net = nn.SequentialCell([Block() for _ in range(2)])
    net.set_train(False)
    return net
'''

#: Imports the artifact by path and runs it: numpy and numba only, no msc.
RUN = '''
import importlib.util
import json
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("always")
folder = sys.argv[1]
name = json.load(open(os.path.join(folder, "manifest.json")))["module"]
spec = importlib.util.spec_from_file_location(name[:-3], os.path.join(folder, name))
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = np.random.default_rng(0).normal(size=(2, 4, 6, 6)).astype(np.float32)
np.save(sys.argv[2], np.asarray(module.forward(x)))
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """An artifact whose kernels are library files, with Numba's cache of each, and its
    answer; compiled once for every test here."""
    root = tmp_path_factory.mktemp("repair")
    (root / "model.py").write_text(MODEL)
    (root / "run.py").write_text(RUN)
    env = {**os.environ, "MSC_KERNEL_CACHE_PATH": str(root / "library")}
    subprocess.run([sys.executable, "-m", "msc", "compile", str(root / "model.py"), "make",
                    "--input", "f32[2,4,6,6]", "-o", str(root / "artifact"), "--no-cache"],
                   check=True, env=env, capture_output=True, text=True, timeout=600)
    kernels = root / "artifact" / "kernels"
    assert len(list(kernels.glob("_msc_k_*.py"))) >= 2
    assert list((kernels / "__pycache__").glob("*.nbi"))
    answer, warned = run(root, root / "artifact")
    assert not warned
    return root, answer


def run(root, artifact):
    """The artifact's answer, and the warnings msc's code in it gave."""
    proc = subprocess.run([sys.executable, str(root / "run.py"), str(artifact),
                           str(artifact / "out.npy")], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return np.load(artifact / "out.npy"), \
        [line for line in proc.stderr.splitlines() if "RuntimeWarning: msc:" in line]


def _random(path, size):
    path.write_bytes(np.random.default_rng(len(path.name)).bytes(size))


def _damage_sources(kernels):
    """A kernel file holding another kernel's code, a truncated one, the helpers' file in
    random bytes; the names of the three."""
    first, second = sorted(kernels.glob("_msc_k_*.py"))[:2]
    helpers = next(kernels.glob("_msc_rt_*.py"))
    shutil.copy(second, first)
    second.write_bytes(second.read_bytes()[:200])
    _random(helpers, 500)
    return [first.name, second.name, helpers.name]


def _damage_cache(kernels):
    """Random bytes in one kernel's index file and in another's data file."""
    indexes = sorted((kernels / "__pycache__").glob("_msc_k_*.nbi"))
    _random(indexes[0], 300)
    data = sorted((kernels / "__pycache__").glob(indexes[1].name.split(".")[0] + ".*.nbc"))
    _random(data[0], 3000)
    return indexes[0].name


def _copy(built, tmp_path):
    root, answer = built
    shutil.copytree(root / "artifact", tmp_path / "artifact")
    return root, answer, tmp_path / "artifact"


def _sound(kernels):
    return all(intact(p.stem, p.read_text(encoding="utf-8")) for p in kernels.glob("*.py"))


def test_damaged_kernel_sources_are_written_again_with_one_warning(built, tmp_path):
    root, answer, artifact = _copy(built, tmp_path)
    names = _damage_sources(artifact / "kernels")
    got, warned = run(root, artifact)
    np.testing.assert_array_equal(got, answer)
    assert len(warned) == 1, warned
    assert f"the kernel library {artifact / 'kernels'} was damaged" in warned[0]
    assert all(f"rewrote {name}" in warned[0] for name in names), warned
    assert _sound(artifact / "kernels")


def test_damaged_numba_cache_entries_are_compiled_again_with_one_warning(built, tmp_path):
    root, answer, artifact = _copy(built, tmp_path)
    index = _damage_cache(artifact / "kernels")
    got, warned = run(root, artifact)
    np.testing.assert_array_equal(got, answer)
    assert len(warned) == 1, warned
    assert f"Numba's cache {artifact / 'kernels' / '__pycache__'} was damaged" in warned[0]
    assert index in warned[0] or "an entry named by" in warned[0]
    got, warned = run(root, artifact)  # mended for good: the next process says nothing
    np.testing.assert_array_equal(got, answer)
    assert not warned


def test_missing_kernel_files_are_written_without_a_word(built, tmp_path):
    root, answer, artifact = _copy(built, tmp_path)
    kernels = artifact / "kernels"
    for path in [*kernels.glob("*.py"), *(kernels / "__pycache__").iterdir()]:
        path.unlink()
    got, warned = run(root, artifact)
    np.testing.assert_array_equal(got, answer)
    assert not warned and _sound(kernels)


@contextlib.contextmanager
def read_only(folder):
    """``folder`` made read-only (for root, who writes anywhere, immutable)."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if shutil.which("chattr") is None or \
            subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("no way to make a folder read-only for root here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_read_only_kernels_folder_with_a_damaged_kernel_still_answers(built, tmp_path):
    """The damaged file cannot be replaced: the kernel is compiled from the module's copy
    in a folder of the process's own, with one warning naming the library folder."""
    root, answer = built
    artifact = tmp_path / "artifact"
    shutil.copytree(root / "artifact", artifact)
    kernels = artifact / "kernels"
    source = sorted(kernels.glob("_msc_k_*.py"))[0]
    source.write_bytes(source.read_bytes()[:200])
    (artifact / "out.npy").touch()  # (the artifact folder stays writable for the answer)
    with read_only(kernels):
        got, warned = run(root, artifact)
    np.testing.assert_array_equal(got, answer)
    assert len(warned) == 1 and f"cannot hold {source.name}" in warned[0], warned


def test_the_module_checks_files_by_the_names_the_library_gives_them(built):
    """The generated module's check (``_rt_sound``) and the library's naming agree."""
    root, _ = built
    kernels = root / "artifact" / "kernels"
    for source in kernels.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert intact(source.stem, text)
        assert not intact(source.stem, text[:-10])
        assert not intact(source.stem, text.replace("np.", "np .", 1))

"""The on-disk compile cache under stress, observed from real processes.

Racing builders must leave one whole entry; a damaged entry (any file truncated, edited or
missing, the manifest unreadable or edited) must be discarded with a warning and rebuilt,
never imported; an unwritable cache folder must only cost the caching, once per process;
``msc cache ls|prune|clear`` must report and remove what is on disk, least recently used
first. Every process compiles one small file of @jit functions, at one path for the whole
module, since an entry's key includes the model file's path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from msc.cache.store import read_entry_manifest, verify_files

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0  # root writes through chmod 0o555

MODEL = '''
import msc as ms


@ms.jit
def step(x, y):
    out = x
    for _ in range(20):
        out = out * 0.5 + x * y + 1.25
    return out


@ms.jit
def other(x):
    return x * 3.0 - 1.0
'''

RUNNER = '''
"""Call the model's functions named in argv (NAME, or NAME:view for a strided input) and
print one JSON line each; with TEST_GO, first say ready and wait for that file."""
import json
import os
import sys
import time
import warnings

import numpy as np

import msc as ms
import model

warnings.simplefilter("always")  # every CacheWarning reaches stderr, repeated ones too
X = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
Y = np.array([0.5, -1.0, 2.0, 0.25], np.float32)


def wait_for_go(go):
    open(f"{go}.ready.{os.getpid()}", "w").close()
    deadline = time.monotonic() + 120
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            sys.exit("the test never said go")
        time.sleep(0.002)


def call(name):
    fname, _, how = name.partition(":")
    x = ms.Tensor(np.repeat(X, 2)[::2] if how == "view" else X.copy())
    fn = getattr(model, fname)
    out = fn(x) if fname == "other" else fn(x, ms.Tensor(Y))
    compiled = list(fn.cache.entries.values())[-1]
    kernel = compiled.manifest.get("kernel")
    stats = getattr(compiled.code, kernel).stats if kernel else None
    print(json.dumps({"name": name, "result": out.asnumpy().tolist(),
                      "dtype": str(out.asnumpy().dtype), "cache": compiled.cache,
                      "entry": str(compiled.entry_dir) if compiled.entry_dir else None,
                      "numba_misses": len(stats.cache_misses) if stats else None}), flush=True)


if os.environ.get("TEST_GO"):
    wait_for_go(os.environ["TEST_GO"])
for name in sys.argv[1:]:
    call(name)
'''

X = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
Y = np.array([0.5, -1.0, 2.0, 0.25], np.float32)


def step_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = x
    for _ in range(20):
        out = out * np.float32(0.5) + x * y + np.float32(1.25)
    return out


EXPECTED = {"step": step_ref(X, Y), "other": X * np.float32(3.0) - np.float32(1.0)}


# --- processes --------------------------------------------------------------------------------


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    def report(self, name: str) -> dict[str, Any]:
        found = [r for r in map(json.loads, self.stdout.splitlines()) if r["name"] == name]
        assert len(found) == 1, (self.stdout, self.stderr)
        return found[0]

    @property
    def warnings(self) -> list[str]:
        """The CacheWarning messages on stderr (python's ``file:line: Category: text``)."""
        tag = "CacheWarning: "
        return [line.split(tag, 1)[1] for line in self.stderr.splitlines() if tag in line]


def model_env(root: Path) -> dict[str, str]:
    env = dict(os.environ, MSC_COMPILER_CACHE_ENABLE="1", MSC_COMPILER_CACHE_PATH=str(root))
    env.pop("NUMBA_CACHE_DIR", None)  # Numba's cache must live beside the entry's module
    env.pop("TEST_GO", None)
    return env


def start(project: Path, root: Path, *names: str, cwd: Path,
          go: Path | None = None) -> subprocess.Popen[str]:
    env = model_env(root)
    if go is not None:
        env["TEST_GO"] = str(go)
    return subprocess.Popen([sys.executable, str(project / "runner.py"), *names], cwd=cwd,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> Run:
    try:
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    return Run(proc.returncode, stdout, stderr)


def run_model(project: Path, root: Path, *names: str, cwd: Path) -> Run:
    return finish(start(project, root, *names, cwd=cwd))


def msc_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-m", "msc", *args], check=False, cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)


def assert_result(run: Run, name: str, cache: str) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    report = run.report(name)
    assert report["dtype"] == "float32" and report["cache"] == cache, report
    np.testing.assert_allclose(np.array(report["result"], np.float32),
                               EXPECTED[name.partition(":")[0]], rtol=1e-6, atol=1e-6)
    return report


# --- the cache on disk ------------------------------------------------------------------------


def entry_folders(root: Path) -> list[Path]:
    return sorted(e for k in root.iterdir() if k.is_dir()
                  for e in k.iterdir() if e.is_dir() and not e.name.startswith("."))


def leftovers(root: Path) -> list[str]:
    """Temporary and trash folders a builder or a discard left behind."""
    return sorted(p.name for k in root.iterdir() if k.is_dir()
                  for p in k.iterdir() if p.name.startswith((".tmp-", ".trash-")))


def assert_intact(folder: Path) -> dict[str, Any]:
    """The manifest holds, and lists every other file there (but stats.json) with its sha256."""
    manifest, problem = read_entry_manifest(folder)
    assert problem == ""
    assert verify_files(folder, manifest) == []
    unlisted = ("stats.json", "manifest.json")
    on_disk = {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in folder.rglob("*") if p.is_file() and p.name not in unlisted}
    assert on_disk == manifest["checksums"]
    return manifest


def raw_manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "manifest.json").read_text())


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def set_tree_mode(top: Path, folders: int, files: int) -> None:
    for dirpath, _, filenames in os.walk(top):
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), files)
        os.chmod(dirpath, folders)


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("project")
    (folder / "model.py").write_text(MODEL)
    (folder / "runner.py").write_text(RUNNER)
    return folder


@pytest.fixture(scope="module")
def pristine(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding one entry, for ``step``; tests damage copies of it."""
    work = tmp_path_factory.mktemp("pristine")
    root = work / "cache"
    assert_result(run_model(project, root, "step", cwd=work), "step", "miss")
    return root


def seed(pristine: Path, tmp_path: Path) -> Path:
    """A copy of the pristine cache (modification times kept, as Numba's index needs)."""
    return Path(shutil.copytree(pristine, tmp_path / "cache", symlinks=True))


# --- concurrency ------------------------------------------------------------------------------


def test_eight_racing_processes_build_one_entry(project: Path, tmp_path: Path) -> None:
    root, go = tmp_path / "shared", tmp_path / "go"
    root.mkdir()
    procs = [start(project, root, "step", cwd=tmp_path, go=go) for _ in range(8)]
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("go.ready.*"))) < 8:  # all imported: release them at once
            assert all(p.poll() is None for p in procs), [finish(p).stderr for p in procs]
            assert time.monotonic() < deadline
            time.sleep(0.01)
        go.touch()
        runs = [finish(p) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [r.returncode for r in runs] == [0] * 8, [r.stderr for r in runs]
    assert all(r.warnings == [] for r in runs), [r.stderr for r in runs]  # none saw damage
    reports = [r.report("step") for r in runs]
    assert sorted(r["cache"] for r in reports) == ["hit"] * 7 + ["miss"]
    assert len({tuple(r["result"]) for r in reports}) == 1
    assert_result(runs[0], "step", reports[0]["cache"])  # and that one result is numpy's
    [folder] = entry_folders(root)
    assert {r["entry"] for r in reports} == {str(folder)}
    assert sorted(p.name for p in folder.parent.iterdir()) == sorted([".lock", folder.name])
    assert leftovers(root) == []
    assert_intact(folder)
    assert all(r["numba_misses"] == 0 for r in reports)  # Numba's cache served every kernel


# --- damaged entries --------------------------------------------------------------------------


def module_file(folder: Path) -> Path:
    return folder / raw_manifest(folder)["module"]


def truncate_module(folder: Path, spare: Path) -> str:
    path = module_file(folder)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return f"{path.name} does not match its checksum"


def edit_literal(folder: Path, spare: Path) -> str:
    """One byte: the kernel's last ``+ 1.25`` becomes ``+ 9.25`` (a copy goes to ``spare``)."""
    path = module_file(folder)
    text = path.read_text()
    at = text.rindex("np.float32(1.25)") + len("np.float32(")
    path.write_text(text[:at] + "9" + text[at + 1:])
    shutil.copy(path, spare / "edited_copy.py")
    return f"{path.name} does not match its checksum"


def drop_constants(folder: Path, spare: Path) -> str:
    (folder / "constants.npz").unlink()
    return "constants.npz is missing"


def drop_numba_code(folder: Path, spare: Path) -> str:
    [nbc] = (folder / "__pycache__").glob("*.nbc")
    nbc.unlink()
    return f"__pycache__/{nbc.name} is missing"


def garble_manifest(folder: Path, spare: Path) -> str:
    path = folder / "manifest.json"
    path.write_text(path.read_text()[:-40])
    return "manifest.json cannot be read: "


def edit_manifest(folder: Path, spare: Path) -> str:
    manifest = raw_manifest(folder)
    manifest["kernel"] = "other"  # valid JSON; only its own checksum says it was changed
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return "manifest.json does not match its checksum"


CORRUPTIONS: list[Callable[[Path, Path], str]] = [
    truncate_module, edit_literal, drop_constants, drop_numba_code, garble_manifest,
    edit_manifest]


@dataclass
class Damaged:
    work: Path
    root: Path
    folder: Path
    why: str
    rebuilt: Run | None = None
    again: Run | None = None


def run_all(project: Path, cases: dict[str, Damaged]) -> dict[str, Run]:
    """One process per case, all at once (the cores are shared, the waits are not)."""
    procs = {name: start(project, c.root, "step", cwd=c.work) for name, c in cases.items()}
    try:
        return {name: finish(proc) for name, proc in procs.items()}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()


@pytest.fixture(scope="module")
def damaged(project: Path, pristine: Path,
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Damaged]:
    """Each corruption on its own copy of the pristine cache; then one round of processes
    that rebuild, and one that should hit what they rebuilt."""
    cases = {}
    for corrupt in CORRUPTIONS:
        work = tmp_path_factory.mktemp(corrupt.__name__)
        root = seed(pristine, work)
        [folder] = entry_folders(root)
        cases[corrupt.__name__] = Damaged(work, root, folder, corrupt(folder, work))
    for name, run in run_all(project, cases).items():
        cases[name].rebuilt = run
    for name, run in run_all(project, cases).items():
        cases[name].again = run
    return cases


@pytest.mark.parametrize("name", [f.__name__ for f in CORRUPTIONS])
def test_damaged_entry_is_discarded_and_rebuilt(damaged: dict[str, Damaged], name: str) -> None:
    """The rebuilding process warns once and gives the right result (so a module edited to
    give another never ran); the same entry is whole again; the next process hits it."""
    case = damaged[name]
    assert case.rebuilt is not None and case.again is not None
    assert_result(case.rebuilt, "step", "miss")
    assert len(case.rebuilt.warnings) == 1, case.rebuilt.stderr
    message = case.rebuilt.warnings[0]
    assert message.startswith(f"the compile cache entry {case.folder} is damaged (")
    assert case.why in message
    assert message.endswith("); it is discarded and rebuilt")
    assert entry_folders(case.root) == [case.folder] and leftovers(case.root) == []
    assert_intact(case.folder)
    assert assert_result(case.again, "step", "hit")["entry"] == str(case.folder)
    assert case.again.warnings == [], case.again.stderr


def test_edited_literal_would_change_the_result(damaged: dict[str, Damaged]) -> None:
    """The premise of the edit_literal case: its module, run, adds 8 to every element."""
    premise = damaged["edit_literal"].work / "edited_copy.py"
    spec = importlib.util.spec_from_file_location("edited_copy_of_cached_module", premise)
    assert spec is not None and spec.loader is not None
    edited = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(edited)
    kernel = getattr(edited, raw_manifest(damaged["edit_literal"].folder)["kernel"]).py_func
    np.testing.assert_allclose(kernel(X, Y)[0], EXPECTED["step"] + 8, rtol=1e-6)


POPULATED: list[Any] = [pytest.param("as-copied", id="as-copied")]
if not AS_ROOT:  # root reads and writes through the mode bits
    POPULATED.append(pytest.param("read-only", id="read-only"))


@pytest.mark.parametrize("mode", POPULATED)
def test_populated_cache_hits_silently(project: Path, pristine: Path, tmp_path: Path,
                                       mode: str) -> None:
    """A copy of a cache (the premise of the damage tests), also when it is read-only."""
    root = seed(pristine, tmp_path)
    [folder] = entry_folders(root)
    if mode == "read-only":
        set_tree_mode(root, 0o555, 0o444)
    try:
        run = run_model(project, root, "step", cwd=tmp_path)
    finally:
        set_tree_mode(root, 0o755, 0o644)
    assert assert_result(run, "step", "hit")["entry"] == str(folder)
    assert run.warnings == [], run.stderr
    assert_intact(folder)
    if mode == "as-copied":
        assert run.report("step")["numba_misses"] == 0  # Numba's cache copied along


def test_hit_with_strided_input_leaves_entry_intact(project: Path, pristine: Path,
                                                    tmp_path: Path) -> None:
    root = seed(pristine, tmp_path)
    [folder] = entry_folders(root)
    assert_result(run_model(project, root, "step:view", cwd=tmp_path), "step:view", "hit")
    after = run_model(project, root, "step", cwd=tmp_path)
    assert_result(after, "step", "hit")
    assert after.warnings == [], after.stderr
    assert_intact(folder)


def test_odd_stats_file_does_not_break_a_hit(project: Path, pristine: Path,
                                             tmp_path: Path) -> None:
    root = seed(pristine, tmp_path)
    [folder] = entry_folders(root)
    (folder / "stats.json").write_text('{"hits": null, "last_used": "yesterday"}')
    run = run_model(project, root, "step", cwd=tmp_path)
    assert_result(run, "step", "hit")


# --- unwritable and read-only caches ----------------------------------------------------------


def parent_is_a_file(tmp_path: Path) -> Path:
    (tmp_path / "not-a-folder").write_text("a file where the cache's parent should be\n")
    return tmp_path / "not-a-folder" / "cache"


def read_only_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    folder.chmod(0o555)
    return folder


UNWRITABLE: list[Any] = [pytest.param(parent_is_a_file, id="parent-is-a-file")]
if not AS_ROOT:  # root ignores the mode bits
    UNWRITABLE.append(pytest.param(read_only_folder, id="read-only-folder"))


@pytest.mark.parametrize("make_root", UNWRITABLE)
def test_unwritable_cache_warns_once_and_compiles(project: Path, tmp_path: Path,
                                                  make_root: Callable[[Path], Path]) -> None:
    root = make_root(tmp_path)
    try:
        run = run_model(project, root, "step", "other", cwd=tmp_path)
        for name in ("step", "other"):
            assert assert_result(run, name, "miss")["entry"] is None
        assert len(run.warnings) == 1, run.stderr
        assert run.warnings[0].startswith(f"cannot write the compile cache folder {root} (")
        assert run.warnings[0].endswith("); compiling without caching")
        assert not root.exists() or list(root.iterdir()) == []
    finally:
        if root.is_dir():
            root.chmod(0o755)


@pytest.mark.parametrize("make_root", UNWRITABLE)
def test_msc_compile_with_unwritable_cache_writes_a_working_artifact(
        project: Path, tmp_path: Path, make_root: Callable[[Path], Path]) -> None:
    from msc.codegen.artifact import load_artifact

    root, out = make_root(tmp_path), tmp_path / "artifact"
    try:
        done = msc_cli("compile", str(project / "model.py"), "step", "--input", "f32[4]",
                       "--input", "f32[4]", "-o", str(out), "--cache-dir", str(root),
                       "--quiet", cwd=tmp_path)
    finally:
        if root.is_dir():
            root.chmod(0o755)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if line.startswith("msc: warning: ")]
    assert len(warned) == 1, done.stderr
    assert warned[0].startswith(f"msc: warning: cannot write the compile cache folder {root} (")
    assert warned[0].endswith("; compiling without caching")
    result = load_artifact(out).forward(X, Y)
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, EXPECTED["step"], rtol=1e-6, atol=1e-6)


# --- msc cache ls | prune | clear -------------------------------------------------------------


def ls_rows(root: Path, cwd: Path) -> tuple[str, list[str]]:
    done = msc_cli("cache", "ls", "--cache-dir", str(root), cwd=cwd)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return lines[0], [line for line in lines[2:] if line.strip()]


def test_cache_ls_prune_clear(project: Path, tmp_path: Path) -> None:
    root = tmp_path / "cache"
    first = run_model(project, root, "step", "other", cwd=tmp_path)  # other is created last
    step_dir = Path(assert_result(first, "step", "miss")["entry"])
    other_dir = Path(assert_result(first, "other", "miss")["entry"])
    assert sorted(entry_folders(root)) == sorted([step_dir, other_dir])
    assert_result(run_model(project, root, "step", cwd=tmp_path), "step", "hit")  # step: newest use

    head, rows = ls_rows(root, tmp_path)
    assert head.startswith(f"{root}: 2 entries, ")
    assert len(rows) == 2
    assert rows[0].startswith(step_dir.name[:12]) and "step (model.py)" in rows[0]
    assert rows[1].startswith(other_dir.name[:12]) and "other (model.py)" in rows[1]
    assert [int(r.split()[-1]) for r in rows] == [1, 0]  # hits
    assert all(" numba " in r for r in rows)

    total = folder_bytes(step_dir) + folder_bytes(other_dir)
    pruned = msc_cli("cache", "prune", "--max-size", str(total - 1), "--cache-dir", str(root),
                     cwd=tmp_path)
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.startswith("removed 1 entries, ")
    assert entry_folders(root) == [step_dir]  # the least recently used one went
    assert_intact(step_dir)
    kept = msc_cli("cache", "prune", "--max-size", "1G", "--cache-dir", str(root), cwd=tmp_path)
    assert kept.stdout.startswith("removed 0 entries, ") and entry_folders(root) == [step_dir]

    cleared = msc_cli("cache", "clear", "--cache-dir", str(root), cwd=tmp_path)
    assert cleared.returncode == 0, cleared.stderr
    assert cleared.stdout.startswith("removed 1 entries, ")
    assert entry_folders(root) == []
    head, rows = ls_rows(root, tmp_path)
    assert head.startswith(f"{root}: 0 entries") and rows == []


@pytest.mark.parametrize("args, message", [
    (["--max-size", "12XB"], "msc: error: bad size '12XB'"),
    ([], "msc: error: msc cache prune needs --max-size"),
])
def test_cache_prune_bad_size_is_a_usage_error(pristine: Path, tmp_path: Path, args: list[str],
                                               message: str) -> None:
    root = seed(pristine, tmp_path)
    before = entry_folders(root)
    done = msc_cli("cache", "prune", *args, "--cache-dir", str(root), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(message), done.stderr
    assert entry_folders(root) == before and len(before) == 1  # nothing removed

"""`msc compile` end to end: real subprocesses write artifact folders, which are imported
back and checked against eager msc and numpy, and whose failures must leave nothing behind."""

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import msc
from msc.codegen.artifact import ArtifactError, load_artifact, verify_artifact

from .cases.models import CASES, ROOT, assert_same, eager_output, numpy_output, run_msc, start_msc

TARGETS = ("numba", "python")

SIGNATURES = {
    "mlp": [{"dtype": "float32", "shape": [32, 64]}],
    "loop200": [{"dtype": "float32", "shape": [1]}] * 2,
    "gpt": [{"dtype": "float32", "shape": [2, 8, 32]}],
}
OUTPUTS = {
    "mlp": {"tuple": [{"dtype": "float32", "shape": [32, 10]}, {"constant": [32, 10]}]},
    "loop200": {"dtype": "float32", "shape": [1]},
    "gpt": {"tuple": [{"dtype": "float32", "shape": [2, 8, 32]},
                      {"tuple": [{"dtype": "float32", "shape": [8, 8, 8]}] * 2},
                      {"constant": 2}]},
}


@dataclass(frozen=True)
class Built:
    path: Path
    stdout: str
    stderr: str

    @property
    def manifest(self):
        return json.loads((self.path / "manifest.json").read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every case for both targets, compiled by concurrent ``msc compile`` processes."""
    root = tmp_path_factory.mktemp("artifacts")
    procs = {(name, target): (root / f"{name}-{target}",
                              start_msc(*case.compile_args(target, root / f"{name}-{target}")))
             for name, case in CASES.items() for target in TARGETS}
    done = {}
    try:
        for key, (out, proc) in procs.items():
            stdout, stderr = proc.communicate(timeout=600)
            assert proc.returncode == 0, f"{key}: {stderr}"
            done[key] = Built(out, stdout, stderr)
    finally:
        for _, proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    return done


def run_forward(folder, inputs):
    """Load and call at once: both targets' modules share one name in ``sys.modules``."""
    return load_artifact(folder).forward(*inputs)


# --- results --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_numba_artifact_equals_python_artifact_equals_eager(built, name, rng):
    case = CASES[name]
    inputs = case.make_inputs(rng)
    weights = built[name, "python"].path / "weights.npz"
    with np.load(weights) as a, np.load(built[name, "numba"].path / "weights.npz") as b:
        assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)
    eager = eager_output(case, weights, inputs)
    from_python = run_forward(built[name, "python"].path, inputs)
    from_numba = run_forward(built[name, "numba"].path, inputs)
    assert_same(from_python, eager)
    assert_same(from_numba, eager)
    assert_same(from_numba, from_python)
    if name != "gpt":
        assert_same(from_python, numpy_output(case, weights, inputs))


def test_tuples_stay_tuples_and_constants_are_python_values(built, rng):
    out = run_forward(built["gpt", "numba"].path, CASES["gpt"].make_inputs(rng))
    hidden, keys, layers = out
    assert type(out) is tuple and type(keys) is tuple and len(keys) == 2
    assert type(layers) is int and layers == 2
    assert hidden.shape == (2, 8, 32) and all(k.shape == (8, 8, 8) for k in keys)
    probs, shape = run_forward(built["mlp", "numba"].path, CASES["mlp"].make_inputs(rng))
    assert shape == (32, 10) and type(shape) is tuple and all(type(d) is int for d in shape)
    np.testing.assert_allclose(probs.sum(-1), np.ones(32, np.float32), rtol=1e-5)


# --- the folder -----------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", CASES)
def test_manifest_describes_the_artifact_and_its_checksums_match(built, name, target):
    case, art = CASES[name], built[name, target]
    m = art.manifest
    assert m["msc_version"] == msc.__version__ and m["target"] == target
    assert m["entry"] == (case.entry or "MLP")
    assert m["module"] == f"{case.kernel}.py" and (art.path / m["module"]).is_file()
    assert m["input_signature"] == SIGNATURES[name]
    assert m["output"] == OUTPUTS[name]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", m["dependency_hash"])
    source = (art.path / m["module"]).read_text()
    assert f"Dependency hash: {m['dependency_hash']}" in source.split('"""')[1]
    assert f"msc {msc.__version__}" in source.split('"""')[1] and f"'{target}'" in source
    assert [row["name"] for row in m["pass_report"]] == ["parse", "inline", "const_fold",
                                                         "if_to_select", "cse",
                                                         "sink_slices", "dce", "load_elim"]
    phases = {"parse", "optimize", "codegen"} | ({"numba"} if target == "numba" else set())
    assert phases <= set(m["timings"]) and ("numba" in m["timings"]) == (target == "numba")
    assert all(m["timings"][p] > 0 for p in phases)
    files = {p.name for p in art.path.iterdir() if p.is_file()} - {"manifest.json"}
    assert set(m["checksums"]) == files == {m["module"], "weights.npz"}
    for file, digest in m["checksums"].items():
        assert hashlib.sha256((art.path / file).read_bytes()).hexdigest() == digest
    assert verify_artifact(art.path) == []


@pytest.mark.parametrize("name", CASES)
def test_weights_npz_loads_without_pickle(built, name):
    m = built[name, "numba"].manifest
    with np.load(built[name, "numba"].path / "weights.npz", allow_pickle=False) as w:
        assert w.files == [a["name"] for a in m["weight_arrays"]]
        for a in m["weight_arrays"]:
            assert w[a["name"]].dtype == np.dtype(a["dtype"])
            assert list(w[a["name"]].shape) == a["shape"]
        if name == "mlp":
            assert w.files == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
        if name == "gpt":  # the causal mask is a tensor constant: it travels as __const0
            mask = np.triu(np.full((8, 8), -1e9, np.float32), k=1)
            assert any(np.array_equal(w[k], mask) for k in w.files if k.startswith("__const"))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", CASES)
def test_generated_module_never_imports_msc(built, name, target):
    source = (built[name, target].path / f"{CASES[name].kernel}.py").read_text()
    assert not re.search(r"^\s*(import msc|from msc)", source, re.MULTILINE)
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    # every module asks glibc's malloc through ctypes to keep freed memory; the numba
    # target reaches numpy's bundled OpenBLAS through ctypes and llvmlite (numba's own
    # dependency) and imports its kernel files by path (importlib), mending what it finds
    # damaged (the standard library's hashlib ... atexit); cuda modules need numba
    allowed = {"os", "sys", "math", "types", "numpy", "ctypes"} | \
        ({"numba", "glob", "llvmlite", "importlib", "hashlib", "re", "pickle", "warnings",
          "tempfile", "shutil", "atexit"} if target == "numba" else set()) | \
        ({"numba"} if target == "cuda" else set())
    assert imported <= allowed, imported


def test_identical_compiles_give_identical_modules_and_hashes(built, tmp_path):
    case = CASES["mlp"]
    again = start_msc(*case.compile_args("python", tmp_path / "again"))
    other = start_msc("compile", case.model, "--input", "f32[16,64]", "--target", "python",
                      "-o", str(tmp_path / "other"))
    assert again.wait(300) == 0 and other.wait(300) == 0
    first = built["mlp", "python"]
    module = first.manifest["module"]
    assert (tmp_path / "again" / module).read_bytes() == (first.path / module).read_bytes()
    assert json.loads((tmp_path / "again" / "manifest.json").read_text())["dependency_hash"] \
        == first.manifest["dependency_hash"]
    assert json.loads((tmp_path / "other" / "manifest.json").read_text())["dependency_hash"] \
        != first.manifest["dependency_hash"]


# --- calling the module wrongly -------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_forward_checks_input_count_dtype_and_shape(built, target):
    forward = load_artifact(built["mlp", target].path).forward
    x = np.zeros((32, 64), np.float32)
    with pytest.raises(TypeError, match=r"takes 1 input array \(x: float32\[32,64\]\), "
                                        r"but 2 were given"):
        forward(x, x)
    with pytest.raises(TypeError, match=r"takes 1 input array \(x: float32\[32,64\]\), "
                                        r"but 0 were given"):
        forward()
    with pytest.raises(TypeError, match="input 'x' must have dtype float32, but has float64"):
        forward(x.astype(np.float64))
    with pytest.raises(ValueError, match=r"input 'x' must have shape \(32, 64\), but has "
                                         r"\(32, 63\)"):
        forward(np.zeros((32, 63), np.float32))
    loop = load_artifact(built["loop200", target].path).forward
    with pytest.raises(TypeError, match=r"takes 2 input arrays \(input_x: float32\[1\], "
                                          r"input_y: float32\[1\]\), but 1 was given"):
        loop(np.ones(1, np.float32))


def test_missing_weights_file_is_named(built, tmp_path):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(built["mlp", "python"].path, folder)
    (folder / "weights.npz").unlink()
    with pytest.raises(ArtifactError, match=re.escape(str(folder / "weights.npz")) + " is missing"):
        load_artifact(folder)
    forward = load_artifact(folder, verify=False).forward
    with pytest.raises(FileNotFoundError, match=re.escape(str(folder / "weights.npz"))):
        forward(np.zeros((32, 64), np.float32))


def test_changed_file_fails_verification(built, tmp_path):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(built["loop200", "python"].path, folder)
    with open(folder / "func.py", "a") as f:
        f.write("\n# edited\n")
    assert verify_artifact(folder) == [f"{folder / 'func.py'} does not match its checksum"]
    with pytest.raises(ArtifactError, match="is damaged"):
        load_artifact(folder)
    (folder / "manifest.json").unlink()
    with pytest.raises(ArtifactError, match="is not an msc artifact: manifest.json is missing"):
        load_artifact(folder)


# --- the command ----------------------------------------------------------------------------


def report_rows(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(\w+)\s+(-|\d+)\s+(\d+)\s+[\d.]+$", line)
        if m:
            rows[m.group(1)] = (None if m.group(2) == "-" else int(m.group(2)), int(m.group(3)))
    return rows


def test_report_shows_graph_passes_phases_and_location(built):
    art = built["mlp", "numba"]
    out, m = art.stdout, art.manifest
    lines = out.splitlines()
    assert lines[0] == "msc compile: MLP from examples/mlp.py, target numba"
    final_nodes = m["pass_report"][-1]["nodes_after"]
    assert f"graph @MLP_construct: {final_nodes} nodes" in lines
    assert "  inputs   x: float32[32,64]" in lines
    assert "  outputs  (float32[32,10], constant (32, 10))" in lines
    rows = report_rows(out)
    assert rows == {r["name"]: (r["nodes_before"], r["nodes_after"]) for r in m["pass_report"]}
    progress = [i for i, line in enumerate(lines)
                if re.fullmatch(r"numba: compiling MLP_construct \.\.\. \d+\.\d\d s", line)]
    assert len(progress) == 1
    phases = {}
    for line in lines[progress[0] + 1:]:
        hit = re.fullmatch(r"(parse|optimize|codegen|numba)\s+(\d+\.\d\d)", line)
        if hit:
            phases[hit.group(1)] = float(hit.group(2))
    assert list(phases) == ["parse", "optimize", "codegen", "numba"]
    assert phases["numba"] == pytest.approx(m["timings"]["numba"] * 1e3, abs=0.01)
    seconds = float(lines[progress[0]].split()[-2])
    assert seconds == pytest.approx(m["timings"]["numba"], abs=0.006)
    assert f"artifact: {art.path}" in lines[-4]
    assert re.fullmatch(r"  weights\.npz\s+[\d,]+ bytes", lines[-2])
    assert art.stderr == ""
    python = built["mlp", "python"].stdout
    assert "numba: compiling" not in python
    assert re.search(r"^numba\s+-  \(target python runs without Numba\)$", python, re.MULTILINE)


def test_quiet_prints_nothing_and_still_compiles(tmp_path):
    out = tmp_path / "func"
    proc = run_msc(*CASES["loop200"].compile_args("numba", out, "--quiet"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    m = json.loads((out / "manifest.json").read_text())
    assert m["timings"]["numba"] > 0 and verify_artifact(out) == []


def test_output_under_a_regular_file_fails_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder\n")
    for out in (blocker / "art", blocker / "sub" / "art"):
        proc = run_msc(*CASES["loop200"].compile_args("python", out))
        assert proc.returncode == 1, proc.stderr
        assert f"ArtifactError: cannot write the artifact folder {out}" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert os.listdir(tmp_path) == ["blocker"]
    assert blocker.read_text() == "not a folder\n"


def test_output_under_a_read_only_folder_fails_and_leaves_nothing(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user can write into read-only folders (root)")
        proc = run_msc(*CASES["loop200"].compile_args("python", locked / "art"))
        assert proc.returncode == 1
        assert f"cannot write the artifact folder {locked / 'art'}" in proc.stderr
        assert os.listdir(locked) == []
    finally:
        locked.chmod(0o755)


def test_a_folder_that_is_not_an_artifact_is_never_replaced(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    proc = run_msc(*CASES["loop200"].compile_args("python", mine))
    assert proc.returncode == 1
    assert f"refusing to replace {mine}" in proc.stderr
    assert os.listdir(mine) == ["notes.txt"] and os.listdir(tmp_path) == ["mine"]


def test_an_older_artifact_is_replaced_and_the_users_files_are_kept(tmp_path):
    """msc's files of the older artifact go (its module among them); what the user added
    to the folder stays, a file or a folder of files."""
    out = tmp_path / "art"
    assert run_msc(*CASES["mlp"].compile_args("python", out)).returncode == 0
    module = json.loads((out / "manifest.json").read_text())["module"]
    (out / "my_notes.txt").write_text("keep me")
    (out / "runs").mkdir()
    (out / "runs" / "1.log").write_text("loss 0.1")
    assert run_msc(*CASES["loop200"].compile_args("python", out)).returncode == 0
    assert sorted(os.listdir(out)) == ["func.py", "manifest.json", "my_notes.txt", "runs",
                                       "weights.npz"]
    assert json.loads((out / "manifest.json").read_text())["entry"] == "func"
    assert (out / "my_notes.txt").read_text() == "keep me"
    assert (out / "runs" / "1.log").read_text() == "loss 0.1"
    assert os.listdir(tmp_path) == ["art"]
    (out / module).write_text("mine")  # a file of the user's the new artifact would write
    proc = run_msc(*CASES["mlp"].compile_args("python", out))
    assert proc.returncode == 1 and f"refusing to replace {out}: {module} there" in proc.stderr
    assert (out / module).read_text() == "mine" and (out / "my_notes.txt").exists()


LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a too-large write fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))
from msc.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_write_failing_midway_leaves_the_old_artifact_and_no_debris(tmp_path):
    # The module (7 KB) fits under the 16 KB file-size limit, weights.npz (39 KB) does not.
    out = tmp_path / "art"
    args = CASES["mlp"].compile_args("python", out)
    assert run_msc(*args).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for target in (out, tmp_path / "fresh"):
        proc = subprocess.run([sys.executable, "-c", LIMITED, *args[:-1], str(target)],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert proc.returncode == 1
        assert f"cannot write the artifact folder {target}: File too large" in proc.stderr
        assert "(while writing weights.npz)" in proc.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert os.listdir(tmp_path) == ["art"]


def test_a_file_with_several_entries_needs_entry_and_uses_input_signature(tmp_path):
    model = "tests/e2e/cases/gpt_blocks.py"
    proc = run_msc("compile", model, "-o", str(tmp_path / "x"))
    assert proc.returncode == 2 and "Block, GPTStack, gated" in proc.stderr
    out = tmp_path / "gated"
    proc = run_msc("compile", model, "gated", "--target", "python", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    m = json.loads((out / "manifest.json").read_text())
    assert m["input_signature"] == [{"dtype": "float32", "shape": [4, 6]},
                                    {"dtype": "float32", "shape": [6]}]
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    g = np.linspace(-1, 1, 6, dtype=np.float32)
    want = 1 / (1 + np.exp(-g)) * x + np.tanh(x)
    np.testing.assert_allclose(load_artifact(out).forward(x, g), want, rtol=1e-6)


def test_model_errors_exit_1_with_the_users_line_and_write_nothing(tmp_path):
    out = tmp_path / "art"
    proc = run_msc("compile", "examples/mlp.py", "--input", "f32[32,63]", "-o", str(out))
    assert proc.returncode == 1
    assert re.search(r"MatmulShapeError: .*examples/mlp\.py:24:\d+: For 'Dense'", proc.stderr)
    assert "h = self.fc1(x)" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()
    proc = run_msc("compile", "examples/mlp.py", "-o", str(out))
    assert proc.returncode == 1
    assert "GraphTypeError: MLP.construct(): missing a required argument: 'x'" in proc.stderr
    assert "note: msc compile: give one --input DTYPE[DIMS] per positional input" in proc.stderr
    assert not out.exists()


def test_usage_errors_exit_2(tmp_path):
    proc = run_msc("compile", "examples/mlp.py", "--input", "f32[32,64]")
    assert proc.returncode == 2 and "-o/--output" in proc.stderr
    proc = run_msc("compile", "examples/mlp.py", "--target", "native", "-o", str(tmp_path / "a"))
    assert proc.returncode == 2 and "invalid choice: 'native'" in proc.stderr
    assert os.listdir(tmp_path) == []


def test_the_compile_cache_example_runs_as_a_script(tmp_path):
    """As in the tutorial: run twice; the cache folder is made in the working directory."""
    script = os.path.join(ROOT, "examples", "compile_cache.py")
    for args, state in (([], "Enable"), ([], "Enable"), (["--no-cache"], "Disable")):
        proc = subprocess.run([sys.executable, script, *args], capture_output=True,
                              text=True, cwd=tmp_path, timeout=300)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert lines[0] == "[601.]"   # 1 + 200 * (1 + 1 * 2)
        assert re.fullmatch(rf"{state} compile_cache cost time: \d+\.\d+(e-\d+)?", lines[1])
    entries = [p for p in (tmp_path / "my_compile_cache").glob("*/*") if p.is_dir()]
    assert len(entries) == 1 and (entries[0] / "manifest.json").is_file()


def test_stale_build_folders_of_killed_compiles_are_removed(tmp_path):
    """A compile killed mid-way leaves ``.NAME.tmp-PID-HEX``; the next compile to the same
    place removes those whose process is gone, and nothing else."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "art"
    stale = [tmp_path / f".art.tmp-{dead.pid}-0badc0de",
             tmp_path / f".art.tmp-{dead.pid}-12345678-old"]
    kept = [tmp_path / f".art.tmp-{os.getpid()}-0badc0de",  # a live process's build
            tmp_path / f".other.tmp-{dead.pid}-0badc0de",  # another artifact's
            tmp_path / ".art.tmp-notapid"]
    for folder in stale + kept:
        folder.mkdir()
        (folder / "func.py").write_text("# half written\n")
    assert run_msc(*CASES["loop200"].compile_args("python", out)).returncode == 0
    assert sorted(os.listdir(tmp_path)) == sorted(["art"] + [p.name for p in kept])

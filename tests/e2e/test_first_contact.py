"""What a new user meets first, through real ``python -m msc`` processes: a model file
that does not parse or raises, an ENTRY that is an instance, a factory or a typo, a
folder given as the model, Ctrl-C, an artifact called with Python lists, ``mpiexec``,
``msc --help``. Each mistake is one msc message naming the file and line (with a caret
where a line is known), never a traceback through msc or importlib."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from msc.codegen.artifact import load_artifact, verify_artifact

from ..communication.mpi import launch
from .cases.models import ROOT, run_msc

MODEL = """\
import msc as ms
from msc import nn, ops


class Block(nn.Cell):
    def construct(self, x):
        return ops.relu(x) * 2


class Scaled(nn.Cell):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def construct(self, x):
        return x * self.factor


net = Block()


def make_scaled():
    return Scaled(3.0)


def broken_factory():
    raise RuntimeError("no weights for this size")


def not_a_cell():
    return 3
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def assert_one_error(proc, head: str, source: str | None = None) -> list[str]:
    """Exit status 1; stderr is ``head``, then the user's line and a caret under it."""
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1, proc.stderr
    assert lines[0] == head, proc.stderr
    assert "Traceback" not in proc.stderr and "importlib" not in proc.stderr
    if source is not None:
        assert lines[1].strip() == source and lines[2].strip().startswith("^"), proc.stderr
    return lines


# --- the model file ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["compile", "ir", "run"])
def test_a_syntax_error_is_one_message_with_file_line_and_caret(tmp_path, command):
    bad = write(tmp_path, "bad.py", """\
        from msc import nn

        class Net(nn.Cell):
            def construct(self, x:
                return x
        """)
    args = {"compile": ["compile", str(bad), "-o", str(tmp_path / "art")],
            "ir": ["ir", str(bad)], "run": ["run", "-n", "2", str(bad)]}[command]
    proc = run_msc(*args)
    lines = assert_one_error(proc, f"ModelSyntaxError: {bad}:4:18: '(' was never closed",
                             "def construct(self, x:")
    assert len(lines) == 3 and lines[2].index("^") == lines[1].index("(")
    assert sorted(os.listdir(tmp_path)) == ["bad.py"]


def test_a_syntax_error_in_a_file_the_model_imports_names_that_file(tmp_path):
    write(tmp_path, "helpers.py", "def scale(x):\n    return x *\n")
    model = write(tmp_path, "model.py", "import helpers\n")
    proc = run_msc("ir", str(model))
    assert_one_error(proc, f"ModelSyntaxError: {tmp_path / 'helpers.py'}:2:15: invalid syntax",
                     "return x *")


def test_an_exception_while_the_model_is_imported_names_the_users_line(tmp_path):
    """The innermost line of the user's own code, not msc's or importlib's frames."""
    boom = write(tmp_path, "boom.py", """\
        import numpy as np

        def load_table():
            return np.load("missing-table.npy")

        TABLE = load_table()
        """)
    proc = run_msc("compile", str(boom), "-o", str(tmp_path / "art"))
    assert_one_error(proc, f"ModelCodeError: {boom}:4:12: importing boom.py raised "
                           "FileNotFoundError: [Errno 2] No such file or directory: "
                           "'missing-table.npy'", 'return np.load("missing-table.npy")')
    assert "/msc/" not in proc.stderr and not (tmp_path / "art").exists()


def test_an_msc_error_while_the_model_is_imported_gains_the_users_line(tmp_path):
    model = write(tmp_path, "model.py", """\
        import numpy as np
        import msc as ms
        from msc import ops

        x = ops.reshape(ms.Tensor(np.zeros(6, np.float32)), (4,))
        """)
    proc = run_msc("ir", str(model))
    assert_one_error(proc, f"ShapeError: {model}:5:5: For 'Reshape', cannot reshape a tensor "
                           "of shape (6,) (6 elements) into shape (4,) (4 elements) (inputs: "
                           "<Tensor[Float32], (6)>)",
                     "x = ops.reshape(ms.Tensor(np.zeros(6, np.float32)), (4,))")


def test_a_folder_or_another_kind_of_file_given_as_the_model_is_named_so(tmp_path):
    proc = run_msc("compile", str(tmp_path), "-o", str(tmp_path / "art"))
    assert proc.returncode == 2
    assert proc.stderr == (f"msc: error: {tmp_path} is a directory: give the Python file "
                           "that defines the model\n")
    notes = write(tmp_path, "model.txt", MODEL)
    proc = run_msc("ir", str(notes), "net", "--input", "f32[2]")
    assert proc.returncode == 2
    assert proc.stderr == (f"msc: error: {notes} is not a Python file: the model file's "
                           "name ends in .py\n")


# --- ENTRY ---------------------------------------------------------------------------------


def test_a_cell_instance_is_an_entry_as_it_is(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    proc = run_msc("ir", str(model), "net", "--input", "f32[2,8,6,6]", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "# IR entry: @Block_construct" in proc.stdout and "ReLU(" in proc.stdout
    out = tmp_path / "art"
    proc = run_msc("compile", str(model), "net", "--input", "f32[2,3]", "--target", "python",
                   "-o", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(load_artifact(out).forward(x), np.maximum(x, 0) * 2)


def test_a_factory_that_raises_names_the_users_line(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    proc = run_msc("ir", str(model), "broken_factory", "--input", "f32[2]")
    assert_one_error(proc, f"ModelCodeError: {model}:27:5: calling 'broken_factory' (the "
                           "ENTRY) raised RuntimeError: no weights for this size",
                     'raise RuntimeError("no weights for this size")')


def test_a_cell_class_that_needs_arguments_names_its_definition(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    proc = run_msc("ir", str(model), "Scaled", "--input", "f32[2]")
    lines = assert_one_error(
        proc, f"ModelCodeError: {model}:10:1: constructing the Cell class 'Scaled' (the "
              "ENTRY) raised TypeError: Scaled.__init__() missing 1 required positional "
              "argument: 'factor'", "class Scaled(nn.Cell):")
    assert lines[3] == ("note: msc constructs a Cell class with no arguments: for others, "
                        "name a Cell instance or a function that returns the Cell")
    proc = run_msc("ir", str(model), "make_scaled", "--input", "f32[2]", "--quiet")
    assert proc.returncode == 0 and "Mul(" in proc.stdout, proc.stderr


def test_a_factory_that_returns_no_cell_is_a_usage_error(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    proc = run_msc("ir", str(model), "not_a_cell", "--input", "f32[2]")
    assert proc.returncode == 2
    assert proc.stderr == ("msc: error: 'not_a_cell' returned int, not a Cell: ENTRY must "
                           "name a Cell class, a Cell instance, a function that returns a "
                           "Cell, or a @jit function\n")


def test_a_wrong_entry_lists_the_entries_there(tmp_path):
    model = write(tmp_path, "model.py", MODEL + "\n@ms.jit\ndef double(x):\n    return x * 2\n")
    proc = run_msc("compile", str(model), "nett", "-o", str(tmp_path / "art"))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"msc: error: {model} has no 'nett' (did you mean 'net'?); entries there: "
        "Block (Cell class), Scaled (Cell class), net (Cell instance), make_scaled "
        "(function), broken_factory (function), not_a_cell (function), double "
        "(@jit function)\n")
    assert not (tmp_path / "art").exists()


# --- Ctrl-C --------------------------------------------------------------------------------


def _as_a_shell_starts_it() -> None:
    """Ctrl-C's disposition in the child as a terminal's shell gives it (default, not
    blocked), whatever a test run before left in this process: Python installs its
    KeyboardInterrupt handler only where SIGINT is not ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "msc", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=_as_a_shell_starts_it)


def test_ctrl_c_while_the_model_is_imported_is_one_line(tmp_path):
    """The model announces itself with a file and then waits (for a file that never
    comes), so the signal lands while the user's code runs, whatever the timing."""
    ready = tmp_path / "ready"
    model = write(tmp_path, "slow.py", f"""\
        import os, time
        open({str(ready)!r}, "w").close()
        for _ in range(6000):  # at most a minute: the test never hangs
            time.sleep(0.01)
        raise SystemExit("not interrupted")
        """)
    proc = start("compile", str(model), "-o", str(tmp_path / "art"))
    try:
        for _ in range(6000):
            if ready.exists() or proc.poll() is not None:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert (proc.returncode, stderr) == (130, "msc: interrupted\n")
    assert sorted(set(os.listdir(tmp_path)) - {"__pycache__"}) == ["ready", "slow.py"]


def test_ctrl_c_during_a_compile_leaves_a_whole_artifact_or_none(tmp_path, monkeypatch):
    """SIGINT once the compile has started (Numba's compile of fresh kernels, most often):
    an interrupted compile says one line and leaves no folder and no debris; one that
    finished first left a whole artifact. Either verdict holds, whatever the timing."""
    monkeypatch.setenv("MSC_KERNEL_CACHE_PATH", str(tmp_path / "library"))
    out = tmp_path / "art"
    proc = start("compile", "examples/mlp.py", "--input", "f32[32,64]", "--no-cache",
                 "-o", str(out))
    try:
        seen = ""
        while "numba: compiling" not in seen and "artifact:" not in seen:
            char = proc.stdout.read(1)
            if not char:
                break
            seen += char
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=600)
    finally:
        proc.kill()
    assert proc.returncode in (0, 130), stderr
    left = sorted(p for p in os.listdir(tmp_path) if p != "library")
    if proc.returncode == 130:
        assert stderr == "msc: interrupted\n" and left == []
    else:
        assert left == ["art"] and verify_artifact(out) == []


# --- calling an artifact -------------------------------------------------------------------


def test_an_artifact_takes_nested_lists_as_one_input_and_says_what_it_expects(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    out = tmp_path / "art"
    proc = run_msc("compile", str(model), "net", "--input", "f32[2,3]", "--target",
                   "python", "-o", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    forward = load_artifact(out).forward
    got = forward([[-1.0, 2.0, -3.0], [4, -5, 6]])  # ints too: float32, of the same kind
    np.testing.assert_array_equal(got, np.array([[0, 4, 0], [8, 0, 12]], np.float32))
    with pytest.raises(TypeError, match=r"^forward\(\) takes 1 input array \(x: "
                                        r"float32\[2,3\]\), but 2 were given$"):
        forward([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"input 'x' must have shape \(2, 3\), but has "
                                         r"\(2, 2\)"):
        forward([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError, match="input 'x' must have dtype float32, but has "
                                        "complex128"):
        forward([[1j, 2, 3], [4, 5, 6]])


# --- several ranks -------------------------------------------------------------------------


def test_under_a_launcher_only_rank_0_reports_and_writes(tmp_path):
    """The launcher's rank variables (Open MPI's, MPICH's) are read without MPI: a model
    that builds nothing together is compiled into the folder by rank 0 alone."""
    model = write(tmp_path, "model.py", MODEL)
    args = ("compile", str(model), "net", "--input", "f32[2,3]", "--target", "python")
    for variable in ("OMPI_COMM_WORLD_RANK", "PMI_RANK"):
        other = run_msc(*args, "-o", str(tmp_path / "other"),
                        env={**os.environ, variable: "1"})
        assert (other.returncode, other.stdout, other.stderr) == (0, "", "")
        assert not (tmp_path / "other").exists()
        first = run_msc(*args, "-o", str(tmp_path / "first"),
                        env={**os.environ, variable: "0"})
        assert first.returncode == 0 and first.stdout.startswith("msc compile: net from ")
        assert verify_artifact(tmp_path / "first") == []


def test_mpiexec_compile_prints_one_report(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    proc = launch(["-m", "msc", "compile", model, "net", "--input", "f32[2,3]", "--target",
                   "python", "-o", tmp_path / "art", "--no-cache"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("msc compile: net from") == 1, proc.stdout
    assert proc.stdout.count("artifact: ") == 1 and verify_artifact(tmp_path / "art") == []


def test_the_run_step_example_of_the_distributed_docs_runs(tmp_path):
    """docs/distributed.md's commands: the data-parallel step compiled on 2 ranks (which
    build it together: one report, rank 0's), then run by examples/run_step.py on 2."""
    compiled = launch(["-m", "msc", "compile", ROOT / "examples" / "train_data_parallel.py",
                       "train_step", "--input", "f32[32,16]", "--input", "i32[32]",
                       "--target", "python", "-o", tmp_path / "dp_step", "--no-cache"],
                      cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    assert compiled.stdout.count("msc compile: train_step from") == 1  # rank 0's report
    proc = launch([ROOT / "examples" / "run_step.py", tmp_path / "dp_step", "--steps", "6"],
                  cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    losses = [float(line.split()[-1]) for line in lines if line.startswith("step ")]
    assert len(losses) == 2 and losses[1] < losses[0]
    assert lines[-1] == "2 ranks hold the same weights"
    assert json.loads((tmp_path / "dp_step" / "manifest.json").read_text())["entry"]


# --- msc --help ----------------------------------------------------------------------------


def test_help_lists_every_command_without_markup():
    proc = run_msc("--help")
    assert proc.returncode == 0 and "`" not in proc.stdout
    commands = re.search(r"\{([a-z,]+)\}", proc.stdout)[1].split(",")
    assert sorted(commands) == ["cache", "compile", "ir", "run"]
    assert "msc compile, msc ir, msc run and msc cache" in proc.stdout
    for name in commands:
        assert re.search(rf"^    {name} +\w", proc.stdout, re.M), proc.stdout
        sub = run_msc(name, "--help")
        assert sub.returncode == 0 and "`" not in sub.stdout, sub.stdout

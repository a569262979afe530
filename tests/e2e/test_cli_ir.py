"""`msc ir` end to end, in a real subprocess, and IR dumps through the context."""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np

import msc as ms

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_msc(*args, env=None):
    return subprocess.run([sys.executable, "-m", "msc", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **(env or {})}, timeout=120)


def report_rows(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(\w+)\s+(-|\d+)\s+(\d+)\s+[\d.]+$", line)
        if m:
            rows[m.group(1)] = (m.group(2), int(m.group(3)))
    return rows


def test_msc_ir_on_the_mlp_example_shows_passes_shrinking_the_graph():
    proc = run_msc("ir", "examples/mlp.py", "--input", "f32[32,64]")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "# IR entry: @MLP_construct" in out
    assert "%para1_x : <Tensor[Float32], (32, 64)>" in out
    assert "%para2_fc1.weight : <Ref[Tensor[Float32]], (128, 64)>  :  has_default" in out
    body = out[out.index("subgraph @MLP_construct"):out.index("Return(")]
    assert body.count("ReLU(") == 1          # CSE merged the repeated relu
    assert "Exp(" not in body                # DCE dropped the unused exp
    rows = report_rows(out)
    parsed = rows["parse"][1]
    assert rows["const_fold"][1] < parsed
    assert rows["cse"][1] < rows["const_fold"][1]
    assert rows["dce"][1] < rows["cse"][1]
    printed = len(re.findall(r"^  %\d+ = ", body, re.M))
    assert printed == rows["dce"][1]


def test_msc_ir_usage_errors_exit_2():
    proc = run_msc("ir", "examples/mlp.py", "--input", "f32[32,x]")
    assert proc.returncode == 2 and "bad --input" in proc.stderr
    proc = run_msc("ir", "examples/does_not_exist.py")
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_save_graphs_dumps_ir_after_every_pass(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))

    @ms.jit
    def f(x):
        return ms.ops.relu(x) + ms.ops.relu(x)

    f(ms.Tensor(np.ones(3, np.float32)))
    names = sorted(p.name for p in (tmp_path / "f").glob("*.ir"))
    assert names[:7] == ["00_parse.ir", "01_inline.ir", "02_const_fold.ir", "03_if_to_select.ir",
                         "04_cse.ir", "05_sink_slices.ir", "06_dce.ir"]
    parse = next(tmp_path.rglob("00_parse.ir")).read_text()
    final = next(tmp_path.rglob("06_dce.ir")).read_text()
    assert parse.count("ReLU(") == 2 and final.count("ReLU(") == 1


def test_msc_save_graphs_environment_variable(tmp_path):
    proc = run_msc("ir", "examples/mlp.py", "--input", "f32[4,64]", "--quiet",
                   env={"MSC_SAVE_GRAPHS": "1", "MSC_SAVE_GRAPHS_PATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "MLP_construct" / "06_dce.ir").is_file()

"""Eager transforms (``ops.grad``, ``value_and_grad``, ``vmap``...), lambdas and wrapper Cells
in the compile cache.

Each compiles through one generic entry function, so the cache's key must name the
transform, its settings and the function transformed: two of them on the same inputs
must not share an entry. Every test runs real subprocesses sharing one cache folder, the
second one computing a different transform than the first, and checks each result
against numpy; running a script again must still hit (the cache is not merely off).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

HEAD = '''
import json, os, sys
import numpy as np
import msc as ms
from msc import nn, ops

ms.set_context(jit_target="python", enable_compile_cache=True,
               compile_cache_path=os.environ["CACHE"])
x = ms.Tensor(np.array([0.3, 0.5, 0.9], np.float32))
y = ms.Tensor(np.array([1.1, -0.4, 0.7], np.float32))
m = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)


def compiled_of(transform):
    """The compile of an eager transform (its per-scope ``@jit`` function's)."""
    return next(iter(transform._compiled[None].cache.entries.values()))


def report(transform, out):
    flat = [np.asarray(t.asnumpy()).tolist() for t in
            (out if isinstance(out, tuple) else (out,))]
    c = compiled_of(transform)
    print(json.dumps({"out": flat, "cache": c.cache, "why": c.cache_why}))
'''

SCRIPT = HEAD + '''

def f(a, b):
    return ops.sin(a) * ops.cos(b)


def row_scaled(v):
    return v * v.sum()


case = sys.argv[1]
if case == "grad0":
    t = ops.grad(f, 0)
    report(t, t(x, y))
elif case == "grad1":
    t = ops.grad(f, 1)
    report(t, t(x, y))
elif case == "value_and_grad":
    t = ops.value_and_grad(f, 0)
    value, g = t(x, y)
    report(t, (value, g))
elif case.startswith("vmap"):
    t = ops.vmap(row_scaled, in_axes=int(case[-1]))
    report(t, t(m))
'''

OTHER_F = HEAD + '''

def f(a, b):
    return BODY


t = ops.grad(f, 0)
report(t, t(x, y))
'''

CELLS = HEAD + '''

class Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 3.0

    def construct(self, v):
        return v * self.k


class Shifted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 3.0

    def construct(self, v):
        return v + self.k


class Weighted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w1 = ms.Parameter(ms.Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="w1")
        self.w2 = ms.Parameter(ms.Tensor(np.array([-1.0, 0.5, 1.5], np.float32)), name="w2")

    def construct(self, v):
        return (v * self.w1 * self.w1 + v * self.w2).sum()


case = sys.argv[1]
if case in ("scaled", "shifted"):
    net = nn.WithLossCell(Scaled() if case == "scaled" else Shifted(), nn.MSELoss())
    t = ops.grad(net, 0)
    report(t, t(x, y))
else:
    net = Weighted()
    t = ops.grad(net, None, [getattr(net, case)])
    report(t, t(x))
'''


def run(folder: Path, script: str, *args: str) -> dict:
    """One fresh process running ``script`` in ``folder`` with the shared cache."""
    env = {**os.environ, "CACHE": str(folder / "cache")}
    proc = subprocess.run([sys.executable, script, *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


X = np.array([0.3, 0.5, 0.9], np.float32)
Y = np.array([1.1, -0.4, 0.7], np.float32)
M = np.arange(12, dtype=np.float32).reshape(3, 4) / 10


def close(got: list, want: np.ndarray) -> bool:
    got = np.asarray(got, np.float32)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-5, atol=1e-6))


def write(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(textwrap.dedent(text))
    return name


def test_grad_by_position_0_and_1_are_two_entries(tmp_path):
    script = write(tmp_path, "model.py", SCRIPT)
    first = run(tmp_path, script, "grad0")
    second = run(tmp_path, script, "grad1")
    assert close(first["out"][0], np.cos(X) * np.cos(Y))
    assert close(second["out"][0], -np.sin(X) * np.sin(Y)), second
    assert second["cache"] == "miss"
    again = run(tmp_path, script, "grad0")
    assert again["cache"] == "hit" and close(again["out"][0], np.cos(X) * np.cos(Y))


def test_grad_and_value_and_grad_are_two_entries(tmp_path):
    script = write(tmp_path, "model.py", SCRIPT)
    run(tmp_path, script, "grad0")
    both = run(tmp_path, script, "value_and_grad")
    assert len(both["out"]) == 2, both
    assert close(both["out"][0], np.sin(X) * np.cos(Y))
    assert close(both["out"][1], np.cos(X) * np.cos(Y))
    assert run(tmp_path, script, "value_and_grad")["cache"] == "hit"


def test_vmap_over_axis_0_and_axis_1_are_two_entries(tmp_path):
    script = write(tmp_path, "model.py", SCRIPT)
    rows = run(tmp_path, script, "vmap0")
    cols = run(tmp_path, script, "vmap1")
    assert close(rows["out"][0], M * M.sum(axis=1, keepdims=True))
    assert close(cols["out"][0], (M * M.sum(axis=0, keepdims=True)).T), cols
    assert run(tmp_path, script, "vmap1")["cache"] == "hit"


def test_same_named_functions_of_two_scripts_are_two_entries(tmp_path):
    a = write(tmp_path, "a.py", OTHER_F.replace("BODY", "ops.sin(a) * ops.cos(b)"))
    b = write(tmp_path, "b.py", OTHER_F.replace("BODY", "ops.cos(a) * ops.sin(b)"))
    first = run(tmp_path, a)
    second = run(tmp_path, b)
    assert close(first["out"][0], np.cos(X) * np.cos(Y))
    assert close(second["out"][0], -np.sin(X) * np.sin(Y)), second
    assert run(tmp_path, b)["cache"] == "hit"


def test_a_wrapper_cell_around_two_classes_is_two_entries(tmp_path):
    """``WithLossCell``'s own code calls its backbone: the backbone's class is named."""
    script = write(tmp_path, "cells.py", CELLS)
    scaled = run(tmp_path, script, "scaled")
    shifted = run(tmp_path, script, "shifted")
    n = X.size
    assert close(scaled["out"][0], 2 * (3 * X - Y) * 3 / n)
    assert close(shifted["out"][0], 2 * (X + 3 - Y) / n), shifted
    assert run(tmp_path, script, "shifted")["cache"] == "hit"


def test_gradients_of_two_weights_are_two_entries(tmp_path):
    script = write(tmp_path, "cells.py", CELLS)
    w1 = np.array([2.0, 3.0, 4.0], np.float32)
    first = run(tmp_path, script, "w1")
    second = run(tmp_path, script, "w2")
    assert close(first["out"][0], 2 * X * w1)
    assert close(second["out"][0], X), second
    again = run(tmp_path, script, "w2")
    assert again["cache"] == "hit" and close(again["out"][0], X)


GRAPH = HEAD.replace('jit_target="python"', 'mode=ms.GRAPH_MODE, jit_target="python"') + '''

fs = [ms.jit(lambda v: v + 1.0), ms.jit(lambda v: v * 10.0)]


class Scaled(nn.Cell):
    def construct(self, v):
        return v * 3.0


class Shifted(nn.Cell):
    def construct(self, v):
        return v + 3.0


case = sys.argv[1]
if case.startswith("lambda"):
    f = fs[int(case[-1])]
    out = f(x)
    c = next(iter(f.cache.entries.values()))
else:
    net = nn.WithLossCell(Scaled() if case == "scaled" else Shifted(), nn.MSELoss())
    out = net(x, y)
    c = next(iter(net._msc_cache.entries.values())) if hasattr(net, "_msc_cache") else None
print(json.dumps({"out": [np.asarray(out.asnumpy()).tolist()],
                  "cache": getattr(c, "cache", None)}))
'''


def test_two_jit_lambdas_of_one_line_are_two_entries(tmp_path):
    """A plain ``@jit`` function's key holds its code: two lambdas of one line (one
    name, one file) returned the first one's result in a second process."""
    script = write(tmp_path, "graph.py", GRAPH)
    first = run(tmp_path, script, "lambda0")
    second = run(tmp_path, script, "lambda1")
    assert close(first["out"][0], X + 1)
    assert close(second["out"][0], X * 10), second
    assert run(tmp_path, script, "lambda1")["cache"] == "hit"


def test_a_graph_mode_wrapper_around_two_classes_is_two_entries(tmp_path):
    """A Cell's key holds its sub-cells' classes: ``WithLossCell`` around two networks of
    equal attributes shared one entry in graph mode."""
    script = write(tmp_path, "graph.py", GRAPH)
    scaled = run(tmp_path, script, "scaled")
    shifted = run(tmp_path, script, "shifted")
    assert close(scaled["out"][0], np.mean((3 * X - Y) ** 2))
    assert close(shifted["out"][0], np.mean((X + 3 - Y) ** 2)), shifted

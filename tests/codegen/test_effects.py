"""The side-effect ops through both code generators and the interpreter, and through an
artifact run in a fresh process: its weights update in place, its prints come from the
generated code, and neither the build nor the run changes the weights file."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.codegen.artifact import verify_artifact
from msc.compiler import arg_spec, compile_entry
from msc.ir.interpret import interpret
from msc.ir.nodes import iter_nodes
from tests.codegen.cases import EFFECTS


class EveryEffect(nn.Cell):
    """Loads, the three writes, Depend, Print, and (at level 0) a TensorMove per Load."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), name="w")
        self.n = Parameter(Tensor(np.array(5, np.int64)), name="n")

    def construct(self, x):  # type: ignore[no-untyped-def]
        before = self.w * 1
        ops.assign(self.w, x)
        ops.assign_add(self.w, before)
        ops.assign_sub(self.n, 2)
        shown = ops.depend(self.w + self.n, ops.Print()("w", self.w))
        return before, shown


WANT_PRINT = "w\nTensor(shape=[2, 2], dtype=Float32, value=\n[[11. 22.]\n [33. 44.]])\n"


@pytest.mark.parametrize("target", ["python", "numba"])
def test_every_effect_op_agrees_with_the_interpreter_and_eager(target: str, capfd) -> None:
    ms.set_context(side_effect_load_elim=0)
    x = np.array([[10.0, 20.0], [30.0, 40.0]], np.float32)
    net = EveryEffect()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target=target)
    assert EFFECTS <= {n.op.name for n in iter_nodes(compiled.module)}
    got = [t.asnumpy() for t in compiled.run([Tensor(x)])]
    assert capfd.readouterr().out == WANT_PRINT
    weights = [np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), np.array(5, np.int64)]
    want = interpret(compiled.module, [x], weights)
    assert capfd.readouterr().out == WANT_PRINT
    eager_net = EveryEffect()
    eager = [t.asnumpy() for t in eager_net(Tensor(x))]
    for g, w, e in zip(got, want, eager):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype
    np.testing.assert_array_equal(got[1], [[14.0, 25.0], [36.0, 47.0]])
    for p, w, e in zip((net.w, net.n), weights, (eager_net.w, eager_net.n)):
        np.testing.assert_array_equal(p.asnumpy(), w)  # the interpreter wrote its copies
        np.testing.assert_array_equal(p.asnumpy(), e.asnumpy())


MODEL = '''
import numpy as np
from msc import nn, ops, Tensor, Parameter


class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.calls = Parameter(Tensor(np.array(0, np.int32)), name="calls")
        self.mean = Parameter(Tensor(np.zeros(3, np.float32)), name="mean")

    def construct(self, x):
        ops.assign_add(self.calls, 1)
        old = self.mean * 1
        ops.assign(self.mean, old * 0.5 + x * 0.5)
        ops.print_("call", self.calls)
        return old
'''

RUN = '''
import importlib.util, sys
import numpy as np

path = sys.argv[1]
spec = importlib.util.spec_from_file_location("Stateful_construct", path)
m = importlib.util.module_from_spec(spec)
sys.modules["Stateful_construct"] = m
spec.loader.exec_module(m)
for k in range(3):
    print("out", m.forward(np.full(3, 2.0 ** k, np.float32)).tolist())
calls, mean = m.load_weights()
print("weights", int(calls), mean.tolist())
'''


@pytest.mark.parametrize("target", ["numba", "python"])
def test_an_artifact_updates_its_weights_in_place_and_prints(target: str, tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    root = Path(__file__).resolve().parents[2]
    build = subprocess.run([sys.executable, "-m", "msc", "compile", "model.py", "Stateful",
                            "--input", "f32[3]", "-o", "art", "--target", target, "--no-cache"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300,
                           env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert build.returncode == 0, build.stderr
    assert "call" not in build.stdout.replace("msc compile", "")  # the warm-up is silent
    weights_file = tmp_path / "art" / "weights.npz"
    digest = hashlib.sha256(weights_file.read_bytes()).hexdigest()
    (tmp_path / "run.py").write_text(textwrap.dedent(RUN))
    run = subprocess.run([sys.executable, "run.py", str(tmp_path / "art" / "Stateful_construct.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    means = [np.zeros(3)]
    for k in range(3):
        means.append(means[-1] * 0.5 + 2.0 ** k * 0.5)
    want = []
    for k in range(3):
        want += ["call", f"Tensor(shape=[], dtype=Int32, value={k + 1})",
                 f"out {means[k].tolist()}"]
    want.append(f"weights 3 {means[3].tolist()}")
    assert run.stdout.splitlines() == want
    assert hashlib.sha256(weights_file.read_bytes()).hexdigest() == digest
    assert verify_artifact(tmp_path / "art") == []


class InPlace(nn.Cell):
    """Writes whose value an elementwise loop can store straight into the weight, and one
    (a transposed read) that it must not."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.arange(4, dtype=np.float32)), name="w")
        self.m = Parameter(Tensor(np.arange(4, dtype=np.float32).reshape(2, 2)), name="m")

    def construct(self, x):  # type: ignore[no-untyped-def]
        new = x * 2.0  # computed before the weight is read in the same loop
        old = self.w * 3.0
        ops.assign(self.w, new)
        ops.assign(self.m, self.m.T * 2.0 + 1.0)
        return old + x


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_fused_loop_stores_an_assigned_value_into_the_weight(level: int) -> None:
    ms.set_context(side_effect_load_elim=level)
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    net = InPlace()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target="numba")
    out = compiled.run([Tensor(x)]).asnumpy()
    eager = InPlace()
    np.testing.assert_allclose(out, eager(Tensor(x)).asnumpy())
    np.testing.assert_allclose(out, np.arange(4) * 3.0 + x)
    np.testing.assert_allclose(net.w.asnumpy(), x * 2)
    np.testing.assert_allclose(net.m.asnumpy(), np.arange(4).reshape(2, 2).T * 2.0 + 1.0)
    lines = compiled.spec.kernel.lines
    assert any(line.strip().startswith("w[i0") for line in lines)  # stored in the loop
    assert not any(line.startswith("w[...]") for line in lines)
    # m.T is not read in order: a copy of it, then loops (no slice assignment, whose
    # shape-mismatch message Numba compiles for seconds)
    assert not any(line.startswith("m[...]") for line in lines)
    flat = next(line.split(" = ")[0] for line in lines if line.endswith(" = m.reshape((4,))"))
    assert any(re.match(rf"\s*{flat}\[\w+\] = np.float32\(\w+_new\[", line)
               for line in lines), lines  # one loop over its elements, at any rank


class Accumulate(nn.Cell):
    """AssignAdd and AssignSub of values of the weight's shape: a step count (int32, a
    read-only constant), the weight itself, and its transpose (read before any write)."""

    def __init__(self) -> None:
        super().__init__()
        self.step = Parameter(Tensor(np.array([7], np.int32)), name="step")
        self.one = Tensor(np.array([1], np.int32))
        self.m = Parameter(Tensor(np.arange(9, dtype=np.float32).reshape(3, 3)), name="m")
        self.n = Parameter(Tensor(np.arange(9, dtype=np.float32).reshape(3, 3)), name="n")
        self.k = Parameter(Tensor(np.zeros(3, np.float32)), name="k")

    def construct(self, x):  # type: ignore[no-untyped-def]
        ops.assign_add(self.step, self.one)
        ops.assign_add(self.m, self.m)
        ops.assign_sub(self.n, self.n.T)
        ops.assign(self.k, x)
        return x + 1.0


@pytest.mark.parametrize("outlined", [False, True])
def test_accumulating_writes_of_the_weights_shape_are_one_loop(outlined, monkeypatch) -> None:
    """One loop over the elements; in an outlined driver, numpy's copy or ufunc in place
    (the same values, no kernel to compile)."""
    from msc.codegen import outline

    if outlined:
        monkeypatch.setattr(outline, "OUTLINE_LINES", 0)
    x = np.arange(3, dtype=np.float32) - 1
    net = Accumulate()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target="numba")
    compiled.run([Tensor(x)])
    eager = Accumulate()
    eager(Tensor(x))
    start = np.arange(9, dtype=np.float32).reshape(3, 3)
    for got, want, numpy in ((net.step, eager.step, [8]), (net.m, eager.m, start * 2),
                             (net.n, eager.n, start - start.T), (net.k, eager.k, x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
        np.testing.assert_array_equal(got.asnumpy(), numpy)
    assert net.step.asnumpy().dtype == np.int32
    lines = "\n".join(compiled.spec.kernel.lines)
    assert ".astype(" not in lines  # no array expression: loops over the elements
    if outlined:
        assert re.search(r"np\.add\((\w+_flat), \w+_new, out=\1\)", lines), lines
        assert re.search(r"np\.subtract\((\w+_flat), \w+_new, out=\1\)", lines), lines
        assert re.search(r"np\.copyto\(\w+_flat, \w+_new\)", lines), lines
        return
    # (the renderer parenthesizes every operation: np.int32((a + b)))
    assert re.search(r"\w+_flat\[\w+\] = np\.int32\(\(?\w+_flat\[\w+\] \+ \w+_new\[", lines), lines
    assert re.search(r"\w+_flat\[\w+\] = np\.float32\(\(?\w+_flat\[\w+\] - \w+_new\[", lines), lines


class ReadBetween(nn.Cell):
    """The assigned value's loop ends before a matmul that still reads the old weight."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.arange(4, dtype=np.float32).reshape(2, 2)), name="w")

    def construct(self, x):  # type: ignore[no-untyped-def]
        new = x * 2.0
        y = ops.matmul(x, self.w)
        ops.assign(self.w, new)
        return y


@pytest.mark.parametrize("level", [1, 3])
def test_a_read_between_the_value_and_its_write_sees_the_old_weight(level: int) -> None:
    ms.set_context(side_effect_load_elim=level)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    net = ReadBetween()
    out = compile_entry(net, [arg_spec(x)], store=None, target="numba").run([Tensor(x)])
    np.testing.assert_allclose(out.asnumpy(), x @ np.arange(4).reshape(2, 2))
    np.testing.assert_allclose(net.w.asnumpy(), x * 2)


class ReadAfter(nn.Cell):
    """A value assigned to a weight and read afterwards: Momentum's new moment, which the
    parameter's update reads (from the moment itself); then the forms that must not read
    the weight instead: the weight written again before the read, the value added to the
    weight, and the value returned."""

    def __init__(self, form: str) -> None:
        super().__init__()
        self.form = form
        self.m = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="m")
        self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

    def construct(self, g):  # type: ignore[no-untyped-def]
        v = self.m * 0.9 + g
        if self.form in ("late", "depend"):  # the second op reads the old moment
            v = g * 0.9 + (ops.depend(self.m, g) if self.form == "depend" else self.m)
        if self.form == "add":
            ops.assign_add(self.m, v)
        else:
            ops.assign(self.m, v)
        if self.form == "again":
            ops.assign(self.m, g * 0.0)
        ops.assign(self.w, self.w - v * 0.1)
        return v if self.form == "returned" else g + 1.0


@pytest.mark.parametrize("outlined", [False, True])
@pytest.mark.parametrize("form", ["momentum", "late", "depend", "again", "add", "returned"])
def test_a_value_read_after_its_write_is_read_from_the_weight(form: str, outlined: bool,
                                                              monkeypatch: Any) -> None:
    """Outlined, a chain of two ops into the moment is numpy's two calls in the driver,
    unless the second reads the moment ("late", "depend"): the first call overwrote it."""
    from msc.codegen import outline

    if outlined:
        monkeypatch.setattr(outline, "OUTLINE_LINES", 0)
    g = np.array([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]], np.float32)
    net, eager = ReadAfter(form), ReadAfter(form)
    compiled = compile_entry(net, [arg_spec(g)], store=None, target="numba")
    for _ in range(2):
        out = compiled.run([Tensor(g)]).asnumpy()
        np.testing.assert_array_equal(out, eager(Tensor(g)).asnumpy())
    m, w = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)
    for _ in range(2):  # numpy, independently
        v = g * np.float32(0.9) + m if form in ("late", "depend") else m * np.float32(0.9) + g
        m = m + v if form == "add" else g * np.float32(0.0) if form == "again" else v
        w = w - v * np.float32(0.1)
    for got, want, numpy in ((net.m, eager.m, m), (net.w, eager.w, w)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
        np.testing.assert_allclose(got.asnumpy(), numpy, rtol=1e-6)
    lines = "\n".join(compiled.spec.kernel.lines)  # the moment stored by its own loop, or
    assert ("_new" in lines) == (form not in ("momentum", "late", "depend")), lines
    if outlined:
        chain = re.search(r"np\.multiply\(m, np\.float32\(0\.9\), out=m\)\n\s*np\.add\(m, g",
                          lines)
        assert (chain is not None) == (form == "momentum"), lines


CACHED = '''
import sys
import numpy as np
import msc as ms
from msc import nn, ops, Tensor, Parameter
from msc.compiler import COUNTERS

ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=sys.argv[1])


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.steps = Parameter(Tensor(np.array(0, np.int32)), name="steps")

    def construct(self, x):
        ops.assign_add(self.steps, 1)
        ops.print_("step", self.steps)
        return x * self.steps


net = Net()
for _ in range(2):
    print("out", net(Tensor(np.ones(2, np.float32))).asnumpy().tolist())
print("compiles", COUNTERS["codegen"])
'''


def test_prints_and_writes_of_a_cached_entry_on_a_miss_and_on_a_hit(tmp_path: Path) -> None:
    """The compile cache's warm-up run on a miss silences its own prints only."""
    (tmp_path / "model.py").write_text(CACHED)
    want = ["step", "Tensor(shape=[], dtype=Int32, value=1)", "out [1.0, 1.0]",
            "step", "Tensor(shape=[], dtype=Int32, value=2)", "out [2.0, 2.0]"]
    for compiles in (1, 0):  # a miss, then a hit in a new process
        run = subprocess.run([sys.executable, "model.py", str(tmp_path / "cache")],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines() == want + [f"compiles {compiles}"]


class Step(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.p = Parameter(Tensor(np.arange(4, dtype=np.float32)), name="p")
        self.q = Parameter(Tensor(np.arange(4, dtype=np.int32)), name="q")

    def construct(self, g):  # type: ignore[no-untyped-def]
        ops.assign_sub(self.p, g * 0.5)
        ops.assign_add(self.q, g.astype(ms.int32) * 2)
        return self.p * 1


def test_a_fused_loop_adds_to_and_subtracts_from_a_weight_in_place() -> None:
    g = np.array([1.0, 2.0, -1.0, 4.0], np.float32)
    net = Step()
    compiled = compile_entry(net, [arg_spec(g)], store=None, target="numba")
    for k in (1, 2):
        np.testing.assert_allclose(compiled.run([Tensor(g)]).asnumpy(), np.arange(4) - k * g / 2)
        np.testing.assert_array_equal(net.q.asnumpy(), np.arange(4) + k * 2 * g.astype(np.int32))
    lines = [line.strip() for line in compiled.spec.kernel.lines]
    assert any(line.startswith("p[i0") and "= np.float32((p[i0" in line and " - " in line
               for line in lines)
    assert any(line.startswith("q[i0") and " + " in line for line in lines)
    assert not any(line.startswith(("p[...]", "q[...]")) for line in lines)


class Momentum(nn.Cell):
    """A momentum update of 3-D weights from whole arrays."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), name="w")
        self.v = Parameter(Tensor(np.zeros((2, 3, 4), np.float32)), name="v")

    def construct(self, g):  # type: ignore[no-untyped-def]
        ops.assign(self.v, self.v * 0.9 + g)
        ops.assign_sub(self.w, self.v * 0.1)
        return self.w * 1


def test_a_merged_loop_updates_a_weight_through_a_view_of_its_arena() -> None:
    """The loops of an update over whole arrays merge into one (``fusion.merged_axes``)
    and store into a reshaped view of the weight, which is a slice of its arena."""
    g = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)
    net = Momentum()
    compiled = compile_entry(net, [arg_spec(g)], store=None, target="numba")
    w, v = np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.zeros_like(g)
    for _ in range(3):
        v = v * np.float32(0.9) + g
        w = w - v * np.float32(0.1)
        np.testing.assert_allclose(compiled.run([Tensor(g)]).asnumpy(), w, rtol=1e-6)
    np.testing.assert_allclose(net.v.asnumpy(), v, rtol=1e-6)
    lines = [line.strip() for line in compiled.spec.kernel.lines]
    assert "for i0 in range(24):" in lines, lines
    views = {line.split(" = ")[0] for line in lines if re.match(r"\w+ = [wv]\.reshape", line)}
    stores = [x for x in lines if re.match(r"(\w+)\[i0\w*\] = ", x) and x.split("[")[0] in views]
    assert len(stores) == 2, lines  # v's, then w's (subtracting in place)


class Moments(nn.Cell):
    """Adam's moments: two weights assigned one after the other from one loop's results,
    then the step reading both new moments; a third weight assigned twice (the second
    write's value from the same loop: the last write wins)."""

    def __init__(self) -> None:
        super().__init__()
        self.p = Parameter(Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)),
                           name="p")
        for name in ("m", "v", "q"):
            setattr(self, name, Parameter(Tensor(np.zeros((2, 3), np.float32)), name=name))

    def construct(self, g):  # type: ignore[no-untyped-def]
        m = self.m * 0.9 + g * 0.1
        v = self.v * 0.999 + g * g * 0.001
        twice, double = g * 3.0, g * 2.0 + 1.0
        ops.assign(self.m, m)
        ops.assign(self.v, v)
        ops.assign(self.q, twice)
        ops.assign(self.q, double)
        ops.assign(self.p, self.p - 0.01 * m / (ops.sqrt(v) + 1e-6))
        return self.p * 1


def _three_steps(cell: type, returned: Any) -> tuple[Any, ...]:
    """Three steps of an Adam-shaped ``cell`` (numba target) against numpy's and eager's:
    what it returns (``returned(p, m)`` of numpy's new weight and moment) compared each
    step. -> g, the compiled and eager Cells, the compiled entry and numpy's p, m, v."""
    g = np.array([[0.5, -1.0, 2.0], [0.25, 0.0, -3.0]], np.float32)
    net, eager = cell(), cell()
    compiled = compile_entry(net, [arg_spec(g)], store=None, target="numba")
    p, m, v = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), 0 * g, 0 * g
    for _ in range(3):
        m = m * np.float32(0.9) + g * np.float32(0.1)
        v = v * np.float32(0.999) + g * g * np.float32(0.001)
        p = p - np.float32(0.01) * m / (np.sqrt(v) + np.float32(1e-6))
        got = compiled.run([Tensor(g)]).asnumpy()
        np.testing.assert_allclose(got, returned(p, m), rtol=1e-6)
        assert got.tobytes() == eager(Tensor(g)).asnumpy().tobytes()
    return g, net, eager, compiled, p, m, v


def test_one_loop_stores_each_moment_an_optimizer_assigns():
    """The writes right after a loop of the values it computes (only UpdateStates between)
    are all stored by the loop, each into its weight, not only the first: no copy of v
    after it. A weight written twice keeps the second value."""
    g, net, eager, compiled, p, m, v = _three_steps(Moments, lambda p, m: p)
    for name, want in (("m", m), ("v", v), ("q", 2 * g + 1)):
        np.testing.assert_allclose(getattr(net, name).asnumpy(), want, rtol=1e-6)
        assert getattr(net, name).asnumpy().tobytes() == getattr(eager, name).asnumpy().tobytes()
    stored, lines = _stored_in_loops(compiled)
    assert stored.count("m") == stored.count("v") == 1, lines
    assert not any(line.startswith(("m[...]", "v[...]")) for line in lines), lines


def _stored_in_loops(compiled):  # type: ignore[no-untyped-def]
    """The one-letter weights a kernel's loops store element by element, and its lines."""
    lines = [line.strip() for line in compiled.spec.kernel.lines]
    views = {line.split(" = ")[0]: line.split(" = ")[1][0] for line in lines
             if re.match(r"\w+ = [mvpq]\.reshape", line)}
    return [views[x.split("[")[0]] for x in lines
            if re.match(r"\w+\[i0\w*\] = ", x) and x.split("[")[0] in views], lines


class OptimizerStep(nn.Cell):
    """An optimizer's step written with every read first (as msc's optimizers are): the
    new weight reads the new moments, then the three writes."""

    def __init__(self) -> None:
        super().__init__()
        self.p = Parameter(Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)),
                           name="p")
        self.m = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="m")
        self.v = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="v")

    def construct(self, g):  # type: ignore[no-untyped-def]
        m = self.m * 0.9 + g * 0.1
        v = self.v * 0.999 + g * g * 0.001
        p = self.p - 0.01 * m / (ops.sqrt(v) + 1e-6)
        ops.assign(self.m, m)
        ops.assign(self.v, v)
        ops.assign(self.p, p)
        return m + 1


def test_one_loop_stores_values_its_own_members_read():
    """A result the loop's own members read (the new moments, which the step reads) is
    still stored into its weight by the loop: the moments, the step and the weight are one
    loop, each weight stored once, nothing copied; a reader after the writes gets the
    value. The same bits as eager and numpy's."""
    g, net, eager, compiled, p, m, v = _three_steps(OptimizerStep,
                                                    lambda p, m: m + np.float32(1))
    for name, want in (("m", m), ("v", v), ("p", p)):
        assert getattr(net, name).asnumpy().tobytes() == want.tobytes()
        assert getattr(net, name).asnumpy().tobytes() == getattr(eager, name).asnumpy().tobytes()
    stored, lines = _stored_in_loops(compiled)
    assert sorted(stored) == ["m", "p", "v"], lines
    assert not any(re.match(r"[mvp]\[\.\.\.\]", line) for line in lines), lines


class Overlapping(nn.Cell):
    """Writes whose value reads the weight through a view (p + p.T), broadcasts, or has
    another dtype: the numba target stores them by loops from a fresh array."""

    def __init__(self) -> None:
        super().__init__()
        self.p = Parameter(Tensor(np.arange(9, dtype=np.float32).reshape(3, 3)), name="p")
        self.r = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="r")
        self.s = Parameter(Tensor(np.zeros((1,), np.int32)), name="s")

    def construct(self, x):  # type: ignore[no-untyped-def]
        ops.assign_add(self.p, ops.transpose(self.p, (1, 0)))
        ops.assign(self.r, x)
        ops.assign_sub(self.r, x * 0.5)
        ops.assign(self.s, ops.cast(x[:1] * 4, ms.int32))
        return self.p + 0, self.r + 0, self.s + 0


def test_writes_of_views_broadcasts_and_casts_agree_with_eager() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    net, eager = Overlapping(), Overlapping()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target="numba")
    for _ in range(2):
        got = [o.asnumpy() for o in compiled.run([Tensor(x)])]
        want = [o.asnumpy() for o in eager(Tensor(x))]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    p = np.arange(9, dtype=np.float32).reshape(3, 3)
    np.testing.assert_array_equal(net.p.asnumpy(), (p + p.T) * 2)  # numpy, independently
    assert not any("[...] = " in line for line in compiled.spec.kernel.lines)


class Scatters(nn.Cell):
    """Scatters into an operand that dies there (a product's result; zeros made at run
    time, too large to fold; folded zeros) and into one read again after."""

    def construct(self, x, idx, upd):  # type: ignore[no-untyped-def]
        dying = ops.tensor_scatter_add(x * 2, idx, upd)
        kept = x * 3
        read_after = ops.tensor_scatter_add(kept, idx, upd)
        made = ops.tensor_scatter_add(ops.zeros((300, 256), ms.float32), idx, upd)
        folded = ops.tensor_scatter_add(ops.zeros((20, 256), ms.float32), idx, upd)
        return dying, read_after + kept, made, folded


def test_a_scatter_works_in_an_operand_nobody_reads_again():
    """A scatter whose input is an array the kernel made and only it reads works in that
    array, and one into constant zeros starts from new zeros: one copy is left, of the
    input read again after (whose value must not change). Against numpy's add.at."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 256)).astype(np.float32)
    idx = np.array([[4], [0], [4], [19], [7], [4]], np.int32)
    upd = rng.standard_normal((6, 256)).astype(np.float32)
    want = []
    for base in (x * np.float32(2), x * np.float32(3), np.zeros((300, 256), np.float32),
                 np.zeros((20, 256), np.float32)):
        out = base.copy()
        np.add.at(out, idx[:, 0], upd)
        want.append(out)
    want[1] = want[1] + x * np.float32(3)
    compiled = compile_entry(Scatters(), [arg_spec(a) for a in (x, idx, upd)], store=None,
                             target="numba")
    got = compiled.run([Tensor(a) for a in (x, idx, upd)])
    for g, w in zip(got, want):
        assert g.asnumpy().tobytes() == w.tobytes()
    copies = [line for line in compiled.spec.kernel.lines if ".copy()" in line]
    assert len(copies) == 1, compiled.spec.kernel.lines

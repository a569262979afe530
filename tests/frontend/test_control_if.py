"""``if`` on tensor values: compiled (numba and python targets) == eager == interpreter,
for chains, nesting, loops, conditional expressions and boolean operators."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.errors import UnsupportedSyntaxError
from tests.codegen import check_module, to_numpy


class Chain(nn.Cell):
    def construct(self, x):
        s = x.sum()
        if s > 2:
            y = x * 2
        elif s < -2:
            y = x - 1
        elif s == 0:
            y = x + 10
        else:
            y = -x
        return y + 1


class Nested(nn.Cell):
    def construct(self, x, y):
        if x.sum() > 0:
            if y.sum() > 0:
                z = x + y
            else:
                z = x - y
            w = z * 2
        else:
            z = y
            w = x
        return z, w


class InLoop(nn.Cell):
    """The tutorial's ``if_net`` shape: a tensor if in every unrolled iteration."""

    def construct(self, x, y):
        out = y
        for i in range(10):
            if x > y:
                out = out + x * i
            else:
                out = out - x * i
        return out


class BoolOps(nn.Cell):
    def construct(self, x):
        a, b = x[0], x[1]
        if a > 0 and not b > 0:
            r = x * 3
        elif a > 0 or b > 0:
            r = x * 5
        else:
            r = x * 7
        return r


class Expression(nn.Cell):
    def construct(self, x):
        y = x * 2 if x.sum() > 0 else x - 2
        return y if y.max() < 5 else y / 2


class Returns(nn.Cell):
    def construct(self, x):
        if x.mean() > 0:
            return x * x, x.sum()
        else:
            return -x, x.max()


class Numbers(nn.Cell):
    def construct(self, x):
        scale = 1.0
        k = 3  # unchanged in both branches: stays a Python number
        if x.sum() > 0:
            scale = 2.0
        return x * scale + k


INPUTS = {
    "Chain": [[[1.0, 2.0]], [[-2.0, -1.5]], [[0.0, 0.0]], [[0.5, 0.25]]],
    "Nested": [[[1.0, 2.0], [1.0, 1.0]], [[1.0, 2.0], [-3.0, 1.0]], [[-1.0, -2.0], [4.0, 5.0]]],
    "InLoop": [[[2], [1]], [[0], [1]]],
    "BoolOps": [[[1.0, -1.0]], [[-1.0, 1.0]], [[1.0, 1.0]], [[-1.0, -1.0]]],
    "Expression": [[[1.0, 2.0]], [[3.0, 4.0]], [[-1.0, -1.0]]],
    "Returns": [[[1.0, -0.5]], [[-1.0, 0.5]]],
    "Numbers": [[[1.0, 2.0]], [[-1.0, -2.0]]],
}
NETS = {c.__name__: c for c in (Chain, Nested, InLoop, BoolOps, Expression, Returns, Numbers)}


def arrays(values):
    return [np.array(v, np.int32 if isinstance(v[0], int) else np.float32) for v in values]


@pytest.mark.parametrize("select", [False, True], ids=["if", "if_to_select"])
@pytest.mark.parametrize("name", NETS)
def test_compiled_equals_eager_on_every_branch(name, select, tmp_path):
    net = NETS[name]()
    for values in INPUTS[name]:
        xs = arrays(values)
        ms.set_context(mode=ms.PYNATIVE_MODE, if_to_select=select)
        eager = to_numpy(net(*[ms.Tensor(a) for a in xs]))
        c = compile_entry(net, [arg_spec(a) for a in xs], store=None, target="python")
        ops_ = {n.op.name for n in c.module.entry_graph.nodes}
        assert ("If" in ops_) != select and ("Select" in ops_) == select
        check_module(c.module, xs, tmp_path, eager, [p.asnumpy() for p in c.weights])


def test_the_loop_has_one_if_per_iteration_and_runs_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE, if_to_select=False)
    x, y = ms.Tensor([2], ms.int32), ms.Tensor([1], ms.int32)
    assert InLoop()(x, y).asnumpy().tolist() == [1 + 2 * sum(range(10))]
    c = compile_entry(InLoop(), [x.type, y.type], store=None)
    assert [n.op.name for n in c.module.entry_graph.nodes].count("If") == 10


class EarlyReturn(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            return x * 2
        y = x - 1
        return y * 3


class NoReturnAfter(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            return x
        x = x + 1


class Ambiguous(nn.Cell):
    def construct(self, x):
        if x > 0:
            x = x + 1
        return x


@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, -2.0]])
def test_a_return_in_one_branch_continues_with_the_rest_of_the_function(values, tmp_path):
    x = np.array(values, np.float32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = EarlyReturn()(ms.Tensor(x)).asnumpy()
    c = compile_entry(EarlyReturn(), [arg_spec(x)], store=None, target="python")
    check_module(c.module, [x], tmp_path, eager)


def test_unsupported_forms_are_clear_errors_at_the_if():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(UnsupportedSyntaxError, match="None on another") as err:
        NoReturnAfter()(ms.Tensor(np.ones(2, np.float32)))
    assert err.value.loc.line == NoReturnAfter.construct.__code__.co_firstlineno + 1
    with pytest.raises(ValueError, match="truth value of a tensor with 2 elements"):
        Ambiguous()(ms.Tensor(np.ones(2, np.float32)))


def test_select_written_by_hand_broadcasts():
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def pick(c, x, y):
        return ops.select(c, x, y)

    c = ms.Tensor(np.array([[True], [False]]))
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ms.Tensor(np.full((2, 3), -1.0, np.float32))
    assert pick(c, x, y).asnumpy().tolist() == [[0.0, 1.0, 2.0], [-1.0, -1.0, -1.0]]


# --- the reference tutorial's "Using select Operator" ----------------------------------------

ROOT = __file__.rsplit("/tests/", 1)[0]


def test_if_net_and_select_net_give_minus_5050_and_compile_to_the_same_selects():
    import subprocess
    import sys

    sys.path.insert(0, f"{ROOT}/examples")
    from select_vs_if import if_net, select_net

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    for fn in (if_net, select_net):
        assert fn(ms.Tensor([0]), ms.Tensor([1])).asnumpy().tolist() == [-5050]
    counts = {}
    for name in ("if_net", "select_net"):
        proc = subprocess.run([sys.executable, "-m", "msc.cli", "ir", "examples/select_vs_if.py",
                               name, "--input", "i64[1]", "--input", "i64[1]", "--no-locs"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        counts[name] = (proc.stdout.count(" Select("), proc.stdout.count(" If("))
    assert counts == {"if_net": (100, 0), "select_net": (100, 0)}
    assert "if_to_select: 0 tensor if(s)" not in proc.stdout  # select_net had no if to convert
    kept = subprocess.run([sys.executable, "-m", "msc.cli", "ir", "examples/select_vs_if.py",
                           "if_net", "--input", "i64[1]", "--input", "i64[1]",
                           "--no-if-to-select"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert kept.stdout.count(" If(") == 100 and " Select(" not in kept.stdout


class Costly(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.eye(2, dtype=np.float32)), name="w")

    def construct(self, x):
        if x.sum() > 0:
            y = ops.matmul(x, self.w)
        else:
            y = x + 1
        return y


def test_an_expensive_branch_stays_an_if_and_the_report_says_why():
    x = np.ones((2, 2), np.float32)
    c = compile_entry(Costly(), [arg_spec(x)], store=None, target="python")
    assert [n.op.name for n in c.module.entry_graph.nodes].count("If") == 1
    note = c.report.notes
    assert note[0] == "if_to_select: 0 tensor if(s) became Select, 1 kept"
    assert "per element, more than 16" in note[1] and "test_control_if.py" in note[1]

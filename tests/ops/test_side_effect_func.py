"""Side-effect ops in eager and graph mode: assign and friends, Depend, Print (from the
generated code, in program order), writes the graph cannot perform, and effects inside
branches, loops, HyperMap and shared blocks. Every compiled result is checked against
eager mode on a fresh model, for both targets."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.errors import GraphTypeError, ShapeError, SideEffectWarning
from msc.ir.nodes import iter_nodes
from msc.ops import composite as C
from msc.ops import functional as F
from tests.frontend.cases import bad_models as bm

TARGETS = ("python", "numba")


def compiled_and_eager(make: Callable[[], nn.Cell], *inputs: np.ndarray,
                       target: str = "python") -> tuple[Any, nn.Cell, Any, nn.Cell]:
    """(compiled result, its model, eager result, its model): fresh models, same inputs."""
    net = make()
    compiled = compile_entry(net, [arg_spec(x) for x in inputs], store=None, target=target)
    out = compiled.run([Tensor(x) for x in inputs])
    eager_net = make()
    return out, net, eager_net(*[Tensor(x) for x in inputs]), eager_net


def params_of(net: nn.Cell) -> dict[str, np.ndarray]:
    return {name: p.asnumpy().copy() for name, p in net.parameters_dict().items()}


# --- assign, assign_add, assign_sub ----------------------------------------------------------


class Counter(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.count = Parameter(Tensor(np.array(0, np.int32)), name="count")
        self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")
        self.last = Parameter(Tensor(np.zeros(3, np.float32)), name="last")

    def construct(self, x):  # type: ignore[no-untyped-def]
        ops.assign_add(self.count, 1)
        ops.AssignAdd()(self.total, x)
        F.assign_sub(self.total, 0.5)
        ops.Assign()(self.last, x * 2)
        return self.total * 1


@pytest.mark.parametrize("target", TARGETS)
def test_writes_update_parameters_in_place_call_after_call(target: str) -> None:
    net = Counter()
    compiled = compile_entry(net, [arg_spec(np.zeros(3, np.float32))], store=None, target=target)
    buffer = net.total.asnumpy()
    xs = [np.array([1.0, 2.0, 3.0], np.float32), np.array([-1.0, 0.0, 4.0], np.float32)]
    for k, x in enumerate(xs, start=1):
        out = compiled.run([Tensor(x)]).asnumpy()
        want_total = sum(xs[:k]) - 0.5 * k
        np.testing.assert_allclose(out, want_total)
        np.testing.assert_allclose(net.total.asnumpy(), want_total)
        np.testing.assert_allclose(net.last.asnumpy(), x * 2)
        assert net.count.asnumpy() == k and net.count.asnumpy().dtype == np.int32
    assert net.total.asnumpy() is buffer  # written in place, not replaced
    eager = Counter()
    for x in xs:
        eager(Tensor(x))
    for name, value in params_of(eager).items():
        np.testing.assert_allclose(params_of(net)[name], value)


def test_assign_checks_dtype_and_shape_eagerly_and_in_graphs() -> None:
    p = Parameter(Tensor(np.zeros(2, np.int32)), name="p")
    with pytest.raises(GraphTypeError, match="Float32 cannot be converted to the Parameter's "
                                             "dtype Int32"):
        ops.assign(p, Tensor(np.ones(2, np.float32)))
    with pytest.raises(ShapeError, match=r"shape \(3,\) cannot be assigned to a Parameter of "
                                         r"shape \(2,\)"):
        ops.assign(p, Tensor(np.ones(3, np.int32)))
    with pytest.raises(GraphTypeError, match="must be a Parameter"):
        ops.assign(Tensor(np.zeros(2, np.int32)), 1)
    ops.assign(p, 7)  # a Python number converts, and broadcasts
    np.testing.assert_array_equal(p.asnumpy(), [7, 7])


COUNT = Parameter(Tensor(np.zeros(2, np.float32)), name="count")


@ms.jit
def bump(x):  # type: ignore[no-untyped-def]
    ops.assign_add(COUNT, x)
    return COUNT * 1


@ms.jit
def store(p, x):  # type: ignore[no-untyped-def]
    ops.assign(p, x * 3)
    return x


def test_jit_functions_write_global_and_argument_parameters() -> None:
    one = Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(bump(one).asnumpy(), [1, 1])
    np.testing.assert_array_equal(bump(one).asnumpy(), [2, 2])
    np.testing.assert_array_equal(COUNT.asnumpy(), [2, 2])
    p, q = (Parameter(Tensor(np.zeros(2, np.float32)), name=n) for n in "pq")
    store(p, one)
    store(q, Tensor(np.full(2, 2.0, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [3, 3])
    np.testing.assert_array_equal(q.asnumpy(), [6, 6])

    class Bad(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.p = Parameter(Tensor(np.zeros(2, np.int32)), name="p")

        def construct(self, x):  # type: ignore[no-untyped-def]
            ops.assign(self.p, x)
            return x

    with pytest.raises(GraphTypeError) as info:
        compile_entry(Bad(), [arg_spec(np.ones(2, np.float32))], store=None)
    assert "For 'Assign'" in info.value.message and info.value.loc is not None
    assert info.value.loc.file == __file__ and "ops.assign(self.p, x)" in str(info.value)

    @ms.jit
    def not_a_parameter(x):  # type: ignore[no-untyped-def]
        ops.assign(x, x + 1)
        return x

    with pytest.raises(GraphTypeError, match="For 'Assign', the variable must be a Parameter, "
                                             r"but got <Tensor\[Float32\], \(2\)>") as info:
        not_a_parameter(Tensor(np.ones(2, np.float32)))
    assert info.value.loc.file == __file__


def test_parameter_owns_its_buffer() -> None:
    data = np.array([1.0, 2.0], np.float32)
    p = Parameter(data, name="p")
    ops.assign(p, 5.0)
    np.testing.assert_array_equal(data, [1.0, 2.0])
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3).T)  # not C-contiguous
    assert Parameter(t).asnumpy().flags.c_contiguous


class SetAttr(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):  # type: ignore[no-untyped-def]
        self.w = x * 2  # as Cell.__setattr__ does eagerly: the Parameter is written
        return self.w + 1


@pytest.mark.parametrize("target", TARGETS)
def test_setting_a_parameter_attribute_in_a_graph_writes_it(target: str) -> None:
    x = np.array([3.0, 4.0], np.float32)
    out, net, eager, _ = compiled_and_eager(SetAttr, x, target=target)
    np.testing.assert_allclose(out.asnumpy(), [7.0, 9.0])
    np.testing.assert_allclose(eager.asnumpy(), [7.0, 9.0])
    np.testing.assert_allclose(net.w.asnumpy(), [6.0, 8.0])
    assert isinstance(net.w, Parameter)


# --- writes the graph does not perform ----------------------------------------------------------


def test_writing_a_global_or_a_plain_attribute_warns_at_the_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compile_entry(bm.MutatesGlobal(), [arg_spec(np.ones(2, np.float32))], store=None)
        compile_entry(PlainAttr(), [arg_spec(np.ones(2, np.float32))], store=None)
    found = [(w.category, w.filename, w.lineno, str(w.message)) for w in caught
             if w.category is SideEffectWarning]
    assert len(found) == 2
    _, file, line, text = found[0]
    assert file == bm.__file__ and "assigning the global" in text and "no effect" in text
    assert "global" in Path(file).read_text().splitlines()[line - 2]
    _, file, line, text = found[1]
    assert file == __file__ and "setting attribute 'scale' of PlainAttr" in text
    assert "self.scale = 3" in Path(file).read_text().splitlines()[line - 1]


class PlainAttr(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.scale = 2

    def construct(self, x):  # type: ignore[no-untyped-def]
        self.scale = 3
        return x * self.scale


def test_a_plain_attribute_keeps_its_value() -> None:
    net = PlainAttr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SideEffectWarning)
        compiled = compile_entry(net, [arg_spec(np.ones(2, np.float32))], store=None)
    np.testing.assert_allclose(compiled.run([Tensor(np.ones(2, np.float32))]).asnumpy(), [2, 2])
    assert net.scale == 2


# --- Print and Depend ---------------------------------------------------------------------


class Prints(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1, 2], [3, 4]], np.int32)), name="w")

    def construct(self, x):  # type: ignore[no-untyped-def]
        y = ops.depend(x + 1, ops.Print()("first", 2.5))
        ops.print_("second", y, self.w)
        print("third:", y * 2, "{not a field}")
        ops.assign(self.w, self.w * 10)
        ops.Print()("fourth", self.w[0])
        return y


PRINTED = """first
2.5
second
Tensor(shape=[3], dtype=Float32, value=[1. 2. 3.])
Tensor(shape=[2, 2], dtype=Int32, value=
[[1 2]
 [3 4]])
third: [2. 4. 6.] {not a field}
fourth
Tensor(shape=[2], dtype=Int32, value=[10 20])
"""


@pytest.mark.parametrize("target", TARGETS)
def test_prints_run_from_the_generated_code_in_program_order(target: str, capfd) -> None:
    x = np.array([0.0, 1.0, 2.0], np.float32)
    net = Prints()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target=target)
    assert capfd.readouterr().out == ""  # nothing at compile time
    compiled.run([Tensor(x)])
    assert capfd.readouterr().out == PRINTED
    compiled.run([Tensor(x)])
    assert capfd.readouterr().out == PRINTED.replace("[[1 2]\n [3 4]]", "[[10 20]\n [30 40]]") \
        .replace("[10 20])", "[100 200])")
    Prints()(Tensor(x))
    assert capfd.readouterr().out == PRINTED  # eager prints the same


def test_print_of_constants_only_runs_while_the_graph_is_built(capfd) -> None:
    @ms.jit
    def f(x):  # type: ignore[no-untyped-def]
        print("building", 3)
        return x + 1

    f(Tensor(np.ones(2, np.float32)))
    assert capfd.readouterr().out == "building 3\n"
    f(Tensor(np.ones(2, np.float32)))
    assert capfd.readouterr().out == ""


class Ordered(nn.Cell):
    """Depend orders a pure value after a print; DCE keeps a print nothing uses."""

    def construct(self, x):  # type: ignore[no-untyped-def]
        a = ops.Print()("A", x)
        y = ops.Depend()(x * 2, a)
        ops.print_("B", y)
        _unused = ops.Print()("C")
        return y


@pytest.mark.parametrize("target", TARGETS)
def test_depend_and_print_order(target: str, capfd) -> None:
    x = np.array([1.0, 2.0], np.float32)
    compiled = compile_entry(Ordered(), [arg_spec(x)], store=None, target=target)
    ops_ = [n.op.name for n in compiled.module.entry_graph.nodes]
    assert ops_.count("Print") == 3 and ops_.count("Depend") >= 1
    compiled.run([Tensor(x)])
    out = capfd.readouterr().out.splitlines()
    assert out == ["A", "Tensor(shape=[2], dtype=Float32, value=[1. 2.])", "B",
                   "Tensor(shape=[2], dtype=Float32, value=[2. 4.])", "C"]


# --- effects in control flow ----------------------------------------------------------------


class BranchWrites(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.hits = Parameter(Tensor(np.array(0, np.int32)), name="hits")

    def construct(self, x):  # type: ignore[no-untyped-def]
        old = self.w * 1
        if x.sum() > 0:
            ops.assign(self.w, old + x)
            ops.assign_add(self.hits, 1)
        else:
            ops.assign(self.w, old - x)
            ops.print_("negative", x)
        return old + self.w


@pytest.mark.parametrize("target", TARGETS)
def test_writes_in_both_branches_of_a_tensor_if(target: str, capfd) -> None:
    for x in (np.array([1.0, 3.0], np.float32), np.array([-1.0, -3.0], np.float32)):
        out, net, eager, eager_net = compiled_and_eager(BranchWrites, x, target=target)
        np.testing.assert_allclose(out.asnumpy(), eager.asnumpy())
        np.testing.assert_allclose(out.asnumpy(), [1.0, 2.0] + ([1.0, 2.0] + np.abs(x)))
        for name, value in params_of(eager_net).items():
            np.testing.assert_allclose(params_of(net)[name], value)
        assert net.hits.asnumpy() == (1 if x.sum() > 0 else 0)
        printed = capfd.readouterr().out.count("negative")
        assert printed == (0 if x.sum() > 0 else 2)  # compiled run and eager run


class LoopPrints(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.acc = Parameter(Tensor(np.array(0.0, np.float32)), name="acc")

    def construct(self, n):  # type: ignore[no-untyped-def]
        i = 0
        while i < n:
            ops.assign_add(self.acc, i)
            ops.print_("step", i, self.acc)
            i = i + 1
        return self.acc * 1


@pytest.mark.parametrize("target", TARGETS)
def test_writes_and_prints_in_a_tensor_while_loop(target: str, capfd) -> None:
    n = np.array(3)
    out, net, eager, _ = compiled_and_eager(LoopPrints, n, target=target)
    assert out.asnumpy() == 3.0 and eager.asnumpy() == 3.0 and net.acc.asnumpy() == 3.0
    lines = capfd.readouterr().out.splitlines()
    graph, eager_lines = lines[:9], lines[9:]
    acc = [f"Tensor(shape=[], dtype=Float32, value={v})" for v in ("0.0", "1.0", "3.0")]
    assert graph[0::3] == eager_lines[0::3] == ["step"] * 3
    assert graph[2::3] == eager_lines[2::3] == acc
    # the counter is a loop-carried tensor in the graph, a Python int in eager mode
    assert graph[1::3] == [f"Tensor(shape=[], dtype=Int64, value={i})" for i in range(3)]
    assert eager_lines[1::3] == ["0", "1", "2"]


def test_a_write_in_a_while_condition_is_refused_at_its_line() -> None:
    class Bad(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.n = Parameter(Tensor(np.array(0, np.int64)), name="n")

        def construct(self, x):  # type: ignore[no-untyped-def]
            while ops.assign_add(self.n, 1) < x:
                x = x - 1
            return x

    with pytest.raises(ms.UnsupportedSyntaxError, match="write or a print in a tensor while "
                                                        "condition") as info:
        compile_entry(Bad(), [arg_spec(np.array(3))], store=None)
    assert info.value.loc is not None and info.value.loc.file == __file__


# --- HyperMap and shared blocks ---------------------------------------------------------------

_sgd = C.MultitypeFuncGraph("sgd")


@_sgd.register("Number", "Tensor", "Tensor")
def _sgd_step(lr, param, grad):  # type: ignore[no-untyped-def]
    return F.depend(param, F.assign(param, param - lr * grad))


class Optimizer(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.params = ms.ParameterTuple(
            Parameter(Tensor(np.full(3, float(i), np.float32)), name=f"p{i}") for i in range(4))
        self.map = C.HyperMap()

    def construct(self, grads):  # type: ignore[no-untyped-def]
        return self.map(F.partial(_sgd, 0.5), self.params, grads)


@pytest.mark.parametrize("target", TARGETS)
def test_an_optimizer_step_mapped_over_parameters(target: str) -> None:
    grads = tuple(np.full(3, i + 1, np.float32) for i in range(4))
    net = Optimizer()
    compiled = compile_entry(net, [arg_spec(grads)], store=None, target=target)
    out = compiled.run([tuple(Tensor(g) for g in grads)])
    want = [np.full(3, i - 0.5 * (i + 1), np.float32) for i in range(4)]
    for got, p, w in zip(out, net.params, want):
        np.testing.assert_allclose(got.asnumpy(), w)  # the Parameter after its write
        np.testing.assert_allclose(p.asnumpy(), w)
    assert sum(1 for n in iter_nodes(compiled.module) if n.op.name == "Assign") == 4


class Accumulate(nn.Cell):
    @ms.lazy_inline
    def __init__(self) -> None:
        super().__init__()
        self.seen = Parameter(Tensor(np.zeros(2, np.float32)), name="seen")

    def construct(self, x):  # type: ignore[no-untyped-def]
        ops.assign_add(self.seen, x)
        return x * 2


class Chain(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.CellList([Accumulate() for _ in range(3)])

    def construct(self, x):  # type: ignore[no-untyped-def]
        for block in self.blocks:
            x = block(x)
        return x


@pytest.mark.parametrize("target", TARGETS)
def test_a_lazy_inline_block_that_writes_is_inlined_in_order(target: str) -> None:
    x = np.array([1.0, -1.0], np.float32)
    out, net, eager, eager_net = compiled_and_eager(Chain, x, target=target)
    np.testing.assert_allclose(out.asnumpy(), x * 8)
    np.testing.assert_allclose(eager.asnumpy(), x * 8)
    assert [b.seen.asnumpy().tolist() for b in net.blocks] == [[1, -1], [2, -2], [4, -4]]
    for name, value in params_of(eager_net).items():
        np.testing.assert_allclose(params_of(net)[name], value)


@ms.jit
def prints_a_tuple(x):  # type: ignore[no-untyped-def]
    print("pair:", (x, x * 2), [x], "{braces}")
    return x


def test_print_of_tensors_inside_tuples_prints_as_eager_python_does(capfd) -> None:
    x = Tensor(np.array([1.0, 2.0], np.float32))
    prints_a_tuple(x)
    graph = capfd.readouterr().out
    print("pair:", (x, x * 2), [x], "{braces}")
    assert graph == capfd.readouterr().out == (
        "pair: (Tensor(shape=[2], dtype=Float32, value=[1. 2.]), Tensor(shape=[2], "
        "dtype=Float32, value=[2. 4.])) [Tensor(shape=[2], dtype=Float32, value=[1. 2.])] "
        "{braces}\n")


class Tangled(nn.Cell):
    """Writes under nested tensor ifs in a while loop with a break, and in a branch that
    returns."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.n = Parameter(Tensor(np.array(0, np.int32)), name="n")

    def construct(self, x, k):  # type: ignore[no-untyped-def]
        i = 0
        while i < k:
            if x.sum() > 10:
                break
            if x.sum() > 0:
                if x[0] > 1:
                    ops.assign_add(self.n, 2)
                else:
                    ops.assign_add(self.n, 1)
            x = x + self.w
            i = i + 1
        if x.sum() > 5:
            ops.assign(self.w, x)
            return x * 2
        return x - self.w


@pytest.mark.parametrize("target", TARGETS)
def test_writes_under_nested_control_flow_match_eager(target: str) -> None:
    k = np.array(4)
    for start, want_n in (([1.0, 1.0], 5), ([-5.0, -5.0], 0), ([20.0, 0.0], 0)):
        x = np.array(start, np.float32)
        out, net, eager, eager_net = compiled_and_eager(Tangled, x, k, target=target)
        np.testing.assert_allclose(out.asnumpy(), eager.asnumpy())
        assert net.n.asnumpy() == eager_net.n.asnumpy() == want_n
        np.testing.assert_allclose(net.w.asnumpy(), eager_net.w.asnumpy())


# --- if->select with writes: each branch's writes become values, one write after -------------


class SelectedWrites(nn.Cell):
    """Writes in both branches: different weights, a read after a write in the branch,
    AssignAdd/AssignSub, a number and a broadcast value, and a read after the if."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
        self.v = Parameter(Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32)), name="v")
        self.n = Parameter(Tensor(np.array(0, np.int32)), name="n")

    def construct(self, x):  # type: ignore[no-untyped-def]
        if x.sum() > 0:
            ops.assign(self.w, x * 2)
            y = self.w + 1  # reads the branch's write
            ops.assign_add(self.n, 1)
            ops.assign(self.v, 7)
        else:
            y = self.w * 3
            ops.assign_sub(self.n, 2)
            ops.assign(self.w, x[0])  # a 0-d value broadcast to the weight's shape
        return y + self.w


@pytest.mark.parametrize("target", TARGETS)
def test_an_if_that_only_writes_becomes_selects_and_one_write_per_weight(target: str) -> None:
    for sign in (1.0, -1.0):
        x = np.array([0.5, 1.0, 1.5], np.float32) * sign
        out, net, eager, eager_net = compiled_and_eager(SelectedWrites, x, target=target)
        np.testing.assert_allclose(out.asnumpy(), eager.asnumpy())
        for name, value in params_of(eager_net).items():
            np.testing.assert_array_equal(params_of(net)[name], value)
    ms.set_context(if_to_select=True)
    compiled = compile_entry(SelectedWrites(), [arg_spec(x)], store=None, target=target)
    ops_ = [n.op.name for n in iter_nodes(compiled.module)]
    assert "If" not in ops_ and ops_.count("Assign") == 3 and "AssignAdd" not in ops_
    assert compiled.report.notes[0].startswith("if_to_select: 1 tensor if(s) became Select")


def test_an_if_that_prints_stays_an_if() -> None:
    compiled = compile_entry(BranchWrites(), [arg_spec(np.ones(2, np.float32))], store=None)
    assert [n.op.name for n in compiled.module.entry_graph.nodes].count("If") == 1
    assert any("a branch has a side effect (Print)" in note for note in compiled.report.notes)


class CountPositives(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.count = Parameter(Tensor(np.array(0, np.int32)), name="count")

    def construct(self, x):  # type: ignore[no-untyped-def]
        for i in range(6):
            if x[i] > 0:
                ops.assign_add(self.count, 1)
        return x * 1


@pytest.mark.parametrize("target", TARGETS)
def test_counting_in_unrolled_ifs_compiles_to_straight_line_code(target: str) -> None:
    x = np.array([1.0, -2.0, 3.0, 0.0, 5.0, -1.0], np.float32)
    net = CountPositives()
    compiled = compile_entry(net, [arg_spec(x)], store=None, target=target)
    assert "If" not in {n.op.name for n in iter_nodes(compiled.module)}
    for k in range(1, 3):
        compiled.run([Tensor(x)])
        assert net.count.asnumpy() == 3 * k

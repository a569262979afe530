"""Load elimination: the tutorial's ForwardNet and the w/x patterns at every level, copies
counted in the IR, and results checked against eager execution and numpy.

Generated code reads a weight without copying it, so every level except 3 must give the
eager result; level 3 is allowed to be wrong, and a test documents where it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.errors import GraphValueError
from msc.ir.interpret import interpret
from msc.ir.nodes import iter_nodes
from msc.ops import functional as F

TARGETS = ("python", "numba")


def int_param(values: Any, name: str = "w") -> Parameter:
    return Parameter(Tensor(np.array(values, np.int32)), name=name)


def run_at(level: int, make: Callable[[], nn.Cell], *inputs: np.ndarray,
           target: str = "python") -> tuple[np.ndarray, nn.Cell, Any]:
    """A fresh model compiled at ``level``: its result, the model (weights after the call)
    and the compiled entry."""
    ms.set_context(side_effect_load_elim=level)
    net = make()
    compiled = compile_entry(net, [arg_spec(x) for x in inputs], store=None, target=target)
    out = compiled.run([Tensor(x) for x in inputs])
    return (tuple(t.asnumpy() for t in out) if isinstance(out, tuple) else out.asnumpy()), \
        net, compiled


def count(compiled: Any, op: str) -> int:
    return sum(1 for n in iter_nodes(compiled.module) if n.op.name == op)


# --- the tutorial's ForwardNet ------------------------------------------------------------


class ForwardNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.weight = Parameter(Tensor(np.array(0), ms.int32), name="param")

    def construct(self, x):  # type: ignore[no-untyped-def]
        out = 0
        i = 0
        while i < 3:
            F.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_forward_net_is_3x_with_3_assigns_and_3_loads_at_every_level(level: int) -> None:
    x = np.array(7, np.int32)
    for target in TARGETS:
        out, net, compiled = run_at(level, ForwardNet, x, target=target)
        assert out == 21 and out.dtype == np.int32  # 0*x + 1*x + 2*x
        assert net.weight.asnumpy() == 2
        assert count(compiled, "Assign") == 3 and count(compiled, "Load") == 3
        # every use of a loaded value comes before the next write: copies only at level 0
        assert count(compiled, "TensorMove") == (3 if level == 0 else 0)
    assert ForwardNet()(Tensor(x)).asnumpy() == 21


def test_the_loads_read_three_states_and_cse_keeps_them_apart() -> None:
    """Three Loads of one weight in three states: merging any two would read a stale value."""
    _, _, compiled = run_at(3, ForwardNet, np.array(1, np.int32))
    loads = [n for n in compiled.module.entry_graph.nodes if n.op.name == "Load"]
    assert len({n.inputs[1] for n in loads}) == 3
    assert all(n.inputs[0] is loads[0].inputs[0] for n in loads)


# --- a value loaded before a write, read after it ----------------------------------------


class CopyThenWrite(nn.Cell):
    """``self.w * 1`` is a new value in eager mode; in the graph it folds to the Load."""

    def __init__(self) -> None:
        super().__init__()
        self.w = int_param([1, 2])

    def construct(self, x):  # type: ignore[no-untyped-def]
        a = self.w * 1
        ops.assign(self.w, x)
        return a + self.w


class ReferenceThenWrite(CopyThenWrite):
    """``a = self.w`` binds the Parameter itself: a reference, as in Python."""

    def construct(self, x):  # type: ignore[no-untyped-def]
        a = self.w
        ops.assign(self.w, x)
        return a + self.w


X = np.array([10, 20], np.int32)


@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_value_loaded_before_a_write_keeps_its_value(level: int) -> None:
    for target in TARGETS:
        out, net, compiled = run_at(level, CopyThenWrite, X, target=target)
        np.testing.assert_array_equal(out, [11, 22])
        np.testing.assert_array_equal(net.w.asnumpy(), X)
        assert count(compiled, "TensorMove") >= 1
    np.testing.assert_array_equal(CopyThenWrite()(Tensor(X)).asnumpy(), [11, 22])


def test_level_3_reads_the_new_value_as_mindspore_does() -> None:
    """Documented: at level 3 the loaded value is the weight's buffer, read after the write
    ([20, 40]; MindSpore 2.10 on CPU gives the same), where eager mode gives [11, 22]."""
    for target in TARGETS:
        out, _, compiled = run_at(3, CopyThenWrite, X, target=target)
        np.testing.assert_array_equal(out, [20, 40])
        assert count(compiled, "TensorMove") == 0


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_a_name_bound_to_a_parameter_is_a_reference(level: int) -> None:
    for target in TARGETS:
        out, _, _ = run_at(level, ReferenceThenWrite, X, target=target)
        np.testing.assert_array_equal(out, [20, 40])
    np.testing.assert_array_equal(ReferenceThenWrite()(Tensor(X)).asnumpy(), [20, 40])


# --- the same patterns in a tensor while loop -------------------------------------------------


class LoopPatterns(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w = int_param([1, 2])
        self.v = int_param([3, 5], "v")

    def construct(self, x, n):  # type: ignore[no-untyped-def]
        i = 0
        out = x * 0
        while i < n:
            a = self.w * 1  # the old value, read after the write below
            ops.assign(self.w, self.w + x)
            b = self.v  # a reference: reads the new value
            ops.assign(self.v, self.v * 2)
            out = out + a * 10 + b
            i = i + 1
        return out


def loop_patterns_numpy(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    w, v, out = np.array([1, 2]), np.array([3, 5]), np.zeros(2, np.int64)
    for _ in range(n):
        a = w.copy()
        w = w + x
        v = v * 2
        out = out + a * 10 + v
    return out, w, v


@pytest.mark.parametrize("level", [0, 1, 2])
def test_the_patterns_in_a_tensor_while_loop(level: int) -> None:
    n = np.array(3)
    want, want_w, want_v = loop_patterns_numpy(X, 3)
    for target in TARGETS:
        out, net, compiled = run_at(level, LoopPatterns, X, n, target=target)
        np.testing.assert_array_equal(out, want)
        np.testing.assert_array_equal(net.w.asnumpy(), want_w)
        np.testing.assert_array_equal(net.v.asnumpy(), want_v)
        assert count(compiled, "While") == 1
    eager = LoopPatterns()(Tensor(X), Tensor(n))
    np.testing.assert_array_equal(eager.asnumpy(), want)


def test_level_3_in_a_loop_reads_the_written_value() -> None:
    """Documented: ``a`` sees ``self.w + x`` at level 3, so every iteration adds 10 * x more."""
    out, _, _ = run_at(3, LoopPatterns, X, np.array(3))
    want, _, _ = loop_patterns_numpy(X, 3)
    np.testing.assert_array_equal(out - want, 3 * 10 * X)


# --- fewer copies at each level ----------------------------------------------------------------


class Ema(nn.Cell):
    """Three weights: ``u`` is only read before any write (level 0 copies it, level 1 does
    not); ``w``'s old value is used in a pure computation after its write (level 1 copies
    it, level 2 moves the computation above the write); ``v``'s old value is returned after
    its write (every level but 3 must copy it)."""

    def __init__(self) -> None:
        super().__init__()
        self.u = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="u")
        self.w = Parameter(Tensor(np.array([3.0, 4.0], np.float32)), name="w")
        self.v = Parameter(Tensor(np.array([5.0, 6.0], np.float32)), name="v")

    def construct(self, x):  # type: ignore[no-untyped-def]
        base = self.u * x
        old_w = self.w * 1
        ops.assign(self.w, self.w * 0.5 + x)
        scaled = old_w * 3.0 + base
        old_v = self.v * 1
        ops.assign(self.v, scaled)
        return scaled, old_v


def test_each_level_copies_less_and_levels_0_to_2_agree_with_eager() -> None:
    x = np.array([1.0, -1.0], np.float32)
    eager_net = Ema()
    want = [t.asnumpy() for t in eager_net(Tensor(x))]
    np.testing.assert_allclose(want[0], np.array([3.0, 4.0]) * 3 + np.array([1.0, -2.0]))
    np.testing.assert_allclose(want[1], [5.0, 6.0])
    copies = {}
    for level in (0, 1, 2, 3):
        for target in TARGETS:
            ms.set_context(side_effect_load_elim=level)
            net = Ema()
            compiled = compile_entry(net, [arg_spec(x)], store=None, target=target)
            got = [t.asnumpy() for t in compiled.run([Tensor(x)])]
            copies[level] = count(compiled, "TensorMove")
            if level < 3:
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g, w, rtol=1e-6)
                np.testing.assert_allclose(net.w.asnumpy(), eager_net.w.asnumpy())
                np.testing.assert_allclose(net.v.asnumpy(), eager_net.v.asnumpy())
            else:  # documented: old_w and old_v are the buffers, read after the writes
                np.testing.assert_allclose(got[0], [2.5 * 3 + 1, 1.0 * 3 - 2])
                np.testing.assert_allclose(got[1], got[0])
    assert copies[0] > copies[1] > copies[2] > copies[3] == 0
    assert (copies[0], copies[1], copies[2]) == (3, 2, 1)


def test_level_2_says_what_it_moved() -> None:
    _, _, compiled = run_at(2, Ema, np.ones(2, np.float32))
    note = "load_elim: level 2: 1 TensorMove(s) for 3 Load(s); 2 computation(s) moved above a write"
    assert note in compiled.report.notes  # old_w * 3.0, then its sum with base


def test_the_interpreter_gives_the_eager_result_at_every_level() -> None:
    """The interpreter's Load is a snapshot (the meaning every target must match): the IR
    of every level, run by it, gives eager's result, level 3's included."""
    x = np.array([1.0, -1.0], np.float32)
    want = [t.asnumpy() for t in Ema()(Tensor(x))]
    for level in (0, 1, 2, 3):
        _, _, compiled = run_at(level, Ema, x)
        weights = [np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32),
                   np.array([5.0, 6.0], np.float32)]
        got = interpret(compiled.module, [x], weights)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


# --- buffers passed on through branches and views ------------------------------------------------


class BranchView(nn.Cell):
    """An ``If`` returns the weight's buffer (a view): written after, read later."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), name="w")

    def construct(self, x):  # type: ignore[no-untyped-def]
        if x.sum() > 0:
            y = self.w.reshape((4,))
        else:
            y = x.reshape((4,))
        ops.assign(self.w, x)
        return y + self.w.reshape((4,))


@pytest.mark.parametrize("level", [1, 2])
def test_a_branch_result_sharing_a_weight_is_copied_before_the_write(level: int) -> None:
    ms.set_context(if_to_select=False)
    x = np.array([[10.0, 20.0], [30.0, 40.0]], np.float32)
    for target in TARGETS:
        out, _, compiled = run_at(level, BranchView, x, target=target)
        np.testing.assert_allclose(out, [11.0, 22.0, 33.0, 44.0])
        region_ops = [n.op.name for n in iter_nodes(compiled.module)]
        assert region_ops.count("If") == 1 and region_ops.count("TensorMove") == 1
    out, _, _ = run_at(level, BranchView, -x)
    np.testing.assert_allclose(out, [-20.0, -40.0, -60.0, -80.0])


class Fused(nn.Cell):
    """Elementwise chains on either side of a write (one fused loop each on numba)."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")

    def construct(self, x):  # type: ignore[no-untyped-def]
        y = self.w * x + 1.0
        ops.assign(self.w, y * 2.0)
        return y - self.w * 0.5 + x


def test_fusion_never_moves_a_read_past_a_write() -> None:
    x = np.array([2.0, 3.0, 4.0], np.float32)
    want = Fused()(Tensor(x)).asnumpy()
    np.testing.assert_allclose(want, x + 0.0)  # y - (2y) * 0.5 + x
    for level in (0, 1, 2, 3):
        for target in TARGETS:
            out, net, _ = run_at(level, Fused, x, target=target)
            np.testing.assert_allclose(out, want)
            np.testing.assert_allclose(net.w.asnumpy(), (np.array([1, 2, 3]) * x + 1) * 2)


# --- choosing the level ----------------------------------------------------------------------


def test_the_environment_variable_sets_the_level_and_the_context_wins(monkeypatch) -> None:
    monkeypatch.setenv("MSC_SIDE_EFFECT_LOAD_ELIM", "0")
    net = ForwardNet()
    compiled = compile_entry(net, [arg_spec(np.array(1, np.int32))], store=None)
    assert count(compiled, "TensorMove") == 3
    ms.set_context(side_effect_load_elim=2)
    compiled = compile_entry(ForwardNet(), [arg_spec(np.array(1, np.int32))], store=None)
    assert count(compiled, "TensorMove") == 0
    assert ms.context.code_options()["side_effect_load_elim"] == 2


def test_bad_levels_are_value_errors(monkeypatch) -> None:
    with pytest.raises(GraphValueError, match="side_effect_load_elim must be 0, 1, 2 or 3"):
        ms.set_context(side_effect_load_elim=4)
    monkeypatch.setenv("MSC_SIDE_EFFECT_LOAD_ELIM", "fast")
    with pytest.raises(GraphValueError, match="MSC_SIDE_EFFECT_LOAD_ELIM must be 0, 1, 2 or 3"):
        compile_entry(ForwardNet(), [arg_spec(np.array(1, np.int32))], store=None)


def test_the_level_is_part_of_the_compile_cache_key(tmp_path) -> None:
    from msc.cache import CacheStore

    store = CacheStore(tmp_path / "cache")
    x = np.array(1, np.int32)
    kinds = []
    for level in (1, 2, 1):
        ms.set_context(side_effect_load_elim=level)
        kinds.append(compile_entry(ForwardNet(), [arg_spec(x)], store=store).cache)
    assert kinds == ["miss", "miss", "hit"]


class ViewBlock(nn.Cell):
    @ms.lazy_inline
    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):  # type: ignore[no-untyped-def]
        return self.w * 1  # the block's weight buffer itself, after folding


class CallsThenWrites(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.CellList([ViewBlock() for _ in range(2)])

    def construct(self, x):  # type: ignore[no-untyped-def]
        a = self.blocks[0](x)
        b = self.blocks[1](x)
        ops.assign(self.blocks[0].w, x)
        return a + b + self.blocks[0].w


@pytest.mark.parametrize("level", [1, 2])
def test_a_shared_graph_result_is_copied_or_read_before_its_weight_is_written(level: int) -> None:
    x = np.array([10.0, 20.0], np.float32)
    for target in TARGETS:
        out, _, compiled = run_at(level, CallsThenWrites, x, target=target)
        np.testing.assert_allclose(out, [12.0, 24.0])
        assert sum(1 for n in compiled.module.entry_graph.nodes if n.op.name == "Call") == 2
        assert count(compiled, "TensorMove") == (1 if level == 1 else 0)
    np.testing.assert_allclose(CallsThenWrites()(Tensor(x)).asnumpy(), [12.0, 24.0])


class TwoWeights(nn.Cell):
    """The old value of ``p`` is used with ``m``, loaded after ``p``'s write."""

    def __init__(self) -> None:
        super().__init__()
        self.p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")
        self.m = Parameter(Tensor(np.array([3.0, 4.0], np.float32)), name="m")

    def construct(self, x):  # type: ignore[no-untyped-def]
        a = self.p * 1
        ops.assign(self.p, x)
        acc = a * self.m + 1.0
        ops.assign(self.m, acc)
        return acc + self.p


def test_level_2_moves_a_load_of_another_weight_along_with_the_read() -> None:
    x = np.array([10.0, 20.0], np.float32)
    want = np.array([1.0, 2.0]) * [3.0, 4.0] + 1.0
    for level, copies in ((1, 1), (2, 0)):
        for target in TARGETS:
            out, net, compiled = run_at(level, TwoWeights, x, target=target)
            np.testing.assert_allclose(out, want + x)
            np.testing.assert_allclose(net.m.asnumpy(), want)
            assert count(compiled, "TensorMove") == copies
    _, _, compiled = run_at(2, TwoWeights, x)
    nodes = compiled.module.entry_graph.nodes
    ops_ = [n.op.name for n in nodes]
    # the Load of m (in the state before p's write) and the read come before that write
    assert ops_.index("Mul") < ops_.index("Assign")
    load_m = next(n for n in nodes if n.op.name == "Load" and n.inputs[0].hint == "m")
    assert ops_.index("Load", 1) == nodes.index(load_m) < ops_.index("Assign")

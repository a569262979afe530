"""``break``/``continue`` under tensor conditions in unrolled loops, ``raise`` and
``assert`` under tensor conditions, and variables a tensor ``if`` cannot merge.

Each case once gave a wrong answer without an error (an unrolled loop stopped at the
first tensor ``break`` whatever its value; a tensor ``raise`` raised on every call).
Compiled (both targets, interpreter) == eager == an independent numpy loop.
"""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.errors import UnsupportedSyntaxError
from tests.codegen import assert_same, build, check_all, to_numpy

F = np.float32


class ForBreak(nn.Cell):
    def construct(self, x):
        out = x
        for i in range(6):
            out = out + i
            if out.max() > 8:
                break
            out = out * 2
        return out


def for_break_numpy(x):
    out = x.copy()
    for i in range(6):
        out = out + F(i)
        if out.max() > 8:
            break
        out = out * F(2)
    return out


class ForContinue(nn.Cell):
    def construct(self, x):
        out = x
        for i in range(6):
            if out.max() > 8:
                continue
            out = out + i
        return out


def for_continue_numpy(x):
    out = x.copy()
    for i in range(6):
        if out.max() > 8:
            continue
        out = out + F(i)
    return out


class ForElseOverTuple(nn.Cell):
    """A loop over a tuple of tensors; ``else`` runs only when no break happened."""

    def construct(self, a, b, c):
        total = a * 0
        for t in (a, b, c):
            if t.sum() < 0:
                break
            total = total + t
        else:
            total = total * 10
        return total


def for_else_numpy(a, b, c):
    total = a * 0
    for t in (a, b, c):
        if t.sum() < 0:
            break
        total = total + t
    else:
        total = total * F(10)
    return total


class Nested(nn.Cell):
    """Each loop keeps its own flags: the inner break does not stop the outer loop."""

    def construct(self, x):
        s = x * 0
        for i in range(3):
            for j in range(4):
                if (s + j).sum() > 6 + i:
                    break
                s = s + 1
            if s.sum() > 100:
                continue
            s = s * 1.5
        return s


def nested_numpy(x):
    s = x * 0
    for i in range(3):
        for j in range(4):
            if (s + F(j)).sum() > 6 + i:
                break
            s = s + F(1)
        if s.sum() > 100:
            continue
        s = s * F(1.5)
    return s


class Cells(nn.Cell):
    """A loop over a CellList whose items are different layers."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x) - 0.25
            if x.min() < -0.1:
                break
        return x


def cells_numpy(x):
    for f in (lambda v: np.maximum(v, 0), np.tanh, lambda v: 1 / (1 + np.exp(-v))):
        x = (f(x) - F(0.25)).astype(F)
        if x.min() < -0.1:
            break
    return x


class ConstantWhileTensorBreak(nn.Cell):
    """The issue's program: the loop test is a constant (a folded ``ops.zeros``) while
    the break depends on the data, so the loop becomes a While after its first test."""

    def construct(self, x0, x1, x2):
        v1 = ops.zeros((), ms.int32)
        while v1 < 3:
            x2 = ops.maximum(x2, x0) * 0.5
            if x2.sum() > 3.0:
                break
            v1 = v1 + 1
        if x0.min() < 1.0:
            x0 = (ops.sqrt(ops.abs(x0) + 1.0) * (x2 + 3))
        else:
            x0 = (x2 / (ops.abs(x1) + 1.0))
        return (ops.exp(ops.clip_by_value((x2 - 3), -3.0, 3.0)),)


def constant_while_numpy(x0, x1, x2):
    for _ in range(3):
        x2 = np.maximum(x2, x0) * F(0.5)
        if x2.sum() > 3.0:
            break
    return (np.exp(np.clip(x2 - F(3), F(-3), F(3))),)


class NestedTensorRanges(nn.Cell):
    """Two ``for i in range(tensor)`` loops, one inside the other, each with its counter."""

    def construct(self, x, n, m):
        s = x * 0
        for i in range(n):
            for j in range(m):
                s = s + x * j
            s = s + i
        return s


def nested_ranges_numpy(x, n, m):
    s = x * 0
    for i in range(int(n)):
        for j in range(int(m)):
            s = s + x * F(j)
        s = s + F(i)
    return s


class ForReturn(nn.Cell):
    def construct(self, x):
        for _ in range(4):
            x = x * 2
            if x.sum() > 10:
                return x - 1
        return x + 100


def for_return_numpy(x):
    for _ in range(4):
        x = x * F(2)
        if x.sum() > 10:
            return x - F(1)
    return x + F(100)


class WhileReturn(nn.Cell):
    """A return inside a tensor while loop: the value is carried, the loop stops."""

    def construct(self, x, n):
        i = 0
        while i < n:
            x = x + 1
            if x.max() > 5:
                return x * 10
            i = i + 1
        return x


def while_return_numpy(x, n):
    for _ in range(int(n)):
        x = x + F(1)
        if x.max() > 5:
            return x * F(10)
    return x


class NestedReturn(nn.Cell):
    """A return in an inner tensor while leaves the outer unrolled loop too."""

    def construct(self, x):
        for i in range(3):
            j = 0
            while j < 3:
                x = x + j
                if x.sum() > 20:
                    return x + i
                j += 1
        return x * 0


def nested_return_numpy(x):
    for i in range(3):
        for j in range(3):
            x = x + F(j)
            if x.sum() > 20:
                return x + F(i)
    return x * F(0)


class WhileTrue(nn.Cell):
    def construct(self, x):
        while True:
            x = x * 2
            if x.sum() > 50:
                break
            if x.sum() < -50:
                return -x
        return x


def while_true_numpy(x):
    while True:
        x = x * F(2)
        if x.sum() > 50:
            break
        if x.sum() < -50:
            return -x
    return x



class ReturnThenLoops(nn.Cell):
    """A loop that may return, then more loops: they are the fall-through path only."""

    def construct(self, x):
        for _ in range(2):
            if x.sum() < -5:
                return x * 3
            x = x - 1
        for i in range(2):
            x = x + i
        return x


def return_then_loops_numpy(x):
    for _ in range(2):
        if x.sum() < -5:
            return x * F(3)
        x = x - F(1)
    return x + F(1)


class UnreachedReturnInWhile(nn.Cell):
    """A return in a tensor while under a condition that folds to False."""

    def construct(self, x):
        c = ms.Tensor(0, ms.int32)
        while (c < 2) and (x.sum() > 0):
            c = c + 1
            if ops.zeros((1,), ms.float32).sum() > 1:
                return x * 0
            x = x - 1
        return x


def unreached_return_numpy(x):
    for _ in range(2):
        if not x.sum() > 0:
            break
        x = x - F(1)
    return x

rs = np.random.RandomState(15874)
ISSUE_INPUTS = [(rs.randn(2, 3) * 1.5).astype(F) for _ in range(3)]
CASES = {
    "for-break": (ForBreak, for_break_numpy,
                  [[np.ones(2, F)], [np.full(2, 5, F)], [np.full(2, -50, F)]]),
    "for-continue": (ForContinue, for_continue_numpy, [[np.ones(2, F)], [np.full(2, 9, F)]]),
    "for-else": (ForElseOverTuple, for_else_numpy,
                 [[np.ones(2, F), np.ones(2, F), np.ones(2, F)],
                  [np.ones(2, F), -np.ones(2, F), np.ones(2, F)]]),
    "nested": (Nested, nested_numpy, [[np.ones(2, F)], [np.zeros(3, F)]]),
    "cells": (Cells, cells_numpy, [[np.linspace(-1, 1, 4).astype(F)], [np.full(3, 2, F)]]),
    "constant-while": (ConstantWhileTensorBreak, constant_while_numpy,
                       [ISSUE_INPUTS, [x * 0.1 for x in ISSUE_INPUTS]]),
    "for-return": (ForReturn, for_return_numpy, [[np.ones(2, F)], [np.full(2, 0.1, F)]]),
    "while-return": (WhileReturn, while_return_numpy,
                     [[np.ones(2, F), np.array(3)], [np.ones(2, F), np.array(10)]]),
    "nested-return": (NestedReturn, nested_return_numpy,
                      [[np.ones(2, F)], [np.full(2, 5, F)], [np.full(2, 30, F)]]),
    "return-then-loops": (ReturnThenLoops, return_then_loops_numpy,
                          [[np.ones(2, F)], [np.full(2, -4, F)]]),
    "unreached-return": (UnreachedReturnInWhile, unreached_return_numpy,
                         [[np.ones(2, F)], [np.full(2, 0.75, F)], [-np.ones(2, F)]]),
    "while-true": (WhileTrue, while_true_numpy, [[np.ones(2, F)], [-np.ones(2, F)]]),
    "nested-ranges": (NestedTensorRanges, nested_ranges_numpy,
                      [[np.ones(2, F), np.array(3), np.array(2)],
                       [np.ones(2, F), np.array(0), np.array(4)]]),
}


@pytest.mark.parametrize("name", CASES)
def test_compiled_equals_eager_and_numpy(name, tmp_path):
    factory, reference, runs = CASES[name]
    for inputs in runs:
        check_all(factory(), inputs, tmp_path, expect=reference(*inputs))


def test_issue_program_gives_eagers_values():
    """The random program's exact inputs: graph mode equals eager mode."""
    net = ConstantWhileTensorBreak()
    eager = to_numpy(net(*[ms.Tensor(x) for x in ISSUE_INPUTS]))
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = to_numpy(net(*[ms.Tensor(x) for x in ISSUE_INPUTS]))
    assert_same(graph, eager, "graph mode")
    np.testing.assert_allclose(eager[0][0, 2], 0.0703, atol=1e-4)


def test_unrolled_loop_guards_later_iterations_without_a_while():
    """A constant range stays unrolled: no While node, one If per guarded iteration."""
    c = compile_entry(ForBreak(), [arg_spec(np.ones(2, F))], store=None, target="python")
    names = [n.op.name for n in c.module.entry_graph.nodes]
    assert "While" not in names
    assert names.count("If") + names.count("Select") >= 5


# --- raise and assert under a tensor condition -----------------------------------------------


class Checked(nn.Cell):
    def construct(self, x):
        if x.sum() > 10:
            raise ValueError("sum too large")
        y = x * 2
        assert y.min() > -5, "too small"
        return y + 1


class RaiseInLoop(nn.Cell):
    """A raise inside a tensor while body; the loop's carried values survive it."""

    def construct(self, x, n):
        i = 0
        while i < n:
            if x.max() > 100:
                raise RuntimeError("diverged")
            x = x * 3
            i = i + 1
        return x


class BothRaise(nn.Cell):
    def construct(self, x):
        y = x + 1
        if x.sum() > 0:
            if y.max() > 3:
                raise ValueError("big")
            else:
                raise TypeError("small")
        return y


@pytest.mark.parametrize("target", ["numba", "python"])
def test_raise_only_when_the_condition_holds(target, tmp_path):
    inputs = [np.ones(3, F)]
    c = compile_entry(Checked(), [arg_spec(x) for x in inputs], store=None, target=target)
    module = build(c.module, target, tmp_path)
    np.testing.assert_array_equal(module(np.ones(3, F)), np.full(3, 3, F))
    with pytest.raises(ValueError, match="sum too large"):
        module(np.full(3, 4, F))
    with pytest.raises(AssertionError, match="too small"):
        module(np.full(3, -3, F))
    loop = compile_entry(RaiseInLoop(), [arg_spec(np.ones(2, F)), arg_spec(np.array(3))],
                         store=None, target=target)
    run = build(loop.module, target, tmp_path)
    np.testing.assert_array_equal(run(np.ones(2, F), np.array(3)), np.full(2, 27, F))
    with pytest.raises(RuntimeError, match="diverged"):
        run(np.ones(2, F), np.array(6))
    both = build(compile_entry(BothRaise(), [arg_spec(np.ones(2, F))], store=None,
                               target=target).module, target, tmp_path)
    np.testing.assert_array_equal(both(-np.ones(2, F)), np.zeros(2, F))
    with pytest.raises(ValueError, match="big"):
        both(np.full(2, 5, F))
    with pytest.raises(TypeError, match="small"):
        both(np.full(2, 0.5, F))


def test_raise_in_graph_mode_matches_eager():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = Checked()
        np.testing.assert_array_equal(net(ms.Tensor(np.ones(3, F))).asnumpy(), np.full(3, 3, F))
        with pytest.raises(ValueError, match="sum too large"):
            net(ms.Tensor(np.full(3, 4, F)))
        with pytest.raises(AssertionError, match="too small"):
            net(ms.Tensor(np.full(3, -3, F)))


class MyError(Exception):
    pass


class RaisesOwnError(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            raise MyError("no")
        return x


def test_a_user_exception_under_a_tensor_condition_is_refused_at_its_line():
    with pytest.raises(UnsupportedSyntaxError, match="only built-in exceptions") as err:
        compile_entry(RaisesOwnError(), [arg_spec(np.ones(2, F))], store=None, target="python")
    assert err.value.loc.line == RaisesOwnError.construct.__code__.co_firstlineno + 2


# --- variables a tensor if cannot merge --------------------------------------------------------


class OneBranch(nn.Cell):
    def construct(self, x, use):
        if x.sum() > 0:
            y = x * 2
        else:
            z = x - 1  # noqa: F841
        return y if use else x


def test_a_variable_set_in_one_branch_is_an_error_only_where_it_is_used():
    ok = compile_entry(OneBranch(), [arg_spec(np.ones(2, F)), False], store=None,
                       target="python")
    assert ok.module is not None
    with pytest.raises(UnsupportedSyntaxError, match="'y' is assigned in only one branch") as err:
        compile_entry(OneBranch(), [arg_spec(np.ones(2, F)), True], store=None, target="python")
    assert err.value.loc.line == OneBranch.construct.__code__.co_firstlineno + 5


y = "a global the loop's local must not fall back to"


class LoopLocal(nn.Cell):
    def construct(self, x, n):
        i = 0
        while i < n:
            y = x * i
            i = i + 1
        return y


def test_a_variable_first_set_in_a_tensor_while_is_an_error_after_it():
    with pytest.raises(UnsupportedSyntaxError, match="'y' is first assigned inside") as err:
        compile_entry(LoopLocal(), [arg_spec(np.ones(2, F)), arg_spec(np.array(2))],
                      store=None, target="python")
    assert err.value.loc.line == LoopLocal.construct.__code__.co_firstlineno + 5



class FailsAlways(nn.Cell):
    def construct(self, x):
        assert x.shape[0] == 3, "three rows"
        return x


def test_an_assert_that_fails_on_constants_is_an_assertion_error():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        with pytest.raises(AssertionError, match="three rows"):
            FailsAlways()(ms.Tensor(np.ones(2, F)))


class FailsInABranch(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            assert x.shape[0] == 3, "three rows"
        return x * 2


@pytest.mark.parametrize("target", ["numba", "python"])
def test_an_assert_failing_on_constants_under_a_tensor_if_raises_only_there(target):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    net = FailsInABranch()
    np.testing.assert_array_equal(net(ms.Tensor(-np.ones(2, F))).asnumpy(), -2 * np.ones(2, F))
    with pytest.raises(AssertionError, match="three rows"):
        net(ms.Tensor(np.ones(2, F)))

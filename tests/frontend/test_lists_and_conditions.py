"""``x in [t1, t2]`` combined with other conditions, ``list.pop()`` of tensors, lists
changed under tensor conditions, and ``ops.assign`` to Parameters held in tuples under
control flow: graph mode against eager (PyNative) mode and numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, ParameterTuple, Tensor, nn, ops

F = np.float32


def _run(make, args, mode):
    ms.set_context(mode=mode, jit_target="python")
    net = make()
    out = net(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    out = out if isinstance(out, tuple) else (out,)
    return net, [o.asnumpy() if hasattr(o, "asnumpy") else np.asarray(o) for o in out]


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64).reshape(np.shape(w)), w)


# --- `in` with other conditions -----------------------------------------------------------


class InCombined(nn.Cell):
    def construct(self, x, t1, t2, y):
        a = 0
        if x in [t1, t2] and y > 0:
            a = a + 1
        if x not in (t1, t2) or y < 0:
            a = a + 10
        if not (x in [t1, t2] and y > 0):
            a = a + 100
        b = x * 2 if x in [t1, t2] and y.sum() > 1 else x
        return a, b


def _in_reference(x, t1, t2, y):
    found = any(x.shape == t.shape and (x == t).all() for t in (t1, t2))
    a = (1 if found and y.item() > 0 else 0) + (10 if not found or y.item() < 0 else 0) + \
        (100 if not (found and y.item() > 0) else 0)
    return a, x * 2 if found and y.sum() > 1 else x


@pytest.mark.parametrize("xv", [1.0, 3.0, 5.0])
@pytest.mark.parametrize("yv", [2.0, 0.5, -1.0])
def test_in_combined_with_and_or_not(xv, yv):
    """One-element tensors: eager Python's ``in`` and the graph's agree."""
    t1, t2 = np.array([1.0], F), np.array([3.0], F)
    args = [np.array([xv], F), t1, t2, np.array([yv], F)]
    want = _in_reference(*args)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _same(_run(InCombined, args, mode)[1], want)


@pytest.mark.parametrize("xv", [[1.0, 2.0], [3.0, 4.0], [5.0, 5.0]])
def test_in_with_several_elements_matches_mindspores_graph_mode(xv):
    # MindSpore 2.10 (graph mode), x = [1, 2] = t1: a = 1 (y = 1), 10 (y = -1); x = [5, 5]:
    # 110; b = x. Eager mode asks a 2-element tensor for one truth value: ValueError.
    t1, t2 = np.array([1.0, 2.0], F), np.array([3.0, 4.0], F)
    for yv in (1.0, -1.0):
        args = [np.array(xv, F), t1, t2, np.array([yv], F)]
        _same(_run(InCombined, args, ms.GRAPH_MODE)[1], _in_reference(*args))


class ConstantIn(nn.Cell):
    """A constant tensor looked up among graph tensors (the fuzzer found it refused)."""

    def construct(self, x, y):
        c = Tensor(np.array([2.0], F))
        if c in (x, y) and x.sum() > 0:
            return x + 1
        return x - 1


@pytest.mark.parametrize("xv, yv", [(2.0, 5.0), (1.0, 2.0), (1.0, 5.0), (-2.0, 2.0)])
def test_a_constant_tensor_in_a_tuple_of_graph_tensors(xv, yv):
    x, y = np.array([xv], F), np.array([yv], F)
    want = x + 1 if 2.0 in (xv, yv) and xv > 0 else x - 1
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _same(_run(ConstantIn, [x, y], mode)[1], [want])


# --- list.pop and lists changed under tensor conditions ------------------------------------


class Pops(nn.Cell):
    def construct(self, x, y):
        lst = [x, y, x + y]
        last = lst.pop()
        first = lst.pop(0)
        total = x * 0
        rest = [x, x * 2, x * 3]
        while len(rest) > 1:  # a Python-constant loop: unrolled
            total = total + rest.pop()
        return last, first, len(lst), lst[0], total, rest[0]


def test_pop_returns_the_tensor_element():
    x, y = np.array([1.0, 2.0], F), np.array([3.0, 5.0], F)
    want = (x + y, x, 1, y, x * 3 + x * 2, x)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _same(_run(Pops, [x, y], mode)[1], want)


class ChangedInIf(nn.Cell):
    """Lists changed in both branches of a tensor if keep their length: merged item by item."""

    def construct(self, x, y):
        lst = [x, y]
        outs = []
        if x.sum() > 0:
            top = lst.pop()
            lst.append(top * 10)
            outs.append(x)
        else:
            lst[0] = y
            outs.append(y)
        return lst[0], lst[1], outs[0], len(outs)


@pytest.mark.parametrize("v", [1.0, -1.0])
def test_lists_changed_in_tensor_if_branches_merge(v):
    x, y = np.array([v], F), np.array([4.0], F)
    want = (x, y * 10, x, 1) if v > 0 else (y, y, y, 1)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _same(_run(ChangedInIf, [x, y], mode)[1], want)


class PopInOneBranch(nn.Cell):
    def construct(self, x, y):
        lst = [x, y]
        if x.sum() > 0:
            a = lst.pop()  # the lists differ in length after the if
        else:
            a = lst[-1] * 0
        return a, len(lst)


class PopInTensorWhile(nn.Cell):
    def construct(self, x, n):
        lst = [x, x * 2, x * 3]
        s = x * 0
        i = 0
        while i < n:
            s = s + lst.pop()  # which item depends on the run-time count
            i = i + 1
        return s


class PopInIfExp(nn.Cell):
    def construct(self, x):
        lst = [x, x * 2]
        a = lst.pop() if x.sum() > 0 else lst[0]
        return a, len(lst)


@pytest.mark.parametrize("make, args, text", [
    (PopInOneBranch, [np.ones(1, F), np.ones(1, F)], "variable 'lst' is a list of 1 in the "
                                                     "if branch but of 2"),
    (PopInTensorWhile, [np.ones(1, F), np.array(2, np.int32)], "the list in 'lst' is changed"),
    (PopInIfExp, [np.ones(1, F)], "the list in 'lst' is changed"),
])
def test_lists_whose_items_depend_on_run_time_values_are_errors(make, args, text):
    """These gave wrong answers silently (each branch changed the one shared list)."""
    with pytest.raises((TypeError, RuntimeError), match=text) as info:
        _run(make, args, ms.GRAPH_MODE)
    assert info.value.loc.file == __file__


# --- ops.assign to Parameters held in tuples under control flow ----------------------------


class AssignThroughTuples(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.zeros(2, F)), name="a")
        self.b = Parameter(Tensor(np.ones(2, F)), name="b")
        self.params = (self.a, self.b)
        self.group = ParameterTuple((self.a, self.b))

    def construct(self, x, n):
        if x.sum() > 0:
            ops.assign(self.params[0], x)
            ops.assign(self.params[1], self.params[1] + x)
        else:
            for p in self.params:
                ops.assign(p, p - 1)
        i = 0
        while i < n:  # a tensor while: each Parameter of the ParameterTuple written
            for p in self.group:
                ops.assign(p, p * 2 + x)
            i = i + 1
        a, b = self.params
        ops.assign_add(a, b)
        return self.a + 0, self.b + 0


def _assign_reference(x, n):
    a, b = np.zeros(2, F), np.ones(2, F)
    if x.sum() > 0:
        a, b = x.copy(), b + x
    else:
        a, b = a - 1, b - 1
    for _ in range(n):
        a, b = a * 2 + x, b * 2 + x
    return a + b, b


@pytest.mark.parametrize("v, n", [(1.0, 2), (-1.0, 3), (2.0, 0)])
def test_assign_to_parameters_in_tuples_under_control_flow(v, n):
    x = np.array([v, 2 * v], F)
    want = _assign_reference(x, n)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        net, got = _run(AssignThroughTuples, [x, np.array(n, np.int32)], mode)
        _same(got, want)
        _same([net.a.asnumpy(), net.b.asnumpy()], want)

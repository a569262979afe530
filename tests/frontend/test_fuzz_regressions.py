"""Programs the differential fuzzer (``python -m msc.fuzz``) found msc getting wrong,
shrunk, one test each: compiled (both targets, interpreter) == eager == numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from tests.codegen import check_all

F = np.float32


class ReadOnlyBranch(nn.Cell):
    """A cheap tensor if whose branch reads a Parameter: if_to_select took the If's last
    result for the state token (there is none when no branch writes) and replaced it."""

    def __init__(self):
        super().__init__()
        self.p0 = Parameter(Tensor(np.array([-2.0, 1.0], F)), name="p0")

    def construct(self, x):
        y = x * 2
        if x.sum() > 0:
            y = self.p0 + 1
        return y, x


def test_a_selected_branch_that_reads_a_parameter(tmp_path):
    for x in (np.array([1.0, 2.0], F), np.array([-1.0, -2.0], F)):
        want = (np.array([-1.0, 2.0], F) if x.sum() > 0 else x * 2, x)
        check_all(ReadOnlyBranch(), [x], tmp_path, expect=want)


class ParameterInLoopTest(nn.Cell):
    """``and`` in a tensor while test whose right side reads a Parameter (an If with a
    Load inside the loop's condition region)."""

    def __init__(self):
        super().__init__()
        self.p0 = Parameter(Tensor(np.array([[2.5], [3.0]], F)), name="p0")

    def construct(self, x):
        c = ops.zeros((), ms.int32)
        while (c < 2) and (self.p0.sum() + x.sum() > 6.25):
            c = c + 1
            x = x - 1
        return x


def test_and_in_a_while_test_reads_a_parameter(tmp_path):
    for x in (np.array([3.0], F), np.array([0.0], F)):
        want = x - 2 if x.sum() + 5.5 - 1 > 6.25 else (x - 1 if x.sum() + 5.5 > 6.25 else x)
        check_all(ParameterInLoopTest(), [x], tmp_path, expect=want)


class RaiseOrRebind(nn.Cell):
    """A branch that raises and one that rebinds: the rebound tensor left its region
    without going through the If ("a tensor of one graph is used inside another")."""

    def construct(self, x, y):
        s = x * 1
        for _ in range(3):
            if y.sum() < -0.75:
                raise ValueError("too large")
            else:
                s = ops.abs(s) + s
        return s


def test_a_value_rebound_next_to_a_raising_branch(tmp_path):
    x = np.array([-1.0, 2.0], F)
    check_all(RaiseOrRebind(), [x, np.ones(2, F)], tmp_path, expect=np.array([0, 16], F))


class ItemInWhile(nn.Cell):
    """``s[0] = v`` in a tensor while body: the loop did not carry ``s``."""

    def construct(self, x, n):
        s = x * 1
        c = 0
        while c < n:
            c = c + 1
            s[0] = s[0] + 10
        return s


def test_item_assignment_in_a_tensor_while_is_carried(tmp_path):
    x = np.array([1.0, 2.0], F)
    check_all(ItemInWhile(), [x, np.array(3)], tmp_path, expect=np.array([31, 2], F))


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()

    def construct(self, a):
        return ops.sin(a) * 2


class SharedCallInNestedRegion(nn.Cell):
    """A shared (lazy_inline) graph called only inside an If inside a While: code
    generation looked for calls in top-level nodes only (KeyError)."""

    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        c = 0
        while c < 3:
            c = c + 1
            if (x.sum() > 5) or (self.block(x).sum() > 0.5):
                x = x - 1
        return x


def test_a_shared_graph_called_inside_nested_regions(tmp_path):
    for x in (np.array([1.0, 2.0], F), np.array([-1.0, -2.0], F)):
        want = x
        for _ in range(3):
            if want.sum() > 5 or (np.sin(want) * 2).sum() > 0.5:
                want = want - 1
        check_all(SharedCallInNestedRegion(), [x], tmp_path, expect=want, rtol=1e-5)


class CallThenBranches(nn.Cell):
    """An entry that calls a shared graph is split into parts for Numba: the If nodes
    after the call lost their regions' nodes, and a part returning the whole output
    tuple was indexed as one array."""

    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        y = self.block(x)
        for _ in range(2):
            if y.sum() > 100:
                raise ValueError("too large")
        return (ops.zeros((2,), ms.float64),)


def test_branches_after_a_shared_call_on_the_split_numba_entry(tmp_path):
    check_all(CallThenBranches(), [np.array([1.0, 2.0], F)], tmp_path,
              expect=(np.zeros(2),))



class ValueOfAnEarlierPart(nn.Cell):
    """A value one part of the split numba entry computes (a Parameter's Load) read by a
    later part (a branch calling the shared graph): the later part's call took the
    value's old name (KeyError while generating code)."""

    def __init__(self):
        super().__init__()
        self.p0 = Parameter(Tensor(np.array([1.0, -0.5], F)), name="p0")
        self.block = Block()

    def construct(self, x):
        y = self.block(self.p0 * 1)
        if x.sum() <= 0:
            y = self.block(0.5 - self.p0)
        return y


def test_a_later_part_reads_a_value_of_an_earlier_part(tmp_path):
    p0 = np.array([1.0, -0.5], F)
    for x in (np.array([1.0, 2.0], F), np.array([-1.0, -2.0], F)):
        want = np.sin(p0 if x.sum() > 0 else 0.5 - p0) * 2
        check_all(ValueOfAnEarlierPart(), [x], tmp_path, expect=want, rtol=1e-6)


class WriteOnlyAfterCall(nn.Cell):
    """A construct that calls a shared graph and returns nothing: on the split numba
    entry its None came out of a part and was copied like an array."""

    def __init__(self):
        super().__init__()
        self.p0 = Parameter(Tensor(np.array([1.0, -0.5], F)), name="p0")
        self.block = Block()

    def construct(self, x):
        self.p0[1] = self.block(x)[0]


def test_a_construct_returning_nothing_after_a_shared_call(tmp_path):
    x = np.array([0.25, 2.0], F)
    _, built = check_all(WriteOnlyAfterCall(), [x], tmp_path)  # None on every way
    for target, run in built.items():
        assert run(x) is None, target
        assert run.extra[0][1] == np.float32(np.sin(F(0.25)) * 2), target

class TempInRepeatedWhile(nn.Cell):
    """A temporary first assigned inside a tensor while that an unrolled loop runs twice:
    the second while tried to carry the first one's unusable temporary."""

    def construct(self, x):
        for _ in range(3):
            c = ops.zeros((), ms.int32)
            while (c < 2) and (x.sum() < 10):
                c = c + 1
                t = x * 2
                x = t - 1
        return x


def test_a_loop_temporary_in_a_repeated_tensor_while(tmp_path):
    for x in (np.array([1.0, 2.0], F), np.array([9.0, 2.0], F)):
        want = x.copy()
        for _ in range(3):
            for _ in range(2):
                if want.sum() >= 10:
                    break
                want = want * 2 - 1
        check_all(TempInRepeatedWhile(), [x], tmp_path, expect=want)


class ReturnInForInWhile(nn.Cell):
    """A return in an unrolled for inside a tensor while: the while did not carry the
    returned flag and value (the inner loop's return is not an assignment yet when the
    while's carried variables are found), so the function fell through."""

    def construct(self, x):
        c = ops.zeros((), ms.int32)
        while (c < 2) and (x.sum() < 5):
            c = c + 1
            for _ in range(2):
                if x.max() > 1:
                    return x * 10
                x = x + 1
        return x - 100


def test_a_return_in_a_for_inside_a_tensor_while(tmp_path):
    def reference(x):
        for _ in range(2):
            if x.sum() >= 5:
                break
            for _ in range(2):
                if x.max() > 1:
                    return x * 10
                x = x + 1
        return x - 100
    for x in (np.array([0.5, 0.25], F), np.array([3.0, 4.0], F), np.array([-5.0, -4.0], F)):
        check_all(ReturnInForInWhile(), [x], tmp_path, expect=reference(x))


def always_fails(a):
    raise ValueError("not this way")


class Refusing(nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()

    def construct(self, a):
        return always_fails(a)


class CallsARaisingBlock(nn.Cell):
    """A shared block that always raises, called in one branch of a tensor if: the raise
    happened while its graph was built, whichever way the branch went."""

    def __init__(self):
        super().__init__()
        self.block = Refusing()

    def construct(self, x):
        if x.sum() > 0:
            x = x * 2
        else:
            x = self.block(x)
        return x


@pytest.mark.parametrize("target", ["numba", "python"])
def test_a_raise_in_a_callee_under_a_tensor_if_happens_at_run_time(target):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    net = CallsARaisingBlock()
    np.testing.assert_array_equal(net(Tensor(np.ones(2, F))).asnumpy(), np.full(2, 2, F))
    with pytest.raises(ValueError, match="not this way"):
        net(Tensor(-np.ones(2, F)))


class WideConditionNarrowValue(nn.Cell):
    """A cheap tensor if on a (1, 1) condition choosing a (2,) value: if_to_select
    reshaped the condition to the value's shape (a compile error on a valid program)."""

    def construct(self, x):
        y = x * 2
        if (x.sum() > 0).reshape((1, 1)):
            y = x - 1
        return y


def test_a_two_dimensional_condition_selecting_a_vector(tmp_path):
    for x in (np.array([1.0, 2.0], F), np.array([-1.0, -2.0], F)):
        check_all(WideConditionNarrowValue(), [x], tmp_path,
                  expect=x - 1 if x.sum() > 0 else x * 2)

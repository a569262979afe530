"""Gradients of MindSpore's control-flow tests (tests/st/control/inner/test_break_continue.py
and friends) whose loops and branches write Parameters: a ``for`` with ``break`` inside a
``for``, ``continue`` and an early ``return``, an ``if`` after them. Each result against
the same function in plain Python (the forward value and Parameters) and its central
finite difference (the gradient)."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn
from msc.common import dtype as mstype
from msc.ops import composite as C


def grad_all(net, *args):
    return C.GradOperation(get_all=True)(net)(*args)


def central(f, x, eps=1e-3):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


class IfAfterForInFor(nn.Cell):
    """MindSpore's ``test_if_after_for_in_for_break`` (float32 here, int32 there)."""

    def __init__(self, dtype=mstype.float32):
        super().__init__()
        self.param_a = Parameter(Tensor(5, dtype), name="a")
        self.param_b = Parameter(Tensor(2, dtype), name="b")

    def construct(self, x):
        out = x + self.param_a
        for _ in range(0, 10):
            x *= 2
            if self.param_a % 2 == 0:
                self.param_a += 1
                continue
            for _ in range(0, 5):
                self.param_a += 1
                x += self.param_b
                if x > 10:
                    break
            if x > 100:
                return x
        if self.param_a > self.param_b:
            out += x
        return out


def plain_if_after_for_in_for(x, params=None):
    a, b = 5.0, 2.0
    out = x + a
    result = None
    for _ in range(10):
        x *= 2
        if a % 2 == 0:
            a += 1
            continue
        for _ in range(5):
            a += 1
            x += b
            if x > 10:
                break
        if x > 100:
            result = x
            break
    if result is None:
        result = out + x if a > b else out
    if params is not None:
        params.extend([a, b])
    return result


class IfAfterForInIf(nn.Cell):
    """MindSpore's ``test_if_after_for_in_if_break``."""

    def __init__(self, dtype=mstype.float32):
        super().__init__()
        self.param_a = Parameter(Tensor(5, dtype), name="a")
        self.param_b = Parameter(Tensor(4, dtype), name="b")

    def construct(self, x):
        out = x + self.param_a
        if self.param_a > self.param_b:
            for _ in range(4):
                self.param_a += 1
                if self.param_b < 0:
                    continue
                self.param_b -= 3
                if self.param_a > 6:
                    break
        self.param_b += 15
        if x < self.param_b:
            out -= self.param_b
            return out
        out = self.param_b + out
        return out


def plain_if_after_for_in_if(x, params=None):
    a, b = 5.0, 4.0
    out = x + a
    if a > b:
        for _ in range(4):
            a += 1
            if b < 0:
                continue
            b -= 3
            if a > 6:
                break
    b += 15
    result = out - b if x < b else b + out
    if params is not None:
        params.extend([a, b])
    return result


# points away from the kinks (x = 2 is one: a comparison there holds with equality)
CASES = [(IfAfterForInFor, plain_if_after_for_in_for, [2.3, 3.7, 0.6, 1.3, 30.0]),
         (IfAfterForInIf, plain_if_after_for_in_if, [2.3, 0.6, 30.0])]


@pytest.mark.parametrize("net, plain, xs", CASES, ids=[c[0].__name__ for c in CASES])
def test_forward_gradient_and_parameters_against_plain_python(mode, net, plain, xs):
    for x in xs:
        cell = net()
        (grad,) = grad_all(cell, Tensor(np.float32(x)))
        params: list[float] = []
        plain(x, params)
        np.testing.assert_allclose(grad.asnumpy(), central(plain, x), rtol=1e-3)
        np.testing.assert_allclose([cell.param_a.asnumpy(), cell.param_b.asnumpy()], params)
        np.testing.assert_allclose(net()(Tensor(np.float32(x))).asnumpy(), plain(x), rtol=1e-6)


def test_mindspores_expected_values_with_int32():
    """The values MindSpore's tests assert (its 2.10 CPU build gives 2 for the first
    gradient and 232 for the second forward value, against its own tests). On the python
    target: Numba took about 45 s on the unrolled int32 gradient of the first from an
    empty kernel library, and the values are the point here (the float32 tests above
    run the numba target)."""
    ms.set_context(jit_target="python")
    x = Tensor(2, mstype.int32)
    assert IfAfterForInFor(mstype.int32)(x).asnumpy() == 106
    (grad,) = grad_all(IfAfterForInFor(mstype.int32), x)
    assert grad.dtype == mstype.int32 and grad.asnumpy() == 16
    assert IfAfterForInIf(mstype.int32)(x).asnumpy() == -6
    (grad,) = grad_all(IfAfterForInIf(mstype.int32), x)
    assert grad.asnumpy() == 1


class WriteInCheapIf(nn.Cell):
    """A cheap ``if`` that writes a Parameter, in a differentiated function: the split
    ``If`` returns its residuals after its state, and its write must still happen."""

    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(5, mstype.float32), name="p")

    def construct(self, x):
        if x > 0:
            self.p += 1
            y = x * x
        else:
            y = x
        return y * self.p


@pytest.mark.parametrize("if_to_select", [True, False])
def test_a_write_in_a_differentiated_cheap_if_happens(if_to_select):
    ms.set_context(mode=ms.GRAPH_MODE, if_to_select=if_to_select)
    try:
        for x, want_grad, want_p in ((2.0, 24.0, 6.0), (-2.0, 5.0, 5.0)):
            net = WriteInCheapIf()
            (grad,) = grad_all(net, Tensor(np.float32(x)))
            np.testing.assert_allclose(grad.asnumpy(), want_grad)  # MindSpore 2.10: 24
            np.testing.assert_allclose(net.p.asnumpy(), want_p)
    finally:
        ms.set_context(if_to_select=True)


# --- tensor while loops that write Parameters or print ---------------------------------------


class WhileAddsToWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.float32(1.0)), name="p")

    def construct(self, x, y):
        while x < 10:
            x = x * 2 + self.p
            ms.ops.assign_add(self.p, y)
        return x * self.p


def plain_while_adds_to_weight(x, y, p=1.0):
    while x < 10:
        x = x * 2 + p
        p += y
    return x * p


class WeightDecidesNestedIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.para = Parameter(Tensor(np.float32(8.0)), name="para")

    def construct(self, x, y):
        out = y * y
        while x < 10:
            if self.para > 5:
                self.para -= 1
                out = out + y
            x = x + 1
        return out


def plain_weight_decides_nested_if(x, y, para=8.0):
    out = y * y
    while x < 10:
        if para > 5:
            para -= 1
            out = out + y
        x = x + 1
    return out


def by_weights(net, *args):
    weights = ms.ParameterTuple(net.trainable_params())
    return C.GradOperation(get_all=True, get_by_list=True)(net, weights)(*args)


@pytest.mark.parametrize("x, y", [(1.0, 0.5), (3.0, 0.25), (11.0, 1.0)])
def test_gradients_flow_through_a_loops_writes(mode, x, y):
    """A read after the loop sees its writes, and its gradient flows back through them
    (MindSpore 2.10 at (1, 0.5): d x 20, d y 61, d p 34.5)."""
    net = WhileAddsToWeight()
    (dx, dy), (dp,) = by_weights(net, Tensor(np.float32(x)), Tensor(np.float32(y)))
    np.testing.assert_allclose(dx.asnumpy(), central(lambda v: plain_while_adds_to_weight(v, y),
                                                     x), rtol=1e-3)
    np.testing.assert_allclose(dy.asnumpy(), central(lambda v: plain_while_adds_to_weight(x, v),
                                                     y), rtol=1e-3)
    np.testing.assert_allclose(dp.asnumpy(), central(
        lambda v: plain_while_adds_to_weight(x, y, v), 1.0), rtol=1e-3)
    p = 1.0
    while x < 10:
        x, p = x * 2 + p, p + y
    np.testing.assert_allclose(net.p.asnumpy(), p)  # written once, by the forward loop


@pytest.mark.parametrize("x0", [9.0, 8.0, 7.0, 3.0])
def test_a_weight_written_in_a_loop_decides_a_branch_inside_it(mode, x0):
    net = WeightDecidesNestedIf()
    _, dy = grad_all(net, Tensor(np.float32(x0)), Tensor(np.float32(1.0)))
    np.testing.assert_allclose(dy.asnumpy(), central(
        lambda v: plain_weight_decides_nested_if(x0, v), 1.0), rtol=1e-3)
    np.testing.assert_allclose(net.para.asnumpy(), max(5.0, 8.0 - (10 - x0)))


class ContinueStuck(nn.Cell):
    """MindSpore's ``test_continue_stuck_in_vm``: a weight-controlled loop in a loop,
    written in both, left by a return."""

    def __init__(self):
        super().__init__()
        self.para = Parameter(Tensor(8, mstype.int32), name="a")

    def construct(self, x, y):
        out = y * y
        while x != 3:
            while self.para > 5:
                self.para -= 1
                x += 1
                if x > 3:
                    self.para -= x
                    return out
                out = out + y
            continue
        out = out * y
        return out


class IfAfterIfInWhileBreak(nn.Cell):
    """MindSpore's ``test_if_after_if_in_while_break_backward``."""

    def __init__(self):
        super().__init__()
        self.i = Tensor(np.array(0), mstype.int32)
        self.zero = Tensor(np.array(0), mstype.int32)
        self.weight = Parameter(Tensor(np.array(0), mstype.int32), name="weight")

    def construct(self, x, y):
        i = self.i
        out = self.zero
        while i < 10:
            self.weight = i
            if self.weight % 2 == 0:
                i = i + 1
                continue
            if out <= 20:
                self.weight = i
                out = x * y + out
            else:
                break
            i = i + 1
        if out >= 30:
            self.weight = out
            out = out - 30
            return out
        out = out + 1
        return out


def test_mindspores_loops_that_write_weights():
    """The gradients MindSpore 2.10 gives (and its tests assert)."""
    dx, dy = grad_all(ContinueStuck(), Tensor(2, mstype.int32), Tensor(1, mstype.int32))
    assert (dx.asnumpy(), dy.asnumpy()) == (0, 3)
    net = IfAfterIfInWhileBreak()
    dx, dy = grad_all(net, Tensor(1, mstype.int32), Tensor(3, mstype.int32))
    assert (dx.asnumpy(), dy.asnumpy()) == (15, 5)
    assert net.weight.asnumpy() == 9


class PrintInWhile(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([2.0], mstype.float32), name="w")

    def construct(self, x):
        while x < 20:
            print("x:", x)
            x = x * self.w
        return x


def test_a_loop_that_prints_prints_once_and_is_differentiated(capfd):
    ms.set_context(mode=ms.GRAPH_MODE)
    (dx,), (dw,) = by_weights(PrintInWhile(), Tensor(np.array([1.5], np.float32)))
    assert capfd.readouterr().out.count("x:") == 4  # the forward loop's four iterations
    np.testing.assert_allclose(dx.asnumpy(), [16.0])  # MindSpore 2.10: 16 and 48
    np.testing.assert_allclose(dw.asnumpy(), [48.0])

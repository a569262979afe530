"""``with`` over ``@jit_class`` context managers inside ``construct``: graph mode against
eager (PyNative) mode and numpy, and MindSpore 2.10's errors for other objects.

The cases follow MindSpore's own graph-mode ``with`` tests (the expected values in the
comments are the ones MindSpore asserts); the numpy references are written here."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, jit_class, nn, ops

I64 = np.int64


@jit_class
class Doubler:
    """``__enter__`` gives num * 2; ``__exit__``'s result is ignored."""

    def __init__(self):
        self.num = Tensor(np.array([2], I64))

    def __enter__(self):
        return self.num * 2

    def __exit__(self, exc_type, exc_value, traceback):
        return self.num * 4


@jit_class
class Tripler:
    def __init__(self):
        self.num = Tensor(np.array([1], I64))

    def __enter__(self):
        return self.num * 3

    def __exit__(self, exc_type, exc_value, traceback):
        return self.num * 5


@jit_class
class Counter:
    """Counts its enters and exits in Parameters, so the tests see when each ran."""

    def __init__(self):
        self.entered = Parameter(Tensor(np.zeros(1, np.float32)), name="entered")
        self.exited = Parameter(Tensor(np.zeros(1, np.float32)), name="exited")

    def __enter__(self):
        ops.assign_add(self.entered, Tensor(np.ones(1, np.float32)))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        # the order of exits shows in the value: exit() after enter() gives 10 * entered
        ops.assign(self.exited, self.exited * 10 + self.entered)


def run_both(make, *args):
    """(eager result, graph result) of fresh Cells from ``make`` on ``args``."""
    out = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode, jit_target="python")
        net = make()
        out.append((net, net(*args)))
    return out


def as_np(v):
    return tuple(as_np(x) for x in v) if isinstance(v, tuple) else np.asarray(v.asnumpy())


def check(make, want, *args):
    for net, got in run_both(make, *args):
        got = as_np(got)
        want_t = want if isinstance(want, tuple) else (want,)
        got_t = got if isinstance(got, tuple) else (got,)
        assert len(got_t) == len(want_t)
        for g, w in zip(got_t, want_t):
            np.testing.assert_array_equal(g, w)


def test_with_as_binds_enter_and_keeps_the_object():
    class Net(nn.Cell):
        def construct(self):
            res = 1
            obj = Doubler()
            with obj as sample:
                res += sample
            return res, obj.num

    check(Net, (np.array([5], I64), np.array([2], I64)))  # MindSpore: 5 and 2


def test_with_without_as_twice_nested_and_parallel():
    class Net(nn.Cell):
        def construct(self, x):
            res = x
            obj = Doubler()
            with obj:
                res = res + obj.num
            with obj as s:
                res = res + s
                with obj as s2:
                    res = res + s2 * 2
            with Doubler() as a, Tripler() as b:
                res = res + a * b
            return res

    x = np.array([1, 2], I64)
    check(Net, x + 2 + 4 + 8 + 12, Tensor(x))  # MindSpore: nested 14, parallel 14 from 2


def test_tensor_if_and_early_return_inside_with():
    class Net(nn.Cell):
        def construct(self, x):
            obj = Doubler()
            with obj as s:
                res = x + s
                if x > 0:
                    return res
            res = res * 2
            return res

    for v in (1, -1):  # MindSpore: 5 for x = 1
        x = np.array([v], I64)
        check(Net, x + 4 if v > 0 else (x + 4) * 2, Tensor(x))


def test_loops_with_break_and_continue_inside_with():
    class Net(nn.Cell):
        def construct(self, x):
            res = x
            with Doubler() as s:
                y = 1
                for i in [1, 2, 3, 0, 5]:
                    if i == 3:
                        continue
                    if i == 0:
                        break
                    y += i
                res = res + s * y
            return res

    x = np.array([2], I64)
    check(Net, x + 4 * (1 + 1 + 2), Tensor(x))


def test_with_inside_a_tensor_while_loop():
    class Net(nn.Cell):
        def construct(self, x, n):
            i = 0
            while i < n:  # a While node: the body is built once
                with Doubler() as s:
                    x = x + s
                    if x.sum() > 10:
                        break
                i = i + 1
            return x

    for n in (0, 2, 5):
        x = np.array([1], I64)
        want = x.copy()
        for _ in range(n):
            want = want + 4
            if want.sum() > 10:
                break
        check(Net, want, Tensor(x), Tensor(np.array(n, np.int32)))


class Counted(nn.Cell):
    """enter, exit in order: before each return and break that leaves the with too."""

    def __init__(self):
        super().__init__()
        self.outer = Counter()
        self.inner = Counter()

    def construct(self, x):
        for i in range(3):
            with self.outer:
                if i == 1:
                    break
        with self.outer, self.inner:
            if x > 0:
                return x * 2
        return x


def _counted_reference(x):
    """The two Counters' (entered, exited) as Python runs ``Counted.construct``."""
    outer = [0.0, 0.0]
    inner = [0.0, 0.0]

    def enter(c):
        c[0] += 1

    def exit_(c):
        c[1] = c[1] * 10 + c[0]

    for i in range(3):
        enter(outer)
        exit_(outer)
        if i == 1:
            break
    enter(outer)
    enter(inner)
    exit_(inner)  # the inner manager exits first, on the return path and the other
    exit_(outer)
    return outer, inner


@pytest.mark.parametrize("v", [3.0, -3.0])
def test_exit_runs_before_return_and_break_inner_first(v):
    x = np.array([v], np.float32)
    outer, inner = _counted_reference(x)
    for net, got in run_both(Counted, Tensor(x)):
        np.testing.assert_array_equal(got.asnumpy(), x * 2 if v > 0 else x)
        np.testing.assert_array_equal(net.outer.entered.asnumpy(), [outer[0]])
        np.testing.assert_array_equal(net.outer.exited.asnumpy(), [outer[1]])
        np.testing.assert_array_equal(net.inner.exited.asnumpy(), [inner[1]])


def test_parameter_side_effects_in_enter_body_and_exit():
    @jit_class
    class Scaled:
        def __init__(self):
            self.num = Parameter(Tensor(np.array([2], I64)), name="num")

        def __enter__(self):
            self.num *= 2
            return self.num

        def __exit__(self, exc_type, exc_value, traceback):
            self.num *= 4
            return self.num

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.obj = Scaled()
            self.param = Parameter(Tensor(np.array([1], I64)), name="param")

        def construct(self):
            res = 1
            self.param += 3
            with self.obj as sample:
                res = res + sample + self.param
                self.param -= sample
            return res, self.obj.num

    # num: 2 -> 4 (enter) -> 16 (exit); res = 1 + 4 + 4; param 4 - 4
    for net, got in run_both(Net):
        np.testing.assert_array_equal(as_np(got)[0], [9])
        np.testing.assert_array_equal(as_np(got)[1], [16])
        np.testing.assert_array_equal(net.param.asnumpy(), [0])


# --- what MindSpore 2.10 refuses ------------------------------------------------------


class Plain:
    def __enter__(self):
        return 3

    def __exit__(self, *exc):
        return False


@jit_class
class NoExit:
    def __enter__(self):
        return 1


def _error_net(kind):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sub = nn.ReLU()

        def construct(self, x):
            manager = {"plain": Plain(), "tensor": x, "int": 3, "cell": self.sub,
                       "noexit": NoExit()}[kind]
            with manager:  # the line each error names
                x = x + 1
            return x
    return Net


@pytest.mark.parametrize("kind, exc, text", [
    # MindSpore 2.10: TypeError "Only support jit_class instance, but got PythonObject..."
    # (a plain object), "... but got ValueAny" (a tensor, a Cell), "... but got 3"
    ("plain", TypeError, "Only support jit_class instance"),
    ("tensor", TypeError, "Only support jit_class instance"),
    ("int", TypeError, "Only support jit_class instance"),
    ("cell", TypeError, "Only support jit_class instance"),
    # MindSpore 2.10: RuntimeError "MsClassObject: 'NoExit' has no __exit__ function, ..."
    ("noexit", RuntimeError, "has no __exit__ function"),
])
def test_other_managers_raise_mindspores_errors_at_the_users_line(kind, exc, text):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(exc, match=text) as info:
        _error_net(kind)()(Tensor(np.ones(1, np.float32)))
    assert info.value.loc.file == __file__
    assert "with manager:" in open(__file__).read().splitlines()[info.value.loc.line - 1]


def test_an_error_in_a_method_the_body_calls_stops_the_compile():
    @jit_class
    class Broken:
        def __init__(self):
            self.num = Tensor(np.array([1], I64))

        def __enter__(self):
            return self

        def __exit__(self, exc_type, exc_value, traceback):
            return self.work(1)

        def work(self, x):
            return 2 / 0 + x + self.num  # the division the error names

    class Net(nn.Cell):
        def construct(self, x):
            with Broken() as b:
                x = b.work(x)
            return x

    # MindSpore 2.10's message (its own with test asserts "The divisor could not be zero")
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(ValueError, match="The divisor could not be zero") as info:
        Net()(Tensor(np.array([1], I64)))
    assert "2 / 0" in open(__file__).read().splitlines()[info.value.loc.line - 1]


def test_eager_mode_runs_any_python_manager():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    got = _error_net("plain")()(Tensor(np.ones(1, np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [2.0])


def test_numba_target_runs_a_with_body():
    class Net(nn.Cell):
        def construct(self, x):
            with Doubler() as s:
                y = x * s
            return y + 1

    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    x = np.array([1, 2, 3], I64)
    np.testing.assert_array_equal(Net()(Tensor(x)).asnumpy(), x * 4 + 1)


class FloorDividesByZero(nn.Cell):
    def construct(self, x):
        return x + 2 // 0


class ModuloByZero(nn.Cell):
    def construct(self, x):
        return x + 2 % 0


@pytest.mark.parametrize("net, message", [
    (FloorDividesByZero, "The divisor could not be zero. But the divisor is zero now."),
    (ModuloByZero, "Cannot perform modulo operation on zero."),
])
def test_a_number_divided_by_zero_in_a_graph_gives_mindspores_error(net, message):
    """MindSpore 2.10's graph mode: a ValueError with these messages (eager mode raises
    Python's ZeroDivisionError, as MindSpore's PyNative mode does)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match=message.replace(".", r"\.")) as info:
        net()(Tensor(np.array([1], I64)))
    assert "test_with_statement.py" in str(info.value)  # at the user's line
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        with pytest.raises(ZeroDivisionError):
            net()(Tensor(np.array([1], I64)))
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)

"""Python's own meaning of Python syntax on tensors, in graphs as in eager mode:
``and``/``or``/``not`` choose operands (they are not element-wise logic), and every
spelling of a dtype MindSpore accepts works."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from tests.codegen import check_all

F = np.float32


class BoolOps(nn.Cell):
    def construct(self, x, y):
        return x and y, x or y, (x and y) or x


class Not(nn.Cell):
    def construct(self, x):
        return not x


@pytest.mark.parametrize("x, y", [(1.5, 0.0), (0.0, 2.0), (3.0, 4.0), (0.0, 0.0)])
def test_and_or_choose_an_operand(x, y, tmp_path):
    a, b = np.array([x], F), np.array([y], F)
    first = a if not x else b
    check_all(BoolOps(), [a, b], tmp_path, expect=(first, a if x else b, first if x and y else a))


@pytest.mark.parametrize("x", [0.0, 2.0])
def test_not_is_the_negated_truth_value(x):
    """Eager ``not`` gives a Python bool; a graph gives it as a bool tensor."""
    assert Not()(Tensor(np.array([x], F))) is (not x)
    ms.set_context(mode=ms.GRAPH_MODE)
    got = Not()(Tensor(np.array([x], F))).asnumpy()
    assert got.dtype == np.bool_ and got.size == 1 and bool(got.reshape(())) is (not x)


class ShortCircuit(nn.Cell):
    """The right operand runs only when it is the result: its write happens only then."""

    def __init__(self):
        super().__init__()
        self.calls = Parameter(Tensor(np.zeros(1, F)), name="calls")

    def bump(self, x):
        ops.assign_add(self.calls, Tensor(np.ones(1, F)))
        return x * 10

    def construct(self, x):
        return x or self.bump(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_right_operand_is_evaluated_only_when_chosen(mode):
    ms.set_context(mode=mode)
    net = ShortCircuit()
    assert net(Tensor(np.array([2.0], F))).asnumpy().tolist() == [2.0]
    assert net.calls.asnumpy().tolist() == [0.0]
    assert net(Tensor(np.array([0.0], F))).asnumpy().tolist() == [0.0]
    assert net.calls.asnumpy().tolist() == [1.0]


class Ambiguous(nn.Cell):
    def construct(self, x):
        return x and x + 1


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_multi_element_truth_value_is_a_value_error(mode):
    ms.set_context(mode=mode)
    with pytest.raises(ValueError, match="ambiguous"):
        Ambiguous()(Tensor(np.ones(3, F)))


# --- dtype spellings -----------------------------------------------------------------------


class Casts(nn.Cell):
    def construct(self, x):
        return (x.astype(np.int32), x.astype("int16"), ops.cast(x, np.float64),
                ops.cast(x, ms.int64), x.astype(bool), ops.zeros((2,), "int32"),
                ops.ones((1,), np.float64))


def test_every_dtype_spelling_in_a_graph_and_eagerly(tmp_path):
    x = np.array([0.0, 1.5, -2.0], F)
    expect = (x.astype(np.int32), x.astype(np.int16), x.astype(np.float64),
              x.astype(np.int64), x.astype(bool), np.zeros(2, np.int32), np.ones(1))
    check_all(Casts(), [x], tmp_path, expect=expect)


@pytest.mark.parametrize("spelling, want", [(np.int32, np.int32), ("float16", np.float16),
                                            (np.dtype("float64"), np.float64),
                                            (ms.uint8, np.uint8), (float, np.float64),
                                            ("float", np.float64)])
def test_tensor_takes_every_dtype_spelling(spelling, want):
    """MindSpore 2.10's ``astype`` takes them all; msc also takes them in ``Tensor`` and
    ``tensor`` (MindSpore raises TypeError there: a documented difference)."""
    assert Tensor([1.5, 2.0]).astype(spelling).asnumpy().dtype == want
    assert Tensor([1, 2], dtype=spelling).asnumpy().dtype == want
    assert ms.tensor([1, 2], spelling).asnumpy().dtype == want


def test_an_unknown_dtype_is_the_users_type_error():
    with pytest.raises(TypeError, match="dtype must be"):
        Tensor([1.0]).astype("complex-ish")


# --- built-ins on graph tensors ------------------------------------------------------------


class Builtins(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(2, F)), name="w")

    def construct(self, x, a, b):
        is_tensor = isinstance(self.w, type(x)) and isinstance(x, (int, Tensor))
        return max(x), min(x), max(a, b), min((a, b)), max([b, a, b]), x * is_tensor


@pytest.mark.parametrize("a, b", [(1.0, 2.0), (2.0, 1.0), (3.0, 3.0)])
def test_max_min_type_and_isinstance_on_graph_tensors(a, b, tmp_path):
    x = np.array([1.0, 4.0, -2.0], F)
    ta, tb = np.array([a], F), np.array([b], F)
    expect = (np.array(4.0, F), np.array(-2.0, F), max(ta, tb), min(ta, tb), max(tb, ta),
              x)
    check_all(Builtins(), [x, ta, tb], tmp_path, expect=expect)


class TwoBig(nn.Cell):
    def construct(self, x, y):
        return max(x, y)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_max_of_multi_element_tensors_is_a_value_error(mode):
    ms.set_context(mode=mode)
    with pytest.raises(ValueError):
        TwoBig()(Tensor(np.ones(2, F)), Tensor(np.zeros(2, F)))


# --- functions and items chosen by a tensor -------------------------------------------------


class ChosenLambda(nn.Cell):
    def scale(self, v):
        return v * 3

    def construct(self, x):
        if x.sum() > 0:
            f = lambda v: v * 2  # noqa: E731
        else:
            f = self.scale
        return f(x) + 1


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_function_chosen_by_a_tensor_if_is_called_in_both_branches(sign, tmp_path):
    x = np.array([sign, 2 * sign], F)
    check_all(ChosenLambda(), [x], tmp_path, expect=x * (2 if sign > 0 else 3) + 1)


class SwitchLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])

    def construct(self, x, i):
        return self.layers[i](x) + (x, x * 2, x * 3)[i]


@pytest.mark.parametrize("i", [0, 1, 2, -1, -3])
def test_a_cell_list_and_a_tuple_indexed_by_a_tensor(i):
    """MindSpore's switch_layer: graph mode only (eager indexing needs a Python int)."""
    x = np.array([-1.0, 0.5], F)
    layers = [lambda v: np.maximum(v, 0), np.tanh, lambda v: 1 / (1 + np.exp(-v))]
    want = layers[i](x) + (x, x * 2, x * 3)[i]
    ms.set_context(mode=ms.GRAPH_MODE)
    got = SwitchLayer()(Tensor(x), Tensor(np.array(i))).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


# --- item assignment -------------------------------------------------------------------------


class ItemAssign(nn.Cell):
    def construct(self, x, t):
        for i in range(3):
            x[i] = x[i] * 2
        x[0:2] = 5.0
        x[t] = -1
        x[..., 1:3] += 10
        x[t, ::2] = x[0, 1:]
        return x


def item_assign_numpy(x, t):
    x = x.copy()
    for i in range(3):
        x[i] = x[i] * 2
    x[0:2] = 5.0
    x[t] = -1
    x[..., 1:3] += 10
    x[t, ::2] = x[0, 1:]
    return x


@pytest.mark.parametrize("t", [2, -1, -4])
def test_item_assignment_rebinds_the_tensor(t, tmp_path):
    x = np.arange(12, dtype=F).reshape(4, 3)
    check_all(ItemAssign(), [x, np.array(t)], tmp_path, expect=item_assign_numpy(x, t))


@pytest.mark.parametrize("target", ["numba", "python"])
def test_an_assigned_tensor_index_out_of_range_raises_index_error(target, tmp_path):
    from msc.compiler import arg_spec, compile_entry
    from tests.codegen import build

    x = np.ones((4, 3), F)
    c = compile_entry(ItemAssign(), [arg_spec(x), arg_spec(np.array(0))], store=None,
                      target=target)
    run = build(c.module, target, tmp_path)
    with pytest.raises(IndexError):
        run(x, np.array(4))
    with pytest.raises(IndexError):
        ItemAssign()(Tensor(x), Tensor(np.array(-5)))


class WeightItem(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros((2, 3), F)), name="w")

    def construct(self, x, t):
        self.w[t, 1:] = x
        return self.w * 1


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_item_assignment_of_a_parameter_writes_it(mode):
    ms.set_context(mode=mode)
    net = WeightItem()
    out = net(Tensor(np.array([7, 8], F)), Tensor(np.array(1)))
    want = np.array([[0, 0, 0], [0, 7, 8]], F)
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(net.w.asnumpy(), want)


class Aliased(nn.Cell):
    def construct(self, x):
        y = x
        x[0] = 5
        return y


def test_item_assignment_of_an_aliased_tensor_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="'x' is also 'y'"):
        Aliased()(Tensor(np.ones(2, F)))


class ItemOfA0dTensor(nn.Cell):
    """An index on a 0-d tensor (fuzz seed 15101, program 37): a graph refused it with
    msc's ShapeError, eager mode raised numpy's bare IndexError (no line of the user's)."""

    def construct(self, x):
        s = x.max()
        s[Tensor(-1, ms.int32)] = 0
        return s


class TwoIndicesOfAVector(nn.Cell):
    def construct(self, x):
        s = x * 1
        s[0, 1] = 0
        return s


class ItemPastTheEnd(nn.Cell):
    def construct(self, x):
        s = x * 1
        s[5] = 0
        return s


@pytest.mark.parametrize("cell, error, message", [
    (ItemOfA0dTensor, "ShapeError", "For 'setitem', too many indices (1) for a 0-d tensor"),
    (TwoIndicesOfAVector, "ShapeError", "For 'setitem', too many indices (2) for a 1-d tensor"),
    (ItemPastTheEnd, "GraphIndexError",
     "For 'setitem', index 5 is out of bounds for axis 0 with size 2"),
])
def test_a_refused_item_assignment_raises_msc_error_alike_in_both_modes(cell, error, message):
    """Eager ``x[key] = v`` raises a graph's error for a key numpy refuses: msc's class,
    message and the user's line, in PYNATIVE and GRAPH mode alike."""
    line = cell.construct.__code__.co_firstlineno + 2
    seen = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        with pytest.raises(ms.errors.MscError) as err:
            cell()(Tensor(np.ones(2, F)))
        seen.append((type(err.value).__name__, err.value.message, err.value.loc.file,
                     err.value.loc.line))
    assert seen[0] == seen[1] == (error, message, __file__, line)


class AssignKey(nn.Cell):
    def __init__(self, key):
        super().__init__()
        self.key = key

    def construct(self, x, i, v):
        s = x * 1
        s[self.key] = v
        return s


class AssignAtTensor(nn.Cell):
    """``s[before + (i,) + after] = v``: an integer tensor index ``i`` among static ones."""

    def __init__(self, before, after):
        super().__init__()
        self.before, self.after = before, after

    def construct(self, x, i, v):
        s = x * 1
        s[self.before + (i,) + self.after] = v
        return s


class AssignMasked(nn.Cell):
    def construct(self, x, i, v):
        s = x * 1
        s[i] = v
        return s


I0 = np.array(1)  # a 0-d integer tensor index
I1 = np.array([0, 2])
ROWS = np.array([True, False])
EVEN = np.arange(6).reshape(2, 3) % 2 == 0
ASSIGNED = [  # x's shape, key (I0/I1/a mask: a tensor, and where it stands), value's shape
    ((2, 3), 0, (1, 3)), ((2, 3), 0, (1, 1, 3)), ((2, 3), 0, (1, 1, 1)),
    ((2, 3, 4), (slice(0, 2), 0), (1, 1, 2, 4)), ((2, 3, 4), (slice(None), 1), (1, 1, 4)),
    ((2, 3), (0, slice(1, 3)), (1, 1, 2)), ((2, 3), (0, ..., 0), (1, 1)),
    ((), ..., (1, 1)), ((4,), slice(None, None, 2), (1, 2)),
    ((2, 3), (I0,), (1, 3)), ((2, 3), (I0,), (1, 1, 3)),
    ((2, 3), (slice(None), I0), (1, 1, 2)), ((2, 3), (slice(None), I0), ()),
    ((2, 3, 4), (slice(None), I0, slice(None)), (4,)),
    ((2, 3, 4), (slice(None), I0, slice(None)), (1, 1, 2, 4)),
    ((2, 3), (slice(None), I1), (1, 1)), ((3,), (I1,), (1, 1, 1)),
    ((2, 3), ROWS, (1, 1, 3)), ((2, 3), ROWS, (3,)), ((2, 3), ROWS, (1, 1, 1, 1)),
    ((2, 3, 4), EVEN, (1, 1, 4)), ((2, 3), EVEN, (1,)), ((2, 3), EVEN, ()),
]
REFUSED = [  # ... and the msc error both modes raise where numpy refuses the value
    ((2, 3), 0, (2, 3), "ShapeError"), ((2, 3), 0, (3, 1), "ShapeError"),
    ((2, 3), 0, (2,), "ShapeError"), ((2, 3), (0, 0), (1,), "ShapeError"),
    ((2, 3), (0, 0), (1, 1), "ShapeError"), ((), (), (1,), "ShapeError"),
    ((2, 3, 4), (slice(None), 0), (2, 1, 4), "ShapeError"),
    ((2, 3), (I0,), (2, 3), "ShapeError"), ((3,), (I0,), (1,), "ShapeError"),
    ((2, 3), (0, I0), (1, 1), "ShapeError"),
    ((2, 3), (slice(None), I0), (2, 1), "ShapeError"),
    ((2, 3), EVEN, (1, 1), "GraphTypeError"), ((2, 3), ROWS, (2, 1, 3), "ShapeError"),
    ((2, 3), ROWS, (4,), "ShapeError"),
]


def _assign_case(shape, key):
    x = np.arange(int(np.prod(shape)), dtype=F).reshape(shape)
    if isinstance(key, np.ndarray) and key.dtype == np.bool_:
        return x, key, AssignMasked()
    parts = key if isinstance(key, tuple) else (key,)
    at = next((n for n, k in enumerate(parts) if isinstance(k, np.ndarray)), None)
    if at is None:
        return x, np.array(0), AssignKey(key)
    return x, parts[at], AssignAtTensor(parts[:at], parts[at + 1:])


def _both_modes(cell, x, i, v):
    """The result (or the error) of PYNATIVE then GRAPH mode."""
    seen = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            seen.append(cell(Tensor(x), Tensor(i), Tensor(v)).asnumpy())
        except Exception as e:  # noqa: BLE001 - compared below
            seen.append(e)
    return seen


@pytest.mark.parametrize("shape, key, value", ASSIGNED)
def test_a_value_with_extra_leading_1_dims_is_assigned_alike_in_both_modes(shape, key, value):
    """numpy drops an assigned value's leading 1-dims (a (1, 3) value fits a (3,)
    selection); a graph refused such a value with ShapeError (fuzz seed 15101) that eager
    mode assigned."""
    x, i, cell = _assign_case(shape, key)
    v = np.arange(-1, -1 - int(np.prod(value)), -1).astype(F).reshape(value)
    want = x.copy()
    want[key] = v
    eager, graph = _both_modes(cell, x, i, v)
    for got in (eager, graph):
        assert isinstance(got, np.ndarray), repr(got)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape, key, value, error", REFUSED)
def test_a_value_numpy_refuses_raises_the_same_msc_error_in_both_modes(shape, key, value,
                                                                       error):
    """numpy refuses these values (checked here); eager mode re-raises the graph's msc
    error, so both modes raise the same class and message at the user's file."""
    x, i, cell = _assign_case(shape, key)
    v = np.ones(value, F)
    with pytest.raises((ValueError, TypeError)):
        x.copy()[key] = v
    seen = _both_modes(cell, x, i, v)
    assert all(isinstance(e, ms.errors.MscError) for e in seen), seen
    assert [type(e).__name__ for e in seen] == [error, error]
    assert seen[0].message == seen[1].message
    assert all(e.loc.file == __file__ for e in seen)


def test_a_tensor_owns_its_data_and_from_numpy_shares_it():
    a = np.zeros(3, F)
    owned, shared = Tensor(a), Tensor.from_numpy(a)
    owned[0] = 1
    shared[1] = 2
    assert a.tolist() == [0, 2, 0] and owned.asnumpy().tolist() == [1, 0, 0]


# --- graph-level Python: numpy constants, lists, constexpr, switch, mutable --------------------


class NumpyConstants(nn.Cell):
    def construct(self, x):
        a = np.array([1.0, 2.0], np.float32)
        b = np.sum(a) * 2  # a numpy scalar, folded while the graph is built
        return x + Tensor(a) + b, np.ones(2)


def test_numpy_on_constants_folds_and_an_ndarray_result_is_a_tensor(tmp_path):
    x = np.ones(2, F)
    want = (np.array([8.0, 9.0], F), np.ones(2))
    ms.set_context(mode=ms.GRAPH_MODE)
    got = NumpyConstants()(Tensor(x))
    np.testing.assert_array_equal(got[0].asnumpy(), want[0])
    assert isinstance(got[1], Tensor)  # MindSpore gives the ndarray itself: a difference
    np.testing.assert_array_equal(got[1].asnumpy(), want[1])


@ms.jit
def list_argument(xs, y):
    xs.append(y)
    first = xs.pop(0)
    xs.insert(0, first * 10)
    return first + len(xs), xs[0]


@ms.jit
def bad_pop(xs):
    return xs.pop(5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_list_argument_stays_a_list(mode):
    ms.set_context(mode=mode)
    total, head = list_argument([Tensor(1.0), Tensor(2.0)], Tensor(5.0))
    assert float(total.asnumpy()) == 4.0 and float(head.asnumpy()) == 10.0
    with pytest.raises(IndexError):
        bad_pop([Tensor(1.0)])


@ops.constexpr
def doubled(n):
    return n * 2


class ConstexprAndSwitch(nn.Cell):
    def construct(self, x, pair):
        scale = doubled(x.shape[0])
        chosen = ops.functional.switch(x.sum() > 0, x, -x)
        return chosen * scale + pair[0] * pair[1]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_constexpr_switch_and_mutable(sign, tmp_path):
    x = np.array([sign, 2 * sign], F)
    pair = (np.array(2.0, F), np.array(3.0, F))
    want = np.abs(x) * 4 + 6
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        out = ConstexprAndSwitch()(Tensor(x), ms.mutable(tuple(Tensor(p) for p in pair)))
        np.testing.assert_array_equal(out.asnumpy(), want)


def test_a_constexpr_function_refuses_graph_tensors():
    class Bad(nn.Cell):
        def construct(self, x):
            return doubled(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="constexpr function 'doubled' takes constants"):
        Bad()(Tensor(np.ones(2, F)))


# --- membership and C's remainder -----------------------------------------------------------


class Membership(nn.Cell):
    def construct(self, x, y, z, i):
        found = x in (y, z)
        if x not in [y]:
            x = x * 2
        return found, x, x in (i,), i in (1, 2)


@pytest.mark.parametrize("target", ["numba", "python"])
@pytest.mark.parametrize("y", [[1.0, 2.0], [1.0, 3.0]])
def test_a_tensor_in_a_tuple_is_a_bool_tensor_as_in_mindspore_graphs(target, y):
    """Equal to an element of the same dtype and shape in every position; an element of
    another dtype or shape never matches (MindSpore's eager mode, like Python, asks a
    multi-element tensor for one truth value and raises instead)."""
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    x = np.array([1.0, 2.0], F)
    found, out, other, number = Membership()(Tensor(x), Tensor(np.array(y, F)),
                                             Tensor(np.array([[1.0, 2.0]], F)),
                                             Tensor(np.array([1, 2], np.int32)))
    same = bool((x == np.array(y, F)).all())
    assert found.dtype == ms.bool_ and found.shape == () and bool(found.asnumpy()) == same
    np.testing.assert_array_equal(out.asnumpy(), x if same else x * 2)
    assert other is False and number is False


class Remainders(nn.Cell):
    def construct(self, x, y, i, j):
        return ops.Mod()(x, y), ops.fmod(x, 3.0), x % y, ops.Mod()(i, j), i % j


def test_mod_takes_the_dividends_sign_and_percent_the_divisors(tmp_path):
    x, y = np.array([7.25, -5.5, 1e-20, -3.0], F), np.array([2.0, 3.0, 3.0, -2.0], F)
    i, j = np.array([7, -7, 5, -7], np.int32), np.array([3, 3, -2, -3], np.int32)
    check_all(Remainders(), [x, y, i, j], tmp_path,
              expect=(np.fmod(x, y), np.fmod(x, F(3)), np.mod(x, y), np.fmod(i, j),
                      np.mod(i, j)))


@ms.jit_class
class Scaled:
    def __init__(self, v, k=2.0):
        self.v = v * k

    def plus(self, y):
        return self.v + y


class MakesJitClass(nn.Cell):
    def construct(self, x):
        box = Scaled(Tensor(np.full(2, 2.0, np.float32)), 0.5)  # (not from graph tensors)
        pair = (x - 1, x + 1)[x.sum() > 0]  # a bool tensor index chooses at run time
        return box.plus(pair) * isinstance(box, Scaled) * isinstance(x, (int, Tensor))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_jit_class_made_in_a_graph_and_a_bool_index(sign, tmp_path):
    x = np.array([1.0, 2.5], F) * F(sign)
    check_all(MakesJitClass(), [x], tmp_path, expect=1 + (x + 1 if x.sum() > 0 else x - 1))


# --- numbers merged by a tensor if or carried by a tensor while -------------------------------


class MergedNumbers(nn.Cell):
    def construct(self, x, n):
        k = 2
        if x.sum() > 0:
            k = k + 1
        i = 0
        while i < n:
            i = i + 1
        return x + k, x * i, x * (k + i) - 0.5 * k


@pytest.mark.parametrize("sign", [1, -1])
def test_a_merged_python_number_keeps_the_tensors_dtype(sign, tmp_path):
    """A number a tensor if merges (or a while carries) is a 0-d tensor in the graph, but
    combines with tensors as the Python number does: int32 + k is int32, not int64."""
    x = np.array([1, 2], np.int32) * sign
    k = 3 if x.sum() > 0 else 2
    want = (x + k, x * 4, (x * (k + 4) - 0.5 * k).astype(F))
    check_all(MergedNumbers(), [x, np.array(4, np.int32)], tmp_path, expect=want)


def test_each_lambda_of_a_line_compiles_its_own_body():
    """Several lambdas on one line (and one inside another): each compiles its own body,
    found by its code's positions (the line's first lambda was compiled for every one)."""
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    x = Tensor(np.array([1.0, 2.0], F))
    triple = ms.jit(lambda a: a * 3); shifted = ms.jit(lambda a: a + 100)  # noqa: E702, E731
    np.testing.assert_allclose(triple(x).asnumpy(), [3.0, 6.0])
    np.testing.assert_allclose(shifted(x).asnumpy(), [101.0, 102.0])
    outer = (lambda: ms.grad(lambda a: (a * a * a).sum())(x))  # noqa: E731
    np.testing.assert_allclose(outer().asnumpy(), [3.0, 12.0])

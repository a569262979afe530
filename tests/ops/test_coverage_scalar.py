"""The scalar and sequence ops of MindSpore's functional namespace: eager results as
MindSpore 2.10 gives them (checked there: ``scalar_div(4, 2) == 2.0``, ``scalar_mod(7, -3)
== -2``, ``tuple_div((4, 6), (2, 3)) == (2, 2)``, ``bool_not`` a bool tensor,
``tensor_range`` int64), and inside a graph, where they fold to constants."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import run_python_graph, to_numpy


@pytest.mark.parametrize("call, want", [
    (lambda: ops.scalar_add(1, 2), 3), (lambda: ops.scalar_sub(1, 2.5), -1.5),
    (lambda: ops.scalar_mul(3, 4), 12), (lambda: ops.scalar_div(4, 2), 2.0),
    (lambda: ops.scalar_floordiv(7, 2), 3), (lambda: ops.scalar_mod(7, -3), -2),
    (lambda: ops.scalar_pow(2, 3), 8), (lambda: ops.scalar_usub(3), -3),
    (lambda: ops.scalar_uadd(3), 3), (lambda: ops.scalar_log(2.0), math.log(2.0)),
    (lambda: ops.scalar_eq(1, 1.0), True), (lambda: ops.scalar_ne(1, 2), True),
    (lambda: ops.scalar_lt(1, 2), True), (lambda: ops.scalar_ge(1, 2), False),
    (lambda: ops.scalar_gt(3, 2), True), (lambda: ops.scalar_le(2, 2), True),
    (lambda: ops.scalar_max(1, 2.5), 2.5), (lambda: ops.scalar_min(1, 2.5), 1),
    (lambda: ops.scalar_cast(3.7, ms.int64), 3), (lambda: ops.scalar_cast(0, ms.bool_), False),
    (lambda: ops.hyper_add((1, [2, 3]), (10, [20, 30])), (11, [22, 33])),
    (lambda: ops.augassign_add(1, 2), 3), (lambda: ops.augassign_div(3, 2), 1.5),
    (lambda: ops.augassign_floordiv(7, 2), 3), (lambda: ops.augassign_mod(-7, 3), 2),
    (lambda: ops.bool_and(True, False), False), (lambda: ops.bool_or(0, 1), True),
    (lambda: ops.bool_eq(True, 1), True), (lambda: ops.is_(None, None), True),
    (lambda: ops.is_not(None, 1), True), (lambda: ops.make_tuple(1, 2), (1, 2)),
    (lambda: ops.make_list(1, 2), [1, 2]), (lambda: ops.make_slice(1, 4, 2), slice(1, 4, 2)),
    (lambda: ops.make_dict(("a", "b"), (1, 2)), {"a": 1, "b": 2}),
    (lambda: ops.tuple_len((1, 2, 3)), 3), (lambda: ops.list_len([1]), 1),
    (lambda: ops.tuple_getitem((1, 2, 3), 1), 2), (lambda: ops.list_getitem([1, 2], -1), 2),
    (lambda: ops.dict_getitem({"a": 1}, "a"), 1),
    (lambda: ops.tuple_setitem((1, 2, 3), 1, 9), (1, 9, 3)),
    (lambda: ops.list_setitem([1, 2, 3], 1, 9), [1, 9, 3]),
    (lambda: ops.dict_setitem({"a": 1}, "b", 2), {"a": 1, "b": 2}),
    (lambda: ops.in_dict("a", {"a": 1}), True), (lambda: ops.not_in_dict("a", {"a": 1}), False),
    (lambda: ops.tuple_equal((1, 2), (1, 2)), True), (lambda: ops.list_equal([1], [2]), False),
    (lambda: ops.string_eq("a", "a"), True), (lambda: ops.string_concat("a", "b"), "ab"),
    (lambda: ops.tuple_div((4, 6), (2, 3)), (2, 2)),
    (lambda: ops.tuple_reversed((1, 2, 3)), (3, 2, 1)), (lambda: ops.tail((1, 2, 3)), (2, 3)),
    (lambda: ops.zip_operation((1, 2), (3, 4)), ((1, 3), (2, 4))),
    (lambda: ops.shape_mul((2, 3, 4)), 24), (lambda: ops.shape_mul(()), 1),
    (lambda: ops.shape_(Tensor(np.zeros((2, 3)))), (2, 3)),
    (lambda: ops.reduced_shape((2, 3, 4), (1,)), (2, 1, 4)),
    (lambda: ops.reduced_shape((2, 3), ()), (1, 1)), (lambda: ops.isconstant(1), True),
])
def test_eager_values(call, want):
    got = call()
    assert got == want and type(got) is type(want)


def test_tensor_results():
    assert ops.bool_not(True).dtype == ms.bool_ and not ops.bool_not(True).asnumpy()
    d = ops.dyn_shape(Tensor(np.zeros((2, 3))))
    assert d.dtype == ms.int64 and d.asnumpy().tolist() == [2, 3]
    r = ops.tensor_range(Tensor(0), Tensor(5), Tensor(2))
    assert r.dtype == ms.int64 and r.asnumpy().tolist() == [0, 2, 4]
    assert ops.range(Tensor(0), Tensor(5), Tensor(2)).asnumpy().tolist() == [0, 2, 4]
    f = ops.tensor_range(Tensor(0.0), Tensor(1.0), Tensor(0.25))
    assert f.dtype == ms.float32 and f.asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    assert ops.scalar_to_array(3.0).dtype == ms.float32
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(ops.tensor_muls(x, 3.0).asnumpy(), [3.0, 6.0])
    np.testing.assert_array_equal(ops.pows(x, 2.0).asnumpy(), [1.0, 4.0])
    np.testing.assert_array_equal(ops.fills(x, 7).asnumpy(), [7.0, 7.0])
    e = ops.expand(Tensor(np.array([[1.0], [2.0]], np.float32)), Tensor(np.array([2, 3])))
    np.testing.assert_array_equal(e.asnumpy(), [[1.0] * 3, [2.0] * 3])


def test_errors():
    with pytest.raises(ValueError, match="Int64, Float64, Bool"):
        ops.scalar_cast(3.7, ms.int32)
    with pytest.raises(ValueError, match="maxlen"):
        ops.range(Tensor(0), Tensor(10), Tensor(1), maxlen=5)
    with pytest.raises(ValueError, match="divisible"):
        ops.tuple_div((4, 5), (2, 3))


class InGraph(nn.Cell):
    def construct(self, x):
        n = ops.shape_mul(ops.shape_(x))
        shape = ops.tuple_setitem(ops.shape_(x), 0, ops.scalar_floordiv(n, 2))
        y = ops.reshape(x, ops.tuple_reversed(shape))
        k = ops.scalar_add(ops.tuple_len(shape), ops.scalar_to_array(2.0))
        return (y * k, ops.tensor_range(0, ops.tuple_getitem(shape, 0), 1), ops.fills(x, 2.5),
                ops.tensor_muls(x, ops.scalar_max(1, 2)), ops.expand(x[:1], ops.shape_(x)),
                ops.bool_and(x > 0, True))


def test_in_a_graph(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(3, 2) - 1
    want = (x.reshape(2, 3) * 4.0, np.arange(3, dtype=np.int64), np.full((3, 2), 2.5, np.float32),
            x * 2, np.broadcast_to(x[:1], (3, 2)), x > 0)
    eager = to_numpy(InGraph()(Tensor(x)))
    got = run_python_graph(InGraph(), [x], tmp_path)
    for g, e, w in zip(got, eager, want):
        np.testing.assert_array_equal(e, w)
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype

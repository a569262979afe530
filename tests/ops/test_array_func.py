"""The array ops (sorting, gathers and scatters, triangles, flips, rolls, pieces,
statistics, norms, creation, small contractions): eager == graph on both targets ==
numpy written here, MindSpore's result dtypes, and the errors for bad arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from msc.ops import functional as F
from tests.codegen import check_all

RNG = np.random.default_rng(7)


def _x(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, shape).astype(np.float32)


def shapes_and_pieces(x: Any, v: Any, w: Any) -> Any:
    return (ops.tril(x), ops.triu(x, 1), ops.tril(x, -1), ops.flip(x, (0, 1)), ops.fliplr(x),
            ops.flipud(x), ops.roll(x, 1, 1), ops.roll(x, (1, -2), (0, 1)), ops.roll(x, 3),
            *ops.chunk(x, 3, 1), *ops.unbind(x, 0), ops.narrow(x, 1, 1, 2),
            ops.repeat_interleave(x, 2, 0), ops.repeat_interleave(x, [1, 0, 2], 0),
            ops.repeat_elements(x, 2, 1), ops.swapaxes(x, 0, 1), ops.moveaxis(x, 0, -1),
            ops.t(x), ops.ravel(x), x.clone(), ops.expand_as(v, x),
            *ops.meshgrid(v, w), *ops.meshgrid(v, w, indexing="ij"))


def shapes_and_pieces_expect(x: np.ndarray, v: np.ndarray, w: np.ndarray) -> Any:
    rows, cols = np.indices(x.shape)
    return (np.where(cols <= rows, x, 0), np.where(cols >= rows + 1, x, 0),
            np.where(cols <= rows - 1, x, 0), x[::-1, ::-1], x[:, ::-1], x[::-1],
            np.concatenate([x[:, -1:], x[:, :-1]], 1),
            np.concatenate([x[-1:], x[:-1]], 0)[:, [2, 3, 0, 1]],
            np.concatenate([x.ravel()[-3:], x.ravel()[:-3]]).reshape(x.shape),
            x[:, 0:2], x[:, 2:4], x[0], x[1], x[2], x[:, 1:3],
            x[[0, 0, 1, 1, 2, 2]], x[[0, 2, 2]], x[:, [0, 0, 1, 1, 2, 2, 3, 3]], x.T, x.T,
            x.T, x.ravel(), x, np.broadcast_to(v, x.shape),
            *np.meshgrid(v, w), *np.meshgrid(v, w, indexing="ij"))


def statistics(x: Any, y: Any, m: Any) -> Any:
    return (ops.std(x), ops.var(x, 1, ddof=1, keepdims=True), *ops.std_mean(x, 0),
            *ops.var_mean(x, (0, 1)), ops.norm(x), ops.norm(x, 1, 1), ops.norm(x, 3.0, 0),
            ops.norm(x, float("inf")), ops.norm(x, "fro"), ops.norm(x, -float("inf"), 1),
            ops.outer(x[0], y[1]), ops.inner(x, y), ops.dot(x, y.T), ops.diag(x[1]),
            ops.trace(x[:, :3]), ops.masked_fill(x, m, 0.5), ops.index_select(x, 1, Tensor(
                np.array([3, 0, 3], np.int32))), ops.isclose(x, y), x.std(), ops.var(x, 0),
            ops.index_add(x, Tensor(np.array([0, 2, 0], np.int32)), y[:, :3], 1))


def statistics_expect(x: np.ndarray, y: np.ndarray, m: np.ndarray) -> Any:
    add = x.copy()
    for k, c in enumerate([0, 2, 0]):
        add[:, c] += y[:, k]
    return (x.std(), x.var(1, ddof=1, keepdims=True), x.std(0), x.mean(0), x.var(),
            x.mean(), np.sqrt((x * x).sum()), np.abs(x).sum(1),
            (np.abs(x) ** 3).sum(0) ** (1 / 3), np.abs(x).sum(1).max(),
            np.sqrt((x * x).sum()), np.abs(x).min(1), np.outer(x[0], y[1]), x @ y.T,
            x @ y.T, np.diag(x[1]), np.trace(x[:, :3]), np.where(m, np.float32(0.5), x),
            x[:, [3, 0, 3]], np.abs(x - y) <= 1e-8 + 1e-5 * np.abs(y), x.std(), x.var(0), add)


@pytest.mark.parametrize("fn, expect, inputs", [
    (shapes_and_pieces, shapes_and_pieces_expect, lambda: [_x(3, 4), _x(4), _x(2)]),
    (statistics, statistics_expect, lambda: [_x(3, 4), _x(3, 4), RNG.random((3, 4)) > 0.5]),
], ids=["shapes_and_pieces", "statistics"])
def test_compositions_agree_eager_graph_and_numpy(fn: Any, expect: Any, inputs: Any,
                                                  tmp_path: Any) -> None:
    args = inputs()
    check_all(fn, args, tmp_path, expect=expect(*args), rtol=1e-4, atol=1e-5)


def test_result_dtypes_follow_mindspore() -> None:
    x = Tensor(np.array([[3.0, 1.0, 3.0], [0.0, 5.0, 4.0]], np.float32))
    n = Tensor(np.array([[3, 1, 2]], np.int32))
    assert ops.sort(x)[1].dtype == ms.int32 and ops.argsort(x).dtype == ms.int32
    assert ops.topk(x, 2)[1].dtype == ms.int32 and x.topk(1)[0].dtype == ms.float32
    assert ops.cummax(x, 1)[1].dtype == ms.int64 and ops.cummin(x, 1)[1].dtype == ms.int32
    assert ops.cumprod(n, 1).dtype == ms.int64 and ops.CumProd()(n, 1).dtype == ms.int32
    assert ops.cumprod(n, 1, dtype=ms.float32).dtype == ms.float32
    assert ops.arange(5).dtype == ms.int64 and ops.arange(0, 2, 0.5).dtype == ms.float32
    assert ops.arange(1, 5.0).shape == (4,) and ops.arange(5, 1, -2).asnumpy().tolist() == [5, 3]
    assert ops.linspace(0, 1, 5).dtype == ms.float32 and ops.eye(2, 3).dtype == ms.float32
    assert ops.eye(2, dtype=ms.int32).dtype == ms.int32
    assert ops.isclose(x, x).dtype == ms.bool_ and ops.trace(n[:, :1]).dtype == ms.int32
    np.testing.assert_allclose(x.var(1).asnumpy(), x.asnumpy().var(1), rtol=1e-6)


def test_sorting_is_stable_and_topk_takes_the_first_of_equal_values() -> None:
    x = Tensor(np.array([1.0, 3.0, 3.0, 2.0, 3.0, 0.0], np.float32))
    assert ops.sort(x)[1].asnumpy().tolist() == [5, 0, 3, 1, 2, 4]
    assert ops.sort(x, descending=True)[1].asnumpy().tolist() == [1, 2, 4, 3, 0, 5]
    assert ops.topk(x, 3)[1].asnumpy().tolist() == [1, 2, 4]
    assert ops.topk(x, 2, largest=False)[0].asnumpy().tolist() == [0.0, 1.0]
    # a running extreme moves to the later of equal values, as MindSpore's does
    assert ops.cummax(x, 0)[1].asnumpy().tolist() == [0, 1, 2, 2, 4, 4]


def test_python_value_forms() -> None:
    x = Tensor(np.zeros((2, 3), np.float32))
    assert ops.Shape()(x) == (2, 3) and ops.DType()(x) == ms.float32
    assert ops.Size()(x) == 6 and ops.numel(x) == 6 and ops.Rank()(x) == 2
    assert F.make_range(1, 7, 2) == (1, 3, 5)
    assert F.tuple_to_array((1, 2)).dtype == ms.int64
    assert F.tensor_pow(Tensor(np.array([2.0], np.float32)), 3).asnumpy().tolist() == [8.0]
    assert ops.identity(x).shape == (2, 3) and bool(x.allclose(x))


def test_primitive_classes() -> None:
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(ops.Sort(axis=0, descending=True)(x)[0].asnumpy(), x.asnumpy()[::-1])
    np.testing.assert_array_equal(ops.TopK()(x, 1)[1].asnumpy(), [[3], [3], [3]])
    np.testing.assert_array_equal(ops.Tril(1)(x).asnumpy(), np.tril(x.asnumpy(), 1))
    np.testing.assert_array_equal(ops.ReverseV2(axis=(1,))(x).asnumpy(), x.asnumpy()[:, ::-1])
    np.testing.assert_array_equal(ops.Cummin(axis=0)(x)[0].asnumpy(), np.tile(x.asnumpy()[:1], (3, 1)))
    idx = Tensor(np.array([[0], [2]], np.int32))
    np.testing.assert_array_equal(ops.GatherNd()(x, idx).asnumpy(), x.asnumpy()[[0, 2]])
    np.testing.assert_array_equal(ops.ScatterNd()(idx, Tensor(np.ones((2, 4), np.float32)),
                                                  (3, 4)).asnumpy()[:, 0], [1, 0, 1])
    np.testing.assert_array_equal(ops.TensorScatterElements(1, "add")(
        x, Tensor(np.zeros((3, 1), np.int64)), x[:, :1]).asnumpy()[:, 0], [0, 8, 16])
    np.testing.assert_array_equal(ops.IndexAdd(0)(x, Tensor(np.array([1], np.int32)),
                                                  x[:1]).asnumpy()[1], [4, 6, 8, 10])
    parts = ops.Unstack(axis=1)(x)
    assert len(parts) == 4 and parts[3].asnumpy().tolist() == [3, 7, 11]
    a, b = ops.Meshgrid(indexing="ij")((x[0], x[:, 0]))
    assert a.shape == b.shape == (4, 3)


@pytest.mark.parametrize("mode, target", [(ms.PYNATIVE_MODE, "numba"), (ms.GRAPH_MODE, "numba"),
                                          (ms.GRAPH_MODE, "python")])
def test_gradients_flow_back_through_sort_topk_and_gathers(mode: int, target: str) -> None:
    ms.set_context(mode=mode, jit_target=target)
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    weights = np.array([1.0, 10.0], np.float32)

    def loss(t: Any) -> Any:
        top = ops.topk(t, 2)[0] * Tensor(weights)
        return top.sum() + ops.gather_nd(t, Tensor(np.array([[1, 2]], np.int32))).sum() * 3 \
            + ops.cumprod(t, 1).sum()

    got = ms.grad(loss)(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for r in range(2):
        order = np.argsort(-x[r], kind="stable")
        want[r, order[0]] += 1.0
        want[r, order[1]] += 10.0
        for i in range(3):  # d/dx_i of sum_j prod_{k<=j} x_k
            want[r, i] += sum(np.prod([x[r, k] for k in range(j + 1) if k != i])
                              for j in range(i, 3))
    want[1, 2] += 3
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("mode, target", [(ms.PYNATIVE_MODE, "numba"), (ms.GRAPH_MODE, "numba"),
                                          (ms.GRAPH_MODE, "python")])
def test_a_gathers_gradient_adds_slices_at_repeated_indices(axis, mode, target):
    """Along any axis (moved first where axes come before it) the slices of the output's
    gradient are added back at their indices, repeated and negative ones too: numpy's
    add.at, in float64, over a weighted sum of the gathered values."""
    ms.set_context(mode=mode, jit_target=target)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    idx = np.array([1, -1, 1, 0, 1], np.int32)
    out_shape = list(x.shape)
    out_shape[axis] = idx.size
    w = rng.standard_normal(out_shape).astype(np.float32)
    got = ms.grad(lambda t: (ops.gather(t, Tensor(idx), axis) * Tensor(w)).sum())(Tensor(x))
    want = np.zeros(x.shape)
    np.add.at(np.moveaxis(want, axis, 0), idx % x.shape[axis], np.moveaxis(w, axis, 0))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call, error", [
    (lambda x: ops.topk(x, 4), ValueError),
    (lambda x: ops.topk(x, 0), ValueError),
    (lambda x: ops.sort(Tensor(1.0)), ValueError),
    (lambda x: ops.sort(x, 2), ValueError),
    (lambda x: ops.cumprod(Tensor(2.0), 0), ValueError),
    (lambda x: ops.flip(x, 1), TypeError),
    (lambda x: ops.tril(x[0]), ValueError),
    (lambda x: ops.gather_nd(x, Tensor(np.array([[2, 0]], np.int32))), IndexError),
    (lambda x: ops.gather_nd(x, Tensor(np.array([[-1, 0]], np.int32))), IndexError),
    (lambda x: ops.gather_d(x, 1, Tensor(np.array([[3], [0]], np.int32))), IndexError),
    (lambda x: ops.gather_d(x, 1, Tensor(np.zeros((1, 1), np.int32))), ValueError),
    (lambda x: ops.gather_nd(x, Tensor(np.array([[0.0, 1.0]], np.float32))), TypeError),
    (lambda x: ops.tensor_scatter_update(x, Tensor(np.array([[0]], np.int32)),
                                         Tensor(np.ones((1, 2), np.float64))), TypeError),
    (lambda x: ops.std(Tensor(np.arange(3))), TypeError),
    (lambda x: ops.norm(x, 2), ValueError),
    (lambda x: ops.narrow(x, 1, 2, 2), ValueError),
    (lambda x: ops.tensor_scatter_elements(x, Tensor(np.zeros((2, 3), np.int32)), x,
                                           reduction="mul"), ValueError),
])
def test_bad_arguments_raise_mindspores_error_types(call: Any, error: type) -> None:
    with pytest.raises(error):
        call(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))

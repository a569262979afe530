"""``msc.numpy``: each function eagerly and in a graph (python target) == numpy itself, with
MindSpore's numpy result dtypes (int32/float32 defaults, integer sums int64, an integer
mean truncated); a few graphs on numba; a Cell using it; the documented errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
import msc.numpy as mnp
from msc import nn
from tests.codegen import assert_same, check_all, to_numpy

RNG = np.random.default_rng(11)
F = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
G = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)
V = RNG.uniform(-2, 2, (4,)).astype(np.float32)
I = RNG.integers(-5, 6, (3, 4)).astype(np.int32)  # noqa: E741 - an int array
D = RNG.uniform(-2, 2, (2, 3)).astype(np.float64)
B = RNG.random((3, 4)) > 0.5
IDX = np.array([[0, 5], [11, 13]], np.int32)

i32, i64, f32 = np.int32, np.int64, np.float32


def _int_var(x: np.ndarray, axis: Any = None, ddof: int = 0) -> np.ndarray:
    """MindSpore's numpy centres an integer array on its truncated integer mean."""
    centre = np.trunc(x.mean(axis=axis, keepdims=True))
    n = x.size if axis is None else x.shape[axis]
    return (((x - centre) ** 2).sum(axis=axis) / (n - ddof)).astype(np.float32)


# (id, call(m, *inputs) for m in (msc.numpy, numpy), inputs, result dtype where MindSpore's
# numpy differs from numpy's, or an explicit numpy reference)
CASES: list[tuple[Any, ...]] = [
    ("zeros", lambda m: m.zeros((2, 3)), [], f32),
    ("ones_int", lambda m: m.ones(3, m.int32), [], None),
    ("full_int", lambda m: m.full((2, 2), 3), [], i32),
    ("full_float", lambda m: m.full((2, 2), 1.5), [], f32),
    ("full_tensor", lambda m, v: m.full((3, 4), v), [V], None),
    ("arange", lambda m: m.arange(2, 11, 3), [], i32),
    ("arange_float", lambda m: m.arange(0, 1, 0.25), [], f32),
    ("linspace", lambda m: m.linspace(0, 1, 5), [], f32),
    ("linspace_int", lambda m: m.linspace(0, 10, 5, dtype=m.int32), [], None),
    ("linspace_open", lambda m: m.linspace(1, 2, 4, endpoint=False), [], f32),
    ("logspace", lambda m: m.logspace(0, 2, 3), [], f32),
    ("eye", lambda m: m.eye(3, 4, 1), [], f32),
    ("identity", lambda m: m.identity(3, m.int32), [], None),
    ("tri", lambda m: m.tri(3, 4, -1), [], f32),
    ("asarray", lambda m: m.asarray([[1, 2], [3, 4]]), [], i32),
    ("asarray_float", lambda m: m.asarray([1.5, 2.0]), [], f32),
    ("array_dtype", lambda m, x: m.array(x, dtype=m.float32), [I], None),
    ("zeros_like", lambda m, x: m.zeros_like(x), [I], None),
    ("ones_like", lambda m, x: m.ones_like(x, dtype=m.float32), [I], None),
    ("full_like", lambda m, x: m.full_like(x, 2.5), [I], None),
    ("tril", lambda m, x: m.tril(x, -1), [F], None),
    ("triu_1d", lambda m, v: m.triu(v, 1), [V], None),
    ("diag_of_2d", lambda m, x: m.diag(x, 1), [F], None),
    ("diag_from_1d", lambda m, v: m.diag(v, -1), [V], None),
    ("diagonal", lambda m, x: m.diagonal(x, 1), [F], None),
    ("trace_int", lambda m, x: m.trace(x), [I], i64),
    ("trace_float", lambda m, x: m.trace(x, -1), [F], None),
    ("meshgrid", lambda m, v, x: m.meshgrid(v, x[:, 0]), [V, I], None),
    ("meshgrid_ij", lambda m, v, x: m.meshgrid(v, x[:, 0], indexing="ij"), [V, I], None),
    ("meshgrid_sparse", lambda m, v, x: m.meshgrid(v, x[0], sparse=True), [V, F], None),
    ("concatenate", lambda m, x, y: m.concatenate((x, y), axis=1), [F, G], None),
    ("concatenate_mixed", lambda m, x, y: m.concatenate((x, y)), [I, F], f32),
    ("concatenate_flat", lambda m, x, y: m.concatenate((x, y), axis=None), [F, D], None),
    ("stack", lambda m, x, y: m.stack((x, y), axis=-1), [F, G], None),
    ("hstack", lambda m, x, y: m.hstack((x, y)), [F, G], None),
    ("vstack", lambda m, x, y: m.vstack((x, y)), [F, G], None),
    ("where", lambda m, b, x, y: m.where(b, x, y), [B, I, F], f32),
    ("where_scalar", lambda m, x: m.where(x > 0, x, 0), [I], i32),
    ("reshape", lambda m, x: m.reshape(x, (2, -1)), [F], None),
    ("ravel", lambda m, x: m.ravel(x), [I], None),
    ("transpose", lambda m, x: m.transpose(x), [F], None),
    ("transpose_axes", lambda m, x: m.transpose(m.reshape(x, (3, 2, 2)), (1, 0, 2)), [F], None),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 1), [F], None),
    ("moveaxis", lambda m, x: m.moveaxis(m.reshape(x, (3, 2, 2)), 0, -1), [F], None),
    ("expand_dims", lambda m, x: m.expand_dims(x, (0, 2)), [F], None),
    ("squeeze", lambda m, x: m.squeeze(m.reshape(x, (1, 3, 1, 4)), axis=2), [F], None),
    ("tile", lambda m, x: m.tile(x, (2, 1, 2)), [I], None),
    ("repeat", lambda m, x: m.repeat(x, 2), [I], None),
    ("repeat_axis", lambda m, x: m.repeat(x, [1, 0, 2], axis=0), [F], None),
    ("flip", lambda m, x: m.flip(x), [F], None),
    ("flip_axis", lambda m, x: m.flip(x, 1), [F], None),
    ("fliplr", lambda m, x: m.fliplr(x), [I], None),
    ("rot90", lambda m, x: m.rot90(x), [I], None),
    ("roll_flat", lambda m, x: m.roll(x, 5), [F], None),
    ("roll_axes", lambda m, x: m.roll(x, (1, -2), axis=(0, 1)), [F], None),
    ("broadcast_to", lambda m, v: m.broadcast_to(v, (3, 4)), [V], None),
    ("split", lambda m, x: m.split(x, 2, axis=1), [F], None),
    ("split_indices", lambda m, x: m.split(x, [1, 3], axis=1), [F], None),
    ("array_split", lambda m, x: m.array_split(x, 3, axis=1), [F], None),
    ("take_flat", lambda m, x, i: m.take(x, i), [F, IDX],
     lambda x, i: np.take(x, i, mode="clip")),
    ("take_axis_wrap", lambda m, x: m.take(x, m.asarray([0, 5, -1]), axis=1, mode="wrap"),
     [F], None),
    ("atleast_3d", lambda m, v: m.atleast_3d(v), [V], None),
    ("sum_int", lambda m, x: m.sum(x), [I], i64),
    ("sum_axis_keep", lambda m, x: m.sum(x, axis=1, keepdims=True), [F], None),
    ("sum_initial", lambda m, x: m.sum(x, axis=0, initial=10.0), [F], None),
    ("sum_bool", lambda m, b: m.sum(b, axis=0), [B], i64),
    ("mean_float", lambda m, x: m.mean(x, axis=(0, 1)), [F], None),
    ("mean_int", lambda m, x: m.mean(x, axis=0), [I], i32),
    ("amax", lambda m, x: m.amax(x, axis=1, keepdims=True), [F], None),
    ("amin_initial", lambda m, x: m.amin(x, axis=0, initial=-1), [I], None),
    ("max_all", lambda m, x: m.max(x), [I], None),
    ("argmax", lambda m, x: m.argmax(x), [F], i64),
    ("argmax_axis", lambda m, x: m.argmax(x, axis=1), [I], i64),
    ("argmin_axis", lambda m, x: m.argmin(x, axis=0), [F], i32),
    ("var", lambda m, x: m.var(x, axis=1, ddof=1), [F], None),
    ("var_int", lambda m, x: m.var(x, axis=0), [I], lambda x: _int_var(x, 0)),
    ("std", lambda m, x: m.std(x, keepdims=True), [F], None),
    ("std_int", lambda m, x: m.std(x, ddof=1), [I], lambda x: np.sqrt(_int_var(x, None, 1))),
    ("ptp", lambda m, x: m.ptp(x, axis=1), [I], None),
    ("cumsum", lambda m, x: m.cumsum(x), [I], i32),
    ("cumsum_bool", lambda m, b: m.cumsum(b, axis=1), [B], i32),
    ("cumsum_dtype", lambda m, x: m.cumsum(x, axis=0, dtype=m.float32), [I], None),
    ("count_nonzero", lambda m, x: m.count_nonzero(x), [I], i32),
    ("diff", lambda m, x: m.diff(x, 2), [I], None),
    ("dot", lambda m, x, y: m.dot(x, y.T), [F, G], None),
    ("dot_vector", lambda m, x, v: m.dot(x, v), [F, V], None),
    ("matmul", lambda m, x, y: m.matmul(x.T, y), [F, G], None),
    ("tensordot", lambda m, x, y: m.tensordot(x, y, axes=([0], [0])), [F, G], None),
    ("tensordot_2", lambda m, x, y: m.tensordot(x, y), [F, G], None),
    ("tensordot_0", lambda m, v: m.tensordot(v, v, 0), [V], None),
    ("inner", lambda m, x, y: m.inner(x, y), [F, G], None),
    ("outer", lambda m, x, v: m.outer(x, v), [F, V], None),
    ("kron", lambda m, x, y: m.kron(x[:2, :2], y[:2, :3]), [I, I], None),
    ("exp", lambda m, x: m.exp(x), [F], None),
    ("log", lambda m, x: m.log(x), [G], None),
    ("sqrt_int", lambda m, x: m.sqrt(m.abs(x)), [I], f32),
    ("abs", lambda m, x: m.absolute(x), [F], None),
    ("tanh_dtype", lambda m, x: m.tanh(x, dtype=m.float64), [F], None),
    ("sign_int", lambda m, x: m.sign(x), [I], f32),
    ("reciprocal", lambda m, x: m.reciprocal(x), [G], None),
    ("floor", lambda m, x: m.floor(x), [F], None),
    ("arctan2", lambda m, x, y: m.arctan2(x, y), [F, G], None),
    ("clip", lambda m, x: m.clip(x, -1, 1.5), [F], None),
    ("clip_int", lambda m, x: m.clip(x, -2.5, 3), [I], lambda x: np.clip(x, -2, 3)),
    ("clip_tensor", lambda m, x, y: m.clip(x, y - 2, None), [F, G], None),
    ("maximum", lambda m, x, y: m.maximum(x, y), [I, F], f32),
    ("maximum_scalar", lambda m, x: m.maximum(x, 2.5), [I], lambda x: np.maximum(x, 2)),
    ("minimum", lambda m, x, y: m.minimum(x, y), [F, D[:1, :1]], None),
    ("add", lambda m, x: m.add(x, 2.5), [I], f32),
    ("subtract", lambda m, x, y: m.subtract(x, y), [F, G], None),
    ("multiply", lambda m, x, y: m.multiply(x, y), [I, I], None),
    ("divide_int", lambda m, x, y: m.divide(x, y), [I, I + 10], f32),
    ("floor_divide", lambda m, x: m.floor_divide(x, 2), [I], None),
    ("power", lambda m, x: m.power(x, 2), [I], None),
    ("remainder", lambda m, x: m.remainder(x, 3), [I], None),
    ("fmod", lambda m, x: m.fmod(x, 3), [I], None),
    ("isclose", lambda m, x, y: m.isclose(x, y + 1e-6, rtol=1e-4), [F, F], None),
    ("greater", lambda m, x, y: m.greater(x, y), [F, G], None),
    ("logical_and", lambda m, b, x: m.logical_and(b, x > 0), [B, F], None),
    ("isnan", lambda m, x: m.isnan(m.log(x)), [F], None),
]


def _want(call: Any, inputs: list[np.ndarray], rule: Any) -> Any:
    """numpy's own result, cast where MindSpore's numpy picks another dtype."""
    if callable(rule) and not isinstance(rule, type):
        return rule(*inputs)
    with np.errstate(all="ignore"):
        got = call(np, *inputs)
    if isinstance(got, (tuple, list)):
        return tuple(np.asarray(g) if rule is None else np.asarray(g).astype(rule) for g in got)
    return np.asarray(got) if rule is None else np.asarray(got).astype(rule)


def _graph(call: Any) -> Any:
    @ms.jit
    def graph(*args: Any) -> Any:
        return call(mnp, *args)
    return graph


@pytest.mark.parametrize("name, call, inputs, rule", CASES, ids=[c[0] for c in CASES])
def test_eager_and_graph_agree_with_numpy(name: str, call: Any, inputs: list[np.ndarray],
                                         rule: Any) -> None:
    want = _want(call, inputs, rule)
    eager = to_numpy(call(mnp, *[ms.Tensor(x) for x in inputs]))
    if isinstance(eager, list):
        eager = tuple(eager)
    assert_same(eager, want, "eager", rtol=1e-5, atol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    graph = to_numpy(_graph(call)(*[ms.Tensor(x) for x in inputs]))
    assert_same(graph, want, "graph", rtol=1e-5, atol=1e-6)


def numba_reductions(x: Any, y: Any) -> Any:
    return (mnp.mean(x, axis=0), mnp.var(x, axis=1, ddof=1), mnp.tensordot(x, y, ([0], [0])),
            mnp.clip(x, -1, 1.5), mnp.cumsum(y, axis=1))


def numba_shapes(x: Any, i: Any) -> Any:
    return (mnp.take(x, i), mnp.roll(x, (1, -2), axis=(0, 1)), *mnp.split(x, [1, 3], axis=1),
            mnp.concatenate((x, mnp.zeros((1, 4))), axis=0), mnp.where(x > 0, x, 0.5))


@pytest.mark.parametrize("fn, inputs, expect", [
    (numba_reductions, [F, G], lambda x, y: (
        x.mean(0), x.var(1, ddof=1), np.tensordot(x, y, ([0], [0])), np.clip(x, -1, 1.5),
        np.cumsum(y, 1))),
    (numba_shapes, [F, IDX], lambda x, i: (
        np.take(x, i, mode="clip"), np.roll(x, (1, -2), (0, 1)), *np.split(x, [1, 3], 1),
        np.concatenate((x, np.zeros((1, 4), np.float32))),
        np.where(x > 0, x, np.float32(0.5)))),
], ids=["reductions", "shapes"])
def test_both_targets(fn: Any, inputs: list[np.ndarray], expect: Any, tmp_path: Any) -> None:
    check_all(fn, inputs, tmp_path, expect=expect(*inputs), rtol=1e-5, atol=1e-6)


class Standardize(nn.Cell):
    """Centres and scales each column, then projects: ``msc.numpy`` inside ``construct``."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 8, dtype=np.float32)
                                             .reshape(4, 2)), name="weight")

    def construct(self, x: Any) -> Any:
        centred = mnp.subtract(x, mnp.mean(x, axis=0, keepdims=True))
        scaled = centred / mnp.sqrt(mnp.var(x, axis=0) + 1e-5)
        return mnp.dot(scaled, self.weight), mnp.amax(mnp.abs(scaled))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_cell_uses_msc_numpy(mode: int) -> None:
    ms.set_context(mode=mode, jit_target="python")
    net = Standardize()
    projected, peak = net(ms.Tensor(F))
    weight = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
    scaled = (F - F.mean(0, keepdims=True)) / np.sqrt(F.var(0) + 1e-5)
    assert_same(projected.asnumpy(), scaled @ weight, "projection", rtol=1e-5, atol=1e-5)
    assert_same(peak.asnumpy(), np.abs(scaled).max(), "peak", rtol=1e-5, atol=1e-5)


def test_top_level_reaches_msc_numpy() -> None:
    assert ms.numpy is mnp
    assert mnp.float32 is ms.float32 and mnp.int_ is ms.int32 and mnp.pi == np.pi


@pytest.mark.parametrize("call, error, match", [
    (lambda: mnp.zeros(2.5), TypeError, "shape"),
    (lambda: mnp.arange(0, 3, 0), ValueError, "step"),
    (lambda: mnp.split(mnp.zeros((2, 3)), 2, axis=1), ValueError, "equal division"),
    (lambda: mnp.concatenate((mnp.zeros((2, 3)), mnp.zeros(3))), ValueError, "dimensions"),
    (lambda: mnp.dot(mnp.zeros((2, 3)), mnp.zeros((2, 3))), ValueError, "aligned"),
    (lambda: mnp.tensordot(mnp.zeros((2, 3)), mnp.zeros((2, 3)), 1), ValueError, "mismatch"),
    (lambda: mnp.where(mnp.zeros(2) > 0), TypeError, "x and y"),
    (lambda: mnp.sum(mnp.zeros((2, 3)), axis=2), ValueError, "out of bounds"),
    (lambda: mnp.clip(mnp.zeros(2), None, None), ValueError, "max or min"),
    (lambda: mnp.take(mnp.zeros(3), mnp.asarray([0.5])), TypeError, "integers"),
    (lambda: mnp.unique, AttributeError, "not supported"),
])
def test_documented_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_errors_in_a_graph_are_the_same() -> None:
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")

    @ms.jit
    def bad(x: Any) -> Any:
        return mnp.split(x, 2, axis=1)

    with pytest.raises(ValueError, match="equal division"):
        bad(ms.Tensor(F[:, :3]))

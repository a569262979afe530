"""The public ops API run eagerly (PyNative): functional ops, Tensor methods and primitive
classes against numpy computed independently here, with MindSpore's exact dtypes and
its error types and messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import ops
from msc.ops import composite as C
from msc.ops import functional as F

rng = np.random.default_rng(7)


def same(t: object, expected: np.ndarray, dtype: ms.dtype.DType | None = None) -> None:
    """Shape equal, values equal (floats: close), and the exact dtype when one is given."""
    assert isinstance(t, ms.Tensor), type(t)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    assert t.shape == expected.shape, (t.shape, expected.shape)
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(t.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(t.asnumpy(), expected)


def fx(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


# --- MindSpore's dtype rules ----------------------------------------------------------------


def test_default_tensor_dtypes() -> None:
    assert ms.Tensor(np.array([1, 2, 3])).dtype == ms.int64
    assert ms.Tensor([0]).dtype == ms.int64
    assert ms.Tensor(2).dtype == ms.int64
    assert ms.Tensor(2.0).dtype == ms.float32


def test_integer_promotion_and_reduction_dtypes() -> None:
    x = ms.Tensor(np.array([1, 2, 3], np.int32))
    assert x.sum().dtype == ms.int64 and x.sum().item() == 6
    assert (x > 1).sum().dtype == ms.int64 and (x > 1).sum().item() == 2
    assert x.argmax().dtype == ms.int64 and x.argmax().item() == 2
    same(x / 2, np.array([0.5, 1.0, 1.5], np.float32), ms.float32)
    same(x * 2.5, np.array([2.5, 5.0, 7.5], np.float32), ms.float32)
    same(2 ** x, np.array([2, 4, 8], np.int32), ms.int32)
    same(x * 2, np.array([2, 4, 6], np.int32), ms.int32)
    # MindSpore 2.10 keeps an integer mean's dtype (truncated; tests/oracle records it)
    assert x.mean().dtype == ms.int32 and x.max().dtype == ms.int32
    assert ops.prod(x).dtype == ms.int64 and ops.prod(x).item() == 6


# --- elementwise ------------------------------------------------------------------------


def _gelu_exact(a: np.ndarray) -> np.ndarray:
    return np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in a.ravel()],
                    np.float32).reshape(a.shape)


UNARY = {
    "neg": lambda a: -a, "abs": np.abs, "exp": np.exp, "sqrt": lambda a: np.sqrt(np.abs(a)),
    "square": lambda a: a * a, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "relu": lambda a: np.where(a > 0, a, 0),
    "floor": np.floor, "ceil": np.ceil, "sign": np.sign, "reciprocal": lambda a: 1 / a,
    "hardswish": lambda a: a * np.clip(a + 3, 0, 6) / 6,
    "hswish": lambda a: a * np.minimum(np.maximum(a + 3, 0), 6) / 6,
    "gelu": _gelu_exact,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops(name: str) -> None:
    a = fx(3, 4) * 3
    if name == "sqrt":
        a = np.abs(a)
    same(getattr(ops, name)(ms.Tensor(a)), UNARY[name](a).astype(np.float32), ms.float32)


def test_math_ops_on_integers_compute_in_float32() -> None:
    x = ms.Tensor(np.array([1, 4, 9], np.int32))
    same(ops.sqrt(x), np.array([1, 2, 3], np.float32), ms.float32)
    same(ops.log(ops.exp(x)), np.array([1, 4, 9], np.float32), ms.float32)
    same(ops.rsqrt(x), np.array([1, 0.5, 1 / 3], np.float32), ms.float32)
    same(ops.gelu(ms.Tensor([1.0]), approximate="tanh"),
         np.array([0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * 1.044715))], np.float32))


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "floor_div": np.floor_divide, "floor_mod": np.mod,
    "mod": np.mod, "pow": np.power,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_keep_int32(name: str) -> None:
    a = np.array([[7, -7, 3], [2, 5, -4]], np.int32)
    b = np.array([2, 3, 1], np.int32)
    same(getattr(ops, name)(ms.Tensor(a), ms.Tensor(b)), BINARY[name](a, b), ms.int32)


def test_division_modes() -> None:
    a, b = np.array([7, -7], np.int32), np.array([2, 2], np.int32)
    same(ops.div(ms.Tensor(a), ms.Tensor(b)), np.array([3.5, -3.5], np.float32), ms.float32)
    same(ops.div(ms.Tensor(a), 2, rounding_mode="floor"), np.array([3, -4], np.int32),
         ms.int32)
    same(ops.div(ms.Tensor(a), 2, rounding_mode="trunc"), np.array([3, -3], np.int32),
         ms.int32)
    with pytest.raises(ValueError, match="rounding_mode must be"):
        ops.div(ms.Tensor(a), 2, rounding_mode="round")


COMPARE = {"equal": np.equal, "eq": np.equal, "not_equal": np.not_equal, "ne": np.not_equal,
           "less": np.less, "lt": np.less, "less_equal": np.less_equal, "le": np.less_equal,
           "greater": np.greater, "gt": np.greater, "greater_equal": np.greater_equal,
           "ge": np.greater_equal}


@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons_give_bool(name: str) -> None:
    a, b = np.array([1, 2, 3], np.int32), np.array([2.0, 2.0, 2.0], np.float32)
    same(getattr(ops, name)(ms.Tensor(a), ms.Tensor(b)), COMPARE[name](a, b), ms.bool_)


def test_logic_select_where_clip_cast() -> None:
    p, q = np.array([True, False, True]), np.array([True, True, False])
    same(ops.logical_and(ms.Tensor(p), ms.Tensor(q)), p & q, ms.bool_)
    same(ops.logical_or(ms.Tensor(p), ms.Tensor(q)), p | q, ms.bool_)
    same(ops.logical_not(ms.Tensor(p)), ~p, ms.bool_)
    a, b = fx(3), fx(3)
    same(ops.select(ms.Tensor(p), ms.Tensor(a), ms.Tensor(b)), np.where(p, a, b))
    same(ops.where(ms.Tensor(p), ms.Tensor(a), 0.0), np.where(p, a, 0).astype(np.float32))
    x = np.array([-2, 0, 5], np.int32)
    same(ops.clip_by_value(ms.Tensor(x), 0, 3), np.array([0, 0, 3], np.int32), ms.int32)
    same(ops.clamp(ms.Tensor(x), min=-1), np.array([-1, 0, 5], np.int32), ms.int32)
    same(ops.clip(ms.Tensor(x), max=1), np.array([-2, 0, 1], np.int32), ms.int32)
    same(ms.Tensor(x).clip(-1, 1), np.array([-1, 0, 1], np.int32), ms.int32)
    same(ops.cast(ms.Tensor(x), ms.float16), x.astype(np.float16), ms.float16)
    same(ms.Tensor(x).astype(ms.bool_), x.astype(bool), ms.bool_)


# --- reductions ---------------------------------------------------------------------------


def test_reductions_match_numpy() -> None:
    a = fx(2, 3, 4)
    x = ms.Tensor(a)
    same(ops.sum(x, 1), a.sum(1))
    same(ops.sum(x, (0, 2), keepdim=True), a.sum((0, 2), keepdims=True))
    same(ops.sum(x, dtype=ms.float64), np.asarray(a.astype(np.float64).sum()), ms.float64)
    same(ops.mean(x, -1, keep_dims=True), a.mean(-1, keepdims=True))
    same(x.mean([0, 1]), a.mean((0, 1)))
    same(ops.prod(x, 2), a.prod(2))
    same(ops.amax(x, (1, 2)), a.max((1, 2)))
    same(ops.amin(x, 0, keepdims=True), a.min(0, keepdims=True))
    same(x.max(axis=1), a.max(1))
    same(x.min(), np.asarray(a.min()))
    same(ops.argmax(x, 2, keepdim=True), np.argmax(a, 2)[..., None], ms.int64)
    same(ops.argmin(x), np.asarray(np.argmin(a)), ms.int32)  # MindSpore 2.10: int32
    same(x.argmin(axis=0), np.argmin(a, 0), ms.int32)


def test_max_and_min_return_values_and_indices() -> None:
    a = fx(3, 5)
    values, indices = ops.max(ms.Tensor(a), axis=1, keepdims=True)
    same(values, a.max(1, keepdims=True))
    same(indices, a.argmax(1)[:, None], ms.int64)
    values, indices = ops.min(ms.Tensor(a))
    same(values, np.asarray(a.min()))
    same(indices, np.asarray(a.argmin()), ms.int64)
    mask = a > 0
    masked = ops.amax(ms.Tensor(a), 1, initial=-10.0, where=ms.Tensor(mask))
    same(masked, np.max(a, axis=1, initial=-10.0, where=mask))


# --- contractions -------------------------------------------------------------------------


@pytest.mark.parametrize("sa, sb", [((4,), (4,)), ((4,), (4, 3)), ((2, 4), (4,)),
                                    ((2, 4), (4, 3)), ((5, 2, 4), (4, 3)), ((4,), (5, 4, 3)),
                                    ((2, 1, 2, 4), (3, 4, 6))])
def test_matmul_follows_numpy(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    a, b = fx(*sa), fx(*sb)
    same(ops.matmul(ms.Tensor(a), ms.Tensor(b)), np.matmul(a, b), ms.float32)
    same(ms.Tensor(a) @ ms.Tensor(b), np.matmul(a, b), ms.float32)


def test_bmm_and_dense() -> None:
    a, b = fx(2, 3, 4), fx(2, 4, 5)
    same(ops.bmm(ms.Tensor(a), ms.Tensor(b)), a @ b)
    same(ops.batch_matmul(ms.Tensor(a), ms.Tensor(b)), a @ b)
    w, bias = fx(6, 4), fx(6)
    same(ops.dense(ms.Tensor(a), ms.Tensor(w), ms.Tensor(bias)), a @ w.T + bias)
    same(ops.dense(ms.Tensor(a), ms.Tensor(w)), a @ w.T)


# --- shapes -------------------------------------------------------------------------------


def test_reshape_transpose_squeeze_expand() -> None:
    a = fx(2, 3, 4)
    x = ms.Tensor(a)
    same(ops.reshape(x, (4, -1)), a.reshape(4, 6))
    same(x.reshape(-1), a.reshape(-1))
    same(x.reshape(3, 8), a.reshape(3, 8))
    same(x.view((6, 4)), a.reshape(6, 4))
    same(ops.transpose(x, (2, 0, 1)), a.transpose(2, 0, 1))
    same(ops.permute(x, (1, 0, 2)), a.transpose(1, 0, 2))
    same(x.T, a.T)
    same(ops.expand_dims(x, -1), a[..., None])
    same(ops.unsqueeze(x, 0), a[None])
    b = fx(1, 3, 1)
    same(ops.squeeze(ms.Tensor(b)), b.reshape(3))
    same(ms.Tensor(b).squeeze(2), b.reshape(1, 3))
    same(ops.squeeze(ms.Tensor(b), (0, 2)), b.reshape(3))
    scalar = np.array(7, np.int32)  # MindSpore returns a 0-d tensor whatever axes it names
    for axis in (0, -1, 1, (0, -1)):
        same(ops.squeeze(ms.Tensor(scalar), axis), scalar)


def test_flatten_keeps_dim_zero_by_default() -> None:
    a = fx(2, 3, 4, 5)
    same(ops.flatten(ms.Tensor(a)), a.reshape(2, 60))
    same(ops.flatten(ms.Tensor(a), start_dim=0, end_dim=1), a.reshape(6, 4, 5))
    same(ops.flatten(ms.Tensor(a), start_dim=2), a.reshape(2, 3, 20))
    same(ops.flatten(ms.Tensor(a), order="F"), a.transpose(3, 2, 1, 0).reshape(5, 24))
    v = fx(7)
    same(ops.flatten(ms.Tensor(v)), v)
    assert ops.flatten(ms.Tensor(3.0)).shape == (1,)
    same(ms.Tensor(a).flatten(), a.reshape(-1))


def test_concat_stack_split() -> None:
    a, b = fx(2, 3), np.arange(4, dtype=np.int32).reshape(2, 2)
    same(ops.concat((ms.Tensor(a), ms.Tensor(b)), 1),
         np.concatenate([a, b.astype(np.float32)], 1), ms.float32)
    same(ops.cat([ms.Tensor(a), ms.Tensor(a)]), np.concatenate([a, a]))
    same(ops.stack([ms.Tensor(a), ms.Tensor(a)], axis=-1), np.stack([a, a], -1))
    c = np.arange(10, dtype=np.float32)
    parts = ops.split(ms.Tensor(c), 3)
    assert isinstance(parts, tuple) and [p.shape for p in parts] == [(3,), (3,), (3,), (1,)]
    for got, want in zip(parts, np.split(c, [3, 6, 9])):
        same(got, want)
    parts = ops.split(ms.Tensor(c.reshape(2, 5)), [1, 4], axis=1)
    same(parts[1], c.reshape(2, 5)[:, 1:])
    halves = ops.split(ms.Tensor(c), 5)
    assert len(halves) == 2
    same(halves[1], c[5:])


def test_gather_broadcast_tile() -> None:
    a = fx(4, 3)
    same(ops.gather(ms.Tensor(a), ms.Tensor([[3, 0], [1, 1]]), 0), a[[[3, 0], [1, 1]]])
    same(ops.gather(ms.Tensor(a), ms.Tensor([2, -1]), 1), a[:, [2, 2]])
    same(ops.broadcast_to(ms.Tensor(a[:1]), (2, -1, 3)), np.broadcast_to(a[:1], (2, 1, 3)))
    same(ms.Tensor(a[:, :1]).broadcast_to((4, 5)), np.broadcast_to(a[:, :1], (4, 5)))
    same(ops.tile(ms.Tensor(a), (2, 1, 2)), np.tile(a, (2, 1, 2)))


KEYS = [0, -1, (1, 2), slice(None), slice(1, None), slice(None, None, -1), slice(-2, 0, -1),
        (slice(None), 1), (Ellipsis, 0), (0, Ellipsis), (None, 1), (slice(None), None, 0),
        (Ellipsis, None), (1, slice(0, 4, 2), -1), (slice(10, 20),), (),
        (Ellipsis,), (slice(None, None, 2), Ellipsis, slice(None, None, -2))]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_matches_numpy(key: object) -> None:
    a = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    same(ms.Tensor(a)[key], np.asarray(a[key]), ms.int32)


def test_tensor_and_list_indices_become_gather() -> None:
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = ms.Tensor(a)
    same(x[ms.Tensor([2, 0, -1])], a[[2, 0, -1]])
    same(x[:, ms.Tensor([[1, 3]])], a[:, [[1, 3]]])
    same(x[1, [0, 2], 1:3], a[1, [0, 2], 1:3])
    same(x[None, ..., ms.Tensor(4)], a[None, ..., 4])
    got = x[ms.Tensor(1)]
    same(got, a[1])


def test_strided_slice_and_slice() -> None:
    a = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    x = ms.Tensor(a)
    same(ops.strided_slice(x, (1, 0, 0), (3, 4, 5), (1, 2, 2)), a[1:3, 0:4:2, 0:5:2])
    same(ops.strided_slice(x, (1, 3, 0), (0, 0, 5), (1, -1, 1), begin_mask=1, end_mask=1,
                           shrink_axis_mask=2), a[:, 3, :])
    same(ops.strided_slice(x, (0, 0), (1, 2), (1, 1), new_axis_mask=1, ellipsis_mask=2),
         a[None, ...])
    same(ops.slice(x, (1, 0, 2), (2, -1, 2)), a[1:3, :, 2:4])
    same(ops.StridedSlice(end_mask=4)(x, (0, 1, 2), (2, 3, 0), (1, 1, 1)), a[0:2, 1:3, 2:])


# --- creation and nn ------------------------------------------------------------------------


def test_creation_ops() -> None:
    same(ops.zeros((2, 3)), np.zeros((2, 3), np.float32), ms.float32)
    same(ops.ones(4, ms.int32), np.ones(4, np.int32), ms.int32)
    same(ops.fill(ms.int32, (2, 2), 7), np.full((2, 2), 7, np.int32), ms.int32)
    same(ops.full((2,), 1.5), np.array([1.5, 1.5], np.float32), ms.float32)
    same(ops.full((2,), 3), np.array([3, 3], np.int64), ms.int64)
    same(ops.full((1,), True), np.array([True]), ms.bool_)
    x = ms.Tensor(np.arange(3, dtype=np.int32))
    same(ops.zeros_like(x), np.zeros(3, np.int32), ms.int32)
    same(ops.ones_like(x, dtype=ms.float32), np.ones(3, np.float32), ms.float32)


def test_softmax_log_softmax_layer_norm() -> None:
    a = fx(2, 3, 4) * 5
    e = np.exp(a - a.max(1, keepdims=True))
    same(ops.softmax(ms.Tensor(a), axis=1), e / e.sum(1, keepdims=True))
    a64 = a.astype(np.float64)
    same(ops.log_softmax(ms.Tensor(a)), (a64 - np.logaddexp.reduce(a64, -1, keepdims=True))
         .astype(np.float32))
    w, b = fx(3, 4), fx(3, 4)
    mu, var = a.mean((1, 2), keepdims=True), a.var((1, 2), keepdims=True)
    norm = (a - mu) / np.sqrt(var + 1e-5)
    same(ops.layer_norm(ms.Tensor(a), (3, 4), ms.Tensor(w), ms.Tensor(b)), norm * w + b)
    same(ops.layer_norm(ms.Tensor(a), (3, 4)), norm)
    y, mean, variance = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1)(
        ms.Tensor(a), ms.Tensor(w), ms.Tensor(b))
    same(y, (a - mu) / np.sqrt(var + 1e-7) * w + b)
    same(mean, mu)
    same(variance, var)


# --- primitive classes and namespaces ------------------------------------------------------


def test_primitive_classes() -> None:
    a, b = fx(2, 3), fx(3, 2)
    same(ops.Add()(ms.Tensor(a), 1.0), a + 1)
    same(ops.ReduceSum(keep_dims=True)(ms.Tensor(a), 1), a.sum(1, keepdims=True))
    same(ops.ReduceMean()(ms.Tensor(a)), np.asarray(a.mean()))
    same(ops.MatMul(transpose_a=True, transpose_b=True)(ms.Tensor(b), ms.Tensor(a)),
         b.T @ a.T)
    same(ops.Softmax(axis=0)(ms.Tensor(a)), np.exp(a) / np.exp(a).sum(0))
    same(ops.Reshape()(ms.Tensor(a), (3, -1)), a.reshape(3, 2))
    same(ops.Select()(ms.Tensor(a > 0), ms.Tensor(a), ms.Tensor(-a)), np.abs(a))
    same(ops.Cast()(ms.Tensor(a), ms.float64), a.astype(np.float64), ms.float64)
    same(ops.Concat(1)((ms.Tensor(a), ms.Tensor(a))), np.concatenate([a, a], 1))
    left, right = ops.Split(1, 3)(ms.Tensor(b.T))[0], ops.Split(0, 2)(ms.Tensor(b.T))[1]
    same(left, b.T[:, :1])
    same(right, b.T[1:])
    same(ops.HSwish()(ms.Tensor(a)), a * np.clip(a + 3, 0, 6) / 6)
    same(ops.Argmax()(ms.Tensor(a)), np.argmax(a, -1).astype(np.int32), ms.int32)
    index, value = ops.ArgMaxWithValue(axis=1)(ms.Tensor(a))
    same(index, np.argmax(a, 1), ms.int64)
    same(value, a.max(1))
    assert repr(ops.ReduceSum(keep_dims=True)) == \
        "Prim[ReduceSum]<keep_dims=True, skip_mode=False>"
    with pytest.raises(TypeError, match="expected 2 inputs, but got 1"):
        ops.Add()(ms.Tensor(a))


def test_namespaces_expose_the_same_functions() -> None:
    for name in ("add", "matmul", "reshape", "getitem", "layer_norm", "sum", "max"):
        assert getattr(F, name) is getattr(ops, name) is getattr(C, name)
    assert ops.Add is not None and ops.functional is F and ops.composite is C


# --- errors ---------------------------------------------------------------------------------


def test_non_broadcastable_add() -> None:
    with pytest.raises(ms.ShapeError) as info:
        ms.Tensor(fx(3, 4)) + ms.Tensor(fx(5, 6))
    assert isinstance(info.value, ValueError)
    assert r"For 'Add', shapes (3, 4) and (5, 6) cannot broadcast" in str(info.value)
    assert info.value.loc is not None and info.value.loc.file == __file__


def test_matmul_mismatch_is_value_and_runtime_error() -> None:
    for call in (lambda a, b: ops.matmul(a, b), lambda a, b: a @ b,
                 lambda a, b: ops.MatMul()(a, b)):
        with pytest.raises(ms.MatmulShapeError) as info:
            call(ms.Tensor(fx(3, 4)), ms.Tensor(fx(5, 6)))
        assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
        assert "'x1_col': 4 and 'x2_row': 5" in str(info.value)
        assert info.value.loc is not None and info.value.loc.file == __file__


def test_impossible_reshape_names_both_shapes() -> None:
    x = ms.Tensor(fx(2, 3))
    with pytest.raises(ValueError, match=r"For 'Reshape', cannot reshape a tensor of shape "
                                         r"\(2, 3\) \(6 elements\) into shape \(4, 2\)"):
        ops.reshape(x, (4, 2))
    with pytest.raises(ms.ShapeError, match=r"shape \(2, 3\) .* into shape \(-1, 4\)") as info:
        x.reshape(-1, 4)
    assert info.value.loc is not None and info.value.loc.file == __file__
    with pytest.raises(ms.ShapeError, match="one -1"):
        ops.reshape(x, (-1, -1))


def test_bad_axes_and_indices() -> None:
    x = ms.Tensor(fx(2, 3))
    with pytest.raises(ms.ShapeError, match=r"For 'ReduceSum', axis 2 is out of range for a "
                                            r"2-d tensor"):
        x.sum(axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of range"):
        ops.argmax(x, -3)
    with pytest.raises(ValueError, match="cannot squeeze axis 1 of shape"):
        ops.squeeze(x, 1)
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        x[2]
    with pytest.raises(ms.GraphTypeError, match="boolean mask index") as info:
        x[x > 0]
    assert isinstance(info.value, TypeError) and info.value.loc.file == __file__
    with pytest.raises(ValueError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(TypeError, match="must be a Tensor, but got int"):
        ops.reshape(3, (1,))


ALONG_AN_AXIS = {  # ops that index the dim an axis names: a 0-d tensor has none
    "Split": lambda x: ops.split(x, 1, 0), "chunk": lambda x: ops.chunk(x, 1, 0),
    "Unstack": lambda x: ops.unstack(x, 0), "narrow": lambda x: ops.narrow(x, 0, 0, 1),
    "repeat_interleave": lambda x: ops.repeat_interleave(x, 2, 0),
    "tensor_split": lambda x: ops.tensor_split(x, 1, 0), "diff": lambda x: ops.diff(x),
    "trapz": lambda x: ops.trapz(x), "TopK": lambda x: ops.topk(x, 1),
    "Roll": lambda x: ops.roll(x, 1, 0), "swapaxes": lambda x: ops.swapaxes(x, 0, 0),
    "ReverseV2": lambda x: ops.flip(x, (0,)), "renorm": lambda x: ops.renorm(x, 2, 0, 1.0),
}


@pytest.mark.parametrize("op", sorted(ALONG_AN_AXIS))
def test_an_axis_of_a_0d_tensor_is_msc_error_at_the_users_line(op: str) -> None:
    """These read ``x.shape[axis]``: on a 0-d tensor that was Python's bare IndexError
    from inside msc, in eager and graph mode."""
    x = ms.Tensor(np.array(2.0, np.float32))
    with pytest.raises(ms.ShapeError, match=rf"For '{op}', axis -?[01] is out of range for a "
                                            r"0-d tensor") as info:
        ALONG_AN_AXIS[op](x)
    assert info.value.loc is not None and info.value.loc.file == __file__

    @ms.jit
    def graph(x):
        return ops.split(x, 1, 0)

    with pytest.raises(ms.ShapeError, match="axis 0 is out of range for a 0-d tensor") as info:
        graph(x)
    assert info.value.loc.file == __file__ and "ops.split" in info.value.loc.excerpt()


def test_an_index_out_of_range_is_an_index_error() -> None:
    """MindSpore raises IndexError here, so ``except IndexError`` must catch msc's error."""
    from msc.errors import GraphIndexError

    x = ms.Tensor(np.arange(3, dtype=np.float32))
    with pytest.raises(ms.MscError) as info:
        x[5]
    err = info.value
    assert isinstance(err, IndexError) and isinstance(err, GraphIndexError)
    assert not isinstance(err, ValueError)
    assert err.message == "For 'getitem', index 5 is out of bounds for axis 0 with size 3"
    assert err.loc is not None and err.loc.file == __file__
    with pytest.raises(IndexError, match="index -4 is out of bounds"):
        x[-4]
    with pytest.raises(IndexError, match="index 3 is out of range for axis 0 with size 3"):
        ops.gather(x, ms.Tensor(np.array([0, 3])), 0)
    with pytest.raises(IndexError, match="For 'getitem', index 7 is out of bounds"):
        ops.strided_slice(x, (7,), (8,), (1,), shrink_axis_mask=1)


def test_same_ops_build_graph_nodes() -> None:
    """Inside a graph build the same functions emit typed nodes instead of computing."""
    from msc.frontend.builder import GraphBuilder
    from msc.ir.types import TensorType

    builder = GraphBuilder("g")
    with builder:
        x = builder.add_input(TensorType(ms.float32, (2, 3, 4)), "x")
        out = ops.sum(x[:, ms.Tensor([2, 0])].reshape(4, -1), -1)
    assert [n.op.name for n in builder.nodes] == ["Gather", "Reshape", "ReduceSum"]
    assert builder.nodes[1].attr == {"shape": (4, 4)}
    assert builder.nodes[2].attr == {"axis": (1,), "keep_dims": False}
    assert out.type == TensorType(ms.float32, (4,))

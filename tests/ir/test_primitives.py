"""The primitive table: every op is registered with a type rule, a numpy implementation,
a cost and the right elementwise flag; type rules give MindSpore's dtypes and shapes and
reject bad input with the right error; implementations match numpy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from msc.errors import GraphTypeError, GraphValueError, MatmulShapeError, ShapeError
from msc.ir import dtypes
from msc.ir.primitives import PRIMITIVES, evaluate, get, infer_type
from msc.ir.primitives.shape import canonical_slice
from msc.ir.types import ScalarType, TensorType, TupleType

f32, i32, i64, b8 = dtypes.float32, dtypes.int32, dtypes.int64, dtypes.bool_

ELEMENTWISE = {
    "Add", "Sub", "Mul", "Div", "FloorDiv", "FloorMod", "Pow", "Maximum", "Minimum", "Neg",
    "Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Sin", "Cos", "Tanh",
    "Sigmoid", "ReLU", "GeLU", "HSwish", "Floor", "Ceil", "Sign", "LogicalNot", "LogicalAnd",
    "LogicalOr", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
    "Select", "ClipByValue", "Cast", "ZerosLike", "OnesLike",
}
NOT_ELEMENTWISE = {
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "Argmax", "Argmin",
    "MatMul", "BatchMatMul", "Dense", "Reshape", "Transpose", "ExpandDims", "Squeeze",
    "Flatten", "Concat", "Stack", "Split", "Gather", "StridedSlice", "BroadcastTo", "Tile",
    "Zeros", "Ones", "Fill", "Softmax", "LogSoftmax", "LayerNorm", "MakeTuple",
    "TupleGetItem",
}


def T(dt: dtypes.DType, *shape: int) -> TensorType:  # noqa: N802 - reads like a type
    return TensorType(dt, tuple(shape))


def infer(name: str, *types: object, **attrs: object) -> object:
    prim = get(name)
    return infer_type(prim, tuple(types), prim.bind(attrs))  # type: ignore[arg-type]


def run(name: str, *values: object, **attrs: object) -> object:
    return evaluate(get(name), tuple(values), attrs)


# --- the table ------------------------------------------------------------------------


def test_every_required_op_is_registered_with_its_elementwise_flag() -> None:
    assert ELEMENTWISE | NOT_ELEMENTWISE <= set(PRIMITIVES)
    for name in ELEMENTWISE:
        assert PRIMITIVES[name].elementwise, name
    for name in NOT_ELEMENTWISE:
        assert not PRIMITIVES[name].elementwise, name


EFFECTS = {"Load": "read", "Assign": "memory", "AssignAdd": "memory", "AssignSub": "memory",
           "Print": "io", "Raise": "io", "UniformReal": "io",  # a draw advances its stream
           # collectives: every rank runs them in the same order
           "AllReduce": "io", "AllGather": "io", "ReduceScatter": "io", "Broadcast": "io"}


def test_costs_are_numbers_and_rank_ops_sensibly() -> None:
    for name, prim in PRIMITIVES.items():
        assert isinstance(prim.cost, (int, float)) and prim.cost >= 0, name
        assert prim.effect.value == EFFECTS.get(name, "none"), name
    assert get("Reshape").cost == 0 and get("ExpandDims").cost == 0
    assert get("Add").cost < get("Exp").cost < get("MatMul").cost
    assert get("Tanh").cost < get("BatchMatMul").cost == get("Dense").cost


# --- reductions -------------------------------------------------------------------------


@pytest.mark.parametrize("dt, out", [(i32, i64), (b8, i64), (dtypes.uint8, i64),
                                     (f32, f32), (dtypes.float16, dtypes.float16)])
def test_sum_and_prod_widen_integers_to_int64(dt: dtypes.DType, out: dtypes.DType) -> None:
    for op in ("ReduceSum", "ReduceProd"):
        assert infer(op, T(dt, 2, 3), axis=(1,), keep_dims=False) == T(out, 2)


def test_reduction_shapes_and_dtypes() -> None:
    x = T(i32, 2, 3, 4)
    assert infer("ReduceMean", x, axis=(), keep_dims=False) == T(f32)
    assert infer("ReduceMean", x, axis=(0, -1), keep_dims=True) == T(f32, 1, 3, 1)
    assert infer("ReduceMax", x, axis=(1,), keep_dims=False) == T(i32, 2, 4)
    assert infer("ReduceMin", T(b8, 5), axis=(), keep_dims=False) == T(b8)
    assert infer("Argmax", x, axis=None, keep_dims=False) == T(i64)
    assert infer("Argmin", x, axis=-2, keep_dims=True) == T(i64, 2, 1, 4)


def test_reduction_errors() -> None:
    with pytest.raises(ShapeError, match=r"For 'ReduceSum', axis 3 is out of range for a 2-d"):
        infer("ReduceSum", T(f32, 2, 3), axis=(3,), keep_dims=False)
    with pytest.raises(ShapeError, match="duplicate axes"):
        infer("ReduceSum", T(f32, 2, 3), axis=(1, -1), keep_dims=False)
    with pytest.raises(GraphTypeError, match="keep_dims must be a bool"):
        infer("ReduceMean", T(f32, 2), axis=(), keep_dims=1)
    with pytest.raises(ShapeError, match="zero-size axis 1"):
        infer("ReduceMax", T(f32, 2, 0), axis=(1,), keep_dims=False)
    with pytest.raises(GraphTypeError, match="must be a Tensor"):
        infer("ReduceSum", ScalarType(1), axis=(), keep_dims=False)


def test_reduction_values_match_numpy() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-5, 5, size=(3, 4, 2)).astype(np.int32)
    out = run("ReduceSum", x, axis=(0, 2), keep_dims=True)
    assert out.dtype == np.int64 and out.shape == (1, 4, 1)
    np.testing.assert_array_equal(out, x.astype(np.int64).sum(axis=(0, 2), keepdims=True))
    mean = run("ReduceMean", x, axis=(1,), keep_dims=False)
    assert mean.dtype == np.float32
    np.testing.assert_allclose(mean, x.mean(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(run("ReduceMax", x, axis=(), keep_dims=False), x.max())
    np.testing.assert_array_equal(run("ReduceProd", x, axis=(2,), keep_dims=False),
                                  np.prod(x.astype(np.int64), axis=2))
    idx = run("Argmax", x, axis=1, keep_dims=False)
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(idx, np.argmax(x, axis=1))
    assert run("Argmin", x, axis=None, keep_dims=False) == np.argmin(x)


# --- contractions -----------------------------------------------------------------------


def test_matmul_shapes_dtypes_and_transposes() -> None:
    assert infer("MatMul", T(f32, 3, 4), T(f32, 4, 5)) == T(f32, 3, 5)
    assert infer("MatMul", T(f32, 4, 3), T(f32, 5, 4), transpose_a=True,
                 transpose_b=True) == T(f32, 3, 5)
    assert infer("MatMul", T(i32, 3, 4), T(f32, 4, 5)) == T(f32, 3, 5)
    assert infer("BatchMatMul", T(f32, 2, 1, 3, 4), T(f32, 5, 4, 6)) == T(f32, 2, 5, 3, 6)
    assert infer("Dense", T(f32, 7, 2, 4), T(f32, 5, 4), T(f32, 5)) == T(f32, 7, 2, 5)


def test_matmul_inner_mismatch_names_both_dims() -> None:
    with pytest.raises(MatmulShapeError) as info:
        infer("MatMul", T(f32, 3, 4), T(f32, 5, 6))
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert "For 'MatMul', the input dimensions must be equal, but got 'x1_col': 4 and " \
           "'x2_row': 5" in str(info.value)
    with pytest.raises(MatmulShapeError, match="'x1_col': 4 and 'x2_row': 3"):
        infer("BatchMatMul", T(f32, 2, 3, 4), T(f32, 2, 3, 4))
    with pytest.raises(ShapeError, match=r"batch dimensions \(2,\) and \(3,\)"):
        infer("BatchMatMul", T(f32, 2, 3, 4), T(f32, 3, 4, 4))
    with pytest.raises(ShapeError, match="must be 2-D"):
        infer("MatMul", T(f32, 2, 3, 4), T(f32, 4, 4))
    with pytest.raises(ShapeError, match=r"b must have shape \(5,\)"):
        infer("Dense", T(f32, 2, 4), T(f32, 5, 4), T(f32, 4))


def test_contraction_values_match_numpy() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((5, 4))
    out = run("MatMul", a, b.astype(np.float32), transpose_a=True, transpose_b=True)
    np.testing.assert_allclose(out, a.T @ b.T.astype(np.float32), rtol=1e-5)
    x, y = rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((5, 4, 2))
    np.testing.assert_allclose(run("BatchMatMul", x, y), np.matmul(x, y))
    w, bias = rng.standard_normal((6, 4)), rng.standard_normal(6)
    np.testing.assert_allclose(run("Dense", y[0].T, w, bias), y[0].T @ w.T + bias)


# --- shapes -----------------------------------------------------------------------------


def test_shape_op_rules() -> None:
    x = T(f32, 2, 3, 4)
    assert infer("Reshape", x, shape=(4, 6)) == T(f32, 4, 6)
    assert infer("Transpose", x, perm=(2, 0, -2)) == T(f32, 4, 2, 3)
    assert infer("ExpandDims", x, axis=-1) == T(f32, 2, 3, 4, 1)
    assert infer("Squeeze", T(f32, 1, 3, 1), axis=()) == T(f32, 3)
    assert infer("Squeeze", T(f32, 1, 3, 1), axis=(-1,)) == T(f32, 1, 3)
    assert infer("Flatten", x) == T(f32, 2, 12)
    assert infer("Concat", x, T(i32, 2, 5, 4), axis=1) == T(f32, 2, 8, 4)
    assert infer("Stack", x, x, axis=-1) == T(f32, 2, 3, 4, 2)
    assert infer("Split", x, axis=2, output_num=2) == TupleType((T(f32, 2, 3, 2),) * 2)
    assert infer("Gather", x, T(i64, 5, 6), axis=1) == T(f32, 2, 5, 6, 4)
    assert infer("BroadcastTo", T(f32, 3, 1), shape=(2, -1, 4)) == T(f32, 2, 3, 4)
    assert infer("Tile", T(f32, 2, 3), multiples=(2, 1, 2)) == T(f32, 2, 2, 6)
    assert infer("Tile", x, multiples=(2,)) == T(f32, 2, 3, 8)


@pytest.mark.parametrize("name, types, attrs, error, message", [
    ("Reshape", (T(f32, 2, 3),), {"shape": (4, 2)}, ShapeError,
     r"cannot reshape a tensor of shape \(2, 3\) \(6 elements\) into shape \(4, 2\)"),
    ("Reshape", (T(f32, 2, 3),), {"shape": (-1, 3)}, GraphValueError, "must be concrete"),
    ("Transpose", (T(f32, 2, 3),), {"perm": (0, 0)}, ShapeError, "not a permutation"),
    ("Squeeze", (T(f32, 2, 3),), {"axis": (1,)}, ShapeError,
     r"cannot squeeze axis 1 of shape \(2, 3\): its size is 3, not 1"),
    ("ExpandDims", (T(f32, 2),), {"axis": 3}, ShapeError, "out of range"),
    ("Concat", (T(f32, 2, 3), T(f32, 3, 3)), {"axis": 1}, ShapeError, "outside axis 1"),
    ("Stack", (T(f32, 2), T(f32, 3)), {"axis": 0}, ShapeError, "one shape"),
    ("Split", (T(f32, 5),), {"axis": 0, "output_num": 2}, ShapeError, "2 equal parts"),
    ("Gather", (T(f32, 5), T(f32, 2)), {"axis": 0}, GraphTypeError, "integer Tensor"),
    ("BroadcastTo", (T(f32, 3),), {"shape": (4,)}, ShapeError, "cannot broadcast"),
    ("BroadcastTo", (T(f32, 3),), {"shape": (-1, 3)}, ShapeError, "no size to keep"),
    ("StridedSlice", (T(f32, 4),), {"index": ((0, 4, 1), 0)}, ShapeError, "2 entries"),
    ("StridedSlice", (T(f32, 4),), {"index": ((-1, 4, 1),)}, GraphValueError, "canonical"),
    ("StridedSlice", (T(f32, 4),), {"index": (4,)}, IndexError,
     "index 4 is out of range for a dim of size 4"),
    ("StridedSlice", (T(f32, 4),), {"index": (1.0,)}, GraphValueError,
     "not a canonical index entry"),
    ("TupleGetItem", (TupleType((T(f32, 2), T(f32, 3))),), {"index": 2}, IndexError,
     "index 2 is out of range for a 2-tuple"),
])
def test_shape_op_errors(name: str, types: tuple[object, ...], attrs: dict[str, object],
                         error: type, message: str) -> None:
    with pytest.raises(error, match=message) as info:
        infer(name, *types, **attrs)
    assert str(info.value).startswith(f"For '{name}', ")


def test_shape_op_values_match_numpy_and_own_their_memory() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = run("Transpose", x, perm=(2, 0, 1))
    np.testing.assert_array_equal(out, np.moveaxis(x, 2, 0))
    out = run("BroadcastTo", x[:1], shape=(3, -1, -1, 4))
    np.testing.assert_array_equal(out, np.broadcast_to(x[:1], (3, 1, 3, 4)))
    assert out.flags.writeable and not np.shares_memory(out, x)
    assert not np.shares_memory(run("Reshape", x, shape=(6, 4)), x)
    parts = run("Split", x, axis=1, output_num=3)
    assert isinstance(parts, tuple) and len(parts) == 3
    np.testing.assert_array_equal(parts[2], x[:, 2:3])
    np.testing.assert_array_equal(run("Gather", x, np.array([[2, -1]]), axis=2),
                                  x[:, :, [[2, 3]]])
    np.testing.assert_array_equal(run("Concat", x, x.astype(np.int32), axis=0),
                                  np.concatenate([x, x]))
    np.testing.assert_array_equal(run("Tile", x[0], multiples=(2, 1, 2)),
                                  np.tile(x[0], (2, 1, 2)))
    with pytest.raises(IndexError, match="index 7 is out of range for axis 0"):
        run("Gather", x, np.array([7]), axis=0)


def test_canonical_slices_select_what_python_slices_select() -> None:
    """Exhaustive over small dims and bounds: the canonical entry, applied as StridedSlice,
    selects exactly what the original Python slice selects."""
    bounds = (None, -7, -3, -1, 0, 1, 2, 5, 9)
    for dim in (0, 1, 4):
        x = np.arange(dim, dtype=np.int64)
        for start, stop, step in itertools.product(bounds, bounds, (None, -3, -1, 1, 2)):
            entry = canonical_slice(slice(start, stop, step), dim)
            assert canonical_slice(slice(*entry), dim) == entry  # a fixed point
            out = run("StridedSlice", x, index=(entry,))
            np.testing.assert_array_equal(out, x[start:stop:step])
            assert infer("StridedSlice", T(i64, dim), index=(entry,)) == T(i64, len(out))


def test_strided_slice_with_ints_and_new_axes() -> None:
    x = np.arange(24).reshape(2, 3, 4)
    index = (None, 1, (2, None, -1), None, (0, 4, 3))
    out = run("StridedSlice", x, index=index)
    np.testing.assert_array_equal(out, x[None, 1, 2::-1, None, 0:4:3])
    assert infer("StridedSlice", T(i64, 2, 3, 4), index=index) == T(i64, *out.shape)


# --- creation and nn --------------------------------------------------------------------


def test_creation_ops() -> None:
    assert infer("Fill", shape=(2, 3), dtype=i32, value=7) == T(i32, 2, 3)
    out = run("Fill", shape=(2, 3), dtype=i32, value=7)
    assert out.dtype == np.int32 and (out == 7).all()
    assert run("Zeros", shape=(0, 2), dtype=f32).shape == (0, 2)
    assert run("Ones", shape=(), dtype=b8).dtype == np.bool_
    assert infer("OnesLike", T(i32, 4)) == T(i32, 4)
    with pytest.raises(GraphTypeError, match="dtype must be an msc dtype"):
        infer("Zeros", shape=(2,), dtype=np.complex64)
    with pytest.raises(ShapeError, match="negative dimension"):
        infer("Ones", shape=(2, -1), dtype=f32)
    with pytest.raises(GraphTypeError, match="value must be a Python number"):
        infer("Fill", shape=(2,), dtype=f32, value="x")


def _np_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_family_and_layer_norm() -> None:
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(run("Softmax", x, axis=(-1,)), _np_softmax(x, -1), rtol=1e-6)
    out = run("LogSoftmax", x, axis=0)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out, x64 - np.logaddexp.reduce(x64, axis=0), rtol=1e-6)
    assert out[0, 0] == pytest.approx(-999.0)  # the naive log(softmax) would be -inf
    gamma, beta = np.array([1.0, 2.0, 3.0], np.float32), np.array([0.5, 0, -1], np.float32)
    y = run("LayerNorm", x, gamma, beta, begin_norm_axis=1, begin_params_axis=1,
            epsilon=1e-5)
    mu, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / np.sqrt(var + 1e-5) * gamma + beta, rtol=1e-4)
    with pytest.raises(GraphTypeError, match="must be a float Tensor"):
        infer("Softmax", T(i32, 3), axis=(-1,))
    with pytest.raises(ShapeError, match=r"gamma must have shape \(3,\)"):
        infer("LayerNorm", T(f32, 2, 3), T(f32, 2, 3), T(f32, 3))


# --- elementwise fixes --------------------------------------------------------------------


def test_gelu_exact_on_0d_and_bad_approximate() -> None:
    out = run("GeLU", np.asarray(1.0, np.float32), approximate="none")
    assert out.dtype == np.float32 and out.shape == ()
    assert math.isclose(float(out), 0.5 * (1 + math.erf(1 / math.sqrt(2))), rel_tol=1e-6)
    with pytest.raises(GraphValueError, match="approximate must be"):
        infer("GeLU", T(f32, 2), approximate="fast")


def test_integer_pow_with_negative_exponents_truncates() -> None:
    base = np.array([2, -1, 1, 3, -1], np.int32)
    exp = np.array([-1, -3, -2, 2, 2], np.int32)
    out = run("Pow", base, exp)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [0, -1, 1, 9, 1])


def test_bool_negation_and_subtraction_are_type_errors():
    import msc as ms

    b = ms.Tensor(np.array([True, False]))
    with pytest.raises(TypeError, match="For 'Neg'"):
        -b
    with pytest.raises(TypeError, match="For 'Sub'.*bool"):
        b - b
    np.testing.assert_array_equal((b - 1).asnumpy(), [0, -1])   # bool - int is int64
    assert (b - 1).dtype == ms.int64

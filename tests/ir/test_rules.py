"""Gradient rules, written with the IR builder, checked by running the nodes they emit
in the reference interpreter against central finite differences (batching rules:
``test_batch_rules.py``, on these cases too)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from msc.ir import dtypes
from msc.ir.builder import Builder
from msc.ir.interpret import interpret
from msc.ir.nodes import Graph, Module, Var
from msc.ir.primitives import PRIMITIVES, Op
from msc.ir.types import TensorType, TupleType

F64 = dtypes.float64


def t(*shape: int) -> TensorType:
    return TensorType(F64, shape)


def run(params: tuple[Var, ...], b: Builder, output: Any, *inputs: np.ndarray) -> Any:
    graph = Graph("g", params, tuple(b.nodes), output)
    return interpret(Module((graph,), "g"), list(inputs))


#: makes an input's values from a random generator and its shape
Domain = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


def signed(lo: float = 0.5, hi: float = 2.0) -> Domain:
    """Magnitudes in [lo, hi) with random signs: both sides of a kink at 0, kept lo away."""
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice((-1.0, 1.0), shape)


def pieces(*intervals: tuple[float, float]) -> Domain:
    """Values from the given intervals, each element from a random one of them."""
    def make(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        which = rng.integers(len(intervals), size=shape)
        lo, hi = np.array(intervals).T
        return rng.uniform(lo[which], hi[which])
    return make


def fixed(value: Any) -> Domain:
    """This array (integer indices, zeros in chosen places), whatever the shape says."""
    return lambda rng, shape: np.asarray(value)


def matrix(rows: int, cols: int, transposed: bool) -> tuple[int, int]:
    """The shape of a contraction operand that is (rows, cols) after its transpose flag."""
    return (cols, rows) if transposed else (rows, cols)

#: convolutions (1-3 spatial dims, strides, dilations, uneven padding, groups) and max
#: pooling (random inputs have no ties, so each window's maximum is unique)
CONV_CASES: list[tuple[Any, ...]] = [
    ("Conv", [(2, 4, 5), (6, 2, 3)],
     {"stride": (2,), "dilation": (1,), "pad": (1, 2), "groups": 2}, [signed()] * 2),
    ("Conv", [(2, 3, 5, 4), (4, 3, 2, 3)],
     {"stride": (1, 2), "dilation": (2, 1), "pad": (0, 1, 1, 0), "groups": 1}, [signed()] * 2),
    ("Conv", [(1, 2, 3, 4, 3), (2, 2, 2, 2, 1)],
     {"stride": (1, 1, 2), "dilation": (1, 1, 1), "pad": (1, 0, 0, 1, 0, 0), "groups": 1}),
    ("ConvTranspose", [(2, 6, 3), (6, 2, 3)],
     {"stride": (2,), "dilation": (1,), "pad": (1, 2), "groups": 2, "input_size": (5,)},
     [signed()] * 2),
    ("ConvTranspose", [(2, 4, 4, 2), (4, 3, 2, 3)],
     {"stride": (1, 2), "dilation": (2, 1), "pad": (0, 1, 1, 0), "groups": 1,
      "input_size": (5, 4)}, [signed()] * 2),
    ("MaxPool", [(2, 3, 5, 6)],
     {"kernel": (2, 3), "stride": (2, 1), "dilation": (1, 1), "pad": (1, 0, 1, 1)}, [signed()]),
    ("MaxPool", [(2, 2, 7)],
     {"kernel": (3,), "stride": (2,), "dilation": (2,), "pad": (2, 2)}, [signed()]),
    # second derivatives: each is linear in its second operand, piecewise constant in x
    ("MaxPoolGrad", [(2, 3, 5, 6), (2, 3, 3, 6)],
     {"kernel": (2, 3), "stride": (2, 1), "dilation": (1, 1), "pad": (1, 0, 1, 1)},
     [signed()] * 2),
    ("MaxPoolGradGrad", [(2, 3, 5, 6), (2, 3, 5, 6)],
     {"kernel": (2, 3), "stride": (2, 1), "dilation": (1, 1), "pad": (1, 0, 1, 1)},
     [signed()] * 2),
]

#: sorting, running products and extremes (random inputs have no ties), gathers and
#: scatters (repeated indices only where they add)
ARRAY_CASES: list[tuple[Any, ...]] = [
    ("Sort", [(3, 4)], {"axis": -1, "descending": False}),
    ("Sort", [(4, 3)], {"axis": 0, "descending": True}),
    ("CumProd", [(2, 4)], {"axis": 1, "exclusive": False, "reverse": False},
     [fixed([[0.5, 0.0, 1.5, -2.0], [1.5, -0.5, 2.0, 0.75]])]),
    ("CumProd", [(4, 2)], {"axis": 0, "exclusive": True, "reverse": False}),
    ("CumProd", [(2, 4)], {"axis": -1, "exclusive": False, "reverse": True},
     [fixed([[0.0, 1.5, 0.0, -2.0], [1.5, -0.5, 2.0, 0.0]])]),
    ("CumProd", [(3,)], {"axis": 0, "exclusive": True, "reverse": True}),
    ("Cummax", [(2, 5)], {"axis": 1}, [signed()]),
    ("Cummin", [(4, 2)], {"axis": 0}, [signed()]),
    ("GatherD", [(3, 4), (3, 2)], {"dim": 1},
     [None, fixed(np.array([[0, 3], [1, 1], [-1, 2]], np.int32))]),
    ("GatherD", [(3, 2), (4, 2)], {"dim": 0},
     [None, fixed(np.array([[0, 2], [2, 2], [1, 0], [-3, 1]], np.int64))]),
    ("TensorScatterElements", [(3, 4), (3, 2), (3, 2)], {"axis": 1, "reduction": "add"},
     [None, fixed(np.array([[0, 0], [3, 1], [-1, 2]], np.int32)), None]),
    ("TensorScatterElements", [(4, 2), (2, 2), (2, 2)], {"axis": 0, "reduction": "none"},
     [None, fixed(np.array([[0, 3], [2, 1]], np.int64)), None]),
    ("GatherNd", [(3, 4, 2), (2, 2)], {}, [None, fixed(np.array([[0, 3], [2, 1]], np.int32))]),
    ("GatherNd", [(3, 4), (2, 2, 1)], {}, [None, fixed(np.array([[[2], [0]], [[2], [1]]]))]),
    ("TensorScatterAdd", [(3, 4), (3, 1), (3, 4)], {},
     [None, fixed(np.array([[2], [0], [2]], np.int32)), None]),
    ("TensorScatterUpdate", [(3, 4), (2, 2), (2,)], {},
     [None, fixed(np.array([[2, 3], [0, 1]], np.int64)), None]),
]

#: special functions and parametric activations (inverse trigonometry near, not at, +-1)
MATH_CASES: list[tuple[Any, ...]] = [
    ("Erfc", [(3,)], {}, [signed()]), ("Erfinv", [(2, 3)], {}, [signed(0.05, 0.9)]),
    ("Expm1", [(2, 3)], {}, [signed()]), ("Log2", [(3,)], {}), ("Log10", [(3,)], {}),
    ("Exp2", [(3,)], {}, [signed()]), ("Tan", [(3,)], {}, [signed(0.1, 1.2)]),
    ("Asin", [(3,)], {}, [signed(0.1, 0.9)]), ("ACos", [(3,)], {}, [signed(0.1, 0.9)]),
    ("Atan", [(3,)], {}, [signed()]), ("Sinh", [(3,)], {}, [signed()]),
    ("Cosh", [(3,)], {}, [signed()]), ("Asinh", [(3,)], {}, [signed()]),
    ("Acosh", [(3,)], {}, [pieces((1.2, 3.0))]), ("Atanh", [(3,)], {}, [signed(0.1, 0.9)]),
    ("Atan2", [(2, 3), (3,)], {}, [signed(), signed()]),
    ("Atan2", [(2, 3), ()], {}, [signed(), -0.5]),
    ("Hypot", [(2, 1), (1, 3)], {}, [signed(), signed()]),
    ("Elu", [(2, 3)], {"alpha": 0.7}, [signed()]),
    ("Softplus", [(3, 4)], {"beta": 2.0, "threshold": 3.0}, [pieces((-3, 1.4), (1.6, 4))]),
]

# op, input shapes (broadcasting on purpose), attrs, and optionally one domain per input:
# None for uniform in (0.5, 2.0) (positive: log, sqrt, div; away from the kinks at 0),
# a Domain, or a Python number, which is then the operand itself (it gets no cotangent).
# An integer or bool input gets no cotangent either.
CASES: list[tuple[Any, ...]] = [
    ("Neg", [(2, 3)], {}), ("Exp", [(2, 3)], {}), ("Log", [(2, 3)], {}), ("Log1p", [(3,)], {}),
    ("Erf", [(3,)], {}),
    ("Sqrt", [(2, 3)], {}), ("Sin", [(3,)], {}), ("Cos", [(3,)], {}), ("Tanh", [(4,)], {}),
    ("Sigmoid", [(4,)], {}), ("Square", [(2, 2)], {}),
    ("Add", [(2, 3), (3,)], {}), ("Sub", [(2, 1), (1, 3)], {}), ("Mul", [(2, 3), (2, 1)], {}),
    ("Div", [(3,), (2, 3)], {}), ("Mod", [(2, 3), (3,)], {}),
    ("FloorMod", [(3,), (2, 3)], {}), ("Reshape", [(2, 3)], {"shape": (3, 2)}),
    ("ExpandDims", [(2, 3)], {"axis": 1}), ("Squeeze", [(2, 1, 3)], {"axis": (1,)}),
    ("Flatten", [(2, 3, 2)], {}), ("Transpose", [(2, 3, 4)], {"perm": (2, 0, 1)}),
    ("ReduceSum", [(2, 3, 4)], {"axis": (0, 2), "keep_dims": False}),
    ("ReduceSum", [(2, 3)], {"axis": (), "keep_dims": True}),
    ("CumSum", [(2, 3)], {"axis": 1, "exclusive": False, "reverse": False}),
    ("CumSum", [(3, 2)], {"axis": 0, "exclusive": False, "reverse": True}),
    ("CumSum", [(4,)], {"axis": 0, "exclusive": True, "reverse": False}),
    # elementwise ops with kinks: inputs on both sides, never on a kink
    ("Abs", [(2, 3)], {}, [signed()]), ("ReLU", [(2, 3)], {}, [signed()]),
    ("HSwish", [(3, 4)], {}, [pieces((-5, -3.2), (-2.8, 2.8), (3.2, 5))]),
    ("Rsqrt", [(2, 3)], {}), ("Reciprocal", [(2, 3)], {}, [signed()]),
    ("GeLU", [(2, 3)], {"approximate": "tanh"}, [signed(0.1, 3.0)]),
    ("GeLU", [(2, 3)], {"approximate": "none"}, [signed(0.1, 3.0)]),
    ("Pow", [(2, 3), (3,)], {}), ("Pow", [(2, 3), ()], {}, [None, 3.0]),
    ("Pow", [(2, 3), ()], {}, [signed(), 2]), ("Pow", [(), (2, 3)], {}, [2.5, signed()]),
    ("Pow", [(4,), ()], {}, [fixed([0.0, 0.0, 1.5, -0.7]), 3]),
    ("Maximum", [(2, 3), (3,)], {}), ("Maximum", [(2, 1), ()], {}, [None, 1.25]),
    ("Minimum", [(1, 3), (2, 1)], {}), ("Minimum", [(), (2, 3)], {}, [1.25, None]),
    ("ClipByValue", [(3, 4), (4,), (3, 1)], {}, [signed(0.0, 3.0), signed(0.0, 1.5), None]),
    ("ClipByValue", [(3, 4), (), ()], {}, [signed(0.0, 3.0), -1.0, 1.0]),
    # reductions and normalisations
    ("ReduceMean", [(2, 3, 4)], {"axis": (0, -1), "keep_dims": False}),
    ("ReduceMean", [(2, 3)], {"axis": (), "keep_dims": True}),
    ("ReduceMean", [(2, 3)], {"axis": -1, "keep_dims": False}),
    ("ReduceMean", [()], {"axis": 0, "keep_dims": False}),
    ("ReduceMax", [(2, 3, 4)], {"axis": (1,), "keep_dims": True}, [signed()]),
    ("ReduceMax", [(2, 3)], {"axis": (), "keep_dims": False}, [signed()]),
    ("ReduceMin", [(2, 3, 4)], {"axis": (-1, 0), "keep_dims": False}, [signed()]),
    ("ReduceProd", [(2, 3, 4)], {"axis": (1, 2), "keep_dims": False}, [signed()]),
    ("ReduceProd", [(3, 4)], {"axis": -1, "keep_dims": True},  # rows with 0, 1, 2 zeros
     [fixed([[0.5, -1.5, 2.0, 1.25], [0.0, 1.5, -2.0, 0.75], [1.0, 0.0, 0.0, 2.0]])]),
    ("ReduceProd", [(2, 3)], {"axis": (), "keep_dims": False}),
    ("Softmax", [(2, 3, 4)], {"axis": (-1,)}, [signed()]),
    ("Softmax", [(2, 3, 4)], {"axis": (0, 2)}, [signed()]),
    ("Softmax", [()], {"axis": (-1,)}),
    ("LogSoftmax", [(3, 4)], {"axis": -1}, [signed()]),
    ("LogSoftmax", [(3, 4)], {"axis": 0}, [signed()]),
    ("LogSumExp", [(2, 3, 4)], {"axis": (1, -1), "keep_dims": False}, [signed()]),
    ("LogSumExp", [(2, 3)], {"axis": (), "keep_dims": True}, [signed()]),
    ("LayerNorm", [(2, 3, 4), (3, 4), (3, 4)],
     {"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7}, [signed()] * 3),
    ("LayerNorm", [(2, 3, 4), (4,), (4,)],
     {"begin_norm_axis": -1, "begin_params_axis": -1, "epsilon": 1e-5}, [signed()] * 3),
    ("LayerNorm", [(2, 3, 4), (4,), (4,)],  # normalised over more dims than gamma spans
     {"begin_norm_axis": 1, "begin_params_axis": 2, "epsilon": 1e-3}, [signed()] * 3),
    ("LayerNorm", [(2, 3, 4), (3, 4), (3, 4)],  # and over fewer
     {"begin_norm_axis": 2, "begin_params_axis": 1, "epsilon": 0.0}, [signed()] * 3),
    # contractions and copies
    ("TensorMove", [(2, 3)], {}),
    *(("MatMul", [matrix(3, 2, ta), matrix(2, 4, tb)], {"transpose_a": ta, "transpose_b": tb},
       [signed()] * 2) for ta in (False, True) for tb in (False, True)),
    *(("BatchMatMul", [(2, 1) + matrix(3, 2, ta), (3,) + matrix(2, 4, tb)],
       {"transpose_a": ta, "transpose_b": tb}, [signed()] * 2)
      for ta in (False, True) for tb in (False, True)),
    ("BatchMatMul", [(3, 2), (2, 2, 4)], {"transpose_a": False, "transpose_b": False}),
    ("BatchMatMul", [(1, 3, 2), (2, 2, 4)], {"transpose_a": False, "transpose_b": False}),
    ("Dense", [(5, 3), (4, 3), (4,)], {}, [signed()] * 3),
    ("Dense", [(2, 5, 3), (4, 3)], {}, [signed()] * 2),
    ("Dense", [(3,), (4, 3), ()], {}, [signed()] * 3),
    ("Dense", [(2, 3), (3,), ()], {}, [signed()] * 3),
    # data movement
    ("Concat", [(2, 3), (2, 1), (2, 4)], {"axis": -1}),
    ("Concat", [(1, 3), (2, 3)], {"axis": 0}),
    ("Concat", [(2, 3), (2, 2)], {"axis": 1}, [None, fixed(np.ones((2, 2), np.int32))]),
    ("Stack", [(2, 3), (2, 3), (2, 3)], {"axis": 1}),
    ("Stack", [(2,), (2,)], {"axis": -1}),
    ("Split", [(2, 6)], {"axis": 1, "output_num": 3}),
    ("Split", [(4, 3)], {"axis": -2, "output_num": 2}),
    ("Gather", [(5, 3), (4,)], {"axis": 0}, [None, fixed(np.array([4, 0, -1, 2], np.int64))]),
    ("Gather", [(2, 4, 3), (2, 3)], {"axis": 1},  # repeated and negative indices sum
     [None, fixed(np.array([[0, 3, -1], [3, 0, 1]], np.int32))]),
    ("Gather", [(2, 4), ()], {"axis": -1}, [None, fixed(np.array(-2, np.int64))]),
    ("StridedSlice", [(4, 5)], {"index": ((1, 3, 1), (0, 5, 2))}),
    ("StridedSlice", [(4, 5, 3)], {"index": (2, None, (4, None, -2), (0, 3, 1))}),
    ("StridedSlice", [(3, 4)], {"index": ((2, None, -1), None, 1)}),
    ("StridedSlice", [(3, 4)], {"index": ((0, 0, 1), (0, 4, 1))}),
    ("StridedSlice", [(2, 3)], {"index": (1, 2)}),
    ("BroadcastTo", [(3, 1)], {"shape": (2, 3, 4)}),
    ("BroadcastTo", [(1, 4)], {"shape": (-1, 4)}),
    ("Tile", [(2, 3)], {"multiples": (2, 1, 3)}),
    ("Tile", [(2, 1, 3)], {"multiples": (2, 2)}),
    ("Tile", [(2, 3)], {"multiples": (1, 1)}),
    # convolution and pooling
    *CONV_CASES,
    *ARRAY_CASES,
    *MATH_CASES,
]


def flat(value: Any) -> list[np.ndarray]:
    """The arrays of a result that may be a tuple (Split)."""
    return [a for v in value for a in flat(v)] if isinstance(value, tuple) else [value]


def random_like(rng: np.random.Generator, t: Any) -> Any:
    if isinstance(t, TupleType):
        return tuple(random_like(rng, e) for e in t.elems)
    return rng.standard_normal(t.shape)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_vjp_matches_finite_differences(case: tuple[Any, ...]) -> None:
    name, shapes, attrs = case[:3]
    domains = case[3] if len(case) > 3 else [None] * len(shapes)
    prim = PRIMITIVES[name]
    rng = np.random.default_rng(0)
    operands: list[Any] = []
    params: list[Var] = []
    xs: list[np.ndarray] = []
    for i, (s, dom) in enumerate(zip(shapes, domains)):
        if isinstance(dom, (int, float)):
            operands.append(dom)
            continue
        x = rng.uniform(0.5, 2.0, s) if dom is None else dom(rng, s)
        params.append(Var(TensorType(dtypes.from_numpy(x.dtype), x.shape), f"x{i}"))
        operands.append(params[-1])
        xs.append(x)
    b = Builder()
    out = b.emit(prim, *operands, **attrs)
    g = Var(out.type, "g")
    cts = prim.vjp(b, g, *b.nodes[-1].inputs, out=out, **attrs)
    assert len(cts) == len(operands)
    for op, ct in zip(operands, cts):
        if not isinstance(op, Var) or not op.type.dtype.is_float:
            assert ct is None, (op, ct)
    wrt = [i for i, op in enumerate(operands) if isinstance(op, Var) and op.type.dtype.is_float]
    gv = random_like(rng, out.type)
    got = run(tuple(params) + (g,), b, b.tuple(*(cts[i] for i in wrt)), *xs, gv)

    def f(*values: np.ndarray) -> Any:
        fb = Builder()
        return run(tuple(params), fb, fb.emit(prim, *operands, **attrs), *values)

    eps = 1e-6
    for i, ct in zip(wrt, got):
        k = params.index(operands[i])
        x = xs[k]
        assert ct.shape == x.shape and ct.dtype == x.dtype
        d = rng.standard_normal(x.shape)
        plus = [v + eps * d if j == k else v for j, v in enumerate(xs)]
        minus = [v - eps * d if j == k else v for j, v in enumerate(xs)]
        numeric = sum(np.sum(w * (p - m)) for w, p, m in
                      zip(flat(gv), flat(f(*plus)), flat(f(*minus)))) / (2 * eps)
        np.testing.assert_allclose(np.sum(ct * d), numeric, rtol=1e-6, atol=1e-8)


def cotangents(name: str, values: list[Any], g: Any = None, **attrs: Any) -> list[Any]:
    """The op's vjp rule run on these operands (arrays, or Python numbers) and cotangent
    ``g`` (ones by default): one array, or None, per operand."""
    prim = PRIMITIVES[name]
    params = [Var(TensorType(dtypes.from_numpy(v.dtype), v.shape), f"x{i}")
              for i, v in enumerate(values) if isinstance(v, np.ndarray)]
    it = iter(params)
    operands = [next(it) if isinstance(v, np.ndarray) else v for v in values]
    b = Builder()
    out = b.emit(prim, *operands, **attrs)
    gvar = Var(out.type, "g")
    node = b.nodes[-1]
    cts = prim.vjp(b, gvar, *node.inputs, out=out, **node.attr)  # attrs complete, as in a graph
    got = iter(run(tuple(params) + (gvar,), b, b.tuple(*(c for c in cts if c is not None)),
                   *(v for v in values if isinstance(v, np.ndarray)),
                   np.ones(out.type.shape, out.type.dtype.np) if g is None else g))
    return [None if c is None else next(got) for c in cts]


def test_kinks_and_ties_follow_the_documented_conventions() -> None:
    """Abs and ReLU have slope 0 at 0; Maximum and Minimum give each operand half of a
    tie's gradient (MindSpore 2.10's); ClipByValue passes the gradient to x on the bounds; HSwish takes its outer
    pieces at -3 and 3; ReduceMax and ReduceMin split it equally among tied extremes."""
    x = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(cotangents("Abs", [x])[0], [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(cotangents("ReLU", [x])[0], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(cotangents("HSwish", [np.array([-3.0, 0.0, 3.0])])[0],
                                  [0.0, 0.5, 1.0])
    y = np.array([0.0, 0.0, 0.0])
    for name in ("Maximum", "Minimum"):
        dx, dy = cotangents(name, [x, y])
        np.testing.assert_array_equal(dx + dy, np.ones(3))
        assert dx[1] == 0.5 and dy[1] == 0.5, name
    dx, dlo, dhi = cotangents("ClipByValue", [np.array([-2.0, -1.0, 0.0, 1.0, 2.0]), -1.0,
                                              np.full(5, 1.0)])
    np.testing.assert_array_equal(dx, [0.0, 1.0, 1.0, 1.0, 0.0])
    assert dlo is None and list(dhi) == [0.0, 0.0, 0.0, 0.0, 1.0]
    m = np.array([[1.0, 3.0, 3.0, 3.0], [2.0, -1.0, 0.0, 2.0]])
    np.testing.assert_allclose(cotangents("ReduceMax", [m], np.array([3.0, 4.0]), axis=(1,),
                                          keep_dims=False)[0],
                               [[0.0, 1.0, 1.0, 1.0], [2.0, 0.0, 0.0, 2.0]])
    np.testing.assert_allclose(cotangents("ReduceMin", [m], np.array(6.0), axis=(),
                                          keep_dims=False)[0],
                               [[0.0, 0.0, 0.0, 0.0], [0.0, 6.0, 0.0, 0.0]])


@pytest.mark.parametrize("name, values, attrs", [
    ("MatMul", [np.ones((2, 3), np.float32), np.ones((3, 2))], {}),
    ("BatchMatMul", [np.ones((4, 2, 3), np.float32), np.ones((3, 2), np.float16)], {}),
    ("Dense", [np.ones((2, 3)), np.ones((4, 3), np.float32), np.ones(4, np.float16)], {}),
    ("Concat", [np.ones((2, 3), np.float32), np.ones((2, 1))], {"axis": 1}),
    ("Stack", [np.ones(3, np.float16), np.ones(3, np.float32)], {"axis": 0}),
    ("LayerNorm", [np.ones((2, 3)), np.ones(3, np.float32), np.ones(3, np.float16)], {}),
    ("ClipByValue", [np.ones(3, np.float32), np.zeros(3), np.full(3, 2.0, np.float16)], {}),
    ("Maximum", [np.ones((2, 3), np.float32), np.ones(3)], {}),
    ("Pow", [np.ones(3, np.float32), np.ones((2, 3))], {}),
    ("Gather", [np.ones((3, 2), np.float32), np.array([0, 2, 2], np.int8)], {"axis": 0}),
])
def test_each_cotangent_has_its_operands_type(name: str, values: list[np.ndarray],
                                              attrs: dict[str, Any]) -> None:
    """Mixed dtypes compute in the promoted one; each cotangent comes back in its
    operand's dtype and shape (an integer operand gets none)."""
    for v, ct in zip(values, cotangents(name, values, **attrs)):
        if v.dtype.kind != "f":
            assert ct is None
        else:
            assert ct.dtype == v.dtype and ct.shape == v.shape, (v.dtype, ct.dtype)


def test_pow_gives_the_exponent_no_gradient_where_the_base_is_zero() -> None:
    """0^y is 0 for every y > 0, so dy is 0 there, not 0 * log(0) = nan."""
    x, y = Var(t(3), "x"), Var(t(3), "y")
    b = Builder()
    out = b.pow(x, y)
    g = Var(out.type, "g")
    _, dy = Op.Pow.vjp(b, g, x, y, out=out)
    got = run((x, y, g), b, dy, np.array([0.0, 2.0, 0.0]),
              np.array([1.5, 2.0, 0.5]), np.ones(3))
    np.testing.assert_allclose(got, [0.0, 4 * np.log(2.0), 0.0])


def test_a_python_number_operand_gets_no_cotangent() -> None:
    x = Var(t(3), "x")
    b = Builder()
    out = b.mul(x, 2.0)
    cts = Op.Mul.vjp(b, Var(out.type, "g"), x, b.nodes[-1].inputs[1], out=out)
    assert cts[1] is None and cts[0].type == x.type


def test_builder_names_ops_in_any_case_and_fills_defaults() -> None:
    x = Var(t(2, 3), "x")
    b = Builder()
    s = b.reduce_sum(x, axis=(1,))
    assert b.nodes[-1].op is Op.ReduceSum and b.nodes[-1].attr == {"axis": (1,),
                                                                   "keep_dims": False}
    assert s.type == t(2)
    assert b.ReduceSum is not None and b.relu(x).type == x.type and b.matmul is not None
    with pytest.raises(AttributeError, match="no primitive named 'frobnicate'"):
        b.frobnicate(x)

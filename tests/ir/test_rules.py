"""Gradient and batching rules, written with the IR builder, checked by running the
nodes they emit in the reference interpreter: vjps against central finite differences,
the broadcasting batch rule against a loop over the batch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from msc.ir import dtypes
from msc.ir.builder import Builder
from msc.ir.interpret import interpret
from msc.ir.nodes import Graph, Module, Var
from msc.ir.primitives import PRIMITIVES, Op
from msc.ir.types import TensorType

F64 = dtypes.float64


def t(*shape: int) -> TensorType:
    return TensorType(F64, shape)


def run(params: tuple[Var, ...], b: Builder, output: Any, *inputs: np.ndarray) -> Any:
    graph = Graph("g", params, tuple(b.nodes), output)
    return interpret(Module((graph,), "g"), list(inputs))


# op, input shapes (broadcasting on purpose), attrs, a domain transform for the inputs
CASES = [
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
]


@pytest.mark.parametrize("name, shapes, attrs", CASES, ids=[c[0] for c in CASES])
def test_vjp_matches_finite_differences(name: str, shapes: list[tuple[int, ...]],
                                        attrs: dict[str, Any]) -> None:
    prim = PRIMITIVES[name]
    rng = np.random.default_rng(0)
    xs = [rng.uniform(0.5, 2.0, s) for s in shapes]  # positive: log, sqrt, div
    params = tuple(Var(t(*s), f"x{i}") for i, s in enumerate(shapes))
    b = Builder()
    out = b.emit(prim, *params, **attrs)
    g = Var(out.type, "g")
    cts = prim.vjp(b, g, *params, out=out, **attrs)
    got = run(params + (g,), b, b.tuple(*cts), *xs, gv := rng.standard_normal(out.type.shape))

    def f(*values: np.ndarray) -> np.ndarray:
        fb = Builder()
        return run(params, fb, fb.emit(prim, *params, **attrs), *values)

    eps = 1e-6
    for i, (x, ct) in enumerate(zip(xs, got)):
        assert ct.shape == x.shape and ct.dtype == x.dtype
        d = rng.standard_normal(x.shape)
        plus = [v + eps * d if j == i else v for j, v in enumerate(xs)]
        minus = [v - eps * d if j == i else v for j, v in enumerate(xs)]
        numeric = np.sum(gv * (f(*plus) - f(*minus))) / (2 * eps)
        np.testing.assert_allclose(np.sum(ct * d), numeric, rtol=1e-6, atol=1e-8)


def test_a_python_number_operand_gets_no_cotangent() -> None:
    x = Var(t(3), "x")
    b = Builder()
    out = b.mul(x, 2.0)
    cts = Op.Mul.vjp(b, Var(out.type, "g"), x, b.nodes[-1].inputs[1], out=out)
    assert cts[1] is None and cts[0].type == x.type


@pytest.mark.parametrize("name", ["Add", "Mul", "Maximum", "Less", "Select"])
def test_elementwise_batch_rule_matches_a_loop(name: str) -> None:
    """x batched along its axis 1, y unbatched with a shorter example shape."""
    prim = PRIMITIVES[name]
    rng = np.random.default_rng(1)
    n = 4
    if name == "Select":
        args = [Var(TensorType(dtypes.bool_, (3, n, 2)), "c"), Var(t(3, n, 2), "x"),
                Var(t(2,), "y")]
        values = [rng.standard_normal((3, n, 2)) > 0, rng.standard_normal((3, n, 2)),
                  rng.standard_normal(2)]
        dims = [1, 1, None]
    else:
        args = [Var(t(3, n, 2), "x"), Var(t(2,), "y")]
        values = [rng.standard_normal((3, n, 2)), rng.standard_normal(2)]
        dims = [1, None]
    b = Builder()
    out, out_dim = prim.batch(b, prim, args, dims)
    got = run(tuple(args), b, out, *values)
    for k in range(n):
        example = [np.take(v, k, axis=d) if d is not None else v for v, d in zip(values, dims)]
        params = tuple(Var(TensorType(a.type.dtype, e.shape), "e") for a, e in
                       zip(args, example))
        eb = Builder()
        want = run(params, eb, eb.emit(prim, *params), *example)
        np.testing.assert_array_equal(np.take(got, k, axis=out_dim), want)


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

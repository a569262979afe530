"""Dtype promotion: binary ops between tensors of every dtype pair and with Python
numbers, the divisions' result dtypes, clamp with bounds of another type."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "promotion"
DTYPES = ("bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64")
OPS = ("{x0} + {x1}", "{x0} * {x1}", "ops.div({x0}, {x1})", "P.RealDiv()({x0}, {x1})",
       "ops.maximum({x0}, {x1})", "{x0} > {x1}")
SCALARS = ("{x0} + 1", "{x0} * 2.5", "{x0} / 2", "{x0} // 2", "{x0} % 3", "{x0} ** 2",
           "2 - {x0}", "{x0} == 1", "ops.clamp({x0}, -1.5, 2.5)", "ops.clamp({x0}, -1, 2)",
           "ops.mean({x0})", "ops.abs({x0})", "-{x0}", "ops.sqrt(ops.abs({x0}))",
           "ops.floor_divide({x0}, 2)", "ops.sign({x0})")


def _spec(dtype: str) -> In:
    kind = "bool" if dtype == "bool" else ("idx:5" if dtype == "uint8" else
                                           ("int" if dtype.startswith("int") else "ties"))
    return In((2, 3), dtype, kind)


def _divisor(dtype: str) -> In:
    kind = "bool" if dtype == "bool" else ("pos" if dtype.startswith("float") else "idx:4")
    if kind == "idx:4":
        return In((2, 3), dtype, "const:3")
    return In((2, 3), dtype, kind)


def cases() -> list[Case]:
    out = []
    for op, a, b in itertools.product(OPS, DTYPES, DTYPES):
        if DTYPES.index(b) < DTYPES.index(a) or (a == "bool" and b == "bool" and "div" in op):
            continue
        if "bool" in (a, b) and ("Div" in op or "div" in op):
            continue
        second = _divisor(b) if "iv" in op else _spec(b)
        name = op.replace("{x0}", "a").replace("{x1}", "b")
        out.append(Case(f"{name}[{a},{b}]", FAMILY, op, (_spec(a), second), grad=False,
                        rtol=2e-3, atol=2e-3))
    for op, a in itertools.product(SCALARS, DTYPES):
        if a == "bool" and op not in ("{x0} + 1", "{x0} * 2.5", "{x0} == 1"):
            continue
        name = op.replace("{x0}", "a")
        out.append(Case(f"{name}[{a}]", FAMILY, op, (_spec(a),), grad=False,
                        rtol=2e-3, atol=2e-3))
    return out

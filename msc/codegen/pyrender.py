"""The Python-syntax renderer of kernel-IR expressions (``msc/ir/kernel.py``): the numba
and python targets' spelling of every operation, on arrays (numpy calls over whole
arrays) or on scalars (inside a fused loop, which Numba compiles).

Rendering is the only step that writes an expression's source; every operation is
parenthesized, so the text means what the tree means whatever surrounds it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.ir.kernel import (
    Arg,
    AttrRef,
    Binary,
    Call,
    Cast,
    Compare,
    Expr,
    Helper,
    Lit,
    Name,
    Neg,
    Select,
)
from msc.ir.primitives.emitting import dtype_ref


def literal(value: Any, dt: Any = None) -> str:
    """A Python scalar as source, typed to the msc dtype ``dt`` so numpy and Numba keep
    the dtype (None: a plain Python literal)."""
    text = repr(bool(value)) if isinstance(value, (bool, np.bool_)) else repr(value)
    if isinstance(value, (float, np.floating)) and \
            (value != value or value in (float("inf"), float("-inf"))):
        text = f"float({str(value)!r})"
    return f"{dtype_ref(dt)}({text})" if dt is not None else text


def render(e: Expr, *, scalar: bool) -> str:
    """``e``'s source: on scalars (``scalar``) or on whole arrays."""
    def r(x: Expr) -> str:
        return render(x, scalar=scalar)

    if isinstance(e, Name):
        return e.name
    if isinstance(e, Lit):
        return literal(e.value, e.dtype)
    if isinstance(e, Binary):
        return f"({r(e.a)} {e.op.value} {r(e.b)})"
    if isinstance(e, Compare):
        return f"({r(e.a)} {e.op.value} {r(e.b)})"
    if isinstance(e, Neg):
        return f"(-{r(e.x)})"
    if isinstance(e, Call):
        return f"{e.fn.spelling.value}.{e.fn.value}({', '.join(r(a) for a in e.args)})"
    if isinstance(e, Helper):
        return f"{e.name}({', '.join(r(a) for a in e.args)})"
    if isinstance(e, Select):
        if scalar:
            return f"({r(e.a)} if {r(e.cond)} else {r(e.b)})"
        return f"np.where({r(e.cond)}, {r(e.a)}, {r(e.b)})"
    if isinstance(e, Cast):
        return f"{dtype_ref(e.dtype)}({r(e.x)})" if scalar else \
            f"{r(e.x)}.astype({dtype_ref(e.dtype)})"
    assert not isinstance(e, (Arg, AttrRef)), f"unbound {e} in a rendered expression"
    raise TypeError(f"not a kernel-IR expression: {e!r}")

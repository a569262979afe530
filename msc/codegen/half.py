"""float16 on a target that holds it as bit patterns (``Float16.BITS``: Numba has none).

Kernels take, pass and return float16 tensors as uint16 arrays of their bits: ``run``
hands them views (``ModuleSpec.half_args``, so weights are written in place) and views
its float16 results back. Inside the kernels, numpy's float16 arithmetic is spelled out:

- A fused loop loads an element as float32 (``_rt_f16_to_f32``) and computes each op
  whose result is float16 as numpy's float16 ufuncs do: in float32, rounded to float16
  (``_rt_f16_round``) after every ufunc and operator of the op's expression, with Python
  numbers rounded to float16 first (``rounded``); it stores bits (``_rt_f32_to_f16``).
  Element-wise results are bit-identical to eager mode's.
- Views (reshape, transpose, slices, broadcasts) only re-index memory: they run on the bits.
- Every other op (``HalfNodes``: matmul, reductions, softmax, layer norm, gathers, writes)
  runs on float32 copies of its float16 operands (``_rt_f16_widen``), and its float16
  results are rounded once (``_rt_f16_narrow``). Where numpy rounds inside such an op, the
  last bit may differ: numpy sums float16 pairwise in float32 and its softmax and layer
  norm round every step to float16, while these loops accumulate in order and round only
  the result; a float16 matmul here is a float32 BLAS product rounded once (numpy
  accumulates in float32 in another order). Data movement (gathers, concatenation) is exact.

Example, ``ops.sigmoid(x) * 2.5`` on float16 ``x``::

    a = _rt_f16_to_f32(x[i0])
    t = _rt_f16_round(np.float32(1.0) / _rt_f16_round(np.float32(1.0) + _rt_f16_round(np.exp(-a))))
    t2 = _rt_f16_round(t * np.float32(2.5))
    v[i0] = _rt_f32_to_f16(t2)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import numpy as np

from msc.codegen.pyrender import located
from msc.ir import kernel
from msc.ir.dtypes import DType, float16, float32, float64
from msc.ir.kernel import (
    Assign,
    Binary,
    Call,
    Cast,
    DTypeRef,
    Eval,
    Expr,
    Fn,
    Helper,
    Lit,
    Loop,
    Name,
    Spelling,
    Stmt,
    Tuple,
)
from msc.ir.nodes import Const, Node, Value, Var
from msc.ir.primitives.base import LoopNest, Statements
from msc.ir.types import RefType, ScalarType, TensorType, TupleType, Type, tensor_of

ROUND = "_rt_f16_round"
#: Runtime helpers whose float16 twin rounds inside as numpy's float16 code does.
TWINS = {"_rt_gelu": "_rt_gelu_f16"}


def to_half(value: Any) -> float:
    """A Python number as numpy reads it next to a float16 array: rounded to float16."""
    with np.errstate(over="ignore"):
        return float(np.float16(value))


def has_half(t: Type) -> bool:
    if isinstance(t, TupleType):
        return any(has_half(e) for e in t.elems)
    tt = tensor_of(t)
    return tt is not None and tt.dtype == float16


def involves_half(node: Node) -> bool:
    return has_half(node.out.type) or any(has_half(v.type) for v in node.inputs)


def widened_type(t: Type) -> Type:
    """``t`` with float32 for float16."""
    if isinstance(t, TupleType):
        return TupleType(tuple(widened_type(e) for e in t.elems))
    if isinstance(t, RefType):
        return RefType(widened_type(t.tensor))  # type: ignore[arg-type]
    if isinstance(t, TensorType) and t.dtype == float16:
        return TensorType(float32, t.shape)
    return t


def convert(value: Expr, t: Type, helper: str) -> Expr:
    """``helper`` applied to each float16 array of ``value``, of type ``t``."""
    if isinstance(t, TupleType):
        return Tuple(tuple(convert(value[i], e, helper) for i, e in enumerate(t.elems)))
    return Helper(helper, (value,)) if has_half(t) else value


def viewed(expr: str, t: Type) -> str:
    """A kernel result's float16 bits seen as float16 again (in ``run``)."""
    return f"{expr}.view(np.float16)" if has_half(t) else expr


def widened_node(node: Node) -> Node:
    """``node`` as its float32 twin for the emitters: float16 types and dtype attributes
    become float32 (float16 constants too); a number written to a float16 weight is
    rounded to float16 first, as numpy converts it."""
    def operand(v: Value) -> Value:
        if isinstance(v, Const) and isinstance(v.type, ScalarType) and node.op.writes and \
                has_half(node.inputs[0].type):
            return Const(to_half(v.value))
        if not has_half(v.type):
            return v
        if isinstance(v, Const):
            return Const(_widened_const(v.value))
        return Var(widened_type(v.type), v.hint)

    attrs = tuple((k, float32 if isinstance(a, DType) and a == float16 else a)
                  for k, a in node.attrs)
    out = Var(widened_type(node.out.type), node.out.hint)
    return Node(node.op, tuple(operand(v) for v in node.inputs), attrs, out, node.loc)


def _widened_const(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_widened_const(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype == np.float16:
        return value.astype(np.float32)
    return value


class HalfNodes:
    """The part of ``Lowerer`` that lowers a node that is neither fused nor a view and
    has float16 operands or results (its attributes: ``target``, ``ns``, ``env``,
    ``body``, ``name_of``, ``lowered_expr``)."""

    target: Any
    ns: Any
    env: dict[Var, str]
    body: list[Stmt]
    name_of: Callable[[Value], str]
    lowered_expr: Callable[[Node, list[Any]], Any]
    value_of: Callable[[Value], Expr]
    assign: Callable[..., None]

    def half_node(self, node: Node, out: str) -> None:
        """Run ``node`` on float32 copies of its float16 operands (a write writes a copy
        of the weight, whose bits then take the rounded values); float16 results are
        rounded once. ``Print`` runs in object mode, where numpy has float16: it prints
        the operands' bits viewed as float16."""
        lowering, loc = node.op.lowering_for(self.target.lowering), node.loc
        if isinstance(lowering, Statements) and not node.op.writes:
            args = [Call(Fn.METHOD_VIEW, (self.value_of(v), DTypeRef(float16)))
                    if has_half(v.type) else self.value_of(v) for v in node.inputs]
            self.body += located(lowering.emit(args, node, out), node.loc)
            return
        proxy = widened_node(node)
        args = []
        for v, p in zip(node.inputs, proxy.inputs):
            if not has_half(v.type):
                args.append(self.value_of(p))
                continue
            f = self.ns.fresh("f")
            args.append(Name(f))
            self.body.append(Assign(Name(f), convert(self.value_of(v), v.type, "_rt_f16_widen"),
                                    loc=loc))
        if isinstance(lowering, Statements):  # a write
            self.body += located(lowering.emit(args, proxy, out), loc)
            if has_half(node.inputs[0].type):
                ref = self.env[node.out] = self.name_of(node.inputs[0])
                self.body.append(Eval(Helper("_rt_f16_narrow_into", (args[0], Name(ref)))))
            return
        result = self.ns.fresh("f") if has_half(node.out.type) else out
        loops = None
        if isinstance(lowering, LoopNest):
            loops = lowering.emit(args, proxy, result, self.ns.fresh)
        if loops:  # (the numpy calls of its loops are not made: they compute float16)
            self.body += [replace(s, instead=()) if isinstance(s, Loop) else s
                          for s in located(loops, loc)]
        else:
            self.assign(result, self.lowered_expr(proxy, args), node)
        if result != out:
            self.body.append(Assign(Name(out), convert(Name(result), node.out.type,
                                                       "_rt_f16_narrow")))


# --- fused expressions -----------------------------------------------------------------


def rounded(e: Expr) -> Expr:
    """An elementwise op's expression ``e`` (its attributes bound, its operands float32
    values holding float16 ones) computed as numpy computes it on float16 arrays: every
    arithmetic operation and float16 ufunc in float32, rounded to float16, its number
    constants float16; ``math`` functions (double precision in Python) on float64;
    runtime helpers as their float16 ``TWINS``. Comparisons, negation (exact) and
    selections are not rounded, but the result is.

    >>> from msc.codegen.pyrender import render
    >>> print(render(rounded(1 / (1 + call(Fn.EXP, -Name("a"))))))  # sigmoid
    _rt_f16_round((np.float32(1.0) / _rt_f16_round((np.float32(1.0) + \
        _rt_f16_round(np.exp((-a)))))))
    """
    out = kernel.rewrite(e, _round_node)
    return out if _is_round(out) else _round(out)


def _round_node(e: Expr) -> Expr | None:
    if isinstance(e, Binary):
        return _round(e)
    if isinstance(e, Call) and e.fn.spelling is Spelling.MATH:
        return _round(Call(e.fn, tuple(Cast(float64, a) for a in e.args)))
    if isinstance(e, Call):
        return _round(e) if _float16_ufunc(e.fn.value) else None
    if isinstance(e, Helper) and e.name != ROUND:
        return _round(Helper(TWINS.get(e.name, e.name), e.args))
    if isinstance(e, Lit) and e.dtype is None and not isinstance(e.value, (bool, str)):
        return Lit(to_half(e.value), float32)  # a number: float16, held in float32
    return None


def _float16_ufunc(name: str) -> bool:
    """Whether ``np.<name>`` is a ufunc with a float16 result (not a comparison)."""
    u = getattr(np, name, None)
    return isinstance(u, np.ufunc) and any(t.endswith("->e") for t in u.types)


def _round(e: Expr) -> Expr:
    return Helper(ROUND, (e,))


def _is_round(e: Expr) -> bool:
    return isinstance(e, Helper) and e.name == ROUND

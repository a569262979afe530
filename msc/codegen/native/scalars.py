"""Scalars of the native target's C: Numba's typing rules and their C spelling.

The numba target's kernels are the program the native target renders, so a scalar
expression must compute in C what it computes under Numba: integer arithmetic in at least
64 bits, a float32 with an integer in float64, Python's floor division and remainder,
numpy's NaN-winning maximum. Each function here takes ``Scalar`` operands (a C expression
and its numpy dtype) and gives the result's ``Scalar``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from msc.errors import ExportError
from msc.ir import kernel as K

#: C spelling of each numpy dtype the native target computes with.
CTYPES = {"bool": "bool", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t",
          "uint16": "uint16_t", "int32": "int32_t", "uint32": "uint32_t",
          "int64": "int64_t", "uint64": "uint64_t", "float32": "float", "float64": "double"}
I64, F32, F64 = np.dtype("int64"), np.dtype("float32"), np.dtype("float64")
BOOL = np.dtype("bool")


def ctype(dt: np.dtype) -> str:
    try:
        return CTYPES[np.dtype(dt).name]
    except KeyError:
        raise ExportError(f"the native target has no {np.dtype(dt).name} arrays yet") from None


@dataclass(frozen=True)
class Scalar:
    """A scalar value: a C expression and its dtype."""

    code: str
    dtype: np.dtype


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """The dtype of ``a op b`` in Numba's scalar arithmetic."""
    if a.kind == "b" and b.kind == "b":
        return I64
    r = np.promote_types(a, b)
    if r.kind == "i" or (r.kind == "u" and (a.kind == "i" or b.kind == "i")):
        return I64 if r.kind == "i" or r.itemsize < 8 else F64
    if r.kind == "u":
        return np.dtype("uint64")
    if r.kind == "b":
        return I64
    return r


def unify(a: np.dtype | None, b: np.dtype) -> np.dtype:
    """The type of a name assigned values of types ``a`` and ``b`` (Numba's unification)."""
    if a is None or a == b:
        return b
    if a.kind == "b" or b.kind == "b":
        return a if b.kind == "b" else b
    return promote(a, b)


def literal(value: Any, dt: np.dtype | None = None) -> Scalar:
    """A Python number (or one typed ``dt``) as a C constant."""
    if isinstance(value, (bool, np.bool_)) and dt is None:
        return Scalar("true" if value else "false", BOOL)
    dt = np.dtype(dt) if dt is not None else (I64 if isinstance(value, (int, np.integer)) else F64)
    if dt.kind == "b":
        return Scalar("true" if value else "false", BOOL)
    if dt.kind == "f":
        v = float(value)
        text = ("NAN" if v != v else ("INFINITY" if v > 0 else "(-INFINITY)")) \
            if not math.isfinite(v) else repr(v)
        return Scalar(text if dt == F64 else f"((float){text})", dt)
    v = int(value)
    if dt == I64:
        return Scalar(f"INT64_C({v})" if abs(v) >= 2**31 else str(v), dt)
    return Scalar(f"(({ctype(dt)}){v})", dt)


def np_dtype(dtype: Any) -> np.dtype:
    return dtype.np if hasattr(dtype, "np") else np.dtype(dtype)


def storage(dt: np.dtype) -> np.dtype:
    """The dtype an array's elements are held as: float16 as its bits (``Float16.BITS``,
    as on the numba target, whose lowerings convert them with the ``_rt_f16_*`` helpers)."""
    return np.dtype("uint16") if np.dtype(dt) == np.float16 else np.dtype(dt)


# Python's floor division and remainder and friends, by C helper (msc_native.h)
UNARY_F = {K.Fn.ABS: "fabs", K.Fn.SQRT: "sqrt", K.Fn.EXP: "exp", K.Fn.EXP2: "exp2",
            K.Fn.EXPM1: "expm1", K.Fn.LOG: "log", K.Fn.LOG2: "log2", K.Fn.LOG10: "log10",
            K.Fn.LOG1P: "log1p", K.Fn.SIN: "sin", K.Fn.COS: "cos", K.Fn.TAN: "tan",
            K.Fn.ARCSIN: "asin", K.Fn.ARCCOS: "acos", K.Fn.ARCTAN: "atan", K.Fn.SINH: "sinh",
            K.Fn.COSH: "cosh", K.Fn.TANH: "tanh", K.Fn.ARCSINH: "asinh", K.Fn.ARCCOSH: "acosh",
            K.Fn.ARCTANH: "atanh", K.Fn.FLOOR: "floor", K.Fn.CEIL: "ceil", K.Fn.TRUNC: "trunc",
            K.Fn.RINT: "rint"}
MATH = {K.Fn.MATH_SQRT: "sqrt", K.Fn.MATH_EXP: "exp", K.Fn.MATH_LOG: "log",
         K.Fn.MATH_ERF: "erf", K.Fn.MATH_ERFC: "erfc"}
BINARY_F = {K.Fn.ARCTAN2: "atan2", K.Fn.HYPOT: "hypot", K.Fn.NEXTAFTER: "nextafter"}
#: scalar runtime helpers: name -> (C function, the dtype of its operands and result)
SCALAR_HELPERS = {"_rt_exp32": ("msc_exp32", F32), "_rt_tanh32": ("msc_tanh32", F32),
                  "_rt_exp64": ("msc_exp64", F64),
                  "_rt_sigmoid64": ("msc_sigmoid64", F64), "_rt_erf64": ("msc_erf64", F64),
                  "_rt_erfc64": ("msc_erfc64", F64),
                  "_rt_gelu_none32": ("msc_gelu_none32", F32),
                  "_rt_gelu_tanh32": ("msc_gelu_tanh32", F32)}
#: float16 helpers of one scalar (bits as int64, values as double): C function, result
FLOAT16_HELPERS = {"_rt_f16_to_f32": ("msc_f16_to_f32", F32),
                   "_rt_f32_to_f16": ("msc_f32_to_f16", np.dtype(np.uint16)),
                   "_rt_f16_round": ("msc_f16_round", F32)}
CMP = {K.CompareOp.EQ: "==", K.CompareOp.NE: "!=", K.CompareOp.LT: "<", K.CompareOp.LE: "<=",
        K.CompareOp.GT: ">", K.CompareOp.GE: ">="}


def is_static(v: Any) -> bool:
    return isinstance(v, (bool, int, float, np.number, np.bool_)) and not isinstance(v, Scalar)


def fold(op: K.BinaryOp, a: Any, b: Any) -> Any:
    B = K.BinaryOp
    if op is B.DIV:
        return a / b
    return {B.ADD: lambda: a + b, B.SUB: lambda: a - b, B.MUL: lambda: a * b,
            B.FLOORDIV: lambda: a // b, B.MOD: lambda: a % b, B.POW: lambda: a ** b,
            B.AND: lambda: a & b, B.OR: lambda: a | b, B.XOR: lambda: a ^ b,
            B.LSHIFT: lambda: a << b, B.RSHIFT: lambda: a >> b}[op]()


def fold_compare(op: K.CompareOp, a: Any, b: Any) -> bool:
    return {K.CompareOp.EQ: a == b, K.CompareOp.NE: a != b, K.CompareOp.LT: a < b,
            K.CompareOp.LE: a <= b, K.CompareOp.GT: a > b, K.CompareOp.GE: a >= b}[op]


def cast(x: Scalar, t: np.dtype) -> str:
    if x.dtype == t:
        return x.code
    if t.kind == "b":
        return f"({x.code} != 0)"
    return f"(({ctype(t)}){x.code})"


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def truth(s: Scalar) -> str:
    """``s`` as a C condition."""
    return s.code if s.dtype.kind == "b" else f"({s.code} != 0)"

def compare(op: K.CompareOp, a: Scalar, b: Scalar) -> Scalar:
    t = a.dtype if a.dtype == b.dtype else promote(a.dtype, b.dtype)
    return Scalar(f"({cast(a, t)} {CMP[op]} {cast(b, t)})", BOOL)

def binary(op: K.BinaryOp, a: Scalar, b: Scalar) -> Scalar:
    """``a op b`` as Numba computes it (Python's floor division and remainder)."""
    B = K.BinaryOp
    if op in (B.AND, B.OR, B.XOR):
        c = {B.AND: "&", B.OR: "|", B.XOR: "^"}[op]
        t = BOOL if a.dtype.kind == b.dtype.kind == "b" else promote(a.dtype, b.dtype)
        return Scalar(f"({cast(a, t)} {c} {cast(b, t)})", t)
    ints = a.dtype.kind in "biu" and b.dtype.kind in "biu"
    t = promote(a.dtype, b.dtype) if a.dtype != b.dtype or a.dtype.kind == "b" else a.dtype
    if t.kind in "iu" and t.itemsize < 8:
        t = I64 if t.kind == "i" else np.dtype("uint64")
    if op is B.DIV:
        t = F64 if ints else t
        return Scalar(f"({cast(a, t)} / {cast(b, t)})", t)
    if op in (B.ADD, B.SUB, B.MUL):
        return Scalar(f"({cast(a, t)} {op.value} {cast(b, t)})", t)
    if op in (B.LSHIFT, B.RSHIFT):
        return Scalar(f"({cast(a, t)} {op.value} {cast(b, t)})", t)
    kind = "i64" if t.kind in "iu" else ("f32" if t == np.float32 else "f64")
    fn = {B.FLOORDIV: "msc_floordiv", B.MOD: "msc_mod", B.POW: "msc_pow"}[op]
    return Scalar(f"{fn}_{kind}({cast(a, t)}, {cast(b, t)})", t)


def extreme(fn: K.Fn, args: Sequence[Scalar]) -> Scalar:
    """Python's ``min``/``max`` (the first of equal ones) or numpy's (a NaN wins)."""
    out = args[0]
    for b in args[1:]:
        t = out.dtype if out.dtype == b.dtype else promote(out.dtype, b.dtype)
        x, y = cast(out, t), cast(b, t)
        big = fn in (K.Fn.PY_MAX, K.Fn.MAXIMUM)
        if fn in (K.Fn.MAXIMUM, K.Fn.MINIMUM) and t.kind == "f":  # a NaN wins
            kind = "f32" if t == np.float32 else "f64"
            out = Scalar(f"msc_{'maximum' if big else 'minimum'}_{kind}({x}, {y})", t)
        else:  # Python's max: the first of equal ones, no NaN rule
            out = Scalar(f"({y} {'>' if big else '<'} {x} ? {y} : {x})", t)
    return out

def unary(fn: K.Fn, x: Scalar) -> Scalar:
    F = K.Fn
    f32 = x.dtype == np.float32
    if fn in MATH:
        return Scalar(f"{MATH[fn]}({cast(x, F64)})", F64)
    if fn is F.ISNAN:
        return Scalar(f"isnan({x.code})" if x.dtype.kind == "f" else "false", BOOL)
    if fn is F.ISINF:
        return Scalar(f"isinf({x.code})" if x.dtype.kind == "f" else "false", BOOL)
    if fn is F.ISFINITE:
        return Scalar(f"isfinite({x.code})" if x.dtype.kind == "f" else "true", BOOL)
    if fn is F.LOGICAL_NOT:
        return Scalar(f"(!{truth(x)})", BOOL)
    if fn is F.SIGN:
        t = x.dtype
        body = f"(({x.code} > 0) - ({x.code} < 0))"
        if t.kind == "f":
            return Scalar(f"(isnan({x.code}) ? {x.code} : ({ctype(t)}){body})", t)
        return Scalar(f"(({ctype(t)}){body})", t)
    if fn is F.ABS and x.dtype.kind in "iub":
        t = I64 if x.dtype.kind == "b" else x.dtype
        return Scalar(f"({x.code} < 0 ? ({ctype(t)})-{x.code} : ({ctype(t)}){x.code})", t)
    if fn in (F.FLOOR, F.CEIL, F.TRUNC, F.RINT) and x.dtype.kind in "iub":
        return Scalar(cast(x, F64), F64)
    t = x.dtype if x.dtype.kind == "f" else F64
    name = UNARY_F[fn] + ("f" if f32 else "")
    return Scalar(f"{name}({cast(x, t)})", t)

def negative(x: Scalar) -> Scalar:
    t = I64 if x.dtype.kind == "b" else x.dtype
    return Scalar(f"(-{cast(x, t)})", t)


def select(cond: str, a: Scalar, b: Scalar) -> Scalar:
    """``a`` where the C condition ``cond`` holds, else ``b``, in their common type."""
    t = unify(a.dtype, b.dtype) if a.dtype.kind == b.dtype.kind == "b" else \
        promote(a.dtype, b.dtype) if a.dtype != b.dtype else a.dtype
    return Scalar(f"({cond} ? {cast(a, t)} : {cast(b, t)})", t)


def binary_fn(fn: K.Fn, a: Scalar, b: Scalar) -> Scalar:
    """numpy's binary functions of two scalars."""
    F = K.Fn
    if fn is F.LOGICAL_AND:
        return Scalar(f"({truth(a)} && {truth(b)})", BOOL)
    if fn is F.LOGICAL_OR:
        return Scalar(f"({truth(a)} || {truth(b)})", BOOL)
    simple = {F.ADD: K.BinaryOp.ADD, F.SUBTRACT: K.BinaryOp.SUB, F.MULTIPLY: K.BinaryOp.MUL,
              F.DIVIDE: K.BinaryOp.DIV, F.FLOOR_DIVIDE: K.BinaryOp.FLOORDIV,
              F.MOD: K.BinaryOp.MOD}
    if fn in simple:
        return binary(simple[fn], a, b)
    t = promote(a.dtype, b.dtype) if a.dtype != b.dtype else a.dtype
    if fn is F.FMOD:
        kind = "i64" if t.kind in "iub" else ("f32" if t == np.float32 else "f64")
        t = I64 if kind == "i64" else t
        return Scalar(f"msc_fmod_{kind}({cast(a, t)}, {cast(b, t)})", t)
    t = t if t.kind == "f" else F64
    name = BINARY_F[fn] + ("f" if t == np.float32 else "")
    return Scalar(f"{name}({cast(a, t)}, {cast(b, t)})", t)


#: the functions ``unary`` and ``binary_fn`` spell
UNARY_FNS = frozenset(UNARY_F) | frozenset(MATH) | {K.Fn.ISNAN, K.Fn.ISINF, K.Fn.ISFINITE,
                                                    K.Fn.SIGN, K.Fn.LOGICAL_NOT}
BINARY_FNS = frozenset(BINARY_F) | {K.Fn.FMOD, K.Fn.LOGICAL_AND, K.Fn.LOGICAL_OR,
                                    K.Fn.FLOOR_DIVIDE, K.Fn.MOD, K.Fn.ADD, K.Fn.SUBTRACT,
                                    K.Fn.MULTIPLY, K.Fn.DIVIDE}

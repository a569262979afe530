"""The kernel IR's scalar expressions: what an element of a kernel computes, as data.

An elementwise op's record (``Elementwise`` in ``primitives/base.py``) holds one of these
trees over its operands ``X0, X1, ...`` and attributes (``attr("alpha")``); fusion
substitutes the loaded elements for the operands, passes rewrite the tree (float16
rounding: ``codegen/half.py``; vector math: ``codegen/fusion.py``), and only a renderer
(``codegen/pyrender.py`` for numba and python, ``codegen/cuda/scalar.py`` for cuda)
writes source text, each with its own spelling of every ``Fn``.

Nodes are small frozen dataclasses, compared and hashed by value. Arithmetic on nodes
builds nodes (``X0 * 2 + X1`` is ``Binary(ADD, Binary(MUL, X0, Lit(2)), X1)``); ``==``
keeps its dataclass meaning, so comparisons are spelled ``gt(a, b)``, ``eq(a, b)``, ...

    >>> print(Select(gt(X0, 0), X0, attr("alpha") * call(Fn.EXPM1, X0)))
    select(gt(%0, 0), %0, mul(@alpha, expm1(%0)))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Mapping, Sequence


class Spelling(Enum):
    """Where a function comes from, which decides how it rounds in float16 and how a
    Python-syntax renderer names it: numpy's (a ufunc computing float16 in float32 and
    rounding) or Python's ``math`` module (double precision)."""

    NUMPY = "np"
    MATH = "math"


class Fn(Enum):
    """The named scalar functions (value: the function's name in its module)."""

    ABS = "abs"
    ARCCOS = "arccos"
    ARCCOSH = "arccosh"
    ARCSIN = "arcsin"
    ARCSINH = "arcsinh"
    ARCTAN = "arctan"
    ARCTAN2 = "arctan2"
    ARCTANH = "arctanh"
    CEIL = "ceil"
    COS = "cos"
    COSH = "cosh"
    EXP = "exp"
    EXP2 = "exp2"
    EXPM1 = "expm1"
    FLOOR = "floor"
    FLOOR_DIVIDE = "floor_divide"
    FMOD = "fmod"
    GCD = "gcd"
    HYPOT = "hypot"
    ISFINITE = "isfinite"
    ISINF = "isinf"
    ISNAN = "isnan"
    LCM = "lcm"
    LOG = "log"
    LOG10 = "log10"
    LOG1P = "log1p"
    LOG2 = "log2"
    LOGICAL_AND = "logical_and"
    LOGICAL_NOT = "logical_not"
    LOGICAL_OR = "logical_or"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    MOD = "mod"
    NEXTAFTER = "nextafter"
    ONES_LIKE = "ones_like"
    RINT = "rint"
    SIGN = "sign"
    SIN = "sin"
    SINH = "sinh"
    SQRT = "sqrt"
    TAN = "tan"
    TANH = "tanh"
    TRUNC = "trunc"
    ZEROS_LIKE = "zeros_like"
    MATH_ERF = "erf"  # Python's math.erf and math.erfc: double precision, scalars only
    MATH_ERFC = "erfc"

    @property
    def spelling(self) -> Spelling:
        return Spelling.MATH if self.name.startswith("MATH_") else Spelling.NUMPY


class BinaryOp(Enum):
    """Python's binary operators (value: the operator)."""

    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"
    AND = "&"
    OR = "|"
    XOR = "^"
    LSHIFT = "<<"
    RSHIFT = ">>"
    POW = "**"


class CompareOp(Enum):
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="


class Expr:
    """A scalar expression. Arithmetic operators build ``Binary`` and ``Neg`` nodes."""

    __slots__ = ()

    def __add__(self, other: Any) -> Binary:
        return Binary(BinaryOp.ADD, self, lift(other))

    def __radd__(self, other: Any) -> Binary:
        return Binary(BinaryOp.ADD, lift(other), self)

    def __sub__(self, other: Any) -> Binary:
        return Binary(BinaryOp.SUB, self, lift(other))

    def __rsub__(self, other: Any) -> Binary:
        return Binary(BinaryOp.SUB, lift(other), self)

    def __mul__(self, other: Any) -> Binary:
        return Binary(BinaryOp.MUL, self, lift(other))

    def __rmul__(self, other: Any) -> Binary:
        return Binary(BinaryOp.MUL, lift(other), self)

    def __truediv__(self, other: Any) -> Binary:
        return Binary(BinaryOp.DIV, self, lift(other))

    def __rtruediv__(self, other: Any) -> Binary:
        return Binary(BinaryOp.DIV, lift(other), self)

    def __and__(self, other: Any) -> Binary:
        return Binary(BinaryOp.AND, self, lift(other))

    def __or__(self, other: Any) -> Binary:
        return Binary(BinaryOp.OR, self, lift(other))

    def __xor__(self, other: Any) -> Binary:
        return Binary(BinaryOp.XOR, self, lift(other))

    def __lshift__(self, other: Any) -> Binary:
        return Binary(BinaryOp.LSHIFT, self, lift(other))

    def __rshift__(self, other: Any) -> Binary:
        return Binary(BinaryOp.RSHIFT, self, lift(other))

    def __neg__(self) -> Neg:
        return Neg(self)

    def __str__(self) -> str:
        return show(self)


@dataclass(frozen=True, slots=True)
class Arg(Expr):
    """Operand ``index`` of an op's expression."""

    index: int


@dataclass(frozen=True, slots=True)
class AttrRef(Expr):
    """An attribute of the op's node, bound to a ``Lit`` by ``bind``."""

    name: str


@dataclass(frozen=True, slots=True)
class Lit(Expr):
    """A number or bool; with ``dtype`` (an msc dtype) it is typed (``np.float32(2.5)``),
    without it it is a Python literal."""

    value: Any
    dtype: Any = None


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A value a kernel has named: a loaded element, an earlier result, a loop index."""

    name: str


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: BinaryOp
    a: Expr
    b: Expr


@dataclass(frozen=True, slots=True)
class Neg(Expr):
    x: Expr


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    op: CompareOp
    a: Expr
    b: Expr


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """A named function (``Fn``) of the operands."""

    fn: Fn
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Helper(Expr):
    """A call of a runtime helper (``msc/runtime``, ``_rt_*``), which the target's module
    carries: special functions, float16 rounding, vectorizable exp."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Select(Expr):
    """``a`` where ``cond`` holds, else ``b`` (on arrays: element by element)."""

    cond: Expr
    a: Expr
    b: Expr


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    """``x`` converted to ``dtype`` (an msc dtype)."""

    dtype: Any
    x: Expr


X0, X1, X2 = Arg(0), Arg(1), Arg(2)


def lift(value: Any) -> Expr:
    """A Python number as a literal; an expression as it is."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, (bool, int, float)):
        return Lit(value)
    raise TypeError(f"not a scalar expression: {value!r}")


def attr(name: str) -> AttrRef:
    return AttrRef(name)


def call(fn: Fn, *args: Any) -> Call:
    return Call(fn, tuple(lift(a) for a in args))


def helper(name: str, *args: Any) -> Helper:
    return Helper(name, tuple(lift(a) for a in args))


def _compare(op: CompareOp) -> Callable[[Any, Any], Compare]:
    return lambda a, b: Compare(op, lift(a), lift(b))


eq, ne, lt, le, gt, ge = (_compare(op) for op in CompareOp)


# --- walking and rewriting ------------------------------------------------------------------


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Binary, Compare)):
        return (e.a, e.b)
    if isinstance(e, Neg):
        return (e.x,)
    if isinstance(e, Cast):
        return (e.x,)
    if isinstance(e, (Call, Helper)):
        return e.args
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    return ()


def with_children(e: Expr, new: Sequence[Expr]) -> Expr:
    """``e`` with its children replaced by ``new`` (in ``children``' order)."""
    if isinstance(e, Binary):
        return Binary(e.op, new[0], new[1])
    if isinstance(e, Compare):
        return Compare(e.op, new[0], new[1])
    if isinstance(e, Neg):
        return Neg(new[0])
    if isinstance(e, Cast):
        return Cast(e.dtype, new[0])
    if isinstance(e, Call):
        return Call(e.fn, tuple(new))
    if isinstance(e, Helper):
        return Helper(e.name, tuple(new))
    if isinstance(e, Select):
        return Select(new[0], new[1], new[2])
    return e


def rewrite(e: Expr, rule: Callable[[Expr], Expr | None]) -> Expr:
    """``e`` rewritten bottom-up: each node with its children rewritten, then replaced by
    ``rule``'s result unless that is None."""
    kids = children(e)
    if kids:
        e = with_children(e, [rewrite(k, rule) for k in kids])
    out = rule(e)
    return e if out is None else out


def bind(e: Expr, attrs: Mapping[str, Any]) -> Expr:
    """``e`` with its attribute references replaced by the attributes' values."""
    return rewrite(e, lambda n: Lit(attrs[n.name]) if isinstance(n, AttrRef) else None)


def substitute(e: Expr, operands: Sequence[Expr]) -> Expr:
    """``e`` with operand ``i`` replaced by ``operands[i]`` (once: operands are not
    rewritten again)."""
    return rewrite(e, lambda n: operands[n.index] if isinstance(n, Arg) else None)


def show(e: Expr) -> str:
    """The debugging form: operations by name, operands ``%i``, attributes ``@name``."""
    if isinstance(e, Arg):
        return f"%{e.index}"
    if isinstance(e, AttrRef):
        return f"@{e.name}"
    if isinstance(e, Lit):
        return repr(e.value) if e.dtype is None else f"{e.dtype}({e.value!r})"
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Cast):
        return f"{e.dtype}({show(e.x)})"
    name = {Binary: lambda: e.op.name.lower(), Compare: lambda: e.op.name.lower(),  # type: ignore
            Neg: lambda: "neg", Call: lambda: e.fn.value, Helper: lambda: e.name,  # type: ignore
            Select: lambda: "select"}[type(e)]()
    return f"{name}({', '.join(show(k) for k in children(e))})"

"""The kernel IR: what a generated kernel computes, as data, until a renderer writes it.

Expressions (the first half) say what a value is; statements (the second half) say what a
kernel does: loop nests with their roles, assignments, indexed stores, accumulations,
branches and calls, each with the user's line it comes from.

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

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterator, Mapping, Sequence


class Spelling(Enum):
    """Which family a function belongs to, which decides how it rounds in float16 and
    how a Python-syntax renderer names it: numpy's (a ufunc computes float16 in float32
    and rounds), Python's ``math`` module (double precision), a Python builtin, a method
    of an array, or an attribute of one."""

    NUMPY = "np"
    MATH = "math"
    BUILTIN = "builtin"
    METHOD = "method"
    ATTRIBUTE = "attribute"


#: Name prefixes of ``Fn`` members that are not numpy functions.
_PREFIXES = {"MATH_": Spelling.MATH, "PY_": Spelling.BUILTIN, "METHOD_": Spelling.METHOD,
             "ATTR_": Spelling.ATTRIBUTE}


class Fn(Enum):
    """The named functions (value: the function's name in its family, see ``spelling``):
    numpy's elementwise functions, array allocation and movement, and a few of Python's
    own. BLAS products are runtime helpers (``Helper("_rt_matmul_into", ...)``)."""

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
    MATH_SQRT = "math.sqrt"
    MATH_EXP = "math.exp"
    MATH_LOG = "math.log"
    # arrays: allocation, layout, movement
    EMPTY = "empty"
    ZEROS = "zeros"
    ONES = "ones"
    FULL = "full"
    ASCONTIGUOUSARRAY = "ascontiguousarray"
    ASARRAY = "asarray"
    WHERE = "where"
    CONCATENATE = "concatenate"
    COPYTO = "copyto"
    BROADCAST_TO = "broadcast_to"
    AS_STRIDED = "lib.stride_tricks.as_strided"  # a strided view (np.lib.stride_tricks)
    TAKE = "take"
    TILE = "tile"
    TRANSPOSE = "transpose"  # np.transpose(x, axes)
    ADD = "add"  # ufuncs an outlined driver calls into an array (``out=``)
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"
    NEGATIVE = "negative"
    ARGSORT = "argsort"
    DIVIDE = "divide"
    MATMUL = "matmul"
    SWAPAXES = "swapaxes"
    # numpy's reductions (``axis=``, ``keepdims=``, ``dtype=`` as keyword operands)
    SUM = "sum"
    MEAN = "mean"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    ARGMAX = "argmax"
    ARGMIN = "argmin"
    METHOD_RESHAPE = "reshape"
    METHOD_TRANSPOSE = "ndarray.transpose"  # (qualified: numpy's TRANSPOSE is "transpose")
    METHOD_ASTYPE = "astype"
    METHOD_COPY = "copy"
    METHOD_ITEM = "item"
    METHOD_VIEW = "view"
    ATTR_T = "T"
    ATTR_STRIDES = "strides"
    # Python's builtins on scalars (indices, bounds)
    PY_MIN = "builtins.min"  # (qualified: numpy's reductions MIN and MAX are "min", "max")
    PY_MAX = "builtins.max"
    PY_INT = "int"
    PY_FLOAT = "float"
    PY_RANGE = "range"

    @property
    def spelling(self) -> Spelling:
        return next((sp for prefix, sp in _PREFIXES.items() if self.name.startswith(prefix)),
                    Spelling.NUMPY)

    @property
    def symbol(self) -> str:
        """The function's name within its family (``math.sqrt`` -> ``sqrt``; numpy's are
        named from ``np``: ``lib.stride_tricks.as_strided``)."""
        return self.value if self.spelling is Spelling.NUMPY else self.value.rpartition(".")[2]


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
    FLOORDIV = "//"
    MOD = "%"


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

    def __floordiv__(self, other: Any) -> Binary:
        return Binary(BinaryOp.FLOORDIV, self, lift(other))

    def __mod__(self, other: Any) -> Binary:
        return Binary(BinaryOp.MOD, self, lift(other))

    def __getitem__(self, index: Any) -> Load:
        """``a[i, j]``: an element (or, with ``Slice`` parts, a view) of an array."""
        parts = index if isinstance(index, tuple) else (index,)
        return Load(self, tuple(lift(i) for i in parts))

    def __neg__(self) -> Neg:
        return Neg(self)

    def __str__(self) -> str:
        return show(self)

    def __format__(self, spec: str) -> str:
        """An expression is not source: only a renderer writes it (an f-string that
        formats one is a lowering bug, which this makes loud)."""
        raise TypeError(f"format a kernel-IR expression with a renderer, not f-strings: "
                        f"{show(self)}")


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
    without it it is a Python literal (a string too: a helper's format or group name)."""

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
    """A named function (``Fn``) of the operands (a method's first operand is its
    array), with keyword operands ``kwargs`` (numpy's ``out=``, ``axis=``)."""

    fn: Fn
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Helper(Expr):
    """A call of a runtime helper (``msc/runtime``, ``_rt_*``), which the target's module
    carries: special functions, float16 rounding, vectorizable exp."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Invoke(Expr):
    """A call of another generated function (a shared graph's kernel) by its name."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Launch(Expr):
    """A generated device kernel (``name``) launched with the launch ``config`` (blocks,
    threads per block) on ``args``: ``name[config](args)``."""

    name: str
    config: tuple[Expr, ...]
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


@dataclass(frozen=True, slots=True)
class Load(Expr):
    """``array[index]``: an element, or a view where some parts are ``Slice``s (an
    empty index reads a 0-d array's element)."""

    array: Expr
    index: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Slice(Expr):
    """``lo:hi:step`` inside an index (None: the default bound)."""

    lo: Expr | None = None
    hi: Expr | None = None
    step: Expr | None = None


@dataclass(frozen=True, slots=True)
class Tuple(Expr):
    """A tuple of values: a shape, an axis order, a function's several results."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class DTypeRef(Expr):
    """An msc dtype as a value (``np.float32`` as numpy's functions take it)."""

    dtype: Any


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    """``and`` (``all_=True``) or ``or`` of conditions, evaluated left to right."""

    all_: bool
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Not(Expr):
    """Python's ``not``: the truth of a scalar condition negated."""

    x: Expr


@dataclass(frozen=True, slots=True)
class Chain(Expr):
    """A chained comparison ``items[0] ops[0] items[1] ops[1] items[2] ...`` (``lo < x <
    hi``): true where every neighbouring pair compares true, each item evaluated once."""

    ops: tuple[CompareOp, ...]
    items: tuple[Expr, ...]


ELLIPSIS = Name("...")  # ``a[...]``: the whole array
X0, X1, X2 = Arg(0), Arg(1), Arg(2)


def lift(value: Any) -> Expr:
    """A Python number as a literal, a string as a name; an expression as it is."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, (bool, int, float)):
        return Lit(value)
    if isinstance(value, str):
        return Name(value)
    raise TypeError(f"not a scalar expression: {value!r}")


def attr(name: str) -> AttrRef:
    return AttrRef(name)


def call(fn: Fn, *args: Any) -> Call:
    return Call(fn, tuple(lift(a) for a in args))


def helper(name: str, *args: Any) -> Helper:
    return Helper(name, tuple(lift(a) for a in args))


def shape_of(dims: Any) -> Tuple:
    """A shape (or any tuple of ints and expressions) as a value."""
    return Tuple(tuple(lift(d) for d in dims))


def both(*conds: Any) -> BoolOp:
    return BoolOp(True, tuple(lift(c) for c in conds))


def either(*conds: Any) -> BoolOp:
    return BoolOp(False, tuple(lift(c) for c in conds))


# --- array values, as emitters write them ------------------------------------------------


def empty(shape: Any, dt: Any) -> Call:
    """A new array of ``shape`` and msc dtype ``dt``, its elements unset."""
    return Call(Fn.EMPTY, (shape_of(shape), DTypeRef(dt)))


def zeros(shape: Any, dt: Any) -> Call:
    return Call(Fn.ZEROS, (shape_of(shape), DTypeRef(dt)))


def ones(shape: Any, dt: Any) -> Call:
    return Call(Fn.ONES, (shape_of(shape), DTypeRef(dt)))


def contiguous(x: Any) -> Call:
    """``x`` with C-contiguous memory (itself when it has it already)."""
    return Call(Fn.ASCONTIGUOUSARRAY, (lift(x),))


def reshape(x: Any, shape: Any) -> Call:
    return Call(Fn.METHOD_RESHAPE, (lift(x), shape_of(shape)))


def transpose(x: Any, order: Any) -> Call:
    return Call(Fn.METHOD_TRANSPOSE, (lift(x), shape_of(order)))


def astype(x: Any, dt: Any) -> Call:
    return Call(Fn.METHOD_ASTYPE, (lift(x), DTypeRef(dt)))


def _compare(op: CompareOp) -> Callable[[Any, Any], Compare]:
    return lambda a, b: Compare(op, lift(a), lift(b))


eq, ne, lt, le, gt, ge = (_compare(op) for op in CompareOp)


# --- walking and rewriting ------------------------------------------------------------------


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Binary, Compare)):
        return (e.a, e.b)
    if isinstance(e, (Neg, Not)):
        return (e.x,)
    if isinstance(e, Cast):
        return (e.x,)
    if isinstance(e, Call):
        return e.args + tuple(v for _, v in e.kwargs)
    if isinstance(e, (Helper, Invoke)):
        return e.args
    if isinstance(e, Launch):
        return e.config + e.args
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    if isinstance(e, Load):
        return (e.array, *e.index)
    if isinstance(e, Slice):
        return tuple(x for x in (e.lo, e.hi, e.step) if x is not None)
    if isinstance(e, (Tuple, BoolOp, Chain)):
        return e.items
    return ()


def nodes(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression inside it, parents first."""
    yield e
    for k in children(e):
        yield from nodes(k)


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
        n = len(e.args)
        return Call(e.fn, tuple(new[:n]), tuple((k, v) for (k, _), v in zip(e.kwargs, new[n:])))
    if isinstance(e, Helper):
        return Helper(e.name, tuple(new))
    if isinstance(e, Invoke):
        return Invoke(e.name, tuple(new))
    if isinstance(e, Launch):
        return Launch(e.name, tuple(new[:len(e.config)]), tuple(new[len(e.config):]))
    if isinstance(e, Select):
        return Select(new[0], new[1], new[2])
    if isinstance(e, Load):
        return Load(new[0], tuple(new[1:]))
    if isinstance(e, Slice):
        it = iter(new)
        return Slice(*(None if x is None else next(it) for x in (e.lo, e.hi, e.step)))
    if isinstance(e, Tuple):
        return Tuple(tuple(new))
    if isinstance(e, BoolOp):
        return BoolOp(e.all_, tuple(new))
    if isinstance(e, Not):
        return Not(new[0])
    if isinstance(e, Chain):
        return Chain(e.ops, tuple(new))
    return e


def rewrite(e: Expr, rule: Callable[[Expr], Expr | None]) -> Expr:
    """``e`` rewritten bottom-up: each node with its children rewritten, then replaced by
    ``rule``'s result unless that is None."""
    kids = children(e)
    if kids:
        e = with_children(e, [rewrite(k, rule) for k in kids])
    out = rule(e)
    return e if out is None else out


def on_arrays(e: Expr) -> Expr:
    """``e`` on whole arrays: where a node means one thing on scalars and another on arrays,
    its array form (a cast is ``astype``, a selection numpy's ``where``)."""
    def rule(n: Expr) -> Expr | None:
        if isinstance(n, Cast):
            return Call(Fn.METHOD_ASTYPE, (n.x, DTypeRef(n.dtype)))
        if isinstance(n, Select):
            return Call(Fn.WHERE, (n.cond, n.a, n.b))
        return None
    return rewrite(e, rule)


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
    if isinstance(e, DTypeRef):
        return str(e.dtype)
    if isinstance(e, Load):
        return f"{show(e.array)}[{', '.join(show(i) for i in e.index)}]"
    if isinstance(e, Slice):
        parts = [e.lo, e.hi] + ([e.step] if e.step is not None else [])
        return ":".join("" if x is None else show(x) for x in parts)
    if isinstance(e, Tuple):
        return f"({''.join(show(i) + ', ' for i in e.items)})"
    if isinstance(e, BoolOp):
        return f" {'and' if e.all_ else 'or'} ".join(show(i) for i in e.items)
    if isinstance(e, Chain):  # lt_lt(lo, x, hi)
        return f"{'_'.join(op.name.lower() for op in e.ops)}({', '.join(map(show, e.items))})"
    if isinstance(e, Launch):
        return f"{e.name}[{', '.join(map(show, e.config))}]({', '.join(map(show, e.args))})"
    if isinstance(e, Call) and e.kwargs:
        args = [show(a) for a in e.args] + [f"{k}={show(v)}" for k, v in e.kwargs]
        return f"{e.fn.value}({', '.join(args)})"
    name = {Binary: lambda: e.op.name.lower(), Compare: lambda: e.op.name.lower(),  # type: ignore
            Neg: lambda: "neg", Call: lambda: e.fn.value, Helper: lambda: e.name,  # type: ignore
            Invoke: lambda: e.name, Select: lambda: "select", Not: lambda: "not"}[type(e)]()
    return f"{name}({', '.join(show(k) for k in children(e))})"


# --- statements -----------------------------------------------------------------------------


class Role(Enum):
    """What a loop's iterations are to each other, which later passes and renderers use:
    ``PARALLEL`` iterations are independent (vectorize them, split them across threads),
    ``REDUCE`` ones fold into a value outside the loop, ``SERIAL`` ones may depend on each
    other (or nobody said)."""

    SERIAL = "serial"
    PARALLEL = "parallel"
    REDUCE = "reduce"


class Stmt:
    """A statement; ``loc`` is the user's line it computes (None: no line of its own)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    """``target = value``: a name (or a tuple of names) bound to a scalar or an array."""

    target: Expr
    value: Expr
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Store(Stmt):
    """``array[index] = value``: an element, or a view filled."""

    target: Load
    value: Expr
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Accumulate(Stmt):
    """``target op= value``: an accumulator (a name or an element) takes ``value`` in."""

    target: Expr
    op: BinaryOp
    value: Expr
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Eval(Stmt):
    """A call made for its effect (a BLAS product into an array, a copy)."""

    value: Expr
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Loop(Stmt):
    """``for var in range(start, stop, step)`` over ``body``. ``instead``: statements that
    compute what the whole loop computes, to the bit, with numpy calls, which a driver
    running outside Numba makes instead (a kernel keeps the loop)."""

    var: str
    stop: Expr
    body: tuple[Stmt, ...]
    start: Expr | None = None
    step: Expr | None = None
    role: Role = Role.SERIAL
    instead: tuple[Stmt, ...] = ()
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Branch(Stmt):
    """``if cond: body else: orelse``."""

    cond: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Raise(Stmt):
    """``raise exc(message)``: a built-in exception (``IndexError``) with a fixed message,
    which the generated code raises at run time (an index out of range)."""

    exc: str
    message: str
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ObjMode(Stmt):
    """``with objmode(name='type', ...):`` over ``body``: Numba runs the body as Python
    (a runtime helper keeping state between calls, MPI, a print); ``types`` gives the
    Numba type of each name the body assigns that the kernel reads afterwards."""

    body: tuple[Stmt, ...]
    types: tuple[tuple[str, str], ...] = ()
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class While(Stmt):
    """``while cond: body`` (a graph's tensor loop: ``while True`` with a ``Break``)."""

    cond: Expr
    body: tuple[Stmt, ...]
    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    """Leave the innermost ``While``."""

    loc: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Raw(Stmt):
    """A line of source an emitter still writes as text (``text`` ends with ``:`` where
    it opens a block, which then holds ``body``). Lowerings move off it to the
    structured statements above, one family at a time."""

    text: str
    body: tuple[Stmt, ...] = ()
    loc: Any = field(default=None, compare=False)


def stmt_children(s: Stmt) -> tuple[Stmt, ...]:
    if isinstance(s, (Loop, Raw, ObjMode, While)):
        return s.body
    if isinstance(s, Branch):
        return s.body + s.orelse
    return ()


def stmt_exprs(s: Stmt) -> tuple[Expr, ...]:
    """The expressions of statement ``s`` itself, not of the statements in its body (nor
    a loop's ``instead``)."""
    if isinstance(s, (Assign, Store, Accumulate)):
        return (s.target, s.value)
    if isinstance(s, Eval):
        return (s.value,)
    if isinstance(s, Loop):
        return tuple(b for b in (s.start, s.stop, s.step) if b is not None)
    if isinstance(s, (Branch, While)):
        return (s.cond,)
    return ()


def walk_stmts(stmts: Sequence[Stmt]) -> Iterator[Stmt]:
    """``stmts`` and every statement in their bodies, each before its body."""
    for s in stmts:
        yield s
        yield from walk_stmts(stmt_children(s))


def helpers_called(stmts: Sequence[Stmt]) -> frozenset[str]:
    """The runtime helpers (``_rt_*``) ``stmts`` call or read (a helper's constant, such
    as the device's threads per block)."""
    return frozenset(n.name for s in walk_stmts(stmts) for e in stmt_exprs(s)
                     for n in nodes(e) if isinstance(n, (Helper, Name))
                     and n.name.startswith("_rt_"))


def show_stmts(stmts: Sequence[Stmt], depth: int = 0) -> list[str]:
    """The debugging form of statements (``msc ir --kernels``): loops with their roles,
    expressions as ``show`` writes them, the user's line after ``#``."""
    pad, out = "  " * depth, []
    for s in stmts:
        where = f"  # {s.loc.file.rsplit('/', 1)[-1]}:{s.loc.line}" if getattr(s, "loc", None) \
            else ""
        if isinstance(s, Loop):
            bounds = ", ".join(show(x) for x in (s.start or Lit(0), s.stop)) + \
                (f", {show(s.step)}" if s.step is not None else "")
            out.append(f"{pad}{s.role.value} for {s.var} in [{bounds}):{where}")
            out += show_stmts(s.body, depth + 1)
        elif isinstance(s, Branch):
            out.append(f"{pad}if {show(s.cond)}:{where}")
            out += show_stmts(s.body, depth + 1)
            if s.orelse:
                out.append(f"{pad}else:")
                out += show_stmts(s.orelse, depth + 1)
        elif isinstance(s, Raw):
            out.append(f"{pad}source {s.text.strip()}{where}")
            out += show_stmts(s.body, depth + 1)
        elif isinstance(s, While):
            out.append(f"{pad}while {show(s.cond)}:{where}")
            out += show_stmts(s.body, depth + 1)
        elif isinstance(s, Break):
            out.append(f"{pad}break{where}")
        elif isinstance(s, Accumulate):
            out.append(f"{pad}{show(s.target)} {s.op.value}= {show(s.value)}{where}")
        elif isinstance(s, (Assign, Store)):
            out.append(f"{pad}{show(s.target)} = {show(s.value)}{where}")
        elif isinstance(s, Eval):
            out.append(f"{pad}{show(s.value)}{where}")
        elif isinstance(s, Raise):
            out.append(f"{pad}raise {s.exc}({s.message!r}){where}")
        elif isinstance(s, ObjMode):
            names = "".join(f" {k}: {v}" for k, v in s.types)
            out.append(f"{pad}objmode{names}:{where}")
            out += show_stmts(s.body, depth + 1)
    return out

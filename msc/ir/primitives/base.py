"""The ``Primitive`` record and the one table every stage reads.

A primitive is defined once, completely, where it is declared: its type/shape rule
(``infer``), its numpy implementation (``impl``, the eager engine's and the reference
interpreter's), its attribute schema (defaults applied once, when a node is built), a
typed lowering per target, its side-effect class, whether it is elementwise, whether its
generated code may share its input's memory (``view``), its cost, and its gradient and
batching rules. Passes and codegen name ops by the record itself (``Op.Add``), never by
a string. See ``README.md`` beside this file for how to add an op.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any, Callable, Iterator, Mapping, Union

import numpy as np

from msc.errors import GraphTypeError, InternalCompilerError, Loc, MscError, ShapeError
from msc.ir.dtypes import DType, promote, promote_weak
from msc.ir.kernel import Expr
from msc.ir.types import ScalarType, TensorType, TupleType, Type, tensor_of, type_of_value

#: The code generators every primitive must have a lowering for.
TARGETS = ("numba", "python")


class Effect(Enum):
    """What running an op does besides computing its result."""

    NONE = "none"  # pure: may be dropped, merged, folded and reordered
    READ = "read"  # reads a weight in a state (Load): equal nodes are equal reads
    MEMORY = "memory"  # writes a weight in place
    IO = "io"  # prints or raises: runs in program order, never merged or dropped


class Compute(Enum):
    """The dtype a fused elementwise expression computes in."""

    OUT = "out"  # the result's dtype
    OPERANDS = "operands"  # the operands' common dtype (comparisons)
    BOOL = "bool"  # operands as bools (logic)
    NONE = "none"  # no conversion (Cast: the result's constructor converts)


# --- attributes --------------------------------------------------------------------------

REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()


@dataclass(frozen=True)
class Attr:
    """One attribute of an op: its name, default (``REQUIRED`` when it has none), the
    Python types it accepts (``None``: checked by the type rule), and ``convert``, which
    maps the other spellings users write to the one the rules expect (dtypes)."""

    name: str
    default: Any = REQUIRED
    types: tuple[type, ...] | None = None
    convert: Callable[[Any], Any] | None = None


# --- lowerings: how generated code computes an op, one record per target ---------------


@dataclass(frozen=True)
class Elementwise:
    """``expr``, a kernel-IR expression (``msc/ir/kernel.py``) over operands ``X0, X1,
    ...`` and attributes, that means the same on arrays and on scalars; ``scalar``
    replaces it inside fused loops where the array form does not apply. Operands are
    converted to the ``compute`` dtype, except ``keep``."""

    expr: Expr
    scalar: Expr | None = None
    compute: Compute = Compute.OUT
    keep: tuple[int, ...] = ()


@dataclass(frozen=True)
class ArrayExpr:
    """``emit(args, node) -> Expr``: one array expression defining the result. ``fresh``:
    the expression always makes a new array no other value shares (the numba target may
    then compute a later elementwise result into it once nothing else reads it). The
    operands (``args``) are kernel-IR expressions (``msc/ir/kernel.py``): names of arrays,
    literals of Python scalars, tuples of constants."""

    emit: Callable[..., Any]
    fresh: bool = False


@dataclass(frozen=True)
class LoopNest:
    """``emit(args, node, out, fresh) -> statements`` defining ``out`` with explicit loops
    (``emitting.Loops``), or None to use ``otherwise`` (for example a float matmul that is
    one BLAS call)."""

    emit: Callable[..., Any]
    otherwise: ArrayExpr | None = None
    fresh: bool = False  # as ArrayExpr's, for the loops and ``otherwise`` alike


@dataclass(frozen=True)
class Statements:
    """``emit(args, node, out) -> statements`` with effects (writes, prints): kernel-IR
    statements over the operands' expressions (a loop's numpy calls in ``Loop.instead``)."""

    emit: Callable[..., Any]


@dataclass(frozen=True)
class Device:
    """How a device target computes the op where the generic lowering does not say it
    (``cuda_lowering.py``). ``emit(args, node) -> Expr | None``: the call of a kernel of
    its runtime computing the whole result (the cuda target's ``cuda_rt.py``), or None
    where that kernel does not take the node's dtypes or layout: the host then runs the op,
    as it runs every op without such a record. ``scalar(attrs, dtype) -> Expr | None``: an
    elementwise op's form inside a generated kernel, computing in ``dtype``, where the
    numba target's calls a runtime helper (None: the host runs it)."""

    emit: Callable[..., Any] | None = None
    scalar: Callable[..., Any] | None = None


@dataclass(frozen=True)
class Alias:
    """No code: the result is operand ``input`` (loads, ordering tokens)."""

    input: int = 0


@dataclass(frozen=True)
class Builtin:
    """The code generator emits the op itself (tuples, calls, branches and loops)."""


Lowering = Union[Elementwise, ArrayExpr, LoopNest, Statements, Device, Alias, Builtin]


def on_all_targets(lowering: Lowering) -> dict[str, Lowering]:
    """The same lowering for every target."""
    return {t: lowering for t in TARGETS}


@dataclass(frozen=True)
class Public:
    """The op's names in MindSpore's API, from which the frontend generates them:
    functions of ``ops`` (``functions[0]`` the one documented, the rest aliases) taking
    ``args`` (default: ``infer``'s parameter names), primitive classes of ``ops`` (``ops.Add()
    (x, y)``), and Tensor methods. Only ops whose public forms are plain calls of the
    primitive list names here; the rest are written by hand in ``msc/ops`` and
    ``msc/common/tensor.py``."""

    functions: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    args: tuple[str, ...] | None = None


# --- the record ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Primitive:
    """One op. ``infer(*input_types, **attrs) -> Type`` raises ``MscError`` on bad input;
    ``impl(*values, **attrs) -> value`` computes with numpy (arrays or Python scalars).
    Both receive every attribute of the schema: defaults are applied once, by ``bind``.

    ``vjp(b, g, *inputs, out, **attrs)`` and ``batch(b, prim, args, dims, **attrs)`` are
    the gradient and batching rules, written with an ``ir.builder.Builder`` ``b``.
    ``update`` names the elementwise op a write combines old and new values with
    (``AssignAdd`` adds); identity is the record itself, so ``eq`` is ``is``."""

    name: str
    infer: Callable[..., Type]
    impl: Callable[..., Any]
    lowering: Mapping[str, Lowering]
    attrs: tuple[Attr, ...] = ()
    elementwise: bool = False
    effect: Effect = Effect.NONE
    view: bool = False
    cost: float = 1.0
    update: Primitive | None = None
    public: Public = Public()
    vjp: Callable[..., Any] | None = None
    batch: Callable[..., Any] | None = None

    def __repr__(self) -> str:
        return f"Op.{self.name}"

    @property
    def writes(self) -> bool:
        """Whether the op writes the weight named by its first input."""
        return self.effect is Effect.MEMORY

    def lowering_for(self, target: str) -> Lowering:
        """The op's lowering for the target whose records are keyed ``target``
        (``Target.lowering`` in ``codegen/targets.py``), else the generic one: numpy code
        on whole arrays, the python target's, which any Python-module target can run (a
        device target's host fallback does). Code generation looks lowerings up here."""
        found = self.lowering.get(target)
        return found if found is not None else self.lowering["python"]

    def bind(self, attrs: Mapping[str, Any]) -> dict[str, Any]:
        """``attrs`` completed with the schema's defaults and checked against it. An
        unknown or missing attribute is msc's bug (the API layer builds attrs); a value
        of the wrong type is the user's."""
        if not attrs and not self.attrs:
            return {}  # most ops have no attributes
        known = {a.name for a in self.attrs}
        extra = set(attrs) - known
        if extra:
            raise InternalCompilerError(f"'{self.name}' has no attribute {sorted(extra)[0]!r}")
        out = {}
        for a in self.attrs:
            value = attrs.get(a.name, a.default)
            if value is REQUIRED:
                raise InternalCompilerError(f"'{self.name}' needs the attribute {a.name!r}")
            if a.convert is not None:
                value = a.convert(value)
            if a.types is not None and not _is_instance(value, a.types):
                raise GraphTypeError(f"For '{self.name}', {a.name} must be "
                                     f"{' or '.join(t.__name__ for t in a.types)}, but got "
                                     f"{value!r}")
            out[a.name] = value
        return out

    def default(self, name: str) -> Any:
        """The schema default of attribute ``name`` (the printer hides defaults)."""
        return next(a.default for a in self.attrs if a.name == name)

    @cached_property
    def arity(self) -> tuple[int, int | None]:
        """(fewest, most) operands ``infer`` takes; most is None for variadic ops."""
        params = [p for p in inspect.signature(self.infer).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        fixed = [p for p in params if p.kind is not p.VAR_POSITIONAL]
        least = sum(1 for p in fixed if p.default is p.empty)
        return least, None if len(params) > len(fixed) else len(fixed)

    def check_arity(self, count: int) -> None:
        """Raise the user's ``TypeError`` when ``count`` operands do not fit ``infer``."""
        least, most = self.arity
        if least <= count and (most is None or count <= most):
            return
        want = f"at least {least}" if most is None else \
            str(least) if least == most else f"{least} to {most}"
        raise GraphTypeError(f"For '{self.name}', expected {want} inputs, but got {count}")


def _is_instance(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False  # True is not an axis
    return isinstance(value, types)


PRIMITIVES: dict[str, Primitive] = {}


def register(prim: Primitive) -> Primitive:
    """Add ``prim`` to the table; it must be complete: a lowering for every target."""
    if prim.name in PRIMITIVES:
        raise ValueError(f"primitive {prim.name} defined twice")
    missing = [t for t in TARGETS if t not in prim.lowering]
    if missing:
        raise ValueError(f"primitive {prim.name} has no lowering for {', '.join(missing)}")
    PRIMITIVES[prim.name] = prim
    setattr(Op, prim.name, prim)  # NOTE: ``Op.Add`` is then a plain attribute read (passes
    return prim  # read ops for every node), not a ``__getattr__`` call


class _Ops:
    """Every registered primitive as an attribute: ``Op.Add``, ``Op.If``. Passes and
    code generators name ops this way; a misspelt name fails loudly."""

    def __getattr__(self, name: str) -> Primitive:
        try:
            return PRIMITIVES[name]
        except KeyError:
            raise AttributeError(f"no primitive named {name!r}") from None

    def __iter__(self) -> Iterator[Primitive]:
        return iter(PRIMITIVES.values())

    def __dir__(self) -> list[str]:
        return sorted(PRIMITIVES)


Op = _Ops()


def get(name: str) -> Primitive:
    """The primitive called ``name`` (parsers and tests; code names ops as ``Op.X``)."""
    return PRIMITIVES[name]


def infer_type(prim: Primitive, types: tuple[Type, ...], attrs: dict[str, Any],
               loc: Loc | None = None) -> Type:
    """``prim.infer`` on complete attrs. A user error gets MindSpore-style context and
    ``loc``; any other exception is a bug in the rule: ``InternalCompilerError`` at ``loc``."""
    prim.check_arity(len(types))
    try:
        return prim.infer(*types, **attrs)
    except MscError as e:
        shown = ", ".join(str(t) for t in types)
        e.message = f"For '{prim.name}', {e.message} (inputs: {shown})"
        raise e.with_loc(loc) from None
    except Exception as e:  # noqa: BLE001 - a bug in msc's type rule, not the user's
        raise InternalCompilerError(
            f"the type rule of '{prim.name}' failed on ({', '.join(map(str, types))}): "
            f"{type(e).__name__}: {e}", loc) from e


def evaluate(prim: Primitive, values: tuple[Any, ...], attrs: dict[str, Any]) -> Any:
    """Run ``prim`` eagerly: bind attrs, infer (so eager mode has graph mode's errors and
    dtypes), compute with numpy, and conform the result to the inferred type."""
    attrs = prim.bind(attrs)
    out_type = infer_type(prim, tuple(type_of_value(v) for v in values), attrs)
    return conform(prim.impl(*values, **attrs), out_type)


def conform(value: Any, t: Type) -> Any:
    """Cast ``value`` to type ``t``: numpy's own promotion sometimes differs from
    MindSpore's (``int32 * 2.5`` is float64 in numpy, float32 in MindSpore)."""
    if isinstance(t, TupleType):
        return tuple(conform(v, e) for v, e in zip(value, t.elems))
    if isinstance(t, TensorType):
        arr = np.asarray(value)
        if arr.dtype != t.dtype.np:
            arr = arr.astype(t.dtype.np)
        return arr
    return value


# --- helpers shared by the op families -------------------------------------------------


def want_tensor(t: Type, what: str = "input") -> TensorType:
    tt = tensor_of(t)
    if tt is None:
        raise GraphTypeError(f"the {what} must be a Tensor, but got {t}")
    return tt


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        dims = {s[i] for s in shapes if len(s) >= -i} - {1}
        if len(dims) > 1:
            shown = " and ".join(str(s) for s in shapes)
            raise ShapeError(f"shapes {shown} cannot broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def operand_dtype(types: tuple[Type, ...]) -> DType:
    """The common dtype of tensor and weak-scalar operands (see ``dtypes``)."""
    tensors = [tensor_of(t) for t in types if tensor_of(t) is not None]
    if not tensors:
        raise GraphTypeError("at least one input must be a Tensor")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = promote(dt, t.dtype)
    for t in types:
        if isinstance(t, ScalarType):
            dt = promote_weak(dt, t.category)
        elif tensor_of(t) is None:
            raise GraphTypeError(f"unsupported operand {t}")
    return dt


def operand_shape(types: tuple[Type, ...]) -> tuple[int, ...]:
    return broadcast_shapes(*(tensor_of(t).shape for t in types if tensor_of(t) is not None))


def norm_axis(axis: int, ndim: int) -> int:
    """``axis`` in [-ndim, ndim) made non-negative."""
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ShapeError(f"axis {axis} is out of range for a {ndim}-d tensor")
    return axis % max(ndim, 1)


def norm_axes(axis: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    """Reduction axes, sorted and non-negative; None or () means all axes (MindSpore)."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = tuple(sorted({norm_axis(a, ndim) for a in axes}))
    if len(out) != len(axes):
        raise ShapeError(f"duplicate axes in {axis}")
    return out


def want_int(value: Any, what: str) -> int:
    """An integer attribute (bools are rejected: ``True`` is not an axis)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise GraphTypeError(f"{what} must be an int, but got {value!r}")
    return int(value)


def want_bool(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise GraphTypeError(f"{what} must be a bool, but got {value!r}")
    return bool(value)


def want_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """A concrete shape attribute: a tuple of non-negative ints."""
    if not isinstance(shape, tuple):
        raise GraphTypeError(f"{what} must be a tuple of ints, but got {shape!r}")
    dims = tuple(want_int(d, f"every dimension of {what}") for d in shape)
    if any(d < 0 for d in dims):
        raise ShapeError(f"{what} {dims} has a negative dimension")
    return dims


def want_float_tensor(t: Type, what: str = "input") -> TensorType:
    tt = want_tensor(t, what)
    if not tt.dtype.is_float:
        raise GraphTypeError(f"the {what} must be a float Tensor, but got {tt}")
    return tt

"""Side effects: reading and writing weights, ordering, printing.

A weight is a graph input of reference type. ``Load(ref, u)`` reads its value in state
``u``; ``Assign(ref, value, u)`` (and ``AssignAdd``, ``AssignSub``) writes it in place.
``UpdateState(u, x...)`` is the state after ``u`` and the values ``x``; the frontend
threads that token through every effect in program order, so two ``Load``s of one weight
are equal nodes exactly when no write lies between them. ``Depend(a, b)`` is ``a``,
ordered after ``b``. ``TensorMove(x)`` copies ``x``: the load-elimination pass inserts it
where a loaded value must outlive a later write (generated code reads a weight without
copying it). ``Print(x..., u)`` prints at run time; ``Raise(u)`` raises a built-in
exception at run time (a ``raise`` or a failed ``assert`` under a tensor condition).

The numpy implementations define the meaning every target must match: a ``Load`` is a
snapshot of the weight, whatever happens to the weight later.
"""

from __future__ import annotations

import builtins
import math
import string
from typing import Any

import numpy as np

from msc.errors import GraphTypeError, ShapeError
from msc.ir.dtypes import float16
from msc.ir.kernel import (
    ELLIPSIS,
    Assign,
    Binary,
    BinaryOp,
    Call,
    Cast,
    Eval,
    Expr,
    Fn,
    Helper,
    Lit,
    Load,
    Loop,
    Name,
    ObjMode,
    Raise,
    Role,
    Stmt,
    Store,
    astype,
    contiguous,
    reshape,
)
from msc.ir.primitives import cuda_lowering, elementwise
from msc.ir.primitives.base import (
    Alias,
    ArrayExpr,
    Attr,
    Effect,
    Lowering,
    Primitive,
    Statements,
    broadcast_shapes,
    on_all_targets,
    operand_dtype,
    register,
)
from msc.ir.primitives.rules import batch_elementwise
from msc.ir.types import MonadType, RefType, ScalarType, TensorType, Type, U, tensor_of
from msc.runtime.numpy_rt import print_text


def _want_ref(t: Type) -> TensorType:
    if not isinstance(t, RefType):
        raise GraphTypeError(f"the variable must be a Parameter, but got {t}")
    return t.tensor


def _want_monad(t: Type) -> None:
    if not isinstance(t, MonadType):
        raise GraphTypeError(f"the last input must be the state token U, but got {t}")


# --- Load -------------------------------------------------------------------------------


def _load_infer(ref: Type, u: Type) -> Type:
    _want_monad(u)
    return _want_ref(ref)


def _load_impl(ref: Any, u: Any) -> Any:
    return np.array(ref, copy=True)


# --- Assign, AssignAdd, AssignSub ----------------------------------------------------------


def _assign_infer(ref: Type, value: Type, u: Type) -> Type:
    """The value must convert to the weight's dtype implicitly (a Python number always
    does) and broadcast to its shape; the result is the weight's new value."""
    _want_monad(u)
    t = _want_ref(ref)
    vt = tensor_of(value)
    if vt is None and not isinstance(value, ScalarType):
        raise GraphTypeError(f"the value must be a Tensor or a number, but got {value}")
    if vt is not None:
        if operand_dtype((t, vt)) != t.dtype:
            raise GraphTypeError(f"the value's dtype {vt.dtype} cannot be converted to the "
                                 f"Parameter's dtype {t.dtype} implicitly")
        try:
            fits = broadcast_shapes(t.shape, vt.shape) == t.shape
        except ShapeError:
            fits = False
        if not fits:
            raise ShapeError(f"a value of shape {vt.shape} cannot be assigned to a Parameter "
                             f"of shape {t.shape}")
    return t


def _assign_impl(ref: Any, value: Any, u: Any) -> Any:
    ref[...] = value
    return ref.copy()


def _assign_add_impl(ref: Any, value: Any, u: Any) -> Any:
    ref[...] = ref + np.asarray(value, ref.dtype)
    return ref.copy()


def _assign_sub_impl(ref: Any, value: Any, u: Any) -> Any:
    ref[...] = ref - np.asarray(value, ref.dtype)
    return ref.copy()


def _emit_write(op: str | None) -> Statements:
    """``ref[...] = value`` (or ``ref + value``, ``ref - value``): the weight's buffer is
    written in place, and the node's value is the weight itself."""
    def emit(args: list[Expr], node: Any, out: str) -> list[Stmt]:
        ref, value = args[0], args[1]
        t = node.out.type
        vt = tensor_of(node.inputs[1].type)
        if vt is not None and vt.ndim == 0:
            value, vt = value[()], None  # a 0-d value is written as a scalar
        if vt is None:
            value = Cast(t.dtype, value)
        elif vt.dtype != t.dtype:
            value = astype(value, t.dtype)
        where = () if t.ndim == 0 else (ELLIPSIS,)  # Numba indexes a 0-d array with ()
        current = ref[()] if t.ndim == 0 else ref  # (and cannot read ref[...])
        new = value if op is None else Cast(t.dtype, Binary(_OPS[op], current, value)) \
            if t.ndim == 0 else astype(Binary(_OPS[op], current, value), t.dtype)
        return [Store(Load(ref, where), new), Assign(Name(out), ref)]
    return Statements(emit)


def _write_by_loops(op: str | None) -> Statements:
    """The numba target's write of an array: ``ref[...] = array`` makes Numba compile
    its shape-mismatch message (string formatting: 2 s of a fresh process's compile, for
    a one-line kernel), so the new value is made a fresh array (a copy where it may be a
    view of the weight itself) and stored by loops, broadcasting as numpy does. A value
    of the weight's shape is one loop over the elements, an AssignAdd's or AssignSub's
    too (an optimizer's step count: an array expression there cost Numba 0.3 s)."""
    slices = _emit_write(op)

    def emit(args: list[Expr], node: Any, out: str) -> list[Stmt]:
        t, vt = node.out.type, tensor_of(node.inputs[1].type)
        if t.ndim == 0 or vt is None or vt.ndim == 0 or t.dtype == float16:
            return slices.emit(args, node, out)  # type: ignore[no-any-return]
        ref, value = args[0], args[1]
        new = Name(f"{out}_new")
        if vt.shape == t.shape:  # one loop over the elements, at any rank (a view of the
            n, i = math.prod(t.shape), f"{out}_i"  # weight in another order is copied; an
            flat = Name(f"{out}_flat")  # element is read, then written)
            item: Expr = new[Name(i)]
            if op is not None:
                item = Binary(_OPS[op], flat[Name(i)], item)
            instead: tuple[Stmt, ...] = ()
            if vt.dtype == t.dtype:  # numpy's copy (or ufunc, in place) does it alike
                instead = (Eval(Call(Fn.COPYTO, (flat, new)) if op is None else
                                Call(_UFUNCS[op], (flat, new), (("out", flat),))),)
            return [Assign(new, reshape(contiguous(value), (n,))),
                    Assign(flat, reshape(ref, (n,))),
                    Loop(i, Lit(n), (Store(flat[Name(i)], Cast(t.dtype, item)),),
                         role=Role.PARALLEL, instead=instead),
                    Assign(Name(out), ref)]
        if op is None:
            shape, made = vt.shape, astype(value, t.dtype)  # astype copies
        else:
            shape, made = t.shape, astype(Binary(_OPS[op], ref, value), t.dtype)
        at = [Name(f"{out}_i{d}") for d in range(t.ndim)]
        lead = t.ndim - len(shape)
        read = tuple(Lit(0) if shape[d - lead] == 1 else at[d] for d in range(lead, t.ndim))
        body: Stmt = Store(ref[tuple(at)], new[read])
        for d in reversed(range(t.ndim)):  # each element stored once: independent
            body = Loop(at[d].name, Lit(t.shape[d]), (body,), role=Role.PARALLEL)
        return [Assign(new, made), body, Assign(Name(out), ref)]

    return Statements(emit)


#: The operator of an in-place update (AssignAdd, AssignSub), and its numpy ufunc.
_OPS = {"+": BinaryOp.ADD, "-": BinaryOp.SUB}
_UFUNCS = {"+": Fn.ADD, "-": Fn.SUBTRACT}


def _writes(op: str | None) -> dict[str, Lowering]:
    return {**on_all_targets(_emit_write(op)), "numba": _write_by_loops(op)}


# --- ordering ------------------------------------------------------------------------------


def _update_state_infer(u: Type, *values: Type) -> Type:
    _want_monad(u)
    return MonadType()


def _update_state_impl(u: Any, *values: Any) -> Any:
    return U


def _depend_infer(value: Type, *after: Type) -> Type:
    return value


def _depend_impl(value: Any, *after: Any) -> Any:
    return value


def _tensor_move_infer(x: Type) -> Type:
    t = tensor_of(x)
    if t is None or isinstance(x, RefType):
        raise GraphTypeError(f"the input must be a loaded Tensor, but got {x}")
    return t


def _tensor_move_impl(x: Any) -> Any:
    return np.array(x, copy=True)


# --- Print -----------------------------------------------------------------------------------


def _print_infer(*inputs: Type, format: str) -> Type:  # noqa: A002 - MindSpore's name
    *values, u = inputs
    _want_monad(u)
    fields = sum(1 for _, name, _, _ in string.Formatter().parse(format) if name is not None)
    if fields != len(values):
        raise GraphTypeError(f"the format has {fields} fields for {len(values)} values")
    for t in values:
        if tensor_of(t) is None or isinstance(t, RefType):
            raise GraphTypeError(f"only tensors are printed at run time, not {t}")
    return MonadType()


def _print_impl(*inputs: Any, format: str) -> Any:
    print(print_text(format, inputs[:-1]))
    return U


def _print_call(args: list[Expr], node: Any, out: str) -> list[Stmt]:
    return [Eval(Helper("_rt_print", (Lit(node.attr["format"]), *args[:-1])))]


def _print_objmode(args: list[Expr], node: Any, out: str) -> list[Stmt]:
    """Numba compiles the call in object mode: the runtime helper formats with numpy."""
    return [ObjMode(tuple(_print_call(args, node, out)))]


# --- Raise ---------------------------------------------------------------------------------


def _raise_infer(u: Type, *, exception: str, message: str) -> Type:
    _want_monad(u)
    if not isinstance(getattr(builtins, exception, None), type) or \
            not issubclass(getattr(builtins, exception), BaseException):
        raise GraphTypeError(f"only built-in exceptions can be raised at run time, not "
                             f"{exception}")
    return MonadType()


def _raise_impl(u: Any, *, exception: str, message: str) -> Any:
    raise getattr(builtins, exception)(message)


def _raise_statement(args: list[Expr], node: Any, out: str) -> list[Stmt]:
    """A plain ``raise``: the name is a built-in (``infer`` checked), so the generated
    module needs no import for it, and Numba raises it from compiled code."""
    return [Raise(node.attr["exception"], node.attr["message"])]


# --- the table -------------------------------------------------------------------------------

_NONE = on_all_targets(Alias(0))
register(Primitive("Load", _load_infer, _load_impl, _NONE, effect=Effect.READ, cost=0,
                   view=True))
assign = register(Primitive("Assign", _assign_infer, _assign_impl,
                            _writes(None), effect=Effect.MEMORY, view=True))
register(Primitive("AssignAdd", _assign_infer, _assign_add_impl, _writes("+"),
                   effect=Effect.MEMORY, view=True, update=elementwise.add))
register(Primitive("AssignSub", _assign_infer, _assign_sub_impl, _writes("-"),
                   effect=Effect.MEMORY, view=True, update=elementwise.sub))
register(Primitive("UpdateState", _update_state_infer, _update_state_impl, _NONE, cost=0))
register(Primitive("Depend", _depend_infer, _depend_impl, _NONE, cost=0, view=True))
register(Primitive("TensorMove", _tensor_move_infer, _tensor_move_impl,
                   {**on_all_targets(ArrayExpr(lambda a, node: Call(Fn.METHOD_COPY, (a[0],)))),
                    "cuda": cuda_lowering.COPY},
                   vjp=lambda b, g, x, out: (g,), batch=batch_elementwise))  # a copy
register(Primitive("Print", _print_infer, _print_impl,
                   {"numba": Statements(_print_objmode),
                    "python": Statements(_print_call)},
                   attrs=(Attr("format", types=(str,)),), effect=Effect.IO))
register(Primitive("Raise", _raise_infer, _raise_impl,
                   on_all_targets(Statements(_raise_statement)),
                   attrs=(Attr("exception", types=(str,)), Attr("message", types=(str,))),
                   effect=Effect.IO))

"""The Python-syntax renderer of kernel-IR expressions (``msc/ir/kernel.py``): the numba
and python targets' spelling of every operation, on arrays (numpy calls over whole
arrays) or on scalars (inside a fused loop, which Numba compiles).

Rendering is the only step that writes an expression's source; every operation is
parenthesized, so the text means what the tree means whatever surrounds it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Iterator, Sequence

import numpy as np

from msc.ir.kernel import (
    Accumulate,
    Arg,
    Assign,
    AttrRef,
    Break,
    Binary,
    BoolOp,
    Branch,
    Call,
    Cast,
    Chain,
    Compare,
    DTypeRef,
    Eval,
    Expr,
    Helper,
    Invoke,
    Launch,
    Lit,
    Load,
    Loop,
    Name,
    Neg,
    Not,
    ObjMode,
    Raise,
    Raw,
    Select,
    Slice,
    Spelling,
    Stmt,
    Store,
    Tuple,
    While,
)
from msc.ir.primitives.emitting import dtype_ref


def literal(value: Any, dt: Any = None) -> str:
    """A Python scalar as source, typed to the msc dtype ``dt`` so numpy and Numba keep
    the dtype (None: a plain Python literal). Infinities and NaN are numpy's constants,
    which Numba reads as constants too."""
    text = repr(bool(value)) if isinstance(value, (bool, np.bool_)) else repr(value)
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        text = "np.nan" if value != value else "np.inf" if value > 0 else "(-np.inf)"
    return f"{dtype_ref(dt)}({text})" if dt is not None else text


def render(e: Expr) -> str:
    """``e``'s source. A cast is a dtype's constructor and a selection a conditional
    expression, as on scalars: on whole arrays they are ``astype`` and ``where`` calls
    (``kernel.on_arrays``)."""
    r = render

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
        return _call(e, r)
    if isinstance(e, (Helper, Invoke)):
        return f"{e.name}({', '.join(r(a) for a in e.args)})"
    if isinstance(e, Launch):
        config = ", ".join(r(c) for c in e.config)
        return f"{e.name}[{config}]({', '.join(r(a) for a in e.args)})"
    if isinstance(e, Select):
        return f"({r(e.a)} if {r(e.cond)} else {r(e.b)})"
    if isinstance(e, Cast):
        return f"{dtype_ref(e.dtype)}({r(e.x)})"
    if isinstance(e, Load):
        return f"{r(e.array)}[{', '.join(r(i) for i in e.index) or '()'}]"
    if isinstance(e, Slice):
        parts = [e.lo, e.hi] + ([e.step] if e.step is not None else [])
        return ":".join("" if x is None else r(x) for x in parts)
    if isinstance(e, Tuple):
        return "(" + ", ".join(r(i) for i in e.items) + ("," if len(e.items) == 1 else "") + ")"
    if isinstance(e, DTypeRef):
        return dtype_ref(e.dtype)
    if isinstance(e, BoolOp):
        return "(" + f" {'and' if e.all_ else 'or'} ".join(r(i) for i in e.items) + ")"
    if isinstance(e, Not):
        return f"(not {r(e.x)})"
    if isinstance(e, Chain):  # (lo < x < hi)
        return "(" + "".join(f"{r(i)} {op.value} " for i, op in zip(e.items, e.ops)) + \
            f"{r(e.items[-1])})"
    assert not isinstance(e, (Arg, AttrRef)), f"unbound {e} in a rendered expression"
    raise TypeError(f"not a kernel-IR expression: {e!r}")


def _call(e: Call, r: Any) -> str:
    args = [r(a) for a in e.args] + [f"{k}={r(v)}" for k, v in e.kwargs]
    sp = e.fn.spelling
    if sp is Spelling.METHOD:
        return f"{args[0]}.{e.fn.symbol}({', '.join(args[1:])})"
    if sp is Spelling.ATTRIBUTE:
        return f"{args[0]}.{e.fn.symbol}"
    prefix = "" if sp is Spelling.BUILTIN else f"{sp.value}."
    return f"{prefix}{e.fn.symbol}({', '.join(args)})"


def render_stmts(stmts: Sequence[Stmt], depth: int = 0, locations: bool = True) -> list[str]:
    """The lines of ``stmts``, indented ``depth`` levels, each statement's user line as a
    trailing comment unless ``locations`` is false (a loop's ``instead`` is the
    outliner's to place, not rendered)."""
    return [line for line, _ in _lines(stmts, depth, locations)]


def line_locations(stmts: Sequence[Stmt]) -> list[Any]:
    """The user's line (a ``Loc``, or None) of each line ``render_stmts`` writes."""
    return [loc for _, loc in _lines(stmts, 0, False)]


def _lines(stmts: Sequence[Stmt], depth: int, locations: bool) -> Iterator[tuple[str, Any]]:
    pad = "    " * depth
    for s in stmts:
        yield pad + _head(s) + (_where(s) if locations else ""), getattr(s, "loc", None)
        if isinstance(s, (Loop, Raw, ObjMode, While)):
            yield from _lines(s.body, depth + 1, locations)
        elif isinstance(s, Branch):
            yield from _lines(s.body, depth + 1, locations)
            if s.orelse:
                yield pad + "else:", None
                yield from _lines(s.orelse, depth + 1, locations)


def _head(s: Stmt) -> str:
    if isinstance(s, Raw):
        return s.text
    if isinstance(s, Assign):
        return f"{_target(s.target)} = {render(s.value)}"
    if isinstance(s, Store):
        return f"{render(s.target)} = {render(s.value)}"
    if isinstance(s, Accumulate):
        return f"{render(s.target)} {s.op.value}= {render(s.value)}"
    if isinstance(s, Eval):
        return render(s.value)
    if isinstance(s, Loop):
        bounds = [s.stop] if s.start is None and s.step is None else \
            [s.start or Lit(0), s.stop] + ([s.step] if s.step is not None else [])
        return f"for {s.var} in range({', '.join(render(b) for b in bounds)}):"
    if isinstance(s, Branch):
        return f"if {render(s.cond)}:"
    if isinstance(s, Raise):
        return f"raise {s.exc}({s.message!r})"
    if isinstance(s, While):
        return f"while {render(s.cond)}:"
    if isinstance(s, Break):
        return "break"
    if isinstance(s, ObjMode):
        return f"with objmode({', '.join(f'{k}={v!r}' for k, v in s.types)}):"
    raise TypeError(f"not a kernel-IR statement: {s!r}")


def _target(e: Expr) -> str:
    """An assignment's target: a name, or names unpacked (``a, b``; ``a,``)."""
    if isinstance(e, Tuple):
        names = [render(i) for i in e.items]
        return ", ".join(names) + ("," if len(names) == 1 else "")
    return render(e)


def _where(s: Stmt) -> str:
    """The user's file and line as a trailing comment."""
    loc = getattr(s, "loc", None)
    return f"  # {os.path.basename(loc.file)}:{loc.line}" if loc is not None else ""


def located(emitted: Sequence[Stmt], loc: Any) -> list[Stmt]:
    """An emitter's statements, the first (and the last of each top-level loop's numpy
    calls) naming the user's line ``loc``."""
    stmts = [replace(s, instead=(*s.instead[:-1], replace(s.instead[-1], loc=loc)))
             if isinstance(s, Loop) and s.instead else s for s in emitted]
    if stmts:
        stmts[0] = replace(stmts[0], loc=loc)
    return stmts

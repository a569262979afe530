"""Spread an outlined kernel's parallel loop over threads.

An outlined driver (``outline.py``) is plain Python calling Numba kernels one after
another; numpy's BLAS threads its products, but every loop nest of a kernel (batch norm,
ReLU, pooling, a residual add) ran on the calling thread alone. A kernel whose whole
body is one loop nest with independent iterations (``Role.PARALLEL``), after the scalars
it reads (which each part computes again), can run as
several calls over parts of its outermost range: ``spread`` gives such a kernel the
range's ends as its last two parameters (``lo``, ``hi``), and where a call does enough
work (``MIN_WORK`` iterations, counted from the call's sizes) the driver calls it through
the runtime's ``_rt_threaded``, which hands one part to each of its threads and runs the
first itself (``msc/runtime/numba_rt.py``). Every element is computed by the same code
whichever thread runs it, so results do not depend on the thread count.

Two nested parallel loops with more loops inside (batch and channels, over rows) become
one range over both, so that a batch of one or four still splits evenly. Kernels are
compiled without the GIL (``nogil``); the driver's products and copies are spread by the
runtime's ``_rt_products`` and ``_rt_copy``, numpy's BLAS held at one thread meanwhile
(``_rt_own_threads``).

Before::

    def _k_1(a0, a1, c0, c1):
        for t0 in range(c0):                 # parallel
            for t1 in range(c1):             # parallel
                a1[t0, t1] = max(a0[t0, t1], 0)

    _k_1(x, y, 64, 3136)                     # the driver

After::

    def _k_2(a0, a1, c0, c1, lo, hi):
        start = max(lo, 0)
        for it in range(hi - start):
            t0 = it + start
            for t1 in range(c1):
                a1[t0, t1] = max(a0[t0, t1], 0)

    _rt_threaded(_k_2, 64, x, y, 64, 3136)
"""

from __future__ import annotations

import math
from typing import Any, Callable

from msc.codegen import outline
from msc.codegen.pyrender import render_stmts
from msc.codegen.spec import KernelSpec
from msc.ir import kernel as K
from msc.ir.kernel import Assign, Binary, BinaryOp, Eval, Expr, Helper, Invoke, Lit, Loop, Name
from msc.ir.kernel import Role, Stmt, Store

#: The fewest innermost iterations a call must run to be spread: handing a part to
#: another thread and waiting for it costs 10-30 us, what an elementwise loop spends on
#: about 50,000 float32 elements.
MIN_WORK = 1 << 17

#: The names a spread kernel adds: its range's ends, the part's start and its loop's index.
LO, HI, START, FLAT = "lo", "hi", "start", "it"


def spread(kernels: list[KernelSpec], driver: tuple[Stmt, ...]
           ) -> tuple[list[KernelSpec], tuple[Stmt, ...]]:
    """``kernels`` with each spreadable one taking its range (``lo``, ``hi``), and the
    driver's statements calling them: through ``_rt_threaded`` where a call's work is at
    least ``MIN_WORK``, else directly over the whole range. The driver's copies go
    through the runtime's ``_rt_copy``, which spreads the large ones."""
    forms = {k.name: _spread_form(k) for k in kernels}
    forms = {name: f for name, f in forms.items() if f is not None}
    specs = {k.name: k for k in kernels}

    def call(s: Stmt) -> Stmt:
        if isinstance(s, Store) and isinstance(s.value, Name):  # a copy: the runtime's
            return Eval(Helper("_rt_copy", (s.target, s.value)), loc=s.loc)
        v = s.value if isinstance(s, Eval) else None
        if not (isinstance(v, Invoke) and v.name in forms):
            return s
        new, extent = forms[v.name]
        sizes = dict(zip(specs[v.name].params, v.args))
        n = _value(extent, sizes)
        count = work(specs[v.name].body, sizes)
        if n is None or count is None or count < MIN_WORK or n < 2:
            return Eval(Invoke(new.name, (*v.args, Lit(0), Lit(n) if n is not None
                                          else _extent_over(extent, sizes))), loc=s.loc)
        return Eval(Helper("_rt_threaded", (Name(new.name), Lit(n), *v.args)), loc=s.loc)

    driver = tuple(outline._map_stmt(s, call, lambda e: e) for s in driver)
    return [forms[k.name][0] if k.name in forms else k for k in kernels], driver


def _extent_over(extent: Expr, sizes: dict[str, Expr]) -> Expr:
    """``extent`` over the call's arguments (a size the driver only knows at run time)."""
    return K.rewrite(extent, lambda e: sizes.get(e.name) if isinstance(e, Name) else None)


def _spread_form(kernel: KernelSpec) -> tuple[KernelSpec, Expr] | None:
    """The kernel over a part of its range, and the range's extent over its parameters;
    None where its body is not one parallel loop nest writing only its parameters, after
    assignments that each part can make again (the scalars of operands broadcast along
    every axis: none reads an array the loop writes).

    The part's loop counts from 0 and adds its start, ``max(lo, 0)``: over ``range(lo,
    hi)`` an index Numba cannot prove non-negative is wrapped around in every iteration,
    which kept LLVM from vectorizing (a GeLU's loop took four times as long)."""
    *head, loop = kernel.body or (None,)
    written = {n for s in K.walk_stmts((loop,)) if isinstance(s, (Store, K.Accumulate))
               for n in _names(s.target)}
    if kernel.returns.strip("() ,") or not plain_parallel(loop) or \
            any(not isinstance(s, Assign) or written & _names(s.value) for s in head):
        return None
    start, position = Name(START), Binary(BinaryOp.ADD, Name(FLAT), Name(START))
    extent, inside = part_of(loop, position)  # type: ignore[arg-type]
    stmts = (*head, Assign(start, K.Call(K.Fn.PY_MAX, (Name(LO), Lit(0)))),
             Loop(FLAT, Binary(BinaryOp.SUB, Name(HI), start), inside, role=Role.PARALLEL,
                  loc=loop.loc))  # type: ignore[union-attr]
    params = (*kernel.params, LO, HI)
    # (named after its parameters too: a size the range replaced stays one, unread)
    lines = (f"({', '.join(params)})", *render_stmts(stmts, locations=False))
    return KernelSpec(outline._kernel_name(lines, ""), params, tuple(render_stmts(stmts)),
                      kernel.returns, body=stmts), extent


def part_of(outer: Loop, position: Expr) -> tuple[Expr, tuple[Stmt, ...]]:
    """The range a parallel loop nest is cut along (its extent over the loops' stops),
    and the nest's body at the flat index ``position`` of that range. Two loops are joined
    only where more loops nest inside them: an innermost loop would divide its index in
    every iteration."""
    inner = outer.body[0] if len(outer.body) == 1 else None
    if isinstance(inner, Loop) and plain_parallel(inner) and \
            outer.var not in _names(inner.stop) and \
            any(isinstance(s, Loop) for s in inner.body):
        index = (Assign(Name(outer.var), Binary(BinaryOp.FLOORDIV, position, inner.stop)),
                 Assign(Name(inner.var), Binary(BinaryOp.SUB, position, Binary(
                     BinaryOp.MUL, Name(outer.var), inner.stop))))
        return Binary(BinaryOp.MUL, outer.stop, inner.stop), index + inner.body
    return outer.stop, (Assign(Name(outer.var), position), *outer.body)


def plain_parallel(s: Stmt) -> bool:
    return isinstance(s, Loop) and s.role is Role.PARALLEL and s.start is None and \
        s.step is None


def _names(e: Expr) -> set[str]:
    return {n.name for n in K.nodes(e) if isinstance(n, Name)}


def _value(e: Expr, sizes: dict[str, Expr]) -> int | None:
    """``e``'s value where it is integer arithmetic over literal arguments, else None."""
    if isinstance(e, Lit):
        return e.value if type(e.value) is int else None
    if isinstance(e, Name):
        bound = sizes.get(e.name)
        return _value(bound, {}) if bound is not None else None
    if isinstance(e, K.Cast):
        return _value(e.x, sizes)
    if isinstance(e, Binary) and e.op in _ARITHMETIC:
        a, b = _value(e.a, sizes), _value(e.b, sizes)
        if a is None or b is None or (b == 0 and e.op is BinaryOp.FLOORDIV):
            return None
        return _ARITHMETIC[e.op](a, b)
    if isinstance(e, K.Call) and e.fn is K.Fn.PY_INT and len(e.args) == 1:
        return _value(e.args[0], sizes)
    return None


_ARITHMETIC: dict[BinaryOp, Any] = {
    BinaryOp.ADD: lambda a, b: a + b, BinaryOp.SUB: lambda a, b: a - b,
    BinaryOp.MUL: lambda a, b: a * b, BinaryOp.FLOORDIV: lambda a, b: a // b}


def work(stmts: tuple[Stmt, ...], sizes: dict[str, Expr],
         row_length: Callable[[K.Helper], int] | None = None) -> int | None:
    """How many innermost statements ``stmts`` run (a branch: its longer side); None
    where a loop's extent is not known from the call. Where ``row_length`` says how long
    a row helper's row is (``_rt_row_sum``: a layer norm's mean), a statement calling one
    counts its elements too, as the loop it replaced did."""
    total = 0
    for s in stmts:
        if isinstance(s, Loop):
            lo = _value(s.start, sizes) if s.start is not None else 0
            hi, inner = _value(s.stop, sizes), work(s.body, sizes, row_length)
            step = _value(s.step, sizes) if s.step is not None else 1
            if lo is None or hi is None or inner is None or not step:
                return None
            total += max(0, math.ceil((hi - lo) / step)) * max(inner, 1)
        elif isinstance(s, K.Branch):
            sides = [work(s.body, sizes, row_length), work(s.orelse, sizes, row_length)]
            if None in sides:
                return None
            total += max(sides)  # type: ignore[type-var]
        elif isinstance(s, K.While):
            return None
        else:
            value = getattr(s, "value", None)
            rows = [e for e in K.nodes(value) if isinstance(e, K.Helper) and
                    e.name.startswith("_rt_row_")] if row_length and value is not None else []
            total += 1 + sum(row_length(e) for e in rows)  # type: ignore[misc]
    return total

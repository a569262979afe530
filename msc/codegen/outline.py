"""Outline a large kernel into small ones keyed by structure, called from plain Python.

Numba's compile time grows much faster than linearly with a function's size: ResNet-18's
entry as one function (about 1,600 lines of loop nests) took over two minutes to compile.
A real model repeats a few kernel shapes many times (each block's convolution, batch norm
and ReLU), so ``outline`` cuts a large entry into *kernels* — each loop nest with the
statements that feed it — and keeps the rest, allocations and views, as a Python *driver*
that calls them in order. Identical kernels are compiled once: a kernel is named after a
hash of its source with its variables renamed canonically (``a0``, ``a1``, ... for its
parameters, ``t0``, ... for its locals) and its sizes and float literals made arguments
(``c0``, ...; see ``_Sizes``), so the alike batch-norm loops of every ResNet stage, at
56x56 or at 7x7, become one function. A literal lowering writes ``int(3)`` stays: a
pooling window's size and stride, which LLVM needs to unroll and vectorize its loops.
Each call from Python costs a few microseconds, nothing next to a loop nest over a
feature map; ``library.py`` puts the kernels in files that Numba compiles once per
machine.

It works on the kernel IR (``msc/ir/kernel.py``) the lowerer built: which names each
statement binds and reads, which literals are sizes, what the driver may run, are read
off the trees, and the driver and the kernels are rendered from rewritten trees.

Before::

    def Net_construct(x, w):
        v = np.empty((4, 64), np.float32)
        for i in range(4): ... v[i, j] = x[i, j] * w[j] ...
        v_1 = np.empty((4, 64), np.float32)
        for i_1 in range(4): ... v_1[i_1, j_1] = max(v[i_1, j_1], 0) ...
        return (v_1, )

After::

    @_rt_jit
    def _k_3fa2c1(a0, a1, a2, c0, c1):
        for t0 in range(c0): ... a0[t0, t1] = a1[t0, t1] * a2[t1] ...

    def Net_construct(x, w):            # plain Python
        v = np.empty((4, 64), np.float32)
        _k_3fa2c1(v, x, w, 4, 64)
        ...

A value crosses from one kernel to Python and on to the next only if it is an array
(a tensor of one or more dimensions, or a tuple of them): Numba returns a scalar as a
Python number, which the next kernel would type as float64 or int64, not as the float32
or int32 it was. Where a cut would pass anything else, the kernel goes on past it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace
from typing import Any, Callable

from msc.codegen.pyrender import render_stmts
from msc.codegen.spec import DRIVER_FORMS, KernelSpec
from msc.ir import kernel as K
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Branch,
    Call,
    Cast,
    Compare,
    Eval,
    Expr,
    Fn,
    Helper,
    Invoke,
    Lit,
    Load,
    Loop,
    Name,
    Neg,
    ObjMode,
    Slice,
    Stmt,
    Store,
    Tuple,
)
from msc.ir.types import TensorType, TupleType, Type

#: Entries with fewer body lines than this stay one Numba function: one call from Python is
#: cheaper than several, and small entries compile in a second or two. Not much larger: a
#: 2-layer BERT-base encoder's 305-line entry took 85-107 s as one function, and outlined
#: 12 s once its kernels were in the library (20 kernels, shared with the 4-layer one).
OUTLINE_LINES = 250

#: Functions whose tuple arguments are shapes (or strides): their elements become arguments.
_SHAPED = frozenset({Fn.EMPTY, Fn.ZEROS, Fn.FULL, Fn.BROADCAST_TO, Fn.AS_STRIDED,
                     Fn.METHOD_RESHAPE})
#: Functions whose result is an array that numpy and Numba make alike: the driver runs them
#: (a view is not worth a kernel of its own: each costs Numba a compile).
_DRIVER_CALLS = frozenset({Fn.EMPTY, Fn.ZEROS, Fn.ASCONTIGUOUSARRAY, Fn.BROADCAST_TO,
                           Fn.AS_STRIDED, Fn.CONCATENATE, Fn.METHOD_RESHAPE,
                           Fn.METHOD_TRANSPOSE})
#: The numba runtime's matrix products, which the driver computes with numpy's (the same
#: BLAS): a kernel of a product alone cost Numba 0.3-0.5 s to compile, the BLAS helpers
#: inlined into each one.
_PRODUCTS = frozenset({"_rt_matmul", "_rt_matmul_bias"})


def worth_outlining(kernel: KernelSpec) -> bool:
    return len(kernel.lines) >= OUTLINE_LINES


def outline(kernel: KernelSpec, types: dict[str, Type]) -> tuple[KernelSpec, list[KernelSpec]]:
    """The plain-Python driver of ``kernel`` (built from its kernel IR, ``kernel.body``)
    and the distinct kernels it calls. ``types``: the IR type of each value the kernel
    names (temporaries of lowering are absent)."""
    body = kernel.body
    uses = [_Uses(s) for s in body]
    last_read = dict.fromkeys(_returned(kernel.returns), len(body))  # by the statement i
    for i, u in enumerate(uses):
        last_read.update((n, max(i, last_read.get(n, i))) for n in u.loads)
    driver: list[Stmt] = []
    kernels: dict[str, KernelSpec] = {}
    bound = set(kernel.params)
    segment: list[int] = []

    def close(i: int) -> bool:
        """Ends the segment (statements ``segment``, the last at ``i``) as a kernel call,
        when every value it hands on is an array (or it is the last)."""
        order = list(dict.fromkeys(n for j in segment for n in uses[j].order))
        loads = set().union(*(uses[j].loads for j in segment))
        stored = set().union(*(uses[j].stores for j in segment))
        out = sorted((n for n in stored if last_read.get(n, -1) > i), key=order.index)
        if i < len(body) - 1 and not all(_is_array(types.get(n)) for n in out):
            return False
        params = [n for n in order if n in loads and n in bound]
        local = [n for n in order if n in stored and n not in params]
        spec, call = _kernel([body[j] for j in segment], params, local, out)
        kernels.setdefault(spec.name, spec)
        driver.append(call)
        bound.update(out)
        segment.clear()
        return True

    for i, stmt in enumerate(body):
        instead = stmt.instead if isinstance(stmt, Loop) else ()
        driven = _driver_statement(stmt) or _tuple_item(stmt, types) or bool(instead)
        if driven and not segment:
            driver += instead or _with_numpy_products(stmt)
            bound |= set() if instead else uses[i].stores
            continue
        if _driver_loop(stmt) and not segment:
            driver.append(_python_loop(stmt))
            continue
        segment.append(i)
        nxt = body[i + 1] if i + 1 < len(body) else None
        if isinstance(stmt, (Loop, K.While, Branch, ObjMode)) or nxt is not None and (
                _driver_statement(nxt) or _tuple_item(nxt, types) or _driver_loop(nxt) or
                isinstance(nxt, Loop) and bool(nxt.instead)):
            close(i)
    if segment:
        close(len(body) - 1)
    return replace(kernel, lines=tuple(render_stmts(driver)), jit=False,
                   body=tuple(driver)), list(kernels.values())


# --- what a statement binds and reads ------------------------------------------------------


class _Uses:
    """The names a statement binds (``stores``), reads (``loads``), and every name in
    the order it appears in the statement's source (``order``)."""

    def __init__(self, stmt: Stmt):
        self.stores: set[str] = set()
        self.loads: set[str] = set()
        self.order: dict[str, None] = {}  # (a dict: names in order, each once)
        self.stmt(stmt)

    def name(self, n: str, store: bool) -> None:
        (self.stores if store else self.loads).add(n)
        self.order.setdefault(n)

    def expr(self, e: Expr | None, store: bool = False) -> None:
        if isinstance(e, Name):
            if e.name.isidentifier():
                self.name(e.name, store)
            return
        if isinstance(e, Tuple) and store:
            for item in e.items:
                self.expr(item, True)
            return
        for k in K.children(e) if e is not None else ():
            self.expr(k)

    def stmt(self, s: Stmt) -> None:
        if isinstance(s, Assign):
            self.expr(s.target, store=True)
            self.expr(s.value)
        elif isinstance(s, (Store, Eval)):
            self.expr(s.target if isinstance(s, Store) else s.value)
            if isinstance(s, Store):
                self.expr(s.value)
        elif isinstance(s, Accumulate):
            self.expr(s.target, store=isinstance(s.target, Name))
            self.expr(s.value)
        elif isinstance(s, Loop):
            self.name(s.var, True)
            for b in (s.start, s.stop, s.step):
                self.expr(b)
        elif isinstance(s, (Branch, K.While)):
            self.expr(s.cond)
        elif isinstance(s, ObjMode):
            for n, _ in s.types:
                self.name(n, True)
        for child in K.stmt_children(s):
            self.stmt(child)


def _returned(returns: str) -> set[str]:
    """The names of a kernel's ``returns`` text (``(a, b, )``)."""
    return {p.strip() for p in returns.strip("()").split(",") if p.strip().isidentifier()}


# --- a segment as a kernel ----------------------------------------------------------------


def _kernel(stmts: list[Stmt], params: list[str], local: list[str],
            out: list[str]) -> tuple[KernelSpec, Stmt]:
    """The kernel of one segment (named after its canonical source) and the driver's call.
    Its sizes (loop bounds, shapes, index arithmetic: see ``_Sizes``) become parameters
    too, so the same loops over other shapes are the same kernel. Its name ignores the
    user's lines: the same loops from another line, file or model are the same kernel.
    ``params``: the names it reads that are bound before it; ``local``: those it binds."""
    rename = {n: f"a{k}" for k, n in enumerate(params)} | \
        {n: f"t{k}" for k, n in enumerate(local)}
    # NOTE: one parameter per literal, even where two are equal: sharing one would make
    # which sizes coincide part of the kernel (H == W, batch == channels), and the same
    # loops over other shapes another kernel to compile.
    sizes = _Sizes()
    canonical = tuple(sizes.stmt(_renamed(s, rename)) for s in stmts)
    returns = ", ".join(rename[n] for n in out) + ("," if len(out) == 1 else "")
    lines = tuple(render_stmts(canonical))
    name = _kernel_name(tuple(render_stmts(canonical, locations=False)), returns)
    spec = KernelSpec(name, tuple(rename[n] for n in params) +
                      tuple(f"c{k}" for k in range(len(sizes.values))), lines, f"({returns})",
                      body=canonical)
    call = Invoke(name, tuple(Name(n) for n in params) + tuple(Lit(v) for v in sizes.values))
    loc = getattr(stmts[0], "loc", None)
    if out:
        return spec, Assign(Tuple(tuple(Name(n) for n in out)), call, loc=loc)
    return spec, Eval(call, loc=loc)


def _kernel_name(lines: tuple[str, ...], returns: str) -> str:
    """A kernel's name: a hash of its canonical source, without the user's lines."""
    canonical = "\n".join([*lines, f"return ({returns})"])
    return "_k_" + hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _renamed(s: Stmt, rename: dict[str, str]) -> Stmt:
    def expr(e: Expr) -> Expr:
        return K.rewrite(e, lambda n: Name(rename[n.name])
                         if isinstance(n, Name) and n.name in rename else None)

    def stmt(st: Stmt) -> Stmt:
        if isinstance(st, Loop):
            return replace(st, var=rename.get(st.var, st.var))
        if isinstance(st, ObjMode):
            return replace(st, types=tuple((rename.get(n, n), t) for n, t in st.types))
        return st
    return _map_stmt(s, stmt, expr)


def _map_stmt(s: Stmt, stmt: Callable[[Stmt], Stmt], expr: Callable[[Expr], Expr]) -> Stmt:
    """``s`` with ``expr`` applied to each of its expressions and ``stmt`` to each
    statement, nested ones first."""
    def e(x: Expr | None) -> Any:
        return None if x is None else expr(x)

    def block(b: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return tuple(_map_stmt(c, stmt, expr) for c in b)

    if isinstance(s, Assign):
        s = replace(s, target=e(s.target), value=e(s.value))
    elif isinstance(s, Store):
        s = replace(s, target=e(s.target), value=e(s.value))
    elif isinstance(s, Accumulate):
        s = replace(s, target=e(s.target), value=e(s.value))
    elif isinstance(s, Eval):
        s = replace(s, value=e(s.value))
    elif isinstance(s, Loop):
        s = replace(s, start=e(s.start), stop=e(s.stop), step=e(s.step), body=block(s.body),
                    instead=())
    elif isinstance(s, Branch):
        s = replace(s, cond=e(s.cond), body=block(s.body), orelse=block(s.orelse))
    elif isinstance(s, K.While):
        s = replace(s, cond=e(s.cond), body=block(s.body))
    elif isinstance(s, ObjMode):
        s = replace(s, body=block(s.body))
    return stmt(s)


class _Sizes:
    """Replaces the literals of statements that become arguments (``values``, named
    ``c0``, ``c1``, ... in order). Integers that are sizes: loop bounds, elements of a
    shape or strides (``_SHAPED``), of an index of several parts, operands of arithmetic,
    of augmented assignments (a layer norm's ``/= 768``) and of comparisons, slice bounds
    and the bounds of ``min`` and ``max``; not 0 and 1, a lone index (``t[2]`` may pick
    from a tuple, which needs a literal) or any other argument (an axis, a dtype's value,
    a kept ``int(3)``). Floats other than 0.0 and 1.0, wherever they are (``1 / n`` of a
    mean, an epsilon). Numba types an int literal and an int argument alike (int64), and a
    float literal and a float argument (float64)."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def lift(self, e: Expr | None, sized: bool) -> Any:
        if e is None:
            return None
        if isinstance(e, Lit) and self.lifted(e, sized):
            negative = e.value < 0
            name = self.param(-e.value if negative else e.value)
            x = Neg(name) if negative else name  # (a negative number's sign stays)
            return x if e.dtype is None else Cast(e.dtype, x)
        if isinstance(e, Neg):
            return Neg(self.lift(e.x, sized))
        if isinstance(e, (K.Binary, Compare)):
            return replace(e, a=self.lift(e.a, True), b=self.lift(e.b, True))
        if isinstance(e, K.Chain):
            return replace(e, items=tuple(self.lift(x, True) for x in e.items))
        if isinstance(e, Load):
            several = len(e.index) > 1
            return Load(self.lift(e.array, False),
                        tuple(self.lift(i, several) for i in e.index))
        if isinstance(e, Slice):
            return Slice(*(self.lift(x, True) for x in (e.lo, e.hi, e.step)))
        if isinstance(e, Call):
            bounds = e.fn in (Fn.PY_MIN, Fn.PY_MAX, Fn.PY_RANGE)
            args = tuple(self.shape(a) if e.fn in _SHAPED and isinstance(a, Tuple)
                         else self.lift(a, bounds) for a in e.args)
            kwargs = tuple((k, self.shape(v) if e.fn in _SHAPED and isinstance(v, Tuple)
                            else self.lift(v, False)) for k, v in e.kwargs)
            return Call(e.fn, args, kwargs)
        kids = K.children(e)
        return K.with_children(e, [self.lift(k, False) for k in kids]) if kids else e

    def shape(self, t: Tuple) -> Tuple:
        return Tuple(tuple(self.lift(x, True) for x in t.items))

    @staticmethod
    def lifted(lit: Lit, sized: bool) -> bool:
        """Whether ``lit`` becomes an argument: a finite float but 0 and 1, or an int
        (not typed) larger than 1 where ``sized``."""
        v = lit.value
        if isinstance(v, float):
            return math.isfinite(v) and abs(v) not in (0.0, 1.0)
        return type(v) is int and lit.dtype is None and sized and abs(v) > 1

    def param(self, value: Any) -> Name:
        self.values.append(value)
        return Name(f"c{len(self.values) - 1}")

    def stmt(self, s: Stmt) -> Stmt:
        if isinstance(s, Loop):
            s = replace(s, start=self.lift(s.start, True), stop=self.lift(s.stop, True),
                        step=self.lift(s.step, True))
        elif isinstance(s, Accumulate):
            s = replace(s, target=self.lift(s.target, False), value=self.lift(s.value, True))
        elif isinstance(s, (Assign, Store)):
            s = replace(s, target=self.lift(s.target, False), value=self.lift(s.value, False))
        elif isinstance(s, Eval):
            s = replace(s, value=self.lift(s.value, False))
        elif isinstance(s, (Branch, K.While)):
            s = replace(s, cond=self.lift(s.cond, False))
        if isinstance(s, (Loop, K.While, ObjMode)):
            s = replace(s, body=tuple(self.stmt(c) for c in s.body))
        elif isinstance(s, Branch):
            s = replace(s, body=tuple(self.stmt(c) for c in s.body),
                        orelse=tuple(self.stmt(c) for c in s.orelse))
        return s


# --- what the driver runs -----------------------------------------------------------------


def _driver_statement(s: Stmt) -> bool:
    """``name = <allocation or view>``, ``name[...] = name`` or ``name[slices] = name``
    (a copy), ``name[slices] = -np.inf`` (a fill), ``name[slices] += name`` (a
    transposed convolution's tap): what numpy does as Numba would."""
    if isinstance(s, Accumulate):
        return s.op is BinaryOp.ADD and _sliced(s.target) and isinstance(s.value, Name)
    if isinstance(s, Store):
        t = s.target
        whole = isinstance(t.array, Name) and t.index == (K.ELLIPSIS,)
        return (whole or _sliced(t)) and (isinstance(s.value, Name) and
                                          s.value.name.isidentifier() or _number(s.value))
    return isinstance(s, Assign) and isinstance(s.target, Name) and \
        (_structural(s.value) or _product(s.value) or _driver_form(s.value))


def _tuple_item(s: Stmt, types: dict[str, Type]) -> bool:
    """``name = items[k]``, an array item of a tuple: the same object in Python as in
    Numba (a kernel of nothing but tuple indexing cost Numba a compile)."""
    if not (isinstance(s, Assign) and isinstance(s.target, Name) and
            isinstance(s.value, Load) and isinstance(s.value.array, Name) and
            len(s.value.index) == 1):
        return False
    at = s.value.index[0]
    return isinstance(types.get(s.value.array.name), TupleType) and \
        isinstance(at, Lit) and type(at.value) is int and _is_array(types.get(s.target.name))


def _driver_loop(s: Stmt) -> bool:
    """A loop (over examples, over a batch's matrices) whose body is only products of
    views into views (or such loops): the driver runs it."""
    if isinstance(s, Eval):
        v = s.value
        return isinstance(v, Helper) and v.name == "_rt_matmul_into" and len(v.args) == 4 \
            and all(_plain(a) for a in v.args[:3]) and isinstance(v.args[3], Lit) and \
            v.args[3].value == 0
    return isinstance(s, Loop) and not s.instead and \
        all(_plain(b) for b in (s.start, s.stop, s.step)) and \
        all(_driver_loop(c) for c in s.body)


def _python_loop(s: Stmt) -> Stmt:
    """The driver's form of ``_driver_loop`` ``s``: each product is numpy's
    (``np.matmul(a, b, out=c)``, the same BLAS, its columns spread over threads by the
    runtime's ``_rt_products``), so no kernel links BLAS for a
    convolution's products (0.5-1 s of Numba each). A loop of one product over the first
    axes of its operands is one call over their first ``n`` entries (``_stacked``)."""
    if isinstance(s, Loop):
        return _stacked(s) or replace(s, body=tuple(_python_loop(c) for c in s.body))
    a, b, out = s.value.args[:3]  # type: ignore[attr-defined]
    return Eval(Helper("_rt_products", (a, b, out)), loc=s.loc)  # type: ignore


def _stacked(loop: Loop) -> Stmt | None:
    """``for i in range(n): product(a, b[i], out=c[i])`` as one product of stacks,
    ``_rt_products(a, b[:n], c[:n])``, and so for two nested loops (attention's batch and
    heads: ``x[i, j]``, or its transpose ``x[i, j].T``): each operand either the loops'
    indices pick (``x[i]``, ``x[i, j]``) or free of them, one of them at least, and the
    output picked. The runtime shares the stack's matrices among threads; a filter
    gradient's loop over 512 input channels was 512 calls."""
    loops = [loop]
    while len(loops) < 2 and len(loops[-1].body) == 1 and isinstance(loops[-1].body[0], Loop):
        loops.append(loops[-1].body[0])  # type: ignore[arg-type]
    body = loops[-1].body
    if len(body) != 1 or not isinstance(body[0], Eval) or \
            any(k.start is not None or k.step is not None or k.instead for k in loops) or \
            any(k.var in _Uses(Eval(inner.stop)).loads for k in loops for inner in loops):
        return None
    index = tuple(Name(k.var) for k in loops)
    cut = tuple(Slice(None, k.stop) for k in loops)
    operands, picked = [], []
    for e in body[0].value.args[:3]:  # type: ignore[attr-defined]
        turned = isinstance(e, Call) and e.fn is Fn.ATTR_T
        x = e.args[0] if turned else e  # type: ignore[union-attr]
        picked.append(isinstance(x, Load) and isinstance(x.array, Name) and x.index == index)
        if not picked[-1]:
            if any(k.var in _Uses(Eval(e)).loads for k in loops):
                return None
            operands.append(e)
            continue
        stack = x.array[cut]  # type: ignore[union-attr]
        operands.append(Call(Fn.SWAPAXES, (stack, Lit(-1), Lit(-2))) if turned else stack)
    if not (picked[2] and (picked[0] or picked[1])):
        return None
    return Eval(Helper("_rt_products", tuple(operands)), loc=body[0].loc)


def _plain(e: Expr | None) -> bool:
    """An expression the driver evaluates as Numba would: names, numbers, indexing and
    slicing, arithmetic, ``.T`` and casts; no other call."""
    if e is None or isinstance(e, (Name, Lit, K.DTypeRef)):
        return True
    if isinstance(e, (Load, Slice, Tuple, K.Binary, Neg)):
        return all(_plain(k) for k in K.children(e))
    return isinstance(e, Call) and not e.kwargs and \
        e.fn in (Fn.ATTR_T, Fn.METHOD_ASTYPE) and all(_plain(a) for a in e.args)


def _driver_form(e: Expr) -> bool:
    """A call of a runtime function the driver makes in its Python form, on views."""
    return isinstance(e, Helper) and e.name in DRIVER_FORMS and all(_view(a) for a in e.args)


def _with_numpy_products(s: Stmt) -> list[Stmt]:
    """Driver statement ``s`` with the numba runtime's products made numpy's:
    ``np.matmul(a, b)`` through ``_rt_products``, which adds a bias in place (in the
    product's parts, on their threads). A runtime function with a Python form
    (``DRIVER_FORMS``) is called in it."""
    if isinstance(s, Assign) and _driver_form(s.value):
        return [replace(s, value=replace(s.value, name=DRIVER_FORMS[s.value.name]))]
    if not (isinstance(s, Assign) and _product(s.value)):
        return [s]

    def numpy(e: Expr) -> Expr | None:
        if not (isinstance(e, Helper) and e.name in _PRODUCTS):
            return None
        bias = (Lit(None), e.args[2]) if e.name == "_rt_matmul_bias" else ()
        return Helper("_rt_products", (*e.args[:2], *bias))
    return [replace(s, value=K.rewrite(s.value, numpy))]


def _product(e: Expr) -> bool:
    """A matrix product of views, reshaped or plus an array (a bias; not a number, which
    Numba and numpy would type apart)."""
    if isinstance(e, K.Binary) and e.op is BinaryOp.ADD:
        return _product(e.a) and isinstance(e.b, Name)
    if isinstance(e, Call) and e.fn is Fn.METHOD_RESHAPE and not e.kwargs:
        return _product(e.args[0]) and all(_structural(a) for a in e.args[1:])
    return isinstance(e, Helper) and e.name in _PRODUCTS and all(_view(a) for a in e.args)


def _view(e: Expr) -> bool:
    """A name, a view of one, or its transpose (``w.T``)."""
    if isinstance(e, Call) and e.fn is Fn.ATTR_T:
        return _view(e.args[0])
    return _structural(e)


def _number(e: Expr) -> bool:
    """A number literal (an infinity too) or its negation."""
    if isinstance(e, Neg):
        e = e.x
    return isinstance(e, Lit) and type(e.value) in (int, float) and e.dtype is None


def _sliced(e: Expr) -> bool:
    """A view of a name by slices alone."""
    return isinstance(e, Load) and _structural(e) and all(isinstance(b, Slice) for b in e.index)


def _structural(e: Expr) -> bool:
    if isinstance(e, Name):
        return e.name.isidentifier()
    if isinstance(e, Lit):
        return e.dtype is None
    if isinstance(e, Tuple):
        return all(_structural(x) for x in e.items)
    if isinstance(e, Load) and isinstance(e.array, Call):  # x.strides[1]
        return e.array.fn is Fn.ATTR_STRIDES and isinstance(e.array.args[0], Name) and \
            len(e.index) == 1 and isinstance(e.index[0], Lit) and type(e.index[0].value) is int
    if isinstance(e, Load):  # basic slicing: a view (x[()] is an element)
        slices = [b for b in e.index if isinstance(b, Slice)]
        return isinstance(e.array, Name) and bool(slices) and all(
            all(_index(x) for x in (b.lo, b.hi, b.step)) for b in slices) and all(
            isinstance(b, Lit) and type(b.value) is int
            for b in e.index if not isinstance(b, Slice))
    if isinstance(e, Call) and not e.kwargs and e.fn in _DRIVER_CALLS:
        return all(_structural(a) or isinstance(a, K.DTypeRef) for a in e.args)
    return False


def _index(e: Expr | None) -> bool:
    """A slice bound the arena views use: ints, offsets read by index, sums of them."""
    if e is None or isinstance(e, Lit) and type(e.value) is int:
        return True
    if isinstance(e, Load):
        return isinstance(e.array, Name) and len(e.index) == 1 and _index(e.index[0])
    return isinstance(e, K.Binary) and e.op is BinaryOp.ADD and _index(e.a) and _index(e.b)


def _is_array(t: Type | None) -> bool:
    if isinstance(t, TensorType):
        return t.ndim >= 1
    if isinstance(t, TupleType):
        return all(_is_array(e) for e in t.elems)
    return False

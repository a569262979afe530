"""The native target's renderer: a kernel-IR function as one C function.

The native target lowers with the numba target's lowerings (loop nests with roles, array
views, BLAS helper calls) and renders the result as C. Every shape is known when msc
compiles, so every array is a ``View`` of constant shape and strides: ``x[i, j]`` becomes
``p[c + i*s0 + j]``, reshapes and slices cost nothing at run time, the C compiler sees
constant strides to vectorize, and arrays live in workspace slots, dead ones reused.

Scalars follow Numba's typing (``scalars.py``). Names are declared once, at the top, with
the type every assignment to them unifies to; the function is rendered again when a later
assignment widens a name's type.
"""

from __future__ import annotations

import math
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

from msc.codegen import threads
from msc.codegen.native import scalars as S
from msc.codegen.native import parts as P
from msc.codegen.native.scalars import (
    BOOL,
    F64,
    FLOAT16_HELPERS,
    I64,
    SCALAR_HELPERS,
    Scalar,
    c_string,
    cast,
    ctype,
    fold,
    fold_compare,
    is_static,
    literal,
    np_dtype,
    storage,
    unify,
)
from msc.codegen.native.views import (
    Slot,
    View,
    blas_layout,
    broadcast,
    c_name,
    c_strides,
    is_weight,
    plan_slots,
)
from msc.errors import ExportError, InternalCompilerError
from msc.ir import kernel as K

#: The fewest elements a top-level copy or fill has to be cut into parts (numba_rt.py's
#: ``_RT_COPY_SIZE``).
COPY_SIZE = 1 << 18
#: The fewest multiply-adds of a product the runtime cuts into blocks itself
#: (``MSC_PRODUCT_WORK``, numba_rt.py's ``_RT_PRODUCT_WORK``).
PRODUCT_CUT = 1 << 22
#: The fewest multiply-adds of smaller products a loop nest of them must do to be cut
#: into parts.
PRODUCT_WORK = PRODUCT_CUT
#: The fewest multiply-adds of a float32 product that goes to the runtime's own kernel
#: (``msc_gemm_packed_f32``, ``msc_gemm_weights_f32``); smaller ones stay with the BLAS,
#: where packing would cost more than it gains.
PACKED_WORK = 1 << 20


@dataclass
class Function:
    """What rendering one function gave: its statements and the declarations that go
    before them, each output's dtype and shape, and the workspace's size in bytes."""

    lines: list[str]
    decls: list[str]
    outputs: list[tuple[np.dtype, tuple[int, ...]]]
    workspace: int
    parts: list[str] = field(default_factory=list)  # C functions to place before it




class Renderer:
    """Renders statements to C lines, evaluating array values to ``View``s as it goes.

    ``env`` maps the kernel's names to values: a ``View``, a ``Scalar``, a Python number or
    tuple (shapes, offsets: known at compile time) or a tuple of values."""

    def __init__(self, env: dict[str, Any], types: dict[str, np.dtype], dynamic: set[str],
                 reads: Sequence[set[str]] = ()):
        self.env = dict(env)
        #: the kernel-IR names each top-level statement reads or assigns (from 1), and in
        #: how many top-level statements each name stands
        self.reads = [set(), *reads]
        self.read_counts = Counter(n for r in reads for n in r)
        self.parts: list[P.Part] = []
        self.types = dict(types)  # scalar names -> dtype (unified over assignments)
        self.dynamic = dynamic  # array names assigned in several places: pointer variables
        self.dyn_slots: dict[str, frozenset[int]] = {}
        self.dyn_views: dict[str, View] = {}
        self.lines: list[str] = []
        #: declared C names -> declaration ('': a scalar, declared with its type; an int:
        #: the workspace slot it points to)
        self.decls: dict[str, str | int] = {}
        self.slots: list[Slot] = []
        self.slot_types: list[np.dtype] = []
        self.depth = 1
        self.top = 0  # the top-level statement being rendered (slot liveness)
        self.loc: Any = None
        self.fresh_count = 0
        self.products: list[int] = []  # multiply-adds of each product rendered

    # --- output -------------------------------------------------------------------------

    def put(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def fresh(self, hint: str) -> str:
        self.fresh_count += 1
        return f"{hint}_{self.fresh_count}"

    def fail(self, what: str) -> ExportError:
        return ExportError(f"the native target cannot compile {what} yet", self.loc)

    # --- memory -------------------------------------------------------------------------

    def allocate(self, shape: tuple[int, ...], dt: np.dtype) -> View:
        """A new C-contiguous array in its own workspace slot."""
        k = len(self.slots)
        nbytes = max(math.prod(shape), 1) * dt.itemsize
        self.slots.append(Slot(nbytes, self.top, self.top))
        self.slot_types.append(dt)
        base = f"s{k}"
        self.decls[base] = k  # declared once the plan gives its offset
        return View(base, dt, shape, c_strides(shape), slots=frozenset([k]))

    def use(self, value: Any) -> Any:
        """``value`` read at the current statement: its slots stay live until here."""
        if isinstance(value, View):
            for k in value.slots:
                self.slots[k].last = max(self.slots[k].last, self.top)
        elif isinstance(value, tuple):
            for v in value:
                self.use(v)
        return value

    # --- statements -----------------------------------------------------------------------

    def body(self, stmts: Sequence[K.Stmt], top: bool = False) -> None:
        for s in stmts:
            if top:
                self.top += 1
            outer, self.loc = self.loc, getattr(s, "loc", None) or self.loc
            if not (top and self.spread(s)):
                self.stmt(s)
            self.loc = outer

    def spread(self, s: K.Stmt) -> bool:
        """A top-level parallel loop nest doing at least ``threads.MIN_WORK`` iterations,
        or a copy or fill of at least ``COPY_SIZE`` elements, as a ``Part`` run on the
        runtime's threads (``msc_parallel``), as the numba target spreads its outlined
        kernels and its driver's copies; False (nothing rendered) where it does not
        qualify: it allocates workspace (which its iterations would share), assigns an
        array variable, returns, or assigns names the rest of the function reads."""
        if isinstance(s, K.Loop) and _products_only(s):
            return self.cut(lambda: self.products_part(s))
        if threads.plain_parallel(s):
            return self.cut(lambda: self.loop_part(s))  # type: ignore[arg-type]
        if isinstance(s, K.Store) and isinstance(s.value, (K.Name, K.Lit)):
            return self.cut(lambda: self.fill_part(s))  # type: ignore[arg-type]
        return False

    def loop_part(self, s: K.Loop) -> int | None:
        """``s`` over ``[lo, hi)`` of its range (``threads.part_of``); its extent, None
        where it does not qualify."""
        sizes = {name: K.Lit(v) for name, v in self.env.items() if type(v) is int}
        extent, inside = threads.part_of(s, K.Name(P.PART_INDEX))
        n = self.value(extent)
        count = threads.work((s,), sizes, lambda e: P.row_length(self.env, e))
        if not isinstance(n, int) or n < 2 or count is None or count < threads.MIN_WORK or \
                not self.private(inside):
            return None
        self.stmt(K.Loop(P.PART_INDEX, K.Name(P.PART_HI), inside, start=K.Name(P.PART_LO),
                         role=K.Role.PARALLEL, loc=s.loc))
        return n

    def products_part(self, s: K.Loop) -> int | None:
        """A nest of loops of products (attention's over batch and heads) over ``[lo,
        hi)`` of its iterations, numbered in order, where they multiply at least
        ``PRODUCT_WORK`` times in all but each fewer than ``PRODUCT_CUT`` (a larger one is
        cut into blocks on the threads itself), as the numba target's ``_rt_products``
        shares such a stack among threads; its number of iterations, else None."""
        loops = [s]
        while isinstance(loops[-1].body[0], K.Loop):
            loops.append(loops[-1].body[0])  # type: ignore[arg-type]
        stops = [self.value(x.stop) for x in loops]
        if not all(type(n) is int for n in stops):
            return None
        index, inside = K.Name(P.PART_INDEX), list(loops[-1].body)
        for k, x in enumerate(loops):  # (each loop's index from the part's)
            at = K.Binary(K.BinaryOp.FLOORDIV, index, K.Lit(math.prod(stops[k + 1:])))
            at = K.Binary(K.BinaryOp.MOD, at, K.Lit(stops[k]))
            inside.insert(k, K.Assign(K.Name(x.var), at))
        if not self.private(inside):
            return None
        self.products = []
        self.stmt(K.Loop(P.PART_INDEX, K.Name(P.PART_HI), tuple(inside), start=K.Name(P.PART_LO),
                         role=K.Role.PARALLEL, loc=s.loc))
        n = math.prod(stops)
        work = n * sum(self.products)
        small = max(self.products, default=0) < PRODUCT_CUT
        return n if n >= 2 and work >= PRODUCT_WORK and small else None

    def private(self, inside: Sequence[K.Stmt]) -> bool:
        """Whether the names ``inside`` assigns (loop indices too) are read by no other
        top-level statement: a part's scalars are its own."""
        assigned = set(assigned_names(inside)) | {x.var for x in K.walk_stmts(inside)
                                                  if isinstance(x, K.Loop)}
        return not any(self.read_counts[n] > (n in self.reads[self.top]) for n in assigned)

    def fill_part(self, s: K.Store) -> int | None:
        """``s``, a copy or fill, over ``[lo, hi)`` of its destination's leading axes
        (enough of them for 8 parts); the range's extent, None where it is small."""
        value = self.value(s.value)
        dest = self.index(self.use(self.value(s.target.array)), s.target.index)
        if not isinstance(dest, View) or dest.size < COPY_SIZE:
            return None
        src = broadcast(self.use(value), dest.shape, self.loc) if isinstance(value, View) \
            else value
        lead = next((k for k in range(1, len(dest.shape) + 1) if math.prod(dest.shape[:k]) >= 8),
                    len(dest.shape))
        n, i = math.prod(dest.shape[:lead]), c_name(P.PART_INDEX)

        def row(v: View) -> View:  # (the element lead axes of index i, by division)
            terms = [f"({i} / {math.prod(v.shape[d + 1:lead])} % {v.shape[d]}) * {v.strides[d]}"
                     for d in range(lead) if v.strides[d]]
            return v.with_layout(v.shape[lead:], v.strides[lead:],
                                 dyn=" + ".join(([v.dyn] if v.dyn else []) + terms))

        self.put(f"for (int64_t {i} = lo; {i} < hi; {i}++) {{")
        self.depth += 1
        self.fill(row(dest), row(src) if isinstance(src, View) else src)
        self.depth -= 1
        self.put("}")
        return n

    def cut(self, render: Any) -> bool:
        """What ``render`` writes (it returns the range's extent, or None to decline) as
        a ``Part`` and the call running it; False (nothing kept) where it declined or
        what it wrote cannot run in parts: it allocated workspace, reads or writes an array
        variable (a pointer the function sets as it runs), or returns."""
        saved = (len(self.lines), len(self.slots), dict(self.decls), dict(self.env),
                 dict(self.dyn_slots), dict(self.dyn_views), self.depth)
        self.env[P.PART_LO], self.env[P.PART_HI] = Scalar("lo", I64), Scalar("hi", I64)
        self.depth = 1
        n = render()
        lines = self.lines[saved[0]:]
        del self.lines[saved[0]:]
        names = {x for line in lines for x in P.IDENTIFIER.findall(line)}
        if n is None or len(self.slots) > saved[1] or \
                any(x.startswith("a_") for x in names if x in self.decls) or \
                any("return" in line for line in lines):
            self.slots[saved[1]:], self.slot_types[saved[1]:] = [], []
            self.decls, self.env, self.dyn_slots, self.dyn_views, self.depth = saved[2:]
            return False
        self.depth = saved[6]
        captured = sorted(x for x in names if self.decls.get(x) == "" and not any(
            line.lstrip().startswith(f"{x} = ") for line in lines))
        part = P.Part(f"msc_part_{len(self.parts)}", lines, captured, names)
        self.parts.append(part)
        context = ", ".join([name for _, name in P.FORWARD_PARAMS] + captured)
        self.put(f"{{ {part.name}_ctx c = {{{context}}}; msc_parallel({part.name}, &c, {n}); }}")
        return True

    def stmt(self, s: K.Stmt) -> None:
        if isinstance(s, K.Assign):
            self.assign(s.target, self.value(s.value))
        elif isinstance(s, K.Store):
            self.store(s.target, self.value(s.value))
        elif isinstance(s, K.Accumulate):
            self.accumulate(s)
        elif isinstance(s, K.Eval):
            self.evaluate(s.value)
        elif isinstance(s, K.Loop):
            self.loop(s)
        elif isinstance(s, K.Branch):
            self.put(f"if ({self.truth(self.value(s.cond))}) {{")
            self.block(s.body)
            if s.orelse:
                self.put("} else {")
                self.block(s.orelse)
            self.put("}")
        elif isinstance(s, K.While):
            cond = self.value(s.cond)
            self.put("for (;;) {" if cond is True else f"while ({self.truth(cond)}) {{")
            self.block(s.body)
            self.put("}")
        elif isinstance(s, K.Break):
            self.put("break;")
        elif isinstance(s, K.Raise):
            self.put(f"return msc_fail({c_string(s.exc + ': ' + s.message)});")
        elif isinstance(s, K.ObjMode):
            raise self.fail("a statement that runs Python (a print, a collective, a random "
                            "draw)")
        else:
            raise self.fail(f"the statement {type(s).__name__}")

    def block(self, stmts: Sequence[K.Stmt]) -> None:
        self.depth += 1
        self.body(stmts)
        self.depth -= 1

    def loop(self, s: K.Loop) -> None:
        start = self.scalar(self.value(s.start)) if s.start is not None else Scalar("0", I64)
        stop = self.scalar(self.value(s.stop))
        step = self.value(s.step) if s.step is not None else 1
        if not isinstance(step, int):
            raise self.fail("a loop whose step is not known when compiling")
        var = c_name(s.var)
        self.env[s.var] = Scalar(var, I64)
        test = "<" if step > 0 else ">"
        self.put(f"for (int64_t {var} = {start.code}; {var} {test} {stop.code}; {var} += {step}) {{")
        self.block(s.body)
        self.put("}")

    def assign(self, target: K.Expr, value: Any) -> None:
        if isinstance(target, K.Tuple):
            if not isinstance(value, tuple) or len(value) != len(target.items):
                raise InternalCompilerError("a tuple assignment of another structure", self.loc)
            for t, v in zip(target.items, value):
                self.assign(t, v)
            return
        if not isinstance(target, K.Name):
            raise InternalCompilerError(f"assignment to {K.show(target)}", self.loc)
        name = target.name
        # a scalar is held in a variable: what it read must not change with later stores
        fixed = name in self.dynamic or isinstance(value, Scalar)
        self.env[name] = self.bind(name, value) if fixed else value

    def bind(self, name: str, value: Any) -> Any:
        """``value`` held in C variables named after ``name`` (a name assigned in several
        places: a branch's result, a loop-carried value, an accumulator): a scalar
        variable, a pointer for an array, one of either per item of a tuple."""
        if isinstance(value, tuple):
            return tuple(self.bind(f"{name}__{i}", v) for i, v in enumerate(value))
        if isinstance(value, View):
            return self.pointer(name, value)
        if is_static(value):  # a variable that starts as a number
            value = literal(value)
        if not isinstance(value, Scalar):
            raise self.fail(f"a variable holding {value!r}")
        c = c_name(name)
        t = self.types[c] = unify(self.types.get(c), value.dtype)
        self.decls.setdefault(c, "")
        self.put(f"{c} = {cast(value, t)};")
        return Scalar(c, t)

    def pointer(self, name: str, value: View) -> View:
        """A name assigned arrays in several places (a branch's result, a loop-carried
        value): a pointer variable to C-contiguous memory of one shape."""
        if not value.contiguous:
            value = self.copy_new(value)
        known = self.dyn_views.setdefault(name, value)
        if known.shape != value.shape or known.dtype != value.dtype:
            raise InternalCompilerError(f"'{name}' holds arrays of different shapes", self.loc)
        ptr = f"a_{name}"  # (c_name's names start otherwise)
        self.decls[ptr] = f"{ctype(value.dtype)} *{ptr} = NULL;"
        self.put(f"{ptr} = {value.address()};")
        slots = self.dyn_slots[name] = self.dyn_slots.get(name, frozenset()) | value.slots
        return View(ptr, value.dtype, value.shape, c_strides(value.shape), slots=slots)

    def store(self, target: K.Load, value: Any) -> None:
        array = self.use(self.value(target.array))
        if not isinstance(array, View):
            raise InternalCompilerError(f"a store into {K.show(target.array)}", self.loc)
        dest = self.index(array, target.index)
        if isinstance(dest, View):
            self.fill(dest, value)
        else:
            self.put(f"{dest.code} = {cast(self.scalar(value), array.dtype)};")

    def accumulate(self, s: K.Accumulate) -> None:
        """``target op= value``: a scalar variable, an element, or in place over an array
        or a view of one (a transposed convolution's taps added into its accumulator)."""
        value = self.value(s.value)
        if isinstance(s.target, K.Name):
            dest = self.env[s.target.name]
        else:
            array = self.use(self.value(s.target.array))
            dest = self.index(array, s.target.index)
        if isinstance(dest, View):
            if isinstance(value, View):
                self.use(value)  # (read first where it may overlap what is written)
                value = broadcast(self.copy_new(value) if value.base == dest.base else value,
                                  dest.shape, self.loc)
            else:
                value = self.scalar(value)
            self.each(dest, lambda x, y: S.binary(s.op, x, y), dest, value)
            return
        value = self.scalar(value)
        if isinstance(s.target, K.Name):  # (a Scalar: the variable)
            t = self.types[dest.code] = unify(self.types.get(dest.code),
                                              S.binary(s.op, dest, value).dtype)
            result = S.binary(s.op, Scalar(dest.code, t), value)
            self.put(f"{dest.code} = {cast(result, t)};")
            return
        result = S.binary(s.op, dest, value)
        self.put(f"{dest.code} = {cast(result, array.dtype)};")

    @contextmanager
    def nest(self, shape: Sequence[int], skip: int | None = None) -> Iterator[list[str]]:
        """Loops over every index of ``shape`` (but axis ``skip``): the body written inside
        the ``with`` uses the index variables it gives."""
        idx = [self.fresh("i") for _ in shape]
        opened = [(i, n) for d, (i, n) in enumerate(zip(idx, shape)) if d != skip]
        for i, n in opened:
            self.put(f"for (int64_t {i} = 0; {i} < {n}; {i}++) {{")
            self.depth += 1
        yield idx
        for _ in opened:
            self.depth -= 1
            self.put("}")

    def each(self, out: View, fn: Any, *operands: View | Scalar) -> None:
        """``out[i] = fn(operands[i]...)`` for every element (array operands broadcast to
        ``out``'s shape, scalars as they are)."""
        with self.nest(out.shape) as idx:
            got = fn(*(Scalar(v.element(idx), v.dtype) if isinstance(v, View) else v
                       for v in operands))
            self.put(f"{out.element(idx)} = {cast(got, out.dtype)};")

    def cumsum(self, x: View, axis: int, exclusive: bool, reverse: bool) -> View:
        """Running sums along ``axis`` in ``x``'s dtype (the runtime's ``_rt_cumsum``)."""
        out = self.allocate(x.shape, x.dtype)
        with self.nest(x.shape, skip=axis) as idx:
            self.scan(x, out, idx, axis, exclusive, reverse)
        return out

    def scan(self, x: View, out: View, idx: list[str], axis: int, exclusive: bool,
             reverse: bool) -> None:
        total, step = self.fresh("total"), idx[axis]
        n = x.shape[axis]
        self.put(f"{ctype(x.dtype)} {total} = 0;")
        at = f"{n - 1} - {step}_" if reverse else f"{step}_"
        self.put(f"for (int64_t {step}_ = 0; {step}_ < {n}; {step}_++) {{")
        self.put(f"    int64_t {step} = {at};")
        src, dst = x.element(idx), out.element(idx)
        body = [f"{dst} = {total};", f"{total} += {src};"] if exclusive else \
            [f"{total} += {src};", f"{dst} = {total};"]
        for line in body:
            self.put("    " + line)
        self.put("}")

    def evaluate(self, e: K.Expr) -> None:
        if isinstance(e, K.Helper) and e.name == "_rt_f16_narrow_into":
            x, out = (self.use(self.value(a)) for a in e.args)
            self.each(out, lambda v: Scalar(f"msc_f32_to_f16({cast(v, F64)})", out.dtype),
                      broadcast(x, out.shape, self.loc))
            return
        if isinstance(e, K.Helper) and e.name == "_rt_matmul_into":
            a, b, out, beta = (self.use(self.value(x)) for x in e.args)
            self.gemm(a, b, out, beta if is_static(beta) else self.scalar(beta))
            return
        if isinstance(e, K.Call) and e.fn is K.Fn.COPYTO:
            dst, src = (self.use(self.value(x)) for x in e.args[:2])
            self.fill(dst, src)
            return
        value = self.value(e)
        if isinstance(value, Scalar):
            self.put(f"(void){value.code};")

    # --- arrays ---------------------------------------------------------------------------

    def fill(self, dest: View, value: Any) -> None:
        """``dest[...] = value``: a scalar or an array broadcast to ``dest``'s shape."""
        if isinstance(value, View):
            self.use(value)
            src = broadcast(value, dest.shape, self.loc)
            if src.dtype == dest.dtype and dest.contiguous and src.contiguous and dest.size:
                self.put(f"memmove({dest.address()}, {src.address()}, "
                         f"{dest.size * dest.dtype.itemsize});")
                return
            if src.dtype == dest.dtype and dest.size >= P.COPY_ON_THREADS and src.base != dest.base:
                self.put(P.copy_on_threads(dest, src))
                return
        else:
            src = self.scalar(value)
        self.each(dest, lambda v: v, src)

    def copy_new(self, value: View, dt: np.dtype | None = None) -> View:
        out = self.allocate(value.shape, dt or value.dtype)
        self.fill(out, value)
        return out

    def contiguous(self, value: View) -> View:
        return value if value.contiguous else self.copy_new(value)

    def gemm(self, a: View, b: View, out: View, beta: float | Scalar,
             bias: View | None = None) -> None:
        """``out = a @ b + beta * out`` (``+ bias``, a contiguous row of one value per
        column, added by each part of the product) by one call of the runtime's BLAS
        (float32, float64), operands read where they lie when their rows or columns are
        contiguous; ``beta`` a number or a value known when it runs (0 on a loop's first
        step, 1 after)."""
        if not (a.dtype == b.dtype == out.dtype) or a.dtype.kind != "f":
            raise self.fail(f"a product of {a.dtype}, {b.dtype} into {out.dtype}")
        (m, k), n = a.shape, b.shape[1]
        if m == 0 or n == 0:
            return
        written = blas_layout(out)  # the product is written where it lies, in rows
        target = out if written is not None and written[0] == "N" else None
        dest = target or self.allocate((m, n), out.dtype)
        if target is None and (not is_static(beta) or beta):
            self.fill(dest, out)
        ops = []
        for x in (a, b):
            layout = blas_layout(x)
            if layout is None:
                x = self.copy_new(x)
                layout = blas_layout(x)
            ops.append((x, layout))
        (a, (ta, lda)), (b, (tb, ldb)) = ops
        ldc = blas_layout(dest)[1]  # type: ignore[index]
        kind = "f32" if a.dtype == np.float32 else "f64"
        self.products.append(m * n * k)
        bias_at = self.use(bias).address() if bias else "NULL"
        packed = kind == "f32" and is_static(beta) and not beta and m * n * k >= PACKED_WORK
        if packed and ta == tb == "N" and is_weight(a) and not is_weight(b) and not bias:
            self.put(f"msc_gemm_weights_left_f32({m}, {n}, {k}, {a.address()}, {lda}, "
                     f"{b.address()}, {ldb}, {dest.address()}, {ldc});")
        elif packed:  # by a weight of the model (packed once), else packed as it goes
            head = "weights_f32(" if ta == "N" and is_weight(b) else \
                f"packed_f32({int(ta == 'T')}, "
            self.put(f"msc_gemm_{head}{int(tb == 'T')}, {m}, {n}, {k}, {a.address()}, {lda}, "
                     f"{b.address()}, {ldb}, {dest.address()}, {ldc}, {bias_at});")
        else:
            self.put(f"msc_gemm_{kind}({int(ta == 'T')}, {int(tb == 'T')}, {m}, {n}, {k}, "
                     f"{a.address()}, {lda}, {b.address()}, {ldb}, "
                     f"{cast(self.scalar(beta), F64)}, {dest.address()}, {ldc}, {bias_at});")
        if target is None:
            self.fill(out, dest)

    def winograd(self, e: K.Helper) -> Scalar:
        """A Winograd convolution (``msc/ir/primitives/winograd.py``): the runtime's
        ``msc_wino_conv``, its image arrays contiguous float32 (the input without its top and
        left border) and its transformed ones (rows, 36, columns) with unit column strides,
        as the lowering makes them, and whether the filters are weights (an inference
        model's never change); 0 where it declined."""
        src, w, u, v, m, out, top, left = (self.use(self.value(x)) for x in e.args)
        tables = (u, v, m)
        if any(a.dtype != np.float32 for a in (src, w, out, *tables)) or not all(
                a.contiguous for a in (src, w, out)) or any(t.strides[2] != 1 for t in tables):
            raise self.fail(f"{e.name} of {src!r}, {w!r}, {u!r}, {v!r}, {m!r}, {out!r}")
        args = [src.address(), *map(str, (*src.shape, top, left)), w.address(), str(w.shape[0])]
        for t in tables:
            args += [t.address(), str(t.strides[0]), str(t.strides[1])]
        args += [str(v.shape[2]), out.address(), *map(str, out.shape[2:]), str(int(is_weight(w)))]
        return Scalar(f"msc_wino_conv({', '.join(args)})", I64)

    # --- expressions ----------------------------------------------------------------------

    def value(self, e: K.Expr | None) -> Any:
        if e is None:
            return None
        if isinstance(e, K.Lit):
            if e.dtype is not None:
                return literal(e.value, np_dtype(e.dtype))
            return e.value
        if isinstance(e, K.Name):
            if e.name == "...":
                return Ellipsis
            try:
                return self.use(self.env[e.name])
            except KeyError:
                raise InternalCompilerError(f"'{e.name}' read before it is assigned",
                                            self.loc) from None
        if isinstance(e, K.Tuple):
            return tuple(self.value(x) for x in e.items)
        if isinstance(e, K.DTypeRef):
            return storage(np_dtype(e.dtype))
        if isinstance(e, K.Load):
            base = self.value(e.array)
            if isinstance(base, tuple):
                return base[self.static(self.value(e.index[0]))]
            if not isinstance(base, View):
                raise InternalCompilerError(f"indexing {K.show(e.array)}", self.loc)
            return self.index(base, e.index)
        if isinstance(e, K.Binary):
            return self.folded(lambda x, y: fold(e.op, x, y),
                               lambda x, y: S.binary(e.op, x, y), e.a, e.b)
        if isinstance(e, K.Neg):
            return self.folded(lambda x: -x, S.negative, e.x)
        if isinstance(e, K.Not):
            x = self.value(e.x)
            return (not x) if is_static(x) else Scalar(f"(!{self.truth(x)})", BOOL)
        if isinstance(e, K.Compare):
            return self.folded(lambda x, y: fold_compare(e.op, x, y),
                               lambda x, y: S.compare(e.op, x, y), e.a, e.b)
        if isinstance(e, K.Chain):
            items = [self.value(x) for x in e.items]
            parts = [self.compared(op, a, b) for op, a, b in zip(e.ops, items, items[1:])]
            return Scalar("(" + " && ".join(self.truth(p) for p in parts) + ")", BOOL)
        if isinstance(e, K.BoolOp):
            parts = [self.truth(self.value(x)) for x in e.items]
            return Scalar("(" + (" && " if e.all_ else " || ").join(parts) + ")", BOOL)
        if isinstance(e, K.Select):
            c, a, b = (self.value(x) for x in (e.cond, e.a, e.b))
            return self.mapped(lambda c, a, b: S.select(S.truth(c), a, b), c, a, b)
        if isinstance(e, K.Cast):
            x = self.value(e.x)
            t = np_dtype(e.dtype)
            if t == np.float16:
                raise InternalCompilerError("a float16 cast outside the float16 helpers",
                                            self.loc)
            if isinstance(x, View):
                return self.copy_new(x, t)
            return Scalar(cast(self.scalar(x), t), t)
        if isinstance(e, K.Call):
            return self.call(e)
        if isinstance(e, K.Helper):
            return self.helper(e)
        if isinstance(e, K.Slice):
            raise InternalCompilerError("a slice outside an index", self.loc)
        raise self.fail(f"the expression {K.show(e)}")

    def folded(self, static: Any, fn: Any, *operands: K.Expr) -> Any:
        """An operation of ``operands``: ``static`` of their values when all are known when
        compiling, else ``fn`` of their scalars (on arrays, element by element)."""
        values = [self.value(x) for x in operands]
        return static(*values) if all(is_static(v) for v in values) else self.mapped(fn, *values)

    def mapped(self, fn: Any, *operands: Any) -> Any:
        """``fn`` of scalar operands, or, where an operand is an array, a new array of
        ``fn`` of each element (numpy's broadcasting; a Python number takes the arrays'
        kind of dtype, as numpy's weak scalars do; the result has numpy's dtype)."""
        arrays = [v for v in operands if isinstance(v, View) and v.shape]
        if not arrays:
            return fn(*(self.scalar(v) for v in operands))
        shape = np.broadcast_shapes(*(v.shape for v in arrays))
        kind = np.result_type(*(v.dtype for v in arrays))
        held = [broadcast(self.use(v), shape, self.loc) if isinstance(v, View) and v.shape
                else literal(v, kind if np.result_type(kind, type(v)) == kind else None)
                if is_static(v) else self.scalar(v) for v in operands]
        sample = fn(*(Scalar("x", v.dtype) for v in held))
        dt = np.result_type(*(v.dtype for v in held))
        dt = sample.dtype if sample.dtype.kind != dt.kind or dt.kind == "b" else dt
        out = self.allocate(shape, dt)
        self.each(out, fn, *held)
        return out

    def static(self, value: Any) -> Any:
        if not is_static(value):
            raise self.fail("a value that is not known when compiling, where the native "
                            "target needs one (a shape, a slice bound, a loop step)")
        return value

    def scalar(self, value: Any) -> Scalar:
        if isinstance(value, Scalar):
            return value
        if isinstance(value, (bool, int, float, np.number, np.bool_)):
            return literal(value)
        if isinstance(value, View) and value.size == 1:
            return Scalar(value.element(["0"] * len(value.shape)), value.dtype)
        raise InternalCompilerError(f"not a scalar: {value!r}", self.loc)

    def truth(self, value: Any) -> str:
        if is_static(value):
            return "true" if value else "false"
        return S.truth(self.scalar(value))

    def compared(self, op: K.CompareOp, a: Any, b: Any) -> Any:
        if is_static(a) and is_static(b):
            return fold_compare(op, a, b)
        return S.compare(op, self.scalar(a), self.scalar(b))

    def extremes(self, fn: K.Fn, args: list[Any]) -> Any:
        if all(is_static(a) for a in args):
            return (min if fn in (K.Fn.PY_MIN, K.Fn.MINIMUM) else max)(args)
        return S.extreme(fn, [self.scalar(a) for a in args])

    def index(self, array: View, parts: Sequence[K.Expr]) -> Any:
        """``array[parts]``: an element (a ``Scalar`` lvalue) or a view."""
        values = [self.value(p) if not isinstance(p, K.Slice) else p for p in parts]
        if any(v is Ellipsis for v in values):
            k = values.index(Ellipsis)
            values[k:k + 1] = [K.Slice()] * (len(array.shape) - len(values) + 1)
        if len(values) > len(array.shape):
            raise InternalCompilerError("too many indices", self.loc)
        values += [K.Slice()] * (len(array.shape) - len(values))
        shape, strides, offset, dyn = [], [], array.offset, [array.dyn] if array.dyn else []
        scalar_index = []
        for v, n, st in zip(values, array.shape, array.strides):
            if isinstance(v, K.Slice) and _moving(v):  # lo:lo + c, lo known when it runs
                lo = self.scalar(self.value(v.lo))
                shape.append(int(self.static(self.value(v.hi.b))))  # type: ignore[union-attr]
                strides.append(st)
                dyn.append(lo.code if st == 1 else f"({lo.code}) * {st}")
            elif isinstance(v, K.Slice):
                lo, hi, step = (self.static(self.value(x)) if x is not None else None
                                for x in (v.lo, v.hi, v.step))
                start, stop, stride = slice(lo, hi, step).indices(n)
                count = len(range(start, stop, stride))
                shape.append(count)
                strides.append(st * stride)
                offset += start * st
            elif is_static(v):
                i = int(v) + (n if int(v) < 0 else 0)
                offset += i * st
                scalar_index.append(str(i))
            else:
                s = self.scalar(v)
                dyn.append(s.code if st == 1 else f"({s.code}) * {st}")
                scalar_index.append(s.code)
        if not shape and all(isinstance(v, (Scalar, int, np.integer)) or is_static(v)
                             for v in values):
            terms = [str(offset)] + dyn
            return Scalar(f"{array.base}[{' + '.join(terms)}]", array.dtype)
        return View(array.base, array.dtype, tuple(shape), tuple(strides), offset,
                    " + ".join(dyn), array.slots)

    def helper(self, e: K.Helper) -> Any:
        if e.name in FLOAT16_HELPERS:
            fn, t = FLOAT16_HELPERS[e.name]
            args = [self.value(a) for a in e.args]
            if isinstance(args[0], View):  # an array: element by element
                out = self.allocate(args[0].shape, t)
                self.each(out, lambda x: Scalar(f"{fn}({cast(x, F64)})", t), args[0])
                return out
            x = self.scalar(args[0])
            arg = cast(x, I64) if e.name == "_rt_f16_to_f32" else cast(x, F64)
            return Scalar(f"{fn}({arg})", t)
        if e.name in ("_rt_f16_widen", "_rt_f16_narrow"):
            x = self.value(e.args[0])
            wide = e.name == "_rt_f16_widen"
            t = np.dtype(np.float32) if wide else np.dtype(np.uint16)
            if not isinstance(x, View):
                x = self.scalar(x)
                return Scalar(f"msc_f16_to_f32({cast(x, I64)})" if wide else
                              f"msc_f32_to_f16({cast(x, F64)})", t)
            out = self.allocate(x.shape, t)
            self.each(out, lambda v: Scalar(
                f"msc_f16_to_f32({v.code})" if wide else f"msc_f32_to_f16({cast(v, F64)})", t), x)
            return out
        if e.name == "_rt_gelu_f16":
            x = self.scalar(self.value(e.args[0]))
            form = int(self.value(e.args[1]) == "tanh")
            return Scalar(f"msc_gelu_f16({cast(x, np.dtype(np.float32))}, {form})",
                          np.dtype(np.float32))
        if e.name == "_rt_gelu":
            x = self.scalar(self.value(e.args[0]))
            form = int(self.value(e.args[1]) == "tanh")
            return Scalar(f"msc_gelu({cast(x, F64)}, {form})", F64)
        if e.name == "_rt_pow":
            a, b = (self.value(x) for x in e.args)
            return S.binary(K.BinaryOp.POW, self.scalar(a), self.scalar(b))
        if e.name == "_rt_fmod":
            return S.binary_fn(K.Fn.FMOD, *(self.scalar(self.value(x)) for x in e.args))
        if e.name == "_rt_cumsum":
            x, axis, exclusive, reverse = (self.value(a) for a in e.args)
            return self.cumsum(x, int(axis), bool(exclusive), bool(reverse))
        if e.name in SCALAR_HELPERS:
            fn, t = SCALAR_HELPERS[e.name]
            args = [cast(self.scalar(self.value(a)), t) for a in e.args]
            return Scalar(f"{fn}({', '.join(args)})", t)
        if e.name in ("_rt_row_max", "_rt_row_sum", "_rt_row_squares"):
            row = self.value(e.args[0])
            if not isinstance(row, View) or len(row.shape) != 1 or row.dtype.kind != "f":
                raise self.fail(f"{e.name} of {row!r}")
            kind = "f32" if row.dtype == np.float32 else "f64"
            extra = "".join(", " + cast(self.scalar(self.value(a)), F64) for a in e.args[1:])
            t = row.dtype if e.name == "_rt_row_max" else F64
            return Scalar(f"msc_{e.name[4:]}_{kind}({row.address()}, {row.shape[0]}, "
                          f"{row.strides[0]}{extra})", t)
        if e.name == "_rt_wino_conv":
            return self.winograd(e)
        if e.name in ("_rt_matmul", "_rt_matmul_bias"):
            a, b = (self.value(x) for x in e.args[:2])
            out = self.allocate((a.shape[0], b.shape[1]), a.dtype)
            bias = self.value(e.args[2]) if e.name == "_rt_matmul_bias" else None
            row = isinstance(bias, View) and bias.shape == out.shape[1:] and \
                bias.strides == (1,) and bias.dtype == out.dtype
            self.gemm(a, b, out, 0.0, bias if row else None)
            if bias is not None and not row:
                bias = broadcast(bias, out.shape, self.loc)
                self.each(out, lambda x, y: S.binary(K.BinaryOp.ADD, x, y), out, bias)
            return out
        raise self.fail(f"the runtime helper {e.name}")

    def call(self, e: K.Call) -> Any:
        F = K.Fn
        fn = e.fn
        args = [self.value(a) for a in e.args]
        kwargs = {k: self.value(v) for k, v in e.kwargs}
        if fn in (F.EMPTY, F.ZEROS, F.ONES, F.FULL):
            shape = tuple(int(self.static(d)) for d in (args[0] if isinstance(args[0], tuple)
                                                         else (args[0],)))
            dt = args[-1] if isinstance(args[-1], np.dtype) else kwargs.get("dtype", F64)
            out = self.allocate(shape, dt)
            if fn is not F.EMPTY:
                fill = {F.ZEROS: 0, F.ONES: 1}.get(fn, args[1] if fn is F.FULL else None)
                self.fill(out, fill)
            return out
        if fn in (F.ASCONTIGUOUSARRAY, F.ASARRAY):
            x = args[0]
            return self.contiguous(x) if isinstance(x, View) else x
        if fn is F.METHOD_COPY:
            x = args[0]
            if not isinstance(x, View):
                return x
            return self.copy_new(x)
        if fn is F.METHOD_ASTYPE:
            x, t = args
            return self.copy_new(x, t) if isinstance(x, View) else \
                Scalar(cast(self.scalar(x), t), t)
        if fn is F.METHOD_RESHAPE:
            x, shape = args[0], args[1] if isinstance(args[1], tuple) else tuple(args[1:])
            shape = _reshaped(x.size, tuple(int(self.static(d)) for d in shape))
            if not x.contiguous:
                raise InternalCompilerError("a reshape of a view that is not contiguous",
                                            self.loc)
            return x.with_layout(shape, c_strides(shape))
        if fn is F.ATTR_T:
            x = args[0]
            return x.with_layout(x.shape[::-1], x.strides[::-1])
        if fn in (F.METHOD_TRANSPOSE, F.TRANSPOSE):
            x = args[0]
            order = args[1] if len(args) > 1 else tuple(reversed(range(len(x.shape))))
            order = tuple(int(self.static(o)) for o in order)
            return x.with_layout(tuple(x.shape[o] for o in order),
                                 tuple(x.strides[o] for o in order))
        if fn is F.SWAPAXES:
            x, a, b = args
            order = list(range(len(x.shape)))
            order[a], order[b] = order[b], order[a]
            return x.with_layout(tuple(x.shape[o] for o in order),
                                 tuple(x.strides[o] for o in order))
        if fn is F.ATTR_STRIDES:
            x = args[0]
            return tuple(s * x.dtype.itemsize for s in x.strides)
        if fn is F.AS_STRIDED:
            x, shape, strides = args[0], args[1], args[2]
            item = x.dtype.itemsize
            return x.with_layout(tuple(int(self.static(d)) for d in shape),
                                 tuple(int(self.static(s)) // item for s in strides))
        if fn is F.BROADCAST_TO:
            x = args[0]
            shape = tuple(int(self.static(d)) for d in args[1])
            if not isinstance(x, View):
                out = self.allocate(shape, self.scalar(x).dtype)
                self.fill(out, x)
                return out
            return broadcast(x, shape, self.loc)
        if fn is F.METHOD_ITEM:
            x = args[0]
            return self.scalar(x) if isinstance(x, View) else x
        if fn in (F.PY_INT, F.PY_FLOAT):
            x = args[0]
            t = I64 if fn is F.PY_INT else F64
            if is_static(x):
                return int(x) if fn is F.PY_INT else float(x)
            return Scalar(cast(self.scalar(x), t), t)
        if fn in (F.PY_MIN, F.PY_MAX, F.MAXIMUM, F.MINIMUM):
            return self.extremes(fn, args)
        if fn in S.UNARY_FNS:
            return self.mapped(lambda x: S.unary(fn, x), args[0])
        if fn in S.BINARY_FNS:
            return self.mapped(lambda x, y: S.binary_fn(fn, x, y), args[0], args[1])
        if fn is F.CONCATENATE:
            parts = args[0]
            axis = int(self.static(args[1] if len(args) > 1 else kwargs.get("axis", 0)))
            axis %= len(parts[0].shape)
            shape = list(parts[0].shape)
            shape[axis] = sum(p.shape[axis] for p in parts)
            out = self.allocate(tuple(shape), parts[0].dtype)
            at = 0
            for p in parts:
                index = [K.Slice()] * len(shape)
                index[axis] = K.Slice(K.Lit(at), K.Lit(at + p.shape[axis]))
                self.fill(self.index(out, index), p)
                at += p.shape[axis]
            return out
        if fn in (F.GCD, F.LCM):
            a, b = (self.scalar(x) for x in args)
            return Scalar(f"msc_{fn.value}_i64({cast(a, I64)}, {cast(b, I64)})", I64)
        if fn is F.WHERE:
            return self.value(K.Select(*e.args))
        raise self.fail(f"numpy's {fn.value} on these operands")

# --- helpers ----------------------------------------------------------------------------


def _moving(v: K.Slice) -> bool:
    """Whether the slice is ``lo:lo + c`` (``c`` a number): its length is known when
    compiling, its start (a loop's offset) only when it runs."""
    return v.step is None and isinstance(v.hi, K.Binary) and v.hi.op is K.BinaryOp.ADD \
        and v.hi.a == v.lo and v.lo is not None and not isinstance(v.lo, K.Lit)


def _reshaped(size: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        shape = tuple(size // max(known, 1) if d == -1 else d for d in shape)
    return shape


def _products_only(s: K.Stmt, index: tuple[K.Expr, ...] = ()) -> bool:
    """A nest of plain loops (from 0, by 1) whose innermost body is products whose
    iterations are independent: each writes (beta 0) its own output, ``out[i, j]`` at
    the nest's indices, and reads no array any of them writes."""
    if not isinstance(s, K.Loop) or s.start is not None or s.step is not None or s.instead:
        return False
    index += (K.Name(s.var),)
    if len(s.body) == 1 and isinstance(s.body[0], K.Loop):
        return _products_only(s.body[0], index)
    products = [x.value for x in s.body if isinstance(x, K.Eval) and
                isinstance(x.value, K.Helper) and x.value.name == "_rt_matmul_into"]
    if not products or len(products) != len(s.body):
        return False
    outs = [p.args[2] for p in products]
    written = {o.array.name for o in outs
               if isinstance(o, K.Load) and isinstance(o.array, K.Name)}
    read = {n.name for p in products for e in p.args[:2] for n in K.nodes(e)
            if isinstance(n, K.Name)}
    return len(written) == len(outs) and not written & read and \
        all(o.index == index for o in outs) and \
        all(isinstance(p.args[3], K.Lit) and p.args[3].value == 0 for p in products)


def assigned_names(stmts: Sequence[K.Stmt]) -> dict[str, int]:
    """How many statements assign each name (tuple targets count for each name, and an
    accumulation into a name counts)."""
    counts: dict[str, int] = {}

    def targets(t: K.Expr) -> None:
        if isinstance(t, K.Name):
            counts[t.name] = counts.get(t.name, 0) + 1
        elif isinstance(t, K.Tuple):
            for x in t.items:
                targets(x)

    def walk(ss: Sequence[K.Stmt]) -> None:
        for s in ss:
            if isinstance(s, K.Assign):
                targets(s.target)
            elif isinstance(s, K.Accumulate) and isinstance(s.target, K.Name):
                targets(s.target)
            walk(K.stmt_children(s))
    walk(stmts)
    return counts


def render_function(body: Sequence[K.Stmt], env: dict[str, Any], results: Sequence[str],
                    preamble: Sequence[str] = ()) -> Function:
    """``body`` as C statements, then each of ``results`` copied into ``out[k]``.

    ``env`` gives the function's parameters (inputs, weights, constants) as values, which
    ``preamble`` declares (``T *const in0 = ...;``): a part declares those it reads."""
    counts = assigned_names(body)
    dynamic = {n for n, c in counts.items() if c > 1}
    reads = [{n.name for x in K.walk_stmts((s,)) for e in K.stmt_exprs(x) for n in K.nodes(e)
              if isinstance(n, K.Name)} | set(assigned_names((s,))) for s in body]
    types: dict[str, np.dtype] = {}
    outputs = []
    for _ in range(4):  # until every name's type is the unification of its assignments
        r = Renderer(env, types, dynamic, reads)
        r.body(body, top=True)
        r.top += 1
        outputs = []
        for k, name in enumerate(results):
            value = r.value(K.Name(name))
            if not isinstance(value, View):
                raise ExportError("the native target returns tensors only; the model "
                                  f"returns {value!r}")
            outputs.append((value.dtype, value.shape))
            out = View(f"o{k}", value.dtype, value.shape, c_strides(value.shape))
            r.decls[out.base] = f"{ctype(value.dtype)} *const {out.base} = " \
                                f"({ctype(value.dtype)} *)out[{k}];"
            r.fill(out, value)
        if r.types == types:
            break
        types = r.types
    else:
        raise InternalCompilerError("the native renderer's types did not settle")
    size = plan_slots(r.slots)
    decls = {}
    for name, decl in r.decls.items():
        if decl == "":
            decls[name] = f"{ctype(r.types[name])} {name} = 0;"
        elif isinstance(decl, int):
            t = ctype(r.slot_types[decl])
            decls[name] = f"{t} *const {name} = ({t} *)(ws + {r.slots[decl].offset});"
        else:
            decls[name] = decl
    given = {P.declared(d): d for d in preamble}
    parts = [P.part_function(p, given, decls, r.types) for p in r.parts]
    return Function(r.lines, list(decls.values()), outputs, size, parts)

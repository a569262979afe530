"""Outline a large kernel into small ones keyed by structure, called from plain Python.

Numba's compile time grows much faster than linearly with a function's size: ResNet-18's
entry as one function (about 1,600 lines of loop nests) took over two minutes to compile.
A real model repeats a few kernel shapes many times (each block's convolution, batch norm
and ReLU), so ``outline`` cuts a large entry into *kernels* — each loop nest with the
statements that feed it — and keeps the rest, allocations and views, as a Python *driver*
that calls them in order. Identical kernels are compiled once: a kernel is named after a
hash of its source with its variables renamed canonically (``a0``, ``a1``, ... for its
parameters, ``t0``, ... for its locals) and its sizes and float literals made arguments
(``c0``, ...; see ``_sizes``), so the alike batch-norm loops of every ResNet stage, at
56x56 or at 7x7, become one function. A literal lowering writes ``int(3)`` stays: a
pooling window's size and stride, which LLVM needs to unroll and vectorize its loops.
Each call from Python costs a few microseconds, nothing next to a loop nest over a
feature map; ``library.py`` puts the kernels in files that Numba compiles once per
machine.

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

import ast
import hashlib
import re
from dataclasses import replace

from msc.codegen.spec import KernelSpec
from msc.ir.types import TensorType, TupleType, Type

#: Entries with fewer body lines than this stay one Numba function: one call from Python is
#: cheaper than several, and small entries compile in a second or two. Not much larger: a
#: 2-layer BERT-base encoder's 305-line entry took 85-107 s as one function, and outlined
#: 12 s once its kernels were in the library (20 kernels, shared with the 4-layer one).
OUTLINE_LINES = 250

#: Calls whose tuple arguments are shapes (or strides): their elements become arguments.
_SHAPED = frozenset({"np.empty", "np.zeros", "np.full", "np.broadcast_to",
                     "np.lib.stride_tricks.as_strided"})

#: Calls whose result is an array that numpy and Numba make alike: the driver runs them
#: (a view is not worth a kernel of its own: each costs Numba a compile).
_DRIVER_CALLS = frozenset({"np.empty", "np.zeros", "np.ascontiguousarray", "np.broadcast_to",
                           "np.lib.stride_tricks.as_strided", "np.concatenate"})
_DRIVER_METHODS = frozenset({"reshape", "transpose"})


def worth_outlining(kernel: KernelSpec) -> bool:
    return len(kernel.lines) >= OUTLINE_LINES


def outline(kernel: KernelSpec, types: dict[str, Type],
            numpy_calls: dict[str, str] | None = None) -> tuple[KernelSpec, list[KernelSpec]]:
    """The plain-Python driver of ``kernel`` and the distinct kernels it calls. ``types``:
    the IR type of each value the kernel names (temporaries of lowering are absent);
    ``numpy_calls``: the numpy call the driver makes instead of a loop, by the loop's
    first line (``FusedLoops.numpy_call``)."""
    body = ast.parse("\n".join(kernel.lines)).body
    lines = list(kernel.lines)
    text = [_source(lines, s) for s in body]
    walked = [_nodes(s) for s in body]  # (one walk per statement: outlining is hot)
    names = [[n for n in nodes if isinstance(n, ast.Name)] for nodes, _ in walked]
    stores = [{n.id for n in ns if isinstance(n.ctx, ast.Store)} for ns in names]
    last_read = dict.fromkeys(_names_in(kernel.returns), len(body))  # by the statement i
    for i, ns in enumerate(names):
        last_read.update((n.id, max(i, last_read.get(n.id, i))) for n in ns
                         if isinstance(n.ctx, ast.Load))
    driver: list[str] = []
    kernels: dict[str, KernelSpec] = {}
    bound = set(kernel.params)
    segment: list[int] = []

    def close(i: int) -> bool:
        """Ends the segment (statements ``segment``, the last at ``i``) as a kernel call,
        when every value it hands on is an array (or it is the last)."""
        stored = set().union(*(stores[j] for j in segment))
        out = sorted((n for n in stored if last_read.get(n, -1) > i),
                     key=lambda n: _first([names[j] for j in segment], n))
        if i < len(body) - 1 and not all(_is_array(types.get(n)) for n in out):
            return False
        spec, call = _kernel([walked[j] for j in segment], body[segment[0]].lineno,
                             [text[j] for j in segment], bound, out)
        kernels.setdefault(spec.name, spec)
        driver.append(call)
        bound.update(out)
        segment.clear()
        return True

    calls = numpy_calls or {}

    def numpy_call(stmt: ast.stmt) -> str | None:
        return calls.get(lines[stmt.lineno - 1]) if isinstance(stmt, ast.For) else None

    def driven(stmt: ast.stmt) -> bool:
        return _driver_statement(stmt) or _tuple_item(stmt, types) or \
            numpy_call(stmt) is not None

    for i, stmt in enumerate(body):
        if driven(stmt) and not segment:
            call = numpy_call(stmt)
            driver += call.split("\n") if call is not None else \
                _with_numpy_products(stmt, text[i])
            bound |= stores[i] if call is None else set()
            continue
        if _driver_loop(stmt) and not segment:
            driver += _python_loop(stmt)
            continue
        segment.append(i)
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)) or \
                (i + 1 < len(body) and (driven(body[i + 1]) or _driver_loop(body[i + 1]))):
            close(i)
    if segment:
        close(len(body) - 1)
    return replace(kernel, lines=tuple(driver), jit=False), list(kernels.values())


def _driver_loop(stmt: ast.stmt) -> bool:
    """A loop (over examples, over a batch's matrices) whose body is only products of
    views into views (or such loops): the driver runs it."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        return _called(call) == "_rt_matmul_into" and len(call.args) == 4 and \
            all(_plain(a) for a in call.args[:3]) and isinstance(call.args[3], ast.Constant) \
            and call.args[3].value == 0
    return isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and \
        not stmt.orelse and isinstance(stmt.iter, ast.Call) and \
        _called(stmt.iter) == "range" and all(_plain(a) for a in stmt.iter.args) and \
        all(_driver_loop(s) for s in stmt.body)


def _python_loop(stmt: ast.stmt, depth: int = 0) -> list[str]:
    """The driver's lines of ``_driver_loop`` ``stmt``: each product is numpy's
    (``np.matmul(a, b, out=c)``, the same BLAS), so no kernel links BLAS for a
    convolution's products (0.5-1 s of Numba each). A loop of one product over the first
    axes of its operands is one call over their first ``n`` entries (``_stacked``)."""
    pad = "    " * depth
    if isinstance(stmt, ast.For):
        stacked = _stacked(stmt)
        if stacked is not None:
            return [pad + stacked]
        header = f"{pad}for {ast.unparse(stmt.target)} in {ast.unparse(stmt.iter)}:"
        return [header, *(line for s in stmt.body for line in _python_loop(s, depth + 1))]
    a, b, out = (ast.unparse(x) for x in stmt.value.args[:3])  # type: ignore[attr-defined]
    return [f"{pad}np.matmul({a}, {b}, out={out})"]


def _stacked(loop: ast.For) -> str | None:
    """``for i in range(n): product(a, b[i], out=c[i])`` as numpy's product of stacks,
    ``np.matmul(a, b[:n], out=c[:n])`` (numpy calls the same gemm for each matrix, in C):
    each operand either the loop's index alone picks from (``x[i]``) or free of it, one
    of them at least, and the output picked. A filter gradient's loop over 512 input
    channels was 512 calls."""
    (call, *rest), index = loop.body, loop.target.id  # type: ignore[attr-defined]
    bounds = loop.iter.args  # type: ignore[attr-defined]
    if rest or not isinstance(call, ast.Expr) or len(bounds) != 1:
        return None
    count, operands, picked = ast.unparse(bounds[0]), [], []
    for e in call.value.args[:3]:  # type: ignore[attr-defined]
        picked.append(isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and
                      isinstance(e.slice, ast.Name) and e.slice.id == index)
        if not picked[-1] and index in {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}:
            return None
        operands.append(f"{e.value.id}[:{count}]" if picked[-1] else ast.unparse(e))  # type: ignore
    if not (picked[2] and (picked[0] or picked[1])):
        return None
    a, b, out = operands
    return f"np.matmul({a}, {b}, out={out})"


def _plain(e: ast.expr | None) -> bool:
    """An expression the driver evaluates as Numba would: names, numbers, indexing and
    slicing, arithmetic, attributes (``a.T``) and casts; no other call."""
    if e is None or isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, ast.Attribute):
        return _plain(e.value)
    if isinstance(e, ast.Subscript):
        return _plain(e.value) and _plain(e.slice)
    if isinstance(e, ast.Slice):
        return _plain(e.lower) and _plain(e.upper) and _plain(e.step)
    if isinstance(e, ast.Tuple):
        return all(_plain(x) for x in e.elts)
    if isinstance(e, ast.BinOp):
        return _plain(e.left) and _plain(e.right)
    if isinstance(e, ast.UnaryOp):
        return _plain(e.operand)
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
        e.func.attr == "astype" and not e.keywords and _plain(e.func.value) and \
        all(_plain(a) for a in e.args)


def _kernel(walked: list[tuple[list[ast.AST], dict[int, ast.AST]]], first: int,
            texts: list[str], bound: set[str], out: list[str]) -> tuple[KernelSpec, str]:
    """The kernel of one segment (statements ``texts``, the first at line ``first`` of the
    entry, whose nodes and parents are ``walked``; named after its canonical source) and
    the driver's call. Its sizes (loop bounds, shapes, index arithmetic: see ``_sizes``)
    become parameters too, so the same loops over other shapes are the same kernel. Its
    name ignores the user's line comments: the same loops from another line, file or model
    are the same kernel."""
    nodes = [n for ns, _ in walked for n in ns]
    parents = {k: v for _, ps in walked for k, v in ps.items()}
    every = [n for n in nodes if isinstance(n, ast.Name)]
    loads = {n.id for n in every if isinstance(n.ctx, ast.Load)}
    stored = {n.id for n in every if isinstance(n.ctx, ast.Store)}
    order = list(dict.fromkeys(n.id for n in sorted(every, key=lambda n: (n.lineno,
                                                                           n.col_offset))))
    params = [n for n in order if n in loads and n in bound]
    local = [n for n in order if n in stored and n not in params]
    rename = {n: f"a{k}" for k, n in enumerate(params)} | \
        {n: f"t{k}" for k, n in enumerate(local)}
    text = "\n".join(texts)
    sizes = _sizes(nodes, parents)
    # NOTE: one parameter per literal, even where two are equal: sharing one would make
    # which sizes coincide part of the kernel (H == W, batch == channels), and the same
    # loops over other shapes another kernel to compile.
    values = [c.value for c in sizes]
    edits = [(n.lineno, n.col_offset, n.end_col_offset, rename[n.id]) for n in nodes
             if isinstance(n, ast.Name) and n.id in rename] + \
        [(c.lineno, c.col_offset, c.end_col_offset, f"c{k}") for k, c in enumerate(sizes)] + \
        _objmode_edits(nodes, rename)
    lines = tuple(_edited(text, edits, first).splitlines())
    returns = ", ".join(rename[n] for n in out) + ("," if len(out) == 1 else "")
    name = _kernel_name(lines, returns)
    spec = KernelSpec(name, tuple(rename[n] for n in params) +
                      tuple(f"c{k}" for k in range(len(values))), lines, f"({returns})")
    call = f"{name}({', '.join([*params, *(repr(v) for v in values)])})"
    if len(out) == 1:
        call = f"{out[0]}, = {call}"
    elif out:
        call = f"{', '.join(out)} = {call}"
    return spec, call + _comment(texts[0])


def _kernel_name(lines: tuple[str, ...], returns: str) -> str:
    """A kernel's name: a hash of its canonical source, without the user's lines."""
    canonical = without_locations("\n".join([*lines, f"return ({returns})"]))
    return "_k_" + hashlib.sha256(canonical.encode()).hexdigest()[:16]


#: The comment lowering puts at the end of a statement's line: the user's file and line.
_LOCATION = re.compile(r"  # [^\n]*:\d+$", re.MULTILINE)


def without_locations(source: str) -> str:
    """``source`` without the user's line comments: what identifies a kernel."""
    return _LOCATION.sub("", source)


def _nodes(tree: ast.AST) -> tuple[list[ast.AST], dict[int, ast.AST]]:
    """Every node of ``tree`` (in ``ast.walk``'s order) and each one's parent, by id."""
    nodes: list[ast.AST] = [tree]
    parents: dict[int, ast.AST] = {}
    for node in nodes:  # (the list grows while it is read: a breadth-first walk)
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            nodes.append(child)
    return nodes, parents


def _sizes(nodes: list[ast.AST], parents: dict[int, ast.AST]) -> list[ast.Constant]:
    """The literals among ``nodes`` that become arguments. Integers that are sizes: loop
    bounds, elements of a shape or strides (``np.empty``, ``reshape``, ``as_strided``:
    ``_SHAPED``), operands of index arithmetic, of augmented assignments (a layer norm's
    ``/= 768``) and of comparisons, slice bounds and indices
    among others; not 0 and 1, a lone index (``t[2]`` may pick from a tuple, which needs a
    literal) or any other argument (an axis, a dtype's value, a kept ``int(3)``). Floats
    other than 0.0 and 1.0, wherever they are (``1 / n`` of a mean, an epsilon). Numba
    types an int literal and an int argument alike (int64), and a float literal and a
    float argument (float64)."""
    found = []
    for c in nodes:
        if isinstance(c, ast.Constant) and type(c.value) is float and c.value == c.value \
                and c.value not in (0.0, 1.0):
            found.append(c)
            continue
        if not (isinstance(c, ast.Constant) and type(c.value) is int):
            continue
        parent = parents.get(id(c))
        if isinstance(parent, ast.UnaryOp):
            parent = parents.get(id(parent))
        owner = parents.get(id(parent)) if isinstance(parent, ast.Tuple) else parent
        if isinstance(parent, ast.Tuple):
            if isinstance(owner, ast.keyword):
                owner = parents.get(id(owner))
            sized = isinstance(owner, ast.Subscript) or (
                isinstance(owner, ast.Call) and owner.func is not parent and
                (_called(owner) in _SHAPED or isinstance(owner.func, ast.Attribute) and
                 owner.func.attr == "reshape"))
        else:
            sized = isinstance(parent, (ast.BinOp, ast.AugAssign, ast.Compare, ast.Slice)) or (
                isinstance(parent, ast.Call) and c in parent.args and
                _called(parent) in ("range", "min", "max"))
        if sized and c.value > 1:
            found.append(c)
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))


def _called(call: ast.Call) -> str:
    """The dotted name a call calls (``np.lib.stride_tricks.as_strided``), or ""."""
    parts, f = [], call.func
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    return ".".join([f.id, *reversed(parts)]) if isinstance(f, ast.Name) else ""


def _objmode_edits(nodes: list[ast.AST], names: dict[str, str]) -> list[tuple[int, int, int, str]]:
    """``with objmode(flat='float32[::1]')`` names a variable as a keyword."""
    return [(k.lineno, k.col_offset, k.col_offset + len(k.arg), names[k.arg])
            for call in nodes if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name) and call.func.id == "objmode"
            for k in call.keywords if k.arg in names]


def _edited(text: str, edits: list[tuple[int, int, int, str]], first: int = 1) -> str:
    """``text`` (whose first line is line ``first`` of the edits) with each (line, start,
    end) span replaced, comments (the user's lines) kept."""
    lines = text.split("\n")
    for line, start, end, new in sorted(edits, reverse=True):
        lines[line - first] = lines[line - first][:start] + new + lines[line - first][end:]
    return "\n".join(lines)


# --- reading statements -------------------------------------------------------------------


def _source(lines: list[str], stmt: ast.stmt) -> str:
    return "\n".join(lines[stmt.lineno - 1:stmt.end_lineno])


def _comment(text: str) -> str:
    """The location comment of a statement's first line (``  # model.py:12``), if any."""
    first = text.split("\n", 1)[0]
    at = first.rfind("  # ")
    return first[at:] if at >= 0 and first[at + 4:].rstrip()[-1:].isdigit() else ""


def _names_in(expr: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}


def _first(names: list[list[ast.Name]], name: str) -> tuple[int, int]:
    """Where ``name`` first appears among the statements whose names are ``names``."""
    for ns in names:
        for n in ns:
            if n.id == name:
                return (n.lineno, n.col_offset)
    return (0, 0)


def _driver_statement(stmt: ast.stmt) -> bool:
    """``name = <allocation or view>``, ``name[...] = name`` or ``name[slices] = name``
    (a copy), ``name[slices] = -np.inf`` (a fill), ``name[slices] += name`` (a
    transposed convolution's tap): what numpy does as Numba would."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.op, ast.Add) and _sliced(stmt.target) and \
            isinstance(stmt.value, ast.Name)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Subscript):
        whole = isinstance(target.value, ast.Name) and \
            isinstance(target.slice, ast.Constant) and target.slice.value is Ellipsis
        return (whole or _sliced(target)) and \
            (isinstance(stmt.value, ast.Name) or _number(stmt.value))
    return isinstance(target, ast.Name) and (_structural(stmt.value) or _product(stmt.value))


#: The numba runtime's matrix products, which the driver computes with numpy's (the same
#: BLAS): a kernel of a product alone cost Numba 0.3-0.5 s to compile, the BLAS helpers
#: inlined into each one.
_PRODUCTS = frozenset({"_rt_matmul", "_rt_matmul_bias"})


def _product(e: ast.expr) -> bool:
    """A matrix product of views, reshaped or plus an array (a bias; not a number, which
    Numba and numpy would type apart)."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _product(e.left) and isinstance(e.right, ast.Name)
    if isinstance(e, ast.Call) and not e.keywords:
        f = e.func
        if isinstance(f, ast.Attribute) and f.attr == "reshape":
            return _product(f.value) and all(_structural(a) for a in e.args)
        return _called(e) in _PRODUCTS and all(_view(a) for a in e.args)
    return False


def _view(e: ast.expr) -> bool:
    """A name, a view of one, or its transpose (``w.T``)."""
    if isinstance(e, ast.Attribute) and e.attr == "T":
        return _view(e.value)
    return _structural(e)


def _with_numpy_products(stmt: ast.stmt, text: str) -> list[str]:
    """The lines of ``text``, the source of driver statement ``stmt``, with the numba
    runtime's products made numpy's: ``np.matmul(a, b)``; a product with a bias is
    computed into the statement's target first and the bias added in place, as the
    kernel did."""
    if not (isinstance(stmt, ast.Assign) and _product(stmt.value)):
        return [text]
    target = stmt.targets[0].id  # type: ignore[attr-defined]
    lines: list[str] = []

    class Numpy(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.expr:
            self.generic_visit(node)
            name = _called(node)
            if name not in _PRODUCTS:
                return node
            product = ast.Call(ast.parse("np.matmul", mode="eval").body, node.args[:2], [])
            if name == "_rt_matmul":
                return product
            lines.append(f"{target} = {ast.unparse(product)}")
            lines.append(f"{target} += {ast.unparse(node.args[2])}")
            return ast.Name(target, ast.Load())

    value = Numpy().visit(stmt.value)
    if not (isinstance(value, ast.Name) and value.id == target):
        lines.append(f"{target} = {ast.unparse(value)}")
    found = _LOCATION.search(text)
    return [*lines[:-1], lines[-1] + (found.group(0) if found else "")]


def _number(e: ast.expr) -> bool:
    """A number literal, ``np.inf`` or their negation."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e = e.operand
    return (isinstance(e, ast.Constant) and type(e.value) in (int, float)) or \
        (isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and
         e.value.id == "np" and e.attr == "inf")


def _sliced(e: ast.expr) -> bool:
    """A view of a name by slices alone."""
    return isinstance(e, ast.Subscript) and _structural(e) and all(
        isinstance(b, ast.Slice)
        for b in (e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]))


def _structural(e: ast.expr) -> bool:
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, ast.Tuple):
        return all(_structural(x) for x in e.elts)
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute):  # x.strides[1]
        return isinstance(e.value.value, ast.Name) and e.value.attr == "strides" and \
            isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, int)
    if isinstance(e, ast.Subscript):  # basic slicing: a view (x[()] is an element)
        bounds = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        slices = [b for b in bounds if isinstance(b, ast.Slice)]
        return isinstance(e.value, ast.Name) and bool(slices) and all(
            all(_index(x) for x in (b.lower, b.upper, b.step)) for b in slices) and all(
            isinstance(b, ast.Constant) and type(b.value) is int
            for b in bounds if not isinstance(b, ast.Slice))
    if isinstance(e, ast.Call) and not e.keywords:
        f = e.func
        if isinstance(f, ast.Attribute) and f.attr in _DRIVER_METHODS:
            return _structural(f.value) and all(_structural(a) for a in e.args)
        if _called(e) in _DRIVER_CALLS:
            return all(_structural(a) or _dtype(a) for a in e.args)
    return False


def _index(e: ast.expr | None) -> bool:
    """A slice bound the arena views use: ints, offsets read by index, sums of them."""
    if e is None or (isinstance(e, ast.Constant) and isinstance(e.value, int)):
        return True
    if isinstance(e, ast.Subscript):
        return isinstance(e.value, ast.Name) and _index(e.slice)  # type: ignore[arg-type]
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _index(e.left) and _index(e.right)
    return False


def _dtype(e: ast.expr) -> bool:
    return isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and \
        e.value.id == "np"


def _tuple_item(stmt: ast.stmt, types: dict[str, Type]) -> bool:
    """``name = items[k]``, an array item of a tuple: the same object in Python as in
    Numba (a kernel of nothing but tuple indexing cost Numba a compile)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Subscript)):
        return False
    items, at = stmt.value.value, stmt.value.slice
    return isinstance(items, ast.Name) and isinstance(types.get(items.id), TupleType) and \
        isinstance(at, ast.Constant) and type(at.value) is int and \
        _is_array(types.get(stmt.targets[0].id))


def _is_array(t: Type | None) -> bool:
    if isinstance(t, TensorType):
        return t.ndim >= 1
    if isinstance(t, TupleType):
        return all(_is_array(e) for e in t.elems)
    return False

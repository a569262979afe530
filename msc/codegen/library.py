"""The kernel library: outlined kernels (``outline.py``) and the numba runtime helpers they
call, each in a file of its own, so that Numba compiles each one once per machine.

Numba's on-disk cache belongs to a source file: it sits beside the file and holds while
the file is unchanged. A kernel written into the generated module would be compiled again
for every model and every process that generates a module. Written into a file named
after a hash of its source, in a folder every process shares (``compiler.library_path``), it is
compiled by the first model that needs it and loaded by every later one: the ResNet block
a second model repeats, the same model in the next process, ResNet-50 after ResNet-18 where
their loops agree. The helpers (``msc/runtime/numba_rt.py``) are one more such file, so the
matrix product every convolution calls compiles once too.

A generated module carries the source of each library file it uses and writes the file
when it is missing (``_rt_library`` in the numba template), so it runs wherever it is
imported; an artifact keeps its files in its own ``kernels/`` folder and needs no msc.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import hashlib
import itertools
import json
import math
import os
import pickle
import shutil
from pathlib import Path
from typing import Any, Sequence

from msc.codegen.linemap import filled
from msc.codegen.pyrender import render_stmts
from msc.codegen.render import SHARED_RUNTIME, runtime_snippets, with_companions
from msc.codegen.spec import DRIVER_FORMS, KernelSpec, ModuleSpec
from msc.codegen.targets import NUMBA
from msc.ir import kernel as K
from msc.ir.kernel import (
    Assign,
    Binary,
    BinaryOp,
    Call,
    DTypeRef,
    Eval,
    Expr,
    Fn,
    Helper,
    Invoke,
    Lit,
    Load,
    Loop,
    Name,
    ObjMode,
    Raw,
    Slice,
    Spelling,
    Tuple,
)

#: What a library kernel may read besides its parameters and locals.
_GLOBALS = frozenset({"np", "math", "objmode"}) | frozenset(dir(builtins))

_HEADER = '''"""{what} of msc's kernel library (written by a generated module; do not edit: Numba's
cache beside this file holds while the file is unchanged)."""

import math
import sys

import numpy as np
from numba import njit, objmode  # noqa: F401
'''

_JIT = '''

def _rt_jit(fn):
    """Compile ``fn`` with Numba's on-disk cache, named after the matmul flavour, so a
    cache built where numpy's BLAS was found never serves a machine without it; without
    the GIL (threads run its parts at once) unless it runs Python (``objmode``)."""
    fn.__qualname__ += "__blas" if _HAVE_BLAS else "__loops"
    nogil = "objmode" not in fn.__code__.co_names
    return njit(cache=True, error_model="numpy", nogil=nogil)(fn)
'''


@functools.cache
def runtime_file() -> tuple[str, str]:
    """(stem, source) of the helpers' file: every statement of numba_rt.py (and of
    its companions), of the runtime files every target shares (the collectives),
    and ``_rt_jit``."""
    snippets = [*with_companions(NUMBA.runtime),
                *(s for f in SHARED_RUNTIME for s in runtime_snippets(f))]
    body = "\n\n\n".join(s.source for s in snippets)
    source = _HEADER.format(what="The runtime helpers") + "\n\n" + body + "\n" + _JIT
    return "_msc_rt_" + _digest(source), source


def in_library(kernel: KernelSpec) -> bool:
    """Whether ``kernel`` (an outlined one: ``kernel.body`` its statements) reads nothing
    of its module (no other graph's kernel, no constant): only numpy, math, builtins and
    the runtime helpers. A statement still written as text (``Raw``) keeps it out, and so
    does a string holding a location comment's marker, on which the file's name would not
    agree with the check a module makes (``without_locations``)."""
    if not kernel.body:
        return False
    local = set(kernel.params)
    read: set[str] = set()
    for stmt in K.walk_stmts(kernel.body):
        if isinstance(stmt, Raw):
            return False
        if isinstance(stmt, Loop):
            local.add(stmt.var)
        elif isinstance(stmt, ObjMode):
            local |= {n for n, _ in stmt.types}
        elif isinstance(stmt, Assign):
            local |= {n.name for n in K.nodes(stmt.target) if isinstance(n, Name)}
        for e in K.stmt_exprs(stmt):
            for n in K.nodes(e):
                if isinstance(n, Name):
                    read.add(n.name)
                elif isinstance(n, Invoke):  # another generated function
                    return False
                elif isinstance(n, Lit) and isinstance(n.value, str) and _MARK in n.value:
                    return False
    read = {n for n in read if n.isidentifier()}  # (not ``...``)
    return all(n in local or n in _GLOBALS or n.startswith("_rt_") for n in read)


#: What starts the comment lowering puts at the end of a statement's line, the user's
#: file and line (``pyrender``): ``  # model.py:12``.
_MARK = "  # "


def without_locations(source: str) -> str:
    """A library file's ``source`` without the user's line comments, as the generated
    module reads a file on disk to check it (``_rt_sound`` in the numba template): from a
    line's first ``  # `` on, where the line ends in ``:`` and digits. ``kernel_file``
    names a kernel from its statements rendered without them; this reads a file back."""
    lines = source.split("\n")
    for k, line in enumerate(lines):
        at = line.find(_MARK)
        _, colon, number = line[at + len(_MARK):].rpartition(":")
        if at >= 0 and colon and number.isdecimal():
            lines[k] = line[:at]
    return "\n".join(lines)


def kernel_file(kernel: KernelSpec) -> tuple[str, str]:
    """(stem, source) of ``kernel``'s file, which takes its helpers from the runtime file.
    Named without the user's lines (its statements rendered without them): a model whose
    kernel is already in the library from another file or line uses that file (which
    keeps the comments it was written with; each module has its own copy in _LIBRARY,
    read for Numba's errors: see linemap.py)."""
    def source(lines: Sequence[str]) -> str:
        body = "".join(f"    {line}\n" for line in lines)
        return f"{_kernel_head(kernel)}{body}    return {kernel.returns}\n"

    unlocated = render_stmts(kernel.body, locations=False)
    return "_msc_k_" + _digest(source(unlocated)), source(kernel.lines)


def _kernel_head(kernel: KernelSpec) -> str:
    """A kernel file's source up to its body: the header, the helpers it takes from the
    runtime file, and the ``def`` line."""
    runtime, _ = runtime_file()
    helpers = sorted(kernel.helpers | {"_rt_jit"})
    return (_HEADER.format(what=f"Kernel {kernel.name}") +
            f"\n_rt = sys.modules[{runtime!r}]  # imported first by the module\n" +
            "".join(f"{h} = _rt.{h}\n" for h in helpers) +
            f"\n\n@_rt_jit\ndef {kernel.name}({', '.join(kernel.params)}):\n")


def kernel_lines(kernel: KernelSpec) -> tuple[tuple[int, str, int], ...]:
    """(line, user file name, user line) of the lines of ``kernel``'s file
    (``kernel_file``) that have a user line (``linemap.py``)."""
    first = _kernel_head(kernel).count("\n") + 1
    return tuple((n, name, line) for n, (name, line) in
                 sorted(filled(first, kernel.locations).items()))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def intact(stem: str, source: str) -> bool:
    """Whether ``source`` is the library file its name ``stem`` promises (``kernel_file``,
    ``runtime_file``): it hashes to the name. A generated module checks each library file
    it imports the same way (``_rt_sound`` in the numba template) and writes a damaged one
    again from its own copy."""
    if stem.startswith("_msc_k_"):
        return stem == "_msc_k_" + _digest(without_locations(source))
    return stem.startswith("_msc_rt_") and stem == "_msc_rt_" + _digest(source)


def _intact_file(path: Path) -> bool:
    try:
        return intact(path.stem, path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return False


def share(source: Path, target: Path, stems: list[str]) -> None:
    """Copy the library files ``stems`` and their Numba cache from folder ``source`` to
    ``target`` where ``target`` lacks them (with their times: Numba's index checks them).
    Seeds an artifact's ``kernels/`` from the library before its compile, and back; a
    damaged file is not passed on (the generated module writes it from its copy)."""
    for stem in stems:
        src = source / f"{stem}.py"
        if not src.is_file() or (target / f"{stem}.py").exists() or not _intact_file(src):
            continue
        (target / "__pycache__").mkdir(parents=True, exist_ok=True)
        for cached in sorted((source / "__pycache__").glob(f"{stem}.*")):
            shutil.copy2(cached, target / "__pycache__" / cached.name)
        tmp = target / f".{stem}.{os.getpid()}.tmp"
        shutil.copy2(src, tmp)
        os.replace(tmp, target / f"{stem}.py")


def learn(source: Path, target: Path, stems: list[str]) -> None:
    """Add to ``target``'s Numba cache the signatures ``source`` compiled for the library
    files ``stems`` that ``target`` lacks: an artifact's compile that needed a kernel for
    new argument types (float32 where another model compiled float64) teaches the library,
    which ``share`` alone never updates once it has the file. Entries are merged as Numba
    adds one (a free data file name, the data written before the index that names it);
    an index of another Numba version or of another source stamp is left alone."""
    theirs = target / "__pycache__"
    for stem in stems:
        for index in (source / "__pycache__").glob(f"{stem}.*.nbi"):
            mine, into = _index(index), _index(theirs / index.name)
            if mine is None or into is None or mine[:2] != into[:2]:
                continue
            version, stamp, wanted = mine
            overloads, copies = dict(into[2]), []
            for key, name in wanted.items():
                if key in overloads:
                    continue
                base = name.rsplit(".", 2)[0]  # data files are <base>.<n>.nbc
                free = next(f"{base}.{n}.nbc" for n in itertools.count(1)
                            if f"{base}.{n}.nbc" not in overloads.values()
                            and not (theirs / f"{base}.{n}.nbc").exists())
                overloads[key] = free
                copies.append((index.parent / name, theirs / free))
            if not copies:
                continue
            try:
                text = pickle.dumps(version, -1) + pickle.dumps((stamp, overloads), -1)
            except (pickle.PicklingError, TypeError, AttributeError):
                continue
            for data, into_file in copies:
                _replace(into_file, data.read_bytes())
            _replace(theirs / index.name, text)


def _index(path: Path) -> tuple[Any, Any, dict[Any, str]] | None:
    """(Numba version, source stamp, {signature key: data file name}) of a Numba cache
    index file, None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            version = pickle.load(f)
            stamp, overloads = pickle.loads(f.read())
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
        return None
    return version, stamp, overloads


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)

# --- the signatures a driver will call its kernels with ------------------------------------

#: An argument as Numba will type it: an array's (dtype, ndim, read-only), C-contiguous,
#: or ("int64",) or ("float64",) for a lifted literal.
Arg = tuple


def signatures(driver: KernelSpec, arrays: dict[str, Arg]
               ) -> tuple[list[tuple[str, tuple[Arg, ...]]], bool]:
    """(kernel name, argument types) of each distinct call the driver makes that can be
    foreseen: every argument an array the driver or its caller made (``arrays``: the
    driver's parameters), a view of one whose strides it can follow, or a size; and
    whether every call could. Read off the driver's kernel IR (``driver.body``). Workers
    compile these while the first run goes on (``numba_worker.py``); a call foreseen
    wrongly costs only a compile nobody uses."""
    known = dict(arrays)
    geometry: dict[str, Geometry] = {}  # (shape, strides in elements) where followed
    found: dict[tuple[str, tuple[Arg, ...]], None] = {}
    every = True
    for stmt in driver.body:
        value = stmt.value if isinstance(stmt, (Assign, Eval)) else None
        if isinstance(value, Helper) and value.name == "_rt_threaded":  # (threads.py)
            value = Invoke(value.args[0].name, (*value.args[2:], Lit(0), Lit(1)))  # type: ignore
        if isinstance(value, Invoke) and value.name.startswith("_k_"):
            args = [_argument(a, known) for a in value.args]
            every &= all(args)
            if all(args):
                found[(value.name, tuple(args))] = None  # type: ignore[arg-type]
        elif isinstance(stmt, Assign) and isinstance(value, Helper) and \
                value.name in DRIVER_FORMS.values():  # (whether it finished: a bool)
            known[stmt.target.name] = ("boolean",)  # type: ignore[union-attr]
        elif isinstance(stmt, Assign) and isinstance(stmt.target, Name):
            name = stmt.target.name
            whole = stmt.value
            items = whole.items if isinstance(whole, Tuple) else (whole,)
            for k, e in enumerate(items):  # a tuple's items are known as name[k]
                held = f"{name}[{k}]" if isinstance(whole, Tuple) else name
                if isinstance(e, Load) and isinstance(e.array, Name) and \
                        len(e.index) == 1 and _constant(e.index[0]):  # an item of such a tuple
                    e = Name(f"{e.array.name}[{e.index[0].value}]")  # type: ignore[attr-defined]
                _learn(held, e, known, geometry)
            copy = _strided_copy(whole, known)
            if copy is not None:  # what np.ascontiguousarray makes of the view
                known[f"view:{name}"] = copy
    return list(found), every


def _learn(name: str, e: Expr, known: dict[str, Arg],
           geometry: dict[str, Geometry]) -> None:
    """What the driver's ``name = e`` makes: an array, a view, or another name's."""
    if isinstance(e, Name) and e.name in known:
        known[name] = known[e.name]
        if e.name in geometry:
            geometry[name] = geometry[e.name]
        return
    made = _array(e, known)
    view = None if made is not None else _view(e, known, geometry)
    if made is not None:
        known[name] = made
        shape = _made_shape(e)
        if shape is not None:
            geometry[name] = (shape, _c_strides(shape))
    elif view is not None:
        known[name], geometry[name] = view


#: An array's shape and strides, in elements.
Geometry = tuple[tuple[int, ...], tuple[int, ...]]


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(math.prod(shape[d + 1:]) for d in range(len(shape)))


def _constant(e: Expr) -> bool:
    """A literal the module holds as a constant: untyped and not negative (``-1`` is a
    negation of one, ``float('inf')`` a call)."""
    if not isinstance(e, Lit) or e.dtype is not None:
        return False
    v = e.value
    return not isinstance(v, (int, float)) or isinstance(v, bool) or \
        (math.isfinite(v) and math.copysign(1, v) > 0)


def _int(e: Expr | None, default: int) -> int | None:
    """An int literal's value (``default`` for a bound left out), None for any other."""
    if e is None:
        return default
    return e.value if _constant(e) and type(e.value) is int else None  # type: ignore[attr-defined]


def _made_shape(e: Expr) -> tuple[int, ...] | None:
    """The literal shape of an allocation or a reshape (a C-contiguous array)."""
    if not isinstance(e, Call):
        return None
    at = 1 if e.fn is Fn.METHOD_RESHAPE else 0 if e.fn in (Fn.EMPTY, Fn.ZEROS) else None
    if at is None or len(e.args) <= at or not isinstance(e.args[at], Tuple):
        return None
    dims = e.args[at].items  # type: ignore[attr-defined]
    if all(_int(n, 0) is not None for n in dims):
        return tuple(n.value for n in dims)
    return None


def _view(e: Expr, known: dict[str, Arg], geometry: dict[str, Geometry]
          ) -> tuple[Arg, Geometry] | None:
    """A view the driver makes of an array whose geometry it follows (slices with literal
    bounds, ``as_strided`` over the array's own strides), with the type Numba gives it:
    the layout ("C", "F" or "A") numpy's flags say, read-only where the array is."""
    if isinstance(e, Load) and isinstance(e.array, Name):
        base = e.array.name
        if base not in geometry or len(e.index) > len(geometry[base][0]) or \
                not all(isinstance(b, Slice) for b in e.index):
            return None
        bounds = e.index + (Slice(),) * (len(geometry[base][0]) - len(e.index))
        shape, strides = [], []
        for b, size, stride in zip(bounds, *geometry[base]):
            lo, hi, step = (_int(x, default) for x, default in
                            ((b.lo, 0), (b.hi, size), (b.step, 1)))  # type: ignore
            if None in (lo, hi, step) or not 0 <= lo <= hi <= size or step < 1:
                return None
            shape.append(len(range(lo, hi, step)))
            strides.append(stride * step)
    elif isinstance(e, Call) and e.fn is Fn.AS_STRIDED and len(e.args) == 3 and \
            isinstance(e.args[0], Name) and all(isinstance(x, Tuple) for x in e.args[1:]):
        base = e.args[0].name
        if base not in geometry:
            return None
        held, shape, strides = geometry[base][1], [], []
        for n, s in zip(e.args[1].items, e.args[2].items):  # type: ignore[attr-defined]
            at = _stride_of(s, base)
            if not (_constant(n) and at is not None and at < len(held)):
                return None
            shape.append(n.value)  # type: ignore[attr-defined]
            strides.append(held[at])
    else:
        return None
    kind = known.get(base)
    if kind is None or len(kind) < 3:
        return None
    dims = list(zip(shape, strides))
    layout = "C" if _contiguous(dims[::-1]) else "F" if _contiguous(dims) else "A"
    arg = (kind[0], len(shape), kind[2]) + ((layout,) if layout != "C" else ())
    return arg, (tuple(shape), tuple(strides))


def _stride_of(e: Expr, base: str) -> Any:
    """k of ``base.strides[k]``, else None."""
    if isinstance(e, Load) and isinstance(e.array, Call) and e.array.fn is Fn.ATTR_STRIDES \
            and e.array.args == (Name(base),) and len(e.index) == 1 and _constant(e.index[0]):
        return e.index[0].value  # type: ignore[attr-defined]
    return None


def _strided_copy(e: Expr, known: dict[str, Arg]) -> Arg | None:
    """The type of the C-contiguous copy ``np.ascontiguousarray`` makes of an
    ``as_strided`` view of a writable C-contiguous array (a transpose the driver made)."""
    if not (isinstance(e, Call) and e.fn is Fn.AS_STRIDED and len(e.args) == 3 and
            isinstance(e.args[1], Tuple)):
        return None
    base = _array(e.args[0], known)
    return None if base is None or base[2] else (base[0], len(e.args[1].items), False)


def _contiguous(dims: list[tuple[int, int]]) -> bool:
    """Whether (size, stride) ``dims``, innermost first, are contiguous as numpy checks it:
    axes of size 1 skipped, any of size 0 an empty array."""
    if any(size == 0 for size, _ in dims):
        return True
    expected = 1
    for size, stride in dims:
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _argument(e: Expr, known: dict[str, Arg]) -> Arg | None:
    """A kernel argument's type: a literal, a name or an int expression."""
    if isinstance(e, Lit):  # a lifted literal: Numba's type of a Python int or float
        return {int: ("int64",), float: ("float64",)}.get(type(e.value)) \
            if _constant(e) else None
    if isinstance(e, Name):
        return known.get(e.name)
    if isinstance(e, Binary):
        left, right = _argument(e.a, known), _argument(e.b, known)
        return ("int64",) if left == right == ("int64",) else None
    return None


def _array(e: Expr, known: dict[str, Arg]) -> Arg | None:
    """The type of the C-contiguous array a driver statement makes (``outline``'s driver
    statements: allocations, reshapes, contiguous copies, joins, slices of a 1-d array,
    matrix products and their sums with a bias)."""
    if isinstance(e, Name):
        held = known.get(e.name)
        return held if held is not None and len(held) == 3 else None  # (not a view)
    if isinstance(e, Binary) and e.op is BinaryOp.ADD:
        return _array(e.a, known)
    if isinstance(e, Load) and len(e.index) == 1 and isinstance(e.index[0], Slice) and \
            _int(e.index[0].step, 1) == 1:
        base = _array(e.array, known)
        return base if base is not None and base[1] == 1 else None
    if isinstance(e, Helper) and e.name == "_rt_products":  # (numpy's matmul, threaded)
        e = Call(Fn.MATMUL, e.args)
    if not isinstance(e, Call) or not e.args:
        return None
    fn, args = e.fn, e.args
    if fn is Fn.METHOD_RESHAPE and len(args) > 1 and isinstance(args[1], Tuple):
        base = _array(args[0], known)
        return None if base is None else (base[0], len(args[1].items), base[2])
    if fn is Fn.ASCONTIGUOUSARRAY:
        inner = args[0]
        if isinstance(inner, Call) and inner.fn in (Fn.METHOD_TRANSPOSE, Fn.TRANSPOSE):
            # a copy, or a view where it is contiguous (numpy's np.transpose: not followed)
            base = _array(inner.args[0], known) if inner.fn is Fn.METHOD_TRANSPOSE else None
            return base if base is not None and not base[2] else None
        if isinstance(inner, Name) and known.get(f"view:{inner.name}"):
            return known[f"view:{inner.name}"]  # (likewise: attention's heads, permuted)
        held = known.get(inner.name) if isinstance(inner, Name) else None
        if held is not None and len(held) == 4:  # a view in another layout: a new array
            return (held[0], held[1], False)
        return _array(inner, known)
    if fn is Fn.MATMUL:
        first = args[0]
        if isinstance(first, Call) and first.fn.spelling is Spelling.ATTRIBUTE:
            first = first.args[0]  # a.T
        base = _array(first, known)
        return None if base is None else (base[0], 2, False)
    if fn is Fn.CONCATENATE and isinstance(args[0], Tuple) and args[0].items:
        base = _array(args[0].items[0], known)  # (the parts share a dtype and a rank)
        return None if base is None else (base[0], base[1], False)
    if fn in (Fn.EMPTY, Fn.ZEROS) and len(args) == 2 and \
            isinstance(args[0], Tuple) and isinstance(args[1], DTypeRef):
        return (_numpy_name(args[1].dtype), len(args[0].items), False)
    return None


def _numpy_name(dt: Any) -> str:
    """A dtype's name as numpy's attribute spells it (``bool_``)."""
    return "bool_" if dt.np_name == "bool" else dt.np_name


# --- progress: which of a module's kernels Numba has compiled -----------------------------

class KernelWatch:
    """Counts a generated module's library kernels that have an entry in Numba's cache,
    for the progress line of a compile someone waits for (``msc compile``,
    ``msc.wait_for_compiles``). Numba writes a kernel's index file once the kernel has
    compiled, in whichever process compiled it, so the count includes parallel helpers';
    a kernel compiled for new argument types rewrites its index and counts as compiled."""

    def __init__(self, folder: Path, stems: list[str]):
        self.folder, self.stems = folder, stems
        self.start = self.indexes()
        self.cached = set(self.start)  # what an earlier compile left

    def indexes(self) -> dict[str, int]:
        """{stem: the time its Numba index files last changed} of the stems compiled."""
        found: dict[str, int] = {}
        for path in (self.folder / "__pycache__").glob("*.nbi"):
            stem = path.name.split(".", 1)[0]
            if stem in self.stems:
                with contextlib.suppress(OSError):  # replaced while we look: counted next time
                    found[stem] = max(found.get(stem, 0), path.stat().st_mtime_ns)
        return found

    @classmethod
    def of_spec(cls, spec: ModuleSpec, module: Path) -> KernelWatch | None:
        """The watch for the numba module ``spec`` written at ``module``; None for a
        module without library kernels."""
        return cls.of_kernels(kernels(spec), module)

    @classmethod
    def of_kernels(cls, record: dict[str, Any] | None, module: Path) -> KernelWatch | None:
        """The watch for the module at ``module`` whose library kernels ``record``
        (``kernels``: a compile-cache entry keeps it) names; None where there are none."""
        if not record or not record.get("stems"):
            return None
        folder = Path(record["dir"]) if record.get("dir") else module.parent / "kernels"
        return cls(folder, sorted(record["stems"]))

    def compiled(self) -> set[str]:
        return set(self.indexes())

    def summary(self) -> str:
        """"5/14 library kernels (3 compiled, 2 cached)": compiled now (a new or rewritten
        index), and found compiled."""
        done = self.indexes()
        fresh = sum(self.start.get(stem) != changed for stem, changed in done.items())
        return (f"{len(done)}/{len(self.stems)} library kernels ({fresh} compiled, "
                f"{len(done) - fresh} cached)")


def kernels(spec: ModuleSpec) -> dict[str, Any] | None:
    """Where the library kernels ``spec``'s module runs are ("dir": None for an
    artifact's own ``kernels/`` folder) and their files ("stems"); None for none."""
    if not spec.library:
        return None
    return {"dir": spec.library_dir, "stems": sorted({stem for _, stem in spec.library})}


def has_compiled(folder: Path) -> bool:
    """Whether any kernel in the library at ``folder`` has been compiled: msc has run on
    this machine before (cheap: one directory scan)."""
    cache = folder / "__pycache__"
    return cache.is_dir() and any(p.suffix == ".nbi" for p in cache.iterdir())


def served(spec: ModuleSpec) -> tuple[str, ...]:
    """The library files of the kernels ``spec``'s numba module runs, where they are all
    it runs (its own code is plain Python: no kernel of its own to compile); else ()."""
    if not spec.library or spec.library_dir is None or \
            any(k.jit for k in (*spec.callees, spec.kernel)):
        return ()
    return tuple(sorted({stem for _, stem in spec.library}))


def holds(folder: Path, stems: Sequence[str]) -> bool:
    """Whether the library at ``folder`` has compiled each of the files ``stems``:
    each has Numba's index file."""
    return KernelWatch(folder, list(stems)).cached == set(stems)


def serves(spec: ModuleSpec) -> bool:
    """Whether the library already holds compiled every kernel ``spec``'s numba module
    runs (``served``). Loading such a module costs Numba's start and reading its cache,
    less than the numpy tier plus a worker process."""
    stems = served(spec)
    return bool(stems) and holds(Path(spec.library_dir), stems)  # type: ignore[arg-type]


# --- what the library holds, read without starting Numba ----------------------------------

#: The library's record of what Numba's cache holds: for each library file, the argument
#: types (``Arg``) of each signature compiled for this machine, with the size and time of
#: the index file they were read from and of the file's source (Numba's cache holds while
#: the source is unchanged). ``msc compile`` reads it to know, without starting
#: Numba (its import, its set-up, loading each kernel, a run on zeros: about 1 s), that
#: every call its artifact will make is compiled; a changed index or machine is a miss.
RECORD = "signatures.json"


@functools.cache
def machine() -> str:
    """What a Numba cache entry depends on besides the source: Python's and Numba's
    versions, the CPU (/proc/cpuinfo's model and flags, else LLVM's name for it and its
    features) and Numba's CPU settings."""
    import importlib.metadata
    import platform
    import sys

    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
        cpu = sorted({x for x in lines if x.startswith(("model name", "flags"))})
    except OSError:
        from llvmlite import binding
        cpu = [binding.get_host_cpu_name(), binding.get_host_cpu_features().flatten()]
    try:
        numba = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        numba = "?"
    return _digest("\n".join([sys.version, numba,
                              platform.machine(), *cpu, os.environ.get("NUMBA_CPU_NAME", ""),
                              os.environ.get("NUMBA_CPU_FEATURES", "")]))


def remember(library: Path, stems: Sequence[str]) -> None:
    """Write into the library's RECORD what Numba's cache holds for the files ``stems``,
    compiled for this process's machine (Numba is imported: its index files hold its
    types). A record that cannot be written is left as it was."""
    from numba.core import types
    from numba.core.registry import cpu_target

    magic = cpu_target.target_context.codegen().magic_tuple()

    def arg(t: Any) -> list[Any] | None:
        if isinstance(t, types.Array):
            return [str(t.dtype), t.ndim, not t.mutable] + [t.layout] * (t.layout != "C")
        return [str(t)] if t in (types.int64, types.float64) else None

    record = _record(library)
    if record.get("machine") != machine():
        record = {"machine": machine(), "files": {}}
    for stem in stems:
        indexes, held = {f"../{stem}.py": _stat(library / f"{stem}.py")}, []
        for index in sorted((library / "__pycache__").glob(f"{stem}.*.nbi")):
            indexes[index.name] = _stat(index)
            read = _index(index)
            if read is not None:
                with contextlib.suppress(IndexError, TypeError):  # another Numba's keys
                    held += [[arg(t) for t in key[0]] for key in read[2] if key[1] == magic]
        record["files"][stem] = {"indexes": indexes,
                                 "signatures": [a for a in held if None not in a]}
    with contextlib.suppress(OSError):
        _replace(library / RECORD, json.dumps(record).encode())


def foresees_every_call(spec: ModuleSpec) -> bool:
    """Whether the numba module ``spec``'s foreseen calls (``signatures``) are every call
    it makes: all of library kernels, each foreseen."""
    return spec.foresees_all and bool(spec.signatures) and \
        not any(k.jit for k in (*spec.callees, spec.kernel))


def compiled_for(library: Path, spec: ModuleSpec) -> bool:
    """Whether the library's RECORD shows compiled, for this machine, every call the
    numba module ``spec`` makes: all of library kernels and foreseen, each signature read
    from index files, and for a source, unchanged since."""
    if not foresees_every_call(spec):
        return False
    record = _record(library)
    if record.get("machine") != machine():
        return False
    try:
        for _, stem, args in spec.signatures:
            entry = record["files"].get(stem)
            if entry is None or [list(a) for a in args] not in entry["signatures"]:
                return False
            if any(not stat or _stat(library / "__pycache__" / name) != list(stat)
                   for name, stat in entry["indexes"].items()):  # (a missing file: [])
                return False
    except (AttributeError, KeyError, TypeError, ValueError):  # a record not msc's: a miss
        return False
    return True


def _stat(path: Path) -> list[int]:
    """A file's size and modification time (what Numba's cache checks of a source), or []."""
    try:
        stat = path.stat()
    except OSError:
        return []
    return [stat.st_size, stat.st_mtime_ns]


def _record(library: Path) -> dict[str, Any]:
    try:
        record = json.loads((library / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) and isinstance(record.get("files"), dict) else {}

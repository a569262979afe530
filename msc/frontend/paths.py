"""Where an object lives, as a path a later build or process can walk again.

The compile cache records each constant a compile read as a path from a root (the
entry Cell ``self``, the entry function, a constant argument or a module) with a
stable print of its value; subgraph reuse keys a Cell instance by the paths, relative
to the instance, of what its ``construct`` read. Both need the same two things: a
search from the roots to an object, and a digest of a value that does not depend on
``id()``.

``record_deps`` turns a compile's ``Deps`` into those paths (the files, reads and weights
of the cache's ``DepRecord``, which ``msc.compiler`` stores), and ``check_record`` walks
them again in a later process: if every file hashes the same and every path leads to an
equal value, the compile's result still holds. The cache itself knows only the record.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
import types
from collections import deque
from collections.abc import Iterator
from typing import Any

import numpy as np

from msc.frontend.deps import (
    _MISSING,
    IR_TYPES,
    Deps,
    Read,
    closure_value,
    file_digest,
    fingerprint,
)
from msc.frontend.hooks import is_cell
from msc.ir.dtypes import DType

Step = tuple[str, Any]  # ("attr", name) | ("item", index) | ("closure", name)
Path = tuple[Step, ...]  # starts with a root: ("self", 0) | ("fn", 0) | ("arg", i) | ("module", name)

#: How far the search for an object goes from the roots (objects visited, depth).
MAX_VISITS, MAX_DEPTH = 200_000, 12



def stable_print(value: Any) -> str:
    """A digest of ``value`` that is equal across processes when the graph would be.

    Like ``fingerprint`` but without ``id()``: objects, functions and classes print as
    their module and qualified name (their attributes, code and closures are reads or
    files of their own), Parameters by dtype and shape (their values are inputs).
    """
    return hashlib.sha256(repr(_canonical(value)).encode()).hexdigest()[:32]


def _canonical(value: Any) -> Any:
    from msc.common.tensor import Parameter, Tensor

    if isinstance(value, Parameter):
        return ("param", value.dtype.name, tuple(value.shape))
    if isinstance(value, (Tensor, np.ndarray)):
        arr = np.ascontiguousarray(np.asarray(value))
        return ("array", arr.dtype.str, arr.shape, hashlib.sha256(arr.tobytes()).hexdigest())
    if isinstance(value, (bool, int, float, str, bytes, type(None), np.generic)):
        return (type(value).__name__, repr(value))
    if isinstance(value, (DType,) + IR_TYPES):
        return (type(value).__name__, str(value))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((_canonical(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, types.MethodType):
        return ("method", _qualified(value.__func__))
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return ("def", _qualified(value))
    return ("object", _qualified(type(value)))


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"


def describe_callable(fn: Any) -> Any:
    """What an eager transform (``grad``, ``vmap``...) transforms, as JSON for the compile
    cache's entry key: equal in two processes only when the same code is transformed the
    same way (the entry is a generic wrapper, so its own name says nothing). A transform
    describes itself (``cache_description``, nesting its function's); a function by its
    name, file, code and defaults; a Cell by its class's and every sub-cell's. The values
    they read are the dependency record's. None where there is no such description: the
    compile is then neither looked up nor stored."""
    own = getattr(type(fn), "cache_description", None)
    if own is not None:
        return own(fn)
    if isinstance(fn, types.MethodType):
        inner = describe_callable(fn.__func__)
        return None if inner is None else {"method": inner, "of": _qualified(type(fn.__self__))}
    if isinstance(fn, types.FunctionType):
        return {"function": _qualified(fn), **_code_identity(fn.__code__),
                "defaults": stable_print((fn.__defaults__, fn.__kwdefaults__))}
    if is_cell(fn):
        return _describe_cell(fn, set())
    return None


def describe_transform(kind: str, fn: Any, **settings: Any) -> Any:
    """A transform of ``fn`` with ``settings`` as ``describe_callable`` gives it; None
    where ``fn`` has no description."""
    described = describe_callable(fn)
    return None if described is None else {"transform": kind, **settings, "fn": described}


def _describe_cell(cell: Any, seen: set[int]) -> Any:
    """A Cell's class and its sub-cells', by name: a wrapper's ``construct`` (msc's own
    ``WithLossCell``) calls its sub-cells without reading them as constants."""
    construct = inspect.getattr_static(type(cell), "construct", None)
    code = getattr(getattr(construct, "fn", construct), "__code__", None)  # (a @jit one)
    if code is None:
        return None
    if id(cell) in seen:  # one Cell under two names (tied weights)
        return {"cell": _qualified(type(cell)), "again": True}
    seen.add(id(cell))
    subs = {}
    for name, sub in vars(cell).get("_cells", {}).items():
        if sub is not None:
            subs[str(name)] = _describe_cell(sub, seen)
            if subs[str(name)] is None:
                return None
    return {"cell": _qualified(type(cell)), **_code_identity(code), "cells": subs}


def _code_identity(code: types.CodeType) -> dict[str, str]:
    """Where ``code`` is and a digest of what it does (bytecode, names and constants,
    nested code included): two functions of one name in one file differ."""
    h = hashlib.sha256()

    def feed(c: types.CodeType) -> None:
        h.update(c.co_code)
        h.update(repr((c.co_name, c.co_firstlineno, c.co_flags, c.co_argcount,
                       c.co_posonlyargcount, c.co_kwonlyargcount, c.co_names,
                       c.co_varnames, c.co_freevars, c.co_cellvars)).encode())
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                feed(k)
            else:
                h.update(repr(_const_print(k)).encode())

    feed(code)
    return {"file": os.path.abspath(code.co_filename), "code": h.hexdigest()[:32]}


def _const_print(k: Any) -> Any:
    """A code constant's print; a frozenset's sorted (its order varies with hashing)."""
    if isinstance(k, frozenset):
        return ("frozenset", sorted(repr(_const_print(v)) for v in k))
    if isinstance(k, tuple):
        return tuple(_const_print(v) for v in k)
    return (type(k).__name__, repr(k))


def paths_from(fn: Any, objects: Any) -> list[Any] | None:
    """Paths (as JSON) to ``objects`` (a transform's weights) from the transformed ``fn``:
    through it (a Cell's parameters, a method's object), else from its module's globals.
    None where one is not found."""
    roots: list[tuple[Path, Any]] = [((("fn", 0),), fn)]
    if isinstance(fn, types.MethodType):
        roots.append(((("fn", 0), ("attr", "__self__")), fn.__self__))
    locator = Locator(roots)
    if is_cell(fn):
        locator.add_module(type(fn).__module__)
    elif isinstance(fn, (types.FunctionType, types.MethodType)):
        locator.add_module(fn.__module__)
    found = [locator.path_of(obj) for obj in objects]
    if any(p is None for p in found):
        return None
    return [[[kind, key] for kind, key in p] for p in found if p is not None]


def show(value: Any) -> str:
    """A short readable form of a value for cache messages."""
    text = repr(value) if isinstance(value, (bool, int, float, str, type(None), tuple)) \
        else f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


# --- finding objects again ----------------------------------------------------------------


class Locator:
    """Paths from some roots (a compile's entry, a Cell instance) to the objects below them.

    A breadth-first walk, done once, through Cells (parameters and sub-cells),
    instance attributes, tuples, lists and dicts; modules' globals join as roots the
    first time a global of theirs is read.
    """

    def __init__(self, roots: list[tuple[Path, Any]]):
        self.roots = list(roots)
        self.paths: dict[int, Path] = {}
        self.walked = False

    def add_module(self, name: str) -> None:
        module = sys.modules.get(name)
        if module is not None and self.walked:
            self.walked = False  # walk again with the new root
        if module is not None:
            self.roots.append(((("module", name),), module))

    def path_of(self, obj: Any) -> Path | None:
        if not self.walked:
            self._walk()
        return self.paths.get(id(obj))

    def _walk(self) -> None:
        self.walked = True
        queue = deque((path, obj) for path, obj in self.roots)
        seen: set[int] = set()
        while queue and len(seen) < MAX_VISITS:
            path, obj = queue.popleft()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            self.paths.setdefault(id(obj), path)
            if len(path) > MAX_DEPTH:
                continue
            for step, child in _children(obj, path[0][0] == "module" and len(path) == 1):
                if id(child) not in seen:
                    queue.append((path + (step,), child))


_REGISTRIES = ("_params", "_cells", "_param_tuples")


def _children(obj: Any, is_module_root: bool) -> Iterator[tuple[Step, Any]]:
    if isinstance(obj, (str, bytes, int, float, bool, type(None), np.ndarray, np.generic)):
        return
    if isinstance(obj, (tuple, list)):
        yield from ((("item", i), v) for i, v in enumerate(obj))
        return
    if isinstance(obj, dict):
        yield from ((("item", k), v) for k, v in obj.items() if isinstance(k, (str, int)))
        return
    if isinstance(obj, types.ModuleType) and not is_module_root:
        return
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return
    attrs = getattr(obj, "__dict__", None)
    if not isinstance(attrs, dict):
        return
    if is_cell(obj):
        for registry in _REGISTRIES[:3]:
            yield from ((("attr", k), v) for k, v in attrs.get(registry, {}).items()
                        if v is not None)
    for k, v in attrs.items():
        if not k.startswith("__") and k not in _REGISTRIES and \
                not isinstance(v, types.ModuleType):
            yield ("attr", k), v


def resolve(path: Path, roots: dict[tuple[str, Any], Any]) -> Any:
    """The object at ``path`` in this process, or ``_MISSING``."""
    try:
        return _resolve(path, roots)
    except Exception:  # noqa: BLE001 - a user property that raises: the value is gone
        return _MISSING


def _resolve(path: Path, roots: dict[tuple[str, Any], Any]) -> Any:
    head = path[0]
    if head[0] == "module":
        obj = sys.modules.get(head[1], _MISSING)
    else:
        obj = roots.get(tuple(head), _MISSING)
    for kind, key in path[1:]:
        if obj is _MISSING:
            break
        if kind == "attr":
            obj = getattr(obj, key, _MISSING)
        elif kind == "closure":
            obj = closure_value(obj, key)
        else:
            try:
                obj = obj[key]
            except (LookupError, TypeError):
                obj = _MISSING
    return obj


def format_path(path: Path) -> str:
    """``self.blocks.0.scale``, ``fn.<closure n>``, ``helpers.SCALE``, ``args[1].k``."""
    head = path[0]
    text = {"self": "self", "fn": "the entry function"}.get(head[0], "")
    text = text or (f"args[{head[1]}]" if head[0] == "arg" else str(head[1]))
    for kind, key in path[1:]:
        text += f".{key}" if kind == "attr" else \
            f" (closure variable '{key}')" if kind == "closure" else f"[{key!r}]"
    return text


# --- the record of a compile, and its check in a later process ---------------------------


class NotCacheable(Exception):
    """The compile read something a later process could not find again."""


def record_deps(entry: Any, fn: Any, args: tuple[Any, ...], deps: Deps,
                weights: tuple[Any, ...]) -> tuple[dict[str, str], list[tuple[Path, str, str]],
                                                   list[Path]]:
    """The files (path -> sha256), reads ([path, stable print, shown value]) and weight
    paths of a finished compile; ``NotCacheable`` if a read or weight cannot be found from
    the roots."""
    roots: list[tuple[Path, Any]] = [((("fn", 0),), fn)]
    if is_cell(entry):
        roots.insert(0, ((("self", 0),), entry))
    roots += [((("arg", i),), a) for i, a in enumerate(args)
              if not isinstance(a, (int, float, bool, str, type(None)))]
    # what the entry closes over (an eager transform's entry: the transform, and through
    # it the function or Cell transformed), found again in a later process the same way
    roots += [((("fn", 0), ("closure", name)), value) for name in
              getattr(getattr(fn, "__code__", None), "co_freevars", ())
              if (value := closure_value(fn, name)) is not _MISSING]
    locator = Locator(roots)
    reads: list[tuple[Path, str, str]] = []
    for read in deps.reads.values():
        if read.kind == "global":
            name = read.owner.get("__name__")
            if not isinstance(name, str) or sys.modules.get(name) is None or \
                    vars(sys.modules[name]) is not read.owner:
                raise NotCacheable(f"a global '{read.name}' of a namespace that is not an "
                                   "imported module")
            locator.add_module(name)
            path: Path = (("module", name), ("attr", read.name))
        else:
            owner = _locate(locator, read.owner, f"'{read.name}'")
            path = owner + ((read.kind if read.kind == "closure" else "attr", read.name),)
        value = read.current()
        reads.append((path, stable_print(value), show(value)))
    weight_paths = [_locate(locator, w, f"the Parameter '{w.name}'") for w in weights]
    reads.sort(key=lambda r: format_path(r[0]))
    return ({os.path.abspath(f): file_digest(f) or "" for f in deps.files}, reads,
            weight_paths)


def check_record(record: Any, entry: Any, fn: Any, args: tuple[Any, ...]) -> tuple[
        list[str], Deps, list[Any]]:
    """(what changed, the live ``Deps`` for the in-memory cache, the weights) of a
    dependency record (``files``, ``reads``, ``weights``) in this process."""
    roots = _roots(entry, fn, args)
    changed = [f"file {path} changed" if digest else f"file {path} is missing"
               for path, want in sorted(record.files.items())
               if (digest := file_digest(path)) != want]
    deps = Deps(set(record.files))
    for path, want, shown in record.reads:
        value, read = _live_read(path, roots)
        if value is _MISSING:
            changed.append(f"{format_path(path)} is gone (was {shown})")
        elif stable_print(value) != want:
            changed.append(f"{format_path(path)} changed (was {shown}, now {show(value)})")
        elif read is not None:
            deps.reads[(id(read.owner), read.name)] = read
    weights = [resolve(p, roots) for p in record.weights]
    for path, w in zip(record.weights, weights):
        if w is _MISSING:
            changed.append(f"weight {format_path(path)} is gone")
    return changed, deps, weights


def _locate(locator: Locator, obj: Any, what: str) -> Path:
    path = locator.path_of(obj)
    if path is None:
        raise NotCacheable(f"{what} was read from a {type(obj).__name__} that is not "
                           "reachable from the model, its arguments or its modules")
    return path


def _roots(entry: Any, fn: Any, args: tuple[Any, ...]) -> dict[tuple[str, Any], Any]:
    roots: dict[tuple[str, Any], Any] = {("fn", 0): fn, ("self", 0): entry}
    roots.update({("arg", i): a for i, a in enumerate(args)})
    return roots


def _live_read(path: Path, roots: dict[tuple[str, Any], Any]) -> tuple[Any, Read | None]:
    """The value at ``path`` and a live ``Read`` of it for the in-memory cache."""
    owner = resolve(path[:-1], roots) if len(path) > 1 else _MISSING
    kind, name = path[-1]
    if path[0][0] == "module" and len(path) == 2:
        owner = vars(owner) if owner is not _MISSING else owner
        kind = "global"
    if owner is _MISSING:
        return _MISSING, None
    try:
        value = Read(owner, name, None, kind).current()
    except Exception:  # noqa: BLE001 - a user property that raises: the value is gone
        value = _MISSING
    if value is _MISSING:
        return _MISSING, None
    return value, Read(owner, name, fingerprint(value), kind)

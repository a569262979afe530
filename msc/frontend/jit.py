"""``jit`` / ``ms_function`` and the dispatch of Cell calls between eager and compiled.

A ``@jit`` function or a Cell under GRAPH_MODE (or whose ``construct`` is ``@jit``)
compiles on its first call for the argument types seen, and reuses the result while
the constants the graph read are unchanged; PyNative Cells run ``construct`` eagerly.
This module sits below the compiler and ``msc.nn``, which import it: it compiles through
``hooks.compile_call`` and tells a Cell by ``hooks.is_cell``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import operator
import weakref
from typing import Any, Callable

import numpy as np

from msc import context
from msc.common import amp_scope
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError
from msc.frontend.active import ACTIVE, current_builder
from msc.frontend.deps import fingerprint
from msc.frontend.hooks import compile_call, is_cell, structure_parts
from msc.frontend.source import user_loc


class JitFunction:
    """A function compiled on first call per input signature.

    Args:
        fn: the Python function (or a Cell's ``construct``).
        input_signature: optional Tensors (or a tuple of them) fixing the input types.
    """

    def __init__(self, fn: Callable[..., Any], input_signature: Any = None):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.input_signature = input_signature
        self.cache = CompileCache()
        self.positional = _positional_count(fn)  # fast path: exactly these, no kwargs
        self.varargs_only = [p.kind for p in inspect.signature(fn).parameters.values()] \
            == [inspect.Parameter.VAR_POSITIONAL]  # (*args): any positional call binds as is

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(_call_bound, self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fast = self.cache.fast
        if fast is not None and not kwargs:
            out = fast(args)
            if out is not MISS:
                return out
        builder = current_builder()
        if builder is not None:  # reached from native code while building a graph
            return builder.calls.call(self.fn, list(args), kwargs, None)
        if kwargs or not (self.varargs_only or len(args) == self.positional):
            args = bind_args(self.fn, args, kwargs, skip_self=False)
        return self.cache.call(self, args)


def entry_function(transformed: Any, scope: amp_scope.Scope | None = None) -> Callable[..., Any]:
    """A plain function calling ``transformed`` (a gradient or vmap of a function), so
    that calling it eagerly compiles it as a ``@jit`` function would be.

    ``scope`` is the mixed-precision scope of the eager call: the graph traces the
    function under it, as a graph being built traces a transform called in a
    ``to_float`` Cell, so both modes cast the same ops. (A compile otherwise opens no
    scope: its casts are its own Cells'.)"""
    def entry(*args: Any) -> Any:
        with amp_scope.opened(scope):
            return transformed(*args)
    entry.__name__ = transformed.__name__
    if scope is not None:  # (the compile cache's entry key holds the qualified name)
        entry.__qualname__ = f"{entry.__qualname__}[{scope}]"
    # every transform compiles through this one ``entry``: the compile cache's key names
    # the transform too (``paths.describe_callable``), or the cache is not used
    entry.__msc_transform__ = transformed  # type: ignore[attr-defined]
    return entry


def _call_bound(jf: JitFunction, obj: Any, *args: Any, **kwargs: Any) -> Any:
    """A ``@jit`` method called on ``obj``: a Cell's ``construct`` is the Cell's call; any
    other method (a Cell's ``@jit`` helper, ``clip_grads(grads)``) is a function of its
    own, compiled with ``obj`` as its first argument (interpreted inside a graph)."""
    if is_cell(obj) and inspect.getattr_static(type(obj), "construct", None) is jf:
        return call_cell(obj, args, kwargs)
    if is_cell(obj):
        return jf(obj, *args, **kwargs)
    return jf.fn(obj, *args, **kwargs)


def jit(function: Callable[..., Any] | None = None, *, input_signature: Any = None,
        **options: Any) -> Any:
    """Compile ``function`` (MindSpore's ``@jit``; also usable on ``construct``).

    Example:
        >>> @jit
        ... def f(x, y):
        ...     return x * y + 1
    """
    if function is None:
        return lambda fn: JitFunction(fn, input_signature)
    return JitFunction(function, input_signature)


ms_function = jit


_SIMPLE: dict[Any, int | None] = {}


def _positional_count(fn: Callable[..., Any]) -> int | None:
    """How many plain positional parameters ``fn`` has, or None if it has defaults,
    ``*args``, keyword-only or ``**kwargs`` parameters (then binding needs ``inspect``)."""
    code = getattr(fn, "__code__", None)
    if code not in _SIMPLE:
        params = inspect.signature(fn).parameters.values()
        simple = all(p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params)
        _SIMPLE[code] = len(params) if simple else None
    return _SIMPLE[code]


def bind_args(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
              skip_self: bool) -> tuple[Any, ...]:
    """Positional arguments for ``fn``; a wrong count is a TypeError before compiling."""
    if not kwargs and _positional_count(fn) == len(args) + skip_self:
        return args  # the common case, without inspect's cost on every call
    sig = inspect.signature(fn)
    try:
        bound = sig.bind(*((None,) if skip_self else ()), *args, **kwargs)
    except TypeError as e:
        raise GraphTypeError(f"{fn.__qualname__}(): {e}", user_loc()) from None
    bound.apply_defaults()
    out: list[Any] = []
    for i, (name, value) in enumerate(bound.arguments.items()):
        if skip_self and i == 0:
            continue
        kind = sig.parameters[name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            out.extend(value)
        elif kind == inspect.Parameter.VAR_KEYWORD:
            if value:
                raise GraphTypeError(f"{fn.__qualname__}(): **kwargs cannot be graph inputs",
                                     user_loc())
        else:
            out.append(value)
    return tuple(out)


class CompileCache:
    """In-memory compiled graphs, keyed by argument signature and re-validated
    against the constants each graph read."""

    def __init__(self) -> None:
        self.entries: dict[Any, Any] = {}
        self.compiles = 0
        self.fast: Callable[[tuple[Any, ...]], Any] | None = None  # see ``fast_path``

    def call(self, entry: Any, args: tuple[Any, ...]) -> Any:
        key = context.jit_key() + tuple(map(_arg_key, args))
        compiled = self.entries.get(key)
        if compiled is None or (compiled.deps.reads and
                                not compiled.deps.still_valid()):
            compiled = compile_call(entry, args)  # (the compiler, through ``hooks``)
            self.compiles += 1
            self.entries[key] = compiled
            compiled.all_tensors = all(type(a) is Tensor for a in args)
        out = compiled.run_flat(args) if compiled.all_tensors else compiled.run(args)
        self.fast = fast_path(compiled, args, out)
        return out


#: ``fast_path``'s answer for a call it does not take.
MISS: Any = object()


def fast_path(compiled: Any, args: tuple[Any, ...],
              out: Any) -> Callable[[tuple[Any, ...]], Any] | None:
    """The call path of the signature of ``args`` (plain Tensors and tuples of them) that
    gave ``out``, with every check that holds for all its calls done once. The caller
    tries it before binding arguments and building a cache key; it answers ``MISS`` when
    the context changed, a graph is being built, an argument's type, dtype, shape or
    layout differs, or a constant the graph read changed. None for other arguments, and
    while the python tier stands in.

    Its source is written for the signature (one line per check, no loop), as
    ``dataclasses`` writes ``__init__``: each check is a few bytecodes."""
    if compiled.code is None or compiled.standby is not None or not all(
            type(a) is Tensor or (type(a) is tuple and all(type(v) is Tensor for v in a))
            for a in args):
        return None
    lines = ["def call(args):",
             f"    if len(args) != {len(args)} or context.generation != "
             f"{context.generation} or ACTIVE:",
             "        return MISS"]
    arrays: list[str] = []  # run's arguments, one per Tensor
    dtypes: list[np.dtype] = []

    def unpack(names: list[str], source: str) -> None:
        lines.append(f"    {', '.join(names)}{',' * (len(names) == 1)} = {source}")

    def check_leaf(x: str, t: Tensor) -> None:
        a, d = f"a{len(arrays)}", f"D{len(dtypes)}"
        arrays.append(a)
        dtypes.append(t._data.dtype)
        lines.extend([f"    if type({x}) is not Tensor:", "        return MISS",
                      f"    {a} = {x}._data",
                      f"    if {a}.shape != {t._data.shape!r} or ({a}.dtype is not {d} "
                      f"and {a}.dtype != {d}) or not {a}.flags.c_contiguous:",
                      "        return MISS"])

    def check_alike(x: str, ts: tuple[Tensor, ...]) -> None:
        """Many Tensors of one dtype and shape (HyperMap's gradients): C loops check them
        (a dtype equal to ``D`` hashes alike, so the set compares by value)."""
        a, d = f"a{len(arrays)}", f"D{len(dtypes)}"
        arrays.append("*" + a)
        dtypes.append(ts[0]._data.dtype)
        lines.extend([f"    if set(map(type, {x})) != ONLY_TENSOR:", "        return MISS",
                      f"    {a} = list(map(DATA, {x}))",
                      f"    if set(map(LAYOUT, {a})) != {{({ts[0]._data.shape!r}, {d}, True)}}:",
                      "        return MISS"])

    if args:
        unpack([f"x{i}" for i in range(len(args))], "args")
    for i, a in enumerate(args):
        if type(a) is Tensor:
            check_leaf(f"x{i}", a)
            continue
        lines.extend([f"    if type(x{i}) is not tuple or len(x{i}) != {len(a)}:",
                      "        return MISS"])
        if len(a) >= 4 and len({(t._data.shape, t._data.dtype) for t in a}) == 1:
            check_alike(f"x{i}", a)
            continue
        if a:
            unpack([f"x{i}_{j}" for j in range(len(a))], f"x{i}")
        for j, t in enumerate(a):
            check_leaf(f"x{i}_{j}", t)
    if compiled.deps.reads:
        lines += ["    if not deps.still_valid():", "        return MISS"]
    arrays += ["*binding.current()"] * bool(compiled.weights) \
        + ["*constants"] * bool(compiled.constants)
    lines += ["    try:",
              f"        r = run({', '.join(arrays)})",
              "    except Exception as e:",
              "        failed(e, run.__globals__['__file__'], deps.files)",
              "        raise"]
    if type(out) is Tensor:
        lines += ["    t = new(Tensor)", "    t._data = r", "    return t"]
    elif type(out) is tuple and all(type(t) is Tensor for t in out):
        lines += ["    return tuple(map(wrap, r))"]  # (Tensor.wrap: no per-result checks)
    else:
        lines += ["    return to_user(r, LISTS)"]
    from msc.codegen.linemap import raise_numba_failure

    scope = {"context": context, "ACTIVE": ACTIVE, "MISS": MISS, "Tensor": Tensor,
             "deps": compiled.deps, "binding": compiled.binding, "run": compiled.code.run,
             "constants": compiled.constants, "failed": raise_numba_failure,
             "to_user": to_user, "LISTS": compiled.lists, "new": object.__new__,
             "wrap": Tensor.wrap,
             "ONLY_TENSOR": {Tensor},
             "DATA": operator.attrgetter("_data"),
             "LAYOUT": operator.attrgetter("shape", "dtype", "flags.c_contiguous"),
             **{f"D{i}": d for i, d in enumerate(dtypes)}}
    exec("\n".join(lines), scope)
    return scope["call"]  # type: ignore[no-any-return]


def to_user(value: Any, lists: Any = None) -> Any:
    """Arrays become Tensors (the generated code already copied any aliased output), and
    the tuples ``lists`` marks lists again (see ``list_shape``)."""
    if isinstance(value, np.ndarray):
        return Tensor.wrap(value)
    if isinstance(value, tuple):
        kind, parts = lists if lists is not None else ("tuple", [None] * len(value))
        items = [to_user(v, part) for v, part in zip(value, parts)]
        if kind not in ("list", "tuple"):  # a structure's class, "module:qualname"
            module, name = kind.split(":")
            return getattr(importlib.import_module(module), name).__msc_rebuild__(tuple(items))
        return items if kind == "list" else tuple(items)
    return value


def list_shape(result: Any) -> Any:
    """Where a graph's Python result holds lists, which its compiled code returns as
    tuples: None without any, else ``[kind, [part, ...]]`` with ``kind`` "list" or
    "tuple", or the "module:qualname" of a structure's class (a sparse tensor, returned as
    its parts) (JSON, so a compile-cache entry keeps it)."""
    parts = structure_parts(result)
    if parts is not None:
        cls = type(result)
        return [f"{cls.__module__}:{cls.__qualname__}", [list_shape(v) for v in parts]]
    if not isinstance(result, (tuple, list)):
        return None
    parts = [list_shape(v) for v in result]
    if isinstance(result, list) or any(p is not None for p in parts):
        return ["list" if isinstance(result, list) else "tuple", parts]
    return None


def _arg_key(value: Any) -> Any:
    """The cache key of one argument: arrays by dtype and shape (cheap: this runs on
    every call), tuples element-wise, anything else by its fingerprint."""
    if type(value) is Tensor or (isinstance(value, Tensor) and not isinstance(value, Parameter)):
        return (value._data.dtype, value._data.shape)
    if isinstance(value, np.ndarray):
        return (value.dtype, value.shape)
    if isinstance(value, (tuple, list)):
        return (type(value),) + tuple(_arg_key(v) for v in value)
    parts = structure_parts(value)
    if parts is not None:
        return (type(value),) + tuple(_arg_key(v) for v in parts)
    return fingerprint(value)


_CELL_CACHES: weakref.WeakKeyDictionary[Any, CompileCache] = weakref.WeakKeyDictionary()


def cell_cache(cell: Any) -> CompileCache:
    cache = _CELL_CACHES.get(cell)
    if cache is None:
        cache = _CELL_CACHES[cell] = CompileCache()
    return cache


def call_cell(cell: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Cell.__call__``: eager ``construct`` in PyNative mode and inside a graph being
    built; compiled under GRAPH_MODE or when ``construct`` is ``@jit``."""
    cache = _CELL_CACHES.get(cell)
    if cache is not None and cache.fast is not None and not kwargs:
        out = cache.fast(args)
        if out is not MISS:
            return out
    construct = inspect.getattr_static(type(cell), "construct", None)
    raw = construct.fn if isinstance(construct, JitFunction) else construct
    if raw is None:
        raise GraphTypeError(f"{type(cell).__name__} has no construct method", user_loc())
    graph = context.get_context("mode") == context.GRAPH_MODE or isinstance(construct,
                                                                             JitFunction)
    builder = current_builder()
    if builder is not None:  # reached from native code (a container) while building
        return builder.calls.call(cell, list(args), kwargs, None)
    if not graph:
        with amp_scope.cell_scope(cell):
            return raw(cell, *args, **kwargs)
    return cell_cache(cell).call(cell, bind_args(raw, args, kwargs, skip_self=True))

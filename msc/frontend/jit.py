"""``jit`` / ``ms_function`` and the dispatch of Cell calls between eager and compiled.

A ``@jit`` function or a Cell under GRAPH_MODE (or whose ``construct`` is ``@jit``)
compiles on its first call for the argument types seen, and reuses the result while
the constants the graph read are unchanged; PyNative Cells run ``construct`` eagerly.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from typing import Any, Callable

import numpy as np

from msc import context
from msc.errors import GraphTypeError
from msc.frontend.api.tensor import Parameter, Tensor
from msc.frontend.builder import current_builder
from msc.frontend.deps import fingerprint
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
        builder = current_builder()
        if builder is not None:  # reached from native code while building a graph
            return builder.calls.call(self.fn, list(args), kwargs, None)
        if kwargs or not (self.varargs_only or len(args) == self.positional):
            args = bind_args(self.fn, args, kwargs, skip_self=False)
        return self.cache.call(self, args)


def entry_function(transformed: Any) -> Callable[..., Any]:
    """A plain function calling ``transformed`` (a gradient or vmap of a function), so
    that calling it eagerly compiles it as a ``@jit`` function would be."""
    def entry(*args: Any) -> Any:
        return transformed(*args)
    entry.__name__ = transformed.__name__
    return entry


def _call_bound(jf: JitFunction, obj: Any, *args: Any, **kwargs: Any) -> Any:
    from msc.frontend.api.cell import Cell

    if isinstance(obj, Cell):
        return call_cell(obj, args, kwargs)
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

    def call(self, entry: Any, args: tuple[Any, ...]) -> Any:
        from msc.compiler import arg_spec, compile_entry

        key = context.jit_key() + tuple(map(_arg_key, args))
        compiled = self.entries.get(key)
        if compiled is None or (compiled.deps.reads and
                                not compiled.deps.still_valid()):
            compiled = compile_entry(entry, tuple(arg_spec(a) for a in args))
            self.compiles += 1
            self.entries[key] = compiled
            compiled.all_tensors = all(type(a) is Tensor for a in args)
        if compiled.all_tensors:
            return compiled.run_flat(args)
        return compiled.run(args)


def _arg_key(value: Any) -> Any:
    """The cache key of one argument: arrays by dtype and shape (cheap: this runs on
    every call), tuples element-wise, anything else by its fingerprint."""
    if type(value) is Tensor or (isinstance(value, Tensor) and not isinstance(value, Parameter)):
        return (value._data.dtype, value._data.shape)
    if isinstance(value, np.ndarray):
        return (value.dtype, value.shape)
    if isinstance(value, (tuple, list)):
        return (type(value),) + tuple(_arg_key(v) for v in value)
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
        return raw(cell, *args, **kwargs)
    return cell_cache(cell).call(cell, bind_args(raw, args, kwargs, skip_self=True))

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

from msc import context
from msc.errors import GraphTypeError
from msc.frontend.builder import current_builder
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

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(_call_bound, self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        builder = current_builder()
        if builder is not None:  # reached from native code while building a graph
            return builder.calls.call(self.fn, list(args), kwargs, None)
        args = bind_args(self.fn, args, kwargs, skip_self=False)
        return self.cache.call(self, args)


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


def bind_args(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
              skip_self: bool) -> tuple[Any, ...]:
    """Positional arguments for ``fn``; a wrong count is a TypeError before compiling."""
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
        from msc.driver import arg_spec, compile_entry
        from msc.frontend.deps import fingerprint

        specs = tuple(arg_spec(a) for a in args)
        key = fingerprint(specs)
        compiled = self.entries.get(key)
        if compiled is None or not compiled.parsed.deps.still_valid():
            compiled = compile_entry(entry, specs)
            self.compiles += 1
            self.entries[key] = compiled
        return compiled.run(args)


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

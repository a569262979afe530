"""``MultitypeFuncGraph``, ``HyperMap``, ``partial`` and ``GradOperation``
(``mindspore.ops.composite.base``).

A ``MultitypeFuncGraph`` picks one registered function by its arguments' type names
("Tensor", "Number", "Tuple", ...). A ``HyperMap`` maps a function over tuples (or
lists) element by element, recursing into nested tuples; a ``Map`` maps over their top
level only. Eagerly both are plain
Python; inside a graph the frontend builds the mapped function once per distinct
element signature and calls that graph for every element (see ``frontend/calls.py``),
instead of interpreting the function again for each of them. ``GradOperation`` is
MindSpore's class form of ``grad`` (``function/grad_func.py``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from msc.errors import GraphTypeError
from msc.ops.function.grad_func import _Differentiated, _Want, _weights

partial = functools.partial  # ``F.partial`` / ``ops.partial``: the frontend calls through it


def type_name(value: Any) -> str:
    """MindSpore's name for a value's type in ``register`` signatures."""
    from msc.common.tensor import Tensor

    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, (int, float)):
        return "Number"
    if isinstance(value, tuple):
        return "Tuple"
    if isinstance(value, list):
        return "List"
    if isinstance(value, str):
        return "String"
    if value is None:
        return "None"
    return "Function" if callable(value) else type(value).__name__


#: The other names a value of each type matches, after its own: a bool is a "Number"; an
#: int an "Int64" (MindSpore's type of a Python int) and, converted, an "Int32"; a float a
#: "Float64" or "Float32".
_ALIASES = {"Bool": ("Number",), "Number": ("Int64", "Int32", "Float64", "Float32")}
_INTS, _FLOATS = ("Int64", "Int32"), ("Float64", "Float32")


def _matches(want: str, name: str, value: Any, loose: bool) -> bool:
    """Whether a value of type ``name`` matches the registered name ``want``: its own name,
    or (``loose``) one it converts to; an int is exactly an "Int64", a float a "Float64"."""
    if name == "Number" and want in _INTS + _FLOATS:
        ints = isinstance(value, int)
        exact = want == ("Int64" if ints else "Float64")
        return (exact or loose) and want in (_INTS if ints else _FLOATS)
    return want == name or (loose and want in _ALIASES.get(name, ()))


class MultitypeFuncGraph:
    """A function overloaded on its arguments' type names.

    Example:
        >>> add = MultitypeFuncGraph("add")
        >>> @add.register("Tensor", "Tensor")
        ... def _(x, y):
        ...     return x + y
    """

    def __init__(self, name: str, read_value: bool = False):
        self.name = name
        self.read_value = read_value
        self.entries: list[tuple[tuple[str, ...], Callable[..., Any]]] = []

    def register(self, *type_names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.entries.append((tuple(type_names), fn))
            return fn
        return deco

    def resolve(self, args: tuple[Any, ...]) -> Callable[..., Any]:
        """The registered function for ``args`` (the first whose names all match)."""
        names = [type_name(a) for a in args]
        for loose in (False, True):  # an exact match first, as MindSpore prefers one
            for sig, fn in self.entries:
                if len(sig) == len(names) and all(_matches(s, n, a, loose)
                                                   for s, n, a in zip(sig, names, args)):
                    return fn
        raise GraphTypeError(f"MultitypeFuncGraph '{self.name}' has no function registered "
                             f"for ({', '.join(names)}); registered: "
                             f"{[', '.join(sig) for sig, _ in self.entries]}")

    def __call__(self, *args: Any) -> Any:
        from msc.frontend.builder import current_builder

        builder = current_builder()
        if builder is not None:  # reached from native code while building a graph
            return builder.calls.call(self.resolve(args), list(args), {}, None)
        return self.resolve(args)(*args)

    def __msc_graph_call__(self, calls: Any, args: list[Any], kwargs: dict[str, Any],
                           ev: Any) -> Any:
        """A call in a graph being built (``frontend/calls.py``): the registered function
        for ``args``, interpreted."""
        return calls.call(self.resolve(tuple(args)), args, kwargs, ev)


class HyperMap:
    """Map a function over tuples: ``HyperMap(f)(xs, ys)`` is ``(f(x0, y0), f(x1, y1), ...)``;
    ``HyperMap()(f, xs, ys)`` takes the function at call time. Nested tuples map
    recursively; all sequences must have the same length."""

    def __init__(self, ops: Any = None, reverse: bool = False):
        self.ops = ops
        self.reverse = reverse

    def split(self, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
        """(the function, the sequences) of a call."""
        if self.ops is not None:
            return self.ops, args
        if not args:
            raise GraphTypeError("HyperMap() without a function needs one as its first argument")
        return args[0], args[1:]

    def map(self, args: tuple[Any, ...], apply: Callable[[Any, tuple[Any, ...]], Any]) -> Any:
        """The call on ``args``, each element's call made through ``apply(fn, elements)``."""
        fn, seqs = self.split(args)
        return map_sequences(fn, seqs, apply, self.reverse)

    def __call__(self, *args: Any) -> Any:
        from msc.frontend.builder import current_builder

        builder = current_builder()
        if builder is not None:
            return builder.calls.hypermap(self, args)
        return self.map(args, lambda f, elems: f(*elems))

    def __msc_graph_call__(self, calls: Any, args: list[Any], kwargs: dict[str, Any],
                           ev: Any) -> Any:
        """A call in a graph being built: ``calls.hypermap`` builds the function once per
        element signature (``frontend/calls.py``)."""
        return calls.hypermap(self, tuple(args))


class Map(HyperMap):
    """MindSpore's ``ops.Map``: ``Map(f)(xs, ys)`` (or ``Map()(f, xs, ys)``) is
    ``(f(x0, y0), f(x1, y1), ...)`` over the top level of the sequences only: a nested
    tuple is one element, handed to ``f`` whole (``HyperMap`` recurses into it). Inside a
    graph it is built as ``HyperMap`` is (``calls.hypermap`` calls ``map``)."""

    def map(self, args: tuple[Any, ...], apply: Callable[[Any, tuple[Any, ...]], Any]) -> Any:
        fn, seqs = self.split(args)
        if not seqs:
            raise GraphTypeError("Map needs at least one sequence to map over")
        if not all(isinstance(s, (tuple, list)) for s in seqs) or \
                len({len(s) for s in seqs}) != 1:
            raise GraphTypeError("Map's sequences must all be tuples or lists of the same "
                                 f"length, but got {[_len(s) for s in seqs]}")
        order = range(len(seqs[0]) - 1, -1, -1) if self.reverse else range(len(seqs[0]))
        results = {i: apply(fn, tuple(s[i] for s in seqs)) for i in order}
        out = [results[i] for i in range(len(seqs[0]))]
        return tuple(out) if isinstance(seqs[0], tuple) else out


def map_sequences(fn: Any, seqs: tuple[Any, ...], apply: Callable[[Any, tuple[Any, ...]], Any],
                  reverse: bool = False) -> Any:
    """``fn`` over the elements of ``seqs`` (recursing into tuples), each call through
    ``apply(fn, elements)``; the result has the sequences' structure."""
    if not seqs or not isinstance(seqs[0], (tuple, list)):
        return apply(fn, seqs)
    length = len(seqs[0])
    for s in seqs:
        if not isinstance(s, (tuple, list)) or len(s) != length:
            raise GraphTypeError("HyperMap's sequences must all be tuples or lists of the same "
                                 f"length, but got lengths {[_len(s) for s in seqs]}")
    order = range(length - 1, -1, -1) if reverse else range(length)
    results = {i: map_sequences(fn, tuple(s[i] for s in seqs), apply, reverse) for i in order}
    out = [results[i] for i in range(length)]
    return tuple(out) if isinstance(seqs[0], tuple) else out


def _len(s: Any) -> Any:
    return len(s) if isinstance(s, (tuple, list)) else type(s).__name__


class GradOperation:
    """MindSpore's ``GradOperation``: ``GradOperation(get_all, get_by_list,
    sens_param)(fn)`` is the gradient function of ``fn``; with ``get_by_list`` it takes
    the weights: ``GradOperation(get_by_list=True)(net, params)``.

    Without ``get_all`` the gradient is the first input's alone; with ``get_by_list``
    the weights' gradients are a tuple in ``params`` order, and with both the result is
    ``(input gradients, weight gradients)`` (one Parameter's gradient is that tensor,
    not a 1-tuple; the gradient of a function without inputs is ``()``). ``sens_param``
    makes the last argument the output's sensitivity (otherwise ones)."""

    def __init__(self, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False):
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn: Callable[..., Any], weights: Any = None) -> _Differentiated:
        if self.get_by_list and weights is None:
            raise GraphTypeError("GradOperation(get_by_list=True) needs the weights: "
                                 "grad_op(net, params)")
        params, single = _weights(weights) if self.get_by_list else (None, False)
        positions: Any = "all" if self.get_all else (None if self.get_by_list else "first")
        return _Differentiated(fn, _Want(positions, params, single, sens=self.sens_param))


__all__ = ["HyperMap", "Map", "MultitypeFuncGraph", "partial", "GradOperation"]

"""Helpers the primitives' lowerings share.

``ArrayExpr`` emitters return one expression in numpy syntax (on the numba target only
what Numba compiles quickly: contiguous reshapes, strided views, ``_rt_*`` runtime
helpers). ``LoopNest`` emitters return the lines of a loop nest that defines the result
(reductions, row-wise kernels, gathers, integer contractions), written with ``Loops``.
"""

from __future__ import annotations

from typing import Callable, Sequence

from msc.ir.nodes import Node
from msc.ir.types import TensorType, tensor_of


def in_type(node: Node, i: int = 0) -> TensorType:
    t = tensor_of(node.inputs[i].type)
    assert t is not None
    return t


def out_type(node: Node) -> TensorType:
    t = tensor_of(node.out.type)
    assert t is not None
    return t


def contiguous(x: str) -> str:
    return f"np.ascontiguousarray({x})"


def reshape(x: str, shape: tuple[int, ...]) -> str:
    return f"{contiguous(x)}.reshape({shape!r})"


def dtype_ref(dt: object) -> str:
    """``np.float32``-style source for an msc dtype."""
    name = dt.np_name  # type: ignore[attr-defined]
    return "np.bool_" if name == "bool" else f"np.{name}"


def cast_to(x: str, have: object, want: object) -> str:
    return x if have == want else f"{x}.astype({dtype_ref(want)})"


def reduced_index(names: dict[int, str], ndim: int, axes: tuple[int, ...], keep: bool) -> str:
    """The subscript of a reduction's result for the kept loops ``names`` (0 at the reduced
    axes when they are kept)."""
    return index([("0" if a in axes else names[a]) for a in range(ndim)
                  if keep or a not in axes])


# --- explicit loop nests (numba target) -------------------------------------------------

#: A float fold along a contiguous innermost axis keeps this many partial results: chains
#: that do not wait on each other, which LLVM turns into vector instructions (one chain
#: waits a float add's or a compare's latency per element, and Numba never reassociates).
PARTIALS = 8


def index(parts: Sequence[str]) -> str:
    """Subscript text; a 0-d array is indexed with ``()``."""
    return ", ".join(parts) if parts else "()"


class Lines(list):  # type: ignore[type-arg]
    """An emitter's lines, with ``numpy_calls``: a loop's first line -> the numpy call an
    outlined driver makes instead of it (``msc/codegen/outline.py``; a kernel keeps the
    loop)."""

    def __init__(self) -> None:
        super().__init__()
        self.numpy_calls: dict[str, str] = {}


class Loops:
    """Writes nested ``for`` loops for a ``loops`` emitter. Numba compiles explicit
    loops much faster than chains of array expressions (transpose, reshape, ...), and
    keeps their accumulators in registers.

    ``fresh(hint)`` gives unique identifiers; ``open`` starts one loop per axis and
    returns the index variable of each (``i2`` for axis 2); ``close`` ends them;
    ``instead`` names the numpy call that does what loops opened at the top do."""

    def __init__(self, fresh: Callable[[str], str]):
        self.fresh = fresh
        self.lines = Lines()
        self.depth = 0
        self.headers: dict[str, str] = {}  # an outermost loop's variable -> its line

    def instead(self, names: dict[int, str], call: str) -> None:
        """``call``, one numpy call, computes what the loops ``names`` (opened outside any
        other) do, to the bit: an outlined driver makes it (no kernel to compile)."""
        first = next(iter(names.values()))
        if first in self.headers:
            self.lines.numpy_calls[self.headers[first]] = call

    def add(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def open(self, shape: Sequence[int], axes: Sequence[int], hint: str = "i") -> dict[int, str]:
        names = {}
        for a in axes:
            names[a] = self.fresh(f"{hint}{a}")
            self.add(f"for {names[a]} in range({shape[a]}):")
            if self.depth == 0:
                self.headers[names[a]] = self.lines[-1]
            self.depth += 1
        return names

    def close(self, names: dict[int, str]) -> None:
        self.depth -= len(names)

    def fold(self, kind: str, acc: str, shape: Sequence[int], kept: dict[int, str],
             axes: Sequence[int], item: Callable[[dict[int, str]], str],
             hint: str = "j") -> None:
        """Lines folding ``item`` (the text of one element, given every axis's index)
        over ``axes`` into ``acc``, which holds the start: ``kind`` "sum" adds (``acc``
        a float64), "max" keeps the larger, a NaN winning. Where the innermost axis is the
        last of ``axes`` and at least ``2 * PARTIALS`` long, ``PARTIALS`` partial results each
        take every ``PARTIALS``-th element of a row and are combined in a fixed order, the
        rest of the row after them: a float sum's rounding differs from one chain's in
        the last bits of its float64, a maximum is the same value (of a zero, the sign
        may differ)."""
        last = len(shape) - 1
        if not axes or axes[-1] != last or shape[last] < 2 * PARTIALS:
            inner = self.open(shape, axes, hint)
            self._take(kind, acc, item({**kept, **inner}))
            self.close(inner)
            return
        outer = self.open(shape, axes[:-1], hint)
        at, parts = self.fresh(f"{hint}{last}"), [self.fresh("part") for _ in range(PARTIALS)]
        self.add(f"{' = '.join(parts)} = {'0.0' if kind == 'sum' else acc}")
        whole = shape[last] - shape[last] % PARTIALS
        self.add(f"for {at} in range(0, {whole}, int({PARTIALS})):")
        self.depth += 1
        for k, part in enumerate(parts):
            self._take(kind, part, item({**kept, **outer, last: f"{at} + int({k})" if k else at}))
        self.depth -= 1
        if kind == "sum":
            pairs = [f"({a} + {b})" for a, b in zip(parts[::2], parts[1::2])]
            while len(pairs) > 1:
                pairs = [f"({a} + {b})" for a, b in zip(pairs[::2], pairs[1::2])]
            self.add(f"{acc} += {pairs[0][1:-1]}")
        else:
            for part in parts:
                self._take(kind, acc, part)
        self.add(f"for {at} in range({whole}, {shape[last]}):")
        self.depth += 1
        self._take(kind, acc, item({**kept, **outer, last: at}))
        self.depth -= 1
        self.close(outer)

    def _take(self, kind: str, acc: str, item: str) -> None:
        if kind == "sum":
            self.add(f"{acc} += {item}")
            return
        v = item if item.isidentifier() else self.fresh("a")
        if v != item:
            self.add(f"{v} = {item}")
        self.add(f"if {v} > {acc} or {v} != {v}:")
        self.add(f"    {acc} = {v}")

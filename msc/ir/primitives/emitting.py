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

#: Rows of a fold at least this long are each one call of a runtime helper (``_rt_row_*``
#: in numba_rows_rt.py: partial results that LLVM vectorizes, compiled once per machine);
#: shorter ones are one chain in the kernel, where a call would cost more than it saves.
FOLD_ROWS = 64
ROW_HELPERS = {"max": "_rt_row_max", "sum": "_rt_row_sum", "squares": "_rt_row_squares"}


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

    def fold(self, kind: str, acc: str, src: str, shape: Sequence[int],
             kept: dict[int, str], axes: Sequence[int], around: str = "") -> None:
        """Lines folding the elements of ``src`` over ``axes`` (the loops ``kept`` open
        the others) into ``acc``, which holds the start: "max" keeps the larger, a NaN
        winning; "sum" adds (``acc`` a float64); "squares" adds ``(x - around) ** 2``.
        Where the innermost axis is the last of ``axes`` and at least ``FOLD_ROWS``
        long, each row is one call of the runtime helper of ``kind``: a float sum's
        rounding differs from one chain's in the last bits of its float64, a maximum is
        the same value (of a zero, the sign may differ)."""
        last = len(shape) - 1
        rows = bool(axes) and axes[-1] == last and shape[last] >= FOLD_ROWS
        inner = self.open(shape, axes[:-1] if rows else axes, "j")
        names = {**kept, **inner}
        if rows:
            row = f"{src}[{index([names[d] for d in range(last)])}]" if last else src
            extra = f", {around}" if kind == "squares" else ""
            self.take(kind, acc, f"{ROW_HELPERS[kind]}({row}{extra})")
        else:
            item = f"{src}[{index([names[d] for d in range(len(shape))])}]"
            self.take(kind, acc, item if kind != "squares" else
                      f"({item} - {around}) * ({item} - {around})")
        self.close(inner)

    def take(self, kind: str, acc: str, item: str) -> None:
        """``acc`` takes ``item`` in: "max" ("min") keeps the larger (smaller) of the two,
        a NaN winning; "prod" multiplies; any other kind adds."""
        if kind not in ("max", "min"):
            self.add(f"{acc} {'*' if kind == 'prod' else '+'}= {item}")
            return
        v = self.fresh("a")
        self.add(f"{v} = {item}")
        self.add(f"if {v} {'>' if kind == 'max' else '<'} {acc} or {v} != {v}:")
        self.add(f"    {acc} = {v}")

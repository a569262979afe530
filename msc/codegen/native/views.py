"""Array values of the native renderer: a ``View`` is an array whose shape and strides
are known when msc compiles (a pointer variable, a constant offset and perhaps a loop
index's), so reshapes, transposes, slices and broadcasts are new views, never copies. A
``Slot`` is one array the function allocates in its workspace; ``plan_slots`` places the
slots so that those live at the same time do not overlap."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from msc.errors import InternalCompilerError

ALIGN = 64  # bytes: every workspace slot starts on a cache line


@dataclass(frozen=True)
class View:
    """An array value: ``shape`` elements of ``dtype`` at ``base[offset + sum(i*stride)]``.
    ``base`` is a C pointer variable, ``dyn`` a run-time part of the offset (a loop index
    times a stride, '' for none), ``slots`` the workspace slots it may point into."""

    base: str
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0
    dyn: str = ""
    slots: frozenset[int] = frozenset()

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def contiguous(self) -> bool:
        return all(st == want for n, st, want in zip(self.shape, self.strides, c_strides(self.shape))
                   if n != 1)

    def element(self, index: Sequence[str]) -> str:
        """The C lvalue of the element at ``index`` (C expressions, one per axis)."""
        terms = [f"{self.offset}"] + ([self.dyn] if self.dyn else [])
        terms += [i if s == 1 else f"({i}) * {s}" for i, s in zip(index, self.strides) if s]
        return f"{self.base}[{' + '.join(terms)}]"

    def address(self) -> str:
        return f"({self.base} + {self.offset}{' + ' + self.dyn if self.dyn else ''})"

    def with_layout(self, shape: tuple[int, ...], strides: tuple[int, ...], offset: int | None = None,
                    dyn: str | None = None) -> View:
        return View(self.base, self.dtype, shape, strides, self.offset if offset is None else offset,
                    self.dyn if dyn is None else dyn, self.slots)


def c_name(name: str) -> str:
    """The C variable of a kernel-IR name: prefixed, so that it never meets the names the
    renderer makes itself (in0, w0, k0, s0, o0, i_1, ...) or a pointer's (a_...)."""
    return f"n_{name}"


def c_strides(shape: Sequence[int]) -> tuple[int, ...]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


@dataclass
class Slot:
    """A workspace allocation: its size, and the top-level statements it is live over."""

    nbytes: int
    first: int
    last: int
    offset: int = 0


def blas_layout(x: View) -> tuple[str, int] | None:
    """How BLAS reads the 2-d view ``x``: ("N", leading dimension) where element (i, j)
    lies at i*ld + j, ("T", ld) where it lies at j*ld + i, None when neither holds (a
    broadcast's zero strides, both axes strided): then it is copied first."""
    rows, cols = x.shape
    s0, s1 = x.strides
    if (s1 == 1 or cols == 1) and (rows == 1 or s0 >= max(cols, 1)):
        return "N", s0 if rows > 1 else max(cols, 1)
    if (s0 == 1 or rows == 1) and (cols == 1 or s1 >= max(rows, 1)):
        return "T", s1 if cols > 1 else max(rows, 1)
    return None


def is_weight(x: View) -> bool:
    """Whether ``x`` lies at a fixed place in a weights or constants block (``build.py``
    binds them to ``w<k>`` and ``k<i>``; a weight's start in its block may come as a number
    in ``dyn``): memory an inference model never writes."""
    return re.fullmatch(r"[wk]\d+", x.base) is not None and (not x.dyn or x.dyn.isdigit())


def broadcast(x: Any, shape: tuple[int, ...], loc: Any) -> Any:
    """``x`` as a view of ``shape`` (numpy's broadcasting: repeated axes get stride 0)."""
    if not isinstance(x, View):
        return x
    extra = len(shape) - len(x.shape)
    if extra < 0:
        raise InternalCompilerError(f"cannot broadcast {x.shape} to {shape}", loc)
    strides = []
    for n, (m, st) in zip(shape, [(1, 0)] * extra + list(zip(x.shape, x.strides))):
        if m != n and m != 1:
            raise InternalCompilerError(f"cannot broadcast {x.shape} to {shape}", loc)
        strides.append(st if m == n else 0)
    return x.with_layout(shape, tuple(strides))


def plan_slots(slots: list[Slot]) -> int:
    """Give each slot an offset so that slots live at the same time do not overlap
    (first fit, largest first within equal starts); returns the workspace's size."""
    placed: list[Slot] = []
    for s in sorted(slots, key=lambda s: (s.first, -s.nbytes)):
        busy = sorted((p.offset, p.offset + p.nbytes) for p in placed
                      if p.first <= s.last and s.first <= p.last)
        at = 0
        for lo, hi in busy:
            if at + s.nbytes <= lo:
                break
            at = max(at, -(-hi // ALIGN) * ALIGN)
        s.offset = at
        placed.append(s)
    return max((-(-(s.offset + s.nbytes) // ALIGN) * ALIGN for s in slots), default=0)

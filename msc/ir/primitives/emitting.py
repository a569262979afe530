"""Helpers the primitives' lowerings share.

``ArrayExpr`` emitters return one expression in numpy syntax (on the numba target only
what Numba compiles quickly: contiguous reshapes, strided views, ``_rt_*`` runtime
helpers). ``LoopNest`` emitters return the kernel-IR statements (``msc/ir/kernel.py``) of
a loop nest that defines the result (reductions, row-wise kernels, gathers, integer
contractions), built with ``Loops``::

    loops = Loops(fresh)
    loops.emit(Assign(Name(out), empty(o.shape, o.dtype)))
    at = loops.open(x.shape, range(x.ndim), role=Role.PARALLEL)
    loops.emit(Store(Name(out)[tuple(Name(at[d]) for d in range(x.ndim))],
                     Cast(o.dtype, Name(a[0])[...] * 2)))
    loops.close(at)
    return loops.lines
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    BoolOp,
    Branch,
    Expr,
    Helper,
    Lit,
    Load,
    Loop,
    Name,
    Role,
    Stmt,
    Store,
    gt,
    lift,
    lt,
    ne,
)
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


def dtype_ref(dt: object) -> str:
    """``np.float32``-style source for an msc dtype."""
    name = dt.np_name  # type: ignore[attr-defined]
    return "np.bool_" if name == "bool" else f"np.{name}"


def reduced_at(names: dict[int, str], ndim: int, axes: tuple[int, ...],
               keep: bool) -> tuple[Expr, ...]:
    """The index of a reduction's result for the kept loops ``names`` (0 at the reduced
    axes when they are kept): ``Name(out)[reduced_at(...)]`` is the result's element."""
    return tuple(Lit(0) if a in axes else Name(names[a]) for a in range(ndim)
                 if keep or a not in axes)


def element_at(names: dict[int, str], ndim: int) -> tuple[Expr, ...]:
    """The index of the element the loops ``names`` are at (0 on an axis with no loop:
    a row's first element)."""
    return tuple(Name(names[d]) if d in names else Lit(0) for d in range(ndim))


# --- explicit loop nests (numba target) -------------------------------------------------

#: Rows of a fold at least this long are each one call of a runtime helper (``_rt_row_*``
#: in numba_rows_rt.py: partial results that LLVM vectorizes, compiled once per machine);
#: shorter ones are one chain in the kernel, where a call would cost more than it saves.
FOLD_ROWS = 64
ROW_HELPERS = {"max": "_rt_row_max", "sum": "_rt_row_sum", "squares": "_rt_row_squares"}


def index(parts: Sequence[str]) -> str:
    """Subscript text; a 0-d array is indexed with ``()``."""
    return ", ".join(parts) if parts else "()"


class Loops:
    """Builds the kernel-IR statements (``msc/ir/kernel.py``) of a ``LoopNest`` emitter.
    Numba compiles explicit loops much faster than chains of array expressions
    (transpose, reshape, ...), and keeps their accumulators in registers.

    ``fresh(hint)`` gives unique identifiers; ``open`` starts one loop per axis and
    returns the index variable of each (``i2`` for axis 2); ``close`` ends them;
    ``open_if``/``close_if`` a branch; ``emit`` adds a statement at the current depth;
    ``instead`` names the numpy calls that do what loops opened at the top do.
    ``lines`` is the result, the statements as a tree."""

    def __init__(self, fresh: Callable[[str], str]):
        self.fresh = fresh
        self.depth = 0
        self._flat: list[tuple[int, Stmt]] = []  # each statement and its depth
        self._instead: dict[str, tuple[Stmt, ...]] = {}  # an outermost loop -> numpy calls

    @property
    def lines(self) -> tuple[Stmt, ...]:
        return _nest(self._flat, 0, 0, len(self._flat), self._instead)[0]

    def emit(self, stmt: Stmt) -> None:
        self._flat.append((self.depth, stmt))

    def instead(self, names: dict[int, str], *calls: Stmt) -> None:
        """``calls``, numpy's, compute what the loops ``names`` (opened outside any
        other) do, to the bit: an outlined driver makes them (no kernel to compile)."""
        first = next(iter(names.values()))
        if any(d == 0 and isinstance(st, Loop) and st.var == first for d, st in self._flat):
            self._instead[first] = calls

    def open(self, shape: Sequence[Any], axes: Sequence[int], hint: str = "i",
             role: Role = Role.SERIAL) -> dict[int, str]:
        names = {}
        for a in axes:
            names[a] = self.fresh(f"{hint}{a}")
            self.emit(Loop(names[a], lift(shape[a]), (), role=role))
            self.depth += 1
        return names

    def close(self, names: dict[int, str]) -> None:
        self.depth -= len(names)

    def open_if(self, cond: Any) -> None:
        """Start a block run where ``cond`` holds (``close_if`` ends it)."""
        self.emit(Branch(lift(cond), ()))
        self.depth += 1

    def close_if(self, count: int = 1) -> None:
        self.depth -= count

    def fold(self, kind: str, acc: str, src: str, shape: Sequence[int],
             kept: dict[int, str], axes: Sequence[int], around: str = "") -> None:
        """Statements folding the elements of ``src`` over ``axes`` (the loops ``kept``
        open the others) into ``acc``, which holds the start: "max" keeps the larger, a
        NaN winning; "sum" adds (``acc`` a float64); "squares" adds ``(x - around) ** 2``.
        Where the innermost axis is the last of ``axes`` and at least ``FOLD_ROWS``
        long, each row is one call of the runtime helper of ``kind``: a float sum's
        rounding differs from one chain's in the last bits of its float64, a maximum is
        the same value (of a zero, the sign may differ)."""
        last = len(shape) - 1
        rows = bool(axes) and axes[-1] == last and shape[last] >= FOLD_ROWS
        inner = self.open(shape, axes[:-1] if rows else axes, "j", Role.REDUCE)
        names = {**kept, **inner}
        if rows:
            row = Name(src)[tuple(Name(names[d]) for d in range(last))] if last else Name(src)
            extra = (Name(around),) if kind == "squares" else ()
            self.take(kind, acc, Helper(ROW_HELPERS[kind], (row, *extra)))
        else:
            item = Name(src)[tuple(Name(names[d]) for d in range(len(shape)))]
            self.take(kind, acc, item if kind != "squares" else
                      (item - Name(around)) * (item - Name(around)))
        self.close(inner)

    def take(self, kind: str, acc: Any, item: Any) -> None:
        """``acc`` takes ``item`` in: "max" ("min") keeps the larger (smaller) of the two,
        a NaN winning; "prod" multiplies; any other kind adds."""
        acc, item = lift(acc), lift(item)
        if kind not in ("max", "min"):
            self.emit(Accumulate(acc, BinaryOp.MUL if kind == "prod" else BinaryOp.ADD, item))
            return
        v = Name(self.fresh("a"))
        self.emit(Assign(v, item))
        wins = gt(v, acc) if kind == "max" else lt(v, acc)
        keep = Store(acc, v) if isinstance(acc, Load) else Assign(acc, v)
        self.emit(Branch(BoolOp(False, (wins, ne(v, v))), (keep,)))

    def open_range(self, var_hint: str, start: Any, stop: Any,
                   role: Role = Role.SERIAL) -> str:
        """Start one loop ``for var in range(start, stop)`` over bounds computed in the
        kernel (names, expressions; ``start`` None: ``range(stop)``) and return its fresh
        variable; ``close_range`` ends it."""
        var = self.fresh(var_hint)
        self.emit(Loop(var, lift(stop), (), start=None if start is None else lift(start),
                       role=role))
        self.depth += 1
        return var

    def close_range(self, var: str) -> None:
        """End the loop ``open_range`` started over ``var``."""
        self.depth -= 1


def _nest(flat: list[tuple[int, Stmt]], depth: int, start: int, stop: int,
          instead: dict[str, tuple[Stmt, ...]]) -> tuple[tuple[Stmt, ...], int]:
    """The statements of ``flat[start:stop]`` at ``depth`` as a tree: a loop (or a
    branch) holds the deeper statements after it; one emitted whole, with its body and
    nothing deeper after it, keeps its body."""
    out: list[Stmt] = []
    k = start
    while k < stop:
        d, st = flat[k]
        end = k + 1
        while end < stop and flat[end][0] > d:
            end += 1
        if isinstance(st, Loop):
            body = _nest(flat, d + 1, k + 1, end, instead)[0] or st.body
            st = replace(st, body=body, instead=instead.get(st.var, ()) if d == 0 else ())
        elif isinstance(st, Branch) and end > k + 1:
            st = replace(st, body=_nest(flat, d + 1, k + 1, end, instead)[0])
        out.append(st)
        k = end
    return tuple(out), k

"""Weight arenas: the Parameters a compiled graph reads live in one buffer per dtype.

Numba unboxes every array argument of a kernel on every call and types each one when it
compiles, so a kernel taking each Parameter as an argument costs more with every
Parameter. Instead the generated code takes, per dtype, one buffer (the *arena*) and an
int64 array of offsets, and slices each weight out of the buffer itself (see
``codegen/lower.py``). A Parameter in an arena holds a view of its slot as its data, so
graph writes, eager ``ops.assign`` and ``set_data`` (which copies into the view) all
reach the buffer the kernel reads.

A Parameter belongs to at most one arena. A compiled graph whose weights of one dtype
are not all in one arena merges the arenas they are in (and the Parameters in none) into
a new one; the old ones are left empty. So two graphs sharing Parameters (a network and
its training step) settle on one arena after at most one merge each, instead of moving
the weights back and forth. Any change of membership bumps ``Arena.epoch``; a
``Binding`` re-checks its Parameters only then, so a call costs one comparison.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from msc.common.tensor import Parameter


class Arena:
    """One buffer of one dtype; each member Parameter's data is a view of its slot."""

    #: bumped whenever any Parameter joins or leaves any arena
    epoch = 0

    def __init__(self, dtype: np.dtype[Any], params: list[Parameter]):
        # id -> weak reference (not a WeakSet: it compares members with ==, which a
        # Tensor answers elementwise)
        self.members: dict[int, weakref.ref[Parameter]] = {}
        self.buffer = np.empty(sum(p._buf.size for p in params), dtype)
        offset = 0
        for p in params:
            view = self.buffer[offset:offset + p._buf.size].reshape(p._buf.shape)
            view[...] = p._buf
            leave(p)
            p._buf, p._arena, p._offset = view, self, offset
            self.members[id(p)] = weakref.ref(p)
            offset += p._buf.size
        Arena.epoch += 1


def leave(p: Parameter) -> None:
    """Take ``p`` out of its arena (its data stays the view until replaced)."""
    arena = p.__dict__.get("_arena")
    if arena is not None:
        arena.members.pop(id(p), None)
        p._arena = None
        Arena.epoch += 1


class Binding:
    """The weight arguments of one compiled graph: for each dtype of its weights, in the
    order of first appearance (the order the generated ``run`` takes them), the arena's
    buffer and the offsets of the weights of that dtype in weight order."""

    def __init__(self, weights: tuple[Parameter, ...]):
        self.weights = weights
        self.args: list[np.ndarray] = []
        self.bind()

    def current(self) -> list[np.ndarray]:
        """The arguments, re-bound if any arena changed since they were made."""
        if self.epoch != Arena.epoch:
            self.bind()
        return self.args

    def bind(self) -> None:
        groups: dict[np.dtype[Any], list[Parameter]] = {}
        for p in self.weights:
            groups.setdefault(p._buf.dtype, []).append(p)
        args: list[np.ndarray] = []
        for dtype, params in groups.items():
            arenas = {p.__dict__.get("_arena") for p in params}
            if len(arenas) != 1 or None in arenas:
                arena = Arena(dtype, _merged(params, arenas))
            else:
                (arena,) = arenas
            args += [arena.buffer, np.array([p._offset for p in params], np.int64)]
        self.args, self.epoch = args, Arena.epoch


def _merged(params: list[Parameter], arenas: set[Arena | None]) -> list[Parameter]:
    """``params`` (in order, once each), then the other members of ``arenas``."""
    out = list(dict.fromkeys(params))
    seen = set(out)
    for arena in arenas:
        if arena is not None:
            members = [ref() for ref in arena.members.values()]
            out += [p for p in members if p is not None and p not in seen]
    return out

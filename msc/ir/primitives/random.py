"""Random numbers inside compiled graphs: ``UniformReal``, float32 draws in [0, 1).

A draw is a side effect (``Effect.IO``): it takes the state token, so two draws of one
shape are never merged, folded into a constant or hoisted, and each runs once per call
in program order. Each node owns a stream, a numpy ``Generator`` seeded with ``(seed,
offset)``: the global seed when the graph was built and the node's rank among the draws
of its build. A loaded module creates the stream at its first draw and continues it on
later calls, so a network built after ``set_seed(s)`` draws the same masks on every
target; ``impl`` is a stream's first draw. msc's streams are not MindSpore's (Philox):
the same distribution, not the same numbers. The numba target draws in object mode.
"""

from __future__ import annotations

import math
from typing import Any

from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ir.kernel import Assign, Expr, Helper, Lit, Name, ObjMode, Stmt, reshape
from msc.ir.primitives.base import Attr, Effect, Primitive, Statements, register, want_int, \
    want_shape
from msc.ir.types import MonadType, TensorType, Type
from msc.runtime.numpy_rt import _rt_uniform_real


def _uniform_real_infer(u: Type, *, shape: tuple[int, ...], seed: int,
                        offset: int) -> Type:
    if not isinstance(u, MonadType):
        raise GraphTypeError(f"the last input must be the state token U, but got {u}")
    if want_int(seed, "seed") < 0 or want_int(offset, "offset") < 0:
        raise GraphTypeError(f"seed and offset must be non-negative, but got {seed}, {offset}")
    return TensorType(dtypes.float32, want_shape(shape))


def _uniform_real_impl(u: Any, *, shape: tuple[int, ...], seed: int, offset: int) -> Any:
    return _rt_uniform_real(math.prod(shape), seed, offset, {}).reshape(shape)


def _draw(node: Any) -> Expr:
    a = node.attr
    return Helper("_rt_uniform_real", (Lit(math.prod(a["shape"])), Lit(a["seed"]),
                                       Lit(a["offset"])))


def _python_draw(args: list[Expr], node: Any, out: str) -> list[Stmt]:
    return [Assign(Name(out), reshape(_draw(node), node.attr["shape"]))]


def _numba_draw(args: list[Expr], node: Any, out: str) -> list[Stmt]:
    """Numba cannot keep a generator between calls: the draw runs as Python."""
    flat = f"{out}_flat"
    return [ObjMode((Assign(Name(flat), _draw(node)),), ((flat, "float32[::1]"),)),
            Assign(Name(out), reshape(Name(flat), node.attr["shape"]))]


uniform_real = register(Primitive(
    "UniformReal", _uniform_real_infer, _uniform_real_impl,
    {"numba": Statements(_numba_draw),
     "python": Statements(_python_draw)},
    attrs=(Attr("shape", types=(tuple,)), Attr("seed", 0, (int,)), Attr("offset", 0, (int,))),
    effect=Effect.IO, cost=4))

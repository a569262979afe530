"""Gradient and batching rules that whole op families share.

Rules build IR with an ``ir.builder.Builder`` ``b`` (``b.mul(g, b.cos(x))``), so they
read like the math. A vjp rule is ``vjp(b, g, *inputs, out, **attrs)`` and returns one
cotangent per input (None where an input gets none, for example a Python number); a
batching rule is ``batch(b, prim, args, dims, **attrs)`` where ``dims[i]`` is the batch
axis of ``args[i]`` (None: unbatched) and returns ``(value, batch axis of value)``.
"""

from __future__ import annotations

from typing import Any, Sequence

from msc.ir.types import tensor_of


def unbroadcast(b: Any, g: Any, x: Any) -> Any:
    """The cotangent of operand ``x`` from ``g`` of the broadcast result: summed over the
    dims broadcasting added or stretched, in ``x``'s shape and dtype. None for a number."""
    xt, gt = tensor_of(x.type), tensor_of(g.type)
    if xt is None:
        return None
    lead = gt.ndim - xt.ndim
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(xt.shape)
                                      if d == 1 and gt.shape[lead + i] != 1)
    if axes:
        g = b.reshape(b.reduce_sum(g, axis=axes, keep_dims=False), shape=xt.shape)
    return g if tensor_of(g.type).dtype == xt.dtype else b.cast(g, dtype=xt.dtype)


def is_float_tensor(x: Any) -> bool:
    t = tensor_of(x.type)
    return t is not None and t.dtype.is_float


def cotangent(b: Any, g: Any, x: Any) -> Any:
    """``unbroadcast(g, x)`` where ``x`` is a float tensor; None where it is an integer or
    bool tensor or a number, which carry no gradient."""
    return unbroadcast(b, g, x) if is_float_tensor(x) else None


def unreduce(b: Any, v: Any, x: Any, axes: Sequence[int]) -> Any:
    """``v``, a reduction of ``x`` over ``axes`` (non-negative; kept dims or not), with a
    size-1 dim at each of them, so that it broadcasts against ``x``."""
    xt = tensor_of(x.type)
    return b.reshape(v, shape=tuple(1 if i in axes else d for i, d in enumerate(xt.shape)))


def vjp_add(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    return unbroadcast(b, g, x), unbroadcast(b, g, y)


def vjp_sub(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    return unbroadcast(b, g, x), unbroadcast(b, b.neg(g), y)


def vjp_mul(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    return unbroadcast(b, b.mul(g, y), x), unbroadcast(b, b.mul(g, x), y)


def vjp_div(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    """d(x/y) = dx/y - out*dy/y."""
    return (unbroadcast(b, b.div(g, y), x),
            unbroadcast(b, b.neg(b.div(b.mul(g, out), y)), y))


def vjp_remainder(b: Any, g: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    """out = x - y*q with q = (x - out)/y constant almost everywhere (truncated or floored
    x/y): dx = g, dy = -g*q."""
    q = b.div(b.sub(x, out), y)
    return unbroadcast(b, g, x), unbroadcast(b, b.neg(b.mul(g, q)), y)


def vjp_select(b: Any, g: Any, cond: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    zero = b.zeros_like(g)
    return (None, unbroadcast(b, b.select(cond, g, zero), x),
            unbroadcast(b, b.select(cond, zero, g), y))


def vjp_cast(b: Any, g: Any, x: Any, out: Any, *, dtype: Any) -> tuple[Any, ...]:
    return (b.cast(g, dtype=tensor_of(x.type).dtype),)


def vjp_reshape(b: Any, g: Any, x: Any, out: Any, **attrs: Any) -> tuple[Any, ...]:
    """Reshape-like ops (Reshape, ExpandDims, Squeeze, Flatten): the cotangent is ``g`` in
    the input's shape."""
    return (b.reshape(g, shape=tensor_of(x.type).shape),)


def vjp_transpose(b: Any, g: Any, x: Any, out: Any, *, perm: tuple[int, ...]) -> tuple[Any]:
    inverse = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
    return (b.transpose(g, perm=inverse),)


def vjp_reduce_sum(b: Any, g: Any, x: Any, out: Any, *, axis: Any,
                   keep_dims: bool) -> tuple[Any]:
    """``g`` broadcast back over the summed axes (kept as size-1 dims first)."""
    xt = tensor_of(x.type)
    axes = () if xt.ndim == 0 else range(xt.ndim) if axis in ((), None) else \
        [a % xt.ndim for a in ((axis,) if isinstance(axis, int) else axis)]
    kept = tuple(1 if i in axes else d for i, d in enumerate(xt.shape))
    g = b.broadcast_to(b.reshape(g, shape=kept), shape=xt.shape)
    return (g if tensor_of(g.type).dtype == xt.dtype else b.cast(g, dtype=xt.dtype),)


def move_to_front(b: Any, x: Any, dim: int) -> Any:
    """``x`` with its axis ``dim`` moved to position 0."""
    if dim == 0:
        return x
    ndim = tensor_of(x.type).ndim
    return b.transpose(x, perm=(dim,) + tuple(d for d in range(ndim) if d != dim))


def batch_elementwise(b: Any, prim: Any, args: Sequence[Any], dims: Sequence[int | None],
                      **attrs: Any) -> tuple[Any, int]:
    """Broadcasting: each batched operand's batch axis moves to the front, and unit dims
    after it align its example with the others' (right-aligned) example shapes."""
    rank = max(example_ndim(a, d) for a, d in zip(args, dims))
    new = [a if d is None else aligned(b, a, d, rank) for a, d in zip(args, dims)]
    return b.emit(prim, *new, **attrs), 0


def aligned(b: Any, x: Any, dim: int, rank: int) -> Any:
    """Batched ``x`` with its batch axis first and unit dims after it, so that its example
    has ``rank`` dims and broadcasts against unbatched operands of that rank."""
    x = move_to_front(b, x, dim)
    shape = tensor_of(x.type).shape
    if len(shape) - 1 < rank:
        x = b.reshape(x, shape=shape[:1] + (1,) * (rank + 1 - len(shape)) + shape[1:])
    return x


# --- batching helpers ------------------------------------------------------------------------


def example_ndim(x: Any, dim: int | None) -> int:
    """The rank of one example of ``x`` (batched along ``dim`` or not)."""
    t = tensor_of(x.type)
    return 0 if t is None else t.ndim - (dim is not None)


def batch_size(args: Sequence[Any], dims: Sequence[Any]) -> int:
    """The batch size, read off the first batched operand."""
    for a, d in zip(args, dims):
        if isinstance(d, int):
            return tensor_of(a.type).shape[d]
    raise ValueError("no batched operand")


def batched_front(b: Any, x: Any, dim: int | None, size: int) -> Any:
    """``x`` batched along axis 0: moved there, or broadcast to ``size`` rows."""
    if dim is not None:
        return move_to_front(b, x, dim)
    t = tensor_of(x.type)
    return b.broadcast_to(b.reshape(x, shape=(1,) + t.shape), shape=(size,) + t.shape)


def batch_reshape_like(b: Any, prim: Any, args: Sequence[Any], dims: Sequence[int | None],
                       **attrs: Any) -> tuple[Any, int]:
    """Ops that only change the shape (Reshape, ExpandDims, Squeeze, Flatten): the batched
    operand reshaped to the batch size followed by one example's result shape."""
    x = move_to_front(b, args[0], dims[0])
    t = tensor_of(x.type)
    example = prim.infer(type(t)(t.dtype, t.shape[1:]), **attrs)
    return b.reshape(x, shape=t.shape[:1] + example.shape), 0


def on_rows(b: Any, prim: Any, x: Any, dim: int | None, **attrs: Any) -> tuple[Any, int]:
    """``prim`` on ``x`` whose examples are 0-d: applied to (N, 1) along axis 1, so the
    op's axes stay valid, and reshaped back to (N,)."""
    x = move_to_front(b, x, dim)
    n = tensor_of(x.type).shape[0]
    out = b.emit(prim, b.reshape(x, shape=(n, 1)), **attrs)
    return b.reshape(out, shape=(n,)), 0

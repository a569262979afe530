"""MindSpore ops that move elements around, composed exactly from msc's primitives:
``index_fill``, ``reverse_sequence`` (a GatherD with a per-batch index map),
``channel_shuffle``, ``DepthToSpace``/``SpaceToDepth`` (reshape and transpose),
``diag_embed``, ``fftshift``, and ``lrn`` (a band-matrix product over the channels), with
their primitive classes. They run eagerly and in graphs on both targets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.frontend.api.functional import _as_tensor
from msc.frontend.api.functional_array import _count
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Tensor, apply
from msc.ir.primitives import Op

__all__ = ["index_fill", "reverse_sequence", "channel_shuffle", "lrn", "diag_embed",
           "fftshift", "ifftshift", "IndexFill", "ReverseSequence", "ChannelShuffle", "LRN",
           "DepthToSpace", "SpaceToDepth", "DiagPart"]


def _fail(op: str, message: str, kind: type = GraphValueError) -> None:
    raise kind(f"For '{op}', {message}")


def _axis(x: Tensor, axis: Any, op: str) -> int:
    axis = _count(axis, "axis", op)
    if not -x.ndim <= axis < max(x.ndim, 1):
        _fail(op, f"the 'axis' must be in range [{-x.ndim}, {x.ndim}), but got {axis}.")
    return axis % max(x.ndim, 1)


def _along(values: Any, axis: int, ndim: int) -> Any:
    """A 1-D ``values`` shaped to broadcast along ``axis`` of an ``ndim`` tensor."""
    return F.reshape(values, tuple(-1 if d == axis else 1 for d in range(ndim)))


def index_fill(x: Any, axis: Any, index: Any, value: Any) -> Any:
    """``x`` with the slices ``index`` along ``axis`` set to ``value``."""
    x, index = _as_tensor(x, "IndexFill"), _as_tensor(index, "IndexFill")
    ax = _axis(x, axis, "IndexFill")
    if not index.dtype.is_int or index.ndim > 1:
        _fail("IndexFill", f"the 'index' must be a 0-D or 1-D int tensor, but got "
                           f"{index.dtype} of shape {index.shape}.", GraphTypeError)
    size = x.shape[ax]
    index = F.reshape(index, (-1, 1))
    index = F.select(index < 0, index + size, index)
    slots = Tensor(np.arange(size).reshape(1, size).astype(index.dtype.np))
    chosen = F.any(apply(Op.Equal, index, slots), 0)
    fill = F.cast(value if isinstance(value, Tensor) else Tensor(value), x.dtype)
    return F.select(F.broadcast_to(_along(chosen, ax, x.ndim), x.shape),
                    F.broadcast_to(fill, x.shape), x)


def reverse_sequence(x: Any, seq_lengths: Any, seq_dim: int, batch_dim: int = 0) -> Any:
    """Each batch entry's first ``seq_lengths[b]`` steps along ``seq_dim`` reversed."""
    x, lengths = _as_tensor(x, "ReverseSequence"), _as_tensor(seq_lengths, "ReverseSequence")
    seq, batch = _axis(x, seq_dim, "ReverseSequence"), _axis(x, batch_dim, "ReverseSequence")
    if seq == batch or lengths.shape != (x.shape[batch],):
        _fail("ReverseSequence", f"'seq_dim' {seq_dim} and 'batch_dim' {batch_dim} must differ "
                                 f"and 'seq_lengths' must have shape ({x.shape[batch]},), but "
                                 f"got {lengths.shape}.")
    steps = Tensor(np.arange(x.shape[seq]).reshape(1, -1).astype(lengths.dtype.np))
    limit = F.reshape(lengths, (-1, 1))
    source = F.select(steps < limit, limit - 1 - steps, F.broadcast_to(steps, (
        x.shape[batch], x.shape[seq])))
    if batch > seq:
        source = F.transpose(source, (1, 0))
    shape = tuple(x.shape[d] if d in (seq, batch) else 1 for d in range(x.ndim))
    return A.gather_d(x, seq, F.broadcast_to(F.reshape(source, shape), x.shape))


def channel_shuffle(x: Any, groups: int) -> Any:
    """Channels (dim 1) regrouped: channel g * (C / groups) + i goes to i * groups + g."""
    x = _as_tensor(x, "ChannelShuffle")
    if x.ndim <= 3:
        _fail("ChannelShuffle", f"expect input with > 3 dims, but got {x.ndim}.", GraphTypeError)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0 or \
            x.shape[1] % groups:
        _fail("ChannelShuffle", f"the 'groups' must be a positive int dividing the channel "
                                f"count {x.shape[1]}, but got {groups!r}.")
    n, c, rest = x.shape[0], x.shape[1], x.shape[2:]
    split = F.reshape(x, (n, groups, c // groups, *rest))
    order = (0, 2, 1, *range(3, split.ndim))
    return F.reshape(F.transpose(split, order), x.shape)


def _nchw(x: Any, block_size: int, op: str) -> Tensor:
    x = _as_tensor(x, op)
    if x.ndim != 4:
        _fail(op, f"the input must be 4-D, but got {x.ndim}-D.")
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 2:
        _fail(op, f"the 'block_size' must be an int of at least 2, but got {block_size!r}.")
    return x


def _depth_to_space(x: Any, b: int) -> Any:
    x = _nchw(x, b, "DepthToSpace")
    n, c, h, w = x.shape
    if c % (b * b):
        _fail("DepthToSpace", f"the channel count {c} must be divisible by block_size**2.")
    blocks = F.reshape(x, (n, b, b, c // (b * b), h, w))
    return F.reshape(F.transpose(blocks, (0, 3, 4, 1, 5, 2)), (n, c // (b * b), h * b, w * b))


def _space_to_depth(x: Any, b: int) -> Any:
    x = _nchw(x, b, "SpaceToDepth")
    n, c, h, w = x.shape
    if h % b or w % b:
        _fail("SpaceToDepth", f"the height {h} and width {w} must be divisible by block_size.")
    blocks = F.reshape(x, (n, c, h // b, b, w // b, b))
    return F.reshape(F.transpose(blocks, (0, 3, 5, 1, 2, 4)), (n, c * b * b, h // b, w // b))


def lrn(x: Any, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
        beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS") -> Any:
    """x / (bias + alpha * sum of x^2 over the channels within depth_radius) ** beta."""
    x = _as_tensor(x, "LRN")
    if norm_region != "ACROSS_CHANNELS":
        _fail("LRN", f"the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
    if x.ndim != 4 or not x.dtype.is_float:
        _fail("LRN", f"the input must be a 4-D float tensor, but got {x.dtype} of shape "
                     f"{x.shape}.", GraphTypeError)
    channels = np.arange(x.shape[1])
    band = np.abs(channels[:, None] - channels[None, :]) <= depth_radius
    last = F.transpose(F.square(x), (0, 2, 3, 1))
    window = F.transpose(F.matmul(last, Tensor(band.astype(x.dtype.np))), (0, 3, 1, 2))
    return x / (bias + alpha * window) ** beta


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:  # noqa: A002
    """The last dim of ``input`` on the ``offset`` diagonal of the new dims ``dim1``,
    ``dim2``."""
    x = _as_tensor(input, "diag_embed")
    rank = x.ndim + 1
    first, second = (d % rank if -rank <= d < rank else None for d in (dim1, dim2))
    if first is None or second is None or first == second:
        _fail("diag_embed", f"'dim1' {dim1} and 'dim2' {dim2} must be distinct dims of a "
                            f"{rank}-D result.")
    length = x.shape[-1]
    size = length + abs(offset)
    where = np.zeros((length, size, size), bool)
    k = np.arange(length)
    where[k, k + max(-offset, 0), k + max(offset, 0)] = True
    spread = (*x.shape, size, size)
    planes = F.select(F.broadcast_to(Tensor(where), spread),
                      F.broadcast_to(F.reshape(x, (*x.shape, 1, 1)), spread),
                      F.zeros(spread, x.dtype))
    out = F.cast(F.sum(planes, x.ndim - 1), x.dtype)  # one term each: exact, same dtype
    batch = iter(range(x.ndim - 1))
    order = tuple(x.ndim - 1 if d == first else x.ndim if d == second else next(batch)
                  for d in range(rank))
    return F.transpose(out, order)


def _shift(input: Any, dim: Any, sign: int, op: str) -> Any:
    x = _as_tensor(input, op)
    dims = tuple(range(x.ndim)) if dim is None else \
        tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return A.roll(x, tuple(sign * (x.shape[d] // 2) for d in dims), dims)


def fftshift(input: Any, dim: Any = None) -> Any:  # noqa: A002
    """The zero frequency moved to the middle of each of ``dim`` (all by default)."""
    return _shift(input, dim, 1, "fftshift")


def ifftshift(input: Any, dim: Any = None) -> Any:  # noqa: A002
    return _shift(input, dim, -1, "ifftshift")


# --- primitive classes ---------------------------------------------------------------------


class IndexFill(Primitive):
    def __call__(self, x: Any, dim: Any, index: Any, value: Any) -> Any:
        return index_fill(x, dim, index, value)


class ReverseSequence(Primitive):
    def __init__(self, seq_dim: int, batch_dim: int = 0):
        super().__init__(seq_dim=seq_dim, batch_dim=batch_dim)

    def __call__(self, x: Any, seq_lengths: Any) -> Any:
        return reverse_sequence(x, seq_lengths, self.attrs["seq_dim"], self.attrs["batch_dim"])


class ChannelShuffle(Primitive):
    def __init__(self, group: int):
        super().__init__(group=group)

    def __call__(self, x: Any) -> Any:
        return channel_shuffle(x, self.attrs["group"])


class LRN(Primitive):
    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                 beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS"):
        super().__init__(depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta,
                         norm_region=norm_region)

    def __call__(self, x: Any) -> Any:
        return lrn(x, **self.attrs)


class DepthToSpace(Primitive):
    """NCHW: channel (i * b + j) * C' + c moves to pixel (h * b + i, w * b + j) of c."""

    def __init__(self, block_size: int):
        super().__init__(block_size=block_size)

    def __call__(self, x: Any) -> Any:
        return _depth_to_space(x, self.attrs["block_size"])


class SpaceToDepth(DepthToSpace):
    """The inverse of ``DepthToSpace``."""

    def __call__(self, x: Any) -> Any:
        return _space_to_depth(x, self.attrs["block_size"])


class DiagPart(Primitive):
    """The diagonal of a tensor of shape ``s + s``: shape ``s``."""

    def __call__(self, input_x: Any) -> Any:
        x = _as_tensor(input_x, "DiagPart")
        half = x.shape[:x.ndim // 2]
        if x.ndim % 2 or x.shape != half + half:
            _fail("DiagPart", f"the input shape must be 's + s', but got {x.shape}.")
        n = int(np.prod(half))
        picks = Tensor(np.arange(n, dtype=np.int32) * (n + 1))
        return F.reshape(F.gather(F.reshape(x, (-1,)), picks, 0), half)

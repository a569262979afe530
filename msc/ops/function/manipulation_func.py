"""Array manipulation, composed exactly from msc's primitives: stacking and splitting
(``hstack``, ``tensor_split``, ``atleast_2d``), reversing and rotating (``reverse``,
``rot90``, ``reverse_sequence``, a GatherD with a per-batch index map), diagonals
(``diagonal``, ``diagflat``, ``diag_embed``), moving elements between axes (``swapdims``,
``DepthToSpace``/``SpaceToDepth`` as reshape and transpose), ``index_fill``, ``take``,
``top_k``, ``sequence_mask`` and ``fftshift``. They run eagerly and in graphs on both
targets.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.array_func import _count
from msc.ops.function.arguments import _axis_of


def view_as(input: Any, other: Any) -> Any:
    return F.reshape(input, _as_tensor(other, "view_as").shape)


def type_as(input: Any, other: Any) -> Any:
    return F.cast(input, _as_tensor(other, "type_as").dtype)


# --- stacking, splitting, shape helpers -----------------------------------------------------


def _at_least(inputs: Any, rank: int, op: str) -> Any:
    def one(x: Any) -> Any:
        t = _as_tensor(x, op)
        if t.ndim >= rank:
            return t
        shape = {0: (1,) * rank, 1: (1, -1) + (1,) * (rank - 2), 2: t.shape + (1,)}[t.ndim]
        return F.reshape(t, shape)

    if isinstance(inputs, (tuple, list)):
        return tuple(one(x) for x in inputs)
    return one(inputs)


def atleast_1d(inputs: Any) -> Any:
    return _at_least(inputs, 1, "atleast_1d")


def atleast_2d(inputs: Any) -> Any:
    return _at_least(inputs, 2, "atleast_2d")


def atleast_3d(inputs: Any) -> Any:
    """Vectors become (1, n, 1), matrices (m, n, 1), as numpy does."""
    return _at_least(inputs, 3, "atleast_3d")


def hstack(tensors: Any) -> Any:
    ts = atleast_1d(tuple(tensors))
    return F.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs: Any) -> Any:
    return F.concat(atleast_2d(tuple(inputs)), 0)


row_stack = vstack


def dstack(tensors: Any) -> Any:
    return F.concat(atleast_3d(tuple(tensors)), 2)


def column_stack(tensors: Any) -> Any:
    ts = tuple(F.reshape(t, (-1, 1)) if _as_tensor(t, "column_stack").ndim < 2 else t
               for t in tensors)
    return F.concat(ts, 1)


def swapdims(input: Any, dim0: int, dim1: int) -> Any:
    return A.swapaxes(input, dim0, dim1)


def tensor_split(input: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:
    """Sections of nearly equal size (the first ones one longer), or the pieces between
    the given indices."""
    x = _as_tensor(input, "tensor_split")
    axis = _axis_of(x, axis, "tensor_split")
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(
            indices_or_sections, bool):
        parts = int(indices_or_sections)
        if parts <= 0:
            with _checking("tensor_split"):
                raise GraphValueError(f"the number of sections must be positive, but got "
                                      f"{parts}")
        size, extra = divmod(n, parts)
        bounds = np.cumsum([0] + [size + (i < extra) for i in range(parts)]).tolist()
    elif isinstance(indices_or_sections, (tuple, list)):
        cuts = [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n)
                for i in indices_or_sections]
        bounds = [0] + cuts + [n]
    else:
        with _checking("tensor_split"):
            raise GraphTypeError(f"indices_or_sections must be an int or a list of ints, "
                                 f"but got {type(indices_or_sections).__name__}")
    return tuple(A._narrow(x, axis, lo, builtins.max(lo, hi))
                 for lo, hi in zip(bounds[:-1], bounds[1:]))


def _split_along(input: Any, indices_or_sections: Any, axis: int, rank: int, op: str) -> Any:
    x = _as_tensor(input, op)
    if x.ndim < rank:
        with _checking(op):
            raise ShapeError(f"the input must have at least {rank} dims, but got {x.ndim}")
    if isinstance(indices_or_sections, int) and x.shape[axis] % indices_or_sections:
        with _checking(op):
            raise GraphValueError(f"dim {axis} (size {x.shape[axis]}) does not split into "
                                  f"{indices_or_sections} equal sections")
    return tensor_split(x, indices_or_sections, axis)


def hsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    x = _as_tensor(input, "hsplit")
    return _split_along(x, indices_or_sections, 0 if x.ndim == 1 else 1, 1, "hsplit")


def vsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    return _split_along(input, indices_or_sections, 0, 2, "vsplit")


def dsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:
    return _split_along(input, indices_or_sections, 2, 3, "dsplit")


def reverse(x: Any, axis: Any) -> Any:
    return A.flip(x, axis)


def rot90(input: Any, k: int, dims: Any) -> Any:
    """Rotated by ``k`` quarter turns from ``dims[0]`` toward ``dims[1]``."""
    x = _as_tensor(input, "rot90")
    a, b = (_axis_of(x, d, "rot90") for d in dims)
    if a == b:
        with _checking("rot90"):
            raise GraphValueError(f"the dims must differ, but got {tuple(dims)}")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return A.flip(x, (a, b))
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return F.transpose(A.flip(x, (b,)), tuple(perm))
    return A.flip(F.transpose(x, tuple(perm)), (b,))


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """The ``offset`` diagonal of dims ``dim1`` and ``dim2``, as the last dim."""
    x = _as_tensor(input, "diagonal")
    a, b = _axis_of(x, dim1, "diagonal"), _axis_of(x, dim2, "diagonal")
    if a == b:
        with _checking("diagonal"):
            raise GraphValueError(f"dim1 and dim2 must differ, but got {dim1} and {dim2}")
    keep = [d for d in range(x.ndim) if d not in (a, b)]
    rows, cols = x.shape[a], x.shape[b]
    start_r, start_c = builtins.max(-offset, 0), builtins.max(offset, 0)
    length = builtins.max(builtins.min(rows - start_r, cols - start_c), 0)
    flat = F.reshape(F.transpose(x, tuple(keep + [a, b])),
                     tuple(x.shape[d] for d in keep) + (rows * cols,))
    index = (np.arange(length) + start_r) * cols + np.arange(length) + start_c
    return F.gather(flat, Tensor(index.astype(np.int32)), len(keep))


def diagflat(input: Any, offset: int = 0) -> Any:
    """A square matrix with the flattened input on its ``offset`` diagonal."""
    v = F.reshape(_as_tensor(input, "diagflat"), (-1,))
    k = v.shape[0]
    n = k + abs(offset)
    rows, cols = np.indices((n, n))
    where = cols - rows == offset
    if not k:
        return F.zeros((n, n), v.dtype)
    picks = np.where(where, np.minimum(rows, cols), 0).astype(np.int32)
    return F.select(Tensor(where), F.gather(v, Tensor(picks), 0), F.zeros((n, n), v.dtype))


def take(input: Any, index: Any) -> Any:
    """Elements of the flattened input at ``index`` (the result has index's shape)."""
    return F.gather(F.reshape(input, (-1,)), index, 0)


def top_k(input_x: Any, k: int, sorted: bool = True) -> tuple[Any, Any]:
    return A.topk(input_x, k)


def sequence_mask(lengths: Any, maxlen: Any = None) -> Any:
    """``mask[..., j] = j < lengths[...]``; ``maxlen`` defaults to the largest length
    (eagerly only: a graph needs the shape at compile time)."""
    t = _as_tensor(lengths, "sequence_mask")
    if maxlen is None:
        maxlen = int(np.max(t.asnumpy())) if t.size else 0
    steps = Tensor(np.arange(maxlen, dtype=t.dtype.np))
    return apply(Op.Less, steps, F.expand_dims(t, -1))


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


def _blocks(block: Any, rank: int, op: str) -> tuple[int, ...]:
    blocks = tuple(block) if isinstance(block, (tuple, list)) else (block,)
    if not blocks or any(isinstance(b, bool) or not isinstance(b, int) or b < 1
                         for b in blocks) or len(blocks) > rank - 1:
        raise GraphValueError(f"For '{op}', the 'block_shape' must be positive ints, one per "
                              f"spatial dim, but got {block!r}.")
    return blocks


def _pairs(value: Any, m: int, what: str, op: str) -> list[tuple[int, int]]:
    rows = [tuple(r) for r in value]
    if len(rows) != m or any(len(r) != 2 or min(r) < 0 for r in rows):
        raise GraphValueError(f"For '{op}', the '{what}' must be {m} pairs of non-negative ints, "
                              f"but got {value!r}.")
    return rows  # type: ignore[return-value]


def space_to_batch_nd(input_x: Any, block_size: Any, paddings: Any) -> Any:
    """The last M dims padded, split into blocks of ``block_size`` and the block offsets
    moved into the batch: output batch (o1 b2 + o2 ...) N + n."""
    x = _as_tensor(input_x, "SpaceToBatchND")
    blocks = _blocks(block_size, x.ndim, "SpaceToBatchND")
    m = len(blocks)
    pads = _pairs(paddings, m, "paddings", "SpaceToBatchND")
    x = F.pad(x, tuple(v for pair in reversed(pads) for v in pair))
    lead, spatial = x.shape[:x.ndim - m], x.shape[x.ndim - m:]
    if any(n % b for n, b in zip(spatial, blocks)):
        raise GraphValueError(f"For 'SpaceToBatchND', the padded spatial shape {spatial} must be "
                              f"divisible by 'block_shape' {blocks}.")
    split = lead + tuple(v for n, b in zip(spatial, blocks) for v in (n // b, b))
    k = len(lead)
    order = tuple(k + 2 * i + 1 for i in range(m)) + tuple(range(k)) + \
        tuple(k + 2 * i for i in range(m))
    out = F.transpose(F.reshape(x, split), order)
    return F.reshape(out, (lead[0] * int(np.prod(blocks)),) + lead[1:] +
                     tuple(n // b for n, b in zip(spatial, blocks)))


def batch_to_space_nd(input_x: Any, block_shape: Any, crops: Any) -> Any:
    """The inverse of ``space_to_batch_nd``: batch blocks moved back into the last M dims,
    then ``crops`` cut from their ends."""
    x = _as_tensor(input_x, "BatchToSpaceND")
    blocks = _blocks(block_shape, x.ndim, "BatchToSpaceND")
    m = len(blocks)
    cuts = _pairs(crops, m, "crops", "BatchToSpaceND")
    total = int(np.prod(blocks))
    if x.shape[0] % total:
        raise GraphValueError(f"For 'BatchToSpaceND', the batch {x.shape[0]} must be divisible "
                              f"by the product of 'block_shape' {total}.")
    lead, spatial = x.shape[1:x.ndim - m], x.shape[x.ndim - m:]
    k = len(lead) + 1
    out = F.reshape(x, blocks + (x.shape[0] // total,) + lead + spatial)
    order = tuple(range(m, m + k)) + tuple(v for i in range(m) for v in (m + k + i, i))
    out = F.reshape(F.transpose(out, order), (x.shape[0] // total,) + lead +
                    tuple(n * b for n, b in zip(spatial, blocks)))
    return F.pad(out, tuple(-v for pair in reversed(cuts) for v in pair))


__all__ = ["view_as", "type_as", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack",
           "row_stack", "dstack", "column_stack", "swapdims", "tensor_split", "hsplit", "vsplit",
           "dsplit", "reverse", "rot90", "diagonal", "diagflat", "take", "top_k", "sequence_mask",
           "index_fill", "reverse_sequence", "diag_embed", "fftshift", "ifftshift",
           "space_to_batch_nd", "batch_to_space_nd"]

"""MindSpore's array primitive classes (``ops.Reshape()``, ``ops.Gather()``,
``ops.Sort(axis)``, ``ops.TensorScatterMul()``, ``ops.EmbeddingLookup()``, ...): attributes
go to ``__init__``, inputs to ``__call__``; each call is the functional form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, UnsupportedSyntaxError
from msc.frontend.builder import current_builder
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.creation_func import scalar_to_tensor, tril_indices, triu_indices
from msc.ops.function.manipulation_func import (
    _depth_to_space,
    _fail,
    _space_to_depth,
    batch_to_space_nd,
    index_fill,
    reverse_sequence,
    space_to_batch_nd,
)
from msc.ops.function.scatter_func import (
    inplace_add,
    inplace_sub,
    inplace_update,
    tensor_scatter_div,
    tensor_scatter_max,
    tensor_scatter_min,
    tensor_scatter_mul,
    tensor_scatter_sub,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sum,
)
from msc.ops.primitive import Primitive


# --- casts and shapes ---------------------------------------------------------------------


class Cast(Primitive):
    def __call__(self, input_x: Any, type_: dtypes.DType) -> Any:
        return F.cast(input_x, type_)


class OneHot(Primitive):
    def __init__(self, axis: int = -1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, indices: Any, depth: int, on_value: Any, off_value: Any) -> Any:
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class Reshape(Primitive):
    def __call__(self, input_x: Any, input_shape: Any) -> Any:
        return F.reshape(input_x, input_shape)


class Transpose(Primitive):
    def __call__(self, input_x: Any, input_perm: Any) -> Any:
        return F.transpose(input_x, input_perm)


class ExpandDims(Primitive):
    def __call__(self, input_x: Any, axis: int) -> Any:
        return F.expand_dims(input_x, axis)


class Squeeze(Primitive):
    def __init__(self, axis: Any = ()):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return apply(Op.Squeeze, input_x, axis=F._axis_attr(self.axis))


class Flatten(Primitive):
    """(N, ...) -> (N, prod(...))."""

    def __call__(self, input_x: Any) -> Any:
        return apply(Op.Flatten, input_x)


class Concat(Primitive):
    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return F.concat(input_x, self.axis)


class Stack(Concat):
    def __call__(self, input_x: Any) -> Any:
        return F.stack(input_x, self.axis)


class Split(Primitive):
    """``output_num`` equal parts along ``axis``."""

    def __init__(self, axis: int = 0, output_num: int = 1):
        super().__init__(axis=axis, output_num=output_num)
        self.axis, self.output_num = axis, output_num

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        return apply(Op.Split, input_x, axis=self.axis, output_num=self.output_num)


class Gather(Primitive):
    def __init__(self, batch_dims: int = 0):
        super().__init__(batch_dims=batch_dims)
        self.batch_dims = batch_dims

    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Any:
        return F.gather(input_params, input_indices, axis, self.batch_dims)


class StridedSlice(Primitive):
    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                 new_axis_mask: int = 0, shrink_axis_mask: int = 0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                         shrink_axis_mask=shrink_axis_mask)

    def __call__(self, input_x: Any, begin: Any, end: Any, strides: Any) -> Any:
        return F.strided_slice(input_x, begin, end, strides, **self.attrs)


class Slice(Primitive):
    def __call__(self, input_x: Any, begin: Any, size: Any) -> Any:
        return F.slice(input_x, begin, size)


class BroadcastTo(Primitive):
    def __init__(self, shape: Any):
        super().__init__(shape=shape)
        self.shape = shape

    def __call__(self, input_x: Any) -> Any:
        return F.broadcast_to(input_x, self.shape)


class Tile(Primitive):
    def __call__(self, input_x: Any, multiples: Any) -> Any:
        return F.tile(input_x, multiples)


# --- creation -----------------------------------------------------------------------------


class Zeros(Primitive):
    def __call__(self, size: Any, type: dtypes.DType | None = None) -> Any:  # noqa: A002
        return F.zeros(size, type)


class Ones(Primitive):
    def __call__(self, size: Any, type: dtypes.DType | None = None) -> Any:  # noqa: A002
        return F.ones(size, type)


class Fill(Primitive):
    def __call__(self, type: dtypes.DType, shape: Any, value: Any) -> Any:  # noqa: A002
        return F.fill(type, shape, value)


# --- sorting, running products, gathers and scatters, triangles, flips --------------------


class Sort(Primitive):
    def __init__(self, axis: int = -1, descending: bool = False):
        super().__init__(axis=axis, descending=descending)
        self.axis, self.descending = axis, descending

    def __call__(self, x: Any) -> tuple[Any, Any]:
        return A.sort(x, self.axis, self.descending)


class TopK(Primitive):
    """The ``k`` largest along the last axis (always sorted here)."""

    def __init__(self, sorted: bool = True):
        super().__init__(sorted=sorted)

    def __call__(self, input_x: Any, k: Any) -> tuple[Any, Any]:
        return A.topk(input_x, k)


class CumProd(Primitive):
    def __init__(self, exclusive: bool = False, reverse: bool = False):
        super().__init__(exclusive=exclusive, reverse=reverse)
        self.exclusive, self.reverse = exclusive, reverse

    def __call__(self, x: Any, axis: int) -> Any:
        return apply(Op.CumProd, x, axis=axis, exclusive=self.exclusive, reverse=self.reverse)


class Cummax(Primitive):
    def __init__(self, axis: int):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input: Any) -> tuple[Any, Any]:
        return A.cummax(input, self.axis)


class Cummin(Cummax):
    def __call__(self, input: Any) -> tuple[Any, Any]:
        return A.cummin(input, self.axis)


class GatherD(Primitive):
    def __call__(self, x: Any, dim: int, index: Any) -> Any:
        return A.gather_d(x, dim, index)


class GatherNd(Primitive):
    def __call__(self, input_x: Any, indices: Any) -> Any:
        return A.gather_nd(input_x, indices)


class ScatterNd(Primitive):
    def __call__(self, indices: Any, updates: Any, shape: Any) -> Any:
        return A.scatter_nd(indices, updates, shape)


class TensorScatterUpdate(Primitive):
    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return A.tensor_scatter_update(input_x, indices, updates)


class TensorScatterAdd(Primitive):
    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return A.tensor_scatter_add(input_x, indices, updates)


class TensorScatterElements(Primitive):
    def __init__(self, axis: int = 0, reduction: str = "none"):
        super().__init__(axis=axis, reduction=reduction)
        self.axis, self.reduction = axis, reduction

    def __call__(self, data: Any, indices: Any, updates: Any) -> Any:
        return A.tensor_scatter_elements(data, indices, updates, self.axis, self.reduction)


class IndexAdd(Primitive):
    def __init__(self, axis: int, use_lock: bool = True, check_index_bound: bool = True):
        super().__init__(axis=axis, use_lock=use_lock, check_index_bound=check_index_bound)
        self.axis = axis

    def __call__(self, input_x: Any, indices: Any, input_y: Any) -> Any:
        return A.index_add(input_x, indices, input_y, self.axis)


class MaskedFill(Primitive):
    def __call__(self, input: Any, mask: Any, value: Any) -> Any:
        return A.masked_fill(input, mask, value)


class Tril(Primitive):
    def __init__(self, diagonal: int = 0):
        super().__init__(diagonal=diagonal)
        self.diagonal = diagonal

    def __call__(self, x: Any) -> Any:
        return A.tril(x, self.diagonal)


class Triu(Tril):
    def __call__(self, x: Any) -> Any:
        return A.triu(x, self.diagonal)


class ReverseV2(Primitive):
    def __init__(self, axis: Any):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return A.flip(input_x, self.axis)


class Roll(Primitive):
    def __init__(self, shift: Any, axis: Any):
        super().__init__(shift=shift, axis=axis)
        self.shift, self.axis = shift, axis

    def __call__(self, input_x: Any) -> Any:
        return A.roll(input_x, self.shift, self.axis)


class Unstack(Primitive):
    def __init__(self, axis: int = 0, num: int | None = None):
        super().__init__(axis=axis, num=num)
        self.axis = axis

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        return A.unbind(input_x, self.axis)


class Eye(Primitive):
    def __call__(self, n: int, m: int, t: dtypes.DType) -> Any:
        return A.eye(n, m, t)


class LinSpace(Primitive):
    def __call__(self, start: Any, stop: Any, num: Any) -> Any:
        return A.linspace(start, stop, num)


class Meshgrid(Primitive):
    def __init__(self, indexing: str = "xy"):
        super().__init__(indexing=indexing)
        self.indexing = indexing

    def __call__(self, inputs: Any) -> tuple[Any, ...]:
        return A.meshgrid(*inputs, indexing=self.indexing)


class Shape(Primitive):
    """The static shape, a tuple of Python ints (in a graph too)."""

    def __call__(self, input_x: Any) -> tuple[int, ...]:
        return F.shape(input_x)


class DType(Primitive):
    def __call__(self, input_x: Any) -> dtypes.DType:
        return F.dtype(input_x)


class Size(Primitive):
    def __call__(self, input_x: Any) -> int:
        return A.size(input_x)


class Rank(Primitive):
    def __call__(self, input_x: Any) -> int:
        return F.rank(input_x)


# --- aliases and short compositions -------------------------------------------------------


class Identity(Primitive):
    def __call__(self, x: Any) -> Any:
        return A.identity(x)


class Eps(Primitive):
    """A tensor like ``x`` filled with its dtype's machine epsilon."""

    def __call__(self, x: Any) -> Any:
        return F.fill(x.dtype, x.shape, float(np.finfo(x.dtype.np).eps))


class Fills(Primitive):
    def __call__(self, x: Any, value: Any) -> Any:
        return F.fill(x.dtype, x.shape, value)


class Expand(Primitive):
    def __call__(self, x: Any, shape: Any) -> Any:
        return F.broadcast_to(x, shape)


class TensorShape(Primitive):
    """The shape as an int64 tensor (a constant: shapes are static in msc)."""

    def __call__(self, input_x: Any) -> Any:
        return Tensor(np.array(input_x.shape, np.int64))


class GatherV2(Primitive):
    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Any:
        return F.gather(input_params, input_indices, axis)


class Pack(Primitive):
    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return F.stack(x, self.axis)


class Unpack(Pack):
    def __call__(self, x: Any) -> Any:
        return A.unstack(x, self.axis)


class SplitV(Primitive):
    """Pieces of the given sizes along ``split_dim`` (one size may be -1: the rest)."""

    def __init__(self, size_splits: Any, split_dim: int, num_split: int):
        super().__init__(size_splits=size_splits, split_dim=split_dim, num_split=num_split)
        self.size_splits, self.split_dim = list(size_splits), split_dim

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        sizes = list(self.size_splits)
        if -1 in sizes:
            sizes[sizes.index(-1)] = input_x.shape[self.split_dim] - (sum(sizes) + 1)
        return F.split(input_x, sizes, self.split_dim)


# --- moving elements ----------------------------------------------------------------------


class IndexFill(Primitive):
    def __call__(self, x: Any, dim: Any, index: Any, value: Any) -> Any:
        return index_fill(x, dim, index, value)


class ReverseSequence(Primitive):
    def __init__(self, seq_dim: int, batch_dim: int = 0):
        super().__init__(seq_dim=seq_dim, batch_dim=batch_dim)

    def __call__(self, x: Any, seq_lengths: Any) -> Any:
        return reverse_sequence(x, seq_lengths, self.attrs["seq_dim"], self.attrs["batch_dim"])


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


def _square_block(block_size: Any, pairs: Any, what: str, op: str) -> tuple[int, int]:
    """MindSpore's checks of the deprecated 4-D forms: an int block of at least 2 and a
    (2, 2) table of non-negative ints; the block is the same along H and W."""
    if isinstance(block_size, bool) or not isinstance(block_size, int):
        raise GraphTypeError(f"For '{op}', the 'block_size' must be an int, but got "
                             f"{type(block_size).__name__}.")
    if block_size < 2:
        raise GraphValueError(f"For '{op}', the 'block_size' must be greater than or equal to "
                              f"2, but got {block_size}.")
    if not isinstance(pairs, (tuple, list)):
        raise GraphTypeError(f"For '{op}', the '{what}' must be a list or tuple, but got "
                             f"{type(pairs).__name__}.")
    if np.shape(pairs) != (2, 2) or any(isinstance(v, bool) or not isinstance(v, int) or v < 0
                                        for row in pairs for v in row):
        raise GraphValueError(f"For '{op}', the '{what}' must be 2 pairs of non-negative ints, "
                              f"but got {pairs!r}.")
    return block_size, block_size


def _four_d(x: Any, op: str) -> Any:
    x = _as_tensor(x, op)
    if x.ndim != 4:
        raise GraphValueError(f"For '{op}', the rank of 'input_x' must be 4, but got {x.ndim}.")
    return x


class SpaceToBatch(Primitive):
    """``SpaceToBatchND`` over (N, C, H, W) with one block size for H and W."""

    def __init__(self, block_size: int, paddings: Any):
        super().__init__(block_size=block_size, paddings=paddings)
        self.block_shape = _square_block(block_size, paddings, "paddings", "SpaceToBatch")
        self.block_size, self.paddings = block_size, paddings

    def __call__(self, input_x: Any) -> Any:
        return space_to_batch_nd(_four_d(input_x, "SpaceToBatch"), self.block_shape,
                                 self.paddings)


class BatchToSpace(Primitive):
    """``BatchToSpaceND`` over (N, C, H, W) with one block size for H and W."""

    def __init__(self, block_size: int, crops: Any):
        super().__init__(block_size=block_size, crops=crops)
        self.block_shape = _square_block(block_size, crops, "crops", "BatchToSpace")
        self.block_size, self.crops = block_size, crops

    def __call__(self, input_x: Any) -> Any:
        return batch_to_space_nd(_four_d(input_x, "BatchToSpace"), self.block_shape,
                                 self.crops)


class CheckNumerics(Primitive):
    """``x`` itself, or MindSpore's RuntimeError when it holds a NaN or an infinity. The
    check reads the values, so it runs eagerly; a compiled graph cannot raise on data
    without a tensor ``if`` (docs/differences.md)."""

    def __call__(self, x: Any) -> Any:
        x = _as_tensor(x, "CheckNumerics")  # integers pass, as on MindSpore's CPU
        if isinstance(x, SymTensor):
            raise UnsupportedSyntaxError(
                "For 'CheckNumerics', the check reads the tensor's values, which a compiled "
                "graph does not know: write 'if not ops.isfinite(x).all(): raise "
                "RuntimeError(...)' instead", user_loc())
        values = x.asnumpy()
        for bad, what in ((np.isnan, "NaN"), (np.isinf, "Inf")):
            if bad(values).any():
                raise RuntimeError(f"Tensor had {what} values")
        return x


# --- segment and scatter reductions, in-place updates -------------------------------------


def _over(name: str, function: Any, doc: str) -> type:
    """A primitive class ``name`` with no attributes whose call is ``function``."""
    return type(name, (Primitive,), {"__call__": lambda self, *args: function(*args),
                                     "__doc__": doc, "__module__": __name__})


UnsortedSegmentSum = _over("UnsortedSegmentSum", unsorted_segment_sum,
                           "Sums of the rows of each segment.")
UnsortedSegmentMax = _over("UnsortedSegmentMax", unsorted_segment_max,
                           "Maxima of each segment (the lowest value if empty).")
UnsortedSegmentMin = _over("UnsortedSegmentMin", unsorted_segment_min,
                           "Minima of each segment (the highest value if empty).")
UnsortedSegmentProd = _over("UnsortedSegmentProd", unsorted_segment_prod,
                            "Products of each segment (1 if empty).")
TensorScatterMul = _over("TensorScatterMul", tensor_scatter_mul,
                         "Multiplies by the updates at their indices.")
TensorScatterDiv = _over("TensorScatterDiv", tensor_scatter_div,
                         "Divides by the updates at their indices.")
TensorScatterMax = _over("TensorScatterMax", tensor_scatter_max,
                         "The maximum with the updates at their indices.")
TensorScatterMin = _over("TensorScatterMin", tensor_scatter_min,
                         "The minimum with the updates at their indices.")


class _Segment(Primitive):
    """``ops.Segment<Kind>()(input_x, segment_ids)``: the reduction of each run of rows of
    ``input_x`` that share a sorted, non-negative id; the result has max(id) + 1 rows, an
    empty segment 0 (1 for a product). That length is read from the ids, so in a graph
    they must be a constant, as MindSpore requires; ids computed by the graph are refused."""

    kind = "sum"
    _reduce = {"sum": unsorted_segment_sum, "max": unsorted_segment_max,
               "min": unsorted_segment_min, "prod": unsorted_segment_prod,
               "mean": unsorted_segment_sum}

    def __call__(self, input_x: Any, segment_ids: Any) -> Any:
        op = type(self).__name__
        x, ids = _as_tensor(input_x, op), _as_tensor(segment_ids, op)
        with _checking(op):
            if ids.dtype not in (dtypes.int32, dtypes.int64):
                raise GraphTypeError(f"the 'segment_ids' must be int32 or int64, but got "
                                     f"{ids.dtype}")
            if x.ndim < 1 or ids.ndim != 1 or ids.shape[0] != x.shape[0]:
                raise GraphValueError(f"the 'segment_ids' must be 1-D with one id per row of "
                                      f"'input_x', but got {ids.shape} for {x.shape}")
            if isinstance(ids, (SymTensor, Parameter)) and current_builder() is not None:
                raise GraphTypeError("the result has max(segment_ids) + 1 rows, so in a graph "
                                     "the 'segment_ids' must be a constant (a graph's shapes "
                                     "are fixed when it is compiled)")
            values = ids.asnumpy()
            if values.size and (values[0] < 0 or np.any(np.diff(values) < 0)):
                raise GraphValueError(f"the 'segment_ids' must be non-negative and sorted in "
                                      f"ascending order, but got {values.tolist()}")
        count = int(values[-1]) + 1 if values.size else 0
        out = type(self)._reduce[self.kind](x, ids, count)
        sizes = np.bincount(values, minlength=count).reshape((count,) + (1,) * (x.ndim - 1))
        if self.kind == "mean":
            sizes = Tensor(np.maximum(sizes, 1).astype(x.dtype.np))
            return out / sizes if x.dtype.is_float else F.div(out, sizes, rounding_mode="trunc")
        if self.kind in ("max", "min"):  # empty segments hold 0, not the dtype's extreme
            out = F.select(F.broadcast_to(Tensor(sizes > 0), tuple(out.shape)), out,
                           F.zeros_like(out))
        return out


def _segment(kind: str) -> type:
    name = f"Segment{kind.capitalize()}"
    return type(name, (_Segment,), {"kind": kind, "__module__": __name__,
                                    "__doc__": f"The {kind} of each segment of sorted ids."})


SegmentSum, SegmentMax, SegmentMin, SegmentMean, SegmentProd = (
    _segment(k) for k in ("sum", "max", "min", "mean", "prod"))


class TensorScatterSub(Primitive):
    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return tensor_scatter_sub(input_x, indices, updates)


ConjugateTranspose = _over("ConjugateTranspose", F.transpose,
                           "The transpose (msc's tensors are real).")
Diag = _over("Diag", A.diag, "The input on the diagonal of a tensor of twice its rank.")


class _Rows(Primitive):
    """An ``Inplace*`` class: the rows are fixed when it is made."""

    def __init__(self, indices: Any):
        super().__init__(indices=indices)


class InplaceAdd(_Rows):
    def __call__(self, x: Any, v: Any) -> Any:
        return inplace_add(x, v, self.attrs["indices"])


class InplaceSub(_Rows):
    def __call__(self, x: Any, v: Any) -> Any:
        return inplace_sub(x, v, self.attrs["indices"])


class InplaceUpdate(_Rows):
    def __call__(self, x: Any, v: Any) -> Any:
        return inplace_update(x, v, self.attrs["indices"])


class InplaceUpdateV2(Primitive):
    def __call__(self, x: Any, indices: Any, v: Any) -> Any:
        return inplace_update(x, v, indices)


class _Indices(Primitive):
    def __init__(self, row: int, col: int, offset: int = 0, dtype: Any = dtypes.int32):
        super().__init__(row=row, col=col, offset=offset, dtype=dtype)


class TrilIndices(_Indices):
    def __call__(self) -> Any:
        return tril_indices(**self.attrs)


class TriuIndices(_Indices):
    def __call__(self) -> Any:
        return triu_indices(**self.attrs)


class ScalarToTensor(Primitive):
    def __call__(self, x: Any, dtype: Any = dtypes.float32) -> Any:
        return scalar_to_tensor(x, dtype)


class TupleToArray(Primitive):
    def __call__(self, *args: Any) -> Any:
        return A.tuple_to_array(args[0] if len(args) == 1 else args)


__all__ = ["SegmentSum", "SegmentMax", "SegmentMin", "SegmentMean", "SegmentProd",
           "Cast", "OneHot", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten", "Concat",
           "Stack", "Split", "Gather", "StridedSlice", "Slice", "BroadcastTo", "Tile", "Zeros",
           "Ones", "Fill", "Sort", "TopK", "CumProd", "Cummax", "Cummin", "GatherD", "GatherNd",
           "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterElements",
           "IndexAdd", "MaskedFill", "Tril", "Triu", "ReverseV2", "Roll", "Unstack", "Eye",
           "LinSpace", "Meshgrid", "Shape", "DType", "Size", "Rank", "Identity", "Eps", "Fills",
           "Expand", "TensorShape", "GatherV2", "Pack", "Unpack", "SplitV", "TensorScatterSub",
           "UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd",
           "TensorScatterMul", "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin",
           "InplaceAdd", "InplaceSub", "InplaceUpdate", "InplaceUpdateV2", "Diag", "TrilIndices",
           "TriuIndices", "ConjugateTranspose", "ScalarToTensor", "TupleToArray", "IndexFill",
           "ReverseSequence", "DepthToSpace", "SpaceToDepth", "DiagPart", "SpaceToBatch",
           "BatchToSpace", "CheckNumerics"]

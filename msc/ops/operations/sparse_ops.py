"""``mindspore.ops.operations.sparse_ops``: the primitive classes over a sparse tensor's
parts (indices, values, dense shape). The products and sums with dense tensors are
gathers and segment sums (eager and in graphs); ``SparseSlice``'s number of values
depends on the data, so it runs eagerly only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, ShapeError
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _checking
from msc.ops.function.scatter_func import unsorted_segment_sum
from msc.ops.function.search_func import _eager_values
from msc.ops.operations.composed_ops import _prim


def _fail(op: str, message: str, error: type = ShapeError) -> Any:
    with _checking(op):
        raise error(message)


def _sparse_to_dense(self: Any, indices: Any, values: Any, sparse_shape: Any) -> Any:
    """Values summed into zeros of ``sparse_shape`` at their index tuples."""
    return A.tensor_scatter_add(F.zeros(tuple(sparse_shape), values.dtype), indices, values)


def _sparse_dense_matmul(self: Any, indices: Any, values: Any, sparse_shape: Any,
                         dense: Any) -> Any:
    """(N, C) sparse @ dense, either transposed first: each stored value scales the dense
    row its column picks, summed into its row."""
    shape = tuple(int(s) for s in (sparse_shape.asnumpy() if isinstance(sparse_shape, Tensor)
                                   else sparse_shape))
    if len(shape) != 2 or indices.ndim != 2 or dense.ndim != 2:
        _fail("SparseTensorDenseMatmul", f"the sparse shape {shape}, indices {indices.shape} "
                                         f"and dense {dense.shape} must all be 2-d.")
    if values.dtype != dense.dtype:
        _fail("SparseTensorDenseMatmul", f"values ({values.dtype}) and dense ({dense.dtype}) "
                                         "must have the same dtype.", GraphTypeError)
    row, col = (1, 0) if self.adjoint_st else (0, 1)
    right = F.transpose(dense, (1, 0)) if self.adjoint_dt else dense
    if right.shape[0] != shape[col]:
        _fail("SparseTensorDenseMatmul", f"the dense operand {dense.shape} does not fit the "
                                         f"sparse shape {shape}.")
    picked = F.gather(right, indices[:, col], 0) * F.expand_dims(values, 1)
    return unsorted_segment_sum(picked, indices[:, row], shape[row])


def _sparse_dense_add(self: Any, x1_indices: Any, x1_values: Any, x1_shape: Any,
                      x2: Any) -> Any:
    if not isinstance(x1_shape, Tensor) or x1_shape.dtype != x1_indices.dtype:
        _fail("SparseTensorDenseAdd", "the input arguments[indices, shape] must be all "
                                      "tensor and those type must be same.", GraphTypeError)
    return A.tensor_scatter_add(x2, x1_indices, x1_values)


def _sparse_slice(self: Any, indices: Any, values: Any, shape: Any, start: Any,
                  size: Any) -> tuple[Any, Any, Any]:
    """The values inside the box ``start`` .. ``start + size`` (clipped to ``shape``),
    their indices from its corner (eager only)."""
    idx, vals, dims, begin, extent = _eager_values("SparseSlice", indices, values, shape,
                                                   start, size)
    end = np.minimum(begin + extent, dims)
    inside = np.all((idx >= begin) & (idx < end), axis=1)
    return (Tensor(idx[inside] - begin), Tensor(vals[inside]),
            Tensor((end - begin).astype(dims.dtype)))


_SPARSE = {
    "SparseToDense": _prim("SparseToDense", _sparse_to_dense),
    "SparseTensorDenseMatmul": _prim("SparseTensorDenseMatmul", _sparse_dense_matmul,
                                     (("adjoint_st", False), ("adjoint_dt", False))),
    "SparseTensorDenseAdd": _prim("SparseTensorDenseAdd", _sparse_dense_add),
    "SparseSlice": _prim("SparseSlice", _sparse_slice),
}
globals().update(_SPARSE)

__all__ = list(_SPARSE)

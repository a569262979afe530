"""``mindspore.ops.function.sparse_func``: the functional ops over COOTensor, CSRTensor and
RowTensor (``msc/common/sparse_tensor.py``).

Those that keep the number of stored values (accessors, conversions between the formats
and to dense, products and reductions with dense tensors, ``csr_gather``, ``csr_softmax``,
``coo_concat``) are compositions of gathers, scatter-adds, segment sums and a stable sort:
they run eagerly and in graphs. Those whose number of stored values depends on the data
(``coo_add``, ``csr_add``, ``csr_mm`` of two CSRTensors, ``dense_to_sparse_coo``,
``dense_to_sparse_csr``) run eagerly only and raise msc's error inside a graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.sparse_tensor import (
    COOTensor,
    CSRTensor,
    RowTensorInner,
    _fail,
    coo2csr,
    coo_add,
    csr2coo,
    csr_add,
    csr_div,
    csr_mm,
    csr_mul,
)
from msc.common.tensor import Tensor
from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.scatter_func import unsorted_segment_max, unsorted_segment_sum
from msc.ops.function.search_func import _eager_values


def _want(x: Any, kind: type, op: str) -> Any:
    if not isinstance(x, kind):
        _fail(op, f"the input must be a {kind.__name__}, but got {type(x).__name__}.",
              GraphTypeError)
    return x


# --- making and taking apart --------------------------------------------------------------


def make_coo_tensor(indices: Any, values: Any, dense_shape: Any) -> COOTensor:
    return COOTensor(indices, values, dense_shape)


def make_csr_tensor(indptr: Any, indices: Any, values: Any, dense_shape: Any) -> CSRTensor:
    return CSRTensor(indptr, indices, values, dense_shape)


def make_row_tensor_inner(indices: Any, values: Any, dense_shape: Any) -> RowTensorInner:
    return RowTensorInner(indices, values, dense_shape)


make_row_tensor = make_row_tensor_inner
make_sparse_tensor = make_coo_tensor


def coo_tensor_get_indices(x: COOTensor) -> Any:
    return _want(x, COOTensor, "COOTensorGetIndices").indices


def coo_tensor_get_values(x: COOTensor) -> Any:
    return _want(x, COOTensor, "COOTensorGetValues").values


def coo_tensor_get_dense_shape(x: COOTensor) -> tuple[int, ...]:
    return _want(x, COOTensor, "COOTensorGetDenseShape").shape


def csr_tensor_get_indptr(x: CSRTensor) -> Any:
    return _want(x, CSRTensor, "CSRTensorGetIndptr").indptr


def csr_tensor_get_indices(x: CSRTensor) -> Any:
    return _want(x, CSRTensor, "CSRTensorGetIndices").indices


def csr_tensor_get_values(x: CSRTensor) -> Any:
    return _want(x, CSRTensor, "CSRTensorGetValues").values


def csr_tensor_get_dense_shape(x: CSRTensor) -> tuple[int, ...]:
    return _want(x, CSRTensor, "CSRTensorGetDenseShape").shape


def row_tensor_get_indices(x: RowTensorInner) -> Any:
    return _want(x, RowTensorInner, "RowTensorGetIndices").indices


def row_tensor_get_values(x: RowTensorInner) -> Any:
    return _want(x, RowTensorInner, "RowTensorGetValues").values


def row_tensor_get_dense_shape(x: RowTensorInner) -> tuple[int, ...]:
    return _want(x, RowTensorInner, "RowTensorGetDenseShape").dense_shape


def row_tensor_add(x: RowTensorInner, y: Any) -> RowTensorInner:
    """A RowTensor plus a dense tensor of its dense shape, kept sparse as MindSpore's
    result type is: each stored row gains the dense rows it stands for."""
    _want(x, RowTensorInner, "RowTensorAdd")
    if not isinstance(y, Tensor) or tuple(y.shape) != x.dense_shape:
        _fail("RowTensorAdd", f"y must be a Tensor of shape {x.dense_shape}.")
    return x._with_values(x.values + F.gather(y, x.indices, 0))


# --- conversions --------------------------------------------------------------------------


def csr_to_coo(tensor: CSRTensor) -> COOTensor:
    """A 2-d CSRTensor as a COOTensor with int32 indices, as MindSpore's kernel gives."""
    csr = _want(tensor, CSRTensor, "csr_to_coo")
    if csr.ndim != 2:
        _fail("csr_to_coo", "Currently only support 2-D CSRTensor when converting to COOTensor.")
    coo = csr.to_coo()
    return COOTensor(F.cast(coo.indices, dtypes.int32), coo.values, coo.shape)


def csr_to_dense(csr_tensor: CSRTensor) -> Any:
    csr = _want(csr_tensor, CSRTensor, "csr_to_dense")
    if csr.ndim != 2:
        _fail("csr_to_dense", "Currently only support 2-D CSRTensor when converting to dense.")
    return csr.to_dense()


def _nonzero_2d(tensor: Any, op: str) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(tensor, Tensor):
        _fail(op, "input argument must be a Tensor.", GraphTypeError)
    if tensor.ndim != 2:
        _fail(op, f"Currently only support 2-D Tensor, but got {tensor.ndim}-D.")
    (dense,) = _eager_values(op, tensor)
    return np.stack(np.nonzero(dense), 1).astype(np.int32), dense


def dense_to_sparse_coo(tensor: Any) -> COOTensor:
    """The nonzero elements of a 2-d tensor, in row-major order (eager only)."""
    indices, dense = _nonzero_2d(tensor, "dense_to_sparse_coo")
    return COOTensor(Tensor(indices), Tensor(dense[tuple(indices.T)]), dense.shape)


def dense_to_sparse_csr(tensor: Any) -> CSRTensor:
    """The nonzero elements of a 2-d tensor, compressed by row (eager only)."""
    indices, dense = _nonzero_2d(tensor, "dense_to_sparse_csr")
    counts = np.bincount(indices[:, 0], minlength=dense.shape[0])
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    return CSRTensor(Tensor(indptr), Tensor(indices[:, 1].copy()),
                     Tensor(dense[tuple(indices.T)]), dense.shape)


def coalesce(x_indices: Any, x_values: Any, x_shape: Any) -> tuple[Any, Any, Any]:
    """Repeated indices (columns of ``x_indices``, (ndim, nnz)) summed, sorted (eager
    only): ``COOTensor.coalesce`` on the transposed indices."""
    coo = COOTensor(F.transpose(x_indices, (1, 0)), x_values,
                    tuple(int(s) for s in _eager_values("Coalesce", x_shape)[0]))
    out = coo.coalesce()
    return F.transpose(out.indices, (1, 0)), out.values, x_shape


# --- with dense tensors -------------------------------------------------------------------


def csr_mv(csr_tensor: CSRTensor, dense: Any) -> Any:
    return _want(csr_tensor, CSRTensor, "csr_mv").mv(dense)


def csr_reduce_sum(csr_tensor: CSRTensor, axis: int) -> Any:
    return _want(csr_tensor, CSRTensor, "csr_reduce_sum").sum(axis)


def csr_gather(indptr: Any, indices: Any, dense: Any, sparse_shape: Any) -> Any:
    """The elements of ``dense`` at the positions a CSR pattern stores: its values."""
    rows = csr2coo(indptr, indices.shape[0])
    positions = F.stack((rows, F.cast(indices, indptr.dtype)), 1)
    return A.gather_nd(F.broadcast_to(dense, tuple(sparse_shape)), positions)


def csr_softmax(logits: CSRTensor, dtype: Any) -> CSRTensor:
    """Softmax over each row's stored values (the others count as absent, not zero)."""
    csr = _want(logits, CSRTensor, "csr_softmax")
    values, rows, count = csr.values, csr.rows(), csr.shape[0]
    peaks = F.gather(unsorted_segment_max(values, rows, count), rows, 0)
    exps = F.exp(values - peaks)
    sums = F.gather(unsorted_segment_sum(exps, rows, count), rows, 0)
    return csr._with_values(F.cast(exps / sums, dtype))


def coo_concat(sp_input: Any, concat_dim: int = 0) -> COOTensor:
    """COOTensors joined along ``concat_dim``, their pairs sorted by row, then column
    (stably), as MindSpore's SparseConcat gives them."""
    if not isinstance(sp_input, (list, tuple)) or len(sp_input) < 2:
        _fail("coo_concat", "not support COOTensor input number < 2.")
    parts = [_want(x, COOTensor, "coo_concat") for x in sp_input]
    if not -2 <= concat_dim < 2:
        _fail("coo_concat", f"concat_dim value must be in range -2 to 1, but got {concat_dim}.")
    axis = concat_dim % 2
    for x in parts:
        if x.indices.dtype != dtypes.int64:
            _fail("SparseConcat", f"the indices must be a Tensor[Int64], but got "
                                  f"{x.indices.dtype}.", GraphTypeError)
        if x.shape[1 - axis] != parts[0].shape[1 - axis]:
            _fail("coo_concat", f"shapes {parts[0].shape} and {x.shape} differ off the "
                                f"concat_dim.")
    shifted, offset = [], 0
    for x in parts:
        shift = [0, 0]
        shift[axis] = offset
        shifted.append(x.indices + Tensor(np.array(shift, np.int64)))
        offset += x.shape[axis]
    shape = list(parts[0].shape)
    shape[axis] = offset
    indices = F.concat(shifted, 0)
    values = F.concat([x.values for x in parts], 0)
    keys = F.cast(indices[:, 0] * shape[1] + indices[:, 1], dtypes.float64)
    _, order = A.sort(keys)
    return COOTensor(F.gather(indices, order, 0), F.gather(values, order, 0), tuple(shape))


__all__ = [
    "coalesce", "coo2csr", "coo_add", "coo_concat", "coo_tensor_get_dense_shape", "coo_tensor_get_indices",
    "coo_tensor_get_values", "csr2coo", "csr_add", "csr_div", "csr_gather", "csr_mm",
    "csr_mul", "csr_mv", "csr_reduce_sum", "csr_softmax", "csr_tensor_get_dense_shape",
    "csr_tensor_get_indices", "csr_tensor_get_indptr", "csr_tensor_get_values", "csr_to_coo",
    "csr_to_dense", "dense_to_sparse_coo", "dense_to_sparse_csr", "make_coo_tensor",
    "make_csr_tensor", "make_row_tensor", "make_row_tensor_inner", "make_sparse_tensor",
    "row_tensor_add", "row_tensor_get_dense_shape", "row_tensor_get_indices",
    "row_tensor_get_values",
]

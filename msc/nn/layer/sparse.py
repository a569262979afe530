"""``mindspore.nn.sparse``: the layers over sparse tensors (both deprecated in MindSpore
2.0 for ``COOTensor.to_dense`` and ``ops.SparseTensorDenseMatmul``, kept for old scripts)."""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.ops.operations.sparse_ops import SparseTensorDenseMatmul as _Matmul
from msc.ops.operations.sparse_ops import SparseToDense as _ToDense


class SparseToDense(Cell):
    """A COOTensor made dense."""

    def __init__(self) -> None:
        super().__init__()
        self.sparse_to_dense = _ToDense()

    def construct(self, sparse_tensor: Any) -> Any:
        return self.sparse_to_dense(sparse_tensor.indices, sparse_tensor.values,
                                    sparse_tensor.shape)


class SparseTensorDenseMatmul(Cell):
    """A 2-d sparse matrix (indices, values, shape) times a dense one, either transposed."""

    def __init__(self, adjoint_st: bool = False, adjoint_dt: bool = False) -> None:
        super().__init__()
        self.adj_st = adjoint_st
        self.adj_dt = adjoint_dt
        self.sparse_dense_matmul = _Matmul(adjoint_st=adjoint_st, adjoint_dt=adjoint_dt)

    def construct(self, indices: Any, values: Any, sparse_shape: Any, dense: Any) -> Any:
        return self.sparse_dense_matmul(indices, values, sparse_shape, dense)


__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]

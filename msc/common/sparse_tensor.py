"""``mindspore.common.sparse_tensor``: COOTensor, CSRTensor and RowTensor.

A sparse tensor is a small structure of dense tensors with a static dense shape: COO's
``indices`` (nnz, 2) and ``values`` (nnz,); CSR's ``indptr`` (rows + 1,), ``indices`` and
``values`` (nnz, ...); a RowTensor's row ``indices`` and ``values``. The number of stored
values is part of the tensors' shapes, so every operation that keeps it (conversions,
products with dense tensors, elementwise maps of the values) is a composition of gathers,
scatter-adds and segment sums: it runs eagerly and inside graphs alike, and a graph takes
and returns these structures as their parts (``__msc_parts__``, read by the front end).
Operations whose number of stored values depends on the data (``add`` of two sparse
tensors, ``coalesce``) run eagerly only and say so inside a graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError, ShapeError
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _checking
from msc.ops.function.scatter_func import unsorted_segment_sum
from msc.ops.function.search_func import _eager_values

INDEX_DTYPES = (dtypes.int16, dtypes.int32, dtypes.int64)


def _fail(owner: str, message: str, error: type = GraphValueError) -> Any:
    with _checking(owner):
        raise error(message)


def _check_parts(owner: str, shape: Any, **tensors: Any) -> None:
    """The argument types every sparse tensor checks: Tensors and a tuple ``shape``."""
    for name, value in tensors.items():
        if not isinstance(value, Tensor):
            _fail(owner, f"'{name}' must be Tensor, but got {type(value)}.", GraphTypeError)
    if not isinstance(shape, tuple):
        _fail(owner, f"'shape' must be tuple, but got {type(shape)}.", GraphTypeError)
    for size in shape:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            _fail(owner, f"the element type of 'shape' must be int, but got {type(size)}.",
                  GraphTypeError)
        if size <= 0:
            _fail(owner, f"the element of 'shape' must be positive, but got {size} in {shape}.")


def _check_index_dtype(owner: str, name: str, t: Tensor) -> None:
    if t.dtype not in INDEX_DTYPES:
        _fail(owner, f"the type of '{name}' must be one of [int16, int32, int64], but got "
                     f"{t.dtype}.", GraphTypeError)


class SparseStructure:
    """What the sparse tensors share: their parts as a graph passes them (``_FIELDS``
    are attribute names without the underscore), the values' dtype and sizes."""

    _FIELDS: tuple[str, ...] = ()

    def __msc_parts__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, "_" + name) for name in self._FIELDS)

    @classmethod
    def __msc_rebuild__(cls, parts: tuple[Any, ...]) -> Any:
        """The structure from its parts, unchecked: a graph's input or result."""
        obj = cls.__new__(cls)
        for name, part in zip(cls._FIELDS, parts):
            setattr(obj, "_" + name, tuple(int(s) for s in part) if name == "shape" else part)
        return obj

    @property
    def values(self) -> Tensor:
        return self._values  # type: ignore[attr-defined, no-any-return]

    @property
    def indices(self) -> Tensor:
        return self._indices  # type: ignore[attr-defined, no-any-return]

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape  # type: ignore[attr-defined, no-any-return]

    @property
    def dtype(self) -> Any:
        return self.values.dtype

    @property
    def size(self) -> int:
        return self.values.size

    @property
    def itemsize(self) -> int:
        return self.values.dtype.bits // 8

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def to_tuple(self) -> tuple[Any, ...]:
        return self.__msc_parts__()

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, '_' + name)!r}" for name in self._FIELDS
                          if name != "shape")
        return (f"{type(self).__name__}(shape={list(self.shape)}, dtype={self.dtype}, "
                f"{parts})")

    def _with_values(self, values: Any) -> Any:
        """The same structure holding other values (elementwise maps keep sparsity)."""
        return type(self).__msc_rebuild__(
            tuple(values if name == "values" else getattr(self, "_" + name)
                  for name in self._FIELDS))

    def astype(self, dtype: Any) -> Any:
        return self._with_values(self.values.astype(dtype))

    def abs(self) -> Any:
        return self._with_values(F.abs(self.values))

    def __neg__(self) -> Any:
        return self._with_values(F.neg(self.values))


class COOTensor(SparseStructure):
    """Values at (row, column) index pairs of a 2-d dense shape; repeated pairs add up
    when made dense, as MindSpore's scatter-add does."""

    _FIELDS = ("indices", "values", "shape")

    def __init__(self, indices: Any = None, values: Any = None, shape: Any = None,
                 coo_tensor: Any = None):
        if coo_tensor is not None:
            _copy(self, coo_tensor, COOTensor, "coo_tensor", (indices, values, shape),
                  "`indices`, `values`, `shapes`")
            return
        _check_parts("COOTensor", shape, indices=indices, values=values)
        if len(shape) != 2:
            _fail("COOTensor", f"the length of 'shape' must be 2, but got {shape}.")
        if indices.ndim != 2:
            _fail("COOTensor", "'indices' must be a 2-dimensional tensor, but got a "
                               f"{indices.ndim}-dimensional tensor.")
        if values.ndim != 1:
            _fail("COOTensor", "'values' must be a 1-dimensional tensor, but got a "
                               f"{values.ndim}-dimensional tensor.")
        if indices.shape[0] != values.shape[0]:
            _fail("COOTensor", f"'indices.shape[0]' must be equal to 'values.shape[0]', but "
                               f"got {indices.shape[0]} and {values.shape[0]}.")
        if indices.shape[1] != 2:
            _fail("COOTensor", f"'indices.shape[1]' must be 2, but got {indices.shape[1]}.")
        _check_index_dtype("COOTensor", "indices", indices)
        self._indices, self._values, self._shape = indices, values, tuple(map(int, shape))

    def to_dense(self) -> Any:
        return A.tensor_scatter_add(F.zeros(self.shape, self.dtype), self.indices, self.values)

    def to_csr(self) -> CSRTensor:
        """Sorted by row (stably), then compressed."""
        rows, order = A.sort(F.cast(self.indices[:, 0], dtypes.float32))
        rows = F.cast(rows, self.indices.dtype)
        indptr = coo2csr(rows, self.shape[0])
        return CSRTensor(indptr, F.gather(self.indices[:, 1], order, 0),
                         F.gather(self.values, order, 0), self.shape)

    def _dense_operand(self, other: Any, op: str) -> Any:
        if not isinstance(other, Tensor) or self.shape != tuple(other.shape):
            _fail(op, "input tensors should have the same shape.")
        return A.gather_nd(other, self.indices)

    def __add__(self, other: Any) -> Any:
        if isinstance(other, COOTensor):
            if self.shape != other.shape:
                _fail("COOTensor", "input tensors should have the same shape.")
            return coo_add(self, other, Tensor(0, self.dtype))
        if isinstance(other, Tensor) and self.shape == tuple(other.shape):
            return A.tensor_scatter_add(other, self.indices, self.values)
        return _fail("COOTensor", "add with a Tensor of another shape or a "
                                  f"{type(other).__name__} is not supported.", GraphTypeError)

    def __sub__(self, other: Any) -> Any:
        return self + (-other)

    def __mul__(self, other: Any) -> Any:
        return self._with_values(self.values * self._dense_operand(other, "COOTensor"))

    def __truediv__(self, other: Any) -> Any:
        """Divides by the dense values at the stored positions only."""
        return self._with_values(self.values / self._dense_operand(other, "COOTensor"))

    __div__ = __truediv__

    def add(self, other: COOTensor, thresh: Any) -> COOTensor:
        return coo_add(self, other, thresh)

    def coalesce(self) -> COOTensor:
        """Repeated index pairs summed, sorted by row then column (eager only: the number
        of pairs left depends on the data)."""
        indices, values = _eager_values("Coalesce", self.indices, self.values)
        if indices.dtype != np.int64:
            _fail("Coalesce", f"'x_indices' must be a Tensor[Int64], but got "
                              f"{self.indices.dtype}.", GraphTypeError)
        unique, inverse = np.unique(indices, axis=0, return_inverse=True)
        sums = np.zeros(len(unique), values.dtype)
        np.add.at(sums, inverse.reshape(-1), values)
        return COOTensor(Tensor(unique), Tensor(sums), self.shape)


class CSRTensor(SparseStructure):
    """Rows compressed: row ``i`` holds ``values[indptr[i]:indptr[i+1]]`` at columns
    ``indices[indptr[i]:indptr[i+1]]``; values may have trailing dense dimensions."""

    _FIELDS = ("indptr", "indices", "values", "shape")

    def __init__(self, indptr: Any = None, indices: Any = None, values: Any = None,
                 shape: Any = None, csr_tensor: Any = None):
        if csr_tensor is not None:
            _copy(self, csr_tensor, CSRTensor, "csr_tensor", (indptr, indices, values, shape),
                  "`indptr`, `indices`, `values`, `shapes`")
            return
        _check_parts("CSRTensor", shape, indptr=indptr, indices=indices, values=values)
        if indices.ndim != 1 or indptr.ndim != 1:
            _fail("CSRTensor", "indptr and indices must be 1-dimensional tensors, but got "
                               f"{indptr.ndim} and {indices.ndim} dimensions.")
        if shape[0] + 1 != indptr.shape[0]:
            _fail("CSRTensor", f"indptr must have length (1 + shape[0]), but got: "
                               f"{indptr.shape[0]}")
        if indices.shape[0] != values.shape[0]:
            _fail("CSRTensor", "indices and values must equal in their shape, but got "
                               f"indices shape: {indices.shape[0]}, values shape: "
                               f"{values.shape[0]}.")
        if values.ndim + 1 != len(shape) or tuple(values.shape[1:]) != tuple(shape[2:]):
            _fail("CSRTensor", f"values of shape {values.shape} do not fit the dense shape "
                               f"{shape}: values.shape[1:] must be shape[2:].")
        _check_index_dtype("CSRTensor", "indptr", indptr)
        _check_index_dtype("CSRTensor", "indices", indices)
        self._indptr, self._indices, self._values = indptr, indices, values
        self._shape = tuple(map(int, shape))

    @property
    def indptr(self) -> Tensor:
        return self._indptr

    def rows(self) -> Any:
        """The row of each stored value (``csr2coo``)."""
        return csr2coo(self.indptr, self.values.shape[0])

    def _positions(self) -> Any:
        """(nnz, 2) row and column of each stored value."""
        return F.stack((self.rows(), F.cast(self.indices, self.indptr.dtype)), 1)

    def to_coo(self) -> COOTensor:
        if self.ndim != 2:
            _fail("CSRTensor", "only a 2-D CSRTensor converts to a COOTensor.")
        indices = F.stack((F.cast(self.rows(), self.indices.dtype), self.indices), 1)
        return COOTensor(indices, self.values, self.shape)

    def to_dense(self) -> Any:
        return A.tensor_scatter_add(F.zeros(self.shape, self.dtype), self._positions(),
                                    self.values)

    def _row_sums(self, contributions: Any) -> Any:
        return unsorted_segment_sum(contributions, self.rows(), self.shape[0])

    def mv(self, dense_vector: Any) -> Any:
        """(M, N) @ (N, 1) -> (M, 1)."""
        if not isinstance(dense_vector, Tensor):
            _fail("CSRTensor.mv", f"'dense_vector' must be a Tensor, but got "
                                  f"{type(dense_vector).__name__}.", GraphTypeError)
        if self.ndim != 2 or dense_vector.ndim != 2 or dense_vector.shape[0] != self.shape[1]:
            _fail("CSRMV", f"the dense vector must have shape ({self.shape[1]}, 1) for a "
                           f"CSRTensor of shape {self.shape}, but got {dense_vector.shape}.",
                  ShapeError)
        return self.mm(dense_vector)

    def mm(self, matrix: Any) -> Any:
        """(M, N) @ (N, K) -> dense (M, K); a CSRTensor operand gives a CSRTensor."""
        if isinstance(matrix, CSRTensor):
            return csr_mm(self, matrix)
        if not isinstance(matrix, Tensor) or matrix.ndim != 2 or self.ndim != 2 or \
                matrix.shape[0] != self.shape[1]:
            _fail("CSRTensor.mm", f"the matrix must be a 2-d Tensor with {self.shape[1]} "
                                  f"rows for a CSRTensor of shape {self.shape}.", ShapeError)
        picked = F.gather(matrix, self.indices, 0)
        return self._row_sums(F.expand_dims(self.values, 1) * picked)

    def sum(self, axis: int) -> Any:
        """Each row's sum, kept as a column: (M, 1, ...)."""
        if isinstance(axis, bool) or axis not in (1, 1 - self.ndim):
            _fail("CSRReduceSum", f"`axis` should be 1 or 1-dim. But got `axis`: {axis}.")
        sums = self._row_sums(self.values)
        return F.expand_dims(sums, 1)

    def _dense_values(self, other: Any) -> Any:
        """The values of a dense operand broadcast to this shape, at the stored positions."""
        full = F.broadcast_to(other, self.shape)
        return A.gather_nd(full, self._positions())

    def __mul__(self, other: Any) -> Any:
        return csr_mul(self, other)

    def __truediv__(self, other: Any) -> Any:
        return csr_div(self, other)

    __div__ = __truediv__

    def __add__(self, other: Any) -> Any:
        return self._combine(other, 1)

    def __sub__(self, other: Any) -> Any:
        return self._combine(other, -1)

    def _combine(self, other: Any, sign: int) -> Any:
        if not isinstance(other, CSRTensor):
            _fail("CSRTensor", f"add with {type(other).__name__} is not supported.",
                  GraphTypeError)
        if self.shape != other.shape:
            _fail("CSRTensor", "input tensors should have the same shape.")
        return csr_add(self, other, Tensor(1, self.dtype), Tensor(sign, self.dtype))

    def add(self, b: CSRTensor, alpha: Any, beta: Any) -> CSRTensor:
        return csr_add(self, b, alpha, beta)


class RowTensorInner(SparseStructure):
    """Slices of a dense tensor along its first axis: ``dense[indices[i]] = values[i]``."""

    _FIELDS = ("indices", "values", "shape")

    def __init__(self, indices: Any = None, values: Any = None, shape: Any = None,
                 row_tensor: Any = None):
        if row_tensor is not None:
            _copy(self, row_tensor, RowTensorInner, "row_tensor", (indices, values, shape),
                  "`indices`, `values`, `shapes`")
            return
        _check_parts("RowTensor", shape, indices=indices, values=values)
        if indices.ndim != 1 or values.ndim != len(shape) or \
                indices.shape[0] != values.shape[0] or values.shape[1:] != shape[1:]:
            _fail("RowTensor", f"indices {indices.shape} and values {values.shape} do not "
                               f"describe rows of a dense shape {shape}.")
        self._indices, self._values, self._shape = indices, values, tuple(map(int, shape))

    @property
    def dense_shape(self) -> tuple[int, ...]:
        return self._shape

    def to_dense(self) -> Any:
        rows = F.expand_dims(self.indices, 1)
        return A.tensor_scatter_add(F.zeros(self.shape, self.dtype), rows, self.values)


class RowTensor(RowTensorInner):
    """MindSpore's deprecated public name for ``RowTensorInner``."""


class SparseTensor(COOTensor):
    """MindSpore's deprecated name for a COOTensor (its three arguments required)."""

    def __init__(self, indices: Any, values: Any, shape: Any):
        super().__init__(indices, values, shape)


def _copy(obj: Any, other: Any, kind: type, name: str, given: tuple[Any, ...],
          names: str) -> None:
    """``COOTensor(coo_tensor=x)``: the parts of ``x``, nothing else given."""
    if not isinstance(other, kind):
        _fail(kind.__name__, f"Expect input `{name}` to be a {kind.__name__}, but got "
                             f"{type(other)}", GraphTypeError)
    if any(g is not None for g in given):
        _fail(kind.__name__, f"If input `{name}` is provided, {names} should all be `None`",
              GraphTypeError)
    for field, part in zip(obj._FIELDS, other.__msc_parts__()):
        setattr(obj, "_" + field, part)


# --- conversions and eager-only combinations the classes share with ``ops`` --------------


def coo2csr(row_indices: Any, height: int) -> Any:
    """CSR row pointers from sorted row indices: ``indptr[i]`` is how many rows are < i."""
    rows = row_indices if isinstance(row_indices, Tensor) else Tensor(row_indices)
    counts = unsorted_segment_sum(F.ones(rows.shape, rows.dtype), rows, int(height))
    return F.concat((F.zeros((1,), rows.dtype), F.cumsum(counts, 0)), 0)


def csr2coo(indptr: Any, nnz: int) -> Any:
    """The row of each of the ``nnz`` stored values: one step up at each row's start
    (several at once past empty rows), summed."""
    nnz = int(nnz)
    starts = indptr[1:-1]
    steps = A.tensor_scatter_add(F.zeros((nnz + 1,), indptr.dtype), F.expand_dims(starts, 1),
                                 F.ones(starts.shape, indptr.dtype))
    return F.cumsum(steps, 0)[:nnz]


def _csr_scaled(x: CSRTensor, y: Any, combine: Any) -> Any:
    """``x`` times (or divided by) a dense ``y`` that broadcasts to its shape, at the
    stored positions. As in MindSpore, a one-element ``y`` gives the dense values."""
    if not isinstance(x, CSRTensor):
        _fail("csr_mul", f"x must be a CSRTensor, but got {type(x).__name__}.", GraphTypeError)
    if isinstance(y, (bool, int, float)):
        y = Tensor(y)
    if y.size == 1 and y.ndim <= 2:
        if y.ndim > x.ndim:
            _fail("csr_mul", "dense tensor cannot broadcast to the sparse tensor.")
        return F.reshape(combine(x.values, y), x.values.shape)
    return x._with_values(combine(x.values, x._dense_values(y)))


def csr_mul(x: CSRTensor, y: Any) -> Any:
    return _csr_scaled(x, y, lambda a, b: a * b)


def csr_div(x: CSRTensor, y: Any) -> Any:
    """Divides at the stored positions only (the dense zeros elsewhere are ignored)."""
    return _csr_scaled(x, y, lambda a, b: a / b)


def coo_add(x1: COOTensor, x2: COOTensor, thresh: Any) -> COOTensor:
    """The two lists of index pairs merged in row-major order, values at equal pairs
    summed, those smaller in magnitude than ``thresh`` dropped (eager only)."""
    if not isinstance(x1, COOTensor) or not isinstance(x2, COOTensor):
        _fail("coo_add", "x1 and x2 must be COOTensors.", GraphTypeError)
    i1, v1, i2, v2, limit = _eager_values("coo_add", x1.indices, x1.values, x2.indices,
                                          x2.values, thresh)
    for name, idx in (("x1_indices", i1), ("x2_indices", i2)):
        if idx.dtype != np.int64:
            _fail("SparseAdd", f"the input argument[{name}] must be a type of "
                               f"{{Tensor[Int64]}}, but got Tensor[{dtypes.from_numpy(idx.dtype)}].",
                  GraphTypeError)
    dtype = np.result_type(v1, v2)
    indices, values = [], []
    a = b = 0
    while a < len(i1) or b < len(i2):
        first = b >= len(i2) or (a < len(i1) and tuple(i1[a]) <= tuple(i2[b]))
        same = a < len(i1) and b < len(i2) and tuple(i1[a]) == tuple(i2[b])
        if same:
            indices.append(i1[a])
            values.append(v1[a] + v2[b])
            a, b = a + 1, b + 1
        elif first:
            indices.append(i1[a])
            values.append(v1[a])
            a += 1
        else:
            indices.append(i2[b])
            values.append(v2[b])
            b += 1
    kept = [k for k, v in enumerate(values) if abs(v) >= limit]
    return COOTensor(Tensor(np.array([indices[k] for k in kept], np.int64).reshape(-1, 2)),
                     Tensor(np.array([values[k] for k in kept], dtype)), x1.shape)


def _csr_from_dense_pattern(dense: np.ndarray, keep: np.ndarray, like: CSRTensor,
                            shape: tuple[int, ...]) -> CSRTensor:
    """The CSRTensor storing ``dense`` where ``keep`` is set, row by row."""
    rows, cols = np.nonzero(keep)
    index = like.indices.dtype.np
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=shape[0]))))
    return CSRTensor(Tensor(indptr.astype(like.indptr.dtype.np)), Tensor(cols.astype(index)),
                     Tensor(dense[rows, cols]), shape)


def _dense_and_pattern(x: CSRTensor, op: str) -> tuple[np.ndarray, np.ndarray]:
    indptr, indices, values = _eager_values(op, x.indptr, x.indices, x.values)
    rows = np.repeat(np.arange(x.shape[0]), np.diff(indptr))
    dense = np.zeros(x.shape, values.dtype)
    pattern = np.zeros(x.shape[:2], bool)
    np.add.at(dense, (rows, indices), values)
    pattern[rows, indices] = True
    return dense, pattern


def csr_add(a: CSRTensor, b: CSRTensor, alpha: Any, beta: Any) -> CSRTensor:
    """``alpha * a + beta * b``, stored where either stores a value (eager only)."""
    if not isinstance(a, CSRTensor) or not isinstance(b, CSRTensor):
        _fail("csr_add", "both inputs a and b must be type of CSRTensor.", GraphTypeError)
    if not isinstance(alpha, Tensor) or not isinstance(beta, Tensor):
        _fail("csr_add", "both inputs alpha and beta must be Tensor.", GraphTypeError)
    (da, pa), (db, pb) = _dense_and_pattern(a, "csr_add"), _dense_and_pattern(b, "csr_add")
    dtype = np.result_type(da, db)
    x, y = _eager_values("csr_add", alpha, beta)
    total = (x.astype(dtype) * da + y.astype(dtype) * db).astype(dtype)
    return _csr_from_dense_pattern(total, pa | pb, a, a.shape)


def csr_mm(a: CSRTensor, b: CSRTensor, trans_a: bool = False, trans_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False) -> CSRTensor:
    """The product of two 2-d CSRTensors as a CSRTensor, stored where the product of
    their patterns is (eager only)."""
    if not isinstance(a, CSRTensor) or not isinstance(b, CSRTensor):
        _fail("csr_mm", "inputs a and b must be type of CSRTensor currently.", GraphTypeError)
    (da, pa), (db, pb) = _dense_and_pattern(a, "csr_mm"), _dense_and_pattern(b, "csr_mm")
    if trans_a or adjoint_a:
        da, pa = (np.conj(da) if adjoint_a else da).T, pa.T
    if trans_b or adjoint_b:
        db, pb = (np.conj(db) if adjoint_b else db).T, pb.T
    if da.shape[1] != db.shape[0]:
        _fail("csr_mm", f"shapes {da.shape} and {db.shape} cannot be multiplied.", ShapeError)
    product = da @ db
    keep = (pa.astype(np.int64) @ pb.astype(np.int64)) > 0
    return _csr_from_dense_pattern(product.astype(da.dtype), keep, a, product.shape)

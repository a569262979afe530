"""Embedding lookups with MindSpore 2.10's signatures: ``nn.Embedding``,
``nn.EmbeddingLookup`` and ``ops.EmbeddingLookup``.

A lookup is a ``Gather`` of table rows (or a one-hot matrix product for
``use_one_hot``), so its gradient is the Gather rule's scatter-add into the table.
``EmbeddingLookup`` on the CPU target gives zero rows for indices outside the table,
as MindSpore's CPU kernel does: the indices are clamped for the gather and the rows
outside are replaced by zeros with ``Select``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api.cell import Cell
from msc.common.initializer import initializer
from msc.frontend.api.layers import _bool, _float, _int
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import Parameter, Tensor, apply
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op

__all__ = ["Embedding", "EmbeddingLookup", "EmbeddingLookupPrim"]

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _indices(x: Any, arg: str, op: str) -> Any:
    if not isinstance(x, Tensor):
        raise GraphTypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                             f"{type(x).__name__}.", user_loc())
    if x.dtype not in _INDEX_DTYPES:
        raise GraphTypeError(f"For '{op}', the dtype of '{arg}' must be Int32 or Int64, but "
                             f"got {x.dtype}.", user_loc())
    return x


def _rows(table: Any, ids: Any) -> Any:
    """``table[ids]`` along axis 0 for any shape of ``ids`` (a 0-d id gives one row)."""
    flat = F.reshape(ids, (ids.size,))
    return F.reshape(F.gather(table, flat, 0), ids.shape + table.shape[1:])


def _lookup_or_zeros(table: Any, indices: Any, offset: Any) -> Any:
    """Rows ``indices - offset`` of ``table``, zeros where that is outside the table."""
    shifted = indices - offset
    inside = F.logical_and(shifted >= 0, shifted < table.shape[0])
    rows = _rows(table, F.select(inside, shifted, F.zeros_like(shifted)))
    if table.ndim == 2:
        inside = F.expand_dims(inside, -1)
    return F.select(inside, rows, F.zeros_like(rows))


class EmbeddingLookupPrim(Primitive):
    """``ops.EmbeddingLookup()(input_params, input_indices, offset)``: rows
    ``input_indices - offset`` of a 1-d or 2-d table; zeros for rows outside it."""

    def __call__(self, input_params: Any, input_indices: Any, offset: Any) -> Any:
        op = "EmbeddingLookup"
        if not isinstance(input_params, Tensor):
            raise GraphTypeError(f"For '{op}', the 'input_params' must be a Tensor, but got "
                                 f"{type(input_params).__name__}.", user_loc())
        if input_params.ndim not in (1, 2):
            raise GraphValueError(f"For '{op}', the dimension of params must be in [1, 2], "
                                  f"but got {input_params.ndim}.", user_loc())
        _indices(input_indices, "input_indices", op)
        if input_indices.ndim == 0:
            raise GraphValueError(f"For '{op}', the dimension of indices must be greater "
                                  "than 0, but got 0.", user_loc())
        if isinstance(offset, Tensor):
            offset = F.cast(offset, input_indices.dtype)
        else:
            offset = _int(offset, "offset", op)
        return _lookup_or_zeros(input_params, input_indices, offset)


EmbeddingLookupPrim.name = "EmbeddingLookup"


class Embedding(Cell):
    """``nn.Embedding(vocab_size, embedding_size, use_one_hot=False,
    embedding_table='normal', dtype=float32, padding_idx=None)``: row ``id`` of the
    Parameter ``embedding_table`` (float32, (vocab_size, embedding_size)) for each id;
    the output's shape is ``ids.shape + (embedding_size,)``. ``use_one_hot`` multiplies a
    one-hot matrix of ``dtype`` by the table instead (ids outside the table give zeros);
    ``padding_idx`` zeroes that row of the initial table.

    Example:
        >>> emb = nn.Embedding(10, 4)
        >>> emb(ms.Tensor(np.array([[1, 2, 3]], np.int32))).shape
        (1, 3, 4)
    """

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table: Any = "normal", dtype: dtypes.DType = dtypes.float32,
                 padding_idx: int | None = None):
        super().__init__()
        cls = self.cls_name
        self.vocab_size = _int(vocab_size, "vocab_size", cls)
        self.embedding_size = _int(embedding_size, "embedding_size", cls)
        self.use_one_hot = _bool(use_one_hot, "use_one_hot", cls)
        if not isinstance(dtype, dtypes.DType) or dtype == dtypes.bool_:
            raise GraphTypeError(f"For '{cls}', the 'dtype' must be a number type, but got "
                                 f"{dtype!r}.", user_loc())
        self.dtype = dtype
        table = initializer(embedding_table, (vocab_size, embedding_size))
        if padding_idx is not None:
            padding_idx = _int(padding_idx, "padding_idx", cls)
            if not 0 <= padding_idx < vocab_size:
                raise GraphValueError(f"For '{cls}', the 'padding_idx' must be in range of "
                                      f"[0, {vocab_size}), but got {padding_idx}.", user_loc())
            data = table.asnumpy().copy()
            data[padding_idx] = 0
            table = Tensor(data)
        self.padding_idx = padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids: Any) -> Any:
        _indices(ids, "ids", Op.Gather.name)
        if not self.use_one_hot:
            return _rows(self.embedding_table, ids)
        flat = F.reshape(ids, (ids.size,))
        one_hot = F.one_hot(flat, self.vocab_size, Tensor(1, self.dtype), Tensor(0, self.dtype))
        if one_hot.dtype != self.embedding_table.dtype:
            raise GraphTypeError(f"For 'MatMul', the type of 'x2' should be same as 'x1', but "
                                 f"got 'x1' with type {one_hot.dtype} and 'x2' with type "
                                 f"{self.embedding_table.dtype}.", user_loc())
        rows = F.matmul(one_hot, self.embedding_table)
        return F.reshape(rows, ids.shape + (self.embedding_size,))

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")


class EmbeddingLookup(Cell):
    """``nn.EmbeddingLookup(vocab_size, embedding_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', manual_shapes=None, max_norm=None, sparse=True,
    dtype=float32)``: rows of the Parameter ``embedding_table``. ``target='CPU'`` gives zero
    rows for indices outside the table; ``'DEVICE'`` gathers (an index outside is an
    error). ``max_norm`` scales each looked-up row down to that L2 norm at most.
    ``slice_mode`` and ``manual_shapes`` only matter to parallel training.

    NOTE: MindSpore 2.10's CPU ``ClipByNorm`` behind ``max_norm`` clips only the first row
    correctly; msc clips every row by its own norm, as documented."""

    def __init__(self, vocab_size: int, embedding_size: int, param_init: Any = "normal",
                 target: str = "CPU", slice_mode: str = "batch_slice",
                 manual_shapes: Any = None, max_norm: float | None = None, sparse: bool = True,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.sparse = _bool(sparse, "sparse", cls)
        self.vocab_size = _int(vocab_size, "vocab_size", cls, positive=True)
        if target not in ("CPU", "DEVICE"):
            raise GraphValueError(f"For '{cls}', the 'target' must be str and must be in "
                                  f"['CPU', 'DEVICE'], but got {target!r}.", user_loc())
        if not sparse and target == "CPU":
            raise GraphValueError(f"For '{cls}', 'sparse' must be True when 'target' is "
                                  f"\"CPU\", but got 'sparse': {sparse} and 'target': {target}",
                                  user_loc())
        self.target = target
        self.embedding_size = _int(embedding_size, "embedding_size", cls, positive=True)
        self.embedding_table = Parameter(
            initializer(param_init, (self.vocab_size, self.embedding_size), dtype),
            name="embedding_table")
        if max_norm is not None:
            max_norm = _float(max_norm, "max_norm", cls)
            if max_norm <= 0:
                raise GraphValueError(f"For '{cls}', the 'max_norm' must be float and must > 0, "
                                      f"but got {max_norm}.", user_loc())
        self.max_norm = max_norm

    def construct(self, indices: Any) -> Any:
        _indices(indices, "indices", "EmbeddingLookup")
        if self.target == "CPU":
            if indices.ndim == 0:
                raise GraphValueError("For 'EmbeddingLookup', the dimension of indices must "
                                      "be greater than 0, but got 0.", user_loc())
            out = _lookup_or_zeros(self.embedding_table, indices, 0)
        else:
            out = _rows(self.embedding_table, indices)
        if self.max_norm is not None:
            norm = apply(Op.Sqrt, F.sum(apply(Op.Square, out), -1, True))
            out = out * (self.max_norm / apply(Op.Maximum, norm, self.max_norm))
        return out

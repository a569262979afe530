"""Embedding layers with MindSpore 2.10's signatures: ``nn.Embedding`` and
``nn.EmbeddingLookup`` (the primitive class ``ops.EmbeddingLookup`` is in
``ops/operations/array_ops.py``).

A lookup is a ``Gather`` of table rows (or a one-hot matrix product for
``use_one_hot``), so its gradient is the Gather rule's scatter-add into the table.
``EmbeddingLookup`` on the CPU target gives zero rows for indices outside the table,
as MindSpore's CPU kernel does.
"""

from __future__ import annotations

from typing import Any

from msc.common.initializer import Normal, initializer
from msc.common.sparse_rows import mark_sparse_table
from msc.common.tensor import Parameter, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.nn.cell import Cell
from msc._checkparam import _bool, _float, _int
from msc.ops import functional as F
from msc.ops.operations.nn_ops import _indices, _lookup_or_zeros, _rows


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
        if self.sparse:
            mark_sparse_table(self.embedding_table)
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


class EmbeddingExt(Cell):
    """Row ``id`` of the Parameter ``weight`` ((num_embeddings, embedding_dim), N(0, 1) at
    first, row ``padding_idx`` zero) for each id."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Any = None,
                 _freeze: bool = False, dtype: Any = None):
        super().__init__()
        cls = self.cls_name
        self.num_embeddings = _int(num_embeddings, "num_embeddings", cls)
        self.embedding_dim = _int(embedding_dim, "embedding_dim", cls)
        if max_norm is not None:
            raise GraphValueError(f"For '{cls}', 'max_norm' (renormalising rows of the weight "
                                  f"as they are looked up) is not supported by msc yet.",
                                  user_loc())
        if padding_idx is not None:
            padding_idx = _int(padding_idx, "padding_idx", cls)
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise GraphValueError(f"For '{cls}', the 'padding_idx' must be in range of "
                                      f"[{-num_embeddings}, {num_embeddings}), but got "
                                      f"{padding_idx}.", user_loc())
            padding_idx %= num_embeddings
        table = _weight if _weight is not None else initializer(
            Normal(1.0), (num_embeddings, embedding_dim), dtype or dtypes.float32)
        data = table.asnumpy().copy()
        if padding_idx is not None and _weight is None:
            data[padding_idx] = 0
        self.padding_idx = padding_idx
        self.weight = Parameter(Tensor(data), name="weight", requires_grad=not _freeze)

    def construct(self, input: Any) -> Any:  # noqa: A002
        return F.gather(self.weight, input, 0)


__all__ = ["Embedding", "EmbeddingLookup", "EmbeddingExt"]

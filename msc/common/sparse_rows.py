"""The Parameters whose gradient MindSpore makes sparse: the tables ``nn.EmbeddingLookup``
(``sparse=True``) and ``ops.SparseGatherV2`` gather rows from, whose gradient is a
RowTensor there. msc's gradients are dense; lazy optimizers (``nn.Adam(use_lazy=True)``,
``nn.LazyAdam``) read this to update only the rows a gradient touches, as MindSpore's do
on a RowTensor and only there."""

from __future__ import annotations

import weakref
from typing import Any

from msc.common.tensor import Parameter

#: id -> a weak reference to the table (by identity: a Tensor's ``==`` is elementwise)
_TABLES: dict[int, weakref.ref[Parameter]] = {}


def mark_sparse_table(table: Any) -> None:
    """Record that rows of ``table`` are gathered sparsely (a no-op for a non-Parameter)."""
    if isinstance(table, Parameter):
        key = id(table)
        _TABLES[key] = weakref.ref(table, lambda _: _TABLES.pop(key, None))


def is_sparse_table(table: Any) -> bool:
    ref = _TABLES.get(id(table))
    return ref is not None and ref() is table

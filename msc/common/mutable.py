"""``mindspore.common.mutable``: ``mutable``, which marks a graph input as variable."""

from __future__ import annotations

from typing import Any

__all__ = ["mutable"]


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """``ms.mutable(x)``: ``x`` itself. msc already compiles tensors, also inside tuples
    and lists, as graph inputs; a Python number stays a constant of the compile (a new
    value compiles again, with the same results)."""
    return input_data

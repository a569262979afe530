"""The graphs being built, innermost last: the bottom of the front end.

Every layer asks "is a graph being built, and which one?": ``apply`` (to emit a node
instead of computing), ``user_loc`` (to leave locations to the evaluator), native code
such as a Cell call or a ``HyperMap`` (to hand itself to the graph's call interpreter,
``builder.calls``). The stack lives here, below ``common/tensor.py`` and the builder,
so that asking never imports the builder, which itself makes graph tensors; JAX keeps
its trace stack at the bottom (``core.py``) the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from msc.frontend.builder import GraphBuilder

#: The builders of the graphs being built (``with builder:``), the innermost last.
ACTIVE: list[GraphBuilder] = []


def current_builder() -> GraphBuilder | None:
    return ACTIVE[-1] if ACTIVE else None

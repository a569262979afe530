"""Graph-building helpers shared by the IR and pass tests."""

from __future__ import annotations

from typing import Any

from msc.errors import Loc
from msc.ir import dtypes
from msc.ir.nodes import Const, Node, Value, Var, make_attrs
from msc.ir.primitives import get, infer_type
from msc.ir.types import TensorType

F32 = dtypes.float32


def t(*shape: int, dtype: dtypes.DType = F32) -> TensorType:
    return TensorType(dtype, shape)


def emit(nodes: list[Node], op: str, *inputs: Any, loc: Loc | None = None, **attrs: Any) -> Var:
    """Append ``op(inputs; attrs)`` with its inferred type; plain values become Consts."""
    values: tuple[Value, ...] = tuple(v if isinstance(v, (Var, Const)) else Const(v)
                                      for v in inputs)
    out = Var(infer_type(get(op), tuple(v.type for v in values), attrs))
    nodes.append(Node(op, values, make_attrs(attrs), out, loc))
    return out

"""GraphBuilder: where tensor operations go while a graph is being built.

Ops dispatch through ``apply``: outside a build they run eagerly on numpy; inside
one (``with builder:``) an op on a graph tensor (``SymTensor``) or a weight emits a
typed node with the current source location instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import InternalCompilerError, Loc, MscError
from msc.ir.nodes import Const, Graph, Node, Value, Var, make_attrs
from msc.ir.primitives import Primitive, infer_type
from msc.ir.types import RefType, TensorType, TupleType, Type, type_of_value

_ACTIVE: list[GraphBuilder] = []


def current_builder() -> GraphBuilder | None:
    return _ACTIVE[-1] if _ACTIVE else None


class GraphBuilder:
    """Collects the parameters and nodes of one graph in program order."""

    def __init__(self, name: str):
        self.name = name
        self.inputs: list[Var] = []
        self.weights: dict[int, tuple[Any, Var]] = {}  # id(Parameter) -> (param, var)
        self.nodes: list[Node] = []
        self.loc: Loc | None = None
        self.calls: Any = None  # the frontend's call interpreter for this build
        self.weight_hint: Any = lambda param: param.name  # a shared graph names them its way

    def __enter__(self) -> GraphBuilder:
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.remove(self)

    # --- values -----------------------------------------------------------------------

    def add_input(self, t: Type, hint: str) -> Any:
        from msc.frontend.api.tensor import SymTensor

        var = Var(t, hint)
        self.inputs.append(var)
        return SymTensor(var, self)

    def weight(self, param: Any) -> Any:
        """The graph tensor for a ``Parameter``: one weight input per Parameter object."""
        from msc.frontend.api.tensor import SymTensor

        entry = self.weights.get(id(param))
        if entry is None:
            t = type_of_value(param.asnumpy())
            assert isinstance(t, TensorType)
            hint = self.weight_hint(param) or f"weight{len(self.weights)}"
            entry = (param, Var(RefType(t), hint))
            self.weights[id(param)] = entry
        return SymTensor(entry[1], self)

    def operand(self, x: Any) -> Value:
        """An IR operand for a tensor, weight, number, or tuple of numbers."""
        from msc.frontend.api.tensor import Parameter, SymTensor, Tensor

        if isinstance(x, SymTensor):
            if x.builder is not self:
                raise MscError("a tensor of one graph is used inside another graph")
            return x.var
        if isinstance(x, Parameter):
            return self.weight(x).var
        if isinstance(x, Tensor):
            return Const(x.asnumpy())
        if isinstance(x, (bool, int, float, np.ndarray, tuple)):
            return Const(x)
        raise InternalCompilerError(f"cannot use {type(x).__name__} as an operand")

    # --- nodes ------------------------------------------------------------------------

    def emit(self, op: str, inputs: tuple[Value, ...], attrs: dict[str, Any], t: Type) -> Var:
        var = Var(t)
        self.nodes.append(Node(op, inputs, make_attrs(attrs), var, self.loc))
        return var

    def apply(self, prim: Primitive, inputs: tuple[Any, ...], attrs: dict[str, Any]) -> Any:
        """Emit ``prim`` on ``inputs``; tuple results come back as tuples of tensors."""
        from msc.frontend.api.tensor import SymTensor

        operands = tuple(self.operand(x) for x in inputs)
        try:
            t = infer_type(prim, tuple(v.type for v in operands), attrs)
        except MscError as e:
            raise e.with_loc(self.loc) from None
        var = self.emit(prim.name, operands, attrs, t)
        return self.unpack(var) if isinstance(t, TupleType) else SymTensor(var, self)

    def unpack(self, var: Var) -> tuple[Any, ...]:
        from msc.frontend.api.tensor import SymTensor

        assert isinstance(var.type, TupleType)
        items = []
        for i, et in enumerate(var.type.elems):
            item = self.emit("TupleGetItem", (var,), {"index": i}, et)
            items.append(self.unpack(item) if isinstance(et, TupleType) else SymTensor(item, self))
        return tuple(items)

    def finish(self, output: Value, flags: frozenset[str] = frozenset()) -> Graph:
        weights = tuple(var for _, var in self.weights.values())
        return Graph(self.name, tuple(self.inputs) + weights, tuple(self.nodes), output, flags)

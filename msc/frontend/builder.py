"""GraphBuilder: where tensor operations go while a graph is being built.

Ops dispatch through ``apply``: outside a build they run eagerly on numpy; inside
one (``with builder:``) an op on a graph tensor (``SymTensor``) or a weight emits a
typed node with the current source location instead.

The builder also threads the state token (auto-monad): a weight used as an operand is
read by a ``Load`` in the current state; a write or a print takes the state after the
loads before it (``UpdateState``) and yields the next one. Program order of effects is
thus data flow in the IR, which is what keeps passes from reordering or merging them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor, WeakNumber, apply
from msc.errors import GraphTypeError, Loc, MscError
from msc.frontend.active import ACTIVE, current_builder
from msc.frontend.hooks import structure_parts
from msc.ir.builder import make_node
from msc.ir.nodes import Const, Graph, Node, Value, Var
from msc.ir.primitives import Op, Primitive
from msc.ir.primitives.base import operand_dtype
from msc.ir.rewrite import tuple_parts
from msc.ir.types import (
    MonadType,
    RefType,
    ScalarType,
    TensorType,
    TupleType,
    Type,
    U,
    tensor_of,
    type_of_value,
)

__all__ = ["GraphBuilder", "current_builder"]  # (the stack itself: ``active.py``)


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
        self.state: Value = Const(U)  # the state token effects take now
        self.loads: dict[Var, Var] = {}  # weight -> its Load in the current state
        self.pending: list[Var] = []  # loads not yet ordered before the next effect
        self.wrote = False  # whether an effect advanced the state

    def __enter__(self) -> GraphBuilder:
        ACTIVE.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        ACTIVE.remove(self)

    # --- values -----------------------------------------------------------------------

    def add_input(self, t: Type, hint: str) -> Any:
        var = Var(t, hint)
        self.inputs.append(var)
        return SymTensor(var, self)

    def weight(self, param: Any) -> Any:
        """The graph tensor for a ``Parameter``: one weight input per Parameter object."""
        entry = self.weights.get(id(param))
        if entry is None:
            t = type_of_value(param.asnumpy())
            assert isinstance(t, TensorType)
            hint = self.weight_hint(param) or f"weight{len(self.weights)}"
            entry = (param, Var(RefType(t), hint))
            self.weights[id(param)] = entry
        return SymTensor(entry[1], self)

    def operand(self, x: Any) -> Value:
        """An IR operand for a tensor, weight (its ``Load``), number, or tuple of numbers."""
        if isinstance(x, ChosenParameter):
            return x.read(self)
        if isinstance(x, Parameter) or _is_ref(x):
            return self.load(self.reference(x))
        return self.value(x)

    def value(self, x: Any) -> Value:
        """``operand`` without loading: a weight stays a reference."""
        if isinstance(x, ChosenParameter):  # one of two weights: only its value is known
            return x.read(self)
        if isinstance(x, SymTensor):
            if x.builder is not self:
                raise MscError("a tensor of one graph is used inside another graph")
            return x.ssa
        if isinstance(x, Parameter):
            return self.weight(x).ssa
        if isinstance(x, Tensor):
            return Const(x.asnumpy())
        if isinstance(x, (bool, int, float, np.ndarray, np.generic, tuple)):
            return Const(x)
        # NOTE: the user's operand (``x + "abc"``): the same TypeError eager mode raises
        raise GraphTypeError(f"expected a Tensor or a number, but got {type(x).__name__}",
                             self.loc)

    # --- state ------------------------------------------------------------------------

    def reference(self, x: Any) -> Var:
        """The weight input behind a Parameter (or a graph value of reference type)."""
        var = self.value(x)
        if not isinstance(var, Var) or not isinstance(var.type, RefType):
            raise GraphTypeError(f"the variable must be a Parameter, but got {var.type}")
        return var

    def load(self, ref: Var) -> Var:
        """The weight's value in the current state: one ``Load`` per weight and state."""
        if ref not in self.loads:
            self.loads[ref] = self.emit(Op.Load, (ref, self.state))
            self.pending.append(self.loads[ref])
        return self.loads[ref]

    def order_loads(self) -> None:
        """Advance the state past the loads since the last effect, so the next effect is
        ordered after them."""
        if self.pending:
            self.advance(self.emit(Op.UpdateState, (self.state, *self.pending)))

    def advance(self, state: Value) -> None:
        self.state = state
        self.loads = {}
        self.pending = []

    def effect(self, prim: Primitive, inputs: tuple[Value, ...], attrs: dict[str, Any]) -> Var:
        """Emit a write or a print in program order: it takes the state after the loads
        before it, and the state moves past it."""
        self.order_loads()
        var = self.emit(prim, (*inputs, self.state), attrs)
        after = var if isinstance(var.type, MonadType) else \
            self.emit(Op.UpdateState, (self.state, var))
        self.advance(after)
        self.wrote = True
        return var

    def seal(self, output: Value) -> Value:
        """The graph's output, ordered after every effect: ``Depend(output, state)``."""
        if not self.wrote:
            return output
        self.order_loads()
        return self.emit(Op.Depend, (output, self.state))

    # --- nodes ------------------------------------------------------------------------

    def emit(self, prim: Primitive, inputs: tuple[Value, ...],
             attrs: dict[str, Any] | None = None) -> Var:
        """A typed node at the current location (see ``ir.builder.make_node``)."""
        node = make_node(prim, inputs, attrs or {}, self.loc)
        self.nodes.append(node)
        return node.out

    def apply(self, prim: Primitive, inputs: tuple[Any, ...], attrs: dict[str, Any]) -> Any:
        """Emit ``prim`` on ``inputs``; tuple results come back as tuples of tensors."""
        weak = [isinstance(x, WeakNumber) for x in inputs]
        if any(weak) and prim.elementwise and len(inputs) == 2:
            if all(w or not isinstance(x, Tensor) for w, x in zip(weak, inputs)):
                var = self.emit(prim, tuple(self.operand(x) for x in inputs), attrs)
                return WeakNumber(var, self, tensor_of(var.type).dtype.category)  # type: ignore
            inputs = _as_weak_scalars(self, inputs)
        var = self.emit(prim, tuple(self.operand(x) for x in inputs), attrs)
        return self.unpack(var) if isinstance(var.type, TupleType) else SymTensor(var, self)

    def unpack(self, var: Var) -> tuple[Any, ...]:
        assert isinstance(var.type, TupleType)
        items = []
        for i, et in enumerate(var.type.elems):
            item = self.emit(Op.TupleGetItem, (var,), {"index": i})
            items.append(self.unpack(item) if isinstance(et, TupleType) else SymTensor(item, self))
        return tuple(items)

    def finish(self, output: Value, flags: frozenset[str] = frozenset()) -> Graph:
        output = self.seal(output)
        weights = tuple(var for _, var in self.weights.values())
        return Graph(self.name, tuple(self.inputs) + weights, tuple(self.nodes), output, flags)


class ChosenParameter(SymTensor):
    """One of two Parameters, chosen at run time by a tensor condition: a variable bound
    to different Parameters in the branches of a tensor ``if`` (``p = self.a if x > 0
    else self.b``, a tuple of Parameters rebound in one branch). It reads as the chosen
    Parameter's value in the state at the point of use, and a write (``ops.assign``, the
    ``Apply*`` primitives) writes the chosen Parameter under the same condition
    (``control.write_chosen``), as MindSpore's graphs do."""

    def __init__(self, test: SymTensor, then: Any, orelse: Any):  # noqa: D107
        self.test, self.then, self.orelse = test, then, orelse
        self.builder = test.builder

    @property  # type: ignore[override]
    def ssa(self) -> Value:  # the value in the builder active now
        active = current_builder()
        assert active is not None
        return self.read(active)

    @property
    def type(self) -> TensorType:
        return self.then.type  # type: ignore[no-any-return]

    def read(self, builder: GraphBuilder) -> Var:
        cond = builder.emit(Op.Reshape, (builder.value(self.test),), {"shape": ()})
        return builder.emit(Op.Select, (cond, builder.operand(self.then),
                                        builder.operand(self.orelse)))


def to_output(builder: GraphBuilder, value: Any) -> Value:
    """The IR value of a graph's Python result; tuples and lists become MakeTuple."""
    if isinstance(value, (SymTensor, Parameter)):
        return builder.operand(value)
    if isinstance(value, Tensor):
        return Const(value.asnumpy())
    if isinstance(value, np.ndarray):  # a numpy constant: returned as a Tensor
        return Const(value)
    if isinstance(value, (tuple, list)):
        items = tuple(to_output(builder, v) for v in value)
        return builder.emit(Op.MakeTuple, items)
    if structure_parts(value) is not None:  # a sparse tensor: ``jit.list_shape`` rebuilds it
        return to_output(builder, structure_parts(value))
    if isinstance(value, (bool, int, float, str, type(None), np.generic)):
        return Const(value)
    raise GraphTypeError(f"a graph cannot return a {type(value).__name__}")


def has_constants(builder: GraphBuilder, output: Any) -> bool:
    """Whether a graph result holds Python constants (a Call can only return tensors)."""
    if isinstance(output, Const):
        return True
    parts = tuple_parts(builder.nodes, output)
    return parts is not None and any(has_constants(builder, v) for v in parts)


def _as_weak_scalars(builder: GraphBuilder, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each weak number among a binary op's ``inputs`` cast to the dtype the op would
    compute in were it the Python number (next to a real tensor, that tensor's dtype)."""
    types = tuple(ScalarType(x.category) if isinstance(x, WeakNumber)
                  else builder.operand(x).type for x in inputs)
    dt = operand_dtype(types)
    return tuple(apply(Op.Cast, x, dtype=dt) if isinstance(x, WeakNumber) and x.dtype != dt
                 else x for x in inputs)


def _is_ref(x: Any) -> bool:
    """Whether ``x`` is a graph value of reference type (a weight a graph was given)."""
    var = getattr(x, "ssa", None)
    return isinstance(var, Var) and isinstance(var.type, RefType)

"""Constant folding and a table of algebraic identities.

A node whose inputs are all constants is evaluated with its primitive's numpy
implementation (so folded values have exactly the dtypes eager mode gives); an
identity replaces a node by one of its operands. Both happen only for ops without
side effects, and an identity only when the operand's type equals the node's type
exactly (so ``x + 0`` with ``x: int32`` and ``0.0`` is not folded: it is float32).
One forward sweep reaches a fixed point, since each node sees its folded inputs.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from msc.ir.nodes import Const, Module, Node, Value, Var
from msc.ir.primitives import Op, Primitive, evaluate
from msc.ir.rewrite import Effects, regions
from msc.ir.transform import Transformer
from msc.ir.types import type_of_value

#: A rule sees the node (inputs already folded) and the nodes defining earlier values,
#: and returns the value the node equals, or None.
Rule = Callable[[Node, dict[Var, Node]], Value | None]


def const_fold(module: Module, *, max_elements: int = 1 << 16) -> Module:
    """Fold constant subexpressions and apply ``IDENTITIES``. Results with more than
    ``max_elements`` elements stay computed at run time: a folded constant is stored in
    the generated code or the weights, and a broadcast can make it arbitrarily large.

    Before::

        subgraph @f(%para1_x) {
          %0 = Add(Tensor(shape=[], dtype=Float32, value=1.0), 2) : <Tensor[Float32], ()>
          %1 = Mul(%para1_x, %0) : <Tensor[Float32], (2)>
          %2 = Mul(%1, 1) : <Tensor[Float32], (2)>
          Return(%2)
        }

    After::

        subgraph @f(%para1_x) {
          %0 = Mul(%para1_x, Tensor(shape=[], dtype=Float32, value=3.0)) : <Tensor[Float32], (2)>
          Return(%0)
        }
    """
    return _Folder(max_elements).module(module)


class _Folder(Transformer):
    def __init__(self, max_elements: int):
        super().__init__()
        self.max_elements = max_elements
        self.effects = Effects()
        self.defs: dict[Var, Node] = {}

    def node(self, node: Node) -> Value | None:
        value = self.fold(node)
        if value is None:
            self.defs[node.out] = node
        return value

    def fold(self, node: Node) -> Value | None:
        if node.op in (Op.Call, Op.Recurse) or regions(node) or self.effects.node(node):
            return None
        if all(isinstance(v, Const) for v in node.inputs):
            return self.evaluate(node)
        for rule in IDENTITIES.get(node.op, ()):
            value = rule(node, self.defs)
            if value is not None and value.type == node.out.type:
                return value
        return None

    def evaluate(self, node: Node) -> Const | None:
        values = tuple(v.value for v in node.inputs if isinstance(v, Const))
        result = evaluate(node.op, values, node.attr)
        if _size(result) > self.max_elements or type_of_value(result) != node.out.type:
            return None
        return Const(result)


def _size(value: object) -> int:
    if isinstance(value, tuple):
        return sum(_size(v) for v in value)
    return int(np.size(value)) if isinstance(value, (np.ndarray, np.generic)) else 1


# --- the identity table ----------------------------------------------------------------


def _all_equal(value: Value, k: int) -> bool:
    """``value`` is a numeric constant whose every element equals ``k``."""
    if not isinstance(value, Const):
        return False
    v = value.value
    if not isinstance(v, (bool, int, float, np.ndarray, np.generic)):
        return False
    arr = np.asarray(v)
    return arr.dtype.kind in "biuf" and arr.size > 0 and bool(np.all(arr == k))


def _right_unit(k: int) -> Rule:
    """``op(x, k) == x``."""
    def rule(node: Node, defs: dict[Var, Node]) -> Value | None:
        ok = len(node.inputs) == 2 and _all_equal(node.inputs[1], k)
        return node.inputs[0] if ok else None
    return rule


def _left_unit(k: int) -> Rule:
    """``op(k, x) == x``."""
    def rule(node: Node, defs: dict[Var, Node]) -> Value | None:
        ok = len(node.inputs) == 2 and _all_equal(node.inputs[0], k)
        return node.inputs[1] if ok else None
    return rule


def _same_type(node: Node, defs: dict[Var, Node]) -> Value | None:
    """A cast or shape op whose result type equals its operand's changes nothing."""
    return node.inputs[0] if node.inputs else None


def _identity_perm(node: Node, defs: dict[Var, Node]) -> Value | None:
    perm = node.attr.get("perm")
    if perm is None and len(node.inputs) == 2 and isinstance(node.inputs[1], Const):
        perm = node.inputs[1].value  # NOTE: Transpose may take its perm as an operand
    if not isinstance(perm, tuple) or not node.inputs:
        return None
    n = len(perm)
    return node.inputs[0] if tuple(int(p) % max(n, 1) for p in perm) == tuple(range(n)) else None


def _getitem_of_make_tuple(node: Node, defs: dict[Var, Node]) -> Value | None:
    src = node.inputs[0] if node.inputs else None
    made = defs.get(src) if isinstance(src, Var) else None
    index = node.attr.get("index")
    if made is None or made.op is not Op.MakeTuple or not isinstance(index, int):
        return None
    return made.inputs[index] if -len(made.inputs) <= index < len(made.inputs) else None


# NOTE: ``x + 0 -> x`` turns a negative zero into itself where IEEE gives +0.0; like
# XLA and LLVM's fast paths we accept that. Every other row is exact.
IDENTITIES: dict[Primitive, tuple[Rule, ...]] = {
    Op.Add: (_right_unit(0), _left_unit(0)),
    Op.Sub: (_right_unit(0),),
    Op.Mul: (_right_unit(1), _left_unit(1)),
    Op.Div: (_right_unit(1),),
    Op.Pow: (_right_unit(1),),
    Op.Cast: (_same_type,),
    Op.Reshape: (_same_type,),
    Op.Squeeze: (_same_type,),
    Op.ExpandDims: (_same_type,),
    Op.BroadcastTo: (_same_type,),
    Op.Flatten: (_same_type,),
    Op.Transpose: (_identity_perm,),
    Op.TupleGetItem: (_getitem_of_make_tuple,),
}

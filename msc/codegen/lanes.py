"""Lanes (numba target): identical elementwise chains over many tensors become one loop
over the tensors.

``HyperMap`` over a tuple of Parameters, an optimizer's update, a ``for`` loop over
layers: after inlining, one fused group holds the same short chain once per tensor
(``p_k - 0.1 * g_k`` for k = 0..63). Emitted as is, the loop body has one copy of the
chain per tensor, so Numba's compile time grows with the number of tensors (64 copies:
seconds), and so does the call (one argument per tensor to unbox, one result per tensor
to box). Each connected chain of the group is a *lane*; lanes with the same ops,
attributes, constants and operand kinds form a class, and a class of at least
``MIN_LANES`` lanes is emitted as one loop over its lanes around one copy of the chain:

    for lane in range(64):
        o = offsets_float32[lane]            # the lane's weight in its arena
        for i in range(16):
            t = arena_float32[o + i] - 0.1 * pack[16 * lane + i]
            lanes[16 * lane + i] = t

A lane reads weights through their arena (``common/arena.py``) and graph inputs
through a *pack* (``run`` concatenates those inputs into one array), and writes its
results into one array per chain position, which ``run`` splits into one view per lane
(each call's array is new, so results handed out are never written again). Only the
entry kernel has arenas and packs; only chains whose tensor operands have the group's
shape, and no float16 (its bits need conversions the lane loop does not write), qualify.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from msc.ir.dtypes import DType, float16
from msc.ir.kernel import Assign, Cast, Expr, Lit, Loop, Name, Role, Slice, Stmt, Store, empty, reshape
from msc.ir.nodes import Const, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.types import ScalarType, tensor_of

MIN_LANES = 4  # fewer lanes stay in the ordinary loop: nothing to save


@dataclass(frozen=True)
class LaneOutput:
    """Where a lane's result lives: ``buffer`` holds ``lanes`` results of ``shape`` one
    after another; this one is number ``lane``."""

    buffer: str
    lane: int
    lanes: int
    shape: tuple[int, ...]


class LaneLoops:
    """The lane half of the ``Lowerer`` (its attributes: ``entry``, ``ns``, ``env``,
    ``body``, ``users``, ``all_defs``, ``shared``, ``slots``, ``arenas``, ``weight_of``,
    ``input_index``, ``packs``, ``lane_outputs``; and ``FusedLoops``' ``expr`` and
    ``operands``, which it follows in the ``Lowerer``'s bases)."""

    entry: bool
    input_index: dict[Var, int]
    ns: Any
    env: dict[Var, str]
    body: list[Stmt]
    users: dict[Any, list[Any]]
    all_defs: dict[Var, Node]
    shared: Any
    slots: dict[Var, tuple[int, int]]
    arenas: list[tuple[str, str]]
    weight_of: dict[Var, Var]
    packs: list[tuple[str, tuple[int, ...]]]
    lane_outputs: dict[Var, LaneOutput]

    def reroll(self, group: list[Node], write: Node | None) -> list[Node]:
        """Emit the lane classes of ``group`` that qualify; returns the nodes left for
        the ordinary loop (``write``: the write after the group, whose lane stays)."""
        shape = group[0].out.type.shape  # type: ignore[union-attr]
        if not self.entry or not shape or len(group) < MIN_LANES:
            return group
        classes: dict[Any, list[tuple[list[Node], list[Value]]]] = {}
        for lane in _components(group):
            if write is not None and write.op.writes and \
                    any(write.inputs[1] is n.out for n in lane):
                continue
            signature = self.signature(lane, shape)
            if signature is not None:
                classes.setdefault(signature[0], []).append((lane, signature[1]))
        done: set[Node] = set()
        for lanes in classes.values():
            if len(lanes) >= MIN_LANES:
                self.emit_lanes(lanes, shape)
                done.update(n for lane, _ in lanes for n in lane)
        return [n for n in group if n not in done]

    def signature(self, lane: list[Node], shape: tuple[int, ...]) -> Any:
        """(what lanes of one class share, the lane's own operands in order of first
        use) or None when the lane does not qualify."""
        position = {n.out: i for i, n in enumerate(lane)}
        externals: list[Value] = []
        nodes = []
        for n in lane:
            if n.out.type.dtype == float16:  # type: ignore[union-attr]
                return None
            parts = []
            for v in n.inputs:
                if v in position:
                    parts.append(("lane", position[v]))  # type: ignore[index]
                elif isinstance(v, Const) and isinstance(v.type, ScalarType):
                    parts.append(("const", type(v.value).__name__, repr(v.value)))
                else:
                    kind = self.operand_kind(v, shape)
                    if kind is None:
                        return None
                    if v not in externals:
                        externals.append(v)
                    parts.append((kind, externals.index(v)))
            outside = any(u not in position for u in self.users.get(n.out, ()))
            nodes.append((n.op.name, n.attrs, str(n.out.type), tuple(parts), outside))
        return tuple(nodes), externals

    def operand_kind(self, v: Value, shape: tuple[int, ...]) -> Any:
        """How a lane loop reads ``v``: a weight in an arena or a graph input (packed),
        of the group's shape and not float16; else None."""
        t = tensor_of(v.type)
        if t is None or t.shape != shape or t.dtype == float16 or not isinstance(v, Var):
            return None
        if v in self.weight_of:
            return ("weight", t.dtype.np_name)
        if v in self.input_index:
            return ("input", t.dtype.np_name)
        return None

    def emit_lanes(self, lanes: list[tuple[list[Node], list[Value]]],
                   shape: tuple[int, ...]) -> None:
        first, externals = lanes[0]
        count, size = len(lanes), math.prod(shape)
        k, i = self.ns.fresh("lane"), self.ns.fresh("i")
        head: list[Stmt] = []  # per lane, before the element loop
        sources: dict[int, Expr] = {}  # operand number -> its element
        for q, v in enumerate(externals):
            column = [ext[q] for _, ext in lanes]
            if v in self.weight_of:
                arena, j = self.slots[self.weight_of[v]]  # type: ignore[index]
                buffer, offsets = self.arenas[arena]
                index = self.lane_table([self.slots[self.weight_of[w]][1]  # type: ignore
                                         for w in column], Name(k))
                start = Name(self.ns.fresh("o"))
                head.append(Assign(start, Name(offsets)[index]))
                sources[q] = Name(buffer)[start + Name(i)]
            else:
                pack = self.ns.fresh("pack")
                self.packs.append((pack, tuple(self.input_index[w] for w in column)))
                sources[q] = Name(pack)[size * Name(k) + Name(i)]
        outputs = {}
        for m, n in enumerate(first):
            if any(u not in {x.out for x in first} for u in self.users.get(n.out, ())):
                outputs[m] = self.ns.fresh("lanes")
                self.body.append(Assign(Name(outputs[m]), empty(
                    (count * size,), n.out.type.dtype), loc=n.loc))  # type: ignore[union-attr]
        # every lane and every element on its own: parallel loops
        flat = size * Name(k) + Name(i)
        elements = Loop(i, Lit(size), self.lane_body(first, externals, sources, outputs, flat),
                        role=Role.PARALLEL)
        self.body.append(Loop(k, Lit(count), (*head, elements), role=Role.PARALLEL))
        for m, buffer in outputs.items():
            for lane_number, (lane, _) in enumerate(lanes):
                v = lane[m].out
                self.lane_outputs[v] = LaneOutput(buffer, lane_number, count, shape)
                if self.read_in_kernel(v):
                    view = self.env[v] = self.ns.fresh("v")
                    start = size * lane_number
                    self.body.append(Assign(Name(view), reshape(
                        Name(buffer)[Slice(Lit(start), Lit(start + size))], shape)))

    def read_in_kernel(self, v: Var) -> bool:
        """Whether code in the kernel reads ``v`` (not only ``run``, through the output
        or a MakeTuple that only builds the output)."""
        for u in self.users.get(v, ()):
            node = self.all_defs.get(u) if u not in (None, "region") else None
            output_only = node is not None and node.op is Op.MakeTuple and \
                self.users.get(u) == [None]
            if u is not None and not output_only:
                return True
        return False

    def lane_body(self, first: list[Node], externals: list[Value], sources: dict[int, Expr],
                  outputs: dict[int, str], flat: Expr) -> tuple[Stmt, ...]:
        """One copy of the chain, on the lane's elements."""
        body: list[Stmt] = []
        scalars: dict[Value, tuple[Expr, DType | None]] = {}
        for q, v in enumerate(externals):
            name = self.ns.fresh("a")
            body.append(Assign(Name(name), sources[q]))
            scalars[v] = (Name(name), tensor_of(v.type).dtype)  # type: ignore[union-attr]
        for m, n in enumerate(first):
            # (a scalar constant has no entry: ``operands`` writes its literal)
            loaded = [scalars.get(v) or (Name(""), None) for v in n.inputs]
            t = self.ns.fresh("t")
            dt = n.out.type.dtype  # type: ignore[union-attr]
            e = self.expr(n, self.operands(n, loaded, scalar=True), scalar=True)
            body.append(Assign(Name(t), Cast(dt, e), loc=n.loc))
            scalars[n.out] = (Name(t), dt)
            if m in outputs:
                body.append(Store(Name(outputs[m])[flat], Name(t)))
        return tuple(body)

    def lane_table(self, column: list[int], k: Expr) -> Expr:
        """The expression giving lane ``k``'s entry of ``column``: arithmetic when the
        entries are evenly spaced (HyperMap's weights are), else a constant table."""
        step = column[1] - column[0] if len(column) > 1 else 0
        if all(b - a == step for a, b in zip(column, column[1:])):
            terms = [Lit(column[0])] * (column[0] != 0) + \
                [step * k if step != 1 else k] * (step != 0)
            return terms[0] + terms[1] if len(terms) == 2 else terms[0] if terms else Lit(0)
        return Name(self.shared.const(Const(np.array(column, np.int64))))[k]


def _components(group: list[Node]) -> list[list[Node]]:
    """The connected chains of ``group`` (linked by member -> member operands), each in
    program order, in the order of their first node."""
    parent = {n.out: n.out for n in group}

    def root(v: Var) -> Var:
        while parent[v] is not v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for n in group:
        for v in n.inputs:
            if v in parent:
                parent[root(v)] = root(n.out)  # type: ignore[index]
    lanes: dict[Var, list[Node]] = {}
    for n in group:
        lanes.setdefault(root(n.out), []).append(n)
    return list(lanes.values())

"""Load elimination: where a value read from a weight must be copied (``TensorMove``).

Generated code reads a weight without copying it: a ``Load`` is the weight's buffer,
and so is an ``Assign``'s result, a view of either (``Reshape``, ``TupleGetItem``, ...),
and what a shared graph or a branch returns when it passes such a buffer through. A
``Load`` means the weight's value *when it ran*; if the weight is written later and the
buffer read after that write, the read sees the new value. The level, MindSpore's
``MS_DEV_SIDE_EFFECT_LOAD_ELIM``, decides how hard msc works to avoid copies:

- 0: a ``TensorMove`` after every ``Load``: the most memory, never wrong.
- 1 (default): a ``TensorMove`` after each buffer that is read after a later write of
  its weight, in program order. "May" counts as "does": a write inside an ``If`` branch
  counts whichever branch runs, and a loop's writes also precede its reads on the next
  iteration.
- 2: first moves each such read (a pure computation, with the pure computations and
  the loads of other weights its operands need, and then its pure consumers) above the
  write, where its operands allow; then copies what is still read after a write. The
  fewest copies that keep results right, in linear time.
- 3: no copies: the least memory; a read after a write sees the new value, so results
  may be wrong (the tutorial's "accuracy is not ensured").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from msc.ir.builder import make_node
from msc.ir.nodes import Graph, Module, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.rewrite import Effects, callee, map_graphs, regions, walk
from msc.ir.transform import Transformer
from msc.ir.types import RefType, TensorType

LEVELS = (0, 1, 2, 3)
DEFAULT_LEVEL = 1


def load_elim(module: Module, level: int = DEFAULT_LEVEL) -> tuple[Module, list[str]]:
    """``module`` with ``TensorMove`` copies where ``level`` asks for them (see above), and
    the compile report's note: how many copies for how many loads, and reads moved.

    Before (level 1)::

        %0 = Load(%para2_w, U)
        %1 = UpdateState(U, %0)
        %2 = Assign(%para2_w, %para1_x, %1)
        ...
        %5 = Add(%0, %4)                 # reads %0's buffer after %2 wrote it

    After::

        %0 = Load(%para2_w, U)
        %1 = TensorMove(%0)
        %2 = UpdateState(U, %1)
        %3 = Assign(%para2_w, %para1_x, %2)
        ...
        %6 = Add(%1, %5)
    """
    if level not in LEVELS:
        raise ValueError(f"the load-elimination level must be 0, 1, 2 or 3, not {level!r}")
    stats = {"loads": 0, "copies": 0, "moved": 0}

    def one(graph: Graph) -> Graph:
        loads = [n.out for n in walk(graph) if n.op is Op.Load]
        stats["loads"] += len(loads)
        if level == 3 or not loads:
            return graph
        if level == 2:
            graph, moved = _hoist_graph(graph)
            stats["moved"] += moved
        copy = _Buffers(graph).hazards()  # at level 0 too: an Assign's result may need one
        if level == 0:
            copy |= set(loads)
        stats["copies"] += len(copy)
        return _insert_copies(graph, copy)

    out = map_graphs(module, one)
    if not stats["loads"]:
        return out, []
    note = f"level {level}: {stats['copies']} TensorMove(s) for {stats['loads']} Load(s)"
    if level == 2:
        note += f"; {stats['moved']} computation(s) moved above a write"
    return out, [note]


# --- which buffers each value may share ----------------------------------------------------


class _Buffers:
    """Which weight buffers each value of ``graph`` may share, and which of them are read
    after a later write of their weight.

    A *source* is a value that is a weight's buffer: a ``Load``, an ``Assign``'s result,
    a ``Call``'s result (or an element of it), with ``weights[source]`` the weights it
    may be. ``sources[v]`` are the sources a value may share memory with (views, tuples,
    ``Depend`` and branch results pass them on; a ``While`` copies what it carries).
    """

    def __init__(self, graph: Graph):
        self.graph = graph
        self.sources: dict[Var, frozenset[Var]] = {}
        self.weights: dict[Var, frozenset[Var]] = {}
        self.defs: dict[Var, Node] = {n.out: n for n in walk(graph)}
        self.effects = Effects()
        self.found: set[Var] = set()

    def of(self, v: Value) -> frozenset[Var]:
        return self.sources.get(v, frozenset()) if isinstance(v, Var) else frozenset()

    def define(self, node: Node) -> None:
        """``sources``/``weights`` for ``node``'s result (its regions already scanned)."""
        ins = node.inputs
        call = self.defs.get(ins[0]) if node.op is Op.TupleGetItem else node  # type: ignore
        if node.op.writes or node.op is Op.Load:
            self.weights[node.out] = frozenset({ins[0]})  # type: ignore[arg-type]
            self.sources[node.out] = frozenset({node.out})
        elif call is not None and callee(call) is not None:  # (an element of) its result
            refs = frozenset(v for v in call.inputs if isinstance(v.type, RefType))
            if refs and isinstance(node.out.type, TensorType):
                self.weights[node.out] = refs  # type: ignore[assignment]
                self.sources[node.out] = frozenset({node.out})
        elif node.op is Op.If:
            self.sources[node.out] = frozenset().union(
                *(self.of(v) for r in regions(node) for v in _leaves(r)))
        elif node.op is Op.MakeTuple:
            self.sources[node.out] = frozenset().union(*(self.of(v) for v in ins))
        elif node.op is not Op.While and ins and node.op.view:
            self.sources[node.out] = self.of(ins[0])

    def writes(self, node: Node) -> set[Var]:
        """The weights ``node`` writes (anywhere inside, for a branch or a loop)."""
        return {n.inputs[0] for n in _nodes_of(node) if n.op.writes}  # type: ignore[misc]

    # --- the scan ------------------------------------------------------------------------

    def hazards(self) -> set[Var]:
        """The sources read after a later write of their weight (to be copied)."""
        if any(n.op.writes for n in walk(self.graph)):
            self.scan(self.graph.nodes, [self.graph.output], set(), {})
        return self.found

    def scan(self, nodes: Iterable[Node], results: list[Value], killed: set[Var],
             live: dict[Var, set[Var]]) -> set[Var]:
        """Walk ``nodes`` in program order. ``live`` holds, per weight, the sources defined
        so far that no write of it has followed; ``killed`` those a write has followed.
        Returns ``killed`` after the last node and the reads of ``results``."""
        for node in nodes:
            if _reads_data(node):
                self.read(node.inputs, killed)
            if node.op is Op.If:  # each branch from the same state; after it, either's
                branches = [{w: set(b) for w, b in live.items()} for _ in regions(node)]
                killed = set().union(*(self.scan(r.nodes, _leaves(r), set(killed), inner)
                                       for r, inner in zip(regions(node), branches)))
                live.clear()
                for inner in branches:
                    for w, b in inner.items():
                        live.setdefault(w, set()).update(b - killed)
            elif node.op is Op.While:
                cond, body = node.attr["cond"], node.attr["body"]
                for _ in range(2):  # the second round sees the first one's writes
                    killed = self.scan(cond.nodes, [cond.output], killed, live)
                    killed = self.scan(body.nodes, _leaves(body), killed, live)
                killed = self.scan(cond.nodes, [cond.output], killed, live)
            for weight in self.writes(node):
                killed |= live.pop(weight, set())
            self.define(node)
            for weight in self.weights.get(node.out, ()):
                live.setdefault(weight, set()).add(node.out)
                killed.discard(node.out)  # defined again (the next loop iteration)
        self.read(results, killed)
        return killed

    def read(self, values: Iterable[Value], killed: set[Var]) -> None:
        for v in values:
            self.found |= self.of(v) & killed


def _reads_data(node: Node) -> bool:
    """Whether ``node`` reads its operands' elements (a view, a tuple or an ordering node
    only passes a buffer on: what uses it reads it)."""
    if node.op in (Op.UpdateState, Op.MakeTuple):
        return False
    return node.op in (Op.Call, Op.Recurse, Op.If, Op.While) or not node.op.view


def _leaves(region: Graph) -> list[Value]:
    """What a region returns, element by element (its output is a MakeTuple)."""
    made = next((n for n in region.nodes if n.out is region.output), None)
    return list(made.inputs) if made is not None and made.op is Op.MakeTuple else [region.output]


def _nodes_of(node: Node) -> list[Node]:
    return [node] + [n for r in regions(node) for n in walk(r)]


# --- copies --------------------------------------------------------------------------------


def _insert_copies(graph: Graph, copy: set[Var]) -> Graph:
    """``graph`` with ``TensorMove(s)`` right after each source ``s`` in ``copy``, and every
    later use of ``s`` reading the copy."""
    return _Copies(copy).graph(graph) if copy else graph


class _Copies(Transformer):
    def __init__(self, copy: set[Var]):
        super().__init__()
        self.copy = copy

    def node(self, node: Node) -> Value | None:
        if node.out not in self.copy:
            return None
        self.b.append(node)
        return self.b.append(make_node(Op.TensorMove, (node.out,), {}, node.loc, node.out.hint))


# --- level 2: reads moved above writes ---------------------------------------------------------


def _hoist_graph(graph: Graph) -> tuple[Graph, int]:
    """Each pure read of a buffer after a write of its weight, moved above the write when
    its operands allow (in every node list: the graph's and its regions')."""
    buffers = _Buffers(graph)
    buffers.hazards()  # fills its sources and weights (the copies come after the moves)
    hoist = _Hoist(buffers)
    return hoist.graph(graph), hoist.moved


class _Hoist(Transformer):
    """Reschedules each node list once it is built (a region's before its node's list)."""

    def __init__(self, buffers: _Buffers):
        super().__init__()
        self.buffers = buffers
        self.moved = 0

    def graph(self, graph: Graph) -> Graph:
        built = super().graph(graph)
        nodes = list(built.nodes)
        count = _hoist_list(nodes, self.buffers)
        self.moved += count
        return replace(built, nodes=tuple(nodes)) if count else built


def _hoist_list(nodes: list[Node], buffers: _Buffers) -> int:
    """Move reads above writes within one node list, in place; returns how many nodes
    moved. A pure node reading a buffer after a write of its weight moves above that
    write, with the operands it needs; then so does each pure node that uses a moved
    value and whose operands are all ready before a write it follows, so the moved
    computations stay together (one fused loop, no buffer held across the write)."""
    order = _Order(nodes, buffers)
    if not any(order.writes):
        return 0
    moved: set[Var] = set()
    for i, node in enumerate(nodes):
        if not _movable(node, buffers):
            continue
        group = None
        at = order.first_write_between(i) if any(buffers.of(v) for v in node.inputs) else None
        if at is not None:
            group = order.operands_from(node, at, i)
        elif any(v in moved for v in node.inputs):
            at = order.after_operands(node, i)
            if any(order.writes[at:i]):
                group = {node}
        if group:
            order.move(group, at, i)
            moved |= {n.out for n in group}
    return len(moved)


def _movable(node: Node, buffers: _Buffers) -> bool:
    """A pure computation that owns its result (views and loads stay where they are)."""
    if node.op in (Op.Call, Op.Recurse, Op.If, Op.While, Op.Load, Op.MakeTuple) or buffers.effects.node(node):
        return False
    return not node.op.view


class _Order:
    """One node list being rescheduled: each value's position (a region's values at their
    node's), and the weights each node writes, kept up to date as nodes move."""

    def __init__(self, nodes: list[Node], buffers: _Buffers):
        self.nodes = nodes
        self.buffers = buffers
        self.position = {n.out: k for k, n in enumerate(nodes)}
        self.owner = {m.out: n.out for n in nodes for r in regions(n) for m in walk(r)}
        self.writes = [buffers.writes(n) for n in nodes]

    def where(self, v: Value) -> int:
        """The position defining ``v`` (-1 for a value from outside the list)."""
        key = self.owner.get(v, v) if isinstance(v, Var) else None
        return self.position.get(key, -1)  # type: ignore[arg-type]

    def first_write_between(self, i: int) -> int | None:
        """The position of the first write, after a source ``nodes[i]`` reads was defined
        and before ``i``, of that source's weight; None if there is none."""
        first = None
        for s in {s for v in self.nodes[i].inputs for s in self.buffers.of(v)}:
            for k in range(self.where(s) + 1, i):
                if self.buffers.weights[s] & self.writes[k]:
                    first = k if first is None else min(first, k)
                    break
        return first

    def operands_from(self, node: Node, at: int, i: int) -> set[Node] | None:
        """``node`` and the nodes between ``at`` and ``i`` it needs, if all can move above
        ``at``; else None. A ``Load`` of a weight nothing there writes may come along: it
        then reads the state the write at ``at`` takes (see ``move``)."""
        jumped = set().union(*self.writes[at:i])
        group: set[Node] = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n in group:
                continue
            if n.op is Op.Load and self.state_before(at) is not None and \
                    n.inputs[0] not in jumped:
                group.add(n)
                continue
            if n is not node and not _movable(n, self.buffers):
                return None
            group.add(n)
            stack += [self.nodes[k] for v in n.inputs if at <= (k := self.where(v)) < i]
        return group

    def state_before(self, at: int) -> Value | None:
        """The state the write at ``at`` takes (None for a branch or a loop)."""
        write = self.nodes[at]
        return write.inputs[-1] if write.op.writes else None

    def after_operands(self, node: Node, i: int) -> int:
        """The first position after every operand of ``nodes[i]`` defined in the list."""
        return max((k + 1 for v in node.inputs if 0 <= (k := self.where(v)) < i), default=0)

    def move(self, group: set[Node], at: int, i: int) -> None:
        """``group`` (nodes between ``at`` and ``i``) moved to ``at``, in their order; a
        moved ``Load`` reads the state before the write it jumps (the same value: nothing
        it jumps writes its weight)."""
        span = self.nodes[at:i + 1]
        state = self.state_before(at)
        moved = [n if n.op is not Op.Load else
                 replace(n, inputs=(n.inputs[0], state))  # type: ignore[arg-type]
                 for n in span if n in group]
        self.nodes[at:i + 1] = moved + [n for n in span if n not in group]
        for k in range(at, i + 1):
            self.position[self.nodes[k].out] = k
            self.writes[k] = self.buffers.writes(self.nodes[k])

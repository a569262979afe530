"""Reverse-mode automatic differentiation of a graph: ``grad_graph``.

The differentiated graph runs the forward computation once (its writes and prints
happen once, in program order) and then the backward one: cotangents flow from the
output back to the parameters through each primitive's ``vjp`` rule, summed where a
value has several users. Regions are closed over the values they read
(``close_regions``), so every value a region uses is one of its parameters. A shared
graph (a ``lazy_inline`` block) that writes nothing is differentiated once, into a
forward graph that also returns its residuals and a backward graph over them, both
shared by every call (``_Shared``); other calls are inlined first.

A tensor ``If`` is split in two, as JAX splits ``cond``::

    forward:  r = If(c, x...; then=T', else=E')     # T' returns (outs..., res_T, 0s)
    backward: dx = If(c, res_T, res_E, ct(outs); then=dT, else=dE)

``T'`` computes what ``T`` did and also returns its residuals (the intermediate values
its backward reads; each branch returns zeros in place of the other branch's), and
``dT`` is ``T``'s backward reading them. Nothing is computed twice.

A tensor ``While`` also counts its iterations, N. Its backward is a ``While`` from
j = N-1 down to 0 that recomputes the carried values of iteration j from the initial
ones (an inner loop of j steps) and applies the body's backward to them: no memory
grows with N, at the price of O(N^2) body evaluations (as recomputation-based
checkpointing trades). A loop that writes Parameters or prints runs its effects once,
in the forward loop; its recomputation runs a pure copy of the body (``_pure``) in which
each Parameter it reads or writes is a carried value starting from the Parameter's value
at the loop's entry, and a print does nothing. Gradients then flow through those writes
as through any carried value (a read after the loop sees the loop's writes), as
MindSpore's do. Unrolled loops are straight-line code and need nothing special.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from msc.errors import InternalCompilerError, Loc, UnsupportedSyntaxError
from msc.ir.builder import Builder, make_node
from msc.ir.dtypes import int64
from msc.ir.nodes import REUSABLE, Const, Graph, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.exempt import NO_VJP
from msc.ir.rewrite import (
    callee,
    captures,
    result_and_state,
    substitute,
    substitute_graph,
    tuple_parts,
    walk,
)
from msc.ir.transform import Copier, close_regions, inline_calls
from msc.ir.types import U, MonadType, RefType, TensorType, TupleType, Type, tensor_of

#: A cotangent: an IR value, None (zero), or a list of cotangents for a tuple value.
Cotangent = Any


def grad_graph(graph: Graph, *, sens: bool = False, aux: bool = False,
               prepare: Callable[[Graph], Graph] = lambda g: g) -> Graph:
    """``graph`` differentiated: the same parameters (with ``sens``, the cotangent of the
    output as one more input after the tensor inputs), and the output
    ``(value, (d inputs...), (d weights...), state)``: the forward result, the gradients
    of the tensor inputs and of the weights in parameter order (zeros where no gradient
    flows, in the parameter's dtype), and the state after the forward's effects. The
    output's cotangent is ``sens`` or ones; with ``aux`` the output is ``(out, aux...)``
    and only ``out`` is differentiated. ``prepare`` rewrites the inlined forward first."""
    g = close_regions(prepare(_inline_calls(graph)))
    value, state = result_and_state(g)
    nodes: list[Node] = []
    forward = _Forward(nodes, any(n.op.writes for n in walk(g)), _Shared())
    forward.run(g.nodes)
    value, state = forward.read(value), forward.read(state)
    inputs = [p for p in g.params if not isinstance(p.type, RefType)]
    weights = [p for p in g.params if isinstance(p.type, RefType)]
    params = list(g.params)
    b = Builder(None, nodes)
    out_type = value.type
    if aux:
        if not isinstance(value.type, TupleType) or not value.type.elems:
            raise UnsupportedSyntaxError("has_aux=True needs a function returning a tuple "
                                         "(out, aux...)")
        out_type = value.type.elems[0]
    if sens:  # after the tensor inputs, before the state and the weights
        seed: Cotangent = Var(out_type, "sens")
        params.insert(next(i for i, p in enumerate(params)
                           if isinstance(p.type, (MonadType, RefType))), seed)
    else:
        seed = _seed(b, out_type)
    if aux:
        seed = [seed] + [None] * (len(value.type.elems) - 1)
    back = _Backward(nodes, forward)
    back.add(value, seed)
    back.run(list(nodes))
    d_inputs = [back.total(p) for p in inputs if tensor_of(p.type) is not None]
    d_weights = [back.total(p) for p in weights]
    output = b.tuple(value, b.tuple(*d_inputs), b.tuple(*d_weights), state)
    return Graph(f"{graph.name}_grad", tuple(params), tuple(nodes), output)


# --- preparing the forward graph -----------------------------------------------------------


def _inline_calls(graph: Graph) -> Graph:
    """Every ``Call`` inlined but those of shared graphs that write nothing: those are
    differentiated once (``_Shared``)."""
    return inline_calls(graph, keep=_shareable)


def _shareable(g: Graph) -> bool:
    return g.reusable and not any(n.op.writes or n.op is Op.Print for n in walk(g))


# --- forward ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _SplitIf:
    """A forward ``If`` that also returns residuals, and its branches' backward regions."""

    outputs: int  # how many results the original If had
    residuals: int  # how many residuals follow them
    backward: tuple[Graph, Graph]  # (then, else): (res_T, res_E, cts) -> d operands


@dataclass(frozen=True)
class _Counted:
    """A counting ``While``'s body as its backward recomputes it (``_pure`` where the loop
    has effects) and the values that recomputation starts from."""

    body: Graph
    init: tuple[Value, ...]


@dataclass(frozen=True)
class _SharedGrad:
    """A shared graph's forward (its result, then its residuals) and backward
    ((residuals..., ct of the result) -> ct of each parameter but the state)."""

    forward: Graph
    backward: Graph
    residuals: int
    recompute: bool = False  # ``backward`` takes the call's operands, not residuals


class _Shared:
    """Each shared graph differentiated once, however often it is called.

    A recursive graph ``g`` (a ``Recurse`` inside it names it) cannot keep its inner
    levels' residuals (their number is not fixed), so its backward recomputes:
    ``g_grad(operands..., ct) = bwd(fwd(operands...)'s residuals, ct)``, and the backward of
    each ``Recurse`` in ``bwd`` is a ``Recurse`` naming ``g_grad``, whose forward ``fwd``
    recomputes the inner level (O(depth^2) work for a linear recursion, as the While's)."""

    names = itertools.count()

    def __init__(self) -> None:
        self.done: dict[int, _SharedGrad] = {}
        self.recursive: dict[str, tuple[str, Type]] = {}  # g -> (g_grad, its result type)

    def of(self, g: Graph, writes: bool) -> _SharedGrad:
        if id(g) not in self.done:
            k = next(self.names)
            again = any(n.op is Op.Recurse and n.attr["graph"] == g.name for n in walk(g))
            if again:
                grads = TupleType(tuple(_ct_type(p.type) for p in g.params
                                        if not isinstance(p.type, MonadType)))
                self.recursive[g.name] = (f"{g.name}_grad{k}", grads)
            closed = close_regions(_inline_calls(g))
            nodes = list(closed.nodes)
            out = Builder(None, nodes).tuple(closed.output)  # a result tuple, as regions give
            region = _Region(Graph(g.name, closed.params, tuple(nodes), out), writes, self)
            res = region.residuals
            # fresh values: the module keeps the original graph too, and a value is
            # defined once in a module
            fwd = replace(Copier().graph(region.forward(res, (), ())),
                          name=f"{g.name}_fwd{k}", flags=frozenset({REUSABLE}))
            bwd = replace(Copier().graph(region.backward(res, (), ())),
                          name=f"{g.name}_bwd{k}", flags=frozenset({REUSABLE}))
            if again:
                self.done[id(g)] = _SharedGrad(fwd, _recomputing(g, fwd, bwd, len(res),
                                                                 *self.recursive[g.name]),
                                               len(res), recompute=True)
            else:
                self.done[id(g)] = _SharedGrad(fwd, bwd, len(res))
        return self.done[id(g)]


def _recomputing(g: Graph, fwd: Graph, bwd: Graph, residuals: int, name: str,
                 grads: Type) -> Graph:
    """``name(operands..., ct) = bwd(residuals of fwd(operands...), ct)``: a recursive
    graph's backward from its operands (``_Shared``)."""
    params = tuple(Var(p.type, p.hint) for p in g.params)
    ct = Var(_ct_type(g.output.type), "ct")
    nodes: list[Node] = []
    b = Builder(None, nodes)
    forward = b.append(make_node(Op.Call, params, {"graph": fwd}))
    res = [b.getitem(forward, 1 + k) for k in range(residuals)]
    out = b.append(make_node(Op.Call, (*res, ct), {"graph": bwd}))
    if out.type != grads:
        raise InternalCompilerError(f"@{name} returns {out.type}, not {grads}")
    # inlined: the Recurse of @name in bwd then calls the graph it sits in, one kernel
    # calling itself (Numba types that from its base case, not two calling each other)
    return inline_calls(Graph(name, (*params, ct), tuple(nodes), out, frozenset({REUSABLE})))


class _Forward:
    """Copies forward nodes into ``nodes``, splitting each tensor ``If`` (``_SplitIf``)."""

    def __init__(self, nodes: list[Node], writes: bool, shared: _Shared):
        self.nodes = nodes
        self.shared = shared
        self.calls: dict[Var, _SharedGrad] = {}  # forward Call -> its shared graphs
        self.env: dict[Var, Value] = {}
        self.ifs: dict[Var, _SplitIf] = {}
        self.whiles: dict[Var, _Counted] = {}  # counting While -> what its backward runs
        self.writes = writes  # whether the differentiated function writes Parameters

    def read(self, v: Value) -> Value:
        return self.env.get(v, v) if isinstance(v, Var) else v

    def run(self, nodes: tuple[Node, ...]) -> None:
        for node in nodes:
            node = substitute(node, self.env)
            if node.op is Op.If:
                self.env[node.out] = self.as_before(node, self.split_if(node))
            elif node.op is Op.While:
                self.env[node.out] = self.as_before(node, self.counting_while(node))
            elif callee(node) is not None:
                self.env[node.out] = self.split_call(node)
            else:
                self.nodes.append(node)

    def as_before(self, node: Node, longer: Var) -> Value:
        """The first results of ``longer`` (a split If, a counting While), typed as the
        original ``node``'s: a use of the whole result (a residual of an earlier
        differentiation, differentiated again) sees the type it had."""
        b = Builder(node.loc, self.nodes)
        return b.tuple(*(b.getitem(longer, i)
                         for i in range(len(_tuple_type(node.out.type).elems))))

    def split_call(self, node: Node) -> Value:
        """A call of the shared graph's forward, which also returns its residuals; the
        result is the call's first element."""
        shared = self.shared.of(callee(node), self.writes)  # type: ignore[arg-type]
        call = make_node(Op.Call, node.inputs, {"graph": shared.forward}, node.loc)
        self.nodes.append(call)
        self.calls[call.out] = shared
        return Builder(node.loc, self.nodes).getitem(call.out, 0)

    def counting_while(self, node: Node) -> Var:
        """``node`` carrying one more value: how many iterations ran (after the others,
        so the original results keep their positions)."""
        cond, body = node.attr["cond"], node.attr["body"]
        count = Var(TensorType(int64, ()), "n")
        body_nodes = list(body.nodes)
        b = Builder(node.loc, body_nodes)
        parts = [b.getitem(body.output, i) for i in range(len(body.params))]
        out = b.tuple(*parts, b.add(count, 1))
        regions = {"cond": Graph(cond.name, cond.params + (count,), cond.nodes, cond.output),
                   "body": Graph(body.name, body.params + (count,), tuple(body_nodes), out)}
        inputs = init = list(node.inputs)
        if _impure(body) or (self.writes and any(isinstance(v.type, RefType) for v in init)):
            # the recomputation starts from each Parameter's value at the loop's entry:
            # a copy (the loop writes the buffer a Load reads), made before the loop runs
            state = next(v for v in init if isinstance(v.type, MonadType))
            entry = Builder(node.loc, self.nodes)
            init = [entry.emit(Op.TensorMove, entry.emit(Op.Load, v, state))
                    if isinstance(v.type, RefType) else v for v in init]
            copies = [v for v, w in zip(init, inputs) if v is not w]
            after = entry.emit(Op.UpdateState, state, *copies)
            inputs = [after if v is state else v for v in inputs]
            init = [after if v is state else v for v in init]
            body = _pure(body, extend=False)
        loop = make_node(Op.While, (*inputs, Const(np.int64(0))), regions, node.loc)
        self.nodes.append(loop)
        self.whiles[loop.out] = _Counted(body, tuple(init))
        return loop.out

    def split_if(self, node: Node) -> Var:
        then = _Region(node.attr["then"], self.writes, self.shared)
        orelse = _Region(node.attr["orelse"], self.writes, self.shared)
        res_t, res_e = then.residuals, orelse.residuals
        regions = {"then": then.forward(res_t, (), res_e),
                   "orelse": orelse.forward(res_e, res_t, ())}
        split = make_node(Op.If, node.inputs, regions, node.loc)
        self.nodes.append(split)
        count = len(_tuple_type(node.out.type).elems)
        backward = (then.backward(res_t, (), res_e), orelse.backward(res_e, res_t, ()))
        self.ifs[split.out] = _SplitIf(count, len(res_t) + len(res_e), backward)
        return split.out


def _tuple_type(t: Type) -> TupleType:
    if not isinstance(t, TupleType):
        raise InternalCompilerError(f"an If result of type {t}")
    return t


def _result_parts(nodes: list[Node], output: Value) -> tuple[Value, ...]:
    """The elements of a region's result tuple, read with ``TupleGetItem`` (appended to
    ``nodes``) where no ``MakeTuple`` of ``nodes`` built it: CSE may have replaced the
    region's own tuple by an equal one of the enclosing graph (two ``MakeTuple()`` of
    branches that return nothing), which ``close_regions`` then made a parameter."""
    parts = tuple_parts(nodes, output)
    if parts is not None:
        return parts
    b = Builder(None, nodes)
    return tuple(b.getitem(output, i) for i in range(len(_tuple_type(output.type).elems)))


class _Region:
    """One branch of an ``If``: its forward nodes (nested ``If`` split too), the backward
    nodes reading them, and the residuals: the forward values the backward reads."""

    def __init__(self, region: Graph, writes: bool, shared: _Shared):
        self.region = region
        self.nodes: list[Node] = []
        forward = _Forward(self.nodes, writes, shared)
        forward.run(region.nodes)
        self.output = forward.read(region.output)
        self.parts = _result_parts(self.nodes, self.output)
        self.cts = [None if isinstance(p.type, MonadType) else Var(_ct_type(p.type), "ct")
                    for p in self.parts]
        self.back_nodes: list[Node] = []
        back = _Backward(self.back_nodes, forward)
        back.add(self.output, list(self.cts))
        back.run(list(self.nodes))
        grads = [back.total(p) for p in region.params if not isinstance(p.type, MonadType)]
        self.grads = Builder(None, self.back_nodes).tuple(*grads)
        defined = set(region.params) | {n.out for n in self.nodes}
        reads = captures(Graph("backward", tuple(c for c in self.cts if c is not None),
                               tuple(self.back_nodes), self.grads))
        self.residuals = tuple(v for v in reads if v in defined)

    def forward(self, mine: tuple[Var, ...], before: tuple[Var, ...],
                after: tuple[Var, ...]) -> Graph:
        """The branch returning its results, then zeros for ``before``, its residuals
        ``mine``, and zeros for ``after`` (the other branch's residuals)."""
        nodes = list(self.nodes)
        b = Builder(None, nodes)
        zeros_before = [_zeros(b, v.type) for v in before]
        zeros_after = [_zeros(b, v.type) for v in after]
        out = b.tuple(*self.parts, *zeros_before, *mine, *zeros_after)
        return Graph(f"{self.region.name}_fwd", self.region.params, tuple(nodes), out)

    def backward(self, mine: tuple[Var, ...], before: tuple[Var, ...],
                 after: tuple[Var, ...]) -> Graph:
        """``(res before, res mine, res after, cts) -> d operands``, reading its own."""
        fresh = {v: Var(v.type, v.hint) for v in (*before, *mine, *after)}
        cts = [Var(_ct_type(p.type), "ct") for p in self.parts
               if not isinstance(p.type, MonadType)]
        env: dict[Var, Value] = {v: fresh[v] for v in mine}
        env.update((c, new) for c, new in zip((c for c in self.cts if c is not None), cts))
        params = tuple(fresh[v] for v in (*before, *mine, *after)) + tuple(cts)
        body = Graph(f"{self.region.name}_bwd", params, tuple(self.back_nodes), self.grads)
        return substitute_graph(body, env)


# --- backward --------------------------------------------------------------------------------


class _Backward:
    """Accumulates cotangents (``ct``) and emits the backward nodes into ``nodes``."""

    def __init__(self, nodes: list[Node], forward: _Forward):
        self.nodes = nodes
        self.ifs, self.whiles, self.writes = forward.ifs, forward.whiles, forward.writes
        self.calls, self.shared = forward.calls, forward.shared
        self.ct: dict[Var, Cotangent] = {}

    def b(self, loc: Loc | None) -> Builder:
        return Builder(loc, self.nodes)

    def add(self, v: Value, c: Cotangent) -> None:
        """Add ``c`` to the cotangent of ``v`` (nothing for constants and the state)."""
        if c is None or not isinstance(v, Var) or isinstance(v.type, MonadType):
            return
        self.ct[v] = _plus(self.b(None), v.type, self.ct.get(v), c)

    def total(self, v: Var) -> Value:
        """The cotangent of ``v`` as one IR value (zeros if none arrived)."""
        return _value(self.b(None), v.type, self.ct.get(v))

    def run(self, forward: list[Node]) -> None:
        for node in reversed(forward):
            g = self.ct.get(node.out)
            if g is None and node.op is Op.While and self._writes_read(node):
                g = [None] * len(_tuple_type(node.out.type).elems)
            if g is not None:
                self.node(node, g)

    def _writes_read(self, node: Node) -> bool:
        """Whether a loop writes a weight whose later reads have a cotangent: it flows on
        into the loop."""
        counted = self.whiles.get(node.out)
        return counted is not None and any(
            isinstance(v.type, RefType) and self.ct.get(v) is not None
            and not isinstance(w.type, RefType)
            for v, w in zip(node.inputs, counted.init))

    def node(self, node: Node, g: Cotangent) -> None:
        op, b = node.op, self.b(node.loc)
        if isinstance(node.out.type, TupleType):  # a tuple's cotangent, element by element
            g = _split(b, g, node.out.type)
        if op is Op.MakeTuple:
            for v, c in zip(node.inputs, g):
                self.add(v, c)
        elif op is Op.TupleGetItem:
            whole = node.inputs[0]
            parts: list[Cotangent] = [None] * len(_tuple_type(whole.type).elems)
            parts[node.attr["index"]] = g
            self.add(whole, parts)
        elif op in (Op.Depend, Op.Load):  # a value, or a weight's value: to that input
            self.add(node.inputs[0], g)
        elif op is Op.If:
            self.backward_if(node, g, b)
        elif op is Op.While:
            self.backward_while(node, g, b)
        elif op is Op.Call:
            self.backward_call(node, g, b)
        elif op is Op.Recurse:
            self.backward_recurse(node, g, b)
        elif op.vjp is not None:
            ct = _value(b, node.out.type, g)
            cts = op.vjp(b, ct, *node.inputs, out=node.out, **node.attr)
            for v, c in zip(node.inputs, cts):
                self.add(v, c)
        elif NO_VJP.get(op.name, "").startswith("not yet"):
            raise UnsupportedSyntaxError(f"no gradient rule for '{op.name}' yet ("
                                         f"{NO_VJP[op.name].removeprefix('not yet: ')})",
                                         node.loc)

    def backward_if(self, node: Node, g: Cotangent, b: Builder) -> None:
        split = self.ifs[node.out]
        elems = _tuple_type(node.out.type).elems
        cts = [_value(b, t, g[i]) for i, t in enumerate(elems[:split.outputs])
               if not isinstance(t, MonadType)]
        res = [b.getitem(node.out, split.outputs + k) for k in range(split.residuals)]
        then, orelse = split.backward
        grads = b.append(make_node(Op.If, (node.inputs[0], *res, *cts),
                                   {"then": then, "orelse": orelse}, node.loc))
        operands = [v for v in node.inputs[1:] if not isinstance(v.type, MonadType)]
        for k, v in enumerate(operands):
            self.add(v, b.getitem(grads, k))


# --- cotangent values ------------------------------------------------------------------------


    def backward_call(self, node: Node, g: Cotangent, b: Builder) -> None:
        """A call of the shared graph's backward on the forward call's residuals (a
        recursive graph's: on its operands, ``_Shared``)."""
        shared = self.calls[node.out]
        result = _tuple_type(node.out.type).elems[0]
        res = [b.getitem(node.out, 1 + k) for k in range(shared.residuals)]
        if shared.recompute:
            res = list(node.inputs)
        grads = b.append(make_node(Op.Call, (*res, _value(b, result, g[0])),
                                   {"graph": shared.backward}, node.loc))
        operands = [v for v in node.inputs if not isinstance(v.type, MonadType)]
        for k, v in enumerate(operands):
            self.add(v, b.getitem(grads, k))

    def backward_recurse(self, node: Node, g: Cotangent, b: Builder) -> None:
        """The recursive graph's backward from the inner level's operands (``_Shared``)."""
        target = self.shared.recursive.get(node.attr["graph"])
        if target is None:  # (a gradient's own recursive graphs, differentiated again)
            raise UnsupportedSyntaxError("no second derivatives through recursion whose "
                                         "depth a tensor decides yet", node.loc)
        name, grads = target
        ct = _value(b, node.out.type, g)
        out = b.append(make_node(Op.Recurse, (*node.inputs, ct),
                                 {"graph": name, "result": grads}, node.loc))
        operands = [v for v in node.inputs if not isinstance(v.type, MonadType)]
        for k, v in enumerate(operands):
            self.add(v, b.getitem(out, k))

    def backward_while(self, node: Node, g: Cotangent, b: Builder) -> None:
        """``for j = N-1 .. 0: ct = body's backward at (body^j)(init)`` as a ``While``
        carrying ``(j, ct..., init...)``; the final ``ct`` is the initial values'."""
        counted = self.whiles[node.out]
        body = counted.body
        n = len(body.params)
        operands, init = node.inputs[:n], counted.init
        diff = [k for k, v in enumerate(init) if not isinstance(v.type, MonadType)]
        # a weight the recomputation carries as a value: the cotangent of its reads after
        # the loop is its final value's, and flows back through the loop's writes
        weights = {k for k in diff if isinstance(operands[k].type, RefType)
                   and not isinstance(init[k].type, RefType)}
        cts = [_value(b, init[k].type, self.ct.pop(operands[k], None) if k in weights
                      else g[k]) for k in diff]
        step = _vjp_of(body, self.writes, self.shared)  # (s..., ct...) -> ct before it
        j = b.sub(b.getitem(node.out, n), 1)
        carried = (j, *cts, *init)
        loop = b.append(make_node(Op.While, carried, {
            "cond": _counting_down(carried),
            "body": _step_back(carried, body, step, len(cts))}, node.loc))
        for pos, k in enumerate(diff):
            self.add(operands[k], b.getitem(loop, 1 + pos))


def _impure(g: Graph) -> bool:
    return any(n.op.writes or n.op in (Op.Print, Op.Raise) for n in walk(g))


def _pure(g: Graph, extend: bool) -> Graph:
    """``g`` (a loop body or a region) without effects, for recomputation: each weight
    parameter becomes a parameter of its tensor type holding the weight's current value,
    a ``Load`` reads that value, a write replaces it (converted to the weight's type as
    the write converts), a print or raise does nothing. Nested ``If``s and ``While``s are
    made pure too. With ``extend`` the result tuple also gives each weight's final value,
    in parameter order (an ``If`` region's; a loop body carries them in place)."""
    nodes: list[Node] = []
    b = Builder(None, nodes)
    env: dict[Var, Value] = {}
    current: dict[Var, Value] = {}  # weight parameter -> its value now
    params = []
    for p in g.params:
        new = Var(p.type.tensor if isinstance(p.type, RefType) else p.type, p.hint)
        (current if isinstance(p.type, RefType) else env)[p] = new
        params.append(new)

    def read(v: Value) -> Value:
        if isinstance(v, Var):
            return current[v] if v in current else env.get(v, v)
        return v

    for node in g.nodes:
        ins = [read(v) for v in node.inputs]
        b.loc = node.loc
        if node.op is Op.Load:
            env[node.out] = ins[0]
        elif node.op.writes:
            ref = node.inputs[0]
            value = ins[1] if node.op.update is None else b.emit(node.op.update, ins[0], ins[1])
            current[ref] = env[node.out] = _as_weight(b, value, _ct_type(ref.type))
        elif node.op in (Op.UpdateState, Op.Print, Op.Raise):
            env[node.out] = next(v for v in ins if isinstance(v.type, MonadType))
        elif node.op is Op.Depend:
            env[node.out] = ins[0]
        elif node.op is Op.If:
            env[node.out] = _pure_if(b, node, ins, current)
        elif node.op is Op.While:
            env[node.out] = _pure_while(b, node, ins, current)
        elif node.op is Op.Call and any(isinstance(v.type, RefType) for v in node.inputs):
            raise UnsupportedSyntaxError("gradients through a tensor while loop that writes a "
                                         "Parameter or prints, around a call of a shared "
                                         "(lazy_inline) graph that reads one, are not "
                                         "supported", node.loc)
        else:
            env[node.out] = b.append(make_node(node.op, tuple(ins), node.attr, node.loc))
    out = read(g.output)
    if extend:
        parts = _result_parts(nodes, out)
        out = b.tuple(*parts, *(current[p] for p in g.params if p in current))
    return Graph(f"{g.name}_pure", tuple(params), tuple(nodes), out)


def _pure_if(b: Builder, node: Node, ins: list[Value], current: dict[Var, Value]) -> Value:
    """A nested ``If`` made pure: its regions also return their weights' final values,
    which become the weights' values after it."""
    regions = {k: _pure(node.attr[k], extend=True) for k in ("then", "orelse")}
    new = b.append(make_node(Op.If, tuple(ins), regions, node.loc))
    first = len(_tuple_type(node.out.type).elems)
    refs = [v for v in node.inputs[1:] if isinstance(v.type, RefType)]
    for i, ref in enumerate(refs):
        current[ref] = b.getitem(new, first + i)
    return new


def _pure_while(b: Builder, node: Node, ins: list[Value], current: dict[Var, Value]) -> Value:
    """A nested ``While`` made pure: its weights are carried values, their results the
    weights' values after it."""
    regions = {k: _pure(node.attr[k], extend=False) for k in ("cond", "body")}
    new = b.append(make_node(Op.While, tuple(ins), regions, node.loc))
    for i, v in enumerate(node.inputs):
        if isinstance(v.type, RefType):
            current[v] = b.getitem(new, i)
    return new


def _as_weight(b: Builder, value: Value, t: Type) -> Value:
    """``value`` as the weight of tensor type ``t`` stores it (a write converts and
    broadcasts its value)."""
    assert isinstance(t, TensorType)
    if isinstance(value, Const) and not isinstance(value.value, np.ndarray):
        value = Const(np.asarray(value.value, t.dtype.np))
    vt = tensor_of(value.type)
    assert vt is not None
    if vt.dtype != t.dtype:
        value = b.cast(value, dtype=t.dtype)
    if tensor_of(value.type).shape != t.shape:  # type: ignore[union-attr]
        value = b.broadcast_to(value, shape=t.shape)
    return value


def _vjp_of(body: Graph, writes: bool, shared: _Shared) -> Graph:
    """``(s..., ct...) -> ct of s``: ``body`` (its first ``n`` parameters carried, its
    result their next values) recomputed and differentiated in one graph."""
    region = _Region(body, writes, shared)
    graph = Graph(f"{body.name}_vjp", body.params + tuple(c for c in region.cts if c),
                  tuple(region.nodes) + tuple(region.back_nodes), region.grads)
    return Copier().graph(graph)  # fresh values: the forward body is used elsewhere


def _counting_down(carried: tuple[Value, ...]) -> Graph:
    params = tuple(Var(v.type, getattr(v, 'hint', '')) for v in carried)
    b = Builder()
    test = b.greater_equal(params[0], 0)
    return Graph("grad_cond", params, tuple(b.nodes), test)


def _step_back(carried: tuple[Value, ...], body: Graph, step: Graph, m: int) -> Graph:
    """One backward iteration over ``(j, m cotangents, the initial values)``: the values
    of iteration j (``body`` applied j times to the initial ones, by an inner ``While``),
    then ``step`` on them."""
    params = tuple(Var(v.type, getattr(v, 'hint', '')) for v in carried)
    j, cts, init = params[0], params[1:1 + m], params[1 + m:]
    n = len(init)
    nodes: list[Node] = []
    b = Builder(None, nodes)
    inner = (Const(np.int64(0)), j, *init)
    inner_params = tuple(Var(v.type, getattr(v, 'hint', '')) for v in inner)
    ib = Builder()
    test = ib.less(inner_params[0], inner_params[1])
    cond = Graph("recompute_cond", inner_params, tuple(ib.nodes), test)
    bb_nodes: list[Node] = []
    bb = Builder(None, bb_nodes)
    after = Copier(bb_nodes).run(body, inner_params[2:])
    body_out = bb.tuple(bb.add(inner_params[0], 1), inner_params[1],
                        *(bb.getitem(after, k) for k in range(n)))
    recompute = Graph("recompute_body", inner_params, tuple(bb_nodes), body_out)
    values = b.append(make_node(Op.While, inner, {"cond": cond, "body": recompute}))
    state = [b.getitem(values, 2 + k) for k in range(n)]
    before = Copier(nodes).run(step, [*state, *cts])
    out = b.tuple(b.sub(j, 1), *(b.getitem(before, k) for k in range(m)), *init)
    return Graph("grad_body", params, tuple(nodes), out)


def _ct_type(t: Type) -> Type:
    """The type of a cotangent of a ``t`` value (a weight's is a tensor)."""
    return t.tensor if isinstance(t, RefType) else t


def _plus(b: Builder, t: Type, x: Cotangent, y: Cotangent) -> Cotangent:
    if x is None:
        return y
    if y is None:
        return x
    if isinstance(t, TupleType):
        return [_plus(b, e, p, q) for e, p, q in zip(t.elems, _split(b, x, t), _split(b, y, t))]
    return b.add(x, y)


def _split(b: Builder, c: Cotangent, t: TupleType) -> list[Cotangent]:
    """A tuple cotangent as a list of its elements' cotangents."""
    if isinstance(c, list):
        return c
    return [b.getitem(c, i) for i in range(len(t.elems))]


def _value(b: Builder, t: Type, c: Cotangent) -> Value:
    """A cotangent of type ``t`` as one value: zeros for None, a tuple for a list."""
    if isinstance(t, TupleType):
        if c is None or isinstance(c, list):
            parts = c or [None] * len(t.elems)
            return b.tuple(*(_value(b, e, p) for e, p in zip(t.elems, parts)))
        return c
    return _zeros(b, t) if c is None else c


def _zeros(b: Builder, t: Type) -> Value:
    return _filled(b, t, Op.Zeros)


def _seed(b: Builder, t: Type) -> Cotangent:
    """The default cotangent of a result: ones of each tensor's type; none for the
    numbers and the state it also returns (as MindSpore, which differentiates the
    tensors alone)."""
    if isinstance(t, TupleType):
        return [_seed(b, e) for e in t.elems]
    tt = tensor_of(t)
    if not isinstance(tt, TensorType):
        return None
    return b.emit(Op.Ones, shape=tt.shape, dtype=tt.dtype)


def _filled(b: Builder, t: Type, op: Any) -> Value:
    """``op`` (Zeros or Ones) of type ``t``; a tuple element by element."""
    if isinstance(t, TupleType):
        return b.tuple(*(_filled(b, e, op) for e in t.elems))
    if isinstance(t, MonadType):  # a state inside a residual (a nested If's result): the
        return Const(U)           # branch that did not run gives any state in its place
    tt = tensor_of(t)
    if not isinstance(tt, TensorType):
        raise UnsupportedSyntaxError(f"a differentiated function must compute tensors, not {t}")
    return b.emit(op, shape=tt.shape, dtype=tt.dtype)

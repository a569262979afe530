"""Automatic batching of a graph: ``vmap_graph``.

The graph computes one example; the batched graph computes a batch of them at once.
Each value carries a batch dim (``BDim``): None where it is the same for every
example, the axis that indexes the examples where it is batched, a tuple of those for
a tuple value. Nodes whose operands are all unbatched are copied; any other primitive
goes through its ``batch`` rule in the table, which rewrites it as whole-batch ops
(``msc.ir.primitives.rules``). Nothing is unrolled: the batched graph has the same
size for 10 examples as for 10 000.

Control flow:

- an ``If`` on an unbatched condition stays an ``If`` whose regions are batched (their
  results are given one batch dim where the branches disagree);
- an ``If`` on a batched condition runs both branches for every example and selects
  each example's result (as JAX batches ``cond``). The branches run under a mask, the
  examples that take them: a ``raise`` in a branch raises when any of those examples
  reaches it, and a Parameter write or a print under such a condition is an error;
- a ``While`` whose condition stays unbatched stays a ``While``; a batched condition
  loops while any example continues, and each iteration keeps the values of the
  examples that have stopped (``select`` on the examples still running).

A Parameter the graph reads from outside (a Cell's weight) is shared: reading it gives
the same value to every example, and writing a batched value into it is an error, as in
MindSpore. A Parameter passed to ``vmap`` with a batch axis (``in_axes`` 0 for a stacked
weight, as MindSpore's tests of the ``Apply*`` optimizer primitives do) is batched by
reference: each example reads and writes its own slice, so a write stores the whole
batch of values at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from msc.errors import GraphValueError, InternalCompilerError, MscError, UnsupportedSyntaxError
from msc.ir.builder import Builder, make_node
from msc.ir.dtypes import int32
from msc.ir.nodes import Const, Graph, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.exempt import NO_BATCH
from msc.ir.rewrite import result_and_state, tuple_parts, walk
from msc.ir.transform import close_regions, inline_calls
from msc.ir.types import MonadType, RefType, TensorType, TupleType, Type, tensor_of

#: A batch dim: None (unbatched), an axis, or a tuple of batch dims for a tuple value.
BDim = Any


class VmapError(MscError, RuntimeError):
    """A ``vmap`` that cannot be applied as written: axes out of range, batch sizes
    that disagree (MindSpore raises RuntimeError for these too)."""


def vmap_graph(graph: Graph, in_dims: Sequence[int | None], size: int,
               out_axes: Any) -> Graph:
    """``graph`` (one example; it takes the state after its tensor inputs) batched:
    its tensor inputs batched along ``in_dims`` (None: shared by every example), its
    weights and state shared. The result is ``(value, state)``: the value with each
    tensor's batch axis at ``out_axes`` (an axis or None for all of them, or a
    structure matching the value's), and the state after the graph's effects."""
    g = close_regions(inline_calls(graph))  # batching needs the callees' nodes in view
    value, state = result_and_state(g)
    params, env = [], {}
    for i, p in enumerate(g.params):  # the arguments first, then the state and weights
        d = in_dims[i] if i < len(in_dims) else None
        new = Var(batched_type(p.type, d, size), p.hint)
        params.append(new)
        env[p] = (new, d)
    batcher = _Batcher(size, [])
    batcher.env.update(env)
    batcher.run(g.nodes)
    b = Builder(None, batcher.nodes)
    out, od = batcher.read(value)
    result = b.tuple(_to_out_axes(b, out, od, out_axes, size), batcher.read(state)[0])
    return Graph(f"{graph.name}_vmap", tuple(params), tuple(batcher.nodes), result)


def batched_type(t: Type, dim: BDim, size: int) -> Type:
    """``t`` with an axis of ``size`` examples inserted at ``dim``."""
    if dim is None:
        return t
    if isinstance(t, TupleType):
        return TupleType(tuple(batched_type(e, d, size) for e, d in zip(t.elems, dim)))
    if isinstance(t, RefType):  # a batched Parameter: the stacked weight
        inner = batched_type(t.tensor, dim, size)
        assert isinstance(inner, TensorType)
        return RefType(inner)
    tt = tensor_of(t)
    if not isinstance(tt, TensorType):
        raise InternalCompilerError(f"a batched value of type {t}")
    return TensorType(tt.dtype, tt.shape[:dim] + (size,) + tt.shape[dim:])


def is_batched(dim: BDim) -> bool:
    return isinstance(dim, int) or (isinstance(dim, tuple) and any(map(is_batched, dim)))


# --- the transform ----------------------------------------------------------------------------


@dataclass
class _Region:
    """A region batched for given parameter dims; ``graph`` gives its result the batch
    dims the ``If``/``While`` around it agrees on."""

    name: str
    params: tuple[Var, ...]
    nodes: list[Node]
    output: Value
    dims: BDim
    size: int

    def graph(self, target: BDim) -> Graph:
        nodes = list(self.nodes)
        out = _move(Builder(None, nodes), self.output, self.dims, target, self.size)
        return Graph(self.name, self.params, tuple(nodes), out)


class _Batcher:
    """Batches nodes in order into ``nodes``: ``env`` maps each original value to its
    batched value and batch dim. ``mask``, where set, is the bool (N,) tensor of the
    examples that run these nodes (inside a branch or loop of a batched condition)."""

    def __init__(self, size: int, nodes: list[Node], mask: Value | None = None):
        self.size, self.nodes, self.mask = size, nodes, mask
        self.env: dict[Var, tuple[Value, BDim]] = {}

    def b(self, node: Node | None = None) -> Builder:
        return Builder(node.loc if node is not None else None, self.nodes)

    def read(self, v: Value) -> tuple[Value, BDim]:
        return self.env.get(v, (v, None)) if isinstance(v, Var) else (v, None)

    def run(self, nodes: Sequence[Node]) -> None:
        for node in nodes:
            self.env[node.out] = self.node(node)

    def node(self, node: Node) -> tuple[Value, BDim]:
        args = [self.read(v)[0] for v in node.inputs]
        dims = [self.read(v)[1] for v in node.inputs]
        op, b = node.op, self.b(node)
        if op is Op.If:
            return self.if_(node, args, dims)
        if op is Op.While:
            return self.while_(node, args, dims)
        if op.writes or op in (Op.Print, Op.Raise):
            return self.effect(node, args, dims)
        if op is Op.UpdateState or not any(map(is_batched, dims)):
            return self.copy(node, args), None
        if op is Op.Load:  # a batched Parameter's slices, one per example
            return self.copy(node, args), dims[0]
        if op is Op.MakeTuple:
            return b.tuple(*args), tuple(dims)
        if op is Op.TupleGetItem:
            return b.getitem(args[0], node.attr["index"]), dims[0][node.attr["index"]]
        if op is Op.Depend:
            return b.emit(Op.Depend, *args), dims[0]
        if op.batch is None:
            reason = NO_BATCH.get(op.name, "it has no batching rule")
            raise UnsupportedSyntaxError(f"vmap cannot batch '{op.name}': {reason}", node.loc)
        try:
            return op.batch(b, op, args, dims, **node.attr)  # type: ignore[no-any-return]
        except MscError as e:
            raise InternalCompilerError(f"the batching rule of '{op.name}' failed: {e}",
                                        node.loc) from e

    def copy(self, node: Node, args: Sequence[Value]) -> Var:
        return self.b(node).append(make_node(node.op, tuple(args), node.attr, node.loc))

    # --- effects ---------------------------------------------------------------------------

    def effect(self, node: Node, args: list[Value], dims: list[BDim]) -> tuple[Value, BDim]:
        if node.op is Op.Raise:
            return (self.copy(node, args) if self.mask is None else
                    self.masked_raise(node, args)), None
        if self.mask is not None:
            raise GraphValueError("vmap cannot write a Parameter or print under a condition "
                                  "that differs between the examples", node.loc)
        if node.op.writes and is_batched(dims[0]):
            return self.batched_write(node, args, dims)
        if node.op.writes and any(map(is_batched, dims[1:])):
            raise GraphValueError("vmap cannot write a batched value into a Parameter: "
                                  "Parameters are shared by every example", node.loc)
        return self.copy(node, args), None

    def batched_write(self, node: Node, args: list[Value],
                      dims: list[BDim]) -> tuple[Value, BDim]:
        """A write into a batched Parameter: each example's value into its own slice,
        the batch axes lined up (a value shared by every example broadcasts)."""
        ref, value, state = args
        axis, vdim = dims[0], dims[1]
        if is_batched(vdim) or (axis != 0 and tensor_of(value.type) is not None):
            b = self.b(node)
            value = _move(b, value, vdim, 0, self.size)
            shape = tensor_of(value.type).shape
            rank = tensor_of(ref.type).ndim
            if len(shape) < rank:  # the example's value broadcasts against its slice
                value = b.reshape(value, shape=shape[:1] + (1,) * (rank - len(shape))
                                  + shape[1:])
            value = _move(b, value, 0, axis, self.size)
        return self.copy(node, [ref, value, state]), axis

    def masked_raise(self, node: Node, args: list[Value]) -> Var:
        """The raise, when any example that runs it reaches it."""
        then = _region_of("raise", lambda b, u: (b.append(
            make_node(node.op, (u,), node.attr, node.loc)),))
        orelse = _region_of("no_raise", lambda b, u: (u,))
        b = self.b(node)
        fired = b.append(make_node(Op.If, (self.any(self.mask), args[-1]),
                                   {"then": then, "orelse": orelse}, node.loc))
        return b.getitem(fired, 0)

    def any(self, rows: Value) -> Var:
        """A one-element bool tensor: whether any of the (N,) bool ``rows`` holds."""
        b = self.b()
        return b.greater(b.reduce_max(b.cast(rows, dtype=int32), axis=(), keep_dims=False), 0)

    def rows(self, cond: Value, dim: BDim) -> Var:
        """A one-element condition as a bool (N,) tensor, one entry per example."""
        b = self.b()
        if dim is None:
            return b.broadcast_to(b.reshape(cond, shape=(1,)), shape=(self.size,))
        return b.reshape(_move(b, cond, dim, 0, self.size), shape=(self.size,))

    def masked(self, rows: Var) -> Var:
        return rows if self.mask is None else self.b().logical_and(self.mask, rows)

    # --- regions ---------------------------------------------------------------------------

    def region(self, g: Graph, dims: Sequence[BDim], mask: Value | None = None) -> _Region:
        """``g``'s nodes batched for parameters of ``dims`` into a region of their own."""
        params = tuple(Var(batched_type(p.type, d, self.size), p.hint)
                       for p, d in zip(g.params, dims))
        sub = _Batcher(self.size, [], mask)
        sub.env.update((p, (new, d)) for p, new, d in zip(g.params, params, dims))
        sub.run(g.nodes)
        out, od = sub.read(g.output)
        return _Region(g.name, params, sub.nodes, out, od, self.size)

    def inline(self, g: Graph, args: Sequence[Value], dims: Sequence[BDim],
               mask: Value) -> tuple[Value, BDim]:
        """``g``'s nodes batched into this node list under ``mask``; its result."""
        sub = _Batcher(self.size, self.nodes, mask)
        sub.env.update((p, (a, d)) for p, a, d in zip(g.params, args, dims))
        sub.run(g.nodes)
        return sub.read(g.output)

    def if_(self, node: Node, args: list[Value], dims: list[BDim]) -> tuple[Value, BDim]:
        then, orelse = node.attr["then"], node.attr["orelse"]
        if dims[0] is not None or (self.mask is not None and _has_effects(then, orelse)):
            return self.select_if(node, args, dims)
        if not any(map(is_batched, dims)):
            return self.copy(node, args), None
        t, e = self.region(then, dims[1:]), self.region(orelse, dims[1:])
        target = _join(t.dims, e.dims)
        regions = {"then": t.graph(target), "orelse": e.graph(target)}
        return self.b(node).append(make_node(Op.If, tuple(args), regions, node.loc)), target

    def select_if(self, node: Node, args: list[Value], dims: list[BDim]) -> tuple[Value, BDim]:
        """Both branches, each under the mask of the examples that take it; the else
        branch's effects come after the then branch's."""
        b = self.b(node)
        row = self.rows(args[0], dims[0])
        then, orelse = node.attr["then"], node.attr["orelse"]
        t_out, t_dims = self.inline(then, args[1:], dims[1:], self.masked(row))
        t_parts = [b.getitem(t_out, i) for i in range(len(_elems(t_out)))]
        state = next((p for p in t_parts if isinstance(p.type, MonadType)), None)
        e_args = [state if state is not None and isinstance(a.type, MonadType) else a
                  for a in args[1:]]
        e_out, e_dims = self.inline(orelse, e_args, dims[1:], self.masked(b.logical_not(row)))
        results, out_dims = [], []
        for i, t_part in enumerate(t_parts):
            e_part = b.getitem(e_out, i)
            if isinstance(t_part.type, MonadType):
                results.append(e_part)
                out_dims.append(None)
            else:
                results.append(self.select(row, t_part, _at(t_dims, i), e_part, _at(e_dims, i)))
                out_dims.append(_batched_like(t_part.type))
        return b.tuple(*results), tuple(out_dims)

    def select(self, row: Var, x: Value, xd: BDim, y: Value, yd: BDim) -> Value:
        """Each example's ``x`` where its ``row`` entry holds, else its ``y``; of two state
        tokens (a branch's value holding one), the else branch's, which follows the then
        branch's effects (``select_if``)."""
        b = self.b()
        if isinstance(x.type, MonadType):
            return y
        if isinstance(x.type, TupleType):
            return b.tuple(*(self.select(row, b.getitem(x, i), _at(xd, i), b.getitem(y, i),
                                         _at(yd, i)) for i in range(len(x.type.elems))))
        x, y = _move(b, x, xd, 0, self.size), _move(b, y, yd, 0, self.size)
        shape = tensor_of(x.type).shape
        cond = b.broadcast_to(b.reshape(row, shape=(self.size,) + (1,) * (len(shape) - 1)),
                              shape=shape)
        return b.select(cond, x, y)

    def while_(self, node: Node, args: list[Value], dims: list[BDim]) -> tuple[Value, BDim]:
        cond, body = node.attr["cond"], node.attr["body"]
        masked_effects = self.mask is not None and _has_effects(cond, body)
        if not any(map(is_batched, dims)) and not masked_effects:
            return self.copy(node, args), None
        loop_dims = [_join(d, d) for d in dims]  # batched values along axis 0
        while True:  # until the body keeps each carried value's batch dim
            r = self.region(body, loop_dims)
            new = [_join(d, _at(r.dims, i)) for i, d in enumerate(loop_dims)]
            if new == loop_dims:
                break
            loop_dims = new
        c = self.region(cond, loop_dims)
        if c.dims is not None or masked_effects:
            return self.masked_while(node, args, dims)
        b = self.b(node)
        init = [_move(b, a, d, t, self.size) for a, d, t in zip(args, dims, loop_dims)]
        regions = {"cond": c.graph(None), "body": r.graph(tuple(loop_dims))}
        return b.append(make_node(Op.While, tuple(init), regions, node.loc)), tuple(loop_dims)

    def masked_while(self, node: Node, args: list[Value],
                     dims: list[BDim]) -> tuple[Value, BDim]:
        """Loop while any example continues; an iteration changes only the values of the
        examples still running (and of those the enclosing mask lets run)."""
        cond, body = node.attr["cond"], node.attr["body"]
        if any(n.op.writes or n.op is Op.Print for n in (*walk(cond), *walk(body))):
            raise GraphValueError("vmap cannot write a Parameter or print in a loop whose "
                                  "condition differs between the examples", node.loc)
        parts = tuple_parts(body.nodes, body.output) or ()
        fixed = [i < len(parts) and parts[i] is p for i, p in enumerate(body.params)]
        loop_dims = [d if fixed[i] and not is_batched(d) else _batched_like(a.type)
                     for i, (a, d) in enumerate(zip(args, dims))]
        b = self.b(node)
        init = [_move(b, a, d, t, self.size) for a, d, t in zip(args, dims, loop_dims)]
        carried = init + ([self.mask] if self.mask is not None else [])
        carried_dims = loop_dims + ([0] if self.mask is not None else [])

        def loop_region() -> tuple[_Batcher, tuple[Var, ...], Var]:
            """A region over the carried values that first computes which examples run."""
            params = tuple(Var(v.type, getattr(v, "hint", "")) for v in carried)
            sub = _Batcher(self.size, [], params[-1] if self.mask is not None else None)
            sub.env.update((p, (new, d)) for p, new, d in zip(cond.params, params, carried_dims))
            sub.run(cond.nodes)
            running = sub.masked(sub.rows(*sub.read(cond.output)))
            return sub, params, running

        sub, c_params, running = loop_region()
        anyone = sub.any(running)
        test = Graph(f"{cond.name}_any", c_params, tuple(sub.nodes), anyone)
        sub, b_params, running = loop_region()
        sub.env.update((p, (new, d)) for p, new, d in zip(body.params, b_params, carried_dims))
        sub.mask = running
        sub.run(body.nodes)
        out, out_dims = sub.read(body.output)
        bb = sub.b()
        nxt = []
        for i, p in enumerate(b_params[:len(init)]):
            v, vd = bb.getitem(out, i), _at(out_dims, i)
            if fixed[i] and loop_dims[i] is None or isinstance(p.type, MonadType):
                nxt.append(v)
            else:
                nxt.append(sub.select(running, v, vd, p, loop_dims[i]))
        nxt += list(b_params[len(init):])
        result = bb.tuple(*nxt)
        step = Graph(f"{body.name}_masked", b_params, tuple(sub.nodes), result)
        loop = b.append(make_node(Op.While, tuple(carried), {"cond": test, "body": step},
                                  node.loc))
        if self.mask is None:
            return loop, tuple(loop_dims)
        return b.tuple(*(b.getitem(loop, i) for i in range(len(init)))), tuple(loop_dims)


def _region_of(name: str, body: Any) -> Graph:
    """A region of the state alone: ``body(builder, state)`` gives its results."""
    state, nodes = Var(MonadType(), "u"), []
    b = Builder(None, nodes)
    out = b.tuple(*body(b, state))
    return Graph(name, (state,), tuple(nodes), out)


# --- batch dims ----------------------------------------------------------------------------


def _has_effects(*graphs: Graph) -> bool:
    return any(n.op.writes or n.op in (Op.Print, Op.Raise) for g in graphs for n in walk(g))


def _elems(v: Value) -> tuple[Type, ...]:
    if not isinstance(v.type, TupleType):
        raise InternalCompilerError(f"a region result of type {v.type}")
    return v.type.elems


def _at(dim: BDim, i: int) -> BDim:
    return None if dim is None else dim[i]


def _batched_like(t: Type) -> BDim:
    """Batched along axis 0 throughout (a state token is never batched)."""
    if isinstance(t, TupleType):
        return tuple(_batched_like(e) for e in t.elems)
    return None if isinstance(t, MonadType) else 0


def _join(a: BDim, b: BDim) -> BDim:
    """The batch dim two values that meet (branch results, loop values) agree on:
    unbatched if both are, else axis 0."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        n = len(a if isinstance(a, tuple) else b)
        return tuple(_join(_at(a, i), _at(b, i)) for i in range(n))
    return None if a is None and b is None else 0


def _move(b: Builder, v: Value, dim: BDim, to: BDim, size: int) -> Value:
    """``v`` (batch dim ``dim``) with batch dim ``to``: its batch axis moved, or an
    unbatched value broadcast to every example."""
    if dim == to:
        return v
    if isinstance(v.type, TupleType):
        n = len(v.type.elems)
        return b.tuple(*(_move(b, b.getitem(v, i), _at(dim, i), _at(to, i), size)
                         for i in range(n)))
    if to is None:
        raise InternalCompilerError("a batched value cannot be made unbatched")
    t = tensor_of(v.type)
    if t is None and isinstance(v, Const):
        import numpy as np  # a Python number: a 0-d tensor, a float one float32 (MindSpore's)
        v = Const(np.asarray(v.value, np.float32 if isinstance(v.value, float) else None))
        t = tensor_of(v.type)
    if not isinstance(t, TensorType) or isinstance(v.type, (RefType, MonadType)):
        raise InternalCompilerError(f"cannot batch a value of type {v.type}")
    if dim is None:
        v = b.broadcast_to(b.reshape(v, shape=(1,) + t.shape), shape=(size,) + t.shape)
        dim, t = 0, tensor_of(v.type)
    if dim == to:
        return v
    order = [a for a in range(t.ndim) if a != dim]
    order.insert(to, dim)
    return b.transpose(v, perm=tuple(order))


def _to_out_axes(b: Builder, v: Value, dim: BDim, axes: Any, size: int) -> Value:
    """The result with each tensor's batch axis at its ``out_axes`` entry (an unbatched
    tensor is broadcast; None keeps a tensor unbatched, and is an error for a batched
    one); numbers and None stay as they are where their axis is None."""
    if isinstance(v.type, TupleType):
        n = len(v.type.elems)
        if isinstance(axes, (tuple, list)):
            if len(axes) != n:
                raise VmapError(f"The size of vmap's 'out_axes' should be equal to the "
                                f"result size: {n}, but got size: {len(axes)}.")
        else:
            axes = (axes,) * n
        parts = tuple_parts(b.nodes, v)  # a number stays a constant the axis is given to
        return b.tuple(*(_to_out_axes(b, parts[i] if parts else b.getitem(v, i), _at(dim, i),
                                      axes[i], size) for i in range(n)))
    if isinstance(axes, (tuple, list)):
        raise VmapError(f"The size of vmap's 'out_axes' should be equal to the result size: "
                        f"1, but got size: {len(axes)}.")
    if axes is None:
        if is_batched(dim):
            raise VmapError("vmap's 'out_axes' is None for a result that differs between "
                            "the examples")
        return v
    t = tensor_of(v.type)
    if t is None and not (isinstance(v, Const) and isinstance(v.value, (bool, int, float))):
        return v  # None, strings: nothing to batch
    ndim = (0 if t is None else t.ndim) + (dim is None)
    if not -ndim <= axes < ndim:
        raise VmapError(f"The axis: {axes} in 'out_axes' is out of bounds for array of "
                        f"dimension [{-ndim},{ndim}).")
    return _move(b, v, dim, axes % ndim, size)

"""Slice sinking: compute only the elements a slice keeps.

A classifier that reads one position of a sequence (BERT's and ViT's heads read
``x[:, 0]``) has its last block compute every position, then keeps one. When a sliced
value's only user is the slice and its op computes each kept element from the matching
elements of its operands (elementwise ops, LayerNorm and softmax over the other axes,
the rows of a product, transposes, reshapes that keep the sliced axes), the slice moves
onto the operands, and on up while each value has no other user.

While a slice moves, an int entry is a range of one (every axis keeps its number); a
Reshape drops those axes at the end. A slice moves only where it keeps at most half of
the value: one that keeps most of it would copy every operand instead of one result.
``grad_graph`` runs this on the forward graph before differentiating it, so a training
step's backward works on the kept rows too.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from msc.errors import InternalCompilerError
from msc.ir.builder import make_node
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.base import norm_axes, norm_axis
from msc.ir.rewrite import map_graphs, map_regions, use_counts, with_body
from msc.ir.types import tensor_of
from msc.optimizer.cse import cse_graph

Entry = tuple  # (start, stop, step) of one axis; stop None runs a negative step to the start
#: A rule: the kept index of each operand of ``node`` (None: the operand as it is) and the
#: attributes that change, or None where the slice cannot move past ``node``.
Rule = Callable[[Node, tuple[Entry, ...]], "tuple[list[Any], dict[str, Any]] | None"]


def sink_slices(module: Module) -> Module:
    """Every slice moved up to where its rows are first computed.

    Before::

        subgraph @f(%para1_x, %para2_b) {
          %0 = Exp(%para1_x) : <Tensor[Float32], (2, 5, 8)>
          %1 = Add(%0, %para2_b) : <Tensor[Float32], (2, 5, 8)>
          %2 = StridedSlice(%1) {index=((0, 2, 1), 0, (0, 8, 1))} : <Tensor[Float32], (2, 8)>
          Return(%2)
        }

    After::

        subgraph @f(%para1_x, %para2_b) {
          %0 = StridedSlice(%para1_x) {index=((0, 2, 1), (0, 1, 1), (0, 8, 1))} : <Tensor[Float32], (2, 1, 8)>
          %1 = Exp(%0) : <Tensor[Float32], (2, 1, 8)>
          %2 = Add(%1, %para2_b) : <Tensor[Float32], (2, 1, 8)>
          %3 = Reshape(%2) {shape=(2, 8)} : <Tensor[Float32], (2, 8)>
          Return(%3)
        }
    """
    return map_graphs(module, sink_slices_graph)


def sink_slices_graph(graph: Graph) -> Graph:
    """``graph`` (and its regions) with every slice moved as far up as it goes. Each
    sweep starts with CSE: equal slices of one value (those a residual add and the block
    beside it moved up) become one, so that value has a single user again. A graph
    without a slice is left as it is (no CSE: the pipeline's own ran just before)."""
    nodes = tuple(map_regions(n, sink_slices_graph) for n in graph.nodes)
    graph = with_body(graph, nodes, graph.output)
    while any(n.op is Op.StridedSlice for n in graph.nodes):
        graph = cse_graph(graph)
        moved = _sink_once(graph)
        if moved is None:
            break
        graph = with_body(graph, moved, graph.output)
    return graph


def _sink_once(graph: Graph) -> tuple[Node, ...] | None:
    """One sweep: each slice whose value it alone reads moves one op up; that op's node,
    now unused, goes."""
    counts = use_counts(graph)
    defs = {n.out: n for n in graph.nodes}
    nodes: list[Node] = []
    gone: set[Var] = set()
    for node in graph.nodes:
        source = defs.get(node.inputs[0]) if node.op is Op.StridedSlice else None
        new = _moved(source, node) if source is not None and \
            counts[source.out] == 1 else None
        nodes.extend([node] if new is None else new)
        if new is not None:
            gone.add(source.out)
    return tuple(n for n in nodes if n.out not in gone) if gone else None


def _moved(source: Node, cut: Node) -> list[Node] | None:
    """The nodes computing ``cut`` (a slice of ``source``'s result) from slices of
    ``source``'s operands, the last defining ``cut.out``; None where it cannot move."""
    t = tensor_of(source.out.type)
    index = cut.attr["index"]
    rule = RULES.get(source.op) or (_elementwise if source.op.elementwise else None)
    if t is None or rule is None or None in index or len(index) != t.ndim:
        return None
    kept = tuple((e, e + 1, 1) if isinstance(e, int) else e for e in index)
    if 2 * math.prod(_length(e) for e in kept) > math.prod(t.shape):
        return None
    found = rule(source, kept)
    if found is None:
        return None
    entries, changes = found
    nodes: list[Node] = []
    inputs = tuple(v if e is None else _slice(v, tuple(e), nodes) for v, e in
                   zip(source.inputs, entries))
    last = make_node(source.op, inputs, {**source.attr, **changes}, source.loc)
    if last.out.type != cut.out.type:
        nodes.append(last)
        last = make_node(Op.Reshape, (last.out,), {"shape": tensor_of(cut.out.type).shape},
                         cut.loc)
    if last.out.type != cut.out.type:
        raise InternalCompilerError(f"slice sinking past {source.op.name} gave "
                                    f"{last.out.type}, not {cut.out.type}")
    return nodes + [Node(last.op, last.inputs, last.attrs, cut.out, last.loc)]


def _length(e: Entry) -> int:
    start, stop, step = e
    return len(range(start, -1 if stop is None else stop, step))


def _slice(v: Value, index: tuple[Entry, ...], nodes: list[Node]) -> Value:
    """``v[index]``: ``v`` itself where the index keeps everything, a constant sliced now."""
    shape = tensor_of(v.type).shape
    if all(e == _whole(dim) for e, dim in zip(index, shape)):
        return v
    if isinstance(v, Const):
        return Const(np.ascontiguousarray(np.asarray(v.value)[tuple(slice(*e) for e in index)]))
    node = make_node(Op.StridedSlice, (v,), {"index": index})
    nodes.append(node)
    return node.out


def _whole(dim: int) -> Entry:
    return (0, dim, 1)


def _aligned(shape: tuple[int, ...], kept: tuple[Entry, ...], mine: tuple[int, ...]) -> list:
    """The index of an operand of shape ``mine`` broadcast to ``shape``: its axes align
    with the last ones; an axis it broadcasts (length 1) stays whole."""
    lead = len(shape) - len(mine)
    return [kept[lead + i] if dim == shape[lead + i] else _whole(dim)
            for i, dim in enumerate(mine)]


def _elementwise(node: Node, kept: tuple[Entry, ...]) -> tuple[list, dict] | None:
    shape = tensor_of(node.out.type).shape
    types = [tensor_of(v.type) for v in node.inputs]
    return [None if t is None or t.ndim == 0 else _aligned(shape, kept, t.shape)
            for t in types], {}


def _whole_from(kept: tuple[Entry, ...], shape: tuple[int, ...], axes: Any) -> bool:
    return all(kept[a] == _whole(shape[a]) for a in axes)


def _rows(node: Node, kept: tuple[Entry, ...], axes: tuple[int, ...]) -> tuple | None:
    """An op over ``axes`` of its first operand (the others as they are): the slice
    moves where it keeps those axes whole (the operand's own length on them)."""
    shape = tensor_of(node.out.type).shape
    if not _whole_from(kept, shape, axes):
        return None
    first = tensor_of(node.inputs[0].type).shape
    entries = [_whole(first[a]) if a in axes else e for a, e in enumerate(kept)]
    return [entries] + [None] * (len(node.inputs) - 1), {}


def _layer_norm(node: Node, kept: tuple[Entry, ...]) -> tuple | None:
    ndim, a = len(kept), node.attr
    first = min(norm_axis(a["begin_norm_axis"], ndim), norm_axis(a["begin_params_axis"], ndim))
    return _rows(node, kept, tuple(range(first, ndim)))


def _softmax(node: Node, kept: tuple[Entry, ...]) -> tuple | None:
    return _rows(node, kept, norm_axes(node.attr["axis"], len(kept)))


def _dense(node: Node, kept: tuple[Entry, ...]) -> tuple | None:
    return _rows(node, kept, (len(kept) - 1,))


def _matmul(node: Node, kept: tuple[Entry, ...]) -> tuple | None:
    """The rows (and stack entries) of a product: the left operand's rows, both
    operands' stack axes as broadcasting aligns them; the columns stay whole."""
    shape = tensor_of(node.out.type).shape
    if kept[-1] != _whole(shape[-1]):
        return None
    stacks = shape[:-2]
    entries = []
    for v, transposed, row in zip(node.inputs, (node.attr["transpose_a"],
                                                node.attr["transpose_b"]), (True, False)):
        vs = tensor_of(v.type).shape
        mine = _aligned(stacks, kept[:-2], vs[:-2])
        matrix = [_whole(vs[-2]), _whole(vs[-1])]
        if row:
            matrix[1 if transposed else 0] = kept[-2]
        entries.append(mine + matrix)
    return entries, {}


def _transpose(node: Node, kept: tuple[Entry, ...]) -> tuple | None:
    perm = node.attr["perm"]
    entries: list[Entry] = [()] * len(kept)
    for j, axis in enumerate(perm):
        entries[axis] = kept[j]
    return [entries], {}


def _reshape(node: Node, kept: tuple[Entry, ...]) -> tuple | None:
    """A reshape that keeps its first axes as they are (heads split off or merged
    behind them): the slice moves where it cuts only those."""
    src, out = tensor_of(node.inputs[0].type).shape, tensor_of(node.out.type).shape
    same = 0
    while same < min(len(src), len(out)) and src[same] == out[same]:
        same += 1
    if not _whole_from(kept, out, range(same, len(out))):
        return None
    entries = list(kept[:same]) + [_whole(d) for d in src[same:]]
    shape = tuple(_length(e) for e in kept[:same]) + out[same:]
    return [entries], {"shape": shape}


RULES: dict[Any, Rule] = {Op.Dense: _dense, Op.MatMul: _matmul, Op.BatchMatMul: _matmul,
                          Op.LayerNorm: _layer_norm, Op.Softmax: _softmax,
                          Op.LogSoftmax: _softmax, Op.Transpose: _transpose,
                          Op.Reshape: _reshape}

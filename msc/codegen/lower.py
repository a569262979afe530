"""Lowering: an optimized IR module -> a render spec with every name and expression decided.

Each graph becomes one kernel function taking (inputs, weights, constants) as arrays;
the entry kernel takes its weights as arenas instead: per dtype one buffer and the
offsets of the weights in it (``common/arena.py``), and slices out the weights
it reads itself, so its argument count does not grow with the number of weights.
For the numba target, runs of elementwise nodes over one output shape are fused into
one explicit loop nest whose intermediates are scalars (``fusion.py``); everything else
is one array-level statement per node, written by the primitive's own emitter. A target
that holds float16 as bit patterns converts around them (``half.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from msc.codegen.fusion import FusedLoops, reads
from msc.codegen.half import HalfNodes, has_half, involves_half, viewed
from msc.codegen.lanes import LaneLoops, LaneOutput
from msc.codegen.names import Namespace
from msc.codegen.passes import MODULE_PASSES, Kernels
from msc.codegen.pyrender import literal, located, render_stmts
from msc.codegen.spec import KernelSpec, ModuleSpec
from msc.codegen.split import needs_split, split_entry
from msc.codegen.targets import Float16, Target, target_named
from msc.errors import InternalCompilerError
from msc.ir.kernel import (
    Assign,
    Branch,
    Break,
    Call,
    Expr,
    Fn,
    Invoke,
    Lit,
    Load,
    Name,
    Not,
    Raw,
    Slice,
    Stmt,
    Tuple,
    While,
    contiguous,
    reshape,
    zeros,
)
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.base import (
    Alias,
    ArrayExpr,
    Builtin,
    Effect,
    Elementwise,
    LoopNest,
    Primitive,
    Statements,
)
from msc.ir.rewrite import (
    all_graphs,
    callee,
    callees_first,
    recursion_target,
    regions,
    tuple_parts,
    walk,
)
from msc.ir.types import MonadType, RefType, TensorType, TupleType, tensor_of

#: Ops emitted in place without ending the pending elementwise group (nor do the
#: ``Alias`` ops, which emit nothing): they read no member of the group, and nothing the
#: group reads is written before the group's loop runs (writes end the group).
KEEPS_GROUP = frozenset({Op.TensorMove})

#: A result of the entry of at least this many bytes that a fused loop computes is written
#: into a buffer ``run`` passes in (the template's ``_buffer``): one kept from an earlier
#: call once nothing else holds it, so a call does not pay for fresh pages (page faults
#: cost more than the loop that fills a large array).
POOL_BYTES = 1 << 18


@dataclass
class Shared:
    """What the kernels of one module share: their names, and the tensor constants.

    Every kernel names a constant alike (``__k0``, ...): the entry kernel takes them all
    after its weights and passes each callee the ones it (or its callees) use."""

    kernels: dict[str, str] = field(default_factory=dict)  # graph name -> function name
    consts: dict[Const, str] = field(default_factory=dict)
    arrays: list[np.ndarray] = field(default_factory=list)
    needs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # graph -> const names
    recursive: frozenset[str] = frozenset()  # graphs a Recurse names or holds

    def const(self, c: Const) -> str:
        if c not in self.consts:
            self.consts[c] = f"__k{len(self.arrays)}"
            self.arrays.append(c.value)
        return self.consts[c]


class Device(Protocol):
    """What a device target (``Target.device``) decides in place of the host lowering:
    where each node runs, and how its driver passes values. A ``Lowerer`` built with one
    asks it first; ``cuda/lower.py``'s ``DeviceNodes`` is the cuda target's."""

    def node(self, node: Node) -> None:
        """Lower ``node``: a device kernel, a device-library call, or host code."""

    def flush(self, before: Node | None) -> None:
        """Emit the pending elementwise group (``Lowerer.group``)."""

    def lowering(self, op: Primitive) -> Elementwise:
        """The elementwise record of ``op`` the device kernels compute."""

    def arena_params(self) -> list[str]:
        """The entry's weight parameters."""

    def truth(self, name: str) -> Expr:
        """A tensor condition as a Python bool, on the host."""

    def copied(self, e: Expr, v: Value) -> Expr:
        """A loop-carried value's own copy."""

    def contiguous(self, graph: Graph, v: Value) -> Expr:
        """A region's result, laid out alike in every branch."""

    def aliases_param(self, v: Value) -> bool:
        """Whether a result may share memory with an argument (then ``run`` copies it)."""


class Lowerer(LaneLoops, FusedLoops, HalfNodes):
    """One graph to one kernel function; ``entry`` says whether it is the module's entry
    (whose results ``run`` unpacks) or a shared graph called from other kernels.
    ``device``: a device target's hooks (``Device``), made from the lowerer; None on a
    host target."""

    def __init__(self, graph: Graph, target: Target, shared: Shared, entry: bool = True,
                 device: Callable[[Lowerer], Device] | None = None):
        self.graph = graph
        self.target = target
        self.shared = shared
        self.entry = entry
        self.ns = Namespace()
        self.ns.used.update(shared.kernels.values())  # locals never shadow a kernel
        self.env: dict[Var, str] = {}
        self.body: list[Stmt] = []  # the kernel's statements (kernel IR), in order
        self.const_names: dict[Const, str] = {}  # the constants this kernel reads itself
        self.users = _users(graph)
        self.group: list[Node] = []
        self.aside: list[Node] = []  # elementwise nodes of another shape (fusion.join)
        self.defs = {n.out: n for n in graph.nodes}
        self.all_defs = {n.out: n for n in walk(graph)}  # regions' nodes too
        self.written: set[Var] = set()
        # values whose array this kernel made and nobody else shares (see fusion.flush),
        # and the values defined in the graph or region being lowered (-> their position)
        self.owned: set[Var] = set()
        self.here: dict[Var, int] = {n.out: k for k, n in enumerate(graph.nodes)}
        self.order: tuple[Node, ...] = graph.nodes
        # the entry's weights: (arena, index among the arena's weights) of each, the
        # names of each arena's buffer and offsets, and the weights sliced out so far
        self.slots: dict[Var, tuple[int, int]] = {}
        self.arenas: list[tuple[str, str]] = []
        self.views: dict[Var, str] = {}
        self.weight_of: dict[Var, Var] = {}  # a weight, or a Load of it -> the weight
        self.input_index = {p: i for i, p in enumerate(graph.inputs)}
        # lane loops (``lanes.py``): packed inputs (kernel name, input positions), the
        # inputs read otherwise, the lanes' results, and ``run``'s statements splitting them
        self.packs: list[tuple[str, tuple[int, ...]]] = []
        self.used_inputs: set[Var] = set()
        self.lane_outputs: dict[Var, LaneOutput] = {}
        self.run_lines: list[str] = []
        self.call_args = "*args"
        # the entry's large results computed into buffers ``run`` passes: name, shape, dtype
        self.pooled: list[tuple[str, tuple[int, ...], str]] = []
        self.output_leaves = _output_leaves(graph) if entry else set()
        self.device = device(self) if device is not None else None

    # --- operands -------------------------------------------------------------------

    def name_of(self, v: Value) -> str:
        if isinstance(v.type, MonadType):
            return "0"  # the state token has no run-time value: a placeholder
        if isinstance(v, Var):
            w = self.weight_of.get(v)
            if w is not None and w not in self.views:
                self.views[w] = self.env[w]
            if v in self.input_index:
                self.used_inputs.add(v)
            return self.env[v]
        if isinstance(v.value, np.ndarray):
            self.const_names[v] = self.shared.const(v)
            return self.const_names[v]
        if isinstance(v.value, tuple):  # a folded tuple: its arrays are constants too
            return "(" + "".join(f"{self.name_of(Const(e))}, " for e in v.value) + ")"
        return literal(v.value, None)

    def value_of(self, v: Value) -> Expr:
        """``v`` as a kernel-IR expression (what ``name_of`` names, as a tree)."""
        if isinstance(v, Const) and isinstance(v.value, tuple):
            return Tuple(tuple(self.value_of(Const(e)) for e in v.value))
        if isinstance(v, Const) and not isinstance(v.value, np.ndarray) or \
                isinstance(v.type, MonadType):
            return Lit(0 if isinstance(v.type, MonadType) else v.value)
        return Name(self.name_of(v))

    def operand_values(self, node: Node) -> list[Expr]:
        """``node``'s operands as lowerings take them."""
        return [self.value_of(v) for v in node.inputs]

    def assign(self, out: str, value: Expr, node: Node | None = None) -> None:
        """``out = value``, with ``node``'s user line."""
        self.body.append(Assign(Name(out), value, loc=node.loc if node is not None else None))

    # --- graph ----------------------------------------------------------------------

    def lower(self) -> tuple[KernelSpec, str]:
        """The kernel, and (for the entry) the ``run`` expression rebuilding its output."""
        params = []
        for p in self.graph.params:
            self.env[p] = self.ns.fresh(p.hint or "arg")
            if not (self.entry and isinstance(p.type, RefType)):
                params.append(self.env[p])
        if self.entry:
            params += self.arena_params()
        for node in self.graph.nodes:
            self.node(node)
        self.flush()
        leaves: list[str] = []
        if self.entry:
            output = self.output_expr(self.graph.output, leaves)
            returns = "(" + "".join(f"{x}, " for x in leaves) + ")"
            params += self.shared.consts.values()  # every constant, in WEIGHTS order
            params += [name for name, _, _ in self.pooled]
        else:
            output, returns = "", self.name_of(self.graph.output)
            params += self.needs()
        if self.packs:  # the inputs only lane loops read travel packed instead
            params = self.packed_params(params)
        self.call_args += "".join(f", _buffer({k})" for k in range(len(self.pooled)))
        body = tuple(self.weight_views() + self.body)
        if self.target.prologue is not None and body:
            body = (Raw(self.target.prologue, body),)
        lines = render_stmts(body)
        name = self.shared.kernels[self.graph.name]
        return KernelSpec(name, tuple(params), tuple(lines), returns, body=body), output

    def value_types(self) -> dict[str, Any]:
        """The IR type of each value the kernel names (a weight's: its tensor's)."""
        return {name: v.type.tensor if isinstance(v.type, RefType) else v.type
                for v, name in self.env.items()}

    def param_arrays(self) -> dict[str, tuple[str, int, bool]]:
        """The entry kernel's array parameters as Numba will type them: (numpy dtype name,
        ndim, read-only), all C-contiguous (``Compiled.call`` and ``run`` make them so);
        float16 ones (bits on this target) left out."""
        dtypes, _ = arena_layout(self.graph)
        arrays = {name: (d, 1, False) for (name, _), d in zip(self.arenas, dtypes)}
        arrays |= {offsets: ("int64", 1, False) for _, offsets in self.arenas}
        arrays |= {name: (c.value.dtype.name, c.value.ndim, True)
                   for c, name in self.shared.consts.items()}
        arrays |= {name: (dt, len(shape), False) for name, shape, dt in self.pooled}
        for p in self.graph.inputs:
            t = tensor_of(p.type)
            if t is not None:
                arrays[self.env[p]] = (t.dtype.np_name, t.ndim, False)
        return {k: v for k, v in arrays.items() if v[0] != "float16"}

    def arena_params(self) -> list[str]:
        """The entry's weight arguments: a buffer and its offsets per arena."""
        if self.device is not None:
            return self.device.arena_params()
        dtypes, slots = arena_layout(self.graph)
        for w, (k, j) in zip(self.graph.weights, slots):
            self.slots[w] = (k, j)
            self.weight_of[w] = w
        self.arenas = [(self.ns.fresh(f"arena_{d}"), self.ns.fresh(f"offsets_{d}"))
                       for d in dtypes]
        return [name for pair in self.arenas for name in pair]

    def packed_params(self, params: list[str]) -> list[str]:
        """The kernel's parameters with the packs after the inputs read one by one (the
        others are dropped), and ``run``'s matching call."""
        inputs = self.graph.inputs
        kept = [i for i, p in enumerate(inputs) if p in self.used_inputs]
        names = {self.env[p] for p in inputs}
        rest = [p for p in params if p not in names]
        self.call_args = "".join(f"args[{i}], " for i in kept) + "".join(
            f"np.concatenate({_picked(positions)}, axis=None), "  # each operand flattened
            for _, positions in self.packs) + f"*args[{len(inputs)}:]"
        return [self.env[inputs[i]] for i in kept] + [name for name, _ in self.packs] + rest

    def pooled_buffer(self, v: Var) -> str | None:
        """The kernel parameter holding the memory of ``v``, a result of the entry computed
        by a fused loop, when it is large enough to be worth ``run``'s buffer pool."""
        t = tensor_of(v.type)
        if not self.target.numba or v not in self.output_leaves or t is None or \
                t.size * t.dtype.np.itemsize < POOL_BYTES:
            return None
        name = self.ns.fresh("out")
        self.pooled.append((name, t.shape, "uint16" if self.is_half(t.dtype)
                            else t.dtype.np_name))
        return name

    def weight_views(self) -> list[Stmt]:
        """The statements slicing each weight the kernel reads out of its arena."""
        lines: list[Stmt] = []
        for w in self.graph.weights:
            if w in self.views:
                k, j = self.slots[w]
                buffer, offsets = self.arenas[k]
                t = w.type.tensor  # type: ignore[union-attr]
                start = Name(offsets)[j]
                view: Expr = Name(buffer)[Slice(start, start + t.size)]
                if t.shape != (t.size,):
                    view = reshape(view, t.shape)
                lines.append(Assign(Name(self.views[w]), view))
        return lines

    def needs(self) -> tuple[str, ...]:
        """The constants this kernel takes: its own and its callees', in table order."""
        names = set(self.const_names.values())
        for node in walk(self.graph):
            if (g := callee(node)) is not None:
                names.update(self.shared.needs[g.name])
            elif (target := recursion_target(node)) is not None:  # (see settle_needs)
                names.update(self.shared.needs.get(target, ()))
        order = list(self.shared.consts.values())
        self.shared.needs[self.graph.name] = tuple(sorted(names, key=order.index))
        return self.shared.needs[self.graph.name]

    def node(self, node: Node) -> None:
        if self.device is not None:
            self.device.node(node)
            return
        lowering = node.op.lowering_for(self.target.lowering)
        if self.target.fuses and isinstance(lowering, Elementwise) and \
                isinstance(node.out.type, TensorType):
            self.join(node)
            return
        if reads(node, self.aside):
            self.flush_aside()
        aliases = isinstance(lowering, Alias)  # Load, Depend, UpdateState
        if reads(node, self.group) or not (aliases or node.op in KEEPS_GROUP or
                                           self.hoists(node, lowering)):
            self.flush(node)
        if isinstance(lowering, Alias):  # no code: the node's value is one of its inputs
            source = node.inputs[lowering.input]
            if source in self.weight_of:  # sliced out of its arena only where it is read
                self.weight_of[node.out] = self.weight_of[source]  # type: ignore[index]
                self.env[node.out] = self.env[source]  # type: ignore[index]
            else:
                self.env[node.out] = self.name_of(source)
            return
        if node.op is Op.If:
            self.branch(node)
            return
        if node.op is Op.While:
            self.loop(node)
            return
        if node.op is Op.MakeTuple and self.entry and self.users.get(node.out) == [None]:
            return  # only the output uses it: ``run`` rebuilds the structure itself
        out = self.ns.fresh("v")
        self.env[node.out] = out
        # tuples and calls pass float16's bits on, and views only re-index memory
        widen = self.half and not isinstance(lowering, Builtin) and \
            not (node.op.view and not node.op.writes) and involves_half(node)
        if isinstance(lowering, Statements):  # writes and prints
            if node.op.writes and node.inputs[1] in self.written:  # see fusion.flush
                self.env[node.out] = self.name_of(node.inputs[0])
                return
            args = self.operand_values(node)
            if widen:
                self.half_node(node, out)
                return
            self.emitted(node, lowering.emit(args, node, out))
            return
        if widen:
            self.half_node(node, out)
            return
        loops, args = None, []
        if isinstance(lowering, LoopNest):
            args = self.operand_values(node)
            loops = lowering.emit(args, node, out, self.ns.fresh)
        if loops:
            self.emitted(node, self.without_copy(node, Name(out), args[0], loops)
                         if args else loops)
        else:
            self.assign(out, self.array_expr(node), node)
        if getattr(lowering, "fresh", False):
            self.owned.add(node.out)

    def without_copy(self, node: Node, out: Name, operand: Expr,
                     loops: list[Any]) -> list[Any]:
        """A loop nest that starts by copying its first operand (a scatter's input) works
        in that operand's array instead where the kernel made it, nobody else shares it
        and this node is its only reader, and starts from new zeros where the operand is a
        constant of zeros: a gradient's scatter into zeros (an embedding table's, 25 MB in
        the BERT step) no longer fills a constant's array and copies it."""
        first, v = loops[0], node.inputs[0]
        if not (isinstance(first, Assign) and first.target == out and
                first.value == Call(Fn.METHOD_COPY, (operand,))):
            return loops
        if isinstance(v, Var) and self.free_array(v, {node.out}):
            return [Assign(out, operand, loc=first.loc), *loops[1:]]
        t = tensor_of(v.type)
        if isinstance(v, Const) and isinstance(v.value, np.ndarray) and t is not None and \
                v.value.size and not v.value.any() and not np.signbit(v.value).any():
            return [Assign(out, zeros(t.shape, self.storage(t.dtype)), loc=first.loc),
                    *loops[1:]]
        return loops

    def emitted(self, node: Node, emitted: Any) -> None:
        """An emitter's statements (or lines) for ``node``: the first carries the user's
        line, and so do the numpy calls an outlined driver makes instead of their loops."""
        self.body += located(emitted, node.loc)

    def hoists(self, node: Node, lowering: Any) -> bool:
        """Whether ``node`` (reading no member of the pending group) may run before the
        group's loop instead of ending it: a pure array computation, which nothing the
        group computes can observe. BatchNorm's reshaped weights and the convolution of a
        residual branch then no longer split the elementwise chains around them."""
        return bool(self.group) and node.op.effect is Effect.NONE and \
            isinstance(lowering, (ArrayExpr, LoopNest)) and node.op is not Op.Call

    def branch(self, node: Node) -> None:
        """A Python ``if``/``else`` with each region's code inside (both targets)."""
        out = self.env[node.out] = self.ns.fresh("v")
        args = [self.name_of(v) for v in node.inputs[1:]]  # operands closure conversion made
        cond = self.truth(self.name_of(node.inputs[0]))
        then = self.region(node.attr["then"], out, args)
        self.body.append(Branch(cond, then, self.region(node.attr["orelse"], out, args),
                                loc=node.loc))

    def loop(self, node: Node) -> None:
        """``while True:`` evaluating the condition region, then the body region; the
        carried values are copied, so Numba types them alike on every iteration."""
        carried = [self.ns.fresh(p.hint or "c") for p in node.attr["body"].params]
        for name, v in zip(carried, node.inputs):
            self.body.append(Assign(Name(name), self.copied(self.value_of(v), v), loc=node.loc))
        test = self.ns.fresh("go")
        body = self.region(node.attr["cond"], test, carried) + \
            (Branch(Not(self.truth(test)), (Break(),)),)
        nxt = self.ns.fresh("nxt")
        body += self.region(node.attr["body"], nxt, carried)
        body += tuple(Assign(Name(name), self.copied(Name(nxt)[i], v))
                      for i, (name, v) in enumerate(zip(carried, node.inputs)))
        self.body.append(While(Lit(True), body))
        out = self.env[node.out] = self.ns.fresh("v")
        self.body.append(Assign(Name(out), Tuple(tuple(Name(c) for c in carried))))

    def truth(self, name: str) -> Expr:
        """A tensor condition as a Python bool."""
        if self.device is not None:
            return self.device.truth(name)
        return Call(Fn.METHOD_ITEM, (Name(name),))

    def copied(self, e: Expr, v: Value) -> Expr:
        """A loop-carried value's own copy (the state token's placeholder needs none, and a
        weight closure conversion made a carried value must stay the weight itself)."""
        if self.device is not None:
            return self.device.copied(e, v)
        return e if isinstance(v.type, (MonadType, RefType)) else Call(Fn.METHOD_COPY, (e,))

    def region(self, graph: Graph, out: str,
               params: list[str] = ()) -> tuple[Stmt, ...]:  # type: ignore[assignment]
        """The statements of a branch's or a loop's region, defining ``out``."""
        for p, name in zip(graph.params, params):
            self.env[p] = name
        outer, self.body = self.body, []
        outer_here, self.here = self.here, {n.out: k for k, n in enumerate(graph.nodes)}
        outer_order, self.order = self.order, graph.nodes
        for node in graph.nodes:
            self.node(node)
        self.flush()
        self.here, self.order = outer_here, outer_order
        # NOTE: contiguous copies, so that Numba types the result alike in both branches.
        value = self.contiguous(graph, graph.output)
        if tuple_parts(graph.nodes, graph.output) is not None:  # over 30 items: a list,
            items = Name(self.ns.fresh("items"))  # its target defined once for Numba
            self.body.append(Assign(items, value))
            value = items
        self.body.append(Assign(Name(out), value))
        inner, self.body = self.body, outer
        return tuple(inner)

    def contiguous(self, graph: Graph, v: Value) -> Expr:
        if self.device is not None:
            return self.device.contiguous(graph, v)
        parts = tuple_parts(graph.nodes, v)
        if parts is not None:
            return Tuple(tuple(self.contiguous(graph, x) for x in parts))
        value = self.value_of(v)
        t = tensor_of(v.type)  # (Numba's ascontiguousarray makes a 0-d array 1-d)
        return contiguous(value) if t is not None and t.ndim else value

    def callee_args(self, node: Node, graph: str) -> list[Expr]:
        """A call's arguments; a recursive graph's tensors as fresh C-ordered arrays:
        Numba types a function that calls itself by one type per argument, and a
        read-only constant (or a view) passed in where the recursion passes arrays it made
        itself crashed the compiled code."""
        args = [self.value_of(v) for v in node.inputs]
        if graph not in self.shared.recursive:
            return args
        return [Call(Fn.METHOD_COPY, (a,)) if isinstance(v.type, TensorType) else a
                for a, v in zip(args, node.inputs)]

    def array_expr(self, node: Node) -> Expr:
        if node.op is Op.MakeTuple:
            return Tuple(tuple(self.value_of(v) for v in node.inputs))
        if node.op is Op.TupleGetItem:
            return Load(self.value_of(node.inputs[0]), (Lit(node.attr["index"]),))
        if (g := callee(node)) is not None:
            args = self.callee_args(node, g.name) + [Name(k) for k in self.shared.needs[g.name]]
            return Invoke(self.shared.kernels[g.name], tuple(args))
        if node.op is Op.Recurse:  # the kernel being lowered, by name (lowered twice:
            name = node.attr["graph"]  # the first time finds the constants it needs)
            args = self.callee_args(node, name)
            args += [Name(k) for k in self.shared.needs.get(name, ())]
            return Invoke(self.shared.kernels[name], tuple(args))
        return self.lowered_expr(node, self.operand_values(node))

    def array_lowering(self, node: Node) -> Any:
        """The lowering that computes ``node`` as one array expression."""
        lowering = node.op.lowering_for(self.target.lowering)
        return lowering.otherwise if isinstance(lowering, LoopNest) else lowering  # declined

    def lowered_expr(self, node: Node, args: list[Expr]) -> Expr:
        """The expression the primitive's lowering writes for ``node`` on ``args``."""
        lowering = self.array_lowering(node)
        if isinstance(lowering, Elementwise):
            return self.elementwise_array(node, args, lowering)
        if not isinstance(lowering, ArrayExpr):
            raise InternalCompilerError(f"no {self.target.name} code for '{node.op.name}' "
                                        f"({lowering!r})", node.loc)
        return lowering.emit(args, node)

    # --- outputs --------------------------------------------------------------------

    def output_expr(self, v: Value, leaves: list[str]) -> str:
        """The ``run`` expression rebuilding the output structure from kernel results."""
        if isinstance(v, Const) and isinstance(v.value, tuple):  # folded: arrays inside
            return "(" + "".join(self.output_expr(Const(e), leaves) + ", "
                                 for e in v.value) + ")"
        if isinstance(v, Const) and not isinstance(v.value, np.ndarray):
            return repr(v.value)
        if isinstance(v, Var):
            node = self.defs.get(v)
            if node is not None and node.op is Op.MakeTuple:
                parts = [self.output_expr(x, leaves) for x in node.inputs]  # (registers
                lanes = [self.lane_outputs.get(x) for x in node.inputs]  # lane buffers too)
                if lanes and all(o is not None and o.buffer == lanes[0].buffer and  # type: ignore
                                 o.lane == i and o.lanes == len(lanes)
                                 for i, o in enumerate(lanes)):
                    return f"tuple({lanes[0].buffer})"  # type: ignore[union-attr]
                return "(" + "".join(f"{x}, " for x in parts) + ")"
            if node is not None and node.op is Op.Depend:  # ordering only: the value
                return self.output_expr(node.inputs[0], leaves)
            if v in self.lane_outputs:
                return self.lane_output(self.lane_outputs[v], leaves)
        leaves.append(self.name_of(v))
        return _unpacked(f"_r[{len(leaves) - 1}]", v.type, self.aliases_param(v), self.half)

    def lane_output(self, out: LaneOutput, leaves: list[str]) -> str:
        """A lane loop's result: ``run`` splits the kernel's array into one view per lane."""
        if out.buffer not in leaves:
            leaves.append(out.buffer)
            self.run_lines.append(f"{out.buffer} = list(_r[{len(leaves) - 1}]"
                                  f".reshape({(out.lanes, *out.shape)!r}))")
        return f"{out.buffer}[{out.lane}]"

    def aliases_param(self, v: Value) -> bool:
        """Whether ``v`` may share memory with a constant, input or weight (views), or is
        a broadcast view (read-only, with repeated elements): results own their memory."""
        if self.device is not None:
            return self.device.aliases_param(v)
        while isinstance(v, Var):
            if v in self.graph.params:
                return True
            node = self.defs.get(v)
            if node is not None and node.op in (Op.Call, Op.Recurse, Op.If):
                return True  # a shared graph or a branch may return a view of its arguments
            if node is None or node.op in (Op.MakeTuple, Op.While) or not node.op.view:
                return False
            if node.op is Op.BroadcastTo:
                return True
            v = node.inputs[0]
        return True


def _users(graph: Graph) -> dict[Any, list[Any]]:
    """Var -> the nodes using it (in regions too; "region" marks a region's result); key
    None holds the output's leaves."""
    users: dict[Any, list[Any]] = {}
    for n in walk(graph):
        for v in n.inputs:
            if isinstance(v, Var):
                users.setdefault(v, []).append(n.out)
        for region in regions(n):
            for v in _leaves(region, region.output):
                users.setdefault(v, []).append("region")
    if isinstance(graph.output, Var):
        users.setdefault(None, []).append(graph.output)
        users.setdefault(graph.output, []).append(None)
    return users


def _picked(positions: tuple[int, ...]) -> str:
    """``run``'s arguments at ``positions``: a slice where they follow one another."""
    first, last = positions[0], positions[-1]
    if positions == tuple(range(first, last + 1)):
        return f"args[{first}:{last + 1}]"
    return "(" + "".join(f"args[{i}], " for i in positions) + ")"


def _output_leaves(graph: Graph) -> set[Var]:
    """The values ``graph`` returns, through its output's tuples and ``Depend``s."""
    defs = {n.out: n for n in graph.nodes}
    leaves, todo = set(), [graph.output]
    while todo:
        v = todo.pop()
        node = defs.get(v) if isinstance(v, Var) else None
        if node is not None and node.op is Op.MakeTuple:
            todo += node.inputs
        elif node is not None and node.op is Op.Depend:
            todo.append(node.inputs[0])
        elif isinstance(v, Var):
            leaves.add(v)
    return leaves


def _leaves(graph: Graph, v: Value) -> list[Var]:
    parts = tuple_parts(graph.nodes, v)
    if parts is not None:
        return [x for i in parts for x in _leaves(graph, i)] + [v]  # type: ignore
    return [v] if isinstance(v, Var) else []


def _unpacked(expr: str, t: Any, copy: bool, half: bool) -> str:
    """``expr`` rebuilt element by element when it is a tuple the kernel returns whole
    (a call's or a branch's result), each array copied if it may be a view; with ``half``,
    float16 results (bits in the kernel) are viewed as float16."""
    if isinstance(t, TupleType):
        return "(" + "".join(_unpacked(f"{expr}[{i}]", e, copy, half) + ", "
                             for i, e in enumerate(t.elems)) + ")"
    expr += ".copy()" if copy and tensor_of(t) is not None else ""  # (None, numbers: no)
    return viewed(expr, t) if half else expr


def lower_module(module: Module, target: str, header: str) -> ModuleSpec:
    """The render spec of ``module``: one kernel per graph the entry reaches through
    ``Call`` (shared graphs, lowered callees first) and the entry's kernel."""
    spec_target, target = target, target_named(target)
    if target.device:  # a GPU target: msc.codegen.generate hands it to cuda/lower.py
        raise InternalCompilerError(f"lower_module lowers host targets, not {spec_target!r}")
    graph = module.entry_graph
    split = target.splits and needs_split(graph)
    if split:
        graph = split_entry(graph)
    named = by_name(module)
    order = callees_first(graph, named=named)[:-1]  # (the graph itself comes last)
    shared = Shared(recursive=frozenset(
        name for g in named.values() for n in walk(g) if (t := recursion_target(n))
        for name in (t, g.name)))
    names = Namespace()
    for g in order + [graph]:
        shared.kernels[g.name] = names.fresh(g.name)
    settle_needs(order, shared, lambda g: Lowerer(g, target, shared, entry=False).lower())
    callees = tuple(Lowerer(g, target, shared, entry=False).lower()[0] for g in order)
    lowerer = Lowerer(graph, target, shared)
    kernel, output = lowerer.lower()
    if split:
        kernel = dataclasses.replace(kernel, jit=False)
    kernels = Kernels(kernel, callees, not split and target.numba, lowerer.value_types(),
                      lowerer.param_arrays())
    for run in MODULE_PASSES:
        kernels = run(kernels)
    inputs = tuple((p.hint, t.dtype.np_name, t.shape) for p in graph.inputs
                   if (t := tensor_of(p.type)) is not None)
    weights = tuple(p.hint for p in graph.weights) + \
        tuple(f"__const{i}" for i in range(len(shared.arrays)))
    dtypes, slots = arena_layout(graph)
    half_args: tuple[int, ...] = ()
    if target.float16 is Float16.BITS:  # inputs, arena buffers, constants
        n = len(graph.inputs)
        half_args = tuple(i for i, p in enumerate(graph.inputs) if has_half(p.type)) + \
            tuple(n + 2 * k for k, d in enumerate(dtypes) if d == "float16") + \
            tuple(n + 2 * len(dtypes) + i for i, a in enumerate(shared.arrays)
                  if a.dtype == np.float16)
    shapes = tuple((k, w.type.tensor.shape) for w, (k, _) in zip(graph.weights, slots))
    return ModuleSpec(spec_target, header, kernels.entry, inputs, weights,
                      tuple(shared.arrays), output, kernels.callees, half_args, dtypes,
                      shapes, lowerer.call_args, tuple(lowerer.run_lines),  # type: ignore
                      tuple((shape, dt) for _, shape, dt in lowerer.pooled), kernels.library,
                      tuple(kernels.files.items()), signatures=kernels.signatures,
                      foresees_all=kernels.foresees_all,
                      library_lines=tuple(kernels.lines.items()))


def by_name(module: Module) -> dict[str, Graph]:
    """The graphs a ``Recurse`` may name: the module's, but its entry (which the host
    lowering may split under the same name); none where nothing recurses."""
    graphs = all_graphs(module)
    if not any(recursion_target(n) for g in graphs for n in walk(g)):
        return {}
    return {g.name: g for g in graphs if g.name != module.entry}


def settle_needs(order: list[Graph], shared: Shared, lower: Callable[[Graph], Any]) -> None:
    """Where graphs recurse, a kernel passes the kernel it calls the constants that one
    needs before that one is lowered (itself, or a gradient's backward calling the graph
    that calls it): ``lower`` each graph again until what each needs stops growing."""
    if not any(recursion_target(n) for g in order for n in walk(g)):
        return
    for _ in range(len(order) + 1):
        before = dict(shared.needs)
        for g in order:
            lower(g)
        if shared.needs == before:
            return
    raise InternalCompilerError("the constants recursive kernels pass on did not settle")


def arena_layout(graph: Graph) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """The dtypes of ``graph``'s weight arenas (in order of first appearance) and, for
    each weight, its arena and its index among that arena's weights."""
    dtypes: list[str] = []
    counts: list[int] = []
    slots = []
    for w in graph.weights:
        name = w.type.tensor.dtype.np_name  # type: ignore[union-attr]
        if name not in dtypes:
            dtypes.append(name)
            counts.append(0)
        k = dtypes.index(name)
        slots.append((k, counts[k]))
        counts[k] += 1
    return tuple(dtypes), tuple(slots)

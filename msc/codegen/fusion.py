"""Elementwise fusion (numba target): runs of elementwise nodes over one output shape
become one explicit loop nest whose intermediates are scalars.

``FusedLoops`` is the part of the ``Lowerer`` that collects such a run (``group``) and
emits it when a node that cannot join arrives (``flush``). Numba compiles one loop nest
much faster than a chain of array expressions, keeps intermediates in registers and
allocates only the results something outside the run uses. A result assigned whole to a
weight is stored straight into it when that is safe (see ``assigned_weight``). On a target
that holds float16 as bits, loads, float16 results and stores convert (see ``half.py``).
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from typing import Any

from msc.codegen.half import ROUND, to_half
from msc.codegen.passes import SCALAR_PASSES
from msc.codegen.targets import Float16
from msc.ir import kernel
from msc.ir.dtypes import DType, bool_, float16, float32, uint16
from msc.ir.kernel import (
    Assign,
    Call,
    Cast,
    DTypeRef,
    Eval,
    Expr,
    Fn,
    Helper,
    Lit,
    Loop,
    Name,
    Role,
    Stmt,
    Store,
    contiguous,
    empty,
    reshape,
)
from msc.ir.nodes import Const, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.base import Compute, Elementwise, Primitive, operand_dtype
from msc.ir.types import ScalarType, tensor_of


#: Float ops whose loop over one result is numpy's ufunc with ``out=``, to the bit (casts
#: aside: each operand has the result's dtype; a loop rounds each op's result to it too).
#: An outlined driver calls it instead of a kernel of one op (or of a chain of two), which
#: cost Numba about 0.07 s to compile for a loop no faster, or one pass less over the
#: arrays (``numpy_call``). ReLU is ``np.maximum(x, 0)``.
UFUNCS = {Op.Add: Fn.ADD, Op.Sub: Fn.SUBTRACT, Op.Mul: Fn.MULTIPLY, Op.Div: Fn.DIVIDE,
          Op.Neg: Fn.NEGATIVE, Op.Maximum: Fn.MAXIMUM, Op.Minimum: Fn.MINIMUM,
          Op.ReLU: Fn.MAXIMUM}
#: Those two of which a chain may be (``a * c + b``: an optimizer's update).
CHAINED = frozenset({Op.Add, Op.Sub, Op.Mul, Op.Div, Op.Neg})


#: Views whose lowering makes the array C-contiguous first (``kernel.reshape`` of
#: ``kernel.contiguous``).
RESHAPES = frozenset({Op.Reshape, Op.ExpandDims, Op.Squeeze, Op.Flatten})


def reads(node: Node, group: list[Node]) -> bool:
    """Whether ``node`` reads a value a member of ``group`` computes."""
    return bool(group) and any(v is n.out for n in group for v in node.inputs)


class FusedLoops:
    """The elementwise half of ``Lowerer`` (its attributes: ``target``, ``ns``, ``env``,
    ``lines``, ``users``, ``all_defs``, ``group``, ``name_of``)."""

    target: Any  # a targets.Target
    ns: Any
    env: dict[Var, str]
    body: list[Stmt]
    users: dict[Any, list[Any]]
    all_defs: dict[Var, Node]
    group: list[Node]
    aside: list[Node]
    written: set[Var]  # values a fused loop already wrote into their weight
    owned: set[Var]  # values whose array the kernel made and nobody else shares
    here: dict[Var, int]  # the values defined in the graph or region being lowered: where
    order: tuple[Node, ...]  # that graph's or region's nodes
    slots: dict[Var, tuple[int, int]]  # the entry's weights (slices of its arenas)
    weight_of: dict[Var, Var]  # a weight, or a Load of it -> the weight
    device: Any  # a device target's hooks (lower.Device), or None

    def name_of(self, v: Value) -> str:
        raise NotImplementedError

    def reroll(self, group: list[Node], write: Node | None) -> list[Node]:
        raise NotImplementedError

    def pooled_buffer(self, v: Var) -> str | None:
        raise NotImplementedError

    @property
    def half(self) -> bool:
        """Whether float16 values are float32 scalars rounded to float16, stored as bits."""
        return self.target.float16 is Float16.BITS  # type: ignore[no-any-return]

    def is_half(self, dt: DType | None) -> bool:
        return self.half and dt == float16

    def storage(self, dt: DType) -> DType:
        """The dtype of the arrays holding ``dt`` values."""
        return uint16 if self.is_half(dt) else dt

    def lowering(self, node_or_op: Node | Primitive) -> Elementwise:
        op = node_or_op.op if isinstance(node_or_op, Node) else node_or_op
        if self.device is not None:
            return self.device.lowering(op)  # type: ignore[no-any-return]
        lowering = op.lowering_for(self.target.lowering)
        assert isinstance(lowering, Elementwise)
        return lowering

    def compute_dtype(self, node: Node, lowering: Elementwise) -> DType | None:
        if lowering.compute is Compute.NONE:
            return None
        if lowering.compute is Compute.OPERANDS:
            return operand_dtype(tuple(v.type for v in node.inputs))
        if lowering.compute is Compute.BOOL:
            return bool_
        return node.out.type.dtype  # type: ignore[union-attr]

    def operands(self, node: Node, loaded: list[tuple[Expr, DType | None]],
                 scalar: bool) -> list[Expr]:
        """The operands converted to the op's compute dtype (Python scalars typed); a fused
        loop converts scalars, an array expression converts arrays."""
        lowering = self.lowering(node)
        dt = self.compute_dtype(node, lowering)
        out: list[Expr] = []
        for i, (v, (e, have)) in enumerate(zip(node.inputs, loaded)):
            if isinstance(v, Const) and isinstance(v.type, ScalarType):
                if i not in lowering.keep and self.is_half(dt):  # numpy makes it float16
                    out.append(Lit(to_half(v.value), float32))
                else:
                    out.append(Lit(v.value, None if i in lowering.keep else dt))
            elif dt is None or have == dt or i in lowering.keep:
                out.append(e)
            elif scalar and self.is_half(dt):
                out.append(Helper(ROUND, (e,)))
            else:
                out.append(Cast(dt, e))
        return out

    def expr(self, node: Node, operands: list[Expr], scalar: bool) -> Expr:
        """The op's expression on ``operands``: on scalars in a fused loop (its scalar
        form, rewritten by ``passes.SCALAR_PASSES``: float16 rounding, vector math), else
        on arrays."""
        lowering = self.lowering(node)
        template = kernel.bind(lowering.scalar or lowering.expr if scalar else lowering.expr,
                               node.attr)
        for rewrite in SCALAR_PASSES if scalar else ():
            template = rewrite(self, node, template)
        return kernel.substitute(template, operands)

    def elementwise_array(self, node: Node, args: list[Expr], lowering: Elementwise) -> Expr:
        """The op on whole arrays (numpy's ufuncs), its result of the node's dtype."""
        loaded = [(a, _dtype(v)) for a, v in zip(args, node.inputs)]
        e = kernel.on_arrays(self.expr(node, self.operands(node, loaded, scalar=False),
                                       scalar=False))
        return Call(Fn.ASARRAY, (e, DTypeRef(node.out.type.dtype)))  # type: ignore

    def join(self, node: Node) -> None:
        """Add elementwise ``node`` to the pending group. One of another shape that reads
        no member of the group waits in a group of its own, ``aside``, emitted before the
        group's loop (when something reads it, or with the group): the small (1, C, 1, 1)
        scale a batch norm computes from its variance no longer splits the chain over
        the activations in two loops."""
        shape = node.out.type.shape  # type: ignore[union-attr]
        if self.group and self.group[0].out.type.shape != shape:  # type: ignore[union-attr]
            if reads(node, self.group):
                self.flush()
            else:
                if self.aside and self.aside[0].out.type.shape != shape:  # type: ignore
                    self.flush_aside()
                self.aside.append(node)
                return
        if reads(node, self.aside):
            self.flush_aside()
        self.group.append(node)

    def flush_aside(self) -> None:
        self.group, held, self.aside = self.aside, self.group, []
        self.flush()
        self.group = held

    def flush(self, before: Node | None = None) -> None:
        """Emit the pending elementwise group as one loop nest (numba target); ``before``
        is the node that ends the group, emitted right after the loop. The group set
        aside comes first: it reads nothing the group computes. A device target places
        the group itself."""
        if self.device is not None:
            self.device.flush(before)
            return
        if self.aside:
            self.flush_aside()
        group, self.group = self.group, []
        if group and self.target.fuses and self.target.lanes:
            group = self.reroll(group, before)  # many identical chains: one loop (lanes.py)
        if not group:
            return
        members = {n.out for n in group}
        shape = group[0].out.type.shape  # type: ignore[union-attr]
        outs = [n for n in group if any(u not in members for u in self.users.get(n.out, ()))
                or n.out in self.users.get(None, ())]
        inplace: dict[Var, Var] = {}  # a result -> the weight the loop stores it in
        updates: dict[Var, Any] = {}  # -> how the write combines it (AssignAdd's add)
        result_of = {n.out: n for n in outs}
        for write in self.writes_after(before, result_of):
            n = result_of[write.inputs[1]]  # type: ignore[index]
            w = self.assigned_weight(n, group, write)
            if w is None or w in inplace.values() or n.out in inplace:
                break  # (the writes after it then copy, in their order)
            inplace[n.out], updates[n.out] = w, write.op.update
        self.written |= set(inplace)
        reused: list[Var] = []  # dead operands whose arrays hold results
        # every result in a C-contiguous array: one allocated here, owned, pooled or a weight
        # in its arena (see ``merged_axes``)
        whole = all(self.weight_of.get(w) in self.slots for w in inplace.values())
        for n in outs:
            if n.out in inplace:
                self.env[n.out] = self.name_of(inplace[n.out])
                continue
            if (buffer := self.pooled_buffer(n.out)) is not None:
                self.env[n.out] = buffer
                continue
            self.owned.add(n.out)
            dead = self.dead_operand(n, group, members, reused)
            if dead is not None:
                reused.append(dead)
                self.env[n.out] = self.env[dead]
                continue
            self.env[n.out] = self.ns.fresh("v")
            self.emit(Assign(Name(self.env[n.out]), empty(shape, self.storage(n.out.type.dtype)),
                             loc=n.loc))  # type: ignore[union-attr]
        views: dict[Value, tuple[str, tuple[int, ...]]] = {}
        sources = self.sources(group, members) if whole else []
        if whole and (axes := self.merged_axes(sources, shape)) is not None:
            shape, views = self.merged_views(sources, outs, shape, axes)
        idx = [self.ns.fresh(f"i{k}") for k in range(len(shape))]
        at = tuple(Name(i) for i in idx)
        body: list[Stmt] = []
        scalars: dict[Value, tuple[Expr, DType | None]] = {}
        for v in reused:  # read each element before a result overwrites it
            self.load(v, members, scalars, idx, shape, body, views)
        for n in group:
            loaded = [self.load(v, members, scalars, idx, shape, body, views)
                      for v in n.inputs]
            t = Name(self.ns.fresh("t"))
            dt = n.out.type.dtype  # type: ignore[union-attr]
            e = self.expr(n, self.operands(n, loaded, scalar=True), scalar=True)
            if not self.is_half(dt):  # (a float16 result is rounded already)
                e = Cast(dt, e)
            body.append(Assign(t, e, loc=n.loc))
            scalars[n.out] = (t, dt)
            if n in outs and n.out not in inplace:
                target = Name(views[n.out][0] if views else self.env[n.out])
                body.append(Store(target[at], self.stored(t, dt)))
        for v, w in inplace.items():  # last: every read of the weight's element came before
            element = Name(views[v][0] if views else self.env[v])[at]
            new = scalars[v][0]
            update = updates[v]
            wt = w.type.tensor.dtype  # type: ignore[union-attr]
            if update is not None:  # AssignAdd adds, AssignSub subtracts
                old = Helper("_rt_f16_to_f32", (element,)) if self.is_half(wt) else element
                new = kernel.substitute(self.lowering(update).expr, [old, new])
                new = new if self.is_half(wt) else Cast(wt, new)
            body.append(Store(element, self.stored(new, wt)))
        plain = all(u is None for u in updates.values())  # (AssignAdd: the loop adds)
        call = self.numpy_call(group, outs, inplace) if shape and plain else None
        # (nothing leaves a loop that may run no times, nor one numpy's calls may replace)
        *levels, stmts = _by_depth(body, idx, int(bool(call)) if math.prod(shape) else len(shape))
        for k in reversed(range(len(shape))):  # every element on its own: parallel loops
            stmts = [*levels[k], Loop(idx[k], Lit(shape[k]), tuple(stmts), role=Role.PARALLEL,
                                      instead=call if k == 0 and call is not None else ())]
        for st in stmts:
            self.emit(st)

    def emit(self, stmt: Stmt) -> None:
        self.body.append(stmt)

    def numpy_call(self, group: list[Node], outs: list[Node],
                   inplace: dict[Var, Var]) -> tuple[Stmt, ...] | None:
        """The ufunc calls (``UFUNCS``) computing a group of one float op, or a chain of two
        arithmetic ones (the first's result only the second reads), into the result's
        array (a weight's, where ``inplace`` assigns it), each operand broadcast as the
        loop reads it (trailing axes aligned, size 1 repeated); None for any other group.
        A chain's first call writes the result's array, which the second may then read
        for no other operand (a weight's old value is read by the weight's name: a view
        of it is never assigned in place, see ``same_index``)."""
        last = group[-1]
        if len(group) > 2 or outs != [last] or \
                (len(group) == 2 and not all(n.op in CHAINED for n in group)):
            return None
        out = Name(self.env[last.out])
        calls: list[Stmt] = []
        for n in group:
            dt = n.out.type.dtype  # type: ignore[union-attr]
            if n.op not in UFUNCS or not dt.is_float or self.is_half(dt) or \
                    self.compute_dtype(n, self.lowering(n)) != dt:
                return None
            args: list[Expr] = []
            for v in n.inputs:
                if calls and v is group[0].out:
                    args.append(out)
                elif isinstance(v, Const) and isinstance(v.type, ScalarType):
                    args.append(Lit(v.value, dt))
                elif _dtype(v) == dt:
                    args.append(Name(self.name_of(_broadcast_source(v, self.all_defs))))
                    if calls and args[-1] == out:
                        return None
                else:
                    return None
            args += [Lit(0)] if n.op is Op.ReLU else []
            calls.append(Eval(Call(UFUNCS[n.op], tuple(args), (("out", out),))))
        calls[-1] = replace(calls[-1], loc=last.loc)
        return tuple(calls)

    def merged_axes(self, sources: list[Value],
                    shape: tuple[int, ...]) -> list[list[int]] | None:
        """The loop nest's axes with those of size 1 dropped and neighbours that every
        array the group reads (``sources``) indexes alike (each whole, or each broadcast)
        merged; None where that changes nothing or an array read may be a view. Every
        structure is then one kernel at any rank (a ReLU over 4-D and 2-D arrays alike),
        and the inner loop is as long as it can be."""
        if any(not self.c_ordered(s) for s in sources):
            return None
        axes: list[list[int]] = []
        for k in (k for k, d in enumerate(shape) if d != 1):
            if axes and all(_whole(s, shape, k) == _whole(s, shape, axes[-1][-1])
                            for s in sources):
                axes[-1].append(k)
            else:
                axes.append([k])
        return None if len(shape) < 2 or len(axes) == len(shape) else axes

    def merged_views(self, sources: list[Value], outs: list[Node], shape: tuple[int, ...],
                     axes: list[list[int]]
                     ) -> tuple[tuple[int, ...], dict[Value, tuple[str, tuple[int, ...]]]]:
        """The merged loops' shape (see ``merged_axes``), and a view of that shape of each
        result and each array read (1 where it is broadcast): reshaping a C-contiguous
        array only re-indexes it."""
        merged = tuple(math.prod(shape[k] for k in ax) for ax in axes) or (1,)
        views: dict[Value, tuple[str, tuple[int, ...]]] = {}
        for n in outs:
            views[n.out] = (self.ns.fresh("flat"), merged)
            self.emit(Assign(Name(views[n.out][0]), reshape(self.env[n.out], merged)))
        written = {self.env[n.out]: views[n.out] for n in outs}
        for s in sources:
            view = tuple(d if _whole(s, shape, ax[0]) else 1 for d, ax in zip(merged, axes))
            view = view or (1,)
            mine = written.get(self.name_of(s))
            if mine is not None and mine[1] == view:  # a result's array: one name for it,
                views[s] = mine  # or LLVM's alias check fails and the loop runs unvectorized
                continue
            views[s] = (self.ns.fresh("flat"), view)
            self.emit(Assign(Name(views[s][0]), reshape(contiguous(self.name_of(s)), view)))
        return merged, views

    def sources(self, group: list[Node], members: set[Var]) -> list[Value]:
        """The arrays the group's loop reads (what broadcast views view), each once."""
        found = {_broadcast_source(v, self.all_defs): None for n in group for v in n.inputs
                 if v not in members and not (isinstance(v, Const) and
                                              isinstance(v.type, ScalarType))}
        return list(found)

    def c_ordered(self, v: Value) -> bool:
        """Whether ``v``'s array is C-contiguous as far as the graph shows: an input, a
        weight, a constant or a value computed into a new array, not a view."""
        while isinstance(v, Var) and (node := self.all_defs.get(v)) is not None:
            source = self.all_defs.get(node.inputs[0]) if node.inputs else None
            if node.op is Op.TupleGetItem and source is not None and source.op is Op.MakeTuple:
                v = source.inputs[node.attr["index"]]
            elif node.op in (Op.Load, Op.Depend, Op.TupleGetItem):
                v = node.inputs[0]  # (the item of an op's results: what made them)
            else:
                return node.op in RESHAPES or not \
                    (node.op.view or node.op in (Op.If, Op.Call, Op.Recurse, Op.While))
        return True

    def dead_operand(self, n: Node, group: list[Node], members: set[Var],
                     taken: list[Var]) -> Var | None:
        """An operand of the group whose array ``n`` can be computed into (``free_array``,
        only the group reading it) of ``n``'s type (so the loop reads it at its own
        index)."""
        for m in group:
            for v in m.inputs:
                if isinstance(v, Var) and v not in members and v not in taken and \
                        v.type == n.out.type and self.free_array(v, members):
                    return v
        return None

    def free_array(self, v: Var, readers: set[Any]) -> bool:
        """Whether ``v``'s array may take a result: the kernel made it, nobody else shares
        it, it was defined at this level (not outside a loop that runs this code again)
        and only ``readers`` read it."""
        return v in self.owned and v in self.here and \
            all(u in readers for u in self.users.get(v, ()))

    def stored(self, e: Expr, dt: DType) -> Expr:
        """A scalar as an element of an array of ``dt`` values (float16's bits, rounded)."""
        return Helper("_rt_f32_to_f16", (e,)) if self.is_half(dt) else e

    def writes_after(self, before: Node | None, results: dict[Var, Node]) -> list[Node]:
        """``before`` and the writes after it while only writes of the group's ``results``
        and UpdateStates come between (an optimizer's new moments, assigned one after the
        other): the writes the loop may do itself (``assigned_weight``)."""
        run: list[Node] = []
        k = -1 if before is None else self.here.get(before.out, -1)
        while 0 <= k < len(self.order):
            node = self.order[k]
            if node.op.writes and node.inputs[1] in results:
                run.append(node)
            elif node.op is not Op.UpdateState or not run:
                break
            k += 1
        return run

    def assigned_weight(self, n: Node, group: list[Node], write: Node | None) -> Var | None:
        """The weight the group may compute ``n`` straight into (or add it to, subtract it
        from): ``write``, the node right after the loop, assigns all of ``n`` to a weight
        of its type, and ``n``'s uses outside the group may read the weight instead
        (``read_after``; the group's members read ``n``'s scalar, before the write);
        and the group reads that weight only element by element at the loop's own index
        (storing each element last in its iteration is then safe)."""
        if write is None or not write.op.writes or write.inputs[1] is not n.out:
            return None
        weight = write.inputs[0]
        members = {m.out for m in group}
        others = [u for u in self.users.get(n.out, ())
                  if u is not write.out and u not in members]
        if tensor_of(weight.type) != n.out.type or others and (
                write.op.update is not None or not self.read_after(others, write, weight)):
            return None
        for m in group:
            if any(v not in members and not self.same_index(v, weight) for v in m.inputs):
                return None
        return weight  # type: ignore[return-value]

    def read_after(self, users: list[Any], write: Node, weight: Value) -> bool:
        """Whether ``users`` of the value ``write`` assigns to ``weight`` (an optimizer's
        new moment, which the parameter's update reads) can read the weight instead: each
        is an elementwise node after ``write`` (its result a new array, never the weight's
        own), and nothing writes the weight or runs a region that might from ``write`` to
        the last of them."""
        start = self.here.get(write.out)
        if start is None or any(self.here.get(u, -1) <= start or
                                not self.all_defs[u].op.elementwise for u in users):
            return False
        end = max(self.here[u] for u in users)
        for u in self.users.get(weight, ()):
            if u not in self.here:
                return False  # read or written in a region
            m = self.all_defs[u]
            if start < self.here[u] <= end and \
                    (m.op.writes or m.op in (Op.Call, Op.Recurse, Op.If, Op.While)):
                return False
        return True

    def same_index(self, v: Value, weight: Value) -> bool:
        """Whether reading ``v`` at the loop's index cannot see another element of
        ``weight``: ``v`` is the weight itself (a Load), another buffer, or a new array."""
        while isinstance(v, Var) and v is not weight:
            node = self.all_defs.get(v)
            if node is None:
                return True  # an input or another weight
            if node.op in (Op.Load, Op.Depend):
                v = node.inputs[0]
            elif node.op in (Op.If, Op.Call, Op.Recurse, Op.While) or node.op.view:
                return not self.may_view(v, weight)
            else:
                return True  # computed into a new array
        return True

    def may_view(self, v: Value, weight: Value) -> bool:
        """Whether ``v`` may be a view (reshaped, transposed, ...) of ``weight``."""
        while isinstance(v, Var):
            if v is weight:
                return True
            node = self.all_defs.get(v)
            if node is None:
                return False
            if node.op in (Op.If, Op.Call, Op.Recurse, Op.While):
                return True  # what a region or callee returns is not followed
            if not node.op.view:
                return False
            v = node.inputs[0]
        return False

    def load(self, v: Value, members: set[Var], scalars: dict[Value, tuple[Expr, DType | None]],
             idx: list[str], shape: tuple[int, ...], body: list[Stmt],
             views: dict[Value, tuple[str, tuple[int, ...]]]) -> tuple[Expr, DType | None]:
        if v in scalars:
            return scalars[v]
        if isinstance(v, Const) and isinstance(v.type, ScalarType):
            return Lit(v.value), None
        assert v not in members
        source = _broadcast_source(v, self.all_defs)  # broadcasting here
        t = tensor_of(source.type)
        assert t is not None
        array, sizes = views.get(source, (self.name_of(source), t.shape))  # merged_views
        offset = len(shape) - len(sizes)
        parts = [Lit(0) if d == 1 and shape[offset + k] != 1 else Name(idx[offset + k])
                 for k, d in enumerate(sizes)]
        name = Name(self.ns.fresh("a"))
        element: Expr = Name(array)[tuple(parts)]
        if self.is_half(t.dtype):
            element = Helper("_rt_f16_to_f32", (element,))
        body.append(Assign(name, element))
        scalars[v] = (name, t.dtype)
        return scalars[v]


def _by_depth(body: list[Any], idx: list[str], outermost: int) -> list[list[Stmt]]:
    """``body``'s statements (assignments of scalars, stores) by depth in the loops over
    ``idx``, in order: depth 0 before them, depth k in the loop of ``idx[k - 1]``. Each
    goes as deep as the indices it reads (directly or through a scalar) need, at least
    ``outermost``; stores stay innermost, and so does a read of an array the loop stores
    to. An operand broadcast along the inner axes is then worked on once per element it
    has, not once per element of the result. And LLVM's loop vectorizer took time
    exponential in the length of a chain of inlined runtime math (a tanh of a tanh ...)
    left invariant in the innermost loop: a fuzzed program's 5 chained tanh of a broadcast
    column did not compile in 35 minutes."""
    depth = {name: k + 1 for k, name in enumerate(idx)}
    depth |= {s.target.array.name: len(idx) for s in body if isinstance(s, Store)}
    levels: list[list[Stmt]] = [[] for _ in range(len(idx) + 1)]
    for s in body:
        reads = [depth.get(n.name, 0) for n in kernel.nodes(s.value) if isinstance(n, Name)]
        k = len(idx) if isinstance(s, Store) else max([outermost, *reads])
        if isinstance(s, Assign):
            depth[s.target.name] = k
        levels[k].append(s)
    return levels


def _broadcast_source(v: Value, defs: dict[Var, Node]) -> Value:
    """What an explicit BroadcastTo views (of a BroadcastTo ...): a fused loop reads it
    with its own broadcast indexing, not through the zero-strided view."""
    while (node := defs.get(v)) is not None and node.op is Op.BroadcastTo:  # type: ignore
        v = node.inputs[0]
    return v


def _whole(v: Value, shape: tuple[int, ...], k: int) -> bool:
    """Whether the loop over ``shape`` reads ``v`` along its axis ``k`` (not broadcast)."""
    t = tensor_of(v.type)
    assert t is not None
    j = k - (len(shape) - t.ndim)
    return j >= 0 and t.shape[j] == shape[k]


def _dtype(v: Value) -> DType | None:
    t = tensor_of(v.type)
    return t.dtype if t is not None else None


def loc_comment(node: Node) -> str:
    """The user's file and line as a trailing comment of a generated line."""
    if node.loc is None:
        return ""
    return f"  # {os.path.basename(node.loc.file)}:{node.loc.line}"

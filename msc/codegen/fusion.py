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

import os
from typing import Any

import numpy as np

from msc.codegen.half import rounded, to_half
from msc.codegen.targets import Float16
from msc.ir.dtypes import DType, bool_, float16, float32
from msc.ir.nodes import Const, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.base import Compute, Elementwise, Primitive, operand_dtype
from msc.ir.primitives.emitting import dtype_ref, index
from msc.ir.types import ScalarType, tensor_of


def literal(value: Any, dt: DType | None) -> str:
    """A Python scalar as source, typed to ``dt`` so numpy and numba keep the dtype."""
    text = repr(bool(value)) if isinstance(value, (bool, np.bool_)) else repr(value)
    if value != value or value in (float("inf"), float("-inf")):
        text = f"float({str(value)!r})"
    return f"{dtype_ref(dt)}({text})" if dt is not None else text


#: The fused-loop forms of float32 ops on a ``vector_math`` target: numba_rt's float64
#: exp, tanh and erf made of arithmetic and selects (LLVM vectorizes the loop; libm's
#: scalar tanh and erf cost 15-20 ns an element), rounded to float32 as before.
VECTOR_MATH = {Op.Exp: "_rt_exp64({0})", Op.Tanh: "_rt_tanh64({0})",
               Op.Sigmoid: "_rt_sigmoid64({0})", Op.Erf: "_rt_erf64({0})",
               Op.Erfc: "_rt_erfc64({0})", Op.GeLU: "_rt_gelu_{approximate}64({0})"}


def reads(node: Node, group: list[Node]) -> bool:
    """Whether ``node`` reads a value a member of ``group`` computes."""
    return bool(group) and any(v is n.out for n in group for v in node.inputs)


class FusedLoops:
    """The elementwise half of ``Lowerer`` (its attributes: ``target``, ``ns``, ``env``,
    ``lines``, ``users``, ``all_defs``, ``group``, ``name_of``)."""

    target: Any  # a targets.Target
    ns: Any
    env: dict[Var, str]
    lines: list[str]
    users: dict[Any, list[Any]]
    all_defs: dict[Var, Node]
    group: list[Node]
    aside: list[Node]
    written: set[Var]  # values a fused loop already wrote into their weight
    owned: set[Var]  # values whose array the kernel made and nobody else shares
    here: set[Var]  # the values defined in the graph or region being lowered

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

    def storage(self, dt: DType) -> str:
        """The dtype of the arrays holding ``dt`` values."""
        return "np.uint16" if self.is_half(dt) else dtype_ref(dt)

    def lowering(self, node_or_op: Node | Primitive) -> Elementwise:
        op = node_or_op.op if isinstance(node_or_op, Node) else node_or_op
        lowering = op.lowering[self.target.name]
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

    def operands(self, node: Node, loaded: list[tuple[str, DType | None]],
                 scalar: bool) -> list[str]:
        """Operand sources cast to the op's compute dtype (Python scalars typed); a fused
        loop converts scalars, an array expression converts arrays."""
        lowering = self.lowering(node)
        dt = self.compute_dtype(node, lowering)
        out = []
        for i, (v, (text, have)) in enumerate(zip(node.inputs, loaded)):
            if isinstance(v, Const) and isinstance(v.type, ScalarType):
                if i not in lowering.keep and self.is_half(dt):  # numpy makes it float16
                    out.append(literal(to_half(v.value), float32))
                else:
                    out.append(literal(v.value, None if i in lowering.keep else dt))
            elif dt is None or have == dt or i in lowering.keep:
                out.append(text)
            elif scalar and self.is_half(dt):
                out.append(f"_rt_f16_round({text})")
            elif scalar:
                out.append(f"{dtype_ref(dt)}({text})")
            else:
                out.append(f"{text}.astype({dtype_ref(dt)})")
        return out

    def expr(self, node: Node, operands: list[str], scalar: bool) -> str:
        lowering = self.lowering(node)
        template = lowering.scalar or lowering.expr if scalar else lowering.expr
        if scalar and self.is_half(node.out.type.dtype):  # type: ignore[union-attr]
            return rounded(template, operands, node.attr)
        if scalar and self.target.vector_math and node.op in VECTOR_MATH \
                and self.compute_dtype(node, lowering) == float32:
            template = VECTOR_MATH[node.op]
        return template.format(*operands, **node.attr)

    def elementwise_array(self, node: Node, args: list[str], lowering: Elementwise) -> str:
        loaded = [(a, _dtype(v)) for a, v in zip(args, node.inputs)]
        text = self.expr(node, self.operands(node, loaded, scalar=False), scalar=False)
        return f"np.asarray({text}, {dtype_ref(node.out.type.dtype)})"  # type: ignore

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
        aside comes first: it reads nothing the group computes."""
        if self.aside:
            self.flush_aside()
        group, self.group = self.group, []
        if group and self.target.fuses:
            group = self.reroll(group, before)  # many identical chains: one loop (lanes.py)
        if not group:
            return
        members = {n.out for n in group}
        shape = group[0].out.type.shape  # type: ignore[union-attr]
        outs = [n for n in group if any(u not in members for u in self.users.get(n.out, ()))
                or n.out in self.users.get(None, ())]
        inplace = {n.out: w for n in outs
                   if (w := self.assigned_weight(n, group, before)) is not None}
        self.written |= set(inplace)
        reused: list[Var] = []  # dead operands whose arrays hold results
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
            locs = loc_comment(n)
            self.lines.append(f"{self.env[n.out]} = np.empty({shape!r}, "
                              f"{self.storage(n.out.type.dtype)}){locs}")  # type: ignore
        idx = [self.ns.fresh(f"i{k}") for k in range(len(shape))]
        pad = "    " * len(shape)
        for k, (i, d) in enumerate(zip(idx, shape)):
            self.lines.append("    " * k + f"for {i} in range({d}):")
        scalars: dict[Value, tuple[str, DType | None]] = {}
        for v in reused:  # read each element before a result overwrites it
            self.load(v, members, scalars, idx, shape, pad)
        for n in group:
            loaded = [self.load(v, members, scalars, idx, shape, pad) for v in n.inputs]
            t = self.ns.fresh("t")
            dt = n.out.type.dtype  # type: ignore[union-attr]
            text = self.expr(n, self.operands(n, loaded, scalar=True), scalar=True)
            if not self.is_half(dt):  # (a float16 result is rounded already)
                text = f"{dtype_ref(dt)}({text})"
            self.lines.append(f"{pad}{t} = {text}{loc_comment(n)}")
            scalars[n.out] = (t, dt)
            if n in outs and n.out not in inplace:
                self.lines.append(f"{pad}{self.env[n.out]}[{index(idx)}] = {self.stored(t, dt)}")
        for v, w in inplace.items():  # last: every read of the weight's element came before
            element, t = f"{self.env[v]}[{index(idx)}]", scalars[v][0]
            update = before.op.update  # type: ignore[union-attr]
            wt = w.type.tensor.dtype  # type: ignore[union-attr]
            if update is not None:  # AssignAdd adds, AssignSub subtracts
                old = f"_rt_f16_to_f32({element})" if self.is_half(wt) else element
                combined = self.lowering(update).expr.format(old, t)
                t = combined if self.is_half(wt) else f"{dtype_ref(wt)}{combined}"
            self.lines.append(f"{pad}{element} = {self.stored(t, wt)}")

    def dead_operand(self, n: Node, group: list[Node], members: set[Var],
                     taken: list[Var]) -> Var | None:
        """An operand of the group whose array ``n`` can be computed into: the kernel made
        it, nobody else shares it, it has ``n``'s type (so the loop reads it at its own
        index), it was defined at this level (not outside a loop that runs the group
        again) and only the group reads it."""
        for m in group:
            for v in m.inputs:
                if isinstance(v, Var) and v not in members and v not in taken and \
                        v in self.owned and v in self.here and v.type == n.out.type and \
                        all(u in members for u in self.users.get(v, ())):
                    return v
        return None

    def stored(self, t: str, dt: DType) -> str:
        """A scalar as an element of an array of ``dt`` values (float16's bits, rounded)."""
        return f"_rt_f32_to_f16({t})" if self.is_half(dt) else t

    def assigned_weight(self, n: Node, group: list[Node], write: Node | None) -> Var | None:
        """The weight the group may compute ``n`` straight into (or add it to, subtract it
        from): ``n``'s one use is ``write``, the node right after the loop, which assigns
        all of it to a weight of its type; and the group reads that weight only element by
        element at the loop's own index (storing each element last in its iteration is
        then safe)."""
        if write is None or not write.op.writes or write.inputs[1] is not n.out or \
                self.users.get(n.out) != [write.out]:
            return None
        weight = write.inputs[0]
        if tensor_of(weight.type) != n.out.type:
            return None
        members = {m.out for m in group}
        for m in group:
            if any(v not in members and not self.same_index(v, weight) for v in m.inputs):
                return None
        return weight  # type: ignore[return-value]

    def same_index(self, v: Value, weight: Value) -> bool:
        """Whether reading ``v`` at the loop's index cannot see another element of
        ``weight``: ``v`` is the weight itself (a Load), another buffer, or a new array."""
        while isinstance(v, Var) and v is not weight:
            node = self.all_defs.get(v)
            if node is None:
                return True  # an input or another weight
            if node.op in (Op.Load, Op.Depend):
                v = node.inputs[0]
            elif node.op in (Op.If, Op.Call, Op.While) or node.op.view:
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
            if node.op in (Op.If, Op.Call, Op.While):
                return True  # what a region or callee returns is not followed
            if not node.op.view:
                return False
            v = node.inputs[0]
        return False

    def load(self, v: Value, members: set[Var], scalars: dict[Value, tuple[str, DType | None]],
             idx: list[str], shape: tuple[int, ...], pad: str) -> tuple[str, DType | None]:
        if v in scalars:
            return scalars[v]
        if isinstance(v, Const) and isinstance(v.type, ScalarType):
            return literal(v.value, None), None
        assert v not in members
        source = v
        while (node := self.all_defs.get(source)) is not None and node.op is Op.BroadcastTo:
            source = node.inputs[0]  # read what a broadcast view reads, broadcasting here
        t = tensor_of(source.type)
        assert t is not None
        offset = len(shape) - t.ndim
        parts = ["0" if d == 1 and shape[offset + k] != 1 else idx[offset + k]
                 for k, d in enumerate(t.shape)]
        name = self.ns.fresh("a")
        element = f"{self.name_of(source)}[{index(parts)}]"
        if self.is_half(t.dtype):
            element = f"_rt_f16_to_f32({element})"
        self.lines.append(f"{pad}{name} = {element}")
        scalars[v] = (name, t.dtype)
        return scalars[v]


def _dtype(v: Value) -> DType | None:
    t = tensor_of(v.type)
    return t.dtype if t is not None else None


def loc_comment(node: Node) -> str:
    """The user's file and line as a trailing comment of a generated line."""
    if node.loc is None:
        return ""
    return f"  # {os.path.basename(node.loc.file)}:{node.loc.line}"

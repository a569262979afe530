"""Lowering for the cuda target: each graph becomes a host driver, a plain Python function
whose values are device arrays, around ``@cuda.jit`` kernels.

- A run of elementwise nodes over one shape (the numba target's fusion) becomes one
  generated kernel over a 1-D grid, one thread per element; its scalar code is the numba
  target's, rewritten for the device (``scalar.py``).
- Reductions, softmax, layer norm and matmuls call the block-level kernels of
  ``msc/runtime/cuda_rt.py`` (``library.py``); writes to a weight are a kernel storing
  into it in place.
- ``If``/``While`` run on the host, reading their condition back; calls, tuples and
  aliases are host code as on the python target.
- Every other op (and any op on float16, which numba.cuda does not compute as numpy
  does) runs on the host: its operands are copied there, the python target's numpy code
  computes it, and the result is copied back. These ops are listed in the module
  (``HOST_OPS``) and in ``msc compile``'s report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from msc.codegen.cuda.library import device_call
from msc.codegen.cuda.scalar import device_template, render_device
from msc.codegen.fusion import loc_comment
from msc.codegen import lower as host_lower
from msc.codegen.lower import KEEPS_GROUP, Lowerer, ModuleSpec, Shared
from msc.codegen.pyrender import located
from msc.codegen.names import Namespace
from msc.codegen.targets import Target, target_named
from msc.ir.dtypes import DType, float16
from msc.ir.kernel import (
    Cast,
    DTypeRef,
    Eval,
    Expr,
    Helper,
    Launch,
    Lit,
    Name,
    shape_of,
    substitute,
)
from msc.ir.nodes import Const, Graph, Module, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.primitives.base import Alias, ArrayExpr, Builtin, Elementwise, LoopNest, Statements
from msc.ir.primitives.emitting import index
from msc.ir.rewrite import callees_first, walk
from msc.ir.types import MonadType, RefType, ScalarType, TensorType, tensor_of

@dataclass(frozen=True)
class DeviceKernel:
    """A generated ``@cuda.jit`` kernel: its parameters, body lines, and the (dtype name,
    ndim) of the C-contiguous array each parameter takes (its signature, for PTX)."""

    name: str
    params: tuple[str, ...]
    lines: tuple[str, ...]
    arrays: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class CudaModuleSpec(ModuleSpec):
    """``ModuleSpec`` plus the generated kernels, the ops that run on the host, and
    whether any graph writes a weight (``run`` then copies the weights back)."""

    device_kernels: tuple[DeviceKernel, ...] = ()
    host_ops: tuple[str, ...] = ()
    writes: bool = False


@dataclass
class CudaShared(Shared):
    device: list[DeviceKernel] = field(default_factory=list)
    host_ops: set[str] = field(default_factory=set)


def _has_half(node: Node) -> bool:
    return any((t := tensor_of(v.type)) is not None and t.dtype == float16
               for v in (*node.inputs, node.out))


class CudaLowerer(Lowerer):
    """One graph to one host driver; the kernels it launches go to ``shared.device``."""

    shared: CudaShared

    # --- what runs where ----------------------------------------------------------------

    def lowering(self, node_or_op: Any) -> Elementwise:
        """The numba target's elementwise record (its compute dtype and kept operands are
        the python target's too)."""
        op = node_or_op.op if isinstance(node_or_op, Node) else node_or_op
        lowering = op.lowering["numba"]
        assert isinstance(lowering, Elementwise)
        return lowering

    def kernel_template(self, node: Node) -> Expr | None:
        """The expression of an elementwise node a kernel can compute, else None."""
        lowering = node.op.lowering["numba"]
        if not isinstance(lowering, Elementwise) or not isinstance(node.out.type, TensorType) \
                or _has_half(node):
            return None
        for v in node.inputs:
            if tensor_of(v.type) is None and not (isinstance(v, Const) and
                                                  isinstance(v.type, ScalarType)):
                return None  # a scalar computed at run time, a tuple: host code
        return device_template(node.op, lowering, node.attr,
                               self.compute_dtype(node, lowering))

    def expr(self, node: Node, operands: list[Expr], scalar: bool) -> Expr:
        """Kernel code (``scalar``) or the python target's array code (on the host)."""
        if not scalar:
            return super().expr(node, operands, scalar)
        template = self.kernel_template(node)
        assert template is not None
        return substitute(template, operands)

    def node(self, node: Node) -> None:
        if self.kernel_template(node) is not None:
            if self.group and self.group[0].out.type.shape != node.out.type.shape:  # type: ignore
                self.flush()
            self.group.append(node)
            return
        python = node.op.lowering["python"]
        if not (isinstance(python, Alias) or node.op in KEEPS_GROUP) or \
                any(v is n.out for n in self.group for v in node.inputs):
            self.flush(node)
        if isinstance(python, Alias):
            self.env[node.out] = self.name_of(node.inputs[python.input])
        elif node.op is Op.If:
            self.branch(node)
        elif node.op is Op.While:
            self.loop(node)
        elif node.op is Op.MakeTuple and self.entry and self.users.get(node.out) == [None]:
            pass  # only the output uses it: ``run`` rebuilds the structure itself
        elif isinstance(python, Builtin):
            out = self.env[node.out] = self.ns.fresh("v")
            self.assign(out, self.array_expr(node), node)
        else:
            self.device_or_host(node)

    def device_or_host(self, node: Node) -> None:
        out = self.env[node.out] = self.ns.fresh("v")
        args = [self.name_of(v) for v in node.inputs]
        call = None if _has_half(node) else device_call(node, [Name(a) for a in args])
        if call is not None:
            self.assign(out, call, node)
        elif not (node.op.writes and self.write_kernel(node, args, out)):
            self.on_host(node, args, out)

    def on_host(self, node: Node, args: list[str], out: str) -> None:
        """Copy the operands to the host, run the python target's code, copy back."""
        self.shared.host_ops.add(node.op.name)
        lowering = node.op.lowering["python"]
        if isinstance(lowering, LoopNest):
            lowering = lowering.otherwise  # type: ignore[assignment]
        hosts: list[Expr] = []
        for v, a in zip(node.inputs, args):
            if isinstance(v, Var) and not isinstance(v.type, MonadType) or \
                    isinstance(v, Const) and isinstance(v.value, (np.ndarray, tuple)):
                h = self.ns.fresh("h")
                self.assign(h, Helper("_rt_cuda_host", (self.value_of(v),)))
                hosts.append(Name(h))
            else:
                hosts.append(self.value_of(v))
        if isinstance(lowering, Statements):
            lines = lowering.emit(hosts, node, out)
            self.body += located(lines, node.loc)
            if node.op.writes:  # the host copy of the weight was written: store it back
                self.assign(out, Helper("_rt_cuda_store", (Name(args[0]), hosts[0])))
            return
        if isinstance(lowering, Elementwise):
            value = self.elementwise_array(node, hosts, lowering)
        else:
            assert isinstance(lowering, ArrayExpr), (node.op, lowering)
            value = lowering.emit(hosts, node)
        self.assign(out, Helper("_rt_cuda_dev", (value,)), node)

    # --- generated kernels --------------------------------------------------------------

    def flush(self, before: Node | None = None) -> None:
        """Emit the pending elementwise group as one kernel and its launch."""
        group, self.group = self.group, []
        if not group:
            return
        members = {n.out for n in group}
        shape = group[0].out.type.shape  # type: ignore[union-attr]
        outs = [n for n in group if any(u not in members for u in self.users.get(n.out, ()))
                or n.out in self.users.get(None, ())]
        kernel = _KernelWriter(shape)
        scalars: dict[Value, tuple[Expr, DType | None]] = {}
        for n in group:
            loaded = [scalars.get(v) or kernel.load(v, self.name_of) for v in n.inputs]
            for v, s in zip(n.inputs, loaded):
                scalars.setdefault(v, s)
            dt = n.out.type.dtype  # type: ignore[union-attr]
            e = Cast(dt, self.expr(n, self.operands(n, loaded, True), True))
            t = kernel.fresh("t")
            kernel.body.append(f"{t} = {render_device(e)}{loc_comment(n)}")
            scalars[n.out] = (Name(t), dt)
            if n in outs:
                out = self.env[n.out] = self.ns.fresh("v")
                self.assign(out, Helper("_rt_cuda_empty", (shape_of(shape), DTypeRef(dt))), n)
                kernel.store(out, TensorType(dt, shape), t)
        self.launch(kernel, group[0])

    def write_kernel(self, node: Node, args: list[str], out: str) -> bool:
        """Assign/AssignAdd/AssignSub of a tensor (not float16) as a kernel writing the
        weight in place; False when the host must do it."""
        ref, value = node.inputs[0], node.inputs[1]
        t, vt = tensor_of(ref.type), tensor_of(value.type)
        if t is None or vt is None or _has_half(node) or not isinstance(value, Var):
            return False
        kernel = _KernelWriter(t.shape)
        new, _ = kernel.load(value, self.name_of)
        if node.op.update is not None:
            old, _ = kernel.load(ref, self.name_of)
            new = substitute(self.lowering(node.op.update).expr, [old, new])
        kernel.store(args[0], t, render_device(Cast(t.dtype, new)))
        self.launch(kernel, node)
        self.assign(out, Name(args[0]))
        return True

    def launch(self, kernel: _KernelWriter, node: Node) -> None:
        name = f"_kernel{len(self.shared.device)}"
        self.shared.device.append(kernel.finish(name))
        size = int(np.prod(kernel.shape))
        if size:
            config = (Helper("_rt_cuda_blocks", (Lit(size),)), Name("_rt_cuda_THREADS"))
            self.body.append(Eval(Launch(name, config, tuple(Name(a) for a in kernel.args)),
                                  loc=node.loc))

    # --- the host driver's own code -----------------------------------------------------

    def arena_params(self) -> list[str]:
        """The entry takes each weight on the device as an argument of its own (``run``
        takes them from the in-process weight arenas; ``forward`` keeps them resident)."""
        return [self.env[w] for w in self.graph.weights]

    def truth(self, name: str) -> Expr:
        return Helper("_rt_cuda_item", (Name(name),))

    def copied(self, e: Expr, v: Value) -> Expr:
        if isinstance(v.type, (MonadType, RefType)) or tensor_of(v.type) is None:
            return e
        return Helper("_rt_cuda_copy", (e,))

    def contiguous(self, graph: Graph, v: Value) -> Expr:
        return self.value_of(v)  # every device array the driver makes is C-contiguous

    def aliases_param(self, v: Value) -> bool:
        return False  # the driver copies every result it returns (to the host or not)


class _KernelWriter:
    """The text of one elementwise kernel over ``shape``: thread ``i`` computes the
    element at flat index ``i``, whose index along each axis is unravelled first."""

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape
        self.ns = Namespace()
        self.args: list[str] = []  # the driver's names, in parameter order
        self.params: dict[str, str] = {}  # driver name -> kernel parameter
        self.arrays: list[tuple[str, int]] = []
        self.idx = [self.ns.fresh(f"i{k}") for k in range(len(shape))]
        self.body: list[str] = []

    def fresh(self, hint: str) -> str:
        return self.ns.fresh(hint)

    def param(self, name: str, t: TensorType) -> str:
        if name not in self.params:
            self.params[name] = self.ns.fresh("p")
            self.args.append(name)
            self.arrays.append((t.dtype.np_name, t.ndim))
        return self.params[name]

    def load(self, v: Value, name_of: Any) -> tuple[Expr, DType | None]:
        """A scalar operand: a literal, or a tensor's element read at the thread's index
        (index 0 along the axes it broadcasts)."""
        if isinstance(v, Const) and isinstance(v.type, ScalarType):
            return Lit(v.value), None
        t = tensor_of(v.type)
        assert t is not None
        offset = len(self.shape) - t.ndim
        parts = ["0" if d == 1 and self.shape[offset + k] != 1 else self.idx[offset + k]
                 for k, d in enumerate(t.shape)]
        a = self.fresh("a")
        self.body.append(f"{a} = {self.param(name_of(v), t)}[{index(parts)}]")
        return Name(a), t.dtype

    def store(self, array: str, t: TensorType, scalar: str) -> None:
        self.body.append(f"{self.param(array, t)}[{index(self.idx)}] = {scalar}")

    def finish(self, name: str) -> DeviceKernel:
        flat = self.fresh("i")
        lines = [f"{flat} = cuda.grid(1)", f"if {flat} < {int(np.prod(self.shape))}:"]
        rest = flat
        for k in range(len(self.shape) - 1, -1, -1):  # the last axis varies fastest
            lines.append(f"    {self.idx[k]} = {rest} % {self.shape[k]}" if k else
                         f"    {self.idx[k]} = {rest}")
            if k:
                nxt = self.fresh("r")
                lines.append(f"    {nxt} = {rest} // {self.shape[k]}")
                rest = nxt
        lines += ["    " + line for line in self.body]
        return DeviceKernel(name, tuple(self.params[a] for a in self.args), tuple(lines),
                            tuple(self.arrays))


def lower_cuda_module(module: Module, target_name: str, header: str) -> CudaModuleSpec:
    """The render spec of ``module``: one driver per graph the entry reaches through
    ``Call`` (callees first), the entry's driver, and the kernels they launch."""
    target: Target = target_named(target_name)
    graph = module.entry_graph
    order = callees_first(graph)[:-1]  # (the graph itself comes last)
    shared = CudaShared()
    names = Namespace()
    for g in order + [graph]:
        shared.kernels[g.name] = names.fresh(g.name)
    callees = tuple(CudaLowerer(g, target, shared, entry=False).lower()[0] for g in order)
    kernel, output = CudaLowerer(graph, target, shared).lower()
    inputs = tuple((p.hint, t.dtype.np_name, t.shape) for p in graph.inputs
                   if (t := tensor_of(p.type)) is not None)
    weights = tuple(p.hint for p in graph.weights) + \
        tuple(f"__const{i}" for i in range(len(shared.arrays)))
    writes = any(n.op.writes for g in order + [graph] for n in walk(g))
    return CudaModuleSpec(target_name, header, kernel, inputs, weights, tuple(shared.arrays),
                          output, callees, device_kernels=tuple(shared.device),
                          host_ops=tuple(sorted(shared.host_ops)), writes=writes,
                          **_arenas(graph))


def _arenas(graph: Graph) -> dict[str, Any]:
    """How the in-process ``run`` receives the weights: ``arenas`` and ``slots`` as the
    host targets' lowering lays them out (``common/arena.py``)."""
    # NOTE: guarded while the weight arenas land in lower.py; drop the guard after.
    layout = getattr(host_lower, "arena_layout", None)
    if layout is None:
        return {}
    dtypes, slots = layout(graph)
    return {"arenas": dtypes,
            "slots": tuple((k, w.type.tensor.shape) for w, (k, _) in zip(graph.weights, slots))}

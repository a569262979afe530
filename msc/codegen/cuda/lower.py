"""Lowering for the cuda target: each graph becomes a host driver, a plain Python function
whose values are device arrays, around ``@cuda.jit`` kernels.

- A run of elementwise nodes over one shape (the numba target's fusion) becomes one
  generated kernel over a 1-D grid, one thread per element; its scalar code is the numba
  target's, rewritten for the device (``scalar.py``).
- Reductions, softmax, layer norm and matmuls call the block-level kernels of
  ``msc/runtime/cuda_rt.py``, as their records' ``Device`` lowerings say (the key "cuda",
  ``msc/ir/primitives/cuda_lowering.py``); writes to a weight are a kernel storing into it
  in place.
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

from msc.codegen.cuda.scalar import device_template, render_device
from msc.codegen.fusion import loc_comment
from msc.codegen import lower as host_lower
from msc.codegen.lower import KEEPS_GROUP, Lowerer, ModuleSpec, Shared, by_name, settle_needs
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
from msc.ir.primitives.base import (
    Alias,
    ArrayExpr,
    Builtin,
    Device,
    Elementwise,
    LoopNest,
    Primitive,
    Statements,
)
from msc.ir.primitives.emitting import index
from msc.ir.rewrite import callees_first, walk
from msc.ir.types import MonadType, RefType, ScalarType, TensorType, tensor_of

@dataclass(frozen=True)
class DeviceKernel:
    """A generated ``@cuda.jit`` kernel: its parameters, body lines, and the (dtype name,
    ndim) of the C-contiguous array each parameter takes (its signature, for PTX);
    ``locations``: the user's line of each body line (a ``Loc`` or None)."""

    name: str
    params: tuple[str, ...]
    lines: tuple[str, ...]
    arrays: tuple[tuple[str, int], ...]
    locations: tuple[Any, ...] = ()


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


class DeviceNodes:
    """Where the cuda target computes each node of one graph (the generic lowerer's
    ``Device`` hooks): generated kernels, device-library calls or host code; the driver's
    own code is the generic lowerer's (``lowerer``). The kernels it launches go to
    ``shared.device``."""

    def __init__(self, lowerer: Lowerer):
        self.lowerer = lowerer
        self.shared: CudaShared = lowerer.shared  # type: ignore[assignment]

    # --- what runs where ----------------------------------------------------------------

    def lowering(self, op: Primitive) -> Elementwise:
        """The numba target's elementwise record (its compute dtype and kept operands are
        the python target's too)."""
        lowering = op.lowering_for("numba")
        assert isinstance(lowering, Elementwise)
        return lowering

    def kernel_template(self, node: Node) -> Expr | None:
        """The expression of an elementwise node a kernel can compute, else None."""
        lowering = node.op.lowering_for("numba")
        if not isinstance(lowering, Elementwise) or not isinstance(node.out.type, TensorType) \
                or _has_half(node):
            return None
        for v in node.inputs:
            if tensor_of(v.type) is None and not (isinstance(v, Const) and
                                                  isinstance(v.type, ScalarType)):
                return None  # a scalar computed at run time, a tuple: host code
        return device_template(node.op, lowering, node.attr,
                               self.lowerer.compute_dtype(node, lowering))

    def node(self, node: Node) -> None:
        lw = self.lowerer
        if self.kernel_template(node) is not None:
            if lw.group and lw.group[0].out.type.shape != node.out.type.shape:  # type: ignore
                lw.flush()
            lw.group.append(node)
            return
        python = node.op.lowering_for("python")
        if not (isinstance(python, Alias) or node.op in KEEPS_GROUP) or \
                any(v is n.out for n in lw.group for v in node.inputs):
            lw.flush(node)
        if isinstance(python, Alias):
            lw.env[node.out] = lw.name_of(node.inputs[python.input])
        elif node.op is Op.If:
            lw.branch(node)
        elif node.op is Op.While:
            lw.loop(node)
        elif node.op is Op.MakeTuple and lw.entry and lw.users.get(node.out) == [None]:
            pass  # only the output uses it: ``run`` rebuilds the structure itself
        elif isinstance(python, Builtin):
            out = lw.env[node.out] = lw.ns.fresh("v")
            lw.assign(out, lw.array_expr(node), node)
        else:
            self.device_or_host(node)

    def device_or_host(self, node: Node) -> None:
        lw = self.lowerer
        out = lw.env[node.out] = lw.ns.fresh("v")
        args = [lw.name_of(v) for v in node.inputs]
        own, call = node.op.lowering_for(lw.target.lowering), None
        if isinstance(own, Device) and own.emit is not None and not _has_half(node):
            call = own.emit([Name(a) for a in args], node)
        if call is not None:
            lw.assign(out, call, node)
        elif not (node.op.writes and self.write_kernel(node, args, out)):
            self.on_host(node, args, out)

    def on_host(self, node: Node, args: list[str], out: str) -> None:
        """Copy the operands to the host, run the python target's code, copy back."""
        lw = self.lowerer
        self.shared.host_ops.add(node.op.name)
        lowering = node.op.lowering_for("python")
        if isinstance(lowering, LoopNest):
            lowering = lowering.otherwise  # type: ignore[assignment]
        hosts: list[Expr] = []
        for v, a in zip(node.inputs, args):
            if isinstance(v, Var) and not isinstance(v.type, MonadType) or \
                    isinstance(v, Const) and isinstance(v.value, (np.ndarray, tuple)):
                h = lw.ns.fresh("h")
                lw.assign(h, Helper("_rt_cuda_host", (lw.value_of(v),)))
                hosts.append(Name(h))
            else:
                hosts.append(lw.value_of(v))
        if isinstance(lowering, Statements):
            lines = lowering.emit(hosts, node, out)
            lw.body += located(lines, node.loc)
            if node.op.writes:  # the host copy of the weight was written: store it back
                lw.assign(out, Helper("_rt_cuda_store", (Name(args[0]), hosts[0])))
            return
        if isinstance(lowering, Elementwise):
            value = lw.elementwise_array(node, hosts, lowering)
        else:
            assert isinstance(lowering, ArrayExpr), (node.op, lowering)
            value = lowering.emit(hosts, node)
        lw.assign(out, Helper("_rt_cuda_dev", (value,)), node)

    # --- generated kernels --------------------------------------------------------------

    def flush(self, before: Node | None = None) -> None:
        """Emit the pending elementwise group as one kernel and its launch."""
        lw = self.lowerer
        group, lw.group = lw.group, []
        if not group:
            return
        members = {n.out for n in group}
        shape = group[0].out.type.shape  # type: ignore[union-attr]
        outs = [n for n in group if any(u not in members for u in lw.users.get(n.out, ()))
                or n.out in lw.users.get(None, ())]
        kernel = _KernelWriter(shape)
        scalars: dict[Value, tuple[Expr, DType | None]] = {}
        for n in group:
            loaded = [scalars.get(v) or kernel.load(v, lw.name_of) for v in n.inputs]
            for v, s in zip(n.inputs, loaded):
                scalars.setdefault(v, s)
            dt = n.out.type.dtype  # type: ignore[union-attr]
            template = self.kernel_template(n)
            assert template is not None
            e = Cast(dt, substitute(template, lw.operands(n, loaded, True)))
            t = kernel.fresh("t")
            kernel.body.append(f"{t} = {render_device(e)}{loc_comment(n)}")
            kernel.locations[len(kernel.body) - 1] = n.loc
            scalars[n.out] = (Name(t), dt)
            if n in outs:
                out = lw.env[n.out] = lw.ns.fresh("v")
                lw.assign(out, Helper("_rt_cuda_empty", (shape_of(shape), DTypeRef(dt))), n)
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
        new, _ = kernel.load(value, self.lowerer.name_of)
        if node.op.update is not None:
            old, _ = kernel.load(ref, self.lowerer.name_of)
            new = substitute(self.lowering(node.op.update).expr, [old, new])
        kernel.store(args[0], t, render_device(Cast(t.dtype, new)))
        self.launch(kernel, node)
        self.lowerer.assign(out, Name(args[0]))
        return True

    def launch(self, kernel: _KernelWriter, node: Node) -> None:
        name = f"_kernel{len(self.shared.device)}"
        self.shared.device.append(kernel.finish(name))
        size = int(np.prod(kernel.shape))
        if size:
            config = (Helper("_rt_cuda_blocks", (Lit(size),)), Name("_rt_cuda_THREADS"))
            args = tuple(Name(a) for a in kernel.args)
            self.lowerer.body.append(Eval(Launch(name, config, args), loc=node.loc))

    # --- the host driver's own code -----------------------------------------------------

    def arena_params(self) -> list[str]:
        """The entry takes each weight on the device as an argument of its own (``run``
        takes them from the in-process weight arenas; ``forward`` keeps them resident)."""
        return [self.lowerer.env[w] for w in self.lowerer.graph.weights]

    def truth(self, name: str) -> Expr:
        return Helper("_rt_cuda_item", (Name(name),))

    def copied(self, e: Expr, v: Value) -> Expr:
        if isinstance(v.type, (MonadType, RefType)) or tensor_of(v.type) is None:
            return e
        return Helper("_rt_cuda_copy", (e,))

    def contiguous(self, graph: Graph, v: Value) -> Expr:
        return self.lowerer.value_of(v)  # every device array the driver makes is contiguous

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
        self.locations: dict[int, Any] = {}  # the user's line of a body line

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
        locations = [None] * len(lines) + [self.locations.get(k) for k in range(len(self.body))]
        lines += ["    " + line for line in self.body]
        return DeviceKernel(name, tuple(self.params[a] for a in self.args), tuple(lines),
                            tuple(self.arrays), tuple(locations))


def lower_cuda_module(module: Module, target_name: str, header: str) -> CudaModuleSpec:
    """The render spec of ``module``: one driver per graph the entry reaches through
    ``Call`` (callees first), the entry's driver, and the kernels they launch."""
    target: Target = target_named(target_name)
    graph = module.entry_graph
    order = callees_first(graph, named=by_name(module))[:-1]  # (the graph itself comes last)
    shared = CudaShared()
    names = Namespace()
    for g in order + [graph]:
        shared.kernels[g.name] = names.fresh(g.name)

    def lower_aside(g: Graph) -> None:  # (its device kernels are made again after)
        device, host_ops = list(shared.device), set(shared.host_ops)
        Lowerer(g, target, shared, entry=False, device=DeviceNodes).lower()
        shared.device, shared.host_ops = device, host_ops
    settle_needs(order, shared, lower_aside)
    callees = tuple(Lowerer(g, target, shared, entry=False, device=DeviceNodes).lower()[0]
                    for g in order)
    kernel, output = Lowerer(graph, target, shared, device=DeviceNodes).lower()
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

"""The walk from msc's optimized IR to an ONNX graph.

``Converter`` keeps what each IR value became: an ONNX tensor name, a tuple of those
(``MakeTuple``, ``Split``, the results of ``If`` and ``While``), a Python constant not yet
written (``Lit``: a weak scalar operand takes the dtype its op computes in), or the state
token (``MONAD``, which ONNX does not need). Weights and tensor constants become
initializers; ``If`` becomes ONNX ``If`` with its regions as branch graphs, ``While``
becomes ``Loop``, a ``Call`` of a shared graph is inlined. Each op's own conversion is an
entry of ``ops.CONVERTERS``; an op without one is an ``ExportError`` at the user's line.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from msc.errors import ExportError, MscError
from msc.ir import dtypes
from msc.ir.dtypes import DType
from msc.ir.nodes import Const, Graph, Node, Value, Var
from msc.ir.primitives import Op
from msc.ir.types import MonadType, PyType, ScalarType, TensorType, TupleType, Type, tensor_of

OPSET = 17


@dataclass(frozen=True)
class Lit:
    """A Python constant operand (a weak scalar, a tuple of ints, None, a string)."""

    value: Any


class _Monad:
    def __repr__(self) -> str:
        return "MONAD"


MONAD = _Monad()

#: The dtype of a Python scalar value at run time, by category (bool, int, float).
SCALAR_DTYPES = {0: dtypes.bool_, 1: dtypes.int64, 2: dtypes.float64}


def dtype_of(t: Type) -> DType:
    """The dtype an IR value of type ``t`` has in the ONNX graph."""
    if isinstance(t, ScalarType):
        return SCALAR_DTYPES[t.category]
    tensor = tensor_of(t)
    if tensor is None:
        raise TypeError(f"{t} has no tensor form")
    return tensor.dtype


def shape_of(t: Type) -> tuple[int, ...]:
    tensor = tensor_of(t)
    return () if tensor is None else tensor.shape


def elem_type(dt: DType) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt.np_name))


def leaves(t: Type) -> list[Type]:
    """The value types a (nested tuple) type flattens to; the state token has none."""
    if isinstance(t, TupleType):
        return [leaf for e in t.elems for leaf in leaves(e)]
    return [] if isinstance(t, (MonadType, PyType)) else [t]


_SMALL_INTS = {dtypes.bool_: dtypes.int32, dtypes.uint8: dtypes.int32,
               dtypes.int8: dtypes.int32, dtypes.int16: dtypes.int32}

#: ONNX op -> (the operands to widen, None for all; dtype -> the dtype to compute in).
#: The ONNX standard allows these dtypes, but onnxruntime's CPU kernels (the reference
#: runtime) lack them; int32 holds every value of the small integers and bool, and a
#: result cast back wraps or truncates as numpy's own arithmetic does.
WIDEN: dict[str, tuple[tuple[int, ...] | None, dict[DType, DType]]] = {
    **{op: (None, _SMALL_INTS) for op in (
        "Add", "Sub", "Mul", "Max", "Min", "Pow", "Neg", "Abs", "Sign", "Relu", "Less",
        "LessOrEqual", "Greater", "GreaterOrEqual", "MatMul")},
    **{op: ((0,), _SMALL_INTS) for op in (
        "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd", "ReduceSum", "ArgMax",
        "ArgMin", "CumSum")},
    "Where": ((1, 2), _SMALL_INTS),
    "IsInf": (None, {dtypes.float16: dtypes.float32}),
}


class Converter:
    """One export: the ONNX nodes and initializers made so far, and each IR value's form."""

    def __init__(self, converters: dict[Any, Callable[..., Any]],
                 reasons: dict[Any, str]) -> None:
        self.converters, self.reasons = converters, reasons
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.env: dict[Var, Any] = {}
        self.dtypes: dict[str, DType] = {}
        self._ids = itertools.count()
        self._consts: dict[tuple[Any, ...], str] = {}
        self.node: Node | None = None  # the node being converted (for errors)

    # --- names, constants, nodes ----------------------------------------------------------

    def fresh(self, stem: str) -> str:
        name = f"{stem}_{next(self._ids)}"
        return name if name not in self.dtypes else self.fresh(stem)

    def initializer(self, array: np.ndarray, stem: str = "const", name: str | None = None) -> str:
        """``array`` as an initializer (equal small constants are written once)."""
        array = np.asarray(array)
        key = None
        if name is None and array.size <= 16:
            key = (array.dtype.str, array.shape, array.tobytes())
            if key in self._consts:
                return self._consts[key]
        name = name or self.fresh(stem)
        self.initializers.append(numpy_helper.from_array(np.array(array, order="C"), name))
        self.dtypes[name] = dtypes.from_numpy(array.dtype)
        if key is not None:
            self._consts[key] = name
        return name

    def ints(self, values: Sequence[int]) -> str:
        """A 1-D int64 constant (shapes, axes, sizes)."""
        return self.initializer(np.asarray(list(values), np.int64), "ints")

    def emit(self, op_type: str, inputs: Sequence[str], dtype: DType | Sequence[DType],
             outputs: int = 1, **attrs: Any) -> Any:
        """Append an ONNX node; returns its output name (a list for ``outputs > 1``). An
        op computed in a dtype runtimes commonly lack a kernel for (see ``WIDEN``) gets
        its operands cast to a wider one first and the result cast back (exactly)."""
        widen = WIDEN.get(op_type)
        if widen is not None and isinstance(dtype, DType):
            at, wider = widen
            picks = range(len(inputs)) if at is None else at
            to = {i: wider[self.dtypes[inputs[i]]] for i in picks
                  if self.dtypes.get(inputs[i]) in wider}
            if to:
                inputs = [self.cast(n, to[i]) if i in to else n for i, n in enumerate(inputs)]
                out = self.emit_plain(op_type, inputs, [wider.get(dtype, dtype)], 1, attrs)[0]
                return self.cast(out, dtype)
        names = self.emit_plain(op_type, inputs, [dtype] * outputs if isinstance(dtype, DType)
                                else list(dtype), outputs, attrs)
        return names[0] if outputs == 1 else names

    def emit_plain(self, op_type: str, inputs: Sequence[str], kinds: list[DType],
                   outputs: int, attrs: dict[str, Any]) -> list[str]:
        names = [self.fresh(op_type.lower()) for _ in range(outputs)]
        for name, dt in zip(names, kinds):
            self.dtypes[name] = dt
        self.nodes.append(helper.make_node(op_type, list(inputs), names, **attrs))
        return names

    def cast(self, name: str, dt: DType) -> str:
        if self.dtypes.get(name) == dt:
            return name
        return self.emit("Cast", [name], dt, to=elem_type(dt))

    def reshape(self, name: str, shape: Sequence[int]) -> str:
        return self.emit("Reshape", [name, self.ints(shape)], self.dtypes[name])

    # --- operands ---------------------------------------------------------------------------

    def value(self, v: Value) -> Any:
        if isinstance(v, Var):
            return self.env[v]
        if isinstance(v, Const) and isinstance(v.value, np.ndarray):
            return self.initializer(v.value)
        return MONAD if isinstance(v.type, MonadType) else Lit(v.value)

    def tensor(self, v: Value | Any, dt: DType | None = None) -> str:
        """Operand ``v`` as an ONNX tensor name, cast to ``dt`` when given."""
        form = self.value(v) if isinstance(v, (Var, Const)) else v
        if isinstance(form, Lit):
            value = form.value
            if dt is None:
                dt = SCALAR_DTYPES[dtypes.scalar_category(value)]
            return self.initializer(np.asarray(value).astype(dt.np_name))
        if not isinstance(form, str):
            raise self.unsupported(f"an operand of type {getattr(v, 'type', form)}")
        return form if dt is None else self.cast(form, dt)

    def unsupported(self, what: str) -> ExportError:
        node = self.node
        op = node.op.name if node is not None else "?"
        text = what if what.startswith("the op") else f"{what} (op '{op}')"
        return ExportError(f"ONNX export does not support {text}",
                           node.loc if node is not None else None)

    # --- graphs -----------------------------------------------------------------------------

    def convert_nodes(self, graph: Graph) -> Any:
        """Convert ``graph``'s nodes into the current node list; returns its output's form."""
        for node in graph.nodes:
            self.node = node
            fn = self.converters.get(node.op)
            if fn is None:
                why = self.reasons.get(node.op)
                raise self.unsupported(f"the op '{node.op.name}'" + (f": {why}" if why else ""))
            try:
                self.env[node.out] = fn(self, node)
            except MscError as e:
                raise e.with_loc(node.loc)
        return self.value(graph.output)

    def outputs(self, form: Any, t: Type, names: Sequence[str] | None = None,
                stem: str = "output") -> list[onnx.ValueInfoProto]:
        """Make the flattened ``form`` the current graph's outputs, ``names`` (else fresh
        ones), each through an Identity (ONNX wants a graph's outputs made in it)."""
        forms, types = flatten(form, t), leaves(t)
        names = list(names) if names is not None else [self.fresh(stem) for _ in forms]
        infos = []
        for f, leaf, name in zip(forms, types, names):
            dt = dtype_of(leaf)
            self.nodes.append(helper.make_node("Identity", [self.tensor(f, dt)], [name]))
            self.dtypes[name] = dt
            infos.append(helper.make_tensor_value_info(name, elem_type(dt), shape_of(leaf)))
        return infos

    def subgraph(self, build: Callable[[], tuple[list[onnx.ValueInfoProto], Any, Type]],
                 name: str) -> onnx.GraphProto:
        """A branch or loop body: ``build`` converts into a fresh node list and returns
        (the body's inputs, its output form, its output type)."""
        outer, self.nodes = self.nodes, []
        try:
            inputs, form, t = build()
            outs = self.outputs(form, t, stem=f"{name}_out")
            return helper.make_graph(self.nodes, self.fresh(name), inputs, outs)
        finally:
            self.nodes = outer


def flatten(form: Any, t: Type) -> list[Any]:
    """The leaves of a value's form, in the order ``leaves(t)`` gives their types."""
    if isinstance(t, TupleType):
        if isinstance(form, Lit):
            form = tuple(Lit(v) for v in form.value)
        return [leaf for f, e in zip(form, t.elems) for leaf in flatten(f, e)]
    return [] if isinstance(t, (MonadType, PyType)) else [form]


def unflatten(names: Sequence[str], t: Type) -> Any:
    """The form of a value of type ``t`` whose leaves are ``names`` (in order)."""
    it = iter(names)

    def build(t: Type) -> Any:
        if isinstance(t, TupleType):
            return tuple(build(e) for e in t.elems)
        return MONAD if isinstance(t, (MonadType, PyType)) else next(it)
    return build(t)


# --- control flow ---------------------------------------------------------------------------


def convert_if(cx: Converter, node: Node) -> Any:
    """``If(cond, x...; then, orelse)``: each region reads ``x...`` as its parameters
    (bound to the operands' forms) and the enclosing graph's values (ONNX captures those)."""
    cond = cx.reshape(cx.tensor(node.inputs[0], dtypes.bool_), ())
    captured = [cx.value(v) for v in node.inputs[1:]]
    attr = node.attr

    def branch(region: Graph) -> Callable[[], tuple[list[Any], Any, Type]]:
        def build() -> tuple[list[Any], Any, Type]:
            cx.env.update(zip(region.params, captured))
            return [], cx.convert_nodes(region), region.output.type
        return build

    then = cx.subgraph(branch(attr["then"]), "then")
    orelse = cx.subgraph(branch(attr["orelse"]), "else")
    cx.node = node
    kinds = [dtype_of(t) for t in leaves(node.out.type)]
    names = cx.emit("If", [cond], kinds, outputs=len(kinds), then_branch=then,
                    else_branch=orelse)
    return unflatten([names] if len(kinds) == 1 else names, node.out.type)


def convert_while(cx: Converter, node: Node) -> Any:
    """``While(init...; cond, body)`` as ``Loop``: the condition is computed once before
    the loop and again at the end of each iteration, on the values the body made."""
    cond_g, body_g = node.attr["cond"], node.attr["body"]
    carried = node.out.type.elems  # type: ignore[union-attr]
    init = [cx.value(v) for v in node.inputs]
    kept = [i for i, t in enumerate(carried) if leaves(t)]
    if any(isinstance(carried[i], TupleType) for i in kept):
        raise cx.unsupported("a loop that carries a tuple")

    def condition(region: Graph, forms: Sequence[Any]) -> str:
        cx.env.update(zip(region.params, forms))
        return cx.reshape(cx.tensor(cx.convert_nodes(region), dtypes.bool_), ())

    first = condition(cond_g, init)

    def body() -> tuple[list[Any], Any, Type]:
        step, go = cx.fresh("iter"), cx.fresh("cond_in")
        names = {i: cx.fresh("carried") for i in kept}
        for i, name in names.items():
            cx.dtypes[name] = dtype_of(carried[i])
        forms = [names.get(i, MONAD) for i in range(len(carried))]
        inputs = [helper.make_tensor_value_info(step, TensorProto.INT64, []),
                  helper.make_tensor_value_info(go, TensorProto.BOOL, [])]
        inputs += [helper.make_tensor_value_info(names[i], elem_type(dtype_of(carried[i])),
                                                 shape_of(carried[i])) for i in kept]
        cx.env.update(zip(body_g.params, forms))
        new = cx.convert_nodes(body_g)
        new = list(new) if isinstance(new, tuple) else [new]
        again = condition(cond_g, new)
        out_type = TupleType((TensorType(dtypes.bool_, ()),) + tuple(carried[i] for i in kept))
        return inputs, (again, *[new[i] for i in kept]), out_type

    graph = cx.subgraph(body, "body")
    cx.node = node
    ins = ["", first] + [cx.tensor(init[i], dtype_of(carried[i])) for i in kept]
    kinds = [dtype_of(carried[i]) for i in kept]
    names = cx.emit("Loop", ins, kinds, outputs=len(kept), body=graph) if kept else []
    names = [names] if len(kept) == 1 else list(names)
    out = dict(zip(kept, names))
    return tuple(out.get(i, MONAD) for i in range(len(carried)))


def convert_call(cx: Converter, node: Node) -> Any:
    """A shared graph's body, inlined (ONNX functions would keep it apart; inlining keeps
    the file plain and lets a runtime optimise across the call)."""
    graph = node.attr["graph"]
    cx.env.update(zip(graph.params, [cx.value(v) for v in node.inputs]))
    out = cx.convert_nodes(graph)
    cx.node = node
    return out


STRUCTURAL: dict[Any, Callable[[Converter, Node], Any]] = {
    Op.If: convert_if,
    Op.While: convert_while,
    Op.Call: convert_call,
    Op.MakeTuple: lambda cx, n: tuple(cx.value(v) for v in n.inputs),
    Op.TupleGetItem: lambda cx, n: _item(cx.value(n.inputs[0]), n.attr["index"]),
}


def _item(form: Any, index: int) -> Any:
    if isinstance(form, Lit):
        return Lit(form.value[index])
    return form[index]

"""The reference interpreter: runs IR with each primitive's numpy implementation.

It is the oracle every pass and every code generator is tested against, and the
engine that runs compiled graphs until a faster target takes over.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from msc.errors import GraphTypeError, MscError
from msc.ir.nodes import Const, Graph, Module, Value, Var
from msc.ir.primitives import get
from msc.ir.primitives.base import conform
from msc.ir.types import TensorType, tensor_of


def interpret(module: Module, inputs: Sequence[Any], weights: Sequence[Any] = ()) -> Any:
    """Run ``module``'s entry graph. ``weights`` follow the graph's weight params in
    order; the result keeps the output's structure (tuples stay tuples)."""
    graph = module.entry_graph
    return run_graph(graph, tuple(inputs) + tuple(weights))


def run_graph(graph: Graph, args: Sequence[Any]) -> Any:
    if len(args) != len(graph.params):
        raise GraphTypeError(f"graph @{graph.name} takes {len(graph.params)} arguments "
                             f"({len(graph.inputs)} inputs and {len(graph.weights)} weights), "
                             f"but {len(args)} were given")
    env: dict[Var, Any] = {}
    for param, arg in zip(graph.params, args):
        env[param] = _check_arg(param, arg)
    return _run_nodes(graph, env)


def _run_nodes(graph: Graph, env: dict[Var, Any]) -> Any:
    """Run ``graph``'s nodes in ``env`` (which holds its parameters, and for a region the
    enclosing graphs' values too) and return its output."""
    for node in graph.nodes:
        values = tuple(_read(env, v) for v in node.inputs)
        attrs = dict(node.attrs)
        try:
            if node.op == "Call":
                out = run_graph(attrs["graph"], values)
            elif node.op == "If":
                region = attrs["then"] if bool(np.asarray(values[0]).item()) else attrs["orelse"]
                out = _run_nodes(region, dict(env))
            elif node.op == "While":
                out = values
                while bool(np.asarray(_run_region(attrs["cond"], env, out)).item()):
                    out = _run_region(attrs["body"], env, out)
            else:
                out = conform(get(node.op).impl(*values, **attrs), node.out.type)
        except MscError as e:
            raise e.with_loc(node.loc) from None
        env[node.out] = out
    return _read(env, graph.output)


def _run_region(region: Graph, env: dict[Var, Any], args: Sequence[Any]) -> Any:
    return _run_nodes(region, {**env, **dict(zip(region.params, args))})


def _read(env: dict[Var, Any], v: Value) -> Any:
    return v.value if isinstance(v, Const) else env[v]


def _check_arg(param: Var, arg: Any) -> Any:
    t = tensor_of(param.type)
    if t is None:
        return arg
    arr = np.asarray(arg)
    got = TensorType(t.dtype, tuple(arr.shape)) if arr.dtype == t.dtype.np else None
    if got != t:
        raise GraphTypeError(f"argument '{param.hint}' must be {t}, but got an array of "
                             f"dtype {arr.dtype} and shape {arr.shape}")
    return arr

"""Every primitive through both code generators: the numba module, the python module,
eager execution and the reference interpreter agree (allclose for floats; exact values,
dtypes and shapes for integers and bools).

Ops are grouped into one kernel per family (a function returning a tuple), because each
generated module costs a numba compile. ``CASES`` declares which primitives each case
covers; the case checks that they really are nodes of the optimized graph (so nothing
was constant-folded away), and ``test_every_primitive_has_a_codegen_case`` checks that
the declarations cover the whole primitive table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import ops
from msc.ir import dtypes
from msc.ir.nodes import Graph, Module, Node, Var, make_attrs
from msc.ir.primitives import PRIMITIVES, get, infer_type
from msc.ir.types import TensorType, TupleType
from msc.optimizer.pipeline import run_pipeline
from tests.codegen import (
    assert_same,
    build,
    check_all,
    check_module,
    compile_fn,
    ops_in,
    to_numpy,
)
from tests.codegen.cases import (
    CASES,
    COLLECTIVES,
    EFFECTS,
    RAISES,
    STRUCTURAL,
    Case,
    DenseNet,
    _np_softmax,
)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_targets_agree(case: Case, tmp_path: Any) -> None:
    inputs = case.inputs(np.random.default_rng(len(case.name)))
    expect = case.expect(*inputs) if case.expect is not None else None
    compiled, _ = check_all(case.fn, inputs, tmp_path, expect=expect)
    missing = case.ops - ops_in(compiled.module)
    assert not missing, f"{case.name} no longer reaches codegen with {sorted(missing)}"


# --- ops the frontend never emits from user code, and whole-model checks ----------------


def graph_of(name: str, params: list[Var], body: list[tuple[str, tuple[Any, ...], dict[str, Any]]],
             ) -> Module:
    """A one-graph module from (op, inputs, attrs) triples; an input that is an int n
    refers to the n-th node's result. The output is the tuple of every node's result."""
    nodes: list[Node] = []
    for op, inputs, attrs in body:
        operands = tuple(nodes[v].out if isinstance(v, int) else v for v in inputs)
        t = infer_type(PRIMITIVES[op], tuple(v.type for v in operands), attrs)
        nodes.append(Node(get(op), operands, make_attrs(attrs), Var(t)))
    out = Var(TupleType(tuple(n.out.type for n in nodes)))
    nodes.append(Node(get("MakeTuple"), tuple(n.out for n in nodes), (), out))
    return Module((Graph(name, tuple(params), tuple(nodes), out),), name)


CREATION_OPS = frozenset({"Zeros", "Ones", "Fill"})


def test_large_creation_ops_run_in_both_targets(tmp_path: Any) -> None:
    """Zeros/Ones/Fill above const_fold's size limit stay nodes and run at run time."""
    x = Var(TensorType(dtypes.float32, (300, 300)), "x")
    module = graph_of("creation", [x], [
        ("Zeros", (), {"shape": (300, 300), "dtype": dtypes.float32}),
        ("Ones", (), {"shape": (70000,), "dtype": dtypes.int32}),
        ("Fill", (), {"shape": (2, 256, 130), "dtype": dtypes.float64, "value": 2.5}),
        ("Fill", (), {"shape": (66000,), "dtype": dtypes.bool_, "value": True}),
        ("Fill", (), {"shape": (300, 300), "dtype": dtypes.int8, "value": -3}),
        ("Add", (x, 0), {}),
        ("Mul", (x, 4), {}),
    ])
    module, _ = run_pipeline(module)
    assert CREATION_OPS <= ops_in(module)
    arg = np.random.default_rng(1).uniform(-1, 1, (300, 300)).astype(np.float32)
    want = (np.zeros((300, 300), np.float32), np.ones(70000, np.int32),
            np.full((2, 256, 130), 2.5), np.ones(66000, bool), np.full((300, 300), -3, np.int8),
            arg.copy(), (arg * np.int8(-3)).astype(np.float32))
    check_module(module, [arg], tmp_path, want)


def test_gather_out_of_range_raises_index_error(tmp_path: Any) -> None:
    """Eager mode refuses an out-of-range index; so do both generated modules."""
    def take(x: Any, i: Any) -> Any:
        return ops.gather(x, i, 1)
    x, good = np.ones((2, 3), np.float32), np.array([0, -3], np.int32)
    compiled = compile_fn(take, [x, good])
    for target in ("numba", "python"):
        built = build(compiled.module, target, tmp_path)
        np.testing.assert_array_equal(built(x, good), np.ones((2, 2), np.float32))
        for bad in ([0, 3], [-4, 0]):
            with pytest.raises(IndexError):
                built(x, np.array(bad, np.int32))


def test_weights_reach_the_kernel(tmp_path: Any) -> None:
    """A Cell's Parameters are kernel arguments after the inputs, in ``compiled.weights``."""
    ms.set_seed(3)
    net = DenseNet()
    x = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)
    w1, b1, w2 = (p.asnumpy() for p in (net.fc1.weight, net.fc1.bias, net.fc2.weight))
    compiled, built = check_all(net, [x], tmp_path,
                                expect=_np_softmax(np.maximum(x @ w1.T + b1, 0) @ w2.T, -1))
    assert [p.name for p in compiled.weights] == list(built["numba"].spec.weights)


def half(x: Any, y: Any) -> Any:
    return (x + y, ops.exp(x), ops.cast(x, ms.float32), ops.cast(y, ms.float16), ops.sum(x, 1),
            ops.matmul(x, ops.transpose(x, (1, 0))))


def test_float16_runs_on_both_targets(tmp_path: Any) -> None:
    """Each target computes each float16 op in float32 and rounds it to float16, as eager
    mode does (numba on the bit patterns, see ``codegen/half.py`` and test_float16.py):
    element-wise results are bit-identical to eager's."""
    x = np.random.default_rng(4).uniform(-1, 1, (3, 4)).astype(np.float16)
    y = np.arange(12, dtype=np.int32).reshape(3, 4)
    compiled = compile_fn(half, [x, y], target="python")
    eager = to_numpy(half(ms.Tensor(x), ms.Tensor(y)))
    for target in ("python", "numba"):
        built = build(compiled.module, target, tmp_path)
        assert built.spec.target == target
        got = built(x, y)
        assert_same(got[:4], eager[:4], f"{target} target, element-wise", rtol=0, atol=0)
        assert_same(got, eager, f"{target} target", rtol=1e-3, atol=1e-3)


def test_every_primitive_has_a_codegen_case() -> None:
    covered = set().union(*(c.ops for c in CASES)) | CREATION_OPS
    missing = set(PRIMITIVES) - STRUCTURAL - EFFECTS - RAISES - COLLECTIVES - covered
    assert not missing, f"primitives without a code generation test: {sorted(missing)}"
    assert covered <= set(PRIMITIVES), sorted(covered - set(PRIMITIVES))

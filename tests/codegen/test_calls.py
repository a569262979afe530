"""Shared graphs in generated code: one kernel per graph the entry calls, every call
site passing its own weights (and the constants the callee needs)."""

from __future__ import annotations

import re

import numpy as np

from msc.ir.types import RefType, TupleType
from msc.optimizer.pipeline import run_pipeline
from tests.codegen import check_module
from tests.ir import B, mod, t

REUSABLE = frozenset({"reusable"})


def block_graph(name: str = "Block", width: int = 3):
    """relu(x @ w + b) * scale + 1, with ``scale`` a tensor constant of the block."""
    blk = B(name, ("x", t(2, width)), ("w", RefType(t(width, width))),
            ("b", RefType(t(width))), flags=REUSABLE)
    h = blk.ReLU(blk.Add(blk.MatMul(blk.params[0], blk.params[1]), blk.params[2]))
    return blk.graph(blk.Add(blk.Mul(h, np.array([1.0, 2.0, 3.0], np.float32)), 1.0))


def numpy_block(x, w, b):
    return np.maximum(x @ w + b, 0) * np.array([1.0, 2.0, 3.0], np.float32) + 1.0


def weights(rng, n):
    out = []
    for _ in range(n):
        out += [rng.standard_normal((3, 3)).astype(np.float32),
                rng.standard_normal(3).astype(np.float32)]
    return out


def test_one_kernel_per_shared_graph_called_with_each_instances_weights(tmp_path, rng):
    block = block_graph()
    m = B("main", ("x", t(2, 3)), *[(f"{k}{i}", RefType(t(3, 3) if k == "w" else t(3)))
                                    for i in range(3) for k in "wb"])
    h = m.params[0]
    for i in range(3):
        h = m.call(block, h, *m.params[1 + 2 * i: 3 + 2 * i])
    module, _ = run_pipeline(mod(m.graph(h), block))
    assert [n.op.name for n in module.entry_graph.nodes] == ["Call"] * 3  # not inlined
    x = rng.standard_normal((2, 3)).astype(np.float32)
    ws = weights(rng, 3)
    want = x
    for i in range(3):
        want = numpy_block(want, ws[2 * i], ws[2 * i + 1])
    built = check_module(module, [x], tmp_path, want, ws)
    for target in built:  # the host targets (cuda: tests/cuda)
        source = built[target].source
        # one kernel, emitted once whether or not BLAS is there, called three times
        assert len(re.findall(r"^\s*def Block\(", source, re.MULTILINE)) == 1
        assert len(re.findall(r"= Block\(", source)) == 3


def test_nested_shared_graphs_pass_constants_through(tmp_path, rng):
    """The constant lives in the inner graph; the outer one receives it to pass it on."""
    inner = block_graph("Inner")
    out = B("Outer", ("x", t(2, 3)), ("w", RefType(t(3, 3))), ("b", RefType(t(3))),
            flags=REUSABLE)
    y = out.call(inner, *out.params)
    outer = out.graph(out.MakeTuple(out.call(inner, y, out.params[1], out.params[2]), y))
    m = B("main", ("x", t(2, 3)), ("w", RefType(t(3, 3))), ("b", RefType(t(3))))
    pair = m.call(outer, *m.params)
    first = m.TupleGetItem(pair, index=0)
    module, _ = run_pipeline(mod(m.graph(m.MakeTuple(first, m.params[0])), outer, inner))
    assert isinstance(module.entry_graph.nodes[0].out.type, TupleType)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w, b = weights(rng, 1)
    y_np = numpy_block(x, w, b)
    built = check_module(module, [x], tmp_path, (numpy_block(y_np, w, b), x), [w, b])
    for target in built:
        spec = built[target].spec
        assert [k.name for k in spec.callees] == ["Inner", "Outer"]
        assert spec.callees[0].params[-1] == spec.callees[1].params[-1] == "__k0"


def test_a_shared_graph_returning_its_argument_gives_a_fresh_array(tmp_path, rng):
    same = B("Same", ("x", t(4)), flags=REUSABLE)
    ident = same.graph(same.params[0])
    m = B("main", ("x", t(4)))
    module, _ = run_pipeline(mod(m.graph(m.call(ident, m.params[0])), ident))
    x = rng.standard_normal(4).astype(np.float32)
    check_module(module, [x], tmp_path, x)  # which also checks that no result aliases x


def test_an_entry_with_calls_becomes_python_around_numba_parts(tmp_path, rng):
    """Numba compiles the parts between calls and the shared graphs, never a function
    whose size grows with the number of call sites (see codegen/split.py)."""
    from msc.codegen.split import split_entry

    block = block_graph()
    m = B("main", ("x", t(2, 3)), ("w", RefType(t(3, 3))), ("b", RefType(t(3))))
    h = m.call(block, m.Neg(m.params[0]), *m.params[1:])
    h = m.call(block, m.Exp(h), *m.params[1:])
    module, _ = run_pipeline(mod(m.graph(m.MakeTuple(m.Add(h, 1.0), h)), block))
    orchestrator = split_entry(module.entry_graph)
    assert [n.attr["graph"].name for n in orchestrator.nodes if n.op.name == "Call"] == \
        ["main_part0", "Block", "main_part2", "Block", "main_part4"]
    assert orchestrator.nodes[-1].op.name == "MakeTuple"  # the output's structure stays in Python
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w, b = weights(rng, 1)
    y = numpy_block(np.exp(numpy_block(-x, w, b)), w, b)
    built = check_module(module, [x], tmp_path, (y + 1.0, y), [w, b])
    source = built["numba"].source
    assert re.search(r"@_rt_jit\n\s*def main\(", source) is None
    assert re.search(r"@_rt_jit\n\s*def main_part0\(", source) is not None

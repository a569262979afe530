"""``If`` regions in generated code: a real ``if``/``else`` for both targets, each
branch's elementwise runs fused on their own, results never aliasing the inputs."""

from __future__ import annotations

import numpy as np
import pytest

from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ir.nodes import Graph, Node, Var, make_attrs
from msc.ir.primitives import get, infer_type
from msc.ir.types import TupleType
from msc.optimizer.pipeline import passes, run_pipeline
from tests.codegen import check_module
from tests.ir import B, mod, t


def region(name: str, build) -> Graph:
    """A region: no parameters, it reads the enclosing graph's values."""
    b = B(name)
    return b.graph(build(b))


def if_module() -> tuple:
    m = B("main", ("x", t(4)), ("c", t(dtype=dtypes.bool_)))
    x, c = m.params
    then = region("then", lambda b: b.MakeTuple(b.Add(b.Exp(x), 1.0), b.Neg(x)))
    orelse = region("orelse", lambda b: b.MakeTuple(b.Mul(x, 2.0), x))
    attrs = {"then": then, "orelse": orelse}
    out = Var(infer_type(get("If"), (c.type,), attrs))
    m.nodes.append(Node(get("If"), (c,), make_attrs(attrs), out))
    first = m.TupleGetItem(out, index=0)
    second = m.TupleGetItem(out, index=1)
    return mod(m.graph(m.MakeTuple(m.Sub(first, 1.0), second)))


@pytest.mark.parametrize("cond", [True, False])
def test_if_runs_one_branch_in_the_interpreter_and_both_targets(cond, tmp_path, rng):
    module, _ = run_pipeline(if_module(), passes=passes(if_to_select=False))
    assert [n.op.name for n in module.entry_graph.nodes].count("If") == 1
    x = rng.standard_normal(4).astype(np.float32)
    want = (np.exp(x), -x) if cond else (2 * x - 1, x)
    built = check_module(module, [x, np.array(cond)], tmp_path, want)  # also: no aliasing
    for target, b in built.items():
        assert "if c.item():" in b.source and "else:" in b.source, target


def test_branches_must_return_the_same_type():
    m = B("main", ("x", t(4)), ("c", t(dtype=dtypes.bool_)))
    then = region("then", lambda b: m.params[0])
    orelse = region("orelse", lambda b: b.Cast(m.params[0], dtype=dtypes.float64))
    with pytest.raises(GraphTypeError, match="branches return different types"):
        infer_type(get("If"), (m.params[1].type,), {"then": then, "orelse": orelse})
    with pytest.raises(GraphTypeError, match="one-element bool tensor"):
        infer_type(get("If"), (t(2, dtype=dtypes.bool_),), {"then": then, "orelse": then})
    assert isinstance(infer_type(get("If"), (t(1, dtype=dtypes.bool_),),
                                 {"then": then, "orelse": then}), type(t(4)))
    assert not isinstance(then.output.type, TupleType)


@pytest.mark.parametrize("cond", [True, False])
def test_if_to_select_computes_both_branches_and_selects(cond, tmp_path, rng):
    module, report = run_pipeline(if_module())
    ops = [n.op.name for n in module.entry_graph.nodes]
    assert "If" not in ops and ops.count("Select") == 2
    assert "if_to_select: 1 tensor if(s) became Select, 0 kept" in report.notes
    x = rng.standard_normal(4).astype(np.float32)
    want = (np.exp(x), -x) if cond else (2 * x - 1, x)
    check_module(module, [x, np.array(cond)], tmp_path, want)


@pytest.mark.parametrize("cond", [True, False])
def test_branches_returning_a_long_tuple_compile(cond, tmp_path, rng):
    """Python builds a tuple display of over 30 items as a list, and Numba wants the
    target of such a display defined once: each branch names its tuple before ``out``."""
    m = B("main", ("x", t(4)), ("c", t(dtype=dtypes.bool_)))
    x, c = m.params
    then = region("then", lambda b: b.MakeTuple(*[b.Add(x, float(k)) for k in range(33)]))
    orelse = region("orelse", lambda b: b.MakeTuple(*[b.Mul(x, float(k)) for k in range(33)]))
    attrs = {"then": then, "orelse": orelse}
    out = Var(infer_type(get("If"), (c.type,), attrs))
    m.nodes.append(Node(get("If"), (c,), make_attrs(attrs), out))
    items = [m.TupleGetItem(out, index=k) for k in (0, 5, 32)]
    module, _ = run_pipeline(mod(m.graph(m.MakeTuple(*items))),
                             passes=passes(if_to_select=False))
    v = rng.standard_normal(4).astype(np.float32)
    want = tuple(v + np.float32(k) if cond else v * np.float32(k) for k in (0, 5, 32))
    check_module(module, [v, np.array(cond)], tmp_path, want)

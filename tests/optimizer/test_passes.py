"""The optimizer passes and the pass manager: printed IR, node counts, and results
equal to the reference interpreter's on the unoptimized module."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from msc.errors import GraphValueError, InternalCompilerError, Loc
from msc.ir import dtypes
from msc.ir.interpret import interpret
from msc.ir.nodes import Const, Graph, Module, Node, Var, make_attrs
from msc.ir.primitives import PRIMITIVES, Effect, Primitive, get, register
from msc.ir.primitives.base import Attr, Builtin, on_all_targets
from msc.ir.printer import print_module
from msc.ir.rewrite import free_vars, substitute_graph, use_counts
from msc.ir.types import RefType
from msc.ir.verify import verify
from msc.optimizer.const_fold import const_fold
from msc.optimizer.cse import cse
from msc.optimizer.dce import dce
from msc.optimizer.inline import inline
from msc.optimizer.pipeline import PIPELINE, run_pipeline
from tests.ir import F32, B, mod, t

I32 = dtypes.int32
BUILTIN = on_all_targets(Builtin())


def body(module: Module) -> str:
    """The printed module without its header (the form pass docstrings show)."""
    return print_module(module, locs=False).split("\n\n", 1)[1]


def docstring_example(fn: Callable[..., Any]) -> tuple[str, str]:
    doc = inspect.getdoc(fn) or ""
    before, after = doc.split("Before::", 1)[1].split("After::", 1)
    return textwrap.dedent(before).strip() + "\n", textwrap.dedent(after).strip() + "\n"


def same_results(before: Module, after: Module, inputs: list[np.ndarray],
                 weights: tuple[np.ndarray, ...] = ()) -> None:
    want, got = interpret(before, inputs, weights), interpret(after, inputs, weights)
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


@pytest.fixture
def io_op() -> Iterator[str]:
    """A test-only effectful op: returns its input, like a print that passes it on."""
    prim = register(Primitive("TestPrint", lambda x: x, lambda x: x, BUILTIN, effect=Effect.IO))
    yield prim.name
    del PRIMITIVES[prim.name]


# --- docstring examples ----------------------------------------------------------------


def example_inline() -> Module:
    blk = B("Block", ("y", t(2)))
    block = blk.graph(blk.Neg(blk.params[0]))
    m = B("main", ("x", t(2)))
    return mod(m.graph(m.call(block, m.params[0])), block)


def example_const_fold() -> Module:
    f = B("f", ("x", t(2)))
    c = f.Add(np.array(1.0, np.float32), 2)
    return mod(f.graph(f.Mul(f.Mul(f.params[0], c), 1)))


def example_cse() -> Module:
    f = B("f", ("x", t(2)))
    return mod(f.graph(f.Add(f.Exp(f.params[0]), f.Exp(f.params[0]))))


def example_dce() -> Module:
    f = B("f", ("x", t(2)))
    out = f.Exp(f.params[0])
    f.Abs(f.Neg(f.params[0]))
    return mod(f.graph(out))


@pytest.mark.parametrize("fn, build", [(inline, example_inline), (const_fold, example_const_fold),
                                       (cse, example_cse), (dce, example_dce)])
def test_docstring_example(fn: Callable[[Module], Module], build: Callable[[], Module]) -> None:
    before_text, after_text = docstring_example(fn)
    before = build()
    assert body(before) == before_text
    after = fn(before)
    assert body(after) == after_text
    assert body(before) == before_text  # passes never mutate their input
    verify(after)
    same_results(before, after, [np.array([0.5, -2.0], np.float32)])


# --- inline ----------------------------------------------------------------------------


def test_inline_renames_every_copy() -> None:
    sub = B("Sub", ("y", t(2)))
    sub_g = sub.graph(sub.Mul(sub.Exp(sub.params[0]), 2))
    m = B("main", ("x", t(2)))
    out = m.Add(m.call(sub_g, m.params[0]), m.call(sub_g, m.params[0]))
    module = mod(m.graph(out), sub_g)
    after = inline(module)
    verify(after)  # each Var defined once: the two copies got fresh values
    assert [g.name for g in after.graphs] == ["main"]
    outs = [n.out for n in after.graphs[0].nodes]
    assert len(set(outs)) == 5 and not set(outs) & {n.out for n in sub_g.nodes}
    assert body(after) == """\
subgraph @main(%para1_x) {
  %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
  %1 = Mul(%0, 2) : <Tensor[Float32], (2)>
  %2 = Exp(%para1_x) : <Tensor[Float32], (2)>
  %3 = Mul(%2, 2) : <Tensor[Float32], (2)>
  %4 = Add(%1, %3) : <Tensor[Float32], (2)>
  Return(%4)
}
"""
    same_results(module, after, [np.array([1.0, 3.0], np.float32)])


def test_inline_keeps_reusable_calls_and_inlines_inside_them() -> None:
    leaf = B("Leaf", ("z", t(2)))
    leaf_g = leaf.graph(leaf.Neg(leaf.params[0]))
    blk = B("Block", ("y", t(2)), flags=frozenset({"reusable"}))
    block = blk.graph(blk.Exp(blk.call(leaf_g, blk.params[0])))
    m = B("main", ("x", t(2)))
    module = mod(m.graph(m.call(block, m.call(block, m.params[0]))), block, leaf_g)
    after = inline(module)
    verify(after)  # the calls point at the rewritten Block, not a stale copy
    assert [g.name for g in after.graphs] == ["main", "Block"]
    assert [n.op.name for n in after.graph("main").nodes] == ["Call", "Call"]
    assert [n.op.name for n in after.graph("Block").nodes] == ["Neg", "Exp"]
    assert all(n.attr["graph"] is after.graph("Block") for n in after.graph("main").nodes)
    same_results(module, after, [np.array([1.0, -1.0], np.float32)])


def test_inline_nested_calls_and_weights() -> None:
    inner = B("Inner", ("a", t(2)), ("w", RefType(t(2))))
    inner_g = inner.graph(inner.Mul(*inner.params))
    outer = B("Outer", ("b", t(2)), ("w", RefType(t(2))))
    outer_g = outer.graph(outer.Add(outer.call(inner_g, *outer.params), 1))
    m = B("main", ("x", t(2)), ("fc.weight", RefType(t(2))))
    module = mod(m.graph(m.call(outer_g, *m.params)), outer_g, inner_g)
    after = inline(module)
    verify(after)
    assert [n.op.name for n in after.graphs[0].nodes] == ["Mul", "Add"]
    assert after.graphs[0].nodes[0].inputs == module.graphs[0].params
    w = np.array([2.0, 3.0], np.float32)
    same_results(module, after, [np.array([1.0, 5.0], np.float32)], (w,))


# --- const_fold ------------------------------------------------------------------------


def test_folded_constants_have_mindspore_dtypes() -> None:
    f = B("f", ("x", t(2, dtype=I32)))
    a = f.Add(np.array([1, 2], np.int32), 3)          # int32 + weak int: int32
    b = f.Div(a, np.array([2, 2], np.int32))          # int division: float32
    module = mod(f.graph(f.MakeTuple(f.Mul(f.params[0], a), b)))
    after = const_fold(module)
    assert [n.op.name for n in after.graphs[0].nodes] == ["Mul", "MakeTuple"]
    folded = after.graphs[0].nodes[0].inputs[1]
    assert isinstance(folded, Const) and folded.value.dtype == np.int32
    np.testing.assert_array_equal(folded.value, np.array([4, 5], np.int32))
    quotient = after.graphs[0].nodes[1].inputs[1]
    assert isinstance(quotient, Const) and quotient.value.dtype == np.float32
    np.testing.assert_array_equal(quotient.value, np.array([2.0, 2.5], np.float32))
    same_results(module, after, [np.array([7, -1], np.int32)])


X23 = ("x", t(2, 3))
IDENTITY_CASES: dict[str, Callable[[B, Var], Var]] = {
    "x+0": lambda f, x: f.Add(x, 0),
    "0+x": lambda f, x: f.Add(np.zeros(3, np.float32), x),
    "x-0": lambda f, x: f.Sub(x, 0.0),
    "x*1": lambda f, x: f.Mul(x, np.ones((2, 3), np.float32)),
    "1*x": lambda f, x: f.Mul(True, x),
    "x/1": lambda f, x: f.Div(x, 1),
    "cast-same": lambda f, x: f.Cast(x, dtype=F32),
    "reshape-same": lambda f, x: f.Reshape(x, shape=(2, 3)),
    "transpose-identity": lambda f, x: f.Transpose(x, perm=(0, -1)),
    "squeeze-nothing": lambda f, x: f.Squeeze(x),
    "broadcast-same": lambda f, x: f.BroadcastTo(x, shape=(2, 3)),
    "flatten-2d": lambda f, x: f.Flatten(x),
    "getitem-maketuple": lambda f, x: f.TupleGetItem(f.MakeTuple(f.Exp(x), x), index=-1),
}


@pytest.mark.parametrize("case", sorted(IDENTITY_CASES))
def test_identity_rows_forward_the_operand(case: str) -> None:
    f = B("f", X23)
    x = f.params[0]
    module = mod(f.graph(f.Neg(IDENTITY_CASES[case](f, x))))
    after = dce(const_fold(module))
    assert [(n.op.name, n.inputs) for n in after.graphs[0].nodes] == [("Neg", (x,))]
    same_results(module, after, [np.array([[1, -2, 0], [-0.5, 3, 9]], np.float32)])


NOT_IDENTITY_CASES: dict[str, Callable[[B, Var], Var]] = {
    "int+0.0 is float": lambda f, x: f.Add(f.Cast(x, dtype=I32), 0.0),
    "broadcasting *1": lambda f, x: f.Mul(f.Reshape(x, shape=(6, 1)), np.ones(4, np.float32)),
    "transpose square": lambda f, x: f.Transpose(f.MatMul(x, x, transpose_b=True), perm=(1, 0)),
    "0-x": lambda f, x: f.Sub(0, x),
    "x*0": lambda f, x: f.Mul(x, 0),
    "x+1": lambda f, x: f.Add(x, 1),
    "x+[0,1,0]": lambda f, x: f.Add(x, np.array([0, 1, 0], np.float32)),
    "reshape": lambda f, x: f.Reshape(x, shape=(3, 2)),
    "cast": lambda f, x: f.Cast(x, dtype=dtypes.float16),
    "f64 + 0": lambda f, x: f.Add(x, np.zeros((), np.float64)),
}


@pytest.mark.parametrize("case", sorted(NOT_IDENTITY_CASES))
def test_non_identities_stay(case: str) -> None:
    f = B("f", X23)
    module = mod(f.graph(NOT_IDENTITY_CASES[case](f, f.params[0])))
    after = const_fold(module)
    assert body(after) == body(module)


def test_effectful_ops_are_never_evaluated(io_op: str) -> None:
    f = B("f", ("x", t(2)))
    shown = getattr(f, io_op)(np.array([1.0, 2.0], np.float32))
    module = mod(f.graph(f.Add(f.params[0], shown)))
    assert [n.op.name for n in const_fold(module).graphs[0].nodes] == [io_op, "Add"]


def test_large_results_stay_computed() -> None:
    f = B("f", ("x", t(300, 300)))
    big = f.BroadcastTo(np.array(2.0, np.float32), shape=(300, 300))
    module = mod(f.graph(f.Mul(f.params[0], big)))
    assert [n.op.name for n in const_fold(module).graphs[0].nodes] == ["BroadcastTo", "Mul"]
    folded = const_fold(module, max_elements=90_000)
    const = folded.graphs[0].nodes[0].inputs[1]
    assert isinstance(const, Const)
    np.testing.assert_array_equal(const.value, np.full((300, 300), 2.0, np.float32))


def test_const_fold_errors_are_the_primitives_errors() -> None:
    f = B("f", ("x", t(2)))
    out = Var(t(2))
    bad = Node(get("Reshape"), (Const(np.zeros(3, np.float32)),), make_attrs({"shape": (-1,)}), out)
    module = Module((Graph("f", f.params, (bad,), out),), "f")
    with pytest.raises(GraphValueError, match="must be concrete"):
        const_fold(module)


# --- cse -------------------------------------------------------------------------------


def test_cse_merges_chains_and_ignores_locations() -> None:
    f = B("f", ("x", t(2)))
    a = f.Neg(f.Exp(f.params[0], loc=Loc("m.py", 1)))
    b = f.Neg(f.Exp(f.params[0], loc=Loc("m.py", 2)))
    module = mod(f.graph(f.Sub(a, b)))
    after = cse(module)
    assert [n.op.name for n in after.graphs[0].nodes] == ["Exp", "Neg", "Sub"]
    assert after.graphs[0].nodes[0].loc == Loc("m.py", 1)
    same_results(module, after, [np.array([0.5, 1.5], np.float32)])


DISTINCT_PAIRS: dict[str, tuple[Callable[[B, Var], Var], Callable[[B, Var], Var]]] = {
    "attrs": (lambda f, x: f.Cast(x, dtype=I32), lambda f, x: f.Cast(x, dtype=dtypes.int64)),
    "shape attr": (lambda f, x: f.Reshape(x, shape=(2, 1)),
                   lambda f, x: f.Reshape(x, shape=(1, 2))),
    "values": (lambda f, x: f.Add(x, 1), lambda f, x: f.Add(x, 2)),
    "int vs float": (lambda f, x: f.Add(x, 1), lambda f, x: f.Add(x, 1.0)),
    "signed zeros": (lambda f, x: f.Mul(x, 0.0), lambda f, x: f.Mul(x, -0.0)),
    "array dtypes": (lambda f, x: f.Add(x, np.ones(2, np.int32)),
                     lambda f, x: f.Add(x, np.ones(2, np.int64))),
}


@pytest.mark.parametrize("case", sorted(DISTINCT_PAIRS))
def test_cse_keeps_different_nodes_apart(case: str) -> None:
    f = B("f", ("x", t(2)))
    first, second = DISTINCT_PAIRS[case]
    module = mod(f.graph(f.MakeTuple(first(f, f.params[0]), second(f, f.params[0]))))
    assert body(cse(module)) == body(module)


def test_cse_merges_equal_constants_built_separately() -> None:
    f = B("f", ("x", t(2)))
    a = f.Add(f.params[0], np.array([1, 2], np.int32))
    b = f.Add(f.params[0], np.array([1, 2], np.int32))
    assert len(cse(mod(f.graph(f.MakeTuple(a, b)))).graphs[0].nodes) == 2


def test_cse_never_merges_effects_and_merges_pure_calls(io_op: str) -> None:
    pure = B("Pure", ("y", t(2)), flags=frozenset({"reusable"}))
    pure_g = pure.graph(pure.Exp(pure.params[0]))
    loud = B("Loud", ("y", t(2)), flags=frozenset({"reusable"}))
    loud_g = loud.graph(getattr(loud, io_op)(loud.params[0]))
    f = B("f", ("x", t(2)))
    x = f.params[0]
    outs = [getattr(f, io_op)(x), getattr(f, io_op)(x), f.call(pure_g, x), f.call(pure_g, x),
            f.call(loud_g, x), f.call(loud_g, x)]
    module = mod(f.graph(f.MakeTuple(*outs)), pure_g, loud_g)
    after = cse(module)
    ops = [n.attr["graph"].name if n.op.name == "Call" else n.op.name for n in after.graphs[0].nodes]
    assert ops == [io_op, io_op, "Pure", "Loud", "Loud", "MakeTuple"]
    verify(after)


# --- dce -------------------------------------------------------------------------------


def test_dce_keeps_effects_and_what_they_use(io_op: str) -> None:
    loud = B("Loud", ("y", t(2)))
    loud_g = loud.graph(getattr(loud, io_op)(loud.params[0]))
    pure = B("Pure", ("y", t(2)))
    pure_g = pure.graph(pure.Exp(pure.params[0]))
    f = B("f", ("x", t(2)), ("unused", t(3)))
    x = f.params[0]
    getattr(f, io_op)(f.Exp(x))
    f.call(loud_g, x)
    f.call(pure_g, x)
    f.Neg(x)
    module = mod(f.graph(x), loud_g, pure_g)
    after = dce(module)
    ops = [n.attr["graph"].name if n.op.name == "Call" else n.op.name for n in after.graphs[0].nodes]
    assert ops == ["Exp", io_op, "Loud"]
    assert after.graphs[0].params == module.graphs[0].params  # parameters stay


def test_dce_removes_everything_unused() -> None:
    f = B("f", ("x", t(2)))
    f.Add(f.Exp(f.params[0]), 1)
    after = dce(mod(f.graph(Const(np.zeros(2, np.float32)))))
    assert after.graphs[0].nodes == ()


# --- regions ---------------------------------------------------------------------------


@pytest.fixture
def region_op() -> Iterator[str]:
    """A test-only op holding a ``body`` region (as If/While will); returns its output."""
    prim = register(Primitive("TestRegion", lambda *_, body: body.output.type,
                              lambda *_, body: None, BUILTIN, attrs=(Attr("body"),)))
    yield prim.name
    del PRIMITIVES[prim.name]


def test_passes_reach_into_regions(region_op: str) -> None:
    sub = B("Sub", ("y", t(2)))
    sub_g = sub.graph(sub.Neg(sub.params[0]))
    f = B("f", ("x", t(2)))
    x = f.params[0]
    outer_exp = f.Exp(x)
    only_in_region = f.Abs(x)
    r = B("body")
    inner = r.Add(r.Exp(x), r.Mul(only_in_region, 1))  # Exp(x) is the outer one's twin
    r.Sqrt(x)  # dead inside the region
    holder = Var(t(2))
    f.nodes.append(Node(get(region_op), (), make_attrs({"body": r.graph(r.call(sub_g, inner))}),
                        holder))
    out = f.MakeTuple(outer_exp, holder, f.Add(f.Exp(x), f.Mul(only_in_region, 1)))
    module = mod(f.graph(out), sub_g)
    after = dce(cse(const_fold(inline(module))))
    verify(after)
    assert body(after) == """\
subgraph @f(%para1_x) {
  %0 = Exp(%para1_x) : <Tensor[Float32], (2)>
  %1 = Abs(%para1_x) : <Tensor[Float32], (2)>
  %2 = TestRegion() {body=@body} : <Tensor[Float32], (2)>
    region @body() {
      %3 = Add(%0, %1) : <Tensor[Float32], (2)>
      %4 = Neg(%3) : <Tensor[Float32], (2)>
      Return(%4)
    }
  %5 = Add(%0, %1) : <Tensor[Float32], (2)>
  %6 = MakeTuple(%0, %2, %5) : <Tuple[Tensor[Float32], (2), Tensor[Float32], (2), \
Tensor[Float32], (2)]>
  Return(%6)
}
"""


def test_rewrite_helpers_see_region_uses(region_op: str) -> None:
    f = B("f", ("x", t(2)))
    x = f.params[0]
    a = f.Exp(x)
    r = B("body")
    region = r.graph(r.Add(a, a))
    holder = Var(t(2))
    f.nodes.append(Node(get(region_op), (), make_attrs({"body": region}), holder))
    g = f.graph(f.Mul(holder, x))
    assert use_counts(g) == {x: 2, a: 2, region.output: 1, holder: 1, g.output: 1}
    assert free_vars(region) == {a}
    moved = substitute_graph(g, {a: x})
    assert use_counts(moved)[x] == 4 and a not in use_counts(moved)
    assert use_counts(g)[a] == 2  # the original is untouched


# --- the pass manager ------------------------------------------------------------------


def mixed_model() -> tuple[Module, list[np.ndarray], tuple[np.ndarray, ...]]:
    """A block called twice (inlined), constants, duplicates and dead code."""
    blk = B("Block", ("h", t(2, 3)), ("w", RefType(t(2, 3))))
    h, w = blk.params
    scale = blk.Mul(np.array(2.0, np.float32), 1.5)
    blk.Neg(h)
    block = blk.graph(blk.Add(blk.Mul(blk.Mul(h, scale), w), blk.Exp(h)))
    m = B("Net_construct", ("x", t(2, 3)), ("fc.weight", RefType(t(2, 3))))
    x, weight = m.params
    a = m.call(block, x, weight)
    b = m.call(block, x, weight)
    out = m.TupleGetItem(m.MakeTuple(m.Mul(a, b), m.Reshape(a, shape=(2, 3))), index=0)
    inputs = [np.arange(6, dtype=np.float32).reshape(2, 3) / 4]
    return mod(m.graph(out), block), inputs, (np.full((2, 3), 1.5, np.float32),)


def test_pipeline_order_and_report() -> None:
    assert [name for name, _ in PIPELINE] == ["inline", "const_fold", "if_to_select", "cse",
                                              "sink_slices", "dce", "load_elim"]
    module, inputs, weights = mixed_model()
    before_text = print_module(module)
    after, report = run_pipeline(module, parse_seconds=0.25)
    assert print_module(module) == before_text
    rows = [(s.name, s.nodes_before, s.nodes_after) for s in report.stats]
    assert rows == [("parse", None, 12), ("inline", 12, 16), ("const_fold", 16, 12),
                    ("if_to_select", 12, 12), ("cse", 12, 7), ("sink_slices", 7, 7),
                    ("dce", 7, 5), ("load_elim", 5, 5)]
    assert [n.op.name for n in after.graphs[0].nodes] == ["Mul", "Mul", "Exp", "Add", "Mul"]
    assert report.stats[0].seconds == 0.25 and all(s.seconds >= 0 for s in report.stats)
    table = report.format().splitlines()
    assert table[0].split() == ["pass", "nodes", "before", "nodes", "after", "ms"]
    assert table[1].split()[:3] == ["parse", "-", "12"]
    assert table[5].split()[:3] == ["cse", "12", "7"]
    assert table[-1].startswith("total")  # no notes: there was no tensor if
    same_results(module, after, inputs, weights)
    again, _ = run_pipeline(after)
    assert print_module(again) == print_module(after)  # one round is a fixed point


def test_pipeline_dumps(tmp_path: Any) -> None:
    module, _, _ = mixed_model()
    folder = tmp_path / "ir" / "dumps"
    after, _ = run_pipeline(module, dump_dir=folder)
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["00_parse.ir", "01_inline.ir", "02_const_fold.ir", "03_if_to_select.ir",
                     "04_cse.ir", "05_sink_slices.ir", "06_dce.ir", "07_load_elim.ir"]
    assert (folder / "00_parse.ir").read_text() == print_module(module)
    assert (folder / "01_inline.ir").read_text() == print_module(inline(module))
    assert (folder / "07_load_elim.ir").read_text() == print_module(after)


def test_pass_errors_name_the_pass() -> None:
    module, _, _ = mixed_model()

    def bad_value(m: Module) -> Module:
        raise GraphValueError("broken")

    def crash(m: Module) -> Module:
        return {}["missing"]  # type: ignore[no-any-return]

    with pytest.raises(GraphValueError) as info:
        run_pipeline(module, passes=(("inline", inline), ("boom", bad_value)))
    assert info.value.notes == ("during pass: boom", "passes run before it: inline")
    with pytest.raises(InternalCompilerError) as ice:
        run_pipeline(module, passes=(("crash", crash),))
    assert ice.value.message == "KeyError: 'missing'"
    assert ice.value.notes == ("during pass: crash",)
    assert ice.value.__cause__ is None and "note: during pass: crash" in str(ice.value)


def test_verification_catches_a_pass_that_breaks_the_ir(tmp_path: Any) -> None:
    module, _, _ = mixed_model()

    def drop_first_node(m: Module) -> Module:
        g = m.graphs[0]
        return m.replace_graph(Graph(g.name, g.params, g.nodes[1:], g.output, g.flags))

    with pytest.raises(InternalCompilerError) as info:
        run_pipeline(module, dump_dir=tmp_path, passes=(("drop", drop_first_node),))
    assert "the node uses %5, which @Net_construct does not define" in info.value.message
    assert ">>   %1 = Mul(%5, %0) : <Tensor[Float32], (2, 3)>" in info.value.message
    assert info.value.notes == ("while verifying the output of pass: drop",)
    assert (tmp_path / "01_drop.ir").exists()  # dumped before the check, for inspection
    run_pipeline(module, passes=(("drop", drop_first_node),), verify_each=False)

"""The graph transformer (a toy pass written with it, in regions too) and closure
conversion of regions on graphs of real models: verified, no free values left in any
region, and the interpreter (and generated code) gives the same results."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.frontend.specialize import specialize
from msc.ir.builder import Builder
from msc.ir.interpret import interpret
from msc.ir.nodes import Const, Graph, Module, Node, Value, iter_nodes
from msc.ir.primitives import Op
from msc.ir.rewrite import free_vars, regions, walk
from msc.ir.transform import Copier, Interpreter, Transformer, close_module, close_regions
from msc.ir.verify import verify
from tests.codegen import assert_same, check_module
from tests.frontend.test_control_if import Nested  # regions two deep, reading x and y
from tests.ir import B, mod, t

F = np.float32


# --- the transformer ------------------------------------------------------------------------


class _Double(Transformer):
    """``x * 2 -> x + x``."""

    def node(self, node: Node) -> Value | None:
        if node.op is Op.Mul and node.inputs[1] == Const(np.asarray(2.0, F)):
            return self.b.emit(Op.Add, node.inputs[0], node.inputs[0])
        return None


def _toy_module() -> Module:
    """``y = x * 2; if sum(y) > 0: r = (y * 2) * x else: r = y - x * 2``, returning r * 2."""
    two = np.asarray(2.0, F)
    f = B("f", ("x", t(3)))
    x = f.params[0]
    y = f.Mul(x, two)
    cond = f.Greater(f.ReduceSum(y), np.asarray(0.0, F))
    then, orelse = [], []
    tb, eb = Builder(nodes=then), Builder(nodes=orelse)
    r1 = tb.tuple(tb.mul(tb.mul(y, two), x))
    r2 = eb.tuple(eb.sub(y, eb.mul(x, two)))
    regs = {"then": Graph("then", (), tuple(then), r1),
            "orelse": Graph("orelse", (), tuple(orelse), r2)}
    r = f.If(cond, **regs)
    return mod(f.graph(f.Mul(f.TupleGetItem(r, index=0), two)))


def _ops(graph: Graph) -> list[str]:
    return [n.op.name for n in walk(graph)]


def test_a_toy_pass_rewrites_every_node_regions_included() -> None:
    before = _toy_module()
    verify(before)
    after = _Double().module(before)
    verify(after)
    assert "Mul" in _ops(before.entry_graph)
    assert _ops(after.entry_graph).count("Mul") == 1  # only the one by x, in @then
    for x in (np.array([1, 2, 3], F), np.array([-1, -2, 0.5], F)):
        np.testing.assert_array_equal(interpret(after, [x]), interpret(before, [x]))
    assert before.entry_graph.nodes[0].op is Op.Mul  # the original is untouched


def test_an_unchanged_graph_stays_the_same_object() -> None:
    m = _toy_module()
    assert Transformer().module(m).entry_graph is m.entry_graph
    g = m.entry_graph
    assert Transformer().graph(g) is g


def test_the_copier_gives_fresh_values_everywhere() -> None:
    g = _toy_module().entry_graph
    copy = Copier().graph(g)
    old = {n.out for n in walk(g)} | set(g.params)
    new = {n.out for n in walk(copy)} | set(copy.params)
    assert not old & new and len(old) == len(new)
    x = np.array([1, 2, 3], F)
    np.testing.assert_array_equal(interpret(mod(copy), [x]), interpret(mod(g), [x]))


def test_the_interpreter_hook_computes_each_node() -> None:
    """An ``Interpreter`` whose primitives count: the control flow comes from the base."""
    class Counting(Interpreter):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def primitive(self, node: Node, args: tuple[Any, ...]) -> Any:
            self.seen.append(node.op.name)
            return node.op.impl(*args, **node.attr)

    g = _toy_module().entry_graph
    run = Counting()
    run.run(g, [np.array([-1, -2, 0.5], F)])
    assert run.seen == ["Mul", "ReduceSum", "Greater", "Mul", "Sub", "MakeTuple",  # orelse
                        "TupleGetItem", "Mul"]


# --- closure conversion on real models ----------------------------------------------------------


class IfWhileIf(nn.Cell):
    """An if inside a while inside an if; the regions read x and n from outside."""

    def construct(self, x, n):
        if x.sum() > 0:
            i = 0
            s = x * 0
            while i < n:
                if s.sum() > 5:
                    s = s - x
                else:
                    s = s + x * 2
                i = i + 1
            y = s * x
        else:
            y = x - 1
        return y


class LoopReadsOuter(nn.Cell):
    """A while whose condition and body read values it does not carry."""

    def construct(self, x, n):
        limit = n * 2
        scale = x * 3
        i = 0
        s = x * 0
        while i < limit:
            s = s + scale * i
            i = i + 1
        return s, i


class Weights(nn.Cell):
    """Writes and reads of weights in an if inside a while: captured weights and states."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], F)), name="w")
        self.n = Parameter(Tensor(np.array(0, np.int32)), name="n")

    def construct(self, x, k):
        i = 0
        while i < k:
            if x.sum() > 0:
                ops.assign_add(self.n, 1)
            x = x + self.w
            i = i + 1
        return x * 2


def _inputs(rng: np.random.Generator, name: str) -> list[np.ndarray]:
    x = rng.standard_normal(2).astype(F) * 3
    if name == "Nested":
        return [x, rng.standard_normal(2).astype(F)]
    return [x, np.array(rng.integers(0, 5))]


MODELS = {c.__name__: c for c in (IfWhileIf, LoopReadsOuter, Nested, Weights)}


def _graphs(name: str, rng: np.random.Generator) -> dict[str, tuple[Module, tuple]]:
    """The model's IR as the frontend builds it and as the optimizer leaves it; weights."""
    net = MODELS[name]()
    specs = [arg_spec(a) for a in _inputs(rng, name)]
    parsed = specialize(net, specs)
    ms.set_context(if_to_select=False)  # (the optimized graph keeps its ifs)
    compiled = compile_entry(net, specs, store=None, target="python")
    weights = tuple(p.asnumpy() for p in compiled.weights)
    return {"parsed": (parsed.module, weights), "optimized": (compiled.module, weights)}


def _region_count(module: Module) -> int:
    return sum(len(regions(n)) for n in iter_nodes(module))


def _run(module: Module, inputs: list[np.ndarray], weights: tuple) -> tuple[Any, list]:
    """The result, and the weights after the run (the interpreter writes them in place)."""
    ws = [np.array(w, copy=True) for w in weights]
    return interpret(module, [np.array(a, copy=True) for a in inputs], ws), ws


@pytest.mark.parametrize("stage", ["parsed", "optimized"])
@pytest.mark.parametrize("name", MODELS)
def test_closure_conversion_leaves_no_free_values_and_the_same_results(name, stage) -> None:
    rng = np.random.default_rng(7)
    module, weights = _graphs(name, rng)[stage]
    assert any(free_vars(r) for n in iter_nodes(module) for r in regions(n))
    closed = close_module(module)
    verify(closed)
    assert _region_count(closed) == _region_count(module)
    for node in iter_nodes(closed):
        for region in regions(node):
            assert not free_vars(region), f"@{region.name} reads {free_vars(region)}"
    for _ in range(6):
        inputs = _inputs(rng, name)
        want, want_w = _run(module, inputs, weights)
        got, got_w = _run(closed, inputs, weights)
        assert_same(got, want, f"{name} on {inputs}")
        for g, w in zip(got_w, want_w):
            np.testing.assert_array_equal(g, w)
    assert close_module(closed) == closed  # nothing left to capture


def test_closed_if_regions_take_the_captured_values_as_parameters() -> None:
    module = _toy_module()
    closed = close_regions(module.entry_graph)
    node = next(n for n in closed.nodes if n.op is Op.If)
    x, y = module.entry_graph.params[0], module.entry_graph.nodes[0].out
    assert node.inputs[1:] == (y, x)  # in the order of first use
    for region in regions(node):
        assert [p.type for p in region.params] == [y.type, x.type]
        assert not free_vars(region)


@pytest.mark.parametrize("name", ["IfWhileIf", "LoopReadsOuter", "Nested"])
def test_generated_code_runs_the_closed_form(name, tmp_path) -> None:
    rng = np.random.default_rng(3)
    module, _ = _graphs(name, rng)["optimized"]
    closed = close_module(module)
    for _ in range(2):
        inputs = _inputs(rng, name)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        check_module(closed, inputs, tmp_path, interpret(module, inputs))

"""Subgraph reuse: repeated Cells compiled once, called with each instance's weights.

Results with reuse must equal results without it (and eager ones); the optimized IR
must hold one graph per distinct block and one call per instance; an instance whose
attributes differ must get its own graph (the reference tutorial's limitation 1).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.compiler import arg_spec, compile_entry
from msc.frontend.jit import cell_cache
from tests.codegen import check_module, to_numpy

ROOT = __file__.rsplit("/tests/", 1)[0]


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self, width, scale=1.0):
        super().__init__()
        self.fc = nn.Dense(width, width)
        self.norm = nn.LayerNorm((width,))
        self.scale = scale

    def construct(self, x):
        return self.norm(x + ops_relu(self.fc(x)) * self.scale)


def ops_relu(x):
    return ms.ops.relu(x)


class Stack(nn.Cell):
    def __init__(self, n, width=8, block=Block):
        super().__init__()
        self.blocks = nn.CellList([block(width) for _ in range(n)])

    def construct(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def compiled_module(net, x, reuse="lazy_inline"):
    ms.set_context(reuse=reuse)
    return compile_entry(net, [arg_spec(x)], store=None, target="python")


def calls_to(module, name):
    return sum(1 for g in module.graphs for n in g.nodes
               if n.op.name == "Call" and n.attr["graph"].name == name)


def eager(net, x):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return net(ms.Tensor(x)).asnumpy()


def check_against_inlining(net, x, shared, folder):
    """Reuse and no reuse both give the eager result (interpreter, numba and python)."""
    want = eager(net, x)
    check_module(shared.module, [x], folder, want, [p.asnumpy() for p in shared.weights])
    inlined = compiled_module(net, x, reuse="off")
    assert len(inlined.module.graphs) == 1
    check_module(inlined.module, [x], folder, want, [p.asnumpy() for p in inlined.weights])


@pytest.fixture
def x(rng):
    return rng.standard_normal((4, 8)).astype(np.float32)


@pytest.mark.parametrize("n", [1, 3, 8])
def test_n_blocks_share_one_graph_and_match_inlining(n, x, tmp_path):
    ms.set_seed(n)
    net = Stack(n)
    shared = compiled_module(net, x)
    inlined = compiled_module(net, x, reuse="off")
    assert [g.name for g in shared.module.graphs] == ["Stack_construct", "Block_construct"]
    assert [n.op.name for n in shared.module.entry_graph.nodes] == ["Call"] * n
    assert calls_to(shared.module, "Block_construct") == n
    assert [g.name for g in inlined.module.graphs] == ["Stack_construct"]
    weights = [p.asnumpy() for p in shared.weights]
    want = eager(net, x)
    check_module(shared.module, [x], tmp_path, want, weights)  # interpreter, numba, python
    check_module(inlined.module, [x], tmp_path, want, [p.asnumpy() for p in inlined.weights])


def test_an_attribute_changed_after_init_gets_its_own_graph(x, tmp_path):
    """The tutorial's limitation 1: ``self.blocks[0].x = 1`` after ``__init__``."""
    net = Stack(3)
    net.blocks[1].scale = 3.0
    c = compiled_module(net, x)
    names = [n.attr["graph"].name for n in c.module.entry_graph.nodes]
    assert names == ["Block_construct", "Block_construct_1", "Block_construct"]
    check_against_inlining(net, x, c, tmp_path)


def test_changing_an_attribute_after_compiling_recompiles(x):
    net = Stack(2)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    first = net(ms.Tensor(x)).asnumpy()
    net.blocks[1].scale = 0.5
    second = net(ms.Tensor(x)).asnumpy()
    assert cell_cache(net).compiles == 2 and not np.allclose(first, second)
    np.testing.assert_allclose(second, eager(net, x), rtol=1e-5, atol=1e-6)


class Inner(nn.Cell):
    @ms.lazy_inline
    def __init__(self, width, scale=1.0):
        super().__init__()
        self.fc = nn.Dense(width, width)
        self.scale = scale

    def construct(self, x):
        return ms.ops.tanh(self.fc(x)) * self.scale


class Outer(nn.Cell):
    @ms.lazy_inline
    def __init__(self, width):
        super().__init__()
        self.first = Inner(width)
        self.second = Inner(width)

    def construct(self, x):
        return x + self.second(self.first(x))


def test_nested_blocks_are_shared_at_every_level(x, tmp_path):
    net = Stack(3, block=Outer)
    c = compiled_module(net, x)
    assert sorted(g.name for g in c.module.graphs) == \
        ["Inner_construct", "Outer_construct", "Stack_construct"]
    assert calls_to(c.module, "Outer_construct") == 3  # from the entry
    assert calls_to(c.module, "Inner_construct") == 2  # from Outer's one graph
    check_against_inlining(net, x, c, tmp_path)


def test_an_inner_difference_splits_the_outer_graph(x, tmp_path):
    """Both outers' first inner blocks match; only the second outer's second one differs.
    The outer graphs must differ too: sharing them would run scale 1 for both."""
    net = Stack(2, block=Outer)
    net.blocks[1].second.scale = 3.0
    c = compiled_module(net, x)
    outer_names = [n.attr["graph"].name for n in c.module.entry_graph.nodes]
    assert outer_names[0] != outer_names[1]
    check_against_inlining(net, x, c, tmp_path)


class Plain(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Dense(width, width)

    def construct(self, x):
        return ms.ops.relu(self.fc(x))


def test_auto_reuse_shares_repeated_undecorated_cells(x, tmp_path):
    net = Stack(4, block=Plain)
    assert [g.name for g in compiled_module(net, x).module.graphs] == ["Stack_construct"]
    c = compiled_module(net, x, reuse="auto")
    assert calls_to(c.module, "Plain_construct") == 4
    check_module(c.module, [x], tmp_path, eager(net, x), [p.asnumpy() for p in c.weights])


class Pair(nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()

    def construct(self, x, y):
        return x * y, x - y


class UsesPair(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a, self.b = Pair(), Pair()

    def construct(self, x):
        p, q = self.a(x, x + 1)
        r, s = self.b(p, q)
        return r + s, self.a(x, 2.0)  # a constant argument: interpreted inline instead


def test_tuple_results_unpack_and_constant_arguments_fall_back_to_inlining(x, tmp_path):
    net = UsesPair()
    c = compiled_module(net, x)
    assert calls_to(c.module, "Pair_construct") == 2
    ms.set_context(mode=ms.PYNATIVE_MODE)
    check_module(c.module, [x], tmp_path, to_numpy(net(ms.Tensor(x))), [])


def test_msc_ir_shows_one_block_graph_and_msc_compile_reports_its_call_sites(tmp_path):
    ir = subprocess.run([sys.executable, "-m", "msc.cli", "ir", "examples/lazy_inline_gpt.py",
                         "GPT", "--input", "f32[8,64]", "--no-locs", "--quiet"],
                        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ir.returncode == 0, ir.stderr
    assert ir.stdout.count("subgraph @Block_construct(") == 1
    assert ir.stdout.count("= @Block_construct(") == 4
    off = subprocess.run([sys.executable, "-m", "msc.cli", "ir", "examples/lazy_inline_gpt.py",
                          "GPT", "--input", "f32[8,64]", "--quiet", "--reuse", "off"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert off.returncode == 0 and "@Block_construct" not in off.stdout
    comp = subprocess.run([sys.executable, "-m", "msc.cli", "compile",
                           "examples/lazy_inline_gpt.py", "GPT", "--input", "f32[8,64]",
                           "--target", "python", "--no-cache", "-o", str(tmp_path / "gpt")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert comp.returncode == 0, comp.stderr
    # 5 ops and a Load for each of its 6 weights
    assert "graph @Block_construct: 11 nodes, shared: called from 4 sites" in comp.stdout

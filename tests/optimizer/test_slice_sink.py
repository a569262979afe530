"""Slice sinking: a slice moves onto the operands of the op it slices where that op
computes each kept element from the matching ones, and nowhere else. Each case checks
the optimized IR (which ops now work on the kept rows only) and the results against
eager mode (which computes everything, then slices) on every host target; the
gradients of a classifier on its first token against eager mode's and numpy's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.ir.interpret import interpret
from msc.ir.printer import print_module
from msc.ir.rewrite import walk
from msc.optimizer.slice_sink import sink_slices
from tests.codegen import check_all, compile_fn
from tests.ir import B, mod, t
from tests.optimizer.test_passes import body, docstring_example


def shapes_of(compiled: Any, op: str) -> list[tuple[int, ...]]:
    """The result shapes of the optimized entry's ``op`` nodes."""
    graph = next(g for g in compiled.module.graphs if g.name == compiled.module.entry)
    return [n.out.type.shape for n in walk(graph) if n.op.name == op]


def test_docstring_example() -> None:
    m = B("f", ("x", t(2, 5, 8)), ("b", t(8)))
    x, b = m.params
    before = mod(m.graph(m.StridedSlice(m.Add(m.Exp(x), b), index=((0, 2, 1), 0, (0, 8, 1)))))
    want_before, want_after = docstring_example(sink_slices)
    assert body(before) == want_before
    after = sink_slices(before)
    assert body(after) == want_after
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((2, 5, 8)).astype(np.float32),
              rng.standard_normal(8).astype(np.float32)]
    np.testing.assert_array_equal(interpret(after, inputs), interpret(before, inputs))


class LastBlock(nn.Cell):
    """A transformer block whose output is read at one position (BERT's and ViT's
    classifiers read ``x[:, 0]``): attention over every position for that query, then
    the projection, the feed-forward layers and the norms of that position alone."""

    def __init__(self, d: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.d = heads, d
        self.qkv = nn.Dense(d, 3 * d)
        self.proj = nn.Dense(d, d)
        self.fc1, self.fc2 = nn.Dense(d, 2 * d), nn.Dense(2 * d, d)
        self.norm1, self.norm2 = nn.LayerNorm((d,)), nn.LayerNorm((d,))
        self.bmm = ops.BatchMatMul(transpose_b=True)

    def construct(self, x: Any, mask: Any) -> Any:
        b, s = x.shape[0], x.shape[1]
        qkv = self.qkv(x).reshape(b, s, 3, self.heads, self.d // self.heads)
        qkv = qkv.transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        p = ops.softmax(self.bmm(q, k) * 0.5 + mask, -1)
        ctx = ops.matmul(p, v).transpose(0, 2, 1, 3).reshape(b, s, self.d)
        h = self.norm1(x + self.proj(ctx))
        h = self.norm2(h + self.fc2(ops.gelu(self.fc1(h))))
        return h[:, 0]


def block_inputs(rng: Any) -> list[np.ndarray]:
    mask = np.where(rng.random((3, 1, 1, 6)) < 0.2, -1e4, 0.0).astype(np.float32)
    return [rng.standard_normal((3, 6, 8)).astype(np.float32), mask]


def test_a_block_read_at_one_position_computes_that_position(tmp_path: Any, rng: Any) -> None:
    net = LastBlock()
    compiled, _ = check_all(net, block_inputs(rng), tmp_path, rtol=1e-5, atol=1e-5)
    # (dense): the keys' and values' product over every position, the rest over one
    assert sorted(shapes_of(compiled, "Dense")) == sorted(
        [(3, 6, 24), (3, 1, 8), (3, 1, 16), (3, 1, 8)])
    assert shapes_of(compiled, "Softmax") == [(3, 2, 1, 6)]
    assert all(s[1] == 1 for s in shapes_of(compiled, "LayerNorm"))


class Classifier(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.block = LastBlock()
        self.head = nn.Dense(8, 3)

    def construct(self, x: Any, mask: Any, y: Any) -> Any:
        logits = self.head(self.block(x, mask))
        return ops.cross_entropy(logits, y)


def test_the_backward_of_a_sliced_block_works_on_the_kept_rows(tmp_path: Any,
                                                                rng: Any) -> None:
    """The forward is sliced before it is differentiated: the gradients of every weight
    equal eager mode's, and no product of the backward runs over all 18 rows but the
    keys' and values' (whose rows every query reads)."""
    net = Classifier()
    grad = ops.GradOperation(get_by_list=True)(net, net.trainable_params())
    x, mask = block_inputs(rng)
    y = np.array([0, 2, 1], np.int32)
    compiled = compile_fn(grad, [x, mask, y])
    products = shapes_of(compiled, "MatMul") + shapes_of(compiled, "Dense")
    full = [s for s in products if 18 in s or (len(s) == 3 and s[1] == 6)]
    assert len(full) <= 3, products  # the keys' and values' forward and weight gradient
    check_all(grad, [x, mask, y], tmp_path, rtol=1e-4, atol=1e-5)


def test_a_slice_stays_where_the_op_mixes_the_kept_rows_with_others(rng: Any) -> None:
    """softmax and LayerNorm over the sliced axis, a product's columns, a reshape that
    merges the sliced axis, a value read elsewhere too, a slice that keeps most rows."""
    def kept(fn: Any, *shapes: tuple[int, ...]) -> str:
        inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        compiled = compile_fn(fn, inputs)
        eager = fn(*[ms.Tensor(v) for v in inputs])
        got = interpret(compiled.module, inputs, [p.asnumpy() for p in compiled.weights])
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        eager if isinstance(eager, tuple) else (eager,)):
            np.testing.assert_allclose(g, w.asnumpy(), rtol=1e-6, atol=1e-6)
        return print_module(compiled.module, locs=False)

    assert "Softmax(%para1_x)" in kept(lambda x: ops.softmax(x, 1)[:, 0], (4, 6, 8))
    assert "LayerNorm(%para1_x" in kept(lambda x: ops.layer_norm(x, (6, 8))[:, 0], (4, 6, 8))
    assert "MatMul(%para1_x, %para2_w)" in kept(lambda x, w: ops.matmul(x, w)[:, 1], (6, 5),
                                                 (5, 6))
    assert "Exp(%para1_x)" in kept(lambda x: ops.exp(x).reshape(24, 8)[0], (4, 6, 8))
    assert "Exp(%para1_x)" in kept(lambda x: (ops.exp(x)[:, 0], ops.exp(x)), (4, 6, 8))
    assert "Exp(%para1_x)" in kept(lambda x: ops.exp(x)[:, 1:], (4, 6, 8))


def first(v: Any) -> Any:
    return v[0]


def last(v: Any) -> Any:
    return v[-1]


def every_other_backwards(v: Any) -> Any:
    return v[::-2]


def two(v: Any) -> Any:
    return v[1:3]


def column(v: Any) -> Any:
    return v[..., 2]


KEYS = {"0": first, "-1": last, "::-2": every_other_backwards, "1:3": two, "..., 2": column}


@pytest.mark.parametrize("key", sorted(KEYS))
def test_slices_of_broadcast_operands_and_constants(key: str, tmp_path: Any,
                                                    rng: Any) -> None:
    """The slice reaches each operand as broadcasting aligns it: a row bias keeps its
    axes, a length-1 axis stays whole, a constant is sliced at compile time; steps and
    negative entries keep their meaning."""
    table = np.arange(24, dtype=np.float32).reshape(4, 1, 6) / 7
    cut = KEYS[key]

    def fn(x: Any, bias: Any) -> Any:
        return cut(ops.tanh(x * 2.0 + bias) - ms.Tensor(table))

    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    bias = rng.standard_normal((5, 1)).astype(np.float32)
    expect = cut(np.tanh(x * 2.0 + bias) - table)
    compiled, _ = check_all(fn, [x, bias], tmp_path, expect=expect)
    assert all(s != (4, 5, 6) for s in shapes_of(compiled, "Tanh")), key

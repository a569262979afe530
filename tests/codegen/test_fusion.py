"""Elementwise fusion in the numba target: a run of elementwise ops over one shape is one
loop nest whose intermediates are scalars; a shape change or a non-elementwise op ends
the run; values used outside the run are written to arrays. Results equal eager mode.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

import msc as ms
from msc import ops
from msc.codegen import outline
from msc.codegen.lower import lower_module
from tests.codegen import assert_same, check_all, check_module, compile_fn, to_numpy

F32 = np.float32


def kernel_lines(built: Any) -> list[str]:
    return list(built["numba"].spec.kernel.lines)


def loops(lines: list[str]) -> list[str]:
    return [x for x in lines if x.lstrip().startswith("for ")]


def allocations(lines: list[str]) -> list[str]:
    return [x for x in lines if "np.empty(" in x]


def depth(line: str) -> int:
    return (len(line) - len(line.lstrip())) // 4


def chain(x: Any, y: Any, z: Any, s: Any) -> Any:
    """Eight ops over (4, 5) with operands of shapes (4, 5), (5,), (4, 1) and ()."""
    a = x * 2.0 + y
    b = ops.exp(a) - z
    c = ops.maximum(b, s) / (ops.abs(a) + 1.0)
    return ops.tanh(c) * ops.sigmoid(x)


def chain_expect(x: np.ndarray, y: np.ndarray, z: np.ndarray, s: np.ndarray) -> np.ndarray:
    a = x * F32(2) + y
    c = np.maximum(np.exp(a) - z, s) / (np.abs(a) + F32(1))
    return np.tanh(c) * (F32(1) / (F32(1) + np.exp(-x)))


def test_a_chain_is_one_loop_nest_with_scalar_intermediates(tmp_path: Any, rng: Any) -> None:
    inputs = [rng.normal(size=(4, 5)).astype(F32), rng.normal(size=5).astype(F32),
              rng.normal(size=(4, 1)).astype(F32), np.array(0.5, F32)]
    _, built = check_all(chain, inputs, tmp_path, expect=chain_expect(*inputs))
    lines = kernel_lines(built)
    assert len(loops(lines)) == 2, lines  # one loop per dim of (4, 5), nothing else
    assert len(allocations(lines)) == 1, lines  # the result; no array temporaries
    body = [x for x in lines if depth(x) == 2]
    assert len(lines) == len(body) + 5  # allocation, two loop headers, two reads outside
    # every op is a scalar statement, each operand read once per element it has: the
    # broadcast ones outside the loops they are broadcast along
    assert sum(bool(re.match(r"\s*t\w* = np\.float32\(", x)) for x in body) == 11
    reads = [(depth(x), x.split("=", 1)[1].strip()) for x in lines
             if re.match(r"\s*a\w* = ", x)]
    assert sorted(reads) == [(0, "s[()]"), (1, "z[i0, 0]"), (2, "x[i0, i1]"),
                             (2, "y[i1]")], reads
    # the python target has no loops: one numpy statement per op
    python = built["python"].spec.kernel.lines
    assert not loops(list(python)) and sum("np.asarray(" in x for x in python) == 11


def split_by_shape(x: Any, v: Any) -> Any:
    a = ops.sqrt(ops.abs(x)) + 1.0     # (3, 4)
    b = ops.exp(v) * 2.0               # (4,): reads nothing of a's loop, so waits aside
    return a * b, b - 1.0              # back to (3, 4), then (4,) again


def test_a_shape_change_sets_independent_nodes_aside(tmp_path: Any, rng: Any) -> None:
    inputs = [rng.normal(size=(3, 4)).astype(F32), rng.normal(size=4).astype(F32)]
    a = np.sqrt(np.abs(inputs[0])) + F32(1)
    b = np.exp(inputs[1]) * F32(2)
    _, built = check_all(split_by_shape, inputs, tmp_path, expect=(a * b, b - F32(1)))
    lines = kernel_lines(built)
    headers = [(depth(x), x.split(" in ")[1]) for x in loops(lines)]
    # b's loop runs first (a * b reads it), then b - 1's (set aside too), then one loop
    # computes a and a * b: a never leaves its registers
    assert headers == [(0, "range(4):"), (0, "range(4):"),
                       (0, "range(3):"), (1, "range(4):")], headers
    # b (read by two loops) and the two results; no array for a
    assert len(allocations(lines)) == 3


def reads_the_group(x: Any) -> Any:
    a = ops.sqrt(ops.abs(x)) + 1.0     # (3, 4)
    b = ops.sum(a, 0) * 2.0            # (4,) from a: a's loop ends first
    return a * b


def test_a_shape_change_reading_the_group_starts_a_new_loop_nest(tmp_path: Any,
                                                                 rng: Any) -> None:
    inputs = [rng.normal(size=(3, 4)).astype(F32)]
    a = np.sqrt(np.abs(inputs[0])) + F32(1)
    _, built = check_all(reads_the_group, inputs, tmp_path,
                         expect=a * (a.sum(0) * F32(2)), rtol=1e-5)
    headers = [(depth(x), x.split(" in ")[1]) for x in loops(kernel_lines(built))]
    assert headers[0] == (0, "range(12):"), headers  # a's loop reads x whole: merged
    assert headers[-2:] == [(0, "range(3):"), (1, "range(4):")], headers  # a * b broadcasts


def ranks(x4: Any, x2: Any, b: Any) -> Any:
    """Chains over whole arrays, a per-channel affine and a transposed (viewed) operand."""
    return (ops.relu(x4 * 2.0 + 1.0), ops.relu(x2 * 2.0 + 1.0) - 3.0, x4 * b + x4,
            ops.transpose(x2, (1, 0)) * 2.0 + 1.0)


def test_loops_merge_the_axes_every_array_indexes_alike(tmp_path: Any, rng: Any) -> None:
    """A loop nest drops axes of size 1 and merges neighbours that every array it reads
    indexes alike, through reshaped views: a chain over whole arrays is one loop at any
    rank (one kernel of the library for every rank); a per-channel operand keeps its
    axis apart; a view (here a transpose) is read as it is, its loops unmerged."""
    x4, x2 = rng.normal(size=(2, 3, 4, 5)).astype(F32), rng.normal(size=(6, 7)).astype(F32)
    b = rng.normal(size=(1, 3, 1, 1)).astype(F32)
    _, built = check_all(ranks, [x4, x2, b], tmp_path, expect=(
        np.maximum(x4 * F32(2) + F32(1), F32(0)),
        np.maximum(x2 * F32(2) + F32(1), F32(0)) - F32(3), x4 * b + x4,
        x2.T * F32(2) + F32(1)))
    lines = kernel_lines(built)
    headers = [(depth(x), x.split(" in ")[1]) for x in loops(lines)]
    # x2's chain; its transpose's; x4's two results in one nest, the channel axis apart
    assert headers == [(0, "range(42):"), (0, "range(7):"), (1, "range(6):"),
                       (0, "range(2):"), (1, "range(3):"), (2, "range(20):")], headers
    text = "\n".join(lines)
    assert "np.ascontiguousarray(b).reshape((1, 3, 1))" in text, text
    assert re.search(r"= flat\w*\[0, i\w+, 0\]$", text, re.M), text  # b, per channel
    transposed = next(x.split("=")[0].strip() for x in lines if "= x2.T " in x)
    assert re.search(rf"= {transposed}\[i\w+, i\w+\]$", text, re.M), text  # as it is


def ones(x: Any) -> Any:
    """Loops over (1, 1): every axis dropped, the arrays read as (1,) views."""
    return ops.exp(ops.broadcast_to(x.max(), (1, 1))) * 2.0 + ops.reshape(x.sum(), (1, 1))


def test_a_loop_of_size_one_axes_only(tmp_path: Any, rng: Any) -> None:
    x = rng.normal(size=(1, 3)).astype(F32)
    _, built = check_all(ones, [x], tmp_path, rtol=1e-6,
                         expect=(np.exp(x.max()) * F32(2) + x.sum()).reshape(1, 1))
    assert [x.split(" in ")[1] for x in loops(kernel_lines(built))][-1] == "range(1):"


def column_reductions(x: Any) -> Any:
    """Reductions of leading axes: a bias's gradient, its mean, a column max with NaN."""
    return ops.sum(x, 0), ops.mean(x, 0, keep_dims=True), ops.amax(x, 0)


def test_leading_axes_reduce_row_by_row(tmp_path: Any, rng: Any) -> None:
    """Rows are added into a row of float64 accumulators (memory read in order, where a
    column at a time strides through it), each column in the same order as before; a
    NaN wins a column's max."""
    x = rng.normal(size=(7, 5)).astype(F32)
    x[3, 2] = np.nan
    wide = x.astype(np.float64)
    _, built = check_all(column_reductions, [x], tmp_path, rtol=1e-6, expect=(
        wide.sum(0).astype(F32), wide.mean(0, keepdims=True).astype(F32), x.max(0)))
    text = "\n".join(kernel_lines(built))
    assert re.search(r"= np\.zeros\(\(5,\), np\.float64\)", text), text
    assert re.search(r"^( *)for (\w+) in range\(7\):\n\1    for (\w+) in range\(5\):\n"
                     r"\1        \w+\[\3\] \+= x\[\2, \3\]", text, re.M), text


def broadcast_views(x: Any, c: Any, r: Any) -> Any:
    """Explicit broadcasts read by fused loops: a (1, 3, 1) column, a broadcast of a
    broadcast from (3, 1), a row broadcast into a view also returned."""
    wide = ops.broadcast_to(c, (2, 3, 4))
    twice = ops.broadcast_to(ops.broadcast_to(r, (3, 4)), (2, 3, 4))
    return x * wide + twice, ops.relu(wide - x), twice


def test_a_fused_loop_reads_a_broadcasts_source(tmp_path: Any, rng: Any) -> None:
    """A loop reads what an explicit broadcast views, with its own broadcast indexing: no
    zero-strided view reaches the kernel (Numba compiled a kernel once for arrays and
    again for such views, read-only and of any layout)."""
    x, c, r = (rng.normal(size=(2, 3, 4)).astype(F32), rng.normal(size=(1, 3, 1)).astype(F32),
               rng.normal(size=(3, 1)).astype(F32))
    wide, twice = np.broadcast_to(c, x.shape), np.broadcast_to(r, x.shape)
    _, built = check_all(broadcast_views, [x, c, r], tmp_path,
                         expect=(x * wide + twice, np.maximum(wide - x, F32(0)), twice))
    reads = [x.split("=", 1)[1].strip() for x in kernel_lines(built)
             if re.match(r"\s*a\w* = ", x)]
    # one loop, both results; the broadcast operands read outside the innermost loop
    assert reads == ["c[0, i1, 0]", "r[i1, 0]", "x[i0, i1, i2]"], reads


def used_after(x: Any) -> Any:
    """``a`` feeds the fused ``c`` and a reduction; ``b`` feeds only ``c``."""
    a = x * 3.0
    b = a + 1.0
    c = b * a
    return c, ops.sum(a, 1)


def test_values_used_outside_the_group_are_written_out(tmp_path: Any, rng: Any) -> None:
    x = rng.normal(size=(2, 6)).astype(F32)
    a = x * F32(3)
    _, built = check_all(used_after, [x], tmp_path, expect=((a + F32(1)) * a, a.sum(1)))
    lines = kernel_lines(built)
    fused = lines[:next(i for i, x in enumerate(lines) if "np.empty((2,)" in x)]
    stores = [x.strip() for x in fused if re.match(r"\s*flat\w*\[i0\] = ", x)]  # 1 loop
    assert len(stores) == 2, fused  # a (read by the reduction) and c (the result); not b
    assert len(allocations(fused)) == 2


def scalar_chain(s: Any, t: Any) -> Any:
    return ops.log(ops.abs(s * t) + 1.0) - s


def test_a_0d_chain_has_no_loops(tmp_path: Any) -> None:
    s, t = np.array(1.5, F32), np.array(-2.0, F32)
    _, built = check_all(scalar_chain, [s, t], tmp_path,
                         expect=np.log(np.abs(s * t) + F32(1)) - s)
    lines = kernel_lines(built)
    assert not loops(lines) and len(allocations(lines)) == 1
    assert lines[-1].strip().endswith("[()] = " + lines[-2].split("=")[0].strip())


def mixed_dtypes(i: Any, x: Any) -> Any:
    """int32 -> float32 by weak typing, a comparison to bool, a select: one nest."""
    y = i * 2.5 + x
    return ops.select(y > 0, y, ops.cast(i, x.dtype)), i // 2 + 1


def test_fused_dtypes_follow_mindspore(tmp_path: Any, rng: Any) -> None:
    i = rng.integers(-5, 5, (3, 4)).astype(np.int32)
    x = rng.normal(size=(3, 4)).astype(F32)
    y = i.astype(F32) * F32(2.5) + x
    _, built = check_all(mixed_dtypes, [i, x], tmp_path,
                         expect=(np.where(y > 0, y, i.astype(F32)), i // 2 + np.int32(1)))
    lines = kernel_lines(built)
    assert len(loops(lines)) == 1 and len(allocations(lines)) == 2  # (3, 4) merged
    assert any("np.bool_(" in x for x in lines) and any("np.int32(" in x for x in lines)


def dead_operands(x: Any, w: Any) -> Any:
    """``m`` (a matmul's new array) dies in the loop nest of ``r``, ``e`` and the first
    result: ``e``, which a reduction reads after that loop, goes into ``m``'s array. ``x``
    is an input and never overwritten: ``x + 1`` gets a new array."""
    m = ops.matmul(x, w)
    r = ops.relu(m) * 2.0 + m
    e = ops.exp(r)
    return e * 3.0 - r, ops.sum(e, 1), x + 1.0


def test_a_dead_intermediate_lends_its_array_and_nothing_live_is_overwritten(
        tmp_path: Any, rng: Any) -> None:
    x, w = rng.normal(size=(4, 6)).astype(F32), rng.normal(size=(6, 6)).astype(F32)
    m = x @ w
    r = np.maximum(m, 0) * F32(2) + m
    e = np.exp(r)
    _, built = check_all(dead_operands, [x, w], tmp_path,
                         expect=(e * F32(3) - r, e.sum(1), x + F32(1)), rtol=1e-5)
    lines = kernel_lines(built)
    assert re.search(r"^\s*(\w+) = _rt_matmul\(", "\n".join(lines), re.M)
    matmul = next(x.split("=")[0].strip() for x in lines if "_rt_matmul(" in x)
    view = next(x.split("=")[0].strip() for x in lines if f"= {matmul}.reshape(" in x)
    assert any(re.match(rf"\s*{view}\[i0\] = ", x) for x in lines), lines  # e, into m's
    # ... read through the same view: two names of one array fail LLVM's alias check, and
    # the loop runs unvectorized (an exact GeLU 4.7 times slower)
    assert any(re.match(rf"\s*a\w* = {view}\[i0\]$", x) for x in lines), lines
    # new arrays: the first result, the sums and x + 1
    assert len(allocations(lines)) == 3, lines


def loop_reads_outer(x: Any) -> Any:
    """``a`` is defined outside the while loop whose body computes ``a * i``: the body runs
    again, so ``a``'s array must not take the result."""
    a = ops.exp(x)
    i = ops.reduce_sum(x) * 0.0  # a tensor: the loop stays a loop
    acc = ops.zeros_like(x)
    while i < 3:
        acc = acc + a * i
        i = i + 1
    return acc


def test_a_value_defined_outside_a_loop_keeps_its_array(tmp_path: Any, rng: Any) -> None:
    x = rng.normal(size=(3, 4)).astype(F32)
    a = np.exp(x)
    check_all(loop_reads_outer, [x], tmp_path, expect=a * F32(0) + a * F32(1) + a * F32(2))


def tanh_chains(column: Any, scalar: Any) -> Any:
    """Five chained tanh of a column broadcast along rows and of a 0-d broadcast whole."""
    a, b = ops.broadcast_to(column, (3, 4)), ops.broadcast_to(scalar, (24,))
    for _ in range(5):
        a, b = ops.tanh(a), ops.tanh(b)
    return a, b


def test_a_broadcast_operands_chain_leaves_the_loops_it_is_broadcast_along(
        tmp_path: Any, monkeypatch: Any) -> None:
    """Work on an operand broadcast along inner axes is done outside their loops (before
    all loops for a 0-d one), once per element it has. Outlined, a kernel's sizes are its
    arguments: LLVM's loop vectorizer took time exponential in the length of such a chain
    left invariant in a loop of unknown length (these did not compile in 3 minutes)."""
    monkeypatch.setattr(outline, "OUTLINE_LINES", 0)
    column, scalar = np.array([[0.5], [-1.5], [2.0]], F32), np.array(0.75, F32)
    compiled = compile_fn(tanh_chains, [column, scalar])
    want = to_numpy(tanh_chains(ms.Tensor(column), ms.Tensor(scalar)))
    expect = [np.broadcast_to(column, (3, 4)), np.broadcast_to(scalar, (24,))]
    for _ in range(5):
        expect = [np.tanh(x) for x in expect]
    assert_same(want, tuple(expect), "eager vs numpy")
    spec = lower_module(compiled.module, "numba", "test")  # (checked before Numba runs)
    kernels = [source for stem, source in spec.library_files if "_msc_k_" in stem]
    assert len(kernels) == 2, spec.library_files
    for source in kernels:
        lines = source.splitlines()
        store = max(depth(x) for x in lines if re.match(r"\s*a\d+\[.*\] = ", x))
        chain = [depth(x) for x in lines if "_rt_tanh32(" in x]
        assert len(chain) == 5 and max(chain) < store, source
    check_module(compiled.module, [column, scalar], tmp_path, want, targets=("numba",))

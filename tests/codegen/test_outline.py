"""Outlining (``msc/codegen/outline.py``): a large entry becomes a Python driver around small
Numba kernels keyed by structure. Every code-generation case agrees with eager execution
when outlined; identical kernels are one function however often the model repeats them;
no scalar crosses from one kernel to the next through Python; failures keep naming the
user's line."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.codegen import library
from msc.codegen import outline as outlining
from msc.codegen.library import without_locations
from msc.codegen.outline import outline
from msc.codegen.pyrender import render_stmts
from msc.codegen.render import render
from msc.codegen.spec import KernelSpec
from msc.compiler import arg_spec, compile_entry
from msc.errors import InternalCompilerError, Loc
from msc.ir import dtypes
from msc.ir.kernel import (
    Accumulate,
    Assign,
    BinaryOp,
    Call,
    Fn,
    Lit,
    Loop,
    Name,
    Slice,
    Stmt,
    Store,
    empty,
)
from msc.ir.types import TensorType
from tests.codegen import check_module, compile_fn, to_numpy
from tests.codegen.cases import CASES, Case


@pytest.fixture
def outline_everything(monkeypatch):
    """Every numba entry is outlined, however small."""
    monkeypatch.setattr(outlining, "OUTLINE_LINES", 0)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_outlined_numba_code_agrees_with_eager(case: Case, tmp_path, outline_everything):
    inputs = case.inputs(np.random.default_rng(len(case.name)))
    compiled = compile_fn(case.fn, inputs)
    weights = [p.asnumpy() for p in compiled.weights]
    eager = to_numpy(case.fn(*[ms.Tensor(x) for x in inputs]))
    built = check_module(compiled.module, inputs, tmp_path, eager, weights,
                         targets=("numba",))["numba"]
    if built.spec.callees:
        assert not built.spec.kernel.jit  # the entry is the driver, in plain Python


F32 = TensorType(dtypes.float32, (3,))
f32 = dtypes.float32


def kernel(*body: Stmt, returns: str = "(y, )") -> KernelSpec:
    """An entry whose kernel IR is ``body`` (its lines rendered from it, as lowering does)."""
    return KernelSpec("main", ("x",), tuple(render_stmts(body)), returns, body=body)


def at(line: int) -> Loc:
    return Loc("model.py", line)


def v(name: str) -> Name:
    return Name(name)


def test_alike_statements_become_one_kernel_called_twice():
    spec = kernel(Assign(v("y"), empty((3,), f32), loc=at(4)),
                  Loop("i", Lit(3), (Store(v("y")[v("i")], v("x")[v("i")] * Lit(2, f32)),)),
                  Assign(v("z"), empty((3,), f32), loc=at(5)),
                  Loop("j", Lit(3), (Store(v("z")[v("j")], v("y")[v("j")] * Lit(2, f32)),)),
                  returns="(z, )")
    driver, kernels = outline(spec, {"x": F32, "y": F32, "z": F32})
    assert len(kernels) == 1 and kernels[0].params == ("a0", "a1", "c0")  # (result, x, size)
    assert kernels[0].lines == ("for t0 in range(c0):",
                                "    a0[t0] = (a1[t0] * np.float32(2))")
    assert driver.jit is False and driver.returns == "(z, )"
    name = kernels[0].name
    assert driver.lines == ("y = np.empty((3,), np.float32)  # model.py:4",
                            f"{name}(y, x, 3)",
                            "z = np.empty((3,), np.float32)  # model.py:5",
                            f"{name}(z, y, 3)")


def test_the_same_loops_over_other_sizes_are_one_kernel():
    """Loop bounds, shapes, index arithmetic and floats are arguments; a lone index, an
    int argument of another call (here np.float32's) and 0 and 1 stay literals."""
    def loops(src: str, dst: str, rows: int, cols: int, half: float) -> tuple[Stmt, ...]:
        i, j = v(f"i{dst}"), v(f"j{dst}")
        value = v(src)[i * cols + j] * Lit(2, f32) + v(src)[3] * half
        inner = Loop(j.name, Lit(cols), (Store(v(dst)[i, j], value),), start=Lit(1))
        return (Assign(v(dst), empty((rows, cols), f32)), Loop(i.name, Lit(rows), (inner,)))

    types = {"x": TensorType(dtypes.float32, (24,)), "y": TensorType(dtypes.float32, (4, 6)),
             "z": TensorType(dtypes.float32, (2, 8))}
    spec = kernel(*loops("x", "y", 4, 6, 0.5), *loops("y", "z", 2, 8, 0.25), returns="(z, )")
    driver, kernels = outline(spec, types)
    assert len(kernels) == 1
    assert kernels[0].lines[1:] == ("    for t1 in range(1, c1):",
                                    "        a0[t0, t1] = ((a1[((t0 * c2) + t1)] * "
                                    "np.float32(2)) + (a1[3] * c3))")
    assert driver.lines[1].endswith("(y, x, 4, 6, 6, 0.5)")
    assert driver.lines[3].endswith("(z, y, 2, 8, 8, 0.25)")


def test_a_divisor_of_an_augmented_assignment_is_an_argument():
    """A layer norm's mean (``s /= 768``): the same kernel at another width."""
    def mean(x: str, y: str, n: int) -> tuple[Stmt, ...]:
        r, i, s = v(f"r{y}"), v(f"i{y}"), v(f"s{y}")
        row = (Assign(s, Lit(0.0)),
               Loop(i.name, Lit(n), (Accumulate(s, BinaryOp.ADD, v(x)[r, i]),)),
               Accumulate(s, BinaryOp.DIV, Lit(n)), Store(v(y)[r], s))
        return (Assign(v(y), empty((4,), dtypes.float64)), Loop(r.name, Lit(4), row))

    types = {"x": TensorType(dtypes.float32, (4, 768)), "y": TensorType(dtypes.float64, (4,)),
             "u": TensorType(dtypes.float32, (4, 512)), "v": TensorType(dtypes.float64, (4,))}
    body = mean("x", "y", 768) + mean("u", "v", 512)
    spec = KernelSpec("main", ("x", "u"), tuple(render_stmts(body)), "(y, v, )", body=body)
    driver, kernels = outline(spec, types)
    assert len(kernels) == 1 and "    t1 /= c2" in kernels[0].lines, kernels
    assert driver.lines[-1].endswith("(u, v, 4, 512, 512)")


def test_sizes_that_happen_to_be_equal_are_separate_arguments():
    """A square image and a wide one, or batch 8 of 8 channels: the same kernel (a shared
    argument for equal sizes would make the coincidence part of the kernel)."""
    def loops(rows: int, cols: int) -> tuple[Stmt, ...]:
        inner = Loop("j", Lit(cols), (Store(v("y")[v("i"), v("j")],
                                            v("x")[v("i"), v("j")] + Lit(1, f32)),))
        return (Assign(v("y"), empty((rows, cols), f32)), Loop("i", Lit(rows), (inner,)))

    names = set()
    for rows, cols in ((4, 4), (4, 6), (6, 6)):
        types = {"x": TensorType(dtypes.float32, (rows, cols)),
                 "y": TensorType(dtypes.float32, (rows, cols))}
        driver, kernels = outline(kernel(*loops(rows, cols), returns="(y, )"), types)
        assert [k.params for k in kernels] == [("a0", "a1", "c0", "c1")]
        assert driver.lines[1].endswith(f"(y, x, {rows}, {cols})")
        names.add(kernels[0].name)
    assert len(names) == 1


def test_kept_window_literals_stay_and_border_fills_run_in_the_driver():
    """``int(3)`` (a pooling window's size or stride) stays in the kernel; filling and
    copying into slices of an array are numpy's work in the driver."""
    def kept(n: int) -> Call:
        return Call(Fn.PY_INT, (Lit(n),))

    whole = Slice()
    body = (Assign(v("b"), empty((1, 2, 7, 7), f32)),
            Store(v("b")[whole, whole, Slice(Lit(6), Lit(7)), whole], -Lit(math.inf)),
            Store(v("b")[whole, whole, Slice(Lit(0), Lit(6)), Slice(Lit(0), Lit(6))], v("x")),
            Assign(v("y"), empty((1, 2, 3, 3), f32)),
            Loop("i", Lit(3), (Loop("k", kept(3), (Store(
                v("y")[0, 0, v("i"), 0], v("b")[0, 0, v("i") * kept(2) + v("k"), 0]),)),)))
    types = {"x": TensorType(dtypes.float32, (1, 2, 6, 6)),
             "b": TensorType(dtypes.float32, (1, 2, 7, 7)),
             "y": TensorType(dtypes.float32, (1, 2, 3, 3))}
    driver, kernels = outline(kernel(*body), types)
    assert driver.lines[:4] == tuple(render_stmts(body[:4]))
    assert len(kernels) == 1 and kernels[0].params == ("a0", "a1", "c0")
    assert kernels[0].lines == ("for t0 in range(c0):",
                                "    for t1 in range(int(3)):",
                                "        a0[0, 0, t0, 0] = a1[0, 0, ((t0 * int(2)) + t1), 0]")


class Products(nn.Cell):
    """Dense layers with and without a bias over 3-D input (reshaped around the product),
    a residual add and a matmul of a transposed operand."""

    def __init__(self):
        super().__init__()
        self.up = nn.Dense(6, 8)
        self.down = nn.Dense(8, 6, has_bias=False)

    def construct(self, x, m):
        h = ops.relu(self.up(x))
        return self.down(h) + x, ops.matmul(m.T, m)


def test_matrix_products_are_numpys_in_the_driver(tmp_path, outline_everything):
    """A product of views (plus a bias, which the product's call adds) is computed by
    numpy in the driver, the same BLAS the kernels call, instead of a kernel of its own:
    each cost Numba 0.3-0.5 s."""
    rng = np.random.default_rng(5)
    inputs = [rng.normal(size=(2, 3, 6)).astype(np.float32),
              rng.normal(size=(4, 5)).astype(np.float32)]
    net = Products()
    compiled = compile_fn(net, inputs)
    weights = [p.asnumpy() for p in compiled.weights]
    eager = to_numpy(net(*[ms.Tensor(x) for x in inputs]))
    p = {k: v.asnumpy() for k, v in net.parameters_dict().items()}
    h = np.maximum(inputs[0] @ p["up.weight"].T + p["up.bias"], 0)
    expect = (h @ p["down.weight"].T + inputs[0], inputs[1].T @ inputs[1])
    for got, want in zip(eager, expect):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    spec = check_module(compiled.module, inputs, tmp_path, eager, weights,
                        targets=("numba",))["numba"].spec
    driver = "\n".join(spec.kernel.lines)
    # (the bias added by the product's call, in its parts)
    assert driver.count("_rt_products(") == 3 and \
        re.search(r"\n\w+ = _rt_products\([^\n]*, None, \w+\)\.reshape", driver), driver
    assert not any("_rt_matmul" in line for k in spec.callees for line in k.lines)
    assert not any("_rt_matmul" in source for stem, source in spec.library_files
                   if not stem.startswith("_msc_rt_"))


class Heads(nn.Cell):
    """Attention's products over batch and heads: scores against a transposed operand,
    then the context, both of views into one projection's output."""

    def __init__(self):
        super().__init__()
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.context = ops.BatchMatMul()

    def construct(self, x):
        b, n, _ = x.shape
        qkv = ops.transpose(ops.reshape(x, (b, n, 3, 3, 64)), (2, 0, 3, 1, 4))
        probs = self.scores(qkv[0], qkv[1]) * 0.5
        return self.context(probs, qkv[2])


def test_attention_products_are_one_call_over_batch_and_heads(tmp_path, outline_everything,
                                                                monkeypatch):
    """The driver's two nested loops of products over batch and heads are one call over
    the stacks (a transposed operand swaps its last axes), which the runtime shares among
    threads (6 matrices of 128 x 64 x 128: enough work to share). Eager mode and numpy
    agree, and 1, 2 and 3 threads give the same bits."""
    x = np.random.default_rng(9).normal(size=(2, 128, 576)).astype(np.float32)
    net = Heads()
    compiled = compile_fn(net, [x])
    eager = to_numpy(net(ms.Tensor(x)))
    q, k, v = x.reshape(2, 128, 3, 3, 64).transpose(2, 0, 3, 1, 4).astype(np.float64)
    np.testing.assert_allclose(eager, (q @ k.swapaxes(-1, -2) * 0.5) @ v, rtol=1e-4,
                               atol=1e-4)
    # (each target's BLAS sums in its kernel's order: within the rounding of sums whose
    # terms are as large as the largest result)
    built = check_module(compiled.module, [x], tmp_path, eager, targets=("numba",),
                         atol=1e-6 * np.abs(eager).max())["numba"]
    driver = "\n".join(built.spec.kernel.lines)
    assert re.search(r"^_rt_products\(\w+\[:2, :3\], np\.swapaxes\(\w+\[:2, :3\], -1, "
                     r"-2\), \w+\[:2, :3\]\)$", driver, re.M), driver
    assert driver.count("_rt_products(") == 2 and not re.search(r"^\s*for ", driver, re.M)
    results = []
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("MSC_NUM_THREADS", threads)
        results.append(built(x.copy()))
    assert all(np.array_equal(results[0], r) for r in results[1:])


def test_a_scalar_never_crosses_from_one_kernel_to_the_next():
    """``s`` is a float32 inside Numba; through Python it would come back as a float64."""
    body = (Assign(v("s"), Lit(0, f32)),
            Loop("i", Lit(3), (Accumulate(v("s"), BinaryOp.ADD, v("x")[v("i")]),)),
            Assign(v("y"), empty((3,), f32)),
            Loop("j", Lit(3), (Store(v("y")[v("j")], v("x")[v("j")] * v("s")),)))
    scalar = {"x": F32, "y": F32, "s": TensorType(dtypes.float32, ())}
    driver, kernels = outline(kernel(*body), scalar)
    assert len(kernels) == 1 and len([x for x in kernels[0].lines if "for " in x]) == 2
    array = {**scalar, "s": F32}  # (were it an array, the loops could part)
    driver, kernels = outline(kernel(*body), array)
    assert len(kernels) == 2


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)) + x)


class Stack(nn.Cell):
    def __init__(self, depth):
        super().__init__()
        self.blocks = nn.SequentialCell([Block() for _ in range(depth)])

    def construct(self, x):
        return self.blocks(x)


def test_the_kernels_of_identical_blocks_do_not_grow_with_depth(tmp_path, outline_everything):
    x = np.random.default_rng(0).normal(size=(2, 4, 6, 6)).astype(np.float32)
    counts = {}
    for depth in (2, 5):
        net = Stack(depth)
        net.set_train(False)
        compiled = compile_fn(net, [x])
        weights = [p.asnumpy() for p in compiled.weights]
        eager = net(ms.Tensor(x)).asnumpy()
        built = check_module(compiled.module, [x], tmp_path, eager, weights,
                             targets=("numba",))["numba"]
        calls = re.findall(r"\b(_k_\w+)\(", "\n".join(built.spec.kernel.lines))
        counts[depth] = (len(built.spec.callees), len(calls))
    assert counts[5][0] == counts[2][0]  # the same kernels ...
    assert counts[5][1] > counts[2][1]  # ... called more often


def test_a_numba_failure_in_a_library_kernel_names_the_users_line(tmp_path,
                                                                 outline_everything):
    """The failing line is in a kernel file of the library, written by the module."""
    from tests.codegen.test_linemap import EXP_LINE, USER_FILE, inputs, product_plus_exp

    x, y = inputs()
    compiled = compile_entry(product_plus_exp, (arg_spec(x), arg_spec(y)), target="numba",
                             store=None)
    spec = compiled.spec
    marker = f"  # {USER_FILE}:{EXP_LINE}"
    files = dict(spec.library_files)
    stem = next(stem for stem, source in files.items() if marker in source)
    source = re.sub(rf"\n(\s*)\S.*{re.escape(marker)}\n",
                    rf"\n\1t = print(open){marker}\n", files.pop(stem), count=1)
    # a sound library file of its own: named after the hash of what it holds (a file whose
    # content does not match its name is mended from the module's copy, not compiled)
    named = "_msc_k_" + library._digest(without_locations(source))
    files[named] = source
    broken = dataclasses.replace(
        spec, library_files=tuple(files.items()),
        library=tuple((k, named if s == stem else s) for k, s in spec.library),
        library_lines=tuple((named if s == stem else s, rows) for s, rows in spec.library_lines))
    stem = named
    generated = dataclasses.replace(compiled.generated, spec=broken, source=render(broken))
    broken_compiled = dataclasses.replace(compiled, generated=generated, code=None)
    with pytest.raises(InternalCompilerError) as info:
        broken_compiled.run((x, y))
    assert info.value.loc is not None and info.value.loc.line == EXP_LINE
    assert any(f"{stem}.py" in note for note in info.value.notes)


class OneOpLoops(nn.Cell):
    """Single float ops between products (each its own loop), chains of two, and ops
    that stay a kernel: an int32 op and a cast, sharing a loop."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(7)
        self.w = ms.Parameter(ms.Tensor(rng.normal(size=(5, 5)).astype(np.float32)), name="w")
        self.bias = ms.Parameter(ms.Tensor(rng.normal(size=(5,)).astype(np.float32)),
                                 name="bias")

    def construct(self, x, n):
        a = -ops.matmul(x, self.w)
        b = ops.relu(ops.matmul(a, self.w))
        c = ops.matmul(b, self.w) + self.bias
        d = ops.matmul(c, self.w) / 3.0
        e = ops.maximum(ops.matmul(d, self.w), x)
        f = ops.matmul(e, self.w) * 2.0 - x
        g = ops.matmul(f, self.w[:, :3]) * 0.5 + self.bias[:3]  # a loop of its own shape
        return f, n * 3 + 1, ops.cast(f, ms.float64), g


def test_a_loop_of_one_float_op_is_numpys_ufunc_in_the_driver(tmp_path, outline_everything):
    """Each single float op, and a chain of two arithmetic ones, is numpy's calls into
    its result (no kernel to compile), broadcasting as the loop did; an int op and a cast
    stay a kernel (one loop: they share a shape)."""
    rng = np.random.default_rng(3)
    inputs = [rng.normal(size=(4, 5)).astype(np.float32),
              rng.integers(-9, 9, size=(4, 5)).astype(np.int32)]
    net = OneOpLoops()
    compiled = compile_fn(net, inputs)
    weights = [p.asnumpy() for p in compiled.weights]
    eager = to_numpy(net(*[ms.Tensor(x) for x in inputs]))
    x, n = inputs
    w, bias = net.w.asnumpy(), net.bias.asnumpy()
    d = (np.maximum(-(x @ w) @ w, 0) @ w + bias) @ w / np.float32(3)
    f = np.maximum(d @ w, x) @ w * np.float32(2) - x
    g = f @ w[:, :3] * np.float32(0.5) + bias[:3]
    for got, want in zip(eager, (f, n * 3 + 1, f.astype(np.float64), g)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        assert got.dtype == want.dtype
    spec = check_module(compiled.module, inputs, tmp_path, eager, weights,
                        targets=("numba",))["numba"].spec
    driver = "\n".join(spec.kernel.lines)
    for call in (r"np\.negative\(\w+, out=", r"np\.maximum\(\w+, 0, out=",
                 r"np\.add\(\w+, \w+, out=", r"np\.divide\(\w+, np\.float32\(3\.0\), out=",
                 r"np\.maximum\(\w+, \w+, out=",
                 r"np\.multiply\(\w+, np\.float32\(0\.5\), out=(\w+)\)\n"
                 r"np\.add\(\1, \w+, out=\1\)"):
        assert re.search(call, driver), call
    assert len(re.findall(r"\b_k_\w+\(", driver)) == 1
    assert re.search(r"np\.multiply\(\w+, np\.float32\(2\.0\), out=(\w+)\)\n"
                     r"np\.subtract\(\1, x, out=\1\)", driver), driver


class ConvThenMean(nn.Cell):
    """A convolution whose product covers the batch (copied into the output's order), a
    mean and a sum over the batch (float64 rows, rounded into the result)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 32, 3, pad_mode="pad", padding=1)

    def construct(self, x):
        y = ops.tanh(self.conv(x))
        return ops.reduce_mean(y, 0), ops.reduce_sum(y, 0)


def test_a_loop_nest_numpy_copies_alike_is_numpys_call_in_the_driver(tmp_path,
                                                                      outline_everything):
    """The product's copy into the output's order and a sum's rounding of its float64
    rows are numpy's calls in an outlined driver (their loops stay in a kernel)."""
    x = np.random.default_rng(4).normal(size=(2, 32, 3, 3)).astype(np.float32)
    net = ConvThenMean()
    compiled = compile_fn(net, [x])
    weights = [p.asnumpy() for p in compiled.weights]
    eager = to_numpy(net(ms.Tensor(x)))
    np.testing.assert_allclose(eager[0] * 2, eager[1], rtol=1e-6, atol=1e-6)
    spec = check_module(compiled.module, [x], tmp_path, eager, weights,
                        targets=("numba",))["numba"].spec
    driver = "\n".join(spec.kernel.lines)
    for call in (r"np\.copyto\(\w+, \w+\.reshape\(\(32, 2, 9\)\)\.transpose\(\(1, 0, 2\)\)\)",
                 r"np\.divide\(\w+\.reshape\(\(32, 3, 3\)\), 2, out=\w+, casting='unsafe'\)",
                 r"np\.copyto\(\w+, \w+\.reshape\(\(32, 3, 3\)\), casting='unsafe'\)"):
        assert re.search(call, driver), (call, driver)

"""The numba target's matrix products against numpy: the BLAS helpers of numba_rt on
every operand layout the lowering produces (transposed views, padded rows, batch slices,
doubly strided views, empty and single-row/column matrices), the loops flavour that
stands in where numpy bundles no BLAS, switched on by ``MSC_NUMBA_BLAS=0`` in a fresh
process, and convolutions lowered to im2col + gemm or to shifted products against a naive
numpy convolution.
(Which flavour a kernel's Numba cache belongs to is tested in test_runtime.py; MatMul,
BatchMatMul and Dense with every transpose are in the codegen cases of test_targets.py.)
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

from msc import ops
from msc.ir.primitives.conv import GEMM_MIN_DEPTH
from tests.codegen import check_all
from tests.codegen.cases_conv import naive_conv, naive_conv_transpose

NUMPY_DIR = pathlib.Path(np.__file__).parent
HAVE_NUMPY_BLAS = any(folder.glob("*openblas*") for folder in
                      (NUMPY_DIR.parent / "numpy.libs", NUMPY_DIR / ".dylibs"))


@pytest.fixture(scope="module")
def nb() -> Any:
    from msc.runtime import numba_rt
    return numba_rt


def strided(rng: np.random.Generator, shape: tuple[int, int], dtype: Any, how: str) -> Any:
    """A matrix of ``shape`` laid out as ``how`` says: every layout but "c" is a
    non-contiguous view, so one Numba specialisation (layout 'A') serves them all."""
    rows, cols = shape
    if how == "c":
        return rng.standard_normal(shape).astype(dtype)
    if how == "padded":  # contiguous rows, leading dimension > cols
        return rng.standard_normal((rows, cols + 3)).astype(dtype)[:, :cols]
    if how == "transposed":  # contiguous columns (a padded matrix's transpose)
        return rng.standard_normal((cols, rows + 2)).astype(dtype)[:, :rows].T
    if how == "both":  # neither rows nor columns contiguous: BLAS reads a copy
        return rng.standard_normal((2 * rows, 2 * cols + 1)).astype(dtype)[::2, :2 * cols:2]
    raise AssertionError(how)


LAYOUTS = ("c", "padded", "transposed", "both")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_into_reads_every_layout(nb: Any, dtype: Any) -> None:
    rng = np.random.default_rng(1)
    m, k, n = 5, 7, 4
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for how_a in LAYOUTS[1:]:
        for how_b in LAYOUTS[1:]:
            a = strided(rng, (m, k), dtype, how_a)
            b = strided(rng, (k, n), dtype, how_b)
            want = a.astype(np.float64) @ b.astype(np.float64)
            for how_out in LAYOUTS[1:]:  # a column-major output is filled as its transpose
                out = strided(rng, (m, n), dtype, how_out)
                out[...] = np.nan
                nb._rt_matmul_into(a, b, out, 0.0)
                np.testing.assert_allclose(out, want, rtol=rtol, atol=1e-5,
                                           err_msg=f"{how_a} @ {how_b} -> {how_out}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_into_accumulates_on_every_layout(nb: Any, dtype: Any) -> None:
    """beta 1 adds the product to what ``out`` holds (the shifted convolution's taps),
    through the buffer where ``out`` is doubly strided too; beta 0 never reads it."""
    rng = np.random.default_rng(8)
    m, k, n = 4, 6, 5
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for how_a in LAYOUTS:
        for how_out in LAYOUTS:
            a = strided(rng, (m, k), dtype, how_a)
            b = strided(rng, (k, n), dtype, "padded")
            out = strided(rng, (m, n), dtype, how_out)
            want = out.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
            nb._rt_matmul_into(a, b, out, 1.0)
            np.testing.assert_allclose(out, want, rtol=rtol, atol=1e-5,
                                       err_msg=f"{how_a} -> {how_out}")
            out[...] = np.nan
            nb._rt_matmul_into(a, b, out, 0.0)
            np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=rtol, atol=1e-5)
    out = np.ones((3, 2), dtype)  # k = 0: the product is zeros
    nb._rt_matmul_into(np.empty((3, 0), dtype), np.empty((0, 2), dtype), out, 1.0)
    assert (out == 1).all()
    nb._rt_matmul_into(np.empty((3, 0), dtype), np.empty((0, 2), dtype), out, 0.0)
    assert (out == 0).all()


def test_matmul_edge_shapes(nb: Any) -> None:
    """Empty products (k = 0 gives zeros), single rows and columns, and a batch slice
    ``out[b]`` with a transposed operand, as BatchMatMul's loop passes them."""
    rng = np.random.default_rng(2)
    for m, k, n in [(0, 3, 2), (3, 0, 2), (3, 2, 0), (1, 6, 5), (6, 5, 1), (1, 1, 1), (1, 4, 1)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        got = nb._rt_matmul(a, b)
        assert got.shape == (m, n) and got.dtype == np.float32
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    a = rng.standard_normal((3, 2, 4)).astype(np.float32)
    b = rng.standard_normal((3, 5, 4)).astype(np.float32)
    out = np.full((3, 2, 5), np.nan, np.float32)
    for i in range(3):
        nb._rt_matmul_into(a[i], b[i].T, out[i], 0.0)
    np.testing.assert_allclose(out, np.matmul(a, np.swapaxes(b, 1, 2)), rtol=1e-5)


def test_matmul_bias_adds_one_bias_per_column(nb: Any) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    w = rng.standard_normal((3, 6)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    got = nb._rt_matmul_bias(x, w.T, bias)
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.T + bias, rtol=1e-5)


@pytest.mark.skipif(not HAVE_NUMPY_BLAS, reason="this numpy bundles no OpenBLAS")
def test_the_blas_is_numpys_own_copy(nb: Any) -> None:
    """Kernels call the gemm of the very library numpy loaded (opening its file again
    gives the same copy), so numpy and kernels share one BLAS and one thread pool."""
    import ctypes

    from llvmlite import binding

    assert nb._HAVE_BLAS is True
    path = next(p for folder in (NUMPY_DIR.parent / "numpy.libs", NUMPY_DIR / ".dylibs")
                for p in sorted(folder.glob("*openblas*")))
    lib = ctypes.CDLL(str(path))
    for kind in ("s", "d"):
        symbol = next(getattr(lib, f"{prefix}cblas_{kind}gemm64_")
                      for prefix in ("scipy_", "") if hasattr(lib, f"{prefix}cblas_{kind}gemm64_"))
        want = ctypes.cast(symbol, ctypes.c_void_p).value
        assert binding.address_of_symbol(f"msc_cblas_{kind}gemm64") == want


FALLBACK = textwrap.dedent("""
    import os, sys
    os.environ["MSC_NUMBA_BLAS"] = "0"  # as on a machine whose numpy bundles no BLAS
    import numpy as np
    from msc.runtime import numba_rt as nb
    assert nb._HAVE_BLAS is False and not hasattr(nb, "_rt_gemm")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    got = nb._rt_matmul_bias(a, b.T, bias)
    want = a.astype(np.float64) @ b.T.astype(np.float64) + bias
    acc = np.ones((5, 4), np.float32)
    nb._rt_matmul_into(a, b.T, acc, 1.0)
    print(float(max(np.max(np.abs(got - want)), np.max(np.abs(acc - 1 - (want - bias))))))
""")


def test_loops_stand_in_without_the_library(tmp_path: pathlib.Path) -> None:
    proc = subprocess.run([sys.executable, "-c", FALLBACK], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.strip().splitlines()[-1]) < 1e-5


def gemm_convs(x2: Any, w2: Any, x1: Any, w1: Any, x3: Any, w3: Any) -> Any:
    """Ungrouped convolutions deep enough for im2col + gemm: padding that leaves whole
    rows outside the image, strides, dilation, 1-D and 3-D."""
    return (ops.conv2d(x2, w2, stride=(2, 1), pad_mode="pad", padding=(2, 2, 1, 0)),
            ops.conv1d(x1, w1, pad_mode="pad", padding=3, dilation=2, stride=2),
            ops.conv3d(x3, w3, stride=(1, 2, 1)))


def test_deep_convolutions_are_im2col_and_gemm(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(6)

    def normal(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    # the 1-d one has 2 x 2101 output positions: a gemm per example (up to 4096, one for all);
    # scaled down so that float32 sums in another order stay within the check's atol
    inputs = [normal(2, 8, 7, 5), normal(3, 8, 3, 3), normal(2, 16, 4200) / np.float32(8),
              normal(4, 16, 3),
              normal(1, 4, 3, 5, 4), normal(2, 4, 2, 2, 2)]
    assert min(w[0].size for w in inputs[1::2]) >= GEMM_MIN_DEPTH
    x2, w2, x1, w1, x3, w3 = inputs
    expect = (naive_conv(x2, w2, (2, 1), (1, 1), (2, 2, 1, 0)),
              naive_conv(x1, w1, (2,), (2,), (3, 3)),
              naive_conv(x3, w3, (1, 2, 1), (1, 1, 1), (0,) * 6))
    _, built = check_all(gemm_convs, inputs, tmp_path, expect=expect)
    assert built["numba"].source.count("_rt_matmul_into(wmat") == 3  # all three took gemm


def batch_or_example_convs(xd: Any, wd: Any, xw: Any, ww: Any, x3: Any, w3: Any, xs: Any,
                           ws: Any) -> Any:
    """Convolutions too narrow for shifted products: a 1x1 multiplied example by example
    straight from its input, a 1x1 and a 3x3 whose weights outweigh their outputs (one
    product over the batch), a stride-2 3x3 whose outputs outweigh its weights."""
    return (ops.conv2d(xd, wd), ops.conv2d(xw, ww),
            ops.conv2d(x3, w3, pad_mode="pad", padding=1),
            ops.conv2d(xs, ws, stride=2, pad_mode="pad", padding=1))


def test_gemm_convolutions_multiply_the_batch_at_once_where_it_pays(
        tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(8)

    def normal(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) / 4).astype(np.float32)

    inputs = [normal(4, 64, 7, 7), normal(128, 64, 1, 1), normal(4, 256, 3, 3),
              normal(64, 256, 1, 1), normal(2, 32, 5, 5), normal(16, 32, 3, 3),
              normal(2, 8, 40, 40), normal(8, 8, 3, 3)]
    xd, wd, xw, ww, x3, w3, xs, ws = inputs
    expect = (naive_conv(xd, wd, (1, 1), (1, 1), (0,) * 4),
              naive_conv(xw, ww, (1, 1), (1, 1), (0,) * 4),
              naive_conv(x3, w3, (1, 1), (1, 1), (1,) * 4),
              naive_conv(xs, ws, (2, 2), (1, 1), (1,) * 4))
    _, built = check_all(batch_or_example_convs, inputs, tmp_path, expect=expect)
    source = built["numba"].source
    products = re.findall(r"_rt_matmul_into\(wmat\w*, (cols\w*)(\[\w+\])?, (\w+)", source)
    # the direct 1x1 and the stride-2 3x3 per example, the other two over the batch
    assert sorted((bool(at), out.split("_")[0]) for _, at, out in products) == \
        [(False, "prod"), (False, "prod"), (True, "oflat"), (True, "oflat")]
    assert len(re.findall(r"cols\w* = np\.ascontiguousarray\(", source)) == 1  # no copy


def shifted_convs(x2: Any, w2: Any, xa: Any, wa: Any, x1: Any, w1: Any, x3: Any,
                  w3: Any, w11: Any) -> Any:
    """Stride-1 convolutions whose products are wide enough to be sums of shifted
    products: ResNet's 3x3, an asymmetric kernel with uneven padding and dilation, 1-D
    and 3-D (padded along the last dim); and a 1x1, whose one product per example is
    the gemm form's straight from the input (the driver's, numpy's)."""
    return (ops.conv2d(x2, w2, pad_mode="pad", padding=1),
            ops.conv2d(xa, wa, pad_mode="pad", padding=(2, 1, 0, 1), dilation=(2, 1)),
            ops.conv1d(x1, w1, pad_mode="pad", padding=2),
            ops.conv3d(x3, w3, pad_mode="pad", padding=(0, 0, 0, 0, 1, 1)),
            ops.conv2d(x2, w11))


def test_stride_one_convolutions_are_shifted_products(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(9)

    def normal(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) / 4).astype(np.float32)

    inputs = [normal(2, 32, 24, 24), normal(3, 32, 3, 3), normal(1, 32, 20, 30),
              normal(2, 32, 3, 2), normal(2, 32, 600), normal(3, 32, 5),
              normal(1, 32, 3, 16, 30), normal(2, 32, 2, 1, 3), normal(5, 32, 1, 1)]
    x2, w2, xa, wa, x1, w1, x3, w3, w11 = inputs
    expect = (naive_conv(x2, w2, (1, 1), (1, 1), (1,) * 4),
              naive_conv(xa, wa, (1, 1), (2, 1), (2, 1, 0, 1)),
              naive_conv(x1, w1, (1,), (1,), (2, 2)),
              naive_conv(x3, w3, (1, 1, 1), (1, 1, 1), (0, 0, 0, 0, 1, 1)),
              naive_conv(x2, w11, (1, 1), (1, 1), (0,) * 4))
    _, built = check_all(shifted_convs, inputs, tmp_path, expect=expect)
    source = built["numba"].source
    assert source.count("_rt_matmul_into(wtaps") == 4  # the four with taps shifted
    # the 1-D products go straight into their output; the others are cropped
    assert len(re.findall(r"wide\w* = np\.empty", source)) == 3
    assert source.count("_rt_matmul_into(wmat") == 1  # the 1x1


def gemm_transposed(dy2: Any, w2: Any, dy3: Any, w3: Any) -> Any:
    """Ungrouped transposed convolutions (a training step's input gradients) deep enough for
    gemm + col2im: strides, padding that drops positions, dilation, 3-D."""
    return (ops.conv_transpose2d(dy2, w2, stride=2, padding=1, dilation=(1, 2)),
            ops.function.conv_func.conv_transpose(dy3, w3, (3, 5, 4), (1, 2, 1), (0,) * 6,
                                                  (1, 1, 1), 1))


def test_deep_transposed_convolutions_are_gemm_and_col2im(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(7)

    def normal(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    dy2, w2, dy3, w3 = normal(2, 32, 4, 3), normal(32, 3, 3, 3), normal(1, 40, 2, 2, 3), \
        normal(40, 2, 2, 2, 2)
    assert min(dy2.shape[1], dy3.shape[1]) >= GEMM_MIN_DEPTH
    expect = (naive_conv_transpose(dy2, w2, (2, 2), (1, 2), (1, 1, 1, 1), 1, (7, 7)),
              naive_conv_transpose(dy3, w3, (1, 2, 1), (1, 1, 1), (0,) * 6, 1, (3, 5, 4)))
    _, built = check_all(gemm_transposed, [dy2, w2, dy3, w3], tmp_path, expect=expect)
    assert built["numba"].source.count("_rt_matmul_into(wmat") == 2  # both took gemm

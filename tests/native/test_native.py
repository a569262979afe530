"""The native target (``msc compile --native``): libraries built by the system's C
compiler, run from a C program started with an empty environment and from the ctypes
wrapper without msc, compared with eager mode and with the numba target; the ABI's checks,
damaged weights, threads, symbols and an aarch64 build under qemu-user."""

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor

HERE = Path(__file__).parent
MODELS = HERE / "models.py"
EXAMPLE = HERE.parent.parent / "examples" / "native"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None,
                                reason="the native target needs a C compiler (cc) and make")

sys.path.insert(0, str(HERE))
import models  # noqa: E402
from msc.fuzz.run import _SPREAD_ALL  # noqa: E402


def compile_native(out: Path, entry: str, inputs: list[str], *extra: str,
                   spread_all: bool = False) -> Path:
    """``msc compile --native``; ``spread_all``: every loop nest and copy the renderer can
    cut into parts cut, however small (as the fuzzer compiles)."""
    msc = ["-c", _SPREAD_ALL] if spread_all else ["-m", "msc"]
    cmd = [sys.executable, *msc, "compile", str(MODELS), entry, "--native", "-o",
           str(out), "--quiet", *extra]
    for spec in inputs:
        cmd += ["--input", spec]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def build_runner(art: Path, where: Path, cc: str = "cc") -> Path:
    """examples/native/run_model.c built with its Makefile against the artifact ``art``."""
    where.mkdir(parents=True, exist_ok=True)
    for name in ("run_model.c", "Makefile"):
        shutil.copy(EXAMPLE / name, where / name)
    subprocess.run(["make", "-s", "-C", str(where), f"ART={art}", f"CC={cc}"], check=True)
    return where / "run_model"


def run_c(runner: Path, inputs: list[np.ndarray], tmp: Path, *opts: str,
          prefix: tuple[str, ...] = ()) -> tuple[list[np.ndarray], str]:
    """The runner started with an empty environment; its outputs as raw bytes."""
    files = []
    for i, a in enumerate(inputs):
        files.append(tmp / f"in{i}.bin")
        np.ascontiguousarray(a).tofile(files[-1])
    out = tmp / "out"
    out.mkdir(exist_ok=True)
    done = subprocess.run(["env", "-i", *prefix, str(runner), *opts, "--out", str(out),
                           *map(str, files)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = sorted(out.glob("output*.bin"))
    return [p.read_bytes() for p in got], done.stdout


def numba_target(net, x):
    """``net(x)`` compiled for the numba target (not the python tier's first answer)."""
    ms.set_context(jit_tier="numba")
    try:
        return net(Tensor(x)).asnumpy()
    finally:
        ms.set_context(jit_tier=None)


def eager(net, *args):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return net(*(Tensor(a) for a in args))
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def leaves(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in leaves(v)]
    return [value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)]


@pytest.fixture(scope="module")
def block_art(tmp_path_factory):
    return compile_native(tmp_path_factory.mktemp("native") / "block", "block",
                          ["f32[2,8,6,6]"])


@pytest.fixture(scope="module")
def block_runner(tmp_path_factory, block_art):
    return build_runner(block_art, tmp_path_factory.mktemp("runner"))


def block_input():
    return np.random.default_rng(7).standard_normal((2, 8, 6, 6)).astype(np.float32)


def test_block_from_c_with_an_empty_environment(block_art, block_runner, tmp_path):
    x = block_input()
    raw, text = run_c(block_runner, [x], tmp_path)
    got = np.frombuffer(raw[0], np.float32).reshape(2, 4)
    net = models.block()
    want = eager(net, x).asnumpy()
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    compiled = net(Tensor(x)).asnumpy()  # GRAPH_MODE: the numba target
    np.testing.assert_allclose(got, compiled, rtol=1e-5, atol=1e-6)
    assert "output 0: float32[2, 4]" in text


def test_eight_threads_on_one_model_give_the_same_bytes(block_runner, tmp_path):
    raw, text = run_c(block_runner, [block_input()], tmp_path, "--threads", "8",
                      "--repeat", "25")
    assert "8 threads x 25 runs: the same bytes" in text
    single, _ = run_c(block_runner, [block_input()], tmp_path)
    assert raw == single


WRAPPER = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import msc_model
x = np.load(sys.argv[2])
y = msc_model.forward(x)
np.save(sys.argv[3], y)
msc_model.set_num_threads(3)
assert msc_model.get_num_threads() == 3
assert msc_model.forward(x).tobytes() == y.tobytes()
assert not any(m.split('.')[0] in ('msc', 'numba', 'llvmlite') for m in sys.modules), \\
    sorted(m for m in sys.modules if m.startswith(('msc', 'numba', 'llvmlite')))
"""


def test_ctypes_wrapper_runs_with_numpy_alone_from_a_moved_folder(block_art, tmp_path):
    moved = tmp_path / "elsewhere" / "model"
    shutil.copytree(block_art, moved)
    x = block_input()
    np.save(tmp_path / "x.npy", x)
    done = subprocess.run([sys.executable, "-I", "-c", WRAPPER, str(moved),
                           str(tmp_path / "x.npy"), str(tmp_path / "y.npy")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), eager(models.block(), x).asnumpy(),
                               rtol=1e-5, atol=1e-6)


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64))]


def _load(art: Path):
    lib = ctypes.CDLL(str(art / "libmsc_model.so"))
    lib.msc_last_error.restype = ctypes.c_char_p
    lib.msc_model_create.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.msc_model_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.c_int,
                                  ctypes.POINTER(_Tensor), ctypes.c_int]
    lib.msc_model_destroy.argtypes = [ctypes.c_void_p]
    return lib


def _tensor(a: np.ndarray, code: int):
    shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    return _Tensor(a.ctypes.data, code, a.ndim, shape), shape


def test_run_refuses_wrong_dtype_shape_and_count(block_art):
    lib = _load(block_art)
    model = ctypes.c_void_p()
    assert lib.msc_model_create(None, ctypes.byref(model)) == 0, lib.msc_last_error()
    out = np.empty((2, 4), np.float32)
    o, keep_o = _tensor(out, 6)
    cases = [(np.zeros((2, 8, 6, 6), np.float64), 8, "must be float32[2, 8, 6, 6], not float64[2, 8, 6, 6]"),
             (np.zeros((2, 8, 6, 5), np.float32), 6, "must be float32[2, 8, 6, 6], not float32[2, 8, 6, 5]")]
    for a, code, message in cases:
        t, keep = _tensor(a, code)
        assert lib.msc_model_run(model, ctypes.byref(t), 1, ctypes.byref(o), 1) == 1
        assert message in lib.msc_last_error().decode()
    x = block_input()  # (held: the tensor only points at its data)
    t, keep = _tensor(x, 6)
    assert lib.msc_model_run(model, ctypes.byref(t), 2, ctypes.byref(o), 1) == 1
    assert "takes 1 inputs, 2 were given" in lib.msc_last_error().decode()
    bad_out, keep_b = _tensor(np.empty((2, 5), np.float32), 6)
    assert lib.msc_model_run(model, ctypes.byref(t), 1, ctypes.byref(bad_out), 1) == 1
    assert "output 0" in lib.msc_last_error().decode()
    assert lib.msc_model_run(model, ctypes.byref(t), 1, ctypes.byref(o), 1) == 0
    np.testing.assert_allclose(out, eager(models.block(), x).asnumpy(), rtol=1e-5, atol=1e-6)
    lib.msc_model_destroy(model)


def test_damaged_or_truncated_weights_are_refused_by_create(block_art, tmp_path):
    lib = _load(block_art)
    data = (block_art / "weights.bin").read_bytes()
    truncated, flipped = tmp_path / "short.bin", tmp_path / "flipped.bin"
    truncated.write_bytes(data[:-100])
    flipped.write_bytes(data[:50] + bytes([data[50] ^ 1]) + data[51:])
    model = ctypes.c_void_p()
    assert lib.msc_model_create(os.fsencode(truncated), ctypes.byref(model)) == 1
    assert "truncated" in lib.msc_last_error().decode()
    assert lib.msc_model_create(os.fsencode(flipped), ctypes.byref(model)) == 1
    assert "SHA-256" in lib.msc_last_error().decode()
    assert lib.msc_model_create(os.fsencode(tmp_path / "none.bin"), ctypes.byref(model)) == 1
    assert "cannot open" in lib.msc_last_error().decode()
    assert not model


#: the C runtime (OpenMP's too) and the libraries beside it: nothing from Python, Numba
#: or its runtime
GLIBC = ("libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux",
         "libgcc_s.so", "libgomp.so")


def test_library_needs_no_python_and_ships_its_blas(block_art):
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(block_art / "libmsc_model.so")],
                               capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in undefined.splitlines() if line.strip()]
    assert names and not [n for n in names if n.startswith(("Py", "_Py", "NRT", "numba"))]
    dynamic = subprocess.run(["readelf", "-d", str(block_art / "libmsc_model.so")],
                             capture_output=True, text=True, check=True).stdout
    needed = [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    beside = [n for n in needed if not n.startswith(GLIBC)]
    assert all((block_art / n).exists() for n in beside), (needed, os.listdir(block_art))
    if beside:  # the BLAS, found beside the library wherever the folder goes
        assert "$ORIGIN" in dynamic


def test_resnet_basic_block_matches_eager(tmp_path):
    art = compile_native(tmp_path / "rb", "basic_block", ["f32[2,8,10,10]"])
    runner = build_runner(art, tmp_path / "r")
    x = np.random.default_rng(2).standard_normal((2, 8, 10, 10)).astype(np.float32)
    raw, _ = run_c(runner, [x], tmp_path)
    want = eager(models.basic_block(), x).asnumpy()
    assert np.isfinite(want).all() and want.shape == (2, 16, 5, 5)
    np.testing.assert_allclose(np.frombuffer(raw[0], np.float32).reshape(want.shape), want,
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 32, 15, 14), (1, 32, 268, 14), (2, 32, 7, 7)])
def test_winograd_block_matches_eager_and_the_numba_target(tmp_path, shape):
    """The native runtime's Winograd transforms do the numba runtime's arithmetic in its
    order, its products run on the library's kernel (the numba target's on the BLAS): within
    a product's rounding of the numba target, both within Winograd's error of eager mode;
    where Winograd declines, both take the direct products (the library's kernel or the
    BLAS: its bytes where the BLAS's kernel, too, sums each element in one chain in order),
    whose infinities stay where eager mode has them. (The tall
    image's 67 rows of tiles, a prime, make one block of 268 tiles: the transforms take it
    in chunks of rows; two 7x7 images are 8 tiles, the fewest that take it.)"""
    spec = "f32[" + ",".join(map(str, shape)) + "]"
    art = compile_native(tmp_path / "wb", "winograd_block", [spec])
    assert "msc_wino_conv(" in (art / "model.c").read_text()
    runner = build_runner(art, tmp_path / "r")
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    spread = x.copy()
    spread[0, 5, min(7, shape[2] - 1), 3] = np.inf  # (Winograd declines it: the products' way)
    net = models.winograd_block()
    for inputs in (x, spread):
        raw, _ = run_c(runner, [inputs], tmp_path)
        want = eager(net, inputs).asnumpy()
        ms.set_context(jit_tier="numba")  # (not the python tier's first answer)
        try:
            numba = net(Tensor(inputs)).asnumpy()
        finally:
            ms.set_context(jit_tier=None)
        got = np.frombuffer(raw[0], np.float32).reshape(want.shape)
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
        np.testing.assert_array_equal(np.isfinite(numba), np.isfinite(want))
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], numba[finite], rtol=0,
                                   atol=1e-6 * np.abs(numba[finite]).max())
        np.testing.assert_allclose(got[finite], want[finite], rtol=0,
                                   atol=1e-5 * np.abs(want[finite]).max())


@pytest.mark.parametrize("entry,pad", [("one_sided_conv", (1, 0, 0, 1)),
                                       ("unpadded_conv", (0, 0, 0, 0))])
def test_winograd_border_on_some_sides_or_none(tmp_path, entry, pad):
    """The runtime reads the input without its border and puts each row of tiles' rows in
    it: a border on the top and right only, and none, give the float64 convolution within
    Winograd's error, as the numba target does (the two targets' products round apart, and
    the output transform scales their differences up to eight times)."""
    art = compile_native(tmp_path / "pc", entry, ["f32[3,33,17,16]"])
    assert "msc_wino_conv(" in (art / "model.c").read_text()
    x = np.random.default_rng(5).standard_normal((3, 33, 17, 16)).astype(np.float32)
    net = getattr(models, entry)()
    raw, _ = run_c(build_runner(art, tmp_path / "r"), [x], tmp_path)
    w = net.conv.weight.asnumpy().astype(np.float64)
    top, bottom, left, right = pad
    p = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    h, wd = p.shape[2] - 2, p.shape[3] - 2
    want = sum(np.einsum("kc,nchw->nkhw", w[:, :, i, j], p[:, :, i:i + h, j:j + wd])
               for i in range(3) for j in range(3))
    got = np.frombuffer(raw[0], np.float32).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())
    numba = numba_target(net, x)
    np.testing.assert_allclose(numba, want, rtol=0, atol=1e-5 * np.abs(want).max())
    np.testing.assert_allclose(got, numba, rtol=0, atol=1e-5 * np.abs(want).max())


def test_im2col_in_chunks_of_output_rows(tmp_path):
    """An example's columns over ``COLUMN_BYTES`` are copied and multiplied 16 of the 64
    output rows at a time (four products an example, into their rows of the output), each
    chunk copied on the threads (``msc_copy``): the library and the numba target give eager
    mode's values, and the library the same bytes on one and three threads."""
    art = compile_native(tmp_path / "sc", "strided_conv", ["f32[1,16,128,128]"])
    code = (art / "model.c").read_text()
    assert re.search(r"msc_gemm\w*\(8, 1024, 144,", code) and "msc_copy(" in code
    x = np.random.default_rng(6).standard_normal((1, 16, 128, 128)).astype(np.float32)
    net = models.strided_conv()
    want = eager(net, x).asnumpy()
    runner = build_runner(art, tmp_path / "r")
    outs = [run_c(runner, [x], tmp_path, prefix=(f"MSC_NUM_THREADS={t}",))[0][0]
            for t in (1, 3)]
    assert outs[0] == outs[1]
    got = np.frombuffer(outs[0], np.float32).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())
    numba = numba_target(net, x)
    np.testing.assert_allclose(numba, want, rtol=0, atol=1e-5 * np.abs(want).max())


def assert_numba_bits(art, net, x, count, tmp_path):
    """The library's ``count`` float32 outputs for ``x`` hold the numba target's bits (a
    NaN's sign aside: IEEE leaves it); its raw outputs."""
    raw, _ = run_c(build_runner(art, tmp_path / "r"), [x], tmp_path)
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="numba")  # (not the python tier's answer)
    try:
        numba = [y.asnumpy() for y in net(Tensor(x))]
    finally:
        ms.set_context(jit_tier=None)
    assert len(raw) == len(numba) == count
    for got, want in zip(raw, numba):
        got = np.frombuffer(got, np.float32).reshape(want.shape)
        assert (got.view(np.int32) == want.view(np.int32))[~np.isnan(want)].all()
        assert np.isnan(got[np.isnan(want)]).all()
    return raw


TWO_CALLS = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import msc_model
x = np.load(sys.argv[2])
np.save(sys.argv[3], np.stack([msc_model.forward(x, np.float32([s])) for s in (1.0, -2.0)]))
"""


def test_winograd_blocks_left_over_go_block_by_block_on_every_thread(tmp_path):
    """Seven blocks of 112 tiles (8 rows of 14), as ResNet-18's first layers have: on two
    threads three each in one range per thread and the seventh block by block on both (its
    inputs, products and outputs each cut), on three threads two each and the seventh so.
    The same bytes on 1, 2 and 3 threads, eager mode's values within Winograd's error, as
    the numba target's."""
    art = compile_native(tmp_path / "wb7", "winograd_block", ["f32[2,32,112,56]"])
    calls = re.findall(r"msc_wino_conv\(([^;]*)\);", (art / "model.c").read_text())
    assert calls and all(c.split(", ")[-5] == "112" for c in calls)  # (56 rows of tiles)
    x = np.random.default_rng(11).standard_normal((2, 32, 112, 56)).astype(np.float32)
    runner = build_runner(art, tmp_path / "r")
    runs = [run_c(runner, [x], tmp_path, prefix=(f"MSC_NUM_THREADS={n}",))[0][0]
            for n in (1, 2, 3)]
    assert runs[0] == runs[1] == runs[2]
    want = eager(models.winograd_block(), x).asnumpy()
    got = np.frombuffer(runs[0], np.float32).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())
    numba = numba_target(models.winograd_block(), x)  # (its threads split the blocks so too)
    np.testing.assert_allclose(numba, want, rtol=0, atol=1e-5 * np.abs(want).max())


def test_winograd_filters_made_in_the_call_are_transformed_again(tmp_path):
    """Filters that are not weights (here weights times an input) change between calls:
    the library must not keep their first call's transform as it keeps a weight's."""
    art = compile_native(tmp_path / "sf", "scaled_filters", ["f32[1,32,14,14]", "f32[1]"])
    assert "msc_wino_conv(" in (art / "model.c").read_text()
    x = np.random.default_rng(9).standard_normal((1, 32, 14, 14)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    done = subprocess.run([sys.executable, "-I", "-c", TWO_CALLS, str(art), str(tmp_path / "x.npy"),
                           str(tmp_path / "y.npy")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "y.npy")
    for y, s in zip(got, (1.0, -2.0)):
        want = eager(models.scaled_filters(), x, np.float32([s])).asnumpy()
        np.testing.assert_allclose(y, want, rtol=0, atol=1e-5 * np.abs(want).max())


def test_vector_math_equals_the_numba_target_to_the_bit(tmp_path):
    """exp (float32 arithmetic), tanh, sigmoid, erf, erfc, both GeLUs and softmax rows:
    the C runtime does the numba runtime's operations in its order, over the whole float32
    range and its specials; both within 1 ulp of eager mode's exp (its other functions
    are checked against float64 references in tests/codegen/test_vector_math.py)."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-110, 95, 2000), rng.normal(0, 3, 1996),
                        np.exp(rng.uniform(-95, 4.6, 95)) * rng.choice([-1, 1], 95),
                        [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    x = x.reshape(64, 64)
    art = compile_native(tmp_path / "vm", "VectorMath", ["f32[64,64]"])
    source = (art / "model.c").read_text()
    assert "msc_exp32(" in source and "msc_erfc64(" in source
    raw = assert_numba_bits(art, models.VectorMath(), x, 8, tmp_path)
    exp = np.frombuffer(raw[0], np.float32)
    with np.errstate(over="ignore"):
        rounded = np.exp(x.ravel().astype(np.float64)).astype(np.float32)
    finite = np.isfinite(rounded)
    assert np.all(np.abs(exp[finite] - rounded[finite]) <= np.spacing(rounded[finite]))
    assert np.array_equal(exp[~finite], rounded[~finite], equal_nan=True)


def test_row_folds_equal_the_numba_target_to_the_bit(tmp_path):
    """A row's maximum, sum and sum of squares fold in 16 lanes in the numba runtime's order
    (numba_rows_rt.py): softmax, log-softmax, layer norm, sum and maximum rows of 197 give
    its bytes, with a NaN or an infinity inside a lane or in the rest of some rows."""
    x = (np.random.default_rng(6).standard_normal((8, 197)) * 30).astype(np.float32)
    x[1, 20], x[2, 195], x[3, 7], x[4, 100] = np.nan, np.nan, np.inf, -np.inf
    art = compile_native(tmp_path / "rows", "RowFolds", ["f32[8,197]"])
    assert "msc_row_squares_f32(" in (art / "model.c").read_text()
    assert_numba_bits(art, models.RowFolds(), x, 5, tmp_path)


def test_max_pooling_equals_the_numba_target_to_the_bit(tmp_path):
    """Max pooling keeps a float32 window's maximum in float32: the numba target's bytes,
    with NaNs (which win), infinities and zeros of both signs in the windows, and eager
    mode's values."""
    x = np.random.default_rng(7).standard_normal((2, 3, 16, 17)).astype(np.float32)
    x[0, 0, 3, 4], x[0, 1, 8, 0], x[1, 2, 15, 16] = np.nan, np.inf, -np.inf
    x[1, 0, :4, :4] = -1.0
    x[1, 0, 0, 1], x[1, 0, 1, 0], x[1, 0, 2, 2] = -0.0, 0.0, -0.0
    art = compile_native(tmp_path / "pool", "StemPool", ["f32[2,3,16,17]"])
    raw, _ = run_c(build_runner(art, tmp_path / "r"), [x], tmp_path)
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="numba")
    try:
        numba = models.StemPool()(Tensor(x)).asnumpy()
    finally:
        ms.set_context(jit_tier=None)
    assert raw[0] == numba.tobytes()
    np.testing.assert_array_equal(numba, eager(models.StemPool(), x).asnumpy())


def test_a_layer_norm_of_many_short_rows_runs_in_parts(tmp_path):
    """394 rows of 197 (a ViT's tokens): a row helper counts its row's elements toward the
    work a part must do (``threads.work``), so the layer norm's means, variances and scaling
    are a part, whose bytes are the numba target's on 1, 2 and 3 threads."""
    x = (np.random.default_rng(8).standard_normal((394, 197)) * 30).astype(np.float32)
    art = compile_native(tmp_path / "rows", "RowFolds", ["f32[394,197]"])
    parts = (art / "model.c").read_text().split("static int msc_part_")[1:]
    assert any("msc_row_squares_f32(" in p.split("\n}\n")[0] for p in parts)
    raw = assert_numba_bits(art, models.RowFolds(), x, 5, tmp_path)
    runner = build_runner(art, tmp_path / "threads")
    for n in (1, 2, 3):
        assert run_c(runner, [x], tmp_path, prefix=(f"MSC_NUM_THREADS={n}",))[0] == raw


def test_parts_give_the_same_bytes_on_one_two_and_three_threads(tmp_path):
    """Every loop nest, copy and loop of products cut into parts run by the runtime's
    threads, products cut into blocks and Winograd's blocks shared out: the same bytes on
    any thread count; the numba target's values within a product's rounding (the library's
    products run on its own kernel where it has one, the numba target's on the BLAS: the
    same bytes only where the BLAS's kernel sums in the same order) and eager mode's."""
    cases = [("winograd_block", ["f32[2,32,15,14]"], models.winograd_block(),
              [np.random.default_rng(4).standard_normal((2, 32, 15, 14)).astype(np.float32)]),
             ("encoder", ["i32[2,8]", "i32[2,8]"], models.encoder(),
              [np.random.default_rng(1).integers(0, 50, (2, 8)).astype(np.int32),
               np.array([[1] * 8, [1] * 5 + [0] * 3], np.int32)])]
    for entry, specs, net, inputs in cases:
        art = compile_native(tmp_path / entry, entry, specs, spread_all=True)
        source = (art / "model.c").read_text()
        assert source.count("msc_parallel(msc_part_") >= 3
        if entry == "encoder":  # attention's loops of products over batch and heads
            parts = source.split("static int msc_part_")[1:]
            assert any(re.search(r"msc_gemm_\w*f32\(", p.split("\n}\n")[0]) for p in parts)
        runner = build_runner(art, tmp_path / f"r_{entry}")
        runs = [run_c(runner, inputs, tmp_path, prefix=(f"MSC_NUM_THREADS={n}",))[0][0]
                for n in (1, 2, 3)]
        assert runs[0] == runs[1] == runs[2]
        want = leaves(eager(net, *inputs))[0]
        got = np.frombuffer(runs[0], want.dtype).reshape(want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
        ms.set_context(jit_tier="numba")
        try:
            numba = leaves(net(*map(Tensor, inputs)))[0]
        finally:
            ms.set_context(jit_tier=None)
        if entry == "encoder":
            assert source.count("msc_gemm_weights_f32(") >= 6
        np.testing.assert_allclose(got, numba, rtol=0, atol=1e-6 * np.abs(numba).max())


def weight_products_reference(net, x):
    """``models.weight_products`` in float64 numpy."""
    p = {q.name: q.asnumpy().astype(np.float64) for q in net.get_parameters()}
    hidden = np.maximum(x.astype(np.float64) @ p["up.weight"].T + p["up.bias"], 0.0)
    return hidden @ p["down.weight"].T @ p["w"]


def conv_reference(net, x):
    """A valid convolution with a bias in float64 numpy: a sum over the taps."""
    w, b = (q.asnumpy().astype(np.float64) for q in (net.weight, net.bias))
    size = w.shape[2]
    out = np.zeros((x.shape[0], w.shape[0], x.shape[2] - size + 1, x.shape[3] - size + 1))
    for i in range(size):
        for j in range(size):
            window = x[:, :, i:i + out.shape[2], j:j + out.shape[3]].astype(np.float64)
            out += np.einsum("kc,nchw->nkhw", w[:, :, i, j], window)
    return out + b[None, :, None, None]


def activation_products_reference(net, x, y):
    """``models.activation_products`` in float64 numpy."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    return np.cos(x).T @ (np.tanh(x) @ y @ np.sin(y).T)


@pytest.mark.parametrize("entry, shapes, call, reference", [
    ("weight_products", [(70, 256)], "msc_gemm_weights_f32(", weight_products_reference),
    ("weight_conv", [(1, 16, 34, 34)], "msc_gemm_weights_left_f32(", conv_reference),
    ("deep_conv", [(1, 64, 9, 9)], "msc_gemm_weights_left_f32(", conv_reference),
    ("activation_products", [(70, 256), (256, 90)], "msc_gemm_packed_f32(",
     activation_products_reference),
    # (panels of 32 then 17 columns; sums of 90 and 241: blocks of 16 short of rows)
    ("activation_products", [(70, 241), (241, 90)], "msc_gemm_packed_f32(",
     activation_products_reference)])
def test_products_run_on_the_packed_kernel(tmp_path, entry, shapes, call, reference):
    """Float32 products of at least 2^20 multiply-adds go to the runtime's own kernel
    (where the machine has AVX-512): an inference model's by its weights (a dense
    layer's, a convolution's by its filters) over weights packed at their first product,
    others packing their right operand's panels as the threads go: the same bytes on 1, 2
    and 3 threads and from four callers at once racing to pack, within float32 rounding
    of float64 numpy and of eager mode."""
    art = compile_native(tmp_path / entry, entry, [f"f32[{','.join(map(str, s))}]" for s in shapes])
    assert call in (art / "model.c").read_text()
    runner = build_runner(art, tmp_path / "r")
    xs = [np.random.default_rng(5 + i).standard_normal(s).astype(np.float32)
          for i, s in enumerate(shapes)]
    runs = []
    for n in (1, 2, 3):
        raw, text = run_c(runner, xs, tmp_path, "--threads", "4", "--repeat", "3",
                          prefix=(f"MSC_NUM_THREADS={n}",))
        assert "4 threads x 3 runs: the same bytes" in text
        runs.append(raw[0])
    assert runs[0] == runs[1] == runs[2]
    net = getattr(models, entry)()
    want = reference(net, *xs)
    got = np.frombuffer(runs[0], np.float32).reshape(want.shape)
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * scale)
    np.testing.assert_allclose(got, eager(net, *xs).asnumpy(), rtol=0, atol=2e-6 * scale)


def test_only_independent_loops_of_products_run_in_parts():
    """A loop nest of products is cut into parts only where its iterations are
    independent: each writes its own output (``out[i, j]``, beta 0) and none reads what
    another writes; a sum of products into one output, or a chain reading the previous
    iteration's output, stays in order."""
    from msc.codegen.native.cgen import _products_only
    from msc.ir import kernel as K

    i, j = K.Name("i"), K.Name("j")
    x, y, out = K.Name("x"), K.Name("y"), K.Name("out")

    def nest(a, b, c, beta=0):
        body = (K.Eval(K.Helper("_rt_matmul_into", (a, b, c, K.Lit(beta)))),)
        return K.Loop("i", K.Lit(2), (K.Loop("j", K.Lit(3), body),))

    assert _products_only(nest(x[i, j], y[i, j], out[i, j]))
    assert _products_only(nest(x[i, j], y, out[i, j]))  # (a shared operand)
    assert not _products_only(nest(x[i, j], y[i, j], out))  # one output, summed into
    assert not _products_only(nest(x[i, j], y[i, j], out[i, j], beta=1))
    assert not _products_only(nest(out[i, 0], y[i, j], out[i, j]))  # reads what it writes
    assert not _products_only(nest(x[i, j], y[i, j], out[j, i]))


def test_a_large_loop_nest_runs_in_parts(tmp_path):
    """At the default sizes a block on 2 x 32 x 48 x 48 images is cut into parts (its
    fused batch norm and ReLU, its residual add and ReLU) and gives eager mode's values."""
    art = compile_native(tmp_path / "big", "winograd_block", ["f32[2,32,48,48]"])
    assert (art / "model.c").read_text().count("msc_parallel(msc_part_") == 2
    x = np.random.default_rng(3).standard_normal((2, 32, 48, 48)).astype(np.float32)
    raw, _ = run_c(build_runner(art, tmp_path / "r"), [x], tmp_path,
                   prefix=("MSC_NUM_THREADS=2",))
    want = eager(models.winograd_block(), x).asnumpy()
    np.testing.assert_allclose(np.frombuffer(raw[0], np.float32).reshape(want.shape), want,
                               rtol=0, atol=1e-5 * np.abs(want).max())


def test_encoder_and_tensor_control_flow_match_eager(tmp_path):
    net = models.encoder()
    ids = np.random.default_rng(1).integers(0, 50, (2, 8)).astype(np.int32)
    mask = np.ones((2, 8), np.int32)
    mask[1, 5:] = 0
    art = compile_native(tmp_path / "enc", "encoder", ["i32[2,8]", "i32[2,8]"])
    loops = compile_native(tmp_path / "loops", "Loops", ["f32[2,3]", "i32[]"])
    runner = build_runner(art, tmp_path / "r1")
    raw, _ = run_c(runner, [ids, mask], tmp_path)
    np.testing.assert_allclose(np.frombuffer(raw[0], np.float32).reshape(2, 3),
                               eager(net, ids, mask).asnumpy(), rtol=1e-4, atol=1e-5)
    runner = build_runner(loops, tmp_path / "r2")
    x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) * 0.3
    for n in (0, 1, 4):
        for sign in (1.0, -1.0):
            raw, _ = run_c(runner, [x * sign, np.array(n, np.int32)], tmp_path)
            y, count = eager(models.Loops(), x * sign, np.array(n, np.int32))
            np.testing.assert_allclose(np.frombuffer(raw[0], np.float32).reshape(2, 3),
                                       y.asnumpy(), rtol=1e-5, atol=1e-6)
            assert np.frombuffer(raw[1], np.int64)[0] == count.asnumpy() == 2 * n


@pytest.mark.parametrize("entry,shape", [("step", (4, 6)), ("conv_step", (2, 3, 2, 2)),
                                         ("winograd_step", (2, 3, 14, 14))])
def test_training_step_updates_its_weights_in_place(tmp_path, entry, shape):
    """Three steps of the library against eager mode: an MLP's, and two convolutions'
    (the strided one's input gradient adds taps into views of an array); at 14x14 the
    second convolution is Winograd's, whose filters' transform the library keeps between
    calls while they hold the same bits (kept from the step before, the loss would be
    the old weights')."""
    spec = f"f32[{','.join(map(str, shape))}]"
    art = compile_native(tmp_path / entry, entry, [spec, f"i32[{shape[0]}]"])
    assert ("msc_wino_conv(" in (art / "model.c").read_text()) == (entry == "winograd_step")
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float32)
    label = np.array([0, 1, 2, 1][:shape[0]], np.int32)
    sys.path.insert(0, str(art))
    try:
        import msc_model
        native = msc_model.Model()
        reference = getattr(models, entry)()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = [float(reference(Tensor(x), Tensor(label)).asnumpy()) for _ in range(3)]
        ms.set_context(mode=ms.GRAPH_MODE)
        got = [float(native(x, label)) for _ in range(3)]
    finally:
        sys.path.remove(str(art))
        sys.modules.pop("msc_model", None)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert got[0] > got[1] > got[2]


def test_an_op_without_native_code_is_an_error_at_the_users_line(tmp_path):
    cmd = [sys.executable, "-m", "msc", "compile", str(MODELS), "Printing", "--input",
           "f32[3]", "--native", "-o", str(tmp_path / "p")]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode != 0
    line = next(i for i, text in enumerate(MODELS.read_text().splitlines(), 1)
                if "ops.Print()" in text)
    assert f"models.py:{line}" in done.stderr and "native target cannot compile" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "p").exists()


@pytest.mark.skipif(shutil.which("aarch64-linux-gnu-gcc") is None or
                    shutil.which("qemu-aarch64") is None,
                    reason="no aarch64 cross build: apt-get install gcc-aarch64-linux-gnu "
                           "qemu-user")
def test_aarch64_build_runs_under_qemu(tmp_path):
    art = compile_native(tmp_path / "arm", "block", ["f32[2,8,6,6]"], "--triple",
                         "aarch64-linux-gnu")
    machine = subprocess.run(["readelf", "-h", str(art / "libmsc_model.so")],
                             capture_output=True, text=True, check=True).stdout
    assert "AArch64" in machine
    runner = build_runner(art, tmp_path / "r", cc="aarch64-linux-gnu-gcc")
    x = block_input()
    raw, _ = run_c(runner, [x], tmp_path, prefix=("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"))
    np.testing.assert_allclose(np.frombuffer(raw[0], np.float32).reshape(2, 4),
                               eager(models.block(), x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_embedded_weights_make_one_library(block_art, tmp_path):
    art = compile_native(tmp_path / "one", "block", ["f32[2,8,6,6]"], "--embed-weights")
    assert not (art / "weights.bin").exists()
    moved = tmp_path / "moved"
    shutil.copytree(art, moved)
    shutil.rmtree(art)
    runner = build_runner(moved, tmp_path / "r")
    raw, _ = run_c(runner, [block_input()], tmp_path)
    np.testing.assert_allclose(np.frombuffer(raw[0], np.float32).reshape(2, 4),
                               eager(models.block(), block_input()).asnumpy(), rtol=1e-5,
                               atol=1e-6)
    step = compile_native(tmp_path / "step", "step", ["f32[4,6]", "i32[4]"], "--embed-weights")
    x = np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32)
    label = np.array([0, 1, 2, 1], np.int32)
    done = subprocess.run([sys.executable, "-I", "-c", STEPS, str(step)], input=x.tobytes()
                          + label.tobytes(), capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    reference = models.step()
    want = [float(reference(Tensor(x), Tensor(label)).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose([float(v) for v in done.stdout.split()], want, rtol=1e-5)


#: models of a library with its weights inside: one called over and over on a thread
#: while others are made, called and closed (freed memory filled by MALLOC_PERTURB_)
TWO_MODELS = """
import sys, threading
sys.path.insert(0, sys.argv[1])
import numpy as np
import msc_model
x = np.load(sys.argv[2])
kept = msc_model.Model()
got = []
caller = threading.Thread(target=lambda: got.extend(kept(x) for _ in range(300)))
caller.start()
for _ in range(100):
    other = msc_model.Model()
    other(x)
    other.close()
caller.join()
assert all(g.tobytes() == got[0].tobytes() for g in got), "a call read freed memory"
np.save(sys.argv[3], got[0])
"""


def test_closing_one_model_keeps_the_packed_weights_of_the_others(tmp_path):
    """Weights inside the library are every model's: closing one must not free the packed
    copies another model's products read."""
    art = compile_native(tmp_path / "wp", "weight_products", ["f32[70,256]"], "--embed-weights")
    x = np.random.default_rng(5).standard_normal((70, 256)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    done = subprocess.run([sys.executable, "-I", "-c", TWO_MODELS, str(art), str(tmp_path / "x.npy"),
                           str(tmp_path / "y.npy")], capture_output=True, text=True,
                          env={**os.environ, "MALLOC_PERTURB_": "165"})
    assert done.returncode == 0, done.stderr
    want = eager(models.weight_products(), x).asnumpy()
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, rtol=0,
                               atol=2e-6 * np.abs(want).max())


#: three training steps through the wrapper of a library whose weights are inside it (a
#: model that writes them works on its own copy)
STEPS = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import msc_model
data = sys.stdin.buffer.read()
x = np.frombuffer(data[:96], np.float32).reshape(4, 6)
label = np.frombuffer(data[96:], np.int32)
model = msc_model.Model()
print(*(float(model(x, label)) for _ in range(3)))
"""

"""float16 on the numba target, which holds it as bit patterns (``msc/codegen/half.py``).

(a) The conversion helpers of ``numba_rt``, bit for bit against numpy: every float16,
ties, subnormals, overflow, NaN. (b) Models compiled for numba equal eager mode and the
python target: element-wise results bit for bit (signed zeros, inf and NaN included);
ops that are not fused element-wise ops (matmul, reductions, softmax, ...) within the
suite's float32 tolerance scaled to float16's precision, since numpy rounds inside some
of them. Parameters written in place, tensor if/while, shared graphs, GRAPH_MODE and
@jit, and an artifact run in a fresh process without msc.
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.runtime import numba_rt as rt
from msc.runtime import numpy_rt
from tests.codegen import ATOL, RTOL, build, compile_fn, leaves, ops_in, to_numpy
from tests.codegen.cases import CASES

F16 = np.float16
#: The float32 tolerance, scaled by float16's epsilon over float32's: for the ops that are
#: not fused element-wise ops, which round once where numpy rounds inside (see half.py).
SCALE = float(np.finfo(np.float16).eps / np.finfo(np.float32).eps)
F16_RTOL, F16_ATOL = RTOL * SCALE, ATOL * SCALE
ALL_BITS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
ALL_HALVES = ALL_BITS.view(F16)


# --- (a) the conversion helpers -----------------------------------------------------------


@njit
def _to_f32(bits):  # type: ignore[no-untyped-def]
    out = np.empty(bits.size, np.float32)
    for i in range(bits.size):
        out[i] = rt._rt_f16_to_f32(bits[i])
    return out


@njit
def _to_f16(values):  # type: ignore[no-untyped-def]
    out = np.empty(values.size, np.uint16)
    for i in range(values.size):
        out[i] = rt._rt_f32_to_f16(values[i])
    return out


@njit
def _gelu_f16(bits, approximate):  # type: ignore[no-untyped-def]
    out = np.empty(bits.size, np.uint16)
    for i in range(bits.size):
        out[i] = rt._rt_f32_to_f16(rt._rt_gelu_f16(rt._rt_f16_to_f32(bits[i]), approximate))
    return out


def numpy_bits(values: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return values.astype(F16).view(np.uint16)


def test_every_float16_converts_to_float32_exactly_and_back() -> None:
    """All 65536 patterns: the float32 numpy's cast gives (NaN payloads and signed zeros
    too), and back to the same bits."""
    f = _to_f32(ALL_BITS)
    np.testing.assert_array_equal(f.view(np.uint32), ALL_HALVES.astype(np.float32).view(np.uint32))
    np.testing.assert_array_equal(_to_f16(f), ALL_BITS)


def test_float32_rounds_to_float16_as_numpy_casts(rng: np.random.Generator) -> None:
    """Round half to even (exact ties and their neighbours), subnormals, overflow to inf,
    NaN payloads, on random bit patterns and chosen values."""
    finite = _to_f32(ALL_BITS)[np.isfinite(ALL_HALVES)]
    finite = np.unique(finite)
    ties = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)  # exact
    chosen = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.996, 65520, 65536, 1e30,
                       -1e30, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -26, 1e-45, 6.1e-5, 6.1035e-5,
                       2 ** -14 - 2 ** -25], np.float32)
    nans = (np.uint32(0x7F800000) | rng.integers(1, 1 << 23, 1000, dtype=np.uint32))
    nans |= rng.integers(0, 2, 1000, dtype=np.uint32) << np.uint32(31)
    groups = {
        "random bit patterns": rng.integers(0, 1 << 32, 1_000_000, dtype=np.uint32).view(np.float32),
        "ties": ties,
        "above ties": np.nextafter(ties, np.float32(np.inf)),
        "below ties": np.nextafter(ties, np.float32(-np.inf)),
        "subnormal range": rng.uniform(-2 ** -13, 2 ** -13, 100_000).astype(np.float32),
        "chosen": chosen,
        "NaN payloads": nans.view(np.float32),
    }
    for what, values in groups.items():
        np.testing.assert_array_equal(_to_f16(values), numpy_bits(values), err_msg=what)


def test_float64_ints_and_bools_round_to_float16_once(rng: np.random.Generator) -> None:
    """A float64 is rounded from its own bits: a value just off a tie by less than half a
    float32 ulp must not become the tie on the way (float64 -> float32 -> float16)."""
    finite = np.unique(_to_f32(ALL_BITS)[np.isfinite(ALL_HALVES)]).astype(np.float64)
    ties = (finite[:-1] + finite[1:]) / 2
    off = np.abs(ties) * 2.0 ** -40 + 2.0 ** -70
    for what, values in {"above ties": ties + off, "below ties": ties - off,
                         "random bit patterns": rng.integers(0, 1 << 64, 1_000_000,
                                                             dtype=np.uint64).view(np.float64),
                         "range": rng.uniform(-70000, 70000, 100_000)}.items():
        np.testing.assert_array_equal(_to_f16(values), numpy_bits(values), err_msg=what)
    ints = np.arange(-70000, 70000, dtype=np.int64)
    np.testing.assert_array_equal(_to_f16(ints), numpy_bits(ints))
    np.testing.assert_array_equal(_to_f16(np.array([True, False])), numpy_bits(np.array([1, 0])))


def test_array_helpers_keep_shapes_and_layouts(rng: np.random.Generator) -> None:
    for shape in [(), (5,), (3, 4)]:
        x = rng.normal(size=shape).astype(F16)
        wide = rt._rt_f16_widen(x.view(np.uint16))
        assert wide.dtype == np.float32 and wide.shape == shape
        np.testing.assert_array_equal(wide, x.astype(np.float32))
        narrow = rt._rt_f16_narrow(wide * np.float32(3))
        assert narrow.dtype == np.uint16 and narrow.shape == shape
        np.testing.assert_array_equal(narrow, (x.astype(np.float32) * 3).astype(F16).view(np.uint16))
        into = np.zeros(shape, np.uint16)
        rt._rt_f16_narrow_into(wide.astype(np.float64), into)
        np.testing.assert_array_equal(into, x.view(np.uint16))
    x = rng.normal(size=(3, 4)).astype(F16)
    np.testing.assert_array_equal(rt._rt_f16_widen(x.view(np.uint16).T), x.T.astype(np.float32))
    np.testing.assert_array_equal(rt._rt_f16_narrow(x.astype(np.float32).T), x.T.view(np.uint16))
    assert rt._rt_f16_round(0.1) == np.float32(F16(0.1)) and math.isinf(rt._rt_f16_round(70000.0))


@pytest.mark.parametrize("approximate", ["tanh", "none"])
def test_gelu_twin_equals_numpys_float16_gelu_on_every_value(approximate: str) -> None:
    with np.errstate(all="ignore"):
        want = np.asarray(numpy_rt._rt_gelu(ALL_HALVES, approximate), F16)
    got = _gelu_f16(ALL_BITS, approximate).view(F16)
    assert_bits(got, want, f"gelu {approximate}")


# --- (b) models ---------------------------------------------------------------------------


def assert_bits(got: Any, want: Any, what: str) -> None:
    """Same structure, dtypes and shapes, and the same values bit for bit (any NaN equals
    any NaN; 0.0 and -0.0 differ)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for i, (g, w) in enumerate(zip(got, want)):
            assert_bits(g, w, f"{what}[{i}]")
        return
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    uint = np.dtype(f"u{want.dtype.itemsize}")
    same = (got.view(uint) == want.view(uint)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), f"{what}: {got[~same][:5]} != {want[~same][:5]}"


def assert_close(got: Any, want: Any, what: str) -> None:
    for i, (g, w) in enumerate(zip(leaves(got), leaves(want))):
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what}[{i}]"
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=F16_RTOL,
                                   atol=F16_ATOL, err_msg=f"{what}[{i}]")


def targets_equal_eager(fn: Any, inputs: list[np.ndarray], tmp_path: Path) -> dict[str, Any]:
    """The numba and python modules of ``fn`` on ``inputs``, and eager mode's result."""
    compiled = compile_fn(fn, inputs)
    results = {"eager": to_numpy(fn(*[Tensor(x) for x in inputs]))}
    for target in ("numba", "python"):
        built = build(compiled.module, target, tmp_path)
        results[target] = built(*[x.copy() for x in inputs])
        if target == "numba":
            kernel = built.source[built.source.index("@_rt_jit"):built.source.index("def run(")]
            assert "np.float16" not in kernel  # Numba has none: the kernels see bits
    return results


def elementwise(x: Any, y: Any, z: Any, n: Any, b: Any) -> Any:
    """float16 with float16 (broadcast), float32, int32, bool and Python numbers. (Not
    ``ops.sign(-0.0)``: Numba's sign keeps the zero's sign, numpy's does not, in float32 too.)"""
    h = x * y + 0.1
    return (h, ops.exp(h) - 1.5, ops.sigmoid(x) * 2.5, ops.tanh(x) / y, ops.gelu(x),
            ops.gelu(x, approximate="none"), ops.erf(x), ops.sqrt(ops.abs(x)), ops.rsqrt(y),
            ops.log1p(ops.abs(x)), ops.log(ops.abs(y)), ops.sin(x) + ops.cos(y),
            ops.hardswish(x), ops.relu(x) ** 2, ops.pow(ops.abs(x), y), y // 0.75, y % 0.75,
            ops.floor_div(y, x[0]), ops.maximum(x, z), x + z, x * n, n - x, ops.minimum(x, 2),
            ops.select(b, x, y), ops.clip_by_value(x, -0.5, 0.5), ops.cast(z, ms.float16),
            ops.cast(n, ms.float16), ops.cast(ops.abs(y) * 9, ms.int32), ops.cast(x, ms.bool_),
            x > y, x == 0.1, ops.square(x) * 1000, ops.reciprocal(x), 3 - x * 2049, -x,
            ops.floor(x * 3), ops.ceil(x * 3), ops.sign(h), ops.abs(x) * 1e-4, x / 7 * 7)


def elementwise_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    x = rng.uniform(-4, 4, (4, 6)).astype(F16)
    x[0, :6] = [np.inf, -np.inf, np.nan, -0.0, 65504, 6e-8]  # specials, a subnormal
    x[1, :3] = [1e-5, -3e-6, 0.1]
    y = rng.uniform(0.3, 3, (1, 6)).astype(F16) * np.array([1, -1, 1, -1, 1, 1], F16)
    z = rng.uniform(-4, 4, (4, 6)).astype(np.float32)
    n = rng.integers(-3000, 3000, (4, 1)).astype(np.int32)
    b = rng.integers(0, 2, (4, 6)).astype(bool)
    return [x, y, z, n, b]


def test_elementwise_float16_is_bit_identical_to_eager(tmp_path: Path, rng: np.random.Generator
                                                       ) -> None:
    results = targets_equal_eager(elementwise, elementwise_inputs(rng), tmp_path)
    assert_bits(results["python"], results["eager"], "python target")
    assert_bits(results["numba"], results["eager"], "numba target")


#: A few kinds of lowering (each case costs a Numba compile): loop nests (reductions,
#: softmax, layer norm), matmuls, copies (concatenation, split, gather) and slices.
ROUNDING_CASES = ["reduce_float", "dense", "softmax", "layer_norm", "join_split", "gather_slice"]


@pytest.mark.parametrize("name", ROUNDING_CASES)
def test_other_ops_on_float16_within_the_scaled_tolerance(name: str, tmp_path: Path) -> None:
    """The codegen cases of test_targets on float16 inputs: the python target's numpy
    code is eager mode's, bit for bit; numba rounds these ops once."""
    case = next(c for c in CASES if c.name == name)
    inputs = [x.astype(F16) if x.dtype == np.float32 else x
              for x in case.inputs(np.random.default_rng(len(name)))]
    results = targets_equal_eager(case.fn, inputs, tmp_path)
    assert_bits(results["python"], results["eager"], f"{name}, python target")
    assert_close(results["numba"], results["eager"], f"{name}, numba target")


class Updating(nn.Cell):
    """float16 Parameters written in place: fused element-wise writes, a whole copy from a
    view, a 0-d one added to, and a Dense layer reading them."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(F16)), name="w")
        self.t = Parameter(Tensor(np.zeros((4, 3), F16)), name="t")
        self.s = Parameter(Tensor(np.array(0.25, F16)), name="s")
        self.fc = nn.Dense(4, 5, dtype=ms.float16)

    def construct(self, x):  # type: ignore[no-untyped-def]
        y = self.w * x + 0.1
        ops.assign(self.w, y * 0.5)
        ops.assign_add(self.w, ops.exp(x) * 0.01)
        ops.assign(self.t, ops.transpose(x, (1, 0)))
        ops.assign_add(self.s, 0.3)
        return y, self.s * self.t, self.fc(self.w)


def test_float16_parameters_update_in_place_in_graph_mode(rng: np.random.Generator) -> None:
    x = Tensor(rng.uniform(-1, 1, (3, 4)).astype(F16))
    ms.set_seed(5)
    graph_net = Updating()
    ms.set_seed(5)
    eager_net = Updating()
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    for step in range(2):
        got = to_numpy(graph_net(x))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = to_numpy(eager_net(x))
        ms.set_context(mode=ms.GRAPH_MODE)
        assert_bits(got[:2], want[:2], f"step {step}, element-wise")
        assert_close(got[2], want[2], f"step {step}, dense")
        for p, q in zip(graph_net.get_parameters(), eager_net.get_parameters()):
            assert p.dtype == ms.float16
            assert_bits(p.asnumpy(), q.asnumpy(), f"step {step}, {p.name}")


def scaled(x, w):  # type: ignore[no-untyped-def]
    return ops.softmax(ops.matmul(x, w) * 0.125, -1), ops.sum(x, 1) + 1, x * 2.5 - w[0]


def test_a_float16_function_under_jit(rng: np.random.Generator) -> None:
    x = Tensor(rng.uniform(-2, 2, (4, 8)).astype(F16))
    w = Tensor(rng.uniform(-2, 2, (8, 8)).astype(F16))
    ms.set_context(jit_target="numba")
    got, want = to_numpy(ms.jit(scaled)(x, w)), to_numpy(scaled(x, w))
    assert_close(got[:2], want[:2], "softmax, sum")
    assert_bits(got[2], want[2], "element-wise")


class Branches(nn.Cell):
    """A tensor while and a tensor if on float16 values (a matmul keeps the if a branch)."""

    def construct(self, x, w):  # type: ignore[no-untyped-def]
        while x.sum() < 60:
            x = x * 1.5 + 0.25
        if x[0, 0] > 2:
            y = ops.matmul(x, w) - 1
        else:
            y = ops.matmul(w, x) * 0.5
        return x, y


@pytest.mark.parametrize("start", [0.5, 3.0])
def test_float16_tensor_if_and_while(start: float, tmp_path: Path) -> None:
    x = np.full((3, 3), start, F16) + np.eye(3, dtype=F16) * F16(0.125)
    w = np.arange(9, dtype=F16).reshape(3, 3) / F16(8)
    compiled = compile_fn(Branches(), [x, w])
    assert {"If", "While"} <= ops_in(compiled.module)
    want = to_numpy(Branches()(Tensor(x), Tensor(w)))
    for target in ("numba", "python"):
        got = build(compiled.module, target, tmp_path)(x, w)
        assert_bits(got[0], want[0], f"{target}: the loop's result")
        assert_close(got[1], want[1], f"{target}: the branch's result")


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self, k: float) -> None:
        super().__init__()
        self.k = Parameter(Tensor(np.full((4,), k, F16)), name="k")

    def construct(self, a):  # type: ignore[no-untyped-def]
        return ops.tanh(a) * self.k + a


class Stack(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.CellList([Block(0.5), Block(1.5), Block(-2.0)])

    def construct(self, x):  # type: ignore[no-untyped-def]
        for block in self.blocks:
            x = block(x)
        return x * 2


def test_shared_float16_graphs_pass_bits_between_kernels(tmp_path: Path,
                                                         rng: np.random.Generator) -> None:
    x = rng.uniform(-2, 2, (3, 4)).astype(F16)
    net = Stack()
    compiled = compile_fn(net, [x])
    assert "Call" in ops_in(compiled.module)
    weights = [p.asnumpy() for p in compiled.weights]
    got = build(compiled.module, "numba", tmp_path, weights)(x)
    assert_bits(got, to_numpy(net(Tensor(x))), "numba target")


MODEL = '''
import numpy as np
from msc import nn, ops, Tensor, Parameter


class Half(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(-2, 2, 12).reshape(3, 4).astype(np.float16)),
                           name="w")

    def construct(self, x):
        y = ops.sigmoid(x * self.w) + 0.1
        ops.assign(self.w, self.w * 0.5 + y)
        return y, ops.sum(y, 1)
'''

RUN = '''
import importlib.util, sys
import numpy as np

path, out = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("half_model", path)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
assert "msc" not in sys.modules
x = np.linspace(-3, 3, 12).reshape(3, 4).astype(np.float16)
first, second = m.forward(x), m.forward(x)
np.savez(out, y0=first[0], s0=first[1], y1=second[0], s1=second[1], w=m.load_weights()[0])
'''


def test_a_float16_artifact_runs_without_msc(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    root = Path(__file__).resolve().parents[2]
    build_ = subprocess.run([sys.executable, "-m", "msc", "compile", "model.py", "Half",
                             "--input", "f16[3,4]", "-o", "art", "--target", "numba",
                             "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert build_.returncode == 0, build_.stderr
    (tmp_path / "run.py").write_text(textwrap.dedent(RUN))
    run = subprocess.run([sys.executable, "run.py", str(tmp_path / "art" / "Half_construct.py"),
                          str(tmp_path / "out.npz")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        from model import Half  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("model", None)
    net = Half()
    x = Tensor(np.linspace(-3, 3, 12).reshape(3, 4).astype(F16))
    with np.load(tmp_path / "out.npz") as got:
        for step in range(2):
            y, s = to_numpy(net(x))
            assert_bits(got[f"y{step}"], y, f"step {step}")
            assert_close(got[f"s{step}"], s, f"step {step}, sum")
        assert_bits(got["w"], net.w.asnumpy(), "the weight written in place")

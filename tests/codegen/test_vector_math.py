"""The numba target's float32 exp, tanh, sigmoid, erf, erfc and GeLU (``passes.VECTOR_MATH``):
numba_rt's functions made of arithmetic and selects, which LLVM vectorizes.

Each is checked on a wide sample of float32 values (the specials included) against the
function computed in float64 by Python's ``math`` and rounded once to float32, within one
ulp (GeLU by erf: seven, 85% within one; GeLU by tanh: twelve, 95% within one), with the
same NaNs and the same signs of zeros; against eager mode through every
target; the fused loop calls the vector form for float32 and keeps libm for float64; and
a loop calling each form compiles to vector instructions with no call left. The numpy
runtime (eager mode, the python target) computes float32 erf, erfc and GeLU by the same
series and a finer rational, checked the same way, and float64 by Python's exact
``math.erf``.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

import numpy as np
import pytest
from numba import njit

from msc import ops
from msc.runtime import numba_rt
from msc.runtime import numpy_rt
from tests.codegen import check_all, compile_fn, build

F32 = np.float32
SQRT_HALF = math.sqrt(0.5)


def _math(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """``fn`` of each element in float64 (overflow gives inf, as numpy does)."""
    def safe(x: float) -> float:
        try:
            return fn(x)
        except OverflowError:
            return math.inf
    vec = np.frompyfunc(safe, 1, 1)
    return lambda x: vec(x.astype(np.float64)).astype(np.float64)


def _sigmoid(x: float) -> float:
    if x != x:
        return x
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _gelu_tanh(x: float) -> float:
    u = math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3) if math.isfinite(x) else x
    return x * _sigmoid(2 * u) if u == u else math.nan


def gelu_tanh(x: Any) -> Any:
    return ops.gelu(x, approximate="tanh")


def float64_chain(v: Any) -> Any:
    return ops.tanh(v) + ops.erf(v) + ops.gelu(v)


#: name -> (the msc op, the float64 reference)
FUNCTIONS: dict[str, tuple[Callable[[Any], Any], Callable[[np.ndarray], np.ndarray]]] = {
    "exp": (ops.exp, _math(math.exp)),
    "tanh": (ops.tanh, _math(math.tanh)),
    "sigmoid": (ops.sigmoid, _math(_sigmoid)),
    "erf": (ops.erf, _math(math.erf)),
    "erfc": (ops.erfc, _math(math.erfc)),
    "gelu": (ops.gelu, _math(lambda x: 0.5 * x * math.erfc(-x * SQRT_HALF))),
    "gelu_tanh": (gelu_tanh, _math(_gelu_tanh)),
}


HELPERS = {"exp": "_rt_exp32", "tanh": "_rt_tanh32", "sigmoid": "_rt_sigmoid64",
           "erf": "_rt_erf64", "erfc": "_rt_erfc64", "gelu": "_rt_gelu_none32",
           "gelu_tanh": "_rt_gelu_tanh32"}


def sample() -> np.ndarray:
    """float32 values over the whole range, dense where the functions bend."""
    rng = np.random.default_rng(7)
    parts = [rng.uniform(-12, 12, 60_000), rng.normal(0, 2, 40_000),
             np.exp(rng.uniform(-95, 4.6, 40_000)) * rng.choice([-1.0, 1.0], 40_000),
             rng.uniform(-110, 95, 20_000), np.linspace(-16, 16, 20_001),
             [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-30, -1e-30, 3.4e38,
              -3.4e38, 88.72, 88.73, -103.9, -104.0, 0.5, -0.5, 10.5, -10.5, 1e-4, -1e-4]]
    return np.concatenate(parts).astype(F32)


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of the last place of ``want`` (float32); 0 where equal."""
    equal = (got == want) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        spacing = np.spacing(np.abs(want)).astype(np.float64)
        return np.where(equal, 0.0, diff / spacing)


def numba_run(fn: Callable[[Any], Any], x: np.ndarray, tmp_path: Any) -> tuple[np.ndarray, str]:
    """``fn(x)`` through the numba target: the result and the kernel's source."""
    compiled = compile_fn(fn, [x])
    built = build(compiled.module, "numba", tmp_path)
    return built(x.copy()), "\n".join(built.spec.kernel.lines)


#: The ulps a form may be off, and the share of results within one: GeLU by erf runs in
#: float32 arithmetic (its rational's Horner chains round 9 times; 7 ulp at worst over
#: every float32, 84% within one below -3), GeLU by tanh too (exp(2u) and the quotient:
#: 4 ulp above -6, 12 below, where exp(2u) is subnormal), the others within one.
ULP_BOUND = {"gelu": (7.0, 0.85), "gelu_tanh": (12.0, 0.95)}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_forms_are_within_their_ulp_bound_of_the_rounded_float64_function(
        name: str, tmp_path: Any) -> None:
    op, reference = FUNCTIONS[name]
    x = sample()
    if name in ULP_BOUND:  # (densely where the rational and exp(-x*x/2) both bend)
        x = np.concatenate([x, np.linspace(-14, 4, 1_000_001, dtype=F32)])
    got, kernel = numba_run(op, x, tmp_path)
    assert HELPERS[name] + "(" in kernel, kernel
    with np.errstate(over="ignore"):
        want = reference(x).astype(F32)
    assert got.dtype == np.float32
    worst = ulps(got, want)
    bound, share = ULP_BOUND.get(name, (1.0, 1.0))
    assert worst.max() <= bound, (name, x[worst.argmax()], got[worst.argmax()],
                                  want[worst.argmax()])
    assert np.mean(worst <= 1.0) >= share, name
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zeros = want == 0
    assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros])), name


def mixed(x: Any) -> Any:
    return (ops.exp(ops.clip_by_value(x, -80.0, 80.0)) * 1e-30 + ops.tanh(x) * 2.0
            - ops.sigmoid(x) + ops.erf(x) * ops.erfc(x) + ops.gelu(x)
            + ops.gelu(x, approximate="tanh"))


def test_fused_loop_agrees_with_eager_and_numpy(tmp_path: Any, rng: Any) -> None:
    x = (rng.normal(size=(33, 40)) * 4).astype(F32)
    _, built = check_all(mixed, [x], tmp_path)
    kernel = "\n".join(built["numba"].spec.kernel.lines)
    for helper in HELPERS.values():
        assert helper in kernel, helper


def test_float64_keeps_the_exact_library_functions(tmp_path: Any, rng: Any) -> None:
    x = rng.normal(size=200) * 4
    _, built = check_all(float64_chain, [x], tmp_path, rtol=1e-13, atol=1e-15)
    kernel = "\n".join(built["numba"].spec.kernel.lines)
    assert "_rt_gelu(" in kernel and "math.erf(" in kernel, kernel
    assert not re.search(r"_rt_\w+64\(", kernel), kernel


@pytest.mark.parametrize("helper", sorted(HELPERS.values()))
def test_a_loop_over_each_form_vectorizes(helper: str) -> None:
    fn = getattr(numba_rt, helper)

    @njit(error_model="numpy")
    def loop(a: np.ndarray, out: np.ndarray) -> None:
        for i in range(a.shape[0]):
            out[i] = np.float32(fn(a[i]))

    a = np.linspace(-3, 3, 64).astype(F32)
    loop(a, np.empty_like(a))
    ir = loop.inspect_llvm(loop.signatures[0])
    body = ir[ir.index("define"):]
    body = body[:body.index("\n}\n")]  # the loop's own function, first in the module
    lane = "float" if helper.endswith("32") else "double"  # (in float32 arithmetic)
    assert re.search(rf"<\d+ x {lane}>", body), helper
    assert not re.search(r"call [^@]*@(exp|tanh|erf|erfc)\b", body), helper


@pytest.mark.parametrize("name", ["erf", "erfc", "gelu"])
def test_numpy_runtime_float32_erf_is_within_one_ulp(name: str) -> None:
    """Eager mode's and the python target's float32 erf family: blocks of numpy array
    operations (not a Python call per element), within one ulp, zeros' signs kept."""
    x = sample()
    got = {"erf": numpy_rt._rt_erf, "erfc": numpy_rt._rt_erfc,
           "gelu": lambda v: numpy_rt._rt_gelu(v, "none")}[name](x)
    with np.errstate(all="ignore"):
        got = np.asarray(got).astype(F32)
        want = FUNCTIONS[name][1](x).astype(F32)
    assert ulps(got, want).max() <= 1.0, name
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zeros = want == 0
    assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros])), name


def test_numpy_runtime_float64_erf_is_exact(rng: Any) -> None:
    x = np.concatenate([rng.normal(size=300) * 4, [0.0, -0.0, np.inf, -np.inf]])
    assert numpy_rt._rt_erf(x).tolist() == [math.erf(v) for v in x]
    assert numpy_rt._rt_erfc(x).tolist() == [math.erfc(v) for v in x]
    assert numpy_rt._rt_erf(np.float32(0.25)).shape == ()  # 0-d in, 0-d out


def softmaxes(x: Any) -> Any:
    return ops.softmax(x, axis=-1), ops.log_softmax(x, axis=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_rows_exponentiate_in_a_loop_of_their_own(dtype: Any, tmp_path: Any,
                                                         rng: Any) -> None:
    """float32 rows store ``_rt_exp32`` of each element first (a loop LLVM vectorizes),
    then sum them; float64 rows keep ``math.exp``. Both agree with eager mode."""
    x = (rng.normal(size=(6, 37)) * 20).astype(dtype)
    x[2, 5] = np.nan
    x[4] = -np.inf
    x[4, 3] = 0.0
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-14}
    _, built = check_all(softmaxes, [x], tmp_path, **tol)
    kernel = "\n".join(built["numba"].spec.kernel.lines)
    assert ("_rt_exp32(" in kernel) == (dtype == np.float32), kernel
    assert ("math.exp(" in kernel) == (dtype == np.float64), kernel

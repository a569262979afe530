"""The runtime helpers (``msc/runtime``) and how generated modules carry them.

numpy_rt is checked against formulas written independently here, numba_rt against
numpy_rt; rendered modules carry only the helpers their kernels call; and a numba kernel,
emitted once and jitted by ``_rt_jit``, caches apart per matmul flavour (checked with
real Numba in fresh processes, numpy's BLAS switched off in some of them).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
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
from msc.codegen.render import ON_IMPORT, render, runtime_snippets, snippets
from msc.compiler import arg_spec, compile_entry
from msc.errors import InternalCompilerError
from msc.runtime import numpy_rt as nrt

RUNTIME_DIR = pathlib.Path(nrt.__file__).parent
#: numpy's wheels bundle OpenBLAS (numpy.libs on Linux and Windows, numpy/.dylibs on macOS)
NUMPY_DIR = pathlib.Path(np.__file__).parent
HAVE_NUMPY_BLAS = any(folder.glob("*openblas*") for folder in
                      (NUMPY_DIR.parent / "numpy.libs", NUMPY_DIR / ".dylibs"))


# --- (a) numpy_rt against independent formulas ------------------------------------------


def test_pow_truncates_integer_negative_powers() -> None:
    x = np.array([-3, -2, -1, 0, 1, 2, 3] * 7, np.int32)
    y = np.repeat(np.arange(-3, 4), 7).astype(np.int32)
    got = nrt._rt_pow(x, y)

    def device(a: int, b: int) -> int:  # Python's exact power, truncated toward zero
        if b >= 0:
            return a ** b
        return 0 if a == 0 else math.trunc(a ** b)

    assert got.dtype == np.int32
    assert got.tolist() == [device(int(a), int(b)) for a, b in zip(x, y)]
    assert nrt._rt_pow(np.int64(2), np.int64(-1)) == 0 and nrt._rt_pow(-1, -3) == -1


def test_pow_of_floats_keeps_float32() -> None:
    x = np.array([0.5, 2.0, 3.0], np.float32)
    got = nrt._rt_pow(x, np.array([-1.0, 0.5, 2.0], np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [2.0, math.sqrt(2.0), 9.0], rtol=1e-6)


def gelu_reference(v: float, approximate: str) -> float:
    if approximate == "tanh":
        return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
    return v * 0.5 * (1 + math.erf(v / math.sqrt(2)))


@pytest.mark.parametrize("approximate", ["tanh", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu(approximate: str, dtype: Any, rng: np.random.Generator) -> None:
    x = rng.uniform(-4, 4, (3, 5)).astype(dtype)
    got = nrt._rt_gelu(x, approximate)
    assert got.dtype == dtype and got.shape == x.shape
    want = [gelu_reference(float(v), approximate) for v in x.ravel()]
    np.testing.assert_allclose(got.ravel(), want, rtol=2e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-7)
    zero_d = nrt._rt_gelu(np.array(1.25, dtype), approximate)  # 0-d: erf gives a bare float
    assert np.asarray(zero_d).dtype == dtype and np.shape(zero_d) == ()
    assert float(zero_d) == pytest.approx(gelu_reference(1.25, approximate), rel=1e-6)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,axes", [((4, 6), (1,)), ((2, 3, 4), (0, 2)), ((), ())])
def test_softmax(shape: tuple[int, ...], axes: tuple[int, ...], log: bool,
                 rng: np.random.Generator) -> None:
    x = rng.uniform(-5, 5, shape).astype(np.float32)
    got = np.asarray(nrt._rt_softmax(x, axes, log))
    assert got.dtype == np.float32 and got.shape == x.shape
    x64 = x.astype(np.float64)
    e = np.exp(x64)
    total = e.sum(axis=axes, keepdims=True) if axes else e
    want = x64 - np.log(total) if log else e / total
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp(dtype: Any, keep_dims: bool, rng: np.random.Generator) -> None:
    x = rng.uniform(-30, 30, (3, 4, 5)).astype(dtype)
    x[1, :, 2] = -np.inf  # a row of -inf: -inf, not nan
    with np.errstate(divide="ignore"):  # log(0): the callers run helpers this way
        got = nrt._rt_logsumexp(x, (1,), keep_dims)
    assert got.dtype == dtype and got.shape == ((3, 1, 5) if keep_dims else (3, 5))
    want = np.array([[math.log(math.fsum(math.exp(float(v)) for v in x[i, :, k]))
                      if np.isfinite(x[i, :, k]).any() else -math.inf for k in range(5)]
                     for i in range(3)])
    np.testing.assert_allclose(got.reshape(3, 5), want, rtol=1e-6)
    every = nrt._rt_logsumexp(x[0], (0, 1), keep_dims)
    assert every.shape == ((1, 1) if keep_dims else ())
    want_all = math.log(math.fsum(np.exp(x[0].astype(np.float64)).ravel()))
    assert every.ravel()[0] == pytest.approx(want_all)
    zero_d = nrt._rt_logsumexp(np.array(2.5, dtype), (), keep_dims)
    assert zero_d.dtype == dtype and zero_d.shape == () and float(zero_d) == 2.5


@pytest.mark.parametrize("begin", [1, -1, 0])
def test_layer_norm(begin: int, rng: np.random.Generator) -> None:
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    params = x.shape[begin % 3:]
    gamma = rng.standard_normal(params)  # float64 parameters: the result stays float32
    beta = rng.standard_normal(params)
    got = nrt._rt_layer_norm(x, gamma, beta, begin, 1e-5)
    assert got.dtype == np.float32 and got.shape == x.shape
    rows = x.astype(np.float64).reshape(math.prod(x.shape[:begin % 3]), -1)
    mean = rows.mean(axis=1, keepdims=True)
    var = ((rows - mean) ** 2).mean(axis=1, keepdims=True)
    want = ((rows - mean) / np.sqrt(var + 1e-5)).reshape(x.shape) * gamma + beta
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_print_text_and_print(capsys: Any) -> None:
    values = [np.float32(1.5), np.arange(3), np.array([[1.0, 2.0]], np.float32)]
    assert nrt.print_text("a {} b {} c {}", values) == "a 1.5 b [0 1 2] c [[1. 2.]]"
    assert nrt.print_text("{{literal}} {}", [np.array(True)]) == "{literal} True"
    nrt._rt_print("x={}, y={}", np.array(2, np.int64), [1, 2])
    assert capsys.readouterr().out == "x=2, y=[1 2]\n"


# --- (b) numba_rt agrees with numpy_rt ------------------------------------------------


@pytest.fixture(scope="module")
def nb() -> Any:
    from msc.runtime import numba_rt
    return numba_rt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numba_scalar_helpers_agree(nb: Any, dtype: Any, rng: np.random.Generator) -> None:
    x = rng.uniform(-4, 4, 40).astype(dtype)
    p = rng.uniform(0.1, 3, 40).astype(dtype)
    y = rng.uniform(-2, 2, 40).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for approximate in ("tanh", "none"):
        got = [nb._rt_gelu(v, approximate) for v in x]
        np.testing.assert_allclose(got, nrt._rt_gelu(x, approximate), rtol=rtol, atol=1e-6)
    np.testing.assert_allclose([nb._rt_pow(a, b) for a, b in zip(p, y)], nrt._rt_pow(p, y),
                               rtol=rtol)
    np.testing.assert_allclose(nb._rt_pow(p, y), nrt._rt_pow(p, y), rtol=rtol)  # arrays


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numba_matmul_helpers_agree(nb: Any, dtype: Any, rng: np.random.Generator) -> None:
    a = rng.standard_normal((5, 7)).astype(dtype)
    b = rng.standard_normal((7, 3)).astype(dtype)
    bt = np.ascontiguousarray(b.T).T  # Fortran order: the other loop order
    want = nrt._rt_matmul(a, b)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for right in (b, bt):
        got = nb._rt_matmul(a, right)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6)
        out = np.full((5, 3), np.nan, dtype)
        nb._rt_matmul_into(a, right, out, 0.0)
        np.testing.assert_allclose(out, want, rtol=rtol, atol=1e-6)
        out[...] = np.nan
        nb._rt_dot_loops(a, right, out)  # the loops, whatever SciPy says
        np.testing.assert_allclose(out, want, rtol=rtol, atol=1e-6)


def test_numba_print_is_numpy_print(nb: Any, capsys: Any) -> None:
    values = [np.arange(4).reshape(2, 2), np.float64(0.25)]
    assert nb.print_text("{} / {}", values) == nrt.print_text("{} / {}", values)
    nb._rt_print("{}", np.array([1.5], np.float32))
    assert capsys.readouterr().out == "[1.5]\n"


# --- (c) rendered modules carry only the helpers they call ---------------------------------


def source_of(fn: Any, inputs: list[np.ndarray], target: str) -> str:
    return compile_entry(fn, [arg_spec(x) for x in inputs], target=target, store=None).source


def defined(source: str) -> set[str]:
    """Top-level names a module binds, ``if``/``try`` blocks included."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def plain(x: Any) -> Any:
    return x * 2.0 + 1.0


def dense(x: Any, w: Any) -> Any:
    return ops.matmul(x, w) + 1.0


def gelu_print(x: Any) -> Any:
    y = ops.gelu(x)
    print("no _rt_pow here:", y)  # a helper's name in a Print format is not a call
    return y


X = np.ones((2, 3), np.float32)
W = np.ones((3, 4), np.float32)


@pytest.mark.parametrize("target", ["numba", "python"])
def test_a_module_without_helpers_defines_none(target: str) -> None:
    source = source_of(plain, [X], target)
    helpers = {n for n in defined(source) if n.startswith("_rt_") or n == "_HAVE_BLAS"}
    # numba's jit wrapper (with the guard that mends a damaged cache entry of Numba's),
    # and what every module calls when imported
    numba = {"_rt_jit", "_rt_guard", "_rt_index_sound", "_rt_set_aside", "_rt_warn"}
    assert helpers == (numba if target == "numba" else set()) | set(ON_IMPORT)
    assert "scipy" not in source and "__blas" not in source


def test_a_matmul_module_carries_the_matmul_helpers_only() -> None:
    numba = source_of(dense, [X, W], "numba")
    assert {"_rt_matmul", "_rt_matmul_into", "_rt_dot_loops", "_HAVE_BLAS", "_rt_jit"} \
        <= defined(numba)
    assert not {"_rt_gelu", "_rt_pow", "_rt_print", "print_text"} & defined(numba)
    assert numba.count("def _rt_matmul(") == 2  # the BLAS and the loops flavour
    assert re.search(r"^@_rt_jit\ndef dense\(", numba, re.MULTILINE)
    assert len(re.findall(r"^\s*def dense\(", numba, re.MULTILINE)) == 1  # emitted once
    python = source_of(dense, [X, W], "python")
    assert {n for n in defined(python) if n.startswith("_rt_")} == {"_rt_matmul", *ON_IMPORT}
    for source in (numba, python):
        assert "import msc" not in source and "from msc" not in source
        assert not [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)
                    and (n.module or "").startswith("msc")]


@pytest.mark.parametrize("target", ["numba", "python"])
def test_helpers_follow_from_the_calls_in_runtime_order(target: str, capsys: Any) -> None:
    source = source_of(gelu_print, [X], target)
    names = defined(source)
    # float32 GeLU on numba is _rt_gelu_none32, which reads exp's and erfc's coefficients,
    # the fused multiply-add and the bit cast
    gelu = {"_rt_gelu_none32", "_rt_exp32_poly", "_rt_erfc_p", "_rt_erfc_q", "_rt_fma32",
            "_rt_fma_intrinsic", "_rt_f32_of_bits", "_rt_bits_to_float"} \
        if target == "numba" else {"_rt_gelu"}
    assert gelu | {"_rt_print", "print_text"} <= names
    assert not {"_rt_pow", "_rt_matmul", "_HAVE_BLAS"} & names
    assert source == source_of(gelu_print, [X], target)  # deterministic
    order = [s for s in runtime_snippets(f"{'numba' if target == 'numba' else 'numpy'}_rt.py")
             if s.defines & names]
    positions = [source.index(s.source) for s in order]
    assert positions == sorted(positions)


def test_an_unknown_helper_is_a_compiler_error() -> None:
    spec = compile_entry(plain, [arg_spec(X)], target="python", store=None).spec
    from msc.ir.kernel import Eval, Helper, Name

    bad = dataclasses.replace(spec.kernel,
                              body=spec.kernel.body + (Eval(Helper("_rt_nothing", (Name("x"),))),))
    with pytest.raises(InternalCompilerError, match="_rt_nothing"):
        render(dataclasses.replace(spec, kernel=bad))


RUNTIME_TEXT = textwrap.dedent('''
    """A runtime file: a docstring,
    its imports, and statements."""

    import math

    import numpy as np

    # a comment between statements belongs to neither
    _rt_TABLE = (1.0,
    2.0)


    @njit(cache=True,
          error_model="numpy")
    def _rt_first(x):
        return _rt_TABLE[0] * math.exp(x)  # reads _rt_TABLE, not math


    if _rt_TABLE:
        def _rt_second(x):
            return _rt_first(x)
    else:
        _rt_second = None
    ''')


def test_runtime_statements_are_read_by_the_compiler() -> None:
    """Each top-level statement (a decorator with its def, an if with its else, a
    bracket continued in column 0) with the names it binds and the helpers it reads."""
    got = [(s.source.split("\n")[0], set(s.defines), set(s.reads))
           for s in snippets(RUNTIME_TEXT, "test_rt.py")]
    assert got == [("_rt_TABLE = (1.0,", {"_rt_TABLE"}, set()),
                   ("@njit(cache=True,", {"_rt_first"}, {"_rt_TABLE"}),
                   ("if _rt_TABLE:", {"_rt_second"}, {"_rt_TABLE", "_rt_first"})]
    assert snippets(RUNTIME_TEXT, "test_rt.py")[1].source.endswith("math.exp(x)  # reads "
                                                                    "_rt_TABLE, not math")


def test_runtime_statements_are_kept_on_disk_and_checked(tmp_path: pathlib.Path,
                                                         monkeypatch: Any) -> None:
    """The statements come back from the compile cache's folder as they were read; a
    file whose checksum fails (an edited statement) is read from the source again."""
    from msc.codegen.render import _kept

    monkeypatch.setenv("MSC_COMPILER_CACHE_PATH", str(tmp_path))
    want = snippets(RUNTIME_TEXT, "test_rt.py", frozenset({"_rt_x"}))
    assert _kept(RUNTIME_TEXT, "test_rt.py", frozenset({"_rt_x"})) == want
    (kept,) = (tmp_path / "snippets").iterdir()
    assert _kept(RUNTIME_TEXT, "test_rt.py", frozenset({"_rt_x"})) == want  # (from the file)
    kept.write_text(kept.read_text().replace("math.exp(x)", "math.exp(-x)"))
    assert _kept(RUNTIME_TEXT, "test_rt.py", frozenset({"_rt_x"})) == want
    assert _kept(RUNTIME_TEXT, "test_rt.py", frozenset()) == snippets(RUNTIME_TEXT, "test_rt.py")
    assert len(list((tmp_path / "snippets").iterdir())) == 2  # (another key, another file)


def test_a_runtime_file_imports_only_what_templates_provide() -> None:
    with pytest.raises(InternalCompilerError, match=r"imports \['scipy'\]"):
        snippets(RUNTIME_TEXT.replace("import math", "import math, scipy"), "test_rt.py")


# --- (d) the matmul flavour names the kernel's Numba cache -----------------------------------

PROBE = textwrap.dedent("""
    import json, os, sys
    if sys.argv[2] == "off":  # a machine whose numpy bundles no BLAS
        os.environ["MSC_NUMBA_BLAS"] = "0"
    sys.modules["scipy"] = None  # the BLAS is numpy's own: SciPy is never needed
    sys.modules["msc"] = None  # an artifact never needs msc
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import mm_model as m
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    out = m.run(x, w, *m.load_weights() if m.WEIGHTS else ())
    kernel = getattr(m, sys.argv[3])
    print(json.dumps({"blas": m._HAVE_BLAS, "qualname": kernel.py_func.__qualname__,
                      "hits": len(kernel.stats.cache_hits),
                      "misses": len(kernel.stats.cache_misses),
                      "ok": bool(np.allclose(out, x @ w + 1, rtol=1e-6))}))
""")


def test_the_kernel_cache_is_kept_apart_per_matmul_flavour(tmp_path: pathlib.Path) -> None:
    spec = compile_entry(dense, [arg_spec(X), arg_spec(W)], target="numba", store=None).spec
    (tmp_path / "mm_model.py").write_text(render(spec))
    (tmp_path / "probe.py").write_text(PROBE)

    def run(blas: str) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, str(tmp_path / "probe.py"), str(tmp_path),
                               blas, spec.kernel.name], capture_output=True, text=True,
                              timeout=300, env={**os.environ, "NUMBA_CACHE_DIR": ""})
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def indexes(flavour: str) -> list[str]:
        return sorted(p.name for p in (tmp_path / "__pycache__").glob(
            f"mm_model.{spec.kernel.name}{flavour}-*.nbi"))

    native = "__blas" if HAVE_NUMPY_BLAS else "__loops"
    first, second = run("on"), run("on")
    assert first["qualname"] == spec.kernel.name + native and first["ok"]
    assert (first["misses"], first["hits"]) == (1, 0)  # compiled, then stored
    assert (second["misses"], second["hits"]) == (0, 1)  # a fresh process loads it
    assert len(indexes(native)) == 1
    if not HAVE_NUMPY_BLAS:
        return
    assert first["blas"] is True and not indexes("__loops")
    hidden, hidden_again = run("off"), run("off")
    assert hidden["blas"] is False and hidden["qualname"] == spec.kernel.name + "__loops"
    assert (hidden["misses"], hidden["hits"]) == (1, 0)  # the BLAS build is not served
    assert (hidden_again["misses"], hidden_again["hits"]) == (0, 1)
    assert hidden["ok"] and hidden_again["ok"]
    assert len(indexes("__loops")) == 1 and len(indexes("__blas")) == 1
    back = run("on")  # and the loops build never displaces the BLAS one
    assert back["blas"] is True and (back["misses"], back["hits"]) == (0, 1)


# --- (e) the runtime modules stand alone ------------------------------------------------


@pytest.mark.parametrize("path", sorted(RUNTIME_DIR.glob("*.py")), ids=lambda p: p.name)
def test_runtime_modules_import_nothing_from_msc(path: pathlib.Path) -> None:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: a relative import"
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"math", "numpy", "numba", "llvmlite", "ctypes", "glob", "os", "sys",
                        "time", "mpi4py", "queue", "threading", "weakref"}, imported
    assert "msc" not in imported


# --- (f) a module keeps freed memory for the next call -----------------------------------

REUSE = textwrap.dedent("""
    import json, resource, sys
    import numpy as np
    if sys.argv[2] == "module":
        sys.path.insert(0, sys.argv[1])
        import plain_model  # noqa: F401 - importing it is what is measured
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    counts = []
    for _ in range(3):  # two 24 MiB intermediates, made and freed as a call does
        before = faults()
        a, b = np.ones(6 << 20, np.float32), np.ones(6 << 20, np.float32)
        del a, b
        counts.append(faults() - before)
    print(json.dumps(counts))
""")


@pytest.mark.skipif(not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
                    reason="the allocator setting is glibc's")
@pytest.mark.parametrize("target", ["numba", "python"])
def test_importing_a_module_keeps_freed_memory_for_the_next_call(
        target: str, tmp_path: pathlib.Path) -> None:
    """Without it glibc gives two freed 24 MiB blocks back to the kernel (unmapped, then
    trimmed off the heap), and each call faults their pages in again (12,288 of 4 KiB,
    fewer where numpy asks for huge pages); with it the calls after the first reuse the
    first's pages."""
    (tmp_path / "plain_model.py").write_text(source_of(plain, [X], target))
    (tmp_path / "reuse.py").write_text(REUSE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}

    def counts(mode: str) -> list[int]:
        proc = subprocess.run([sys.executable, str(tmp_path / "reuse.py"), str(tmp_path),
                               mode], capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    alone, imported = counts("plain"), counts("module")
    assert min(alone[1:]) >= 20  # the control: each call faults the blocks in again
    assert max(imported[1:]) * 10 < min(alone[1:]), (alone, imported)

"""Run one generated program every way msc can, and compare each run with eager mode.

The ways: eager (PyNative), the reference interpreter on the optimized IR, GRAPH_MODE on
each in-process target, and an artifact written by ``msc compile`` and run in a fresh
process. A way agrees when it returns the same structure, shapes, dtypes and values
(floats to a tolerance of their dtype, everything else exactly), leaves the Parameters
with the same values, or raises the same built-in kind of exception. A clear msc error
where eager mode runs is a *rejection*, counted but not a disagreement; an
``InternalCompilerError`` or any other exception from the compiler is a finding.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import msc as ms
from msc.errors import InternalCompilerError, MscError
from msc.fuzz.generate import Program

#: (rtol, atol) per float dtype: numba computes float32 transcendentals in float64.
TOLERANCE = {"float16": (2e-3, 2e-3), "float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}
_BUILTIN_KINDS = (IndexError, KeyError, ZeroDivisionError, AttributeError, NameError,
                  ValueError, TypeError, RuntimeError, AssertionError)


@dataclass
class Outcome:
    """What one way of running gave: ``kind`` is "ok" (``value``: outputs and
    Parameters), "raised" (the user's exception), "rejected" (msc's own clear error)
    or "internal" (a compiler bug); ``error`` names the exception."""

    kind: str
    value: Any = None
    error: str = ""


def load(program: Program, folder: Path, name: str) -> Any:
    """Write the program's module and import it (registered, as msc reads its source)."""
    path = folder / f"{name}.py"
    path.write_text(program.source())
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _kind(e: BaseException) -> str:
    """The built-in exception kind a user's ``except`` would name."""
    return next((k.__name__ for k in _BUILTIN_KINDS if isinstance(e, k)), type(e).__name__)


def _capture(run: Any, compiled: bool) -> Outcome:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Outcome("ok", run())
    except InternalCompilerError as e:
        return Outcome("internal", error=f"InternalCompilerError: {e}")
    except MscError as e:
        # msc's clear errors: at compile time a rejection, at run time the user's error
        return Outcome("rejected" if compiled and _compile_time(e) else "raised",
                       error=f"{_kind(e)}: {e}")
    except (MemoryError, KeyboardInterrupt, _Timeout):
        raise
    except BaseException as e:  # noqa: BLE001 - anything else the program raised
        return Outcome("raised", error=f"{_kind(e)}: {e}")


def _compile_time(e: MscError) -> bool:
    """An msc error with a location is one the frontend or a pass raised: the program
    was refused; run-time errors come from generated code (eager ones have a loc too)."""
    return e.loc is not None


@dataclass
class Leaf:
    """One returned value: ``tensor`` False for a Python number (eager mode returns those
    where a graph returns 0-d tensors, so only their values are compared)."""

    array: np.ndarray
    tensor: bool = True


def _values(out: Any, params: list[Any]) -> tuple[Any, tuple[np.ndarray, ...]]:
    def norm(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return tuple(norm(x) for x in v)
        if isinstance(v, ms.Tensor):
            return Leaf(v.asnumpy().copy())
        if isinstance(v, np.ndarray):
            return Leaf(v.copy())
        return Leaf(np.asarray(v), tensor=False)
    return (norm(out), tuple(np.array(p, copy=True) for p in params))


class _Timeout(BaseException):
    pass


def run_eager(module: Any, program: Program, seconds: float = 20.0) -> Outcome:
    """Eager mode, given up after ``seconds`` (a shrunk program may never stop): then
    the outcome is "timeout" and no other way runs it."""
    def go() -> Any:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net = module.Net()
        out = net(*[ms.Tensor(x) for x in program.inputs])
        return _values(out, [p.asnumpy() for p in _params(net)])

    def expire(*_: Any) -> None:
        raise _Timeout()
    main = threading.current_thread() is threading.main_thread()
    if main:
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return _capture(go, compiled=False)
    except _Timeout:
        return Outcome("timeout", error=f"eager mode ran longer than {seconds:g} s")
    finally:
        if main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def run_graph(module: Any, program: Program, target: str) -> Outcome:
    def go() -> Any:
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target, enable_compile_cache=False)
        net = module.Net()
        out = net(*[ms.Tensor(x) for x in program.inputs])
        return _values(out, [p.asnumpy() for p in _params(net)])
    try:
        return _capture(go, compiled=True)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_target="numba", enable_compile_cache=None)


def run_interpreter(module: Any, program: Program) -> Outcome:
    from msc.compiler import arg_spec, compile_entry
    from msc.ir.interpret import interpret

    def go() -> Any:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = module.Net()
        compiled = compile_entry(net, [arg_spec(x) for x in program.inputs], store=None,
                                 target="python")
        assert compiled.module is not None
        weights = [np.array(p.asnumpy(), copy=True) for p in compiled.weights]
        out = interpret(compiled.module, [np.array(x, copy=True) for x in program.inputs],
                        weights)
        by_id = {id(p): w for p, w in zip(compiled.weights, weights)}
        return _values(out, [by_id.get(id(p), p.asnumpy()) for p in _params(net)])
    try:
        return _capture(go, compiled=True)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


_ARTIFACT_RUNNER = """
import importlib.util, json, sys
import numpy as np
spec = importlib.util.spec_from_file_location("fuzz_artifact", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["fuzz_artifact"] = module
spec.loader.exec_module(module)
inputs = np.load(sys.argv[2])
try:
    out = module.forward(*[inputs[f"x{i}"] for i in range(len(inputs.files))])
except Exception as e:
    print(json.dumps({"raised": type(e).__name__ + ": " + str(e)}))
    sys.exit(0)
flat = out if isinstance(out, tuple) else (out,)
np.savez(sys.argv[3], *[np.asarray(v) for v in flat])
print(json.dumps({"ok": len(flat), "tuple": isinstance(out, tuple)}))
"""


def run_artifact(program: Program, folder: Path, target: str) -> Outcome:
    """``msc compile`` into a folder, then the artifact in a fresh Python without msc's
    frontend (outputs only: the artifact keeps its weights to itself)."""
    source = folder / "artifact_model.py"
    source.write_text(program.source())
    out_dir = folder / f"artifact_{target}"
    specs = [f"{_short(x.dtype)}[{','.join(map(str, x.shape))}]" for x in program.inputs]
    args = [sys.executable, "-m", "msc", "compile", str(source), "Net", "--target", target,
            "-o", str(out_dir), "--quiet", "--no-cache"]
    for s in specs:
        args += ["--input", s]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        text = proc.stderr.strip().splitlines()
        last = text[-1] if text else "msc compile failed"
        kind = "internal" if "InternalCompilerError" in proc.stderr or "Traceback" in \
            proc.stderr else "rejected"
        return Outcome(kind, error=last)
    np.savez(folder / "inputs.npz", **{f"x{i}": x for i, x in enumerate(program.inputs)})
    module = next(p for p in out_dir.glob("*.py") if p.name != "__init__.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", _ARTIFACT_RUNNER, str(module),
                           str(folder / "inputs.npz"), str(folder / "outputs.npz")],
                          capture_output=True, text=True, timeout=600, env=env,
                          cwd=str(folder))
    if proc.returncode != 0:
        return Outcome("internal", error=proc.stderr.strip().splitlines()[-1])
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    if "raised" in report:
        return Outcome("raised", error=report["raised"])
    with np.load(folder / "outputs.npz") as f:
        flat = tuple(Leaf(f[f"arr_{i}"]) for i in range(report["ok"]))
    return Outcome("ok", (flat if report["tuple"] else flat[0], None))


def _short(dtype: np.dtype) -> str:
    return {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32",
            "int64": "i64", "bool": "bool", "uint8": "u8"}[np.dtype(dtype).name]


def _params(net: Any) -> list[Any]:
    return [getattr(net, n) for n in sorted(vars(net)) if n.startswith("p") and n[1:].isdigit()] \
        if hasattr(net, "p0") else []


# --- comparing ---------------------------------------------------------------------------------


def disagreement(eager: Outcome, other: Outcome) -> str | None:
    """Why ``other`` does not agree with eager mode, or None."""
    if other.kind == "internal":
        return f"internal error: {other.error.splitlines()[0][:300]}"
    if other.kind == "rejected":
        return None  # counted apart: msc refuses the program with a clear error
    if eager.kind == "raised" or other.kind == "raised":
        if eager.kind == other.kind == "raised":
            same = eager.error.split(":")[0] == other.error.split(":")[0]
            return None if same else f"raised {other.error[:200]!r}, eager " \
                f"{eager.error[:200]!r}"
        if eager.kind == "raised":
            return f"returned a value where eager raised {eager.error[:200]!r}"
        return f"raised {other.error[:300]!r} where eager returned a value"
    if eager.kind != "ok":
        return None
    out, params = other.value
    want_out, want_params = eager.value
    problem = _compare(out, want_out, "output")
    if problem is None and params is not None:
        problem = _compare(tuple(Leaf(p) for p in params), tuple(Leaf(p) for p in want_params),
                           "parameter")
    return problem


def _compare(got: Any, want: Any, where: str) -> str | None:
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or len(got) != len(want):
            return f"{where}: structure differs"
        for i, (g, w) in enumerate(zip(got, want)):
            problem = _compare(g, w, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if not isinstance(got, Leaf):
        return f"{where}: structure differs"
    g, w = got.array, want.array
    if got.tensor and want.tensor and g.dtype != w.dtype:
        return f"{where}: dtype {g.dtype} != eager's {w.dtype}"
    if g.shape != w.shape:
        return f"{where}: shape {g.shape} != eager's {w.shape}"
    if w.dtype.kind == "f" or g.dtype.kind == "f":
        rtol, atol = TOLERANCE.get(str(w.dtype), TOLERANCE["float32"])
        ok = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                         equal_nan=True)
    else:
        ok = np.array_equal(g, w)
    if not ok:
        return f"{where}: values differ: {g.ravel()[:6]} vs eager's {w.ravel()[:6]}"
    return None

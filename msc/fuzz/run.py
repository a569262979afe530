"""Run one generated program every way msc can.

The ways: eager (PyNative), the reference interpreter on the optimized IR, each
in-process target (the Cell's graph-mode path: ``compile_entry`` then the compiled code),
and an artifact written by ``msc compile`` and imported in a fresh Python process. Every
way builds a fresh ``Net`` (so its Parameters start from the same values) and gets fresh
copies of the inputs. An ``Outcome`` records the result and the Parameters after the call,
or the exception and the phase that raised it: an ``MscError`` while compiling is msc
refusing the program ("rejected"), an ``InternalCompilerError`` anywhere is msc's bug.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

import msc as ms
from msc.codegen.render import import_file
from msc.errors import InternalCompilerError, MscError
from msc.fuzz.grads import IllConditioned, finite_gradients

#: Built-in kinds an ``except`` clause would name, most specific first.
#: The threads the "numba-outlined" way's code runs on: more parts than this machine's CPUs,
#: of unequal lengths where a range does not divide by three.
OUTLINED_THREADS = "3"


@contextmanager
def _threads(count: str | None) -> Iterator[None]:
    """``MSC_NUM_THREADS`` set to ``count`` (None: as it is) while the block runs."""
    before = os.environ.get("MSC_NUM_THREADS")
    if count is not None:
        os.environ["MSC_NUM_THREADS"] = count
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MSC_NUM_THREADS", None)
        else:
            os.environ["MSC_NUM_THREADS"] = before


_KINDS = (ZeroDivisionError, IndexError, KeyError, AssertionError, NotImplementedError,
          ValueError, TypeError, NameError, AttributeError, RuntimeError, ArithmeticError)


@dataclass
class Leaf:
    """One returned value: ``tensor`` False for a Python number (eager mode returns those
    where a graph returns 0-d tensors, so only their values are compared)."""

    array: np.ndarray
    tensor: bool = True


@dataclass
class Outcome:
    """What one way of running gave. ``kind``: "ok" (``value``: the outputs as nested
    tuples of ``Leaf``; ``params``: Parameter name -> value after the call), "raised" (the
    program's exception, ``error`` "Kind: message"), "rejected" (msc's own clear error
    while compiling), "internal" (``InternalCompilerError``), "timeout", "ill-conditioned"
    (eager's finite-difference gradients have no steady value) or "invalid" (the source
    does not even import)."""

    kind: str
    value: Any = None
    params: dict[str, np.ndarray] | None = None
    error: str = ""
    some_params: bool = False  # ``params`` holds only the Parameters the code uses
    phase: str = ""  # "compile" or "run", for errors

    @property
    def exception(self) -> str:
        return self.error.split(":", 1)[0]


def kind_of(e: BaseException) -> str:
    """The built-in exception kind a user's ``except`` would name."""
    return next((k.__name__ for k in _KINDS if isinstance(e, k)), type(e).__name__)


def first_line(e: BaseException) -> str:
    text = e.message if isinstance(e, MscError) else str(e)
    return (text.strip().splitlines() or [""])[0][:300]


class _Timeout(BaseException):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``_Timeout`` after ``seconds`` (main thread only; Numba's compiled loops
    cannot be interrupted, Python-level ones can)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(*_: Any) -> None:
        raise _Timeout()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def load(source: str, folder: Path, name: str) -> Any:
    """Write the program's module and import it (registered: msc reads its source)."""
    path = folder / f"{name}.py"
    path.write_text(source)
    return import_file(str(path), name)


def leaves(out: Any) -> Any:
    if isinstance(out, (tuple, list)):
        return tuple(leaves(x) for x in out)
    if isinstance(out, ms.Tensor):
        return Leaf(out.asnumpy().copy())
    if isinstance(out, np.ndarray):
        return Leaf(out.copy())
    return Leaf(np.asarray(out), tensor=False)


def same_leaves(a: Any, b: Any) -> bool:
    """Whether two ``leaves`` structures hold the same bits."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same_leaves, a, b))
    return a.array.tobytes() == b.array.tobytes()


def parameters(net: Any) -> dict[str, np.ndarray]:
    return {name: p.asnumpy().copy() for name, p in net.parameters_and_names()}


def loop_vmap(fn: Callable[..., Any], in_axes: Any, out_axes: int) -> Callable[..., Any]:
    """``ops.vmap`` as eager mode's reference: ``fn`` called example by example and the
    results stacked (the generator's forms: one axis or None per tensor argument). A
    Parameter with a batch axis gives each example a Parameter of its own slice, written
    back after the call."""
    def batched(*args: Any) -> Any:
        size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
        rows = []
        for k in range(size):
            own = [a if ax is None else
                   (ms.Parameter if isinstance(a, ms.Parameter) else ms.Tensor)(
                       ms.Tensor(np.take(a.asnumpy(), k, axis=ax)))
                   for a, ax in zip(args, in_axes)]
            rows.append(fn(*own))
            for a, ax, mine in zip(args, in_axes, own):
                if ax is not None and isinstance(a, ms.Parameter):
                    index = [slice(None)] * a.ndim
                    index[ax] = k
                    a.asnumpy()[tuple(index)] = mine.asnumpy()
        return ms.Tensor(np.stack([r.asnumpy() for r in rows], axis=out_axes))
    return batched


def tensors(inputs: list[np.ndarray]) -> list[Any]:
    return [ms.Tensor(np.array(x, copy=True)) for x in inputs]


@dataclass
class Ways:
    """The ways of running one loaded program module on ``inputs``."""

    module: Any
    inputs: list[np.ndarray]
    seconds: float = 20.0
    quiet: bool = True
    phase: list[str] = field(default_factory=lambda: ["compile"])

    def _capture(self, go: Callable[[], Outcome], graph: bool, limit: bool = True) -> Outcome:
        """``go``'s outcome; with ``limit``, one that runs too long is stopped (not Numba:
        an alarm inside its compiler corrupts its state for the rest of the process)."""
        self.phase[0] = "compile" if graph else "run"  # ``go`` moves it on to "run"
        try:
            with warnings.catch_warnings(), time_limit(self.seconds if limit else 0):
                warnings.simplefilter("ignore")
                return go()
        except _Timeout:
            return Outcome("timeout", error=f"ran longer than {self.seconds:g} s",
                           phase=self.phase[0])
        except IllConditioned as e:
            return Outcome("ill-conditioned", error=str(e), phase=self.phase[0])
        except InternalCompilerError as e:
            return Outcome("internal", error=f"InternalCompilerError: {first_line(e)}",
                           phase=self.phase[0])
        except MscError as e:
            rejected = graph and self.phase[0] == "compile"
            return Outcome("rejected" if rejected else "raised",
                           error=f"{kind_of(e)}: {first_line(e)}", phase=self.phase[0])
        except (KeyboardInterrupt, MemoryError):
            raise
        except BaseException as e:  # noqa: BLE001 - whatever the program (or msc) raised
            return Outcome("raised", error=f"{kind_of(e)}: {first_line(e)}",
                           phase=self.phase[0])
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE, jit_target="numba")

    def eager(self) -> Outcome:
        def go() -> Outcome:
            ms.set_context(mode=ms.PYNATIVE_MODE)
            net = self.module.Net()
            batched, ms.ops.vmap = ms.ops.vmap, loop_vmap
            try:
                with finite_gradients():
                    out = net(*tensors(self.inputs))
            finally:
                ms.ops.vmap = batched
            return Outcome("ok", leaves(out), parameters(net))
        return self._capture(go, graph=False)

    def graph(self, ways: list[str]) -> dict[str, Outcome]:
        """The interpreter and the in-process targets in ``ways``, from one build (the
        frontend and passes do not depend on the target): each way starts from the
        Parameters' initial values and fresh inputs. A failing build fails every way."""
        from msc.compiler import arg_spec, build

        built: list[Any] = []

        def compile_it() -> Outcome:
            ms.set_context(mode=ms.GRAPH_MODE)
            net = self.module.Net()
            built[:] = [net, build(net, [arg_spec(x) for x in self.inputs])]
            return Outcome("ok")
        made = self._capture(compile_it, graph=True)
        if made.kind != "ok":
            return {way: made for way in ways}
        net, result = built
        initial = [(p, p.asnumpy().copy()) for _, p in net.parameters_and_names()]
        out = {}
        for way in ways:
            for p, value in initial:
                p.set_data(value)
            run = {"interpreter": self._interpret, "onnx": self._onnx}.get(way, self._target)
            out[way] = self._capture(lambda w=way: run(net, result, w), graph=True,
                                     limit=not way.startswith("numba"))
        return out

    def _target(self, net: Any, built: Any, way: str) -> Outcome:
        """The Cell's GRAPH_MODE path (``jit.CompileCache.call``) after the build: code
        generation, then the compiled code on the call's tensors. The way "numba-outlined"
        is the numba target with the entry outlined into library kernels, however small,
        every loop nest it can spread spread over three threads (``OUTLINED_THREADS``)."""
        from msc.codegen import lower, outline, threads
        from msc.compiler import generate, runnable

        outlined = way == "numba-outlined"
        target = "numba" if outlined else way
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
        # every fused result of the entry goes through run's buffer pool, however small
        pool_bytes, lower.POOL_BYTES = lower.POOL_BYTES, 0
        lines, work = outline.OUTLINE_LINES, threads.MIN_WORK
        outline.OUTLINE_LINES, threads.MIN_WORK = (0, 0) if outlined else (lines, work)
        try:
            compiled = runnable(built, generate(built, target, "jit"))
        finally:
            lower.POOL_BYTES = pool_bytes
            outline.OUTLINE_LINES, threads.MIN_WORK = lines, work
        compiled.load()
        self.phase[0] = "run"  # Numba compiles on the first call: an error there is a bug
        with _threads(OUTLINED_THREADS if outlined else None):
            before = parameters(net)
            out = compiled.run(tensors(self.inputs))
            outcome = Outcome("ok", leaves(out), parameters(net))
            try:  # a result the caller holds must not change, however the next call ends
                again = leaves(compiled.run(tensors(self.inputs)))
            except Exception:  # noqa: BLE001 - the Parameters it wrote may lead elsewhere
                again = None
        if not same_leaves(leaves(out), outcome.value):
            raise InternalCompilerError("a result changed when the program ran again")
        unwritten = all(before[k].tobytes() == v.tobytes() for k, v in outcome.params.items())
        if unwritten and again is not None and not same_leaves(again, outcome.value):
            # (what a call keeps for the next, such as a Winograd layer's transformed
            # filters, must give the first call's bits)
            raise InternalCompilerError("a second call on the same inputs and weights gave "
                                        "other results")
        return outcome

    def _interpret(self, net: Any, built: Any, _way: str) -> Outcome:
        """The reference interpreter on the optimized IR, weights as fresh arrays."""
        from msc.ir.interpret import interpret

        self.phase[0] = "run"
        weights = [np.array(p.asnumpy(), copy=True) for p in built.weights]
        out = interpret(built.module, [np.array(x, copy=True) for x in self.inputs], weights)
        by_id = {id(p): w for p, w in zip(built.weights, weights)}
        params = {n: by_id.get(id(p), p.asnumpy()).copy() for n, p in net.parameters_and_names()}
        return Outcome("ok", leaves(out), params)


    def _onnx(self, net: Any, built: Any, _way: str) -> Outcome:
        """The optimized IR exported to ONNX (``msc.onnx``) and run by onnxruntime; an op
        the export refuses is msc refusing the program. The model writes no Parameter
        (the export refuses graphs that do), so only the outputs are compared."""
        import onnxruntime as ort

        from msc.compiler import flatten_tensors
        from msc.onnx.onnx_export import model_of

        out_type = built.module.entry_graph.output.type
        model = model_of(built)
        try:
            options = ort.SessionOptions()
            options.log_severity_level = 3  # errors only (not its notes on unused inputs)
            session = ort.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
        except Exception as e:  # a valid model onnxruntime has no kernel for: not msc's
            if "NOT_IMPLEMENTED" not in str(e):
                raise
            raise MscError(f"onnxruntime has no kernel: {str(e).split(' : ')[-1]}") from None
        self.phase[0] = "run"
        arrays = [x._data for x in flatten_tensors(tensors(self.inputs))]
        outs = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})
        return Outcome("ok", _onnx_leaves(iter(outs), out_type), None)


def _onnx_leaves(outs: Iterator[np.ndarray], t: Any) -> Any:
    """ONNX's flat outputs in the structure of the graph's output type."""
    from msc.ir.types import PyType, TensorType, TupleType

    if isinstance(t, TupleType):
        return tuple(_onnx_leaves(outs, e) for e in t.elems)
    if isinstance(t, PyType):
        raise MscError("the ONNX way compares tensor and number outputs only")
    return Leaf(next(outs), tensor=isinstance(t, TensorType))


# --- artifacts, in a fresh process -------------------------------------------------------

#: ``msc compile`` with the native target cutting every loop nest, copy and nest of
#: products it can into parts, however small, and every product by weights on its packed
#: kernel (``python -c`` this, then msc's arguments).
_SPREAD_ALL = ("import sys, msc.codegen.threads, msc.codegen.native.cgen\n"
               "msc.codegen.threads.MIN_WORK = msc.codegen.native.cgen.COPY_SIZE = 0\n"
               "msc.codegen.native.cgen.PRODUCT_WORK = msc.codegen.native.cgen.PACKED_WORK = 0\n"
               "from msc.cli import main\nsys.exit(main(sys.argv[1:]))")

_ARTIFACT_RUNNER = r"""
import importlib.util, json, sys
import numpy as np
path, inputs_file, out_file = sys.argv[1:4]
name = path.rsplit("/", 1)[-1][:-3]
spec = importlib.util.spec_from_file_location(name, path)
module = importlib.util.module_from_spec(spec)
sys.modules[name] = module
spec.loader.exec_module(module)
with np.load(inputs_file) as f:
    inputs = [f[f"x{i}"] for i in range(len(f.files))]
before = [np.array(w, copy=True) for w in module.load_weights()]
try:
    out = module.forward(*inputs)
except Exception as e:
    print(json.dumps({"raised": type(e).__name__, "kinds": [k.__name__ for k in type(e).__mro__],
                      "message": str(e).splitlines()[0] if str(e) else ""}))
    sys.exit(0)
def flat(v):
    return [b for x in v for b in flat(x)] if isinstance(v, tuple) else [np.asarray(v).tobytes()]
if all(a.tobytes() == np.asarray(b).tobytes() for a, b in zip(before, module.load_weights())):
    if flat(module.forward(*inputs)) != flat(out):  # (what a call keeps for the next)
        print(json.dumps({"unstable": True}))
        sys.exit(0)
arrays = {}
def walk(v):
    if isinstance(v, tuple):
        return [walk(x) for x in v]
    if v is None:
        return None
    key = f"o{len(arrays)}"
    arrays[key] = np.asarray(v)
    if arrays[key].dtype.hasobject:
        arrays[key] = np.array(repr(v))
    return [key, isinstance(v, np.ndarray)]
structure = walk(out)
for n, w in zip(module.WEIGHTS, module.load_weights()):
    arrays["w:" + n] = w
np.savez(out_file, **arrays)
print(json.dumps({"ok": structure}))
"""


def artifact(source: str, inputs: list[np.ndarray], folder: Path, target: str,
             seconds: float = 300.0) -> Outcome:
    """``msc compile`` into a folder, then ``forward`` in a fresh Python that never imports
    msc; the Parameters are the artifact's weights after the call. Target "native" is
    ``msc compile --native``, run through its ctypes wrapper, with every loop nest and
    copy it can cut into parts so cut (``_SPREAD_ALL``) and run on three threads."""
    model = folder / "artifact_model.py"
    model.write_text(source)
    out_dir = folder / f"artifact_{target}"
    msc = ["-c", _SPREAD_ALL] if target == "native" else ["-m", "msc"]
    args = [sys.executable, *msc, "compile", str(model), "Net", "-o", str(out_dir),
            "--quiet", "--no-cache"] + (["--native"] if target == "native" else
                                        ["--target", target])
    for x in inputs:
        args += ["--input", f"{_short(x.dtype)}[{','.join(map(str, x.shape))}]"]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return Outcome("timeout", error="msc compile timed out", phase="compile")
    if proc.returncode != 0:
        return _compile_failure(proc.stderr)
    np.savez(folder / "inputs.npz", **{f"x{i}": x for i, x in enumerate(inputs)})
    module = next(p for p in out_dir.glob("*.py") if p.name != "__init__.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if target == "native":
        env["MSC_NUM_THREADS"] = OUTLINED_THREADS
    try:
        proc = subprocess.run([sys.executable, "-c", _ARTIFACT_RUNNER, str(module),
                               str(folder / "inputs.npz"), str(folder / "outputs.npz")],
                              capture_output=True, text=True, timeout=seconds, env=env,
                              cwd=str(folder))
    except subprocess.TimeoutExpired:
        return Outcome("timeout", error="the artifact timed out", phase="run")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["the artifact crashed"])[-1]
        return Outcome("internal", error=f"artifact crashed: {last}", phase="run")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    if "unstable" in report:
        return Outcome("internal", error="artifact: a second call on the same inputs and "
                       "weights gave other results", phase="run")
    if "raised" in report:
        kind = next((k.__name__ for k in _KINDS if k.__name__ in report["kinds"]),
                    report["raised"])
        return Outcome("raised", error=f"{kind}: {report['message']}", phase="run")
    with np.load(folder / "outputs.npz") as f:
        def build(node: Any) -> Any:
            if node is None:  # (as the in-process ways hold a None result)
                return Leaf(np.asarray(None), tensor=False)
            if isinstance(node, list) and len(node) == 2 and isinstance(node[0], str):
                return Leaf(f[node[0]], tensor=bool(node[1]))
            return tuple(build(x) for x in node)
        value = build(report["ok"])
        params = {k[2:]: f[k] for k in f.files if k.startswith("w:") and
                  not k.startswith("w:__const")}
    return Outcome("ok", value, params, some_params=True)


def _compile_failure(stderr: str) -> Outcome:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    if len(lines) >= 2 and lines[-1].startswith("raised while building the graph"):
        return Outcome("raised", error=lines[-2][:300], phase="compile")  # the user's raise
    text = next((line for line in lines if ": " in line and not line.startswith(" ")),
                lines[-1] if lines else "msc compile failed")
    if "Traceback" in stderr or "InternalCompilerError" in stderr or \
            "internal compiler error" in stderr.lower():
        return Outcome("internal", error=f"msc compile: {lines[-1] if lines else ''}"[:300],
                       phase="compile")
    return Outcome("rejected", error=f"msc compile: {text}"[:300], phase="compile")


def _short(dtype: np.dtype) -> str:
    return {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32",
            "int64": "i64", "bool": "bool"}[np.dtype(dtype).name]

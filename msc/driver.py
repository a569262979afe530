"""The compile driver: frontend, optimizer, code generation, loading.

``compile_entry`` turns a Cell or function plus input types into a ``Compiled``
object (through the compile cache when one is enabled, see ``cached.py``);
``Compiled.run`` executes its generated code on concrete arguments. The driver is
the one place that reads the context and turns it into plain options.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

import numpy as np

from msc import context
from msc.cache import CacheStore, default_path
from msc.codegen.lower import ModuleSpec, lower_module
from msc.codegen.render import import_file, render
from msc.frontend.api.tensor import Parameter, Tensor
from msc.frontend.deps import Deps
from msc.frontend.specialize import specialize
from msc.ir.nodes import Module
from msc.optimizer.pipeline import PassReport, passes, run_pipeline

VERSION = "0.1.0"

#: How many times this process parsed, optimized and generated code: a compile-cache hit
#: adds to none of them (tests and benchmarks read this instead of timing).
COUNTERS: Counter[str] = Counter()


@dataclass
class Compiled:
    """Generated code for one input signature and what to call it with: the Parameters
    behind its weight inputs (passed on every call, so ``set_data`` needs no recompile)
    and its tensor constants. ``module`` and ``report`` (the optimized IR and the pass
    report) are None when the code came from the compile cache."""

    weights: tuple[Parameter, ...]
    deps: Deps
    module: Module | None = None
    report: PassReport | None = None
    timings: dict[str, float] = field(default_factory=dict)
    spec: ModuleSpec | None = None
    source: str = ""
    constants: tuple[np.ndarray, ...] = ()
    code: ModuleType | None = None
    cache: str = "off"  # "off", "hit" or "miss"
    cache_why: str = "the compile cache is off"
    entry_dir: Path | None = None  # the compile-cache entry holding the code
    manifest: dict[str, Any] = field(default_factory=dict)  # the cache entry's
    all_tensors: bool = False  # every argument of the signature is a plain Tensor

    def run(self, args: Sequence[Any]) -> Any:
        """Run on the call's arguments (tensors anywhere, tuples nested, constants)."""
        return self.call([x._data if isinstance(x, Tensor) else np.asarray(x)
                          for x in flatten_tensors(args)])

    def run_flat(self, args: Sequence[Any]) -> Any:
        """``run`` for the common call: every argument a Tensor, in graph-input order."""
        return self.call([x._data for x in args])

    def call(self, arrays: list[np.ndarray]) -> Any:
        """The generated code on input arrays, with the weights' current values.

        Strided views are copied first: the kernel is compiled (and cached) for
        C-contiguous arrays, and another layout would make Numba compile it again."""
        if self.code is None:
            self.load()
        arrays += [p._data for p in self.weights]
        arrays = [a if a.flags.c_contiguous else np.asarray(a, order="C") for a in arrays]
        return to_user(self.code.run(*arrays, *self.constants))  # type: ignore

    def generate(self, target: str, header: str) -> None:
        assert self.module is not None
        t0 = time.perf_counter()
        COUNTERS["codegen"] += 1
        self.spec = lower_module(self.module, target, header)
        self.source = render(self.spec)
        self.constants = self.spec.constants
        self.timings["codegen"] = time.perf_counter() - t0

    def load(self) -> None:
        """Import the generated module (Numba compiles the kernel on its first call, or
        loads it from its cache)."""
        if self.entry_dir is not None:
            self.code = import_once(self.entry_dir / self.manifest["module"])
            return
        assert self.spec is not None
        digest = hashlib.sha256(self.source.encode()).hexdigest()[:16]
        name = f"_msc_jit_{self.spec.kernel.name}_{digest}"
        path = os.path.join(_module_dir(), name + ".py")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(self.source)
        self.code = import_file(path, name)


#: ``store`` default of ``compile_entry``: the cache the context (or environment) asks for.
FROM_CONTEXT: Any = object()


def compile_entry(entry: Any, specs: Sequence[Any], *, target: str | None = None,
                  store: CacheStore | None = FROM_CONTEXT, layout: str = "jit",
                  progress: Any = None) -> Compiled:
    """Frontend, passes and code generation for ``entry`` on ``specs``, or the result of
    an earlier process from the compile cache ``store`` when nothing it depended on
    changed. ``layout`` is "jit" (code run in this process) or "artifact:<name>" (code
    exported by ``msc compile`` under the entry's name); ``progress`` hears of Numba's
    compile (see ``artifact.Progress``)."""
    target = target or context.jit_target()
    if store is FROM_CONTEXT:
        store = context_store()
    if store is None:
        compiled = build(entry, specs)
        compiled.generate(target, f"Generated by msc {VERSION} for target {target}: "
                                  f"@{compiled.module.entry}")  # type: ignore[union-attr]
        return compiled
    from msc.cache.compile import compile_cached  # it builds on this module

    return compile_cached(store, entry, tuple(specs), target, layout, progress)


def build(entry: Any, specs: Sequence[Any]) -> Compiled:
    """Frontend and passes: a ``Compiled`` with IR and no code yet."""
    t0 = time.perf_counter()
    COUNTERS.update(("parse", "optimize"))
    parsed = specialize(entry, specs, reuse=context.get_context("reuse"))
    t1 = time.perf_counter()
    dump_root = context.save_graphs_dir()
    dump_dir = os.path.join(dump_root, parsed.module.entry) if dump_root else None
    module, report = run_pipeline(parsed.module, dump_dir=dump_dir, parse_seconds=t1 - t0,
                                  passes=passes(if_to_select=context.get_context("if_to_select"),
                                                load_elim_level=context.load_elim_level()))
    t2 = time.perf_counter()
    return Compiled(parsed.weights, parsed.deps, module, report,
                    {"parse": t1 - t0, "optimize": t2 - t1})


def context_store() -> CacheStore | None:
    """The compile cache the context asks for: ``enable_compile_cache`` (else
    MSC_COMPILER_CACHE_ENABLE=1) at ``compile_cache_path`` (else MSC_COMPILER_CACHE_PATH,
    else the per-user default)."""
    enabled = context.get_context("enable_compile_cache")
    if enabled is None:
        enabled = os.environ.get("MSC_COMPILER_CACHE_ENABLE", "0") not in ("", "0")
    if not enabled:
        return None
    return CacheStore(context.get_context("compile_cache_path") or default_path())


_LOADED: dict[str, ModuleType] = {}


def import_once(path: Path) -> ModuleType:
    """Import a cached generated module, once per process (its name is unique to it)."""
    key = str(path)
    if key not in _LOADED:
        _LOADED[key] = import_file(key, path.stem)
    return _LOADED[key]


_DIR: list[str] = []


def _module_dir() -> str:
    """This process's folder for in-process generated modules (Numba caches beside them)."""
    if not _DIR:
        _DIR.append(tempfile.mkdtemp(prefix="msc-jit-"))
        atexit.register(shutil.rmtree, _DIR[0], True)
    return _DIR[0]


def arg_spec(value: Any) -> Any:
    """What a runtime argument contributes to the signature: tensors by type, tuples
    element-wise, everything else by value (it is a compile-time constant)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return value.type
    if isinstance(value, np.ndarray):
        return Tensor(value).type
    if isinstance(value, (tuple, list)):
        return tuple(arg_spec(v) for v in value)
    return value


def flatten_tensors(args: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for a in args:
        if isinstance(a, (tuple, list)):
            out += flatten_tensors(a)
        elif isinstance(a, (Tensor, np.ndarray)) and not isinstance(a, Parameter):
            out.append(a)
    return out


def to_user(value: Any) -> Any:
    """Arrays become Tensors; the generated code already copied any aliased output."""
    if type(value) is np.ndarray:
        return Tensor.wrap(value)
    if isinstance(value, tuple):
        return tuple(to_user(v) for v in value)
    if isinstance(value, np.ndarray):
        return Tensor.wrap(value)
    return value

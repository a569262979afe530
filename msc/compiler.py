"""The compile orchestrator: cache lookup -> build (frontend, passes) -> generate -> store,
and the runnable ``Compiled``. The one place that reads the context into options and that
drives the compile cache (``msc.cache`` only stores)."""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from msc import context
from msc._version import VERSION
from msc.cache import CacheStore, CacheWarning, DepRecord, Lookup, default_path, entry_key
from msc.cache.store import read_entry_manifest
from msc.codegen.artifact import (
    Progress,
    build_manifest,
    describe_spec,
    precompile_kernel,
    weight_arrays,
)
from msc.codegen.library import (
    KernelWatch,
    foresees_every_call,
    has_compiled,
    holds,
    kernels,
    served,
    serves,
)
from msc.codegen.linemap import LineTable, from_json, raise_numba_failure, remember_lines, to_json
from msc.codegen.numba_worker import foresee, stop
from msc.codegen.render import import_file, line_table, render
from msc.codegen.targets import TARGETS, target_named
from msc.collector import gc_paused
from msc.common.arena import Binding
from msc.common.tensor import Parameter, Tensor
from msc.frontend.deps import Deps
from msc.frontend.hooks import is_cell, structure_parts
from msc.frontend.jit import to_user
from msc.frontend.paths import (NotCacheable, check_record, describe_callable, record_deps,
                                show, stable_print)
from msc.frontend.source import is_msc_file
from msc.frontend.specialize import ListSpec, StructSpec, entry_function, specialize
from msc.ir.nodes import Module
from msc.ir.types import TensorType
from msc.tiering import NumbaTier, ready_file, warn_failed

if TYPE_CHECKING:  # NOTE: lowering and the passes load with the first build, not on a hit
    from msc.codegen.spec import ModuleSpec
    from msc.optimizer.pipeline import PassReport

#: How many times this process parsed, optimized and generated code: a compile-cache hit
#: adds to none of them (tests and benchmarks read this instead of timing).
COUNTERS: Counter[str] = Counter()
CONSTANTS = "constants.npz"  # a cache entry's tensor constants
_WARNED_UNWRITABLE: set[str] = set()


@dataclass(frozen=True)
class Build:
    """What the frontend and the passes made: the optimized IR, the pass report, the
    Parameters behind the weight inputs, what the compile read, and the phases' times."""

    module: Module
    report: PassReport
    weights: tuple[Parameter, ...]
    deps: Deps
    timings: Mapping[str, float]
    lists: Any = None  # where the result holds lists (``frontend.jit.list_shape``)


@dataclass(frozen=True)
class Generated:
    """The generated module: render spec, source, dependency hash (None for in-process
    code compiled without the cache) and the time code generation took."""

    spec: ModuleSpec
    source: str
    digest: str | None
    seconds: float

    @property
    def constants(self) -> tuple[np.ndarray, ...]:
        return self.spec.constants


@dataclass
class Compiled:
    """Runnable code for one input signature: the Parameters behind its weight inputs
    (passed on every call, so ``set_data`` needs no recompile), its tensor constants, and
    the generated module (``code`` once loaded) or the compile-cache entry holding it.
    ``build`` and ``generated`` are None when the code came from the cache."""

    weights: tuple[Parameter, ...]
    deps: Deps
    constants: tuple[np.ndarray, ...] = ()
    build: Build | None = None
    generated: Generated | None = None
    timings: dict[str, float] = field(default_factory=dict)
    cache: str = "off"  # "off", "hit" or "miss"
    cache_why: str = "the compile cache is off"
    entry_dir: Path | None = None  # the compile-cache entry holding the code
    manifest: dict[str, Any] = field(default_factory=dict)  # the cache entry's
    all_tensors: bool = False  # every argument of the signature is a plain Tensor
    target: str = "numba"
    code: ModuleType | None = None
    standby: Compiled | None = None  # the python tier while the numba tier compiles
    numba_tier: NumbaTier | None = None
    lists: Any = None  # which returned tuples are lists (``frontend.jit.list_shape``)

    @property
    def module(self) -> Module | None:
        return self.build.module if self.build else None

    @property
    def report(self) -> PassReport | None:
        return self.build.report if self.build else None

    @property
    def spec(self) -> ModuleSpec | None:
        return self.generated.spec if self.generated else None

    @property
    def source(self) -> str:
        return self.generated.source if self.generated else ""

    def __post_init__(self) -> None:
        #: the arenas holding the weights, as the generated ``run`` takes them; made now,
        #: so the weights' buffers move (if they do) when the graph compiles
        self.binding = Binding(self.weights)

    def run(self, args: Sequence[Any]) -> Any:
        """Run on the call's arguments (tensors anywhere, tuples nested, constants)."""
        return self.call([x._data if isinstance(x, Tensor) else np.asarray(x)
                          for x in flatten_tensors(args)])

    def run_flat(self, args: Sequence[Any]) -> Any:
        """``run`` for the common call: every argument a Tensor, in graph-input order."""
        return self.call([x._data for x in args])

    def call(self, arrays: list[np.ndarray]) -> Any:
        """The generated code on input arrays, with the weights' current values. Strided
        views are copied first: another layout than C's would make Numba compile again."""
        arrays += self.binding.current()  # the weights' arenas
        arrays = [a if a.flags.c_contiguous else np.asarray(a, order="C") for a in arrays]
        if self.code is None:
            if self.standby is not None:
                return self.call_tiered(arrays)
            self.load()
            # the first call compiles the kernels Numba has not cached, in order; spare
            # CPUs compile the foreseen library kernels meanwhile, from the other end
            helpers = foresee(self.code.__file__, self.code)
            try:
                return self.execute(arrays)
            finally:
                stop(helpers)
        return self.execute(arrays)

    def execute(self, arrays: list[np.ndarray]) -> Any:
        """The loaded code on prepared arrays. Numba failing to compile the kernel (on its
        first call) is reported at the user's line."""
        try:
            return to_user(self.code.run(*arrays, *self.constants),  # type: ignore[union-attr]
                           self.lists)
        except Exception as e:
            raise_numba_failure(e, self.code.__file__, self.deps.files)  # type: ignore
            raise

    def call_tiered(self, arrays: list[np.ndarray]) -> Any:
        """The python tier (``standby``) runs the call until the numba tier, compiling in
        the background since the first call returned, is loaded; then the numba tier takes
        over. If Numba fails, a ``TierWarning`` says why and the python tier stays."""
        assert self.standby is not None
        tier = self.numba_tier
        if tier is None:
            self.standby.load()
            start = [a.copy() for a in arrays]  # the state this call starts from
            out = self.standby.execute(arrays)
            self.numba_tier = NumbaTier(self.numba_module, start,
                                        detach=self.entry_dir is not None)
            return out
        if tier.done.is_set():
            if tier.module is not None:
                self.code, self.constants = tier.module, tuple(tier.constants)
                self.standby = self.numba_tier = None
                return self.execute(arrays)
            warn_failed(tier, self.build.module.entry if self.build else self.manifest["entry"])
            self.code, self.constants = self.standby.code, self.standby.constants
            self.target, self.standby, self.numba_tier = "python", None, None
            return self.execute(arrays)
        return self.standby.execute(arrays)

    def numba_module(self) -> tuple[Path, bool, tuple[np.ndarray, ...], KernelWatch | None]:
        """(The numba module's file, whether its foreseen calls are all it makes, its
        constants, the watch of its library kernels), generating the code first when the
        compile made only the python tier's (this runs in the numba tier's thread)."""
        if self.entry_dir is None and self.generated is None:
            assert self.build is not None
            self.generated = generate(self.build, "numba", "jit")
            self.timings["codegen numba"] = self.generated.seconds
        path = self.module_path()
        remember_lines(path, self.line_table())  # (a Numba error's user line: linemap.py)
        if self.generated is None:  # a compile-cache entry's: its manifest names them
            return path, False, self.constants, \
                KernelWatch.of_kernels(self.manifest.get("kernels"), path)
        spec = self.generated.spec
        return path, foresees_every_call(spec), self.generated.constants, \
            KernelWatch.of_spec(spec, path)

    @property
    def tier(self) -> str:
        """Which tier runs the next call: "numba" or "python" (a target's own name when
        the code is not tiered)."""
        return "python" if self.standby is not None else self.target

    def load(self) -> None:
        """Import the generated module (Numba compiles the kernel on its first call, or
        loads it from its cache)."""
        path = self.module_path()
        target = TARGETS.get(self.target)
        if target is not None and (target.numba or target.device):  # Numba compiles it
            remember_lines(path, self.line_table())  # (its errors' user lines: linemap.py)
        if self.entry_dir is not None:
            self.code = import_once(path)
        else:
            self.code = import_file(str(path), path.stem)

    def line_table(self) -> LineTable:
        """The user's line behind each line of the generated module's kernels: from the
        code generated here, else the compile-cache entry's record."""
        if self.generated is not None:
            return line_table(self.generated.spec, self.generated.source)
        return from_json(self.manifest.get("lines", {}))

    def module_path(self) -> Path:
        """The generated module's file: in the compile-cache entry, or written to this
        process's folder of in-process modules."""
        if self.entry_dir is not None:
            return self.entry_dir / self.manifest["module"]
        assert self.generated is not None
        digest = hashlib.sha256(self.source.encode()).hexdigest()[:16]
        path = Path(_module_dir()) / f"_msc_jit_{self.generated.spec.kernel.name}_{digest}.py"
        if not path.exists():
            path.write_text(self.source, encoding="utf-8")
        return path


#: Graphs with fewer nodes are rarely outlined into library kernels (``outline.py``), so
#: a first call does not generate their numba code early to see whether the kernel
#: library holds it all (about 20 ms on a small graph's first call in a process).
LIBRARY_MIN_NODES = 50

#: ``store`` default of ``compile_entry``: the cache the context (or environment) asks for.
FROM_CONTEXT: Any = object()


def compile_entry(entry: Any, specs: Sequence[Any], *, target: str | None = None,
                  store: CacheStore | None = FROM_CONTEXT, layout: str = "jit",
                  progress: Progress | None = None) -> Compiled:
    """Frontend, passes and code generation for ``entry`` on ``specs``, or the result of
    an earlier process from the compile cache ``store`` when nothing it depended on
    changed. ``layout`` is "jit" (code run in this process) or "artifact:<name>" (code
    exported by ``msc compile`` under the entry's name); ``progress`` hears of Numba's
    compile (see ``artifact.Progress``)."""
    target = target or context.jit_target()
    tiered = target == "numba" and layout == "jit" and context.jit_tier() != "numba"
    if tiered and context.jit_tier() == "python":
        target, tiered = "python", False
    if store is FROM_CONTEXT:
        store = context_store()
    if store is None:
        built = build(entry, specs)
        if tiered and (built.module.node_count() < LIBRARY_MIN_NODES or
                       not has_compiled(library_path())):
            # a small graph, or msc never ran here: the numba tier's thread generates the
            # numba code (asking the library first would only delay the first call)
            return with_standby(Compiled(built.weights, built.deps, build=built,
                                         timings=dict(built.timings), lists=built.lists),
                                tiered)
        return with_standby(runnable(built, generate(built, target, layout)), tiered)
    return _compile_cached(store, entry, tuple(specs), target, layout, progress, tiered)


def with_standby(compiled: Compiled, tiered: bool, entry: Any = None,
                 specs: Sequence[Any] = ()) -> Compiled:
    """``compiled`` (the numba target's code) with the python tier that runs its calls
    until Numba is ready (``tiering.py``), when ``tiered`` and Numba is not ready yet: not
    where the kernel library already holds every kernel the code runs (loading them takes
    less than the python tier's first call plus a worker). A compile-cache hit has no
    build: it builds one from ``entry`` and ``specs``."""
    if not tiered or compiled.code is not None or _numba_ready(compiled) or \
            (compiled.spec is not None and serves(compiled.spec)):
        return compiled
    built = compiled.build or build(entry, specs)
    compiled.standby = runnable(built, generate(built, "python", "jit"))
    return compiled


def _numba_ready(compiled: Compiled) -> bool:
    """Whether Numba's cache holds a compile-cache entry's kernels: beside its module,
    compiled when the entry was stored or by a background worker since; or, for a module
    that only calls library kernels, in the kernel library (the entry lists their files)."""
    if compiled.entry_dir is None:
        return False
    library = compiled.manifest.get("library")  # kernels all in the library, compiled?
    return "numba" in compiled.manifest.get("timings", {}) or \
        ready_file(compiled.module_path()).exists() or \
        (library is not None and holds(Path(library["dir"]), library["stems"]))


@gc_paused
def build(entry: Any, specs: Sequence[Any]) -> Build:
    """Frontend and passes: the optimized IR, no code yet."""
    from msc.optimizer.pipeline import passes, run_pipeline

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
    return Build(module, report, tuple(parsed.weights), parsed.deps,
                 {"parse": t1 - t0, "optimize": t2 - t1}, parsed.lists)


@gc_paused
def generate(built: Build, target: str, layout: str, digest: str | None = None) -> Generated:
    """Lower and render ``built`` for ``target`` in ``layout`` ("jit" or "artifact:<name>").

    ``digest`` is the compile cache's key; an artifact compiled without one gets a hash of
    its source (rendered without the hash line), its weights' shapes and msc's version."""
    from msc.codegen.generate import lower_for_target

    t0 = time.perf_counter()
    COUNTERS["codegen"] += 1
    artifact = layout.startswith("artifact:")
    label = layout[len("artifact:"):] if artifact else f"@{built.module.entry}"
    spec = lower_for_target(built.module, target, header(label, target, digest))
    if spec.library and not artifact:  # (an artifact keeps its kernels in its own folder)
        spec = dataclasses.replace(spec, library_dir=str(library_path()))
    if digest is None and artifact:
        shapes = [(n, a.dtype.str, list(a.shape))
                  for n, a in zip(spec.weights, weight_arrays(built, spec))]
        canonical = json.dumps([VERSION, render(spec), shapes], sort_keys=True)
        digest = "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        spec = dataclasses.replace(spec, header=header(label, target, digest))
    return Generated(spec, render(spec), digest, time.perf_counter() - t0)


def header(label: str, target: str, digest: str | None) -> str:
    """The generated module's docstring head: the one place it is written."""
    text = f"Generated by msc {VERSION} from {label} for target '{target}'."
    return text + (f"\nDependency hash: {digest}" if digest else "")


def runnable(built: Build, generated: Generated, timings: dict[str, float] | None = None,
             **cache: Any) -> Compiled:
    """The ``Compiled`` of a fresh compile (``cache``: its cache fields)."""
    timings = timings or {**built.timings, "codegen": generated.seconds}
    return Compiled(built.weights, built.deps, generated.constants, built, generated,
                    timings, target=generated.spec.target, lists=built.lists, **cache)


# --- through the compile cache ---------------------------------------------------------


def _compile_cached(store: CacheStore, entry: Any, specs: tuple[Any, ...], target: str,
                    layout: str, progress: Progress | None, tiered: bool) -> Compiled:
    """Each entry of the entry key (see ``cache/key.py``) holds the dependency record of
    its compile; the first whose record holds in this process is a hit. A miss while the
    key has entries is a dependency change, and the warning names what changed."""
    start = time.perf_counter()
    fn = entry_function(entry)[0]
    transform = getattr(fn, "__msc_transform__", None)  # an eager grad's, vmap's... entry
    # (what runs: a function's code, a Cell's classes and its sub-cells', a transform's)
    code = _describe(transform if transform is not None else entry if is_cell(entry) else fn)
    if transform is not None and code is None:
        built = build(entry, specs)  # (an entry that does not name it would be shared)
        why = f"miss: not looked up, not stored: {transform.__name__} has no stable key"
        done = runnable(built, generate(built, target, layout), cache="miss", cache_why=why)
        return with_standby(done, tiered)
    key, described = entry_key(*_entry_identity(entry, fn), fn,
                               [_describe_input(s) for s in specs], target, layout,
                               code)
    found = _lookup(store, key, entry, fn, specs)
    if found.folder is not None:
        return with_standby(_from_entry(found, time.perf_counter() - start), tiered, entry,
                            specs)
    if found.changed:
        warn(found.reason[len("miss: "):])
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(store.lock(key))
        except OSError as e:
            return with_standby(_not_stored(build(entry, specs), target, layout,
                                            _unwritable(store, e), found), tiered)
        again = _lookup(store, key, entry, fn, specs)  # built while we waited for the lock?
        if again.folder is not None:
            return with_standby(_from_entry(again, time.perf_counter() - start), tiered,
                                entry, specs)
        return with_standby(_build_and_store(store, key, described, entry, fn, specs,
                                             progress, found, tiered), tiered)


def _build_and_store(store: CacheStore, key: str, described: dict[str, Any], entry: Any,
                     fn: Any, specs: tuple[Any, ...], progress: Progress | None,
                     found: Lookup, tiered: bool) -> Compiled:
    target, layout = described["target"], described["layout"]
    built = build(entry, specs)
    try:
        rec = DepRecord(*record_deps(entry, fn, specs, built.deps, built.weights))
    except NotCacheable as e:
        return _not_stored(built, target, layout, str(e), found)
    full = hashlib.sha256((key + rec.key()).encode()).hexdigest()
    generated = generate(built, target, layout, f"sha256:{full}")
    timings = {**built.timings, "codegen": generated.seconds}

    def fill(tmp: Path) -> dict[str, Any]:
        return _fill_entry(tmp, built, generated, timings, specs, progress, tiered,
                           {"entry_key": key, "key": full, "entry": described["entry"],
                            "target": target, "layout": layout, "deps": rec.as_json(),
                            "changed": found.changed})

    try:
        folder = store.put(key, full[:32], fill)
    except OSError as e:
        return _not_stored(built, target, layout, _unwritable(store, e), found, generated)
    return runnable(built, generated, timings=timings, cache="miss", entry_dir=folder,
                    cache_why=f"{found.reason}; stored as {folder}",
                    manifest=read_entry_manifest(folder)[0])


def _not_stored(built: Build, target: str, layout: str, why: str, found: Lookup,
                generated: Generated | None = None) -> Compiled:
    generated = generated or generate(built, target, layout)
    return runnable(built, generated, cache="miss", cache_why=f"{found.reason}; not stored: {why}")


def _lookup(store: CacheStore, key: str, entry: Any, fn: Any, specs: tuple[Any, ...]) -> Lookup:
    found = store.lookup(key, lambda record: check_record(record, entry, fn, specs))
    for message in found.damaged:
        warn(message)
    return found


def _describe(runs: Any) -> Any:
    """``describe_callable``'s JSON of what an entry runs, or None where it has none."""
    try:
        return json.loads(json.dumps(describe_callable(runs), sort_keys=True))
    except (TypeError, ValueError):
        return None


def _entry_identity(entry: Any, fn: Any) -> tuple[str, Any]:
    """What names a compile's entry in its cache key: ("Cell", the Cell's class) or
    ("function", the function)."""
    return ("Cell", type(entry)) if is_cell(entry) else ("function", fn)


def _describe_input(spec: Any) -> Any:
    """An input signature's part of the cache key: a tensor type, a tuple or list of
    them, or a constant's stable print."""
    if isinstance(spec, TensorType):
        return describe_spec(spec)
    if isinstance(spec, StructSpec):
        return {f"{spec.kind.__module__}.{spec.kind.__qualname__}":
                [_describe_input(s) for s in spec]}
    if isinstance(spec, (tuple, list)):
        kind = "list" if isinstance(spec, ListSpec) else "tuple"
        return {kind: [_describe_input(s) for s in spec]}
    return {"constant": stable_print(spec), "shown": show(spec)}


def _from_entry(found: Lookup, seconds: float) -> Compiled:
    assert found.folder is not None and found.deps is not None
    with np.load(found.folder / CONSTANTS, allow_pickle=False) as f:
        constants = tuple(f[f"c{i}"] for i in range(len(f.files)))
    for c in constants:  # read-only, as a fresh compile's are (Numba types the flag)
        c.flags.writeable = False
    return Compiled(tuple(found.weights), found.deps, constants,
                    timings={"cache": seconds}, cache="hit", cache_why=found.reason,
                    entry_dir=found.folder, manifest=found.manifest,
                    target=found.manifest["target"], lists=found.manifest.get("lists"))


def _fill_entry(tmp: Path, built: Build, generated: Generated, timings: dict[str, float],
                specs: tuple[Any, ...], progress: Progress | None, tiered: bool,
                describe: dict[str, Any]) -> dict[str, Any]:
    """Write the module, the constants and (numba) Numba's cache into ``tmp``; returns
    the entry's manifest (``timings`` gains the ``numba`` phase). A ``tiered`` entry's
    Numba cache is filled later, by the background compile (``tiering.py``)."""
    spec, layout = generated.spec, describe["layout"]
    artifact = layout.startswith("artifact:")
    name = spec.kernel.name if artifact else f"_msc_{spec.kernel.name}_{describe['key'][:16]}"
    module_file = f"{name}.py"
    (tmp / module_file).write_text(generated.source, encoding="utf-8")
    constants = [np.asarray(c, order="C") for c in spec.constants]
    if any(c.dtype.hasobject for c in constants):
        raise NotImplementedError("object constants")  # never made by lowering
    np.savez(tmp / CONSTANTS, **{f"c{i}": c for i, c in enumerate(constants)})
    if target_named(spec.target).numba and not tiered:
        zeros = [np.zeros(p.shape, p.asnumpy().dtype) for p in built.weights]
        timings["numba"] = precompile_kernel(tmp / module_file, spec, progress,
                                             zeros + constants, built.deps.files,
                                             library=library_path())
    manifest = {**describe, "module": module_file, "kernel": spec.kernel.name,
                "pass_report": built.report.as_dicts(), "timings": dict(timings),
                "msc_version": VERSION}
    if built.lists is not None:
        manifest["lists"] = built.lists
    if stems := served(spec):  # a hit runs them at once where the library holds them
        manifest["library"] = {"dir": spec.library_dir, "stems": list(stems)}
    if spec.library:  # (for the progress line of a hit's background compile)
        manifest["kernels"] = kernels(spec)
    if target_named(spec.target).numba or target_named(spec.target).device:
        manifest["lines"] = to_json(line_table(spec, generated.source))
    if artifact:
        manifest["artifact"] = build_manifest(
            built, spec, weight_arrays(built, spec), entry_name=layout[len("artifact:"):],
            input_specs=specs, digest=generated.digest, timings=timings)
    return manifest


def _unwritable(store: CacheStore, error: OSError) -> str:
    why = f"cannot write the compile cache folder {store.root} ({error.strerror or error})"
    if str(store.root) not in _WARNED_UNWRITABLE:
        _WARNED_UNWRITABLE.add(str(store.root))
        warn(why + "; compiling without caching")
    return why


def warn(message: str) -> None:
    """A ``CacheWarning`` attributed to the user's line that started the compile."""
    frame, level = sys._getframe(1), 2
    while frame is not None and is_msc_file(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, CacheWarning, stacklevel=level)


def library_path() -> Path:
    """The kernel library's folder (``codegen/library.py``): ``$MSC_KERNEL_CACHE_PATH``,
    else ``kernels`` in the compile cache's default folder."""
    return Path(os.environ.get("MSC_KERNEL_CACHE_PATH") or
                os.path.join(default_path(), "kernels"))


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


@functools.cache
def import_once(path: Path) -> ModuleType:
    """Import a cached generated module, once per process (its name is unique to it)."""
    return import_file(str(path), path.stem)


@functools.cache
def _module_dir() -> str:
    """This process's folder for in-process generated modules (Numba caches beside them)."""
    folder = tempfile.mkdtemp(prefix="msc-jit-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def arg_spec(value: Any) -> Any:
    """What a runtime argument contributes to the signature: tensors by type, tuples
    element-wise, everything else by value (it is a compile-time constant)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return value.type
    if isinstance(value, np.ndarray):
        return Tensor(value).type
    if isinstance(value, list):
        return ListSpec(arg_spec(v) for v in value)
    if isinstance(value, tuple):
        return tuple(arg_spec(v) for v in value)
    parts = structure_parts(value)
    if parts is not None:
        return StructSpec(type(value), (arg_spec(v) for v in parts))
    return value


def flatten_tensors(args: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for a in args:
        if isinstance(a, (tuple, list)):
            out += flatten_tensors(a)
        elif isinstance(a, (Tensor, np.ndarray)) and not isinstance(a, Parameter):
            out.append(a)
        elif structure_parts(a) is not None:
            out += flatten_tensors(structure_parts(a))
    return out


def compile_call(entry: Any, args: Sequence[Any]) -> Compiled:
    """What a ``jit`` function's or a Cell's call compiles: ``entry`` for the signature of
    ``args`` (``msc`` installs this in ``frontend/hooks.py`` for ``frontend/jit.py``)."""
    return compile_entry(entry, tuple(arg_spec(a) for a in args))

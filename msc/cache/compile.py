"""Compiling through the cache: look the entry up, else build it under the key's lock.

The *entry key* is what is known before parsing: msc's version, target, layout, the
options that change code, the entry's identity and the input signature. Each entry of
a key holds the dependency record of its compile (files and constants read); the
first whose record still holds in this process is a hit. A miss while entries of
the key exist is a dependency change, and the warning names what changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from msc import context
from msc.cache.record import NotCacheable, record, show, stable_print
from msc.cache.store import MISMATCH, CacheStore, CacheWarning, Lookup, read_entry_manifest
from msc.codegen.artifact import (Progress, build_manifest, describe_spec, generate,
                                  precompile_kernel, weight_arrays)
from msc.driver import COUNTERS, VERSION, Compiled, build
from msc.frontend.source import is_msc_file
from msc.frontend.specialize import entry_function
from msc.ir.types import TensorType

CONSTANTS = "constants.npz"
_WARNED_UNWRITABLE: set[str] = set()


def compile_cached(store: CacheStore, entry: Any, specs: tuple[Any, ...], target: str,
                   layout: str, progress: Progress | None = None) -> Compiled:
    """``compile_entry`` with the cache ``store`` (see the module docstring)."""
    start = time.perf_counter()
    fn = entry_function(entry)[0]
    key, described = entry_key(entry, fn, specs, target, layout)
    found = _lookup(store, key, entry, fn, specs)
    if found.folder is not None:
        return _from_entry(found, time.perf_counter() - start)
    if found.changed:
        warn(found.reason[len("miss: "):])
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(store.lock(key))
        except OSError as e:
            compiled = _generated(build(entry, specs), target, layout, None)
            return _not_stored(compiled, _unwritable(store, e), found)
        again = _lookup(store, key, entry, fn, specs)  # built while we waited for the lock?
        if again.folder is not None:
            return _from_entry(again, time.perf_counter() - start)
        return _build_and_store(store, key, described, entry, fn, specs, progress, found)


def _build_and_store(store: CacheStore, key: str, described: dict[str, Any], entry: Any,
                     fn: Any, specs: tuple[Any, ...], progress: Progress | None,
                     found: Lookup) -> Compiled:
    target, layout = described["target"], described["layout"]
    compiled = build(entry, specs)
    try:
        rec = record(entry, fn, specs, compiled.deps, compiled.weights)
    except NotCacheable as e:
        return _not_stored(_generated(compiled, target, layout, None), str(e), found)
    full = hashlib.sha256((key + rec.key()).encode()).hexdigest()
    _generated(compiled, target, layout, full)

    def fill(tmp: Path) -> dict[str, Any]:
        return _fill_entry(tmp, compiled, layout, specs, progress,
                           {"entry_key": key, "key": full, "entry": described["entry"],
                            "target": target, "layout": layout, "deps": rec.as_json(),
                            "changed": found.changed})

    try:
        folder = store.put(key, full[:32], fill)
    except OSError as e:
        return _not_stored(compiled, _unwritable(store, e), found)
    compiled.cache, compiled.entry_dir = "miss", folder
    compiled.cache_why = f"{found.reason}; stored as {folder}"
    compiled.manifest = read_entry_manifest(folder)[0]
    return compiled


def _not_stored(compiled: Compiled, why: str, found: Lookup) -> Compiled:
    compiled.cache, compiled.cache_why = "miss", f"{found.reason}; not stored: {why}"
    return compiled


def _lookup(store: CacheStore, key: str, entry: Any, fn: Any, specs: tuple[Any, ...]) -> Lookup:
    found = store.lookup(key, entry, fn, specs)
    for message in found.damaged:
        warn(message)
    return found


def _from_entry(found: Lookup, seconds: float) -> Compiled:
    assert found.folder is not None and found.deps is not None
    with np.load(found.folder / CONSTANTS, allow_pickle=False) as f:
        constants = tuple(f[f"c{i}"] for i in range(len(f.files)))
    return Compiled(tuple(found.weights), found.deps, constants=constants,
                    timings={"cache": seconds}, cache="hit", cache_why=found.reason,
                    entry_dir=found.folder, manifest=found.manifest)


def _generated(compiled: Compiled, target: str, layout: str, full: str | None) -> Compiled:
    """Render the code; an artifact's header names the entry as the user does."""
    digest = f"sha256:{full}" if full else None
    if layout.startswith("artifact:"):
        t0 = time.perf_counter()
        COUNTERS["codegen"] += 1
        compiled.spec, compiled.source, digest = generate(compiled, target, layout[9:], digest)
        compiled.constants = compiled.spec.constants
        compiled.timings["codegen"] = time.perf_counter() - t0
    else:
        assert compiled.module is not None
        name = compiled.module.entry
        header = f"Generated by msc {VERSION} for target {target}: @{name}"
        compiled.generate(target, header + (f"\nDependency hash: {digest}" if digest else ""))
    compiled.manifest = {"dependency_hash": digest}
    return compiled


def _fill_entry(tmp: Path, compiled: Compiled, layout: str, specs: tuple[Any, ...],
                progress: Progress | None, describe: dict[str, Any]) -> dict[str, Any]:
    """Write the module, the constants and (numba) Numba's cache into ``tmp``."""
    spec = compiled.spec
    assert spec is not None and compiled.module is not None and compiled.report is not None
    artifact = layout.startswith("artifact:")
    name = spec.kernel.name if artifact else f"_msc_{spec.kernel.name}_{describe['key'][:16]}"
    module_file = f"{name}.py"
    (tmp / module_file).write_text(compiled.source, encoding="utf-8")
    constants = [np.asarray(c, order="C") for c in spec.constants]
    if any(c.dtype.hasobject for c in constants):
        raise NotImplementedError("object constants")  # never made by lowering
    np.savez(tmp / CONSTANTS, **{f"c{i}": c for i, c in enumerate(constants)})
    if spec.target == "numba":
        zeros = [np.zeros(p.shape, p.asnumpy().dtype) for p in compiled.weights]
        compiled.timings["numba"] = precompile_kernel(tmp / module_file, spec, progress,
                                                      zeros + constants)
    manifest = {**describe, "module": module_file, "kernel": spec.kernel.name,
                "pass_report": compiled.report.as_dicts(), "timings": dict(compiled.timings),
                "msc_version": VERSION}
    if artifact:
        arrays = weight_arrays(compiled, spec)
        manifest["artifact"] = build_manifest(
            compiled, spec, arrays, entry_name=layout[9:], input_specs=specs,
            digest=compiled.manifest["dependency_hash"], timings=compiled.timings)
    return manifest


def entry_key(entry: Any, fn: Any, specs: tuple[Any, ...], target: str,
              layout: str) -> tuple[str, dict[str, Any]]:
    """(hash, description) of what a compile depends on that is known before parsing."""
    from msc.frontend.api.cell import Cell

    owner = type(entry) if isinstance(entry, Cell) else fn
    described = {
        "msc": VERSION, "python": list(sys.version_info[:2]), "target": target,
        "layout": layout, "options": context.code_options(),
        "entry": {"kind": "Cell" if isinstance(entry, Cell) else "function",
                  "module": owner.__module__, "qualname": owner.__qualname__,
                  "file": str(Path(fn.__code__.co_filename).resolve())},
        "inputs": [_spec_json(s) for s in specs],
    }
    if target == "numba":
        described["numba"] = _numba_host()
    text = json.dumps(described, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32], described


def _spec_json(spec: Any) -> Any:
    if isinstance(spec, TensorType):
        return describe_spec(spec)
    if isinstance(spec, (tuple, list)):
        return {"tuple": [_spec_json(s) for s in spec]}
    return {"constant": stable_print(spec), "shown": show(spec)}


_HOST: list[dict[str, str]] = []


def _numba_host() -> dict[str, str]:
    """Numba's version and the CPU it compiles for: its cache is valid only for both."""
    if not _HOST:
        from importlib.metadata import version

        import llvmlite.binding as llvm

        cpu = os.environ.get("NUMBA_CPU_NAME") or llvm.get_host_cpu_name()
        features = os.environ.get("NUMBA_CPU_FEATURES") or llvm.get_host_cpu_features().flatten()
        _HOST.append({"version": version("numba"), "cpu": cpu,
                      "features": hashlib.sha256(features.encode()).hexdigest()[:16]})
    return _HOST[0]


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

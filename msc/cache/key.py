"""The entry key of the compile cache: what a compile depends on that is known before
parsing (msc's version and source, Python's version, target, layout, options, the entry's
identity, the input signature, and for Numba its version and the CPU)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from msc import context
from msc._version import VERSION
from msc.codegen.artifact import describe_spec
from msc.codegen.targets import target_named
from msc.frontend.paths import show, stable_print
from msc.frontend.specialize import ListSpec
from msc.ir.types import TensorType


def entry_key(entry: Any, fn: Any, specs: tuple[Any, ...], target: str,
              layout: str) -> tuple[str, dict[str, Any]]:
    """(hash, description) of what a compile depends on that is known before parsing."""
    from msc.frontend.api.cell import Cell

    owner = type(entry) if isinstance(entry, Cell) else fn
    described = {
        "msc": VERSION, "msc_source": msc_source_digest(),
        "python": list(sys.version_info[:2]), "target": target,
        "layout": layout, "options": context.code_options(),
        "entry": {"kind": "Cell" if isinstance(entry, Cell) else "function",
                  "module": owner.__module__, "qualname": owner.__qualname__,
                  "file": str(Path(fn.__code__.co_filename).resolve())},
        "inputs": [_spec_json(s) for s in specs],
    }
    if target_named(target).numba:
        described["numba"] = _numba_host()
    text = json.dumps(described, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32], described


@functools.cache
def msc_source_digest() -> str:
    """A hash of msc's own modules and templates: an edited or patched install never
    serves code that different compiler code generated under the same version."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".j2") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def _spec_json(spec: Any) -> Any:
    if isinstance(spec, TensorType):
        return describe_spec(spec)
    if isinstance(spec, (tuple, list)):
        kind = "list" if isinstance(spec, ListSpec) else "tuple"
        return {kind: [_spec_json(s) for s in spec]}
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

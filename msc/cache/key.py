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
from msc.codegen.targets import target_named


def entry_key(kind: str, owner: Any, fn: Any, inputs: list[Any], target: str,
              layout: str, code: Any = None) -> tuple[str, dict[str, Any]]:
    """(hash, description) of what a compile depends on that is known before parsing:
    ``kind`` ("Cell" or "function") and ``owner`` (the Cell's class or the function) name
    the entry, ``fn`` is its function, ``inputs`` the JSON description of its input
    signature, ``code`` that of what it runs: the function's code (two lambdas of one
    line differ), the Cell's class and its sub-cells' (a wrapper around another network),
    the transform an eager ``grad`` or ``vmap`` runs (``msc.compiler`` makes them)."""
    described = {
        "msc": VERSION, "msc_source": msc_source_digest(),
        "python": list(sys.version_info[:2]), "target": target,
        "layout": layout, "options": context.code_options(),
        "entry": {"kind": kind, "module": owner.__module__, "qualname": owner.__qualname__,
                  "file": str(Path(fn.__code__.co_filename).resolve())},
        "inputs": inputs,
    }
    if code is not None:
        described["entry"]["code"] = code
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


@functools.cache
def _numba_host() -> dict[str, str]:
    """Numba's and llvmlite's versions and the CPU Numba compiles for: its cache is valid
    only for all three. Read without importing either (a cache hit of ``msc compile``
    never needs them): versions from the installed distributions' folder names, the CPU
    from what the kernel reports of it (``/proc/cpuinfo``: the same CPUID facts LLVM
    reads), else from LLVM itself. NUMBA_CPU_NAME / NUMBA_CPU_FEATURES override, as
    they do for Numba."""
    cpu, features = os.environ.get("NUMBA_CPU_NAME"), os.environ.get("NUMBA_CPU_FEATURES")
    if not (cpu and features):
        found = _cpuinfo() or _llvm_host()
        cpu, features = cpu or found[0], features or found[1]
    return {"version": _dist_version("numba"), "llvmlite": _dist_version("llvmlite"),
            "cpu": cpu, "features": hashlib.sha256(features.encode()).hexdigest()[:16]}


_CPU_FACTS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags")


def _cpuinfo() -> tuple[str, str] | None:
    """(model name, the identifying facts) of the first CPU in ``/proc/cpuinfo``; None
    where there is none (not Linux) or it lacks the CPU's flags."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return None
    facts: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        name, _, value = line.partition(":")
        if name.strip() in _CPU_FACTS:
            facts[name.strip()] = value.strip()
    if "flags" not in facts:
        return None
    return facts.get("model name", "unknown"), json.dumps(facts, sort_keys=True)


def _llvm_host() -> tuple[str, str]:
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def _dist_version(name: str) -> str:
    """The installed version of ``name`` from its ``name-VERSION.dist-info`` folder beside
    the package (what ``importlib.metadata`` reads, without its import cost), else from
    ``importlib.metadata``."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is not None and spec.submodule_search_locations:
        site = Path(list(spec.submodule_search_locations)[0]).parent
        found = [d.name[len(name) + 1:-len(".dist-info")]
                 for d in site.glob(f"{name}-*.dist-info")]
        if len(found) == 1:
            return found[0]
    from importlib.metadata import version

    return version(name)

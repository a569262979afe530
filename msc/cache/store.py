"""The on-disk compile cache: one folder per compile, found by its dependency hash.

Layout under the cache path::

    <entry key>/            one entry point: entry, target, options, input signature
        .lock               taken while an entry for this key is built
        <full key>/         one compile: the entry key plus its dependency record
            manifest.json   what was compiled, its dependency record, every file's sha256
            <module>.py     the generated module
            constants.npz   tensor constants the kernel takes after the weights
            __pycache__/    Numba's compiled kernels
            stats.json      hits and last use (not checksummed: rewritten on every hit)

An entry appears whole or not at all (built in a temporary sibling, then renamed);
builders of one key serialise on ``.lock``; every file is verified against the
manifest before anything is imported, and nothing is unpickled here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from msc.cache.record import DepRecord
from msc.codegen.artifact import check_checksums, file_sha256

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: builders do not serialise
    fcntl = None  # type: ignore[assignment]

MANIFEST = "manifest.json"
STATS = "stats.json"
FORMAT = 1
#: Entries kept per entry point (older ones are removed when a new one is stored).
KEEP_PER_KEY = 8

MISMATCH = ("Check the consistency of dependency files hash failed. "
            "Execute all the compilation actions.")


class CacheWarning(UserWarning):
    """The compile cache could not be used as asked; the compile goes on without it."""


@dataclass
class Lookup:
    """A hit (``folder`` set) or a miss and why; ``damaged`` lists entries discarded."""

    folder: Path | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    deps: Any = None  # the live dependencies a hit's check found (the front end's ``Deps``)
    weights: list[Any] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        if self.folder is not None:
            return f"hit: {self.folder}"
        if self.changed:
            return "miss: " + MISMATCH + "\n" + "\n".join(f"  {c}" for c in self.changed)
        return "miss: no entry for this entry point and input signature"


class CacheStore:
    """The cache folder ``root`` (created on first write)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(os.path.abspath(os.path.expanduser(root)))

    # --- reading ------------------------------------------------------------------------

    def lookup(self, key: str, check: Callable[[DepRecord], tuple[list[str], Any, list[Any]]]
               ) -> Lookup:
        """The entry of ``key`` whose dependencies still hold in this process, verified.
        ``check(record)``: (what changed, the live dependencies, the weights) of an entry's
        dependency record here (``msc.compiler`` walks it with the front end)."""
        found = Lookup()
        for folder in self._entries_of(key):
            manifest, problem = read_entry_manifest(folder)
            if problem:
                found.damaged.append(self.discard(folder, problem))
                continue
            try:
                deps_record = DepRecord.from_json(manifest["deps"])
            except (KeyError, TypeError, ValueError) as e:
                found.damaged.append(self.discard(folder, f"its dependency record is bad: {e}"))
                continue
            changed, deps, weights = check(deps_record)
            if changed:
                found.changed = found.changed or changed  # the most recently used one's
                continue
            problems = verify_files(folder, manifest)
            if problems:
                found.damaged.append(self.discard(folder, "; ".join(problems)))
                continue
            self._count_hit(folder)
            return Lookup(folder, manifest, deps, weights, damaged=found.damaged)
        return found

    def _entries_of(self, key: str) -> list[Path]:
        """The entries of one entry point, most recently used first."""
        try:
            folders = [p for p in (self.root / key).iterdir()
                       if p.is_dir() and not p.name.startswith(".")]
        except OSError:
            return []
        return sorted(folders, key=last_used, reverse=True)

    def _count_hit(self, folder: Path) -> None:
        stats = read_stats(folder)
        stats = {"hits": int(stats.get("hits", 0)) + 1, "last_used": time.time()}
        with contextlib.suppress(OSError):  # a read-only cache still serves hits
            _write_atomic(folder / STATS, json.dumps(stats).encode())

    def discard(self, folder: Path, why: str) -> str:
        """Remove a damaged entry; returns the message the caller warns with."""
        with contextlib.suppress(OSError):
            trash = folder.with_name(f".trash-{folder.name}-{secrets.token_hex(4)}")
            os.rename(folder, trash)
            shutil.rmtree(trash, ignore_errors=True)
        return f"the compile cache entry {folder} is damaged ({why}); it is discarded and rebuilt"

    # --- writing ------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Exclusive right to build entries of ``key`` (OSError if the folder is unwritable)."""
        folder = self.root / key
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "a+b") as f:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                if fcntl is not None:
                    fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def put(self, key: str, full_key: str, fill: Callable[[Path], dict[str, Any]]) -> Path:
        """Build an entry: ``fill(tmp)`` writes its files into a temporary folder and returns
        the manifest; checksums are added and the folder is renamed into place. Hold
        ``lock(key)`` around this."""
        parent = self.root / key
        for stale in parent.glob(".t*-*"):  # left by a builder that died holding the lock
            shutil.rmtree(stale, ignore_errors=True)
        tmp = parent / f".tmp-{os.getpid()}-{secrets.token_hex(4)}"
        os.mkdir(tmp)
        try:
            manifest = fill(tmp)
            manifest["checksums"] = {name: file_sha256(tmp / name) for name in _files(tmp)}
            manifest["created"] = time.time()
            write_manifest(tmp, manifest)
            final = parent / full_key
            if final.exists():  # stale: the caller's lookup did not accept it
                self.discard(final, "replaced")
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        for old in self._entries_of(key)[KEEP_PER_KEY:]:
            shutil.rmtree(old, ignore_errors=True)
        return final

    # --- management -----------------------------------------------------------------------

    def entries(self) -> list[EntryInfo]:
        """Every entry, most recently used first."""
        out = []
        try:
            keys = [p for p in self.root.iterdir() if p.is_dir()]
        except OSError:
            return []
        for key_dir in keys:
            for folder in self._entries_of(key_dir.name):
                manifest, problem = read_entry_manifest(folder)
                stats = read_stats(folder)
                out.append(EntryInfo(folder, manifest if not problem else {}, problem,
                                     folder_size(folder), int(stats.get("hits", 0)),
                                     last_used(folder)))
        return sorted(out, key=lambda e: e.last_used, reverse=True)

    def clear(self) -> tuple[int, int]:
        """Remove everything; (entries removed, bytes freed)."""
        entries = self.entries()
        freed = sum(e.size for e in entries)
        with contextlib.suppress(FileNotFoundError):
            for child in self.root.iterdir():
                if child.is_dir():
                    shutil.rmtree(child)
        return len(entries), freed

    def prune(self, max_bytes: int) -> tuple[int, int]:
        """Remove least recently used entries until the cache holds at most ``max_bytes``."""
        entries = self.entries()
        total, removed, freed = sum(e.size for e in entries), 0, 0
        for e in reversed(entries):  # oldest use first
            if total - freed <= max_bytes:
                break
            shutil.rmtree(e.folder, ignore_errors=True)
            removed, freed = removed + 1, freed + e.size
        return removed, freed


@dataclass(frozen=True)
class EntryInfo:
    folder: Path
    manifest: dict[str, Any]
    problem: str
    size: int
    hits: int
    last_used: float


# --- files --------------------------------------------------------------------------------


def read_entry_manifest(folder: Path) -> tuple[dict[str, Any], str]:
    """(manifest, "") or ({}, what is wrong with it)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, f"{MANIFEST} is missing"
    except (OSError, ValueError) as e:
        return {}, f"{MANIFEST} cannot be read: {e}"
    if not isinstance(manifest, dict) or manifest.get("checksum") != _manifest_digest(manifest):
        return {}, f"{MANIFEST} does not match its checksum"
    if manifest.get("format") != FORMAT:
        return {}, f"{MANIFEST} has format {manifest.get('format')!r}, not {FORMAT}"
    return manifest, ""


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    manifest["format"] = FORMAT
    manifest["checksum"] = _manifest_digest(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                                   encoding="utf-8")


def _manifest_digest(manifest: dict[str, Any]) -> str:
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def verify_files(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """Files missing or not matching their checksums (empty: the entry is intact)."""
    checksums = manifest.get("checksums")
    if not isinstance(checksums, dict) or not checksums:
        return ["the manifest lists no files"]
    return check_checksums(folder, checksums)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def read_stats(folder: Path) -> dict[str, float]:
    """Hits and last use; a missing or odd ``stats.json`` (it is not checksummed) reads
    as no hits."""
    try:
        stats = json.loads((folder / STATS).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(stats, dict):
        return {}
    return {k: float(v) for k, v in stats.items() if k in ("hits", "last_used")
            and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and v >= 0}


def last_used(folder: Path) -> float:
    stats = read_stats(folder)
    if "last_used" in stats:
        return stats["last_used"]
    try:
        return (folder / MANIFEST).stat().st_mtime
    except OSError:
        return 0.0


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

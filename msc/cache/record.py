"""What a compile depended on, written so that a new process can check it.

A ``Deps`` (see ``frontend/deps.py``) holds the live objects a compile read. The disk
cache needs the same facts without parsing again, so each read becomes a *path* from
a root a later process also has — the entry Cell (``self``), the entry function
(``fn``), a constant argument (``args[i]``) or an imported module — plus a stable
print of the value. Source files are recorded by content hash.

``DepRecord.check`` walks the paths again in the new process: if every file hashes the
same and every path leads to an equal value, the compile's result still holds.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from msc.frontend.deps import _MISSING, Deps, Read
from msc.frontend.paths import Locator, Path, format_path, resolve, show, stable_print


class NotCacheable(Exception):
    """The compile read something a later process could not find again."""


# --- stable prints ------------------------------------------------------------------------


# --- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DepRecord:
    """Files (path -> sha256) and reads ([path, stable print, shown value]) of one
    compile, and where its weights are (one path per weight input)."""

    files: dict[str, str]
    reads: list[tuple[Path, str, str]]
    weights: list[Path]

    def key(self) -> str:
        """What the record adds to the cache key."""
        return hashlib.sha256(json.dumps(self.as_json(), sort_keys=True).encode()).hexdigest()

    def as_json(self) -> dict[str, Any]:
        return {"files": dict(sorted(self.files.items())),
                "reads": [[_path_json(p), pr, shown] for p, pr, shown in self.reads],
                "weights": [_path_json(p) for p in self.weights]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DepRecord:
        return cls({str(k): str(v) for k, v in data["files"].items()},
                   [(_path_from(p), str(pr), str(shown)) for p, pr, shown in data["reads"]],
                   [_path_from(p) for p in data["weights"]])

    def check(self, entry: Any, fn: Any, args: tuple[Any, ...]) -> tuple[list[str], Deps,
                                                                          list[Any]]:
        """(what changed, the live ``Deps`` for the in-memory cache, the weights)."""
        roots = _roots(entry, fn, args)
        changed = [f"file {path} changed" if digest else f"file {path} is missing"
                   for path, want in sorted(self.files.items())
                   if (digest := file_digest(path)) != want]
        deps = Deps(set(self.files))
        for path, want, shown in self.reads:
            value, read = _live_read(path, roots)
            if value is _MISSING:
                changed.append(f"{format_path(path)} is gone (was {shown})")
            elif stable_print(value) != want:
                changed.append(f"{format_path(path)} changed (was {shown}, now {show(value)})")
            elif read is not None:
                deps.reads[(id(read.owner), read.name)] = read
        weights = [resolve(p, roots) for p in self.weights]
        for path, w in zip(self.weights, weights):
            if w is _MISSING:
                changed.append(f"weight {format_path(path)} is gone")
        return changed, deps, weights


def record(entry: Any, fn: Any, args: tuple[Any, ...], deps: Deps,
           weights: tuple[Any, ...]) -> DepRecord:
    """The ``DepRecord`` of a finished compile; ``NotCacheable`` if a read or weight
    cannot be found from the roots."""
    from msc.nn.cell import Cell

    roots: list[tuple[Path, Any]] = [((("fn", 0),), fn)]
    if isinstance(entry, Cell):
        roots.insert(0, ((("self", 0),), entry))
    roots += [((("arg", i),), a) for i, a in enumerate(args)
              if not isinstance(a, (int, float, bool, str, type(None)))]
    locator = Locator(roots)
    reads: list[tuple[Path, str, str]] = []
    for read in deps.reads.values():
        if read.kind == "global":
            name = read.owner.get("__name__")
            if not isinstance(name, str) or sys.modules.get(name) is None or \
                    vars(sys.modules[name]) is not read.owner:
                raise NotCacheable(f"a global '{read.name}' of a namespace that is not an "
                                   "imported module")
            locator.add_module(name)
            path: Path = (("module", name), ("attr", read.name))
        else:
            owner = _locate(locator, read.owner, f"'{read.name}'")
            path = owner + ((read.kind if read.kind == "closure" else "attr", read.name),)
        value = read.current()
        reads.append((path, stable_print(value), show(value)))
    weight_paths = [_locate(locator, w, f"the Parameter '{w.name}'") for w in weights]
    reads.sort(key=lambda r: format_path(r[0]))
    return DepRecord({os.path.abspath(f): file_digest(f) or "" for f in deps.files},
                     reads, weight_paths)


def _locate(locator: Locator, obj: Any, what: str) -> Path:
    path = locator.path_of(obj)
    if path is None:
        raise NotCacheable(f"{what} was read from a {type(obj).__name__} that is not "
                           "reachable from the model, its arguments or its modules")
    return path


def _roots(entry: Any, fn: Any, args: tuple[Any, ...]) -> dict[tuple[str, Any], Any]:
    roots: dict[tuple[str, Any], Any] = {("fn", 0): fn, ("self", 0): entry}
    roots.update({("arg", i): a for i, a in enumerate(args)})
    return roots


def _live_read(path: Path, roots: dict[tuple[str, Any], Any]) -> tuple[Any, Read | None]:
    """The value at ``path`` and a live ``Read`` of it for the in-memory cache."""
    from msc.frontend.deps import fingerprint

    owner = resolve(path[:-1], roots) if len(path) > 1 else _MISSING
    kind, name = path[-1]
    if path[0][0] == "module" and len(path) == 2:
        owner = vars(owner) if owner is not _MISSING else owner
        kind = "global"
    if owner is _MISSING:
        return _MISSING, None
    try:
        value = Read(owner, name, None, kind).current()
    except Exception:  # noqa: BLE001 - a user property that raises: the value is gone
        value = _MISSING
    if value is _MISSING:
        return _MISSING, None
    return value, Read(owner, name, fingerprint(value), kind)


def _path_json(path: Path) -> list[list[Any]]:
    return [[kind, key] for kind, key in path]


def _path_from(data: list[list[Any]]) -> Path:
    return tuple((str(kind), key) for kind, key in data)


_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: str) -> str | None:
    """sha256 of the file's bytes (None if it cannot be read), memoised per process on
    (path, mtime, size) so that checking a warm entry reads each file once."""
    try:
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
        if key not in _DIGESTS:
            with open(path, "rb") as f:
                _DIGESTS[key] = hashlib.sha256(f.read()).hexdigest()
        return _DIGESTS[key]
    except OSError:
        return None

"""What a compile depended on, in the form a new process can check: a ``DepRecord``.

The front end records a compile's reads as *paths* from roots a later process also has
(the entry Cell ``self``, the entry function ``fn``, a constant argument ``args[i]`` or an
imported module), each with a stable print of its value, and its source files by content
hash (``frontend/paths.py``: ``record_deps``, ``check_record``). This module only holds
that record and writes it as JSON; ``msc.compiler`` hands the store the check that walks
it again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

#: ``(("self", 0), ("attr", "blocks"), ("item", 0))``: a root, then attributes, items,
#: closure variables (the front end's ``frontend/paths.Path``).
Path = tuple[tuple[str, Any], ...]


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


def _path_json(path: Path) -> list[list[Any]]:
    return [[kind, key] for kind, key in path]


def _path_from(data: list[list[Any]]) -> Path:
    return tuple((str(kind), key) for kind, key in data)

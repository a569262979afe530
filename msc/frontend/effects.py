"""What a graph may not do while it is built: touch the user's files or start processes.

The front end runs plain Python calls of ``construct`` and ``@jit`` functions at compile
time (``calls.py``); MindSpore's graph mode does not run them at all. So a call of one
of these is refused at the user's line before it runs: ``open(path, "w")`` would empty a
file while the graph compiles, and do nothing when it runs.
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import pathlib
import types
from typing import Any

from msc.errors import UnsupportedSyntaxError

__all__ = ["refuse_file_effects"]

_NAMES = {  # module: the callables of it that write files, remove them or start processes
    io: ("open", "open_code"),
    os: ("open", "remove", "unlink", "rename", "renames", "replace", "rmdir", "removedirs",
         "mkdir", "makedirs", "truncate", "system", "popen", "chmod", "chown", "link",
         "symlink", "mkfifo", "execv", "execve", "execl", "execvp", "spawnv", "spawnl",
         "posix_spawn", "fork", "kill", "startfile"),
    builtins: ("open",),  # (last: ``open`` is ``io.open``, and the user wrote ``open``)
}
_REFUSED = {id(getattr(m, n)): f"{'' if m is builtins else m.__name__ + '.'}{n}"
            for m, names in _NAMES.items() for n in names if hasattr(m, n)}
_WHOLE_MODULES = ("shutil", "subprocess")  # every callable of them
_PATH_METHODS = frozenset({"open", "write_text", "write_bytes", "unlink", "rename", "replace",
                           "touch", "mkdir", "rmdir", "chmod", "symlink_to", "hardlink_to"})


def _refused_name(fn: Any) -> str | None:
    """The name a call of ``fn`` is refused under, or None where it may run."""
    name = _REFUSED.get(id(fn))
    if name is not None:
        return name
    module = getattr(fn, "__module__", None)
    if module in _WHOLE_MODULES and callable(fn):
        return f"{module}.{getattr(fn, '__qualname__', type(fn).__name__)}"
    if isinstance(fn, (types.MethodType, types.BuiltinMethodType)) and \
            isinstance(getattr(fn, "__self__", None), pathlib.PurePath) and \
            fn.__name__ in _PATH_METHODS:
        return f"Path.{fn.__name__}"
    return None


def refuse_file_effects(fn: Any, node: ast.Call) -> None:
    """Raise msc's error for a call ``node`` of ``fn`` that would touch files or start a
    process while the graph is built (before its arguments are evaluated): ``open``,
    ``os.remove`` and the like, ``shutil.*``, ``subprocess.*``, a ``Path``'s writes, and
    ``print(..., file=...)``."""
    name = _refused_name(fn)
    if name is None and fn is print and any(k.arg == "file" for k in node.keywords):
        name = "print(..., file=...)"
    if name is not None:
        call = name if name.endswith(")") else f"{name}()"
        raise UnsupportedSyntaxError(
            f"{call} in a graph: a graph does not read or write files or start processes "
            "while it is compiled (the call would run once, at compile time, and never "
            "when the graph runs); do it outside construct and @jit functions")

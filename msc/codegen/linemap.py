"""Generated line -> user line, from the user's lines the renderer recorded for each
line it wrote (``KernelSpec.locations``), and Numba's compile failures re-raised as an
``InternalCompilerError`` at the user's line.

A generated module's line table (``render.line_table``) is remembered for its file when
msc loads or compiles it (``remember_lines``); a compile-cache entry keeps it in its manifest.
"""

from __future__ import annotations

import linecache
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from msc.errors import InternalCompilerError, Loc

#: Generated line -> (user file name, user line), per file: "" for the module itself, a
#: library file's stem for that file's lines.
LineTable = dict[str, dict[int, tuple[str, int]]]

_TABLES: dict[str, LineTable] = {}  # by the module's absolute path


def filled(first: int, locations: Sequence[Any],
           returns: bool = True) -> dict[int, tuple[str, int]]:
    """The lines of a function whose body starts at line ``first`` with lines of user
    lines ``locations`` (``Loc`` or None): a line without one maps to the nearest one
    before it in the function (so does the return line after them, where ``returns``),
    none before the first."""
    out: dict[int, tuple[str, int]] = {}
    current = None
    for k, loc in enumerate(locations):
        if loc is not None:
            current = (os.path.basename(loc.file), loc.line)
        if current is not None:
            out[first + k] = current
    if current is not None and returns:
        out[first + len(locations)] = current
    return out


def remember_lines(module: str | os.PathLike[str], table: LineTable) -> None:
    """Keep the line table of the generated module at ``module`` for its Numba errors."""
    _TABLES[os.path.abspath(module)] = table


def to_json(table: LineTable) -> dict[str, list[list[Any]]]:
    return {part: [[n, name, line] for n, (name, line) in sorted(rows.items())]
            for part, rows in table.items()}


def from_json(data: Any) -> LineTable:
    """The table ``to_json`` wrote (an empty one for anything else)."""
    try:
        return {part: {int(n): (str(name), int(line)) for n, name, line in rows}
                for part, rows in data.items()}
    except (AttributeError, TypeError, ValueError):
        return {}


def user_loc(generated: str | os.PathLike[str], source: str | os.PathLike[str], line: int,
             files: Iterable[str] = ()) -> Loc | None:
    """The user's location behind line ``line`` of ``source``: the generated module
    ``generated`` or one of its library files, by the module's remembered line table; the
    file is named by its full path when one of ``files`` (the compile's sources) has its
    name."""
    table = _TABLES.get(os.path.abspath(generated), {})
    part = "" if _same_file(str(source), str(generated)) else Path(source).stem
    found = table.get(part, {}).get(line)
    if found is None:
        return None
    name, number = found
    full = next((f for f in sorted(files) if os.path.basename(f) == name), name)
    text = linecache.getline(full, number)
    return Loc(full, number, len(text) - len(text.lstrip()) if text.strip() else 0)


def numba_failure(error: BaseException, generated: str | os.PathLike[str],
                  files: Iterable[str] = ()) -> InternalCompilerError | None:
    """``error`` as an ``InternalCompilerError`` at the user's line, if it is Numba failing
    to compile the generated module ``generated``; None for any other exception."""
    errors = sys.modules.get("numba.core.errors")
    if errors is None or not isinstance(error, errors.NumbaError):
        return None
    text = without_colours(str(error))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else type(error).__name__
    source, number = failing_frame(text, generated) or (generated, None)
    loc = user_loc(generated, source, number, files) if number else None
    notes = [f"Numba: {lines[1]}"] if len(lines) > 1 else []
    if number:
        notes.append(f"the failing generated line is {source}:{number}")
    return InternalCompilerError(f"Numba could not compile the generated code: {first}",
                                 loc, tuple(notes))


def without_colours(message: str) -> str:
    """``message`` without the terminal's colour codes (``ESC [ 1;31 m``) Numba puts in it."""
    out, at = [], 0
    while (start := message.find("\x1b[", at)) >= 0:
        end = start + 2
        while end < len(message) and message[end] in "0123456789;":
            end += 1
        if end < len(message) and message[end] == "m":
            out.append(message[at:start])
        else:  # not a colour code: kept
            out.append(message[at:end])
        at = end + (message[end:end + 1] == "m")
    return "".join(out) + message[at:]


def raise_numba_failure(error: BaseException, generated: str | os.PathLike[str],
                        files: Iterable[str] = ()) -> None:
    """Raise ``numba_failure`` of ``error`` (chained to it only with MSC_DEBUG=1), if it is
    one; return otherwise (the caller re-raises ``error`` unchanged)."""
    err = numba_failure(error, generated, files)
    if err is not None:
        raise err from (error if os.environ.get("MSC_DEBUG") == "1" else None)


def failing_line(message: str, generated: str | os.PathLike[str]) -> int | None:
    """The last ``File "...", line N`` of Numba's message that is in the generated file."""
    found = [n for shown, n in _frames(message) if _same_file(shown, str(generated))]
    return found[-1] if found else None


def failing_frame(message: str, generated: str | os.PathLike[str]) -> tuple[str, int] | None:
    """The last ``File "...", line N`` of Numba's message in generated code: the module
    ``generated`` or a kernel of the library (``library.py``) it wrote."""
    for shown, n in reversed(_frames(message)):
        if _same_file(shown, str(generated)):
            return str(generated), n
        if _library_kernel(os.path.basename(shown)):
            return os.path.abspath(shown), n  # (Numba may show it relative)
    return None


def _frames(message: str) -> list[tuple[str, int]]:
    """Each ``File "<path>", line <n>`` in ``message``, in order."""
    found, at = [], 0
    while (start := message.find('File "', at)) >= 0:
        at = start + len('File "')
        end = message.find('", line ', at)
        if end < 0:
            break
        digits = message[end + len('", line '):]
        digits = digits[:len(digits) - len(digits.lstrip("0123456789"))]
        if end > at and '"' not in message[at:end] and digits:
            found.append((message[at:end], int(digits)))
            at = end
    return found


def _library_kernel(name: str) -> bool:
    """Whether ``name`` is a library kernel's file (``library.kernel_file``)."""
    digest = name.removeprefix("_msc_k_").removesuffix(".py")
    return name == f"_msc_k_{digest}.py" and bool(digest) and \
        all(c in "0123456789abcdef" for c in digest)


def _same_file(shown: str, path: str) -> bool:
    """Numba shows a path relative to the working folder when it is inside it."""
    return os.path.abspath(shown) == os.path.abspath(path) or \
        os.path.basename(shown) == os.path.basename(path)

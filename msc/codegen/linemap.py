"""Generated line -> user line, from the ``  # file.py:N`` comments lowering writes, and
Numba's compile failures re-raised as an ``InternalCompilerError`` at the user's line.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from msc.errors import InternalCompilerError, Loc

_LOC = re.compile(r"\s#\s(?P<file>[^#]+?):(?P<line>\d+)\s*$")  # see fusion.loc_comment
_KERNEL = re.compile(r"^(?P<indent>\s*)(?:def\s|@)")
_FILE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_LIBRARY_KERNEL = re.compile(r"_msc_k_[0-9a-f]+\.py")  # see library.kernel_file


def line_map(source: str) -> dict[int, tuple[str, int]]:
    """{generated line (1-based): (user file name, user line)} of ``source``.

    A line with a location comment maps to it; a line without one maps to the nearest
    preceding commented line of the same function, and to nothing before the first."""
    out: dict[int, tuple[str, int]] = {}
    current: tuple[str, int] | None = None
    depth: int | None = None  # indentation of the function being read
    for number, text in enumerate(source.splitlines(), 1):
        if not text.strip():
            continue
        indent = len(text) - len(text.lstrip())
        starts = _KERNEL.match(text)
        if starts or (depth is not None and indent <= depth):
            current, depth = None, (indent if starts else None)
        found = _LOC.search(text)
        if found and depth is not None:
            current = (found["file"], int(found["line"]))
        if current is not None:
            out[number] = current
    return out


def user_loc(generated: str | os.PathLike[str], line: int,
             files: Iterable[str] = (), source: str | None = None) -> Loc | None:
    """The user's location behind line ``line`` of the generated file (whose text is
    ``source`` where given); the file is named by its full path when one of ``files``
    (the compile's sources) has its name."""
    try:
        source = Path(generated).read_text(encoding="utf-8") if source is None else source
    except OSError:
        return None
    found = line_map(source).get(line)
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
    loc = user_loc(source, number, files, _own_copy(generated, source)) if number else None
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


def _own_copy(generated: str | os.PathLike[str], kernel: str) -> str | None:
    """The module ``generated``'s own copy (in its ``_LIBRARY``) of the library kernel file
    ``kernel``: the file on disk may come from another model, whose comments name its
    lines; the code, and so the line numbers, are the same."""
    if os.path.abspath(kernel) == os.path.abspath(generated):
        return None
    try:
        tree = ast.parse(Path(generated).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == \
                ["_LIBRARY"]:
            return ast.literal_eval(node.value).get(Path(kernel).stem)
    return None


def failing_line(message: str, generated: str | os.PathLike[str]) -> int | None:
    """The last ``File "...", line N`` of Numba's message that is in the generated file."""
    found = [int(m["line"]) for m in _FILE_LINE.finditer(message)
             if _same_file(m["file"], str(generated))]
    return found[-1] if found else None


def failing_frame(message: str, generated: str | os.PathLike[str]) -> tuple[str, int] | None:
    """The last ``File "...", line N`` of Numba's message in generated code: the module
    ``generated`` or a kernel of the library (``library.py``) it wrote."""
    for m in reversed(list(_FILE_LINE.finditer(message))):
        if _same_file(m["file"], str(generated)):
            return str(generated), int(m["line"])
        if _LIBRARY_KERNEL.fullmatch(os.path.basename(m["file"])):
            return os.path.abspath(m["file"]), int(m["line"])  # (Numba may show it relative)
    return None


def _same_file(shown: str, path: str) -> bool:
    """Numba shows a path relative to the working folder when it is inside it."""
    return os.path.abspath(shown) == os.path.abspath(path) or \
        os.path.basename(shown) == os.path.basename(path)

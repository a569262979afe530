"""Files msc writes for the user appear whole or not at all: each is written to a temporary
file in its own folder, flushed to disk, then renamed over its name, so a process killed at
any moment leaves the file that was there before or the new one, never a part of either."""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["atomic_open", "write_atomic"]


@functools.cache
def _new_file_mode() -> int:
    """The permissions ``open(path, "w")`` gives a new file (0o666 less the umask), which
    ``mkstemp``'s private 0o600 would otherwise replace."""
    mask = os.umask(0o022)  # NOTE: reading the umask means setting it; restored at once
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "wb",
                encoding: str | None = None) -> Iterator[IO[Any]]:
    """A file object to write ``path`` through: what is written lands under ``path`` only
    when the ``with`` block ends without an exception (a temporary file beside it, fsync,
    ``os.replace``); an exception or a kill leaves ``path`` as it was. A file that existed
    keeps its permissions."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode 'w' or 'wb', not {mode!r}")
    final = os.path.realpath(path)  # (a link is followed: the file it names is replaced)
    folder = os.path.dirname(final)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(final)}.", suffix=".tmp",
                               dir=folder)
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            try:
                os.chmod(tmp, os.stat(final).st_mode & 0o7777)
            except FileNotFoundError:
                os.chmod(tmp, _new_file_mode())
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(folder)


def write_atomic(path: str | os.PathLike[str], data: bytes | str,
                 encoding: str = "utf-8") -> None:
    """Write ``data`` (text in ``encoding``, or bytes) to ``path`` whole or not at all."""
    if isinstance(data, str):
        data = data.encode(encoding)
    with atomic_open(path, "wb") as f:
        f.write(data)


def _sync_folder(folder: str) -> None:
    """Flush the folder's entry for the renamed file (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

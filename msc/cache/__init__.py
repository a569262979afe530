"""The compile cache: dependency records (``record.py``), the entry key (``key.py``) and
the on-disk store (``store.py``); ``msc.compiler`` drives them, and hands them what they
need of the front end (an entry's identity, its inputs' description, the check of a
record): the cache imports nothing above it.

A new process that compiles what an earlier one compiled, with every source file and
constant it depended on unchanged, loads the earlier result instead: no parsing,
optimizing, code generation or Numba compilation.
"""

from __future__ import annotations

import os

from msc.cache.key import entry_key
from msc.cache.record import DepRecord
from msc.cache.store import MISMATCH, CacheStore, CacheWarning, Lookup

__all__ = ["CacheStore", "CacheWarning", "DepRecord", "Lookup", "MISMATCH", "default_path",
           "entry_key"]


def default_path() -> str:
    """``$MSC_COMPILER_CACHE_PATH``, else ``$XDG_CACHE_HOME/msc``, else ``~/.cache/msc``."""
    given = os.environ.get("MSC_COMPILER_CACHE_PATH")
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "msc")

"""The compile cache: dependency records (``record.py``), the entry key (``key.py``) and
the on-disk store (``store.py``); ``msc.compiler`` drives them, and hands them what they
need of the front end (an entry's identity, its inputs' description, the check of a
record): the cache imports nothing above it.

A new process that compiles what an earlier one compiled, with every source file and
constant it depended on unchanged, loads the earlier result instead: no parsing,
optimizing, code generation or Numba compilation.
"""

from __future__ import annotations

from msc._cache_folder import default_path
from msc.cache.key import entry_key
from msc.cache.record import DepRecord
from msc.cache.store import MISMATCH, CacheStore, CacheWarning, Lookup

__all__ = ["CacheStore", "CacheWarning", "DepRecord", "Lookup", "MISMATCH", "default_path",
           "entry_key"]

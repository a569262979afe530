"""The folder msc caches in, a module of its own so that code generation can ask for it
without importing the compile cache's store (which imports code generation)."""

from __future__ import annotations

import os


def default_path() -> str:
    """``$MSC_COMPILER_CACHE_PATH``, else ``$XDG_CACHE_HOME/msc``, else ``~/.cache/msc``."""
    given = os.environ.get("MSC_COMPILER_CACHE_PATH")
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "msc")

"""Identifiers for generated code: one namespace per module that never shadows a
Python keyword, a builtin, or a name the templates use, and never repeats."""

from __future__ import annotations

import builtins
import keyword
import re

#: Names the templates define or import; generated values must not take them.
RESERVED = frozenset({"np", "os", "sys", "math", "scipy", "njit", "objmode", "print_text",
                      "_HAVE_BLAS", "run", "forward", "INPUTS", "WEIGHTS", "OUTPUT",
                      "load_weights", "args", "inputs", "arrays"})


class Namespace:
    def __init__(self) -> None:
        self.used: set[str] = set()
        self.suffix: dict[str, int] = {}  # base -> the suffix to try next (all below: used)

    def fresh(self, hint: str) -> str:
        """A unique identifier close to ``hint`` (``fc1.weight`` -> ``fc1_weight``)."""
        base = re.sub(r"\W", "_", hint) or "v"
        if base[0].isdigit():
            base = "_" + base
        if keyword.iskeyword(base) or hasattr(builtins, base) or base in RESERVED \
                or base.startswith(("_rt_", "__k")):  # runtime helpers, constants
            base = base + "_"
        i = self.suffix.get(base, 0)
        name = f"{base}_{i}" if i else base
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.suffix[base] = i + 1
        self.used.add(name)
        return name

"""The configurations, one module per family; ``families()`` lists them in a fixed order."""

from __future__ import annotations

import importlib

from tests.oracle.spec import Case

MODULES = ("pooling", "conv", "norm", "activation", "losses", "reduction", "indexing",
           "sorting", "cumulative", "promotion", "linalg", "elementwise", "shape", "resize",
           "padding", "layers", "tensor_methods", "scatter")


def families() -> dict[str, list[Case]]:
    found = {}
    for name in MODULES:
        try:
            module = importlib.import_module(f"tests.oracle.cases.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"tests.oracle.cases.{name}":
                raise
            continue
        found[module.FAMILY] = module.cases()
    return found

"""How much of MindSpore 2.10's public API msc provides, counted live per namespace.

``python -m msc.coverage`` prints, for ``ops`` functions, ``ops`` primitive classes,
``nn``, Tensor methods and the top level, how many of MindSpore's names resolve in msc;
``--missing`` also lists the ones that do not. A name counts only if looking it up in msc
succeeds (the "not supported yet" error does not count), so the numbers follow the code.
"""

from __future__ import annotations

import argparse
import types
from dataclasses import dataclass

from msc.api_names import NAMESPACES, mindspore_names

LABELS = {"ops_functions": "ops functions", "ops_classes": "ops primitive classes",
          "nn": "nn", "tensor": "Tensor methods", "top": "top level (msc.*)"}
# msc's own subpackages that do not stand for MindSpore's module of the same name
_INTERNAL_MODULES = frozenset({"runtime"})


@dataclass(frozen=True)
class Coverage:
    namespace: str
    present: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def total(self) -> int:
        return len(self.present) + len(self.missing)


def _owner(namespace: str) -> object:
    import msc

    return {"ops_functions": msc.ops, "ops_classes": msc.ops, "nn": msc.nn,
            "tensor": msc.Tensor, "top": msc}[namespace]


def resolves(namespace: str, name: str) -> bool:
    """Whether msc has MindSpore's ``name`` in ``namespace``."""
    try:
        value = getattr(_owner(namespace), name)
    except (AttributeError, ImportError):
        return False
    return not (namespace == "top" and isinstance(value, types.ModuleType)
                and name in _INTERNAL_MODULES)


def coverage(namespace: str) -> Coverage:
    names = sorted(mindspore_names()[namespace])
    found = [resolves(namespace, n) for n in names]
    return Coverage(namespace, tuple(n for n, ok in zip(names, found) if ok),
                    tuple(n for n, ok in zip(names, found) if not ok))


def report(show_missing: bool = False) -> str:
    lines = []
    for ns in NAMESPACES:
        cov = coverage(ns)
        share = 100.0 * len(cov.present) / cov.total if cov.total else 100.0
        lines.append(f"{LABELS[ns]:<24} {len(cov.present):>5} / {cov.total:<5} ({share:5.1f}%)")
        if show_missing and cov.missing:
            lines.append("  missing: " + ", ".join(cov.missing))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="msc's coverage of MindSpore 2.10's public "
                                                 "API, per namespace")
    parser.add_argument("--missing", action="store_true", help="list the missing names")
    args = parser.parse_args(argv)
    print(report(args.missing))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

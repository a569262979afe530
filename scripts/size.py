"""Print the size of msc in lines of code, per package, as tinygrad's ``sz.py`` does.

A line of code is a line on which a token starts (a name, an operator, a number, a
string): blank lines and comments do not count, and a docstring counts once, however
many lines it spans. The compiler's packages come first, then the packages that mirror
MindSpore's public API; ``tests/test_layout.py`` holds the budget for each.

    python scripts/size.py            # the table, largest package first
    python scripts/size.py --files    # and every module, largest first
"""

from __future__ import annotations

import argparse
import io
import pathlib
import tokenize

MSC = pathlib.Path(__file__).resolve().parents[1] / "msc"
#: The packages at MindSpore's public paths (``mindspore.nn``, ``mindspore.ops``, ...).
API = ("common", "dataset", "nn", "numpy", "ops", "train")
#: The modules directly in ``msc/`` (the compiler's entry, the CLI, the context, errors).
TOP = "(msc/*.py)"
_CODE = {tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING}


def code_lines(source: str) -> int:
    """How many lines of ``source`` a token of code starts on."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return len({t.start[0] for t in tokens if t.type in _CODE})


def package_of(path: pathlib.Path) -> str:
    """The top-level package of ``msc`` a module belongs to (``TOP`` for ``msc/*.py``)."""
    parts = path.relative_to(MSC).parts
    return parts[0] if len(parts) > 1 else TOP


def module_lines() -> dict[str, int]:
    """Lines of code per module of ``msc``, by path relative to ``msc/``."""
    return {str(p.relative_to(MSC)): code_lines(p.read_text(encoding="utf-8"))
            for p in sorted(MSC.rglob("*.py"))}


def package_lines() -> dict[str, int]:
    """Lines of code per top-level package of ``msc``."""
    totals: dict[str, int] = {}
    for name, n in module_lines().items():
        package = package_of(MSC / name)
        totals[package] = totals.get(package, 0) + n
    return totals


def table(files: bool = False) -> str:
    modules = module_lines()
    packages = package_lines()
    rows = [f"{'package':<20} {'files':>5} {'lines':>8}", "-" * 35]
    for title, names in (("compiler", [p for p in packages if p not in API]),
                         ("MindSpore API", [p for p in packages if p in API])):
        for p in sorted(names, key=lambda p: -packages[p]):
            count = sum(1 for m in modules if package_of(MSC / m) == p)
            rows.append(f"{p:<20} {count:>5} {packages[p]:>8}")
        rows.append(f"{'  ' + title:<20} {'':>5} {sum(packages[p] for p in names):>8}")
        rows.append("")
    rows.append(f"{'total':<20} {len(modules):>5} {sum(packages.values()):>8}")
    if files:  # (the file's own length too: the layout test bounds it)
        rows += ["", f"{'module':<45} {'lines':>6} {'in file':>8}", "-" * 61]
        rows += [f"{m:<45} {n:>6} {len((MSC / m).read_text(encoding='utf-8').splitlines()):>8}"
                 for m, n in sorted(modules.items(), key=lambda kv: -kv[1])]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="also list every module")
    print(table(parser.parse_args().files))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

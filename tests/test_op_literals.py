"""Code names an op by its record (``Op.Reshape``), never by a string: a string equal to a
registered op's name anywhere in ``msc/`` outside the primitive table is a misspelling
waiting to happen. ``__all__`` lists are exempt (they list exported class names), so is
the ONNX exporter, whose strings are ONNX's operator types (many share msc's op names),
and so is the fuzzer, whose strings are user source code spelling MindSpore's primitive
classes."""

from __future__ import annotations

import ast
from pathlib import Path

from msc.ir.primitives import PRIMITIVES

ROOT = Path(__file__).resolve().parents[1] / "msc"
TABLE = ROOT / "ir" / "primitives"
FUZZER = ROOT / "fuzz"
ONNX = ROOT / "onnx"


def _all_lists(tree: ast.AST) -> set[int]:
    """The ids of every node inside an ``__all__ = ...`` (or ``+=``) assignment."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            inside.update(id(n) for n in ast.walk(value))
    return inside


def op_literals() -> list[str]:
    """``file:line: 'Name'`` for every string constant naming a registered op."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if {TABLE, FUZZER, ONNX} & set(path.parents):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        exempt = _all_lists(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    node.value in PRIMITIVES and id(node) not in exempt:
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {node.value!r}")
    return sorted(found)


def test_no_op_name_literals_outside_the_table() -> None:
    found = op_literals()
    assert not found, "name ops as Op.X, not by string:\n" + "\n".join(found)


def test_the_scan_sees_a_literal() -> None:
    tree = ast.parse('apply("Reshape", x)\n__all__ = ["Reshape"]\n')
    exempt = _all_lists(tree)
    hits = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and n.value in PRIMITIVES and id(n) not in exempt]
    assert hits == [1]

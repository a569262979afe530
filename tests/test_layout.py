"""Structure rules: module size budget and the layering frontend -> ir <- optimizer."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "msc"
HARD_CAP = 800


def modules():
    return sorted(p for p in ROOT.rglob("*.py"))


def test_no_module_exceeds_the_line_budget():
    too_long = {str(p.relative_to(ROOT)): n for p in modules()
                if (n := len(p.read_text().splitlines())) > HARD_CAP}
    assert not too_long, f"modules over {HARD_CAP} lines: {too_long}"


def imported_packages(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_ir_imports_nothing_above_it():
    bad = [(str(p.relative_to(ROOT)), m) for p in (ROOT / "ir").rglob("*.py")
           for m in imported_packages(p)
           if m.startswith(("msc.frontend", "msc.optimizer", "msc.codegen", "msc.cache",
                            "msc.driver", "msc.cli"))]
    assert not bad, bad


def test_optimizer_does_not_import_the_frontend():
    bad = [(str(p.relative_to(ROOT)), m) for p in (ROOT / "optimizer").rglob("*.py")
           for m in imported_packages(p) if m.startswith(("msc.frontend", "msc.context"))]
    assert not bad, bad

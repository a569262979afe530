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
                            "msc.driver", "msc.compiler", "msc.cli"))]
    assert not bad, bad


def test_optimizer_does_not_import_the_frontend():
    bad = [(str(p.relative_to(ROOT)), m) for p in (ROOT / "optimizer").rglob("*.py")
           for m in imported_packages(p) if m.startswith(("msc.frontend", "msc.context"))]
    assert not bad, bad


def test_the_cache_package_stores_and_does_not_compile():
    """``msc.compiler`` drives ``msc.cache``; the cache never reaches back into it (or the
    old driver, or code lowering): no import cycle between them."""
    bad = [(str(p.relative_to(ROOT)), m) for p in (ROOT / "cache").rglob("*.py")
           for m in imported_packages(p)
           if m.startswith(("msc.driver", "msc.compiler", "msc.codegen.lower"))]
    assert not bad, bad
    assert not (ROOT / "cache" / "compile.py").exists()


def test_the_driver_reaches_the_cache_only_through_the_compiler():
    driver = ROOT / "driver.py"
    if driver.exists():
        bad = [m for m in imported_packages(driver) if m.startswith("msc.cache")]
        assert not bad, bad


def test_the_version_is_written_once():
    """``msc/_version.py`` holds it; everything else (``msc.__version__`` too) imports it."""
    written = [str(p.relative_to(ROOT)) for p in modules()
               for n in ast.walk(ast.parse(p.read_text()))
               if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
               and isinstance(n.value.value, str)
               and any(isinstance(t, ast.Name) and t.id in ("VERSION", "__version__")
                       for t in n.targets)]
    assert written == ["_version.py"]

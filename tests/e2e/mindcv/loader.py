"""Imports the vendored MindCV files (``tests/e2e/mindcv/mindcv``) as the package ``mindcv``,
with their imports of ``mindspore`` rewritten to ``msc`` as they load: the files on disk stay
byte for byte MindCV's, line numbers included, and only the import statements change.

``install("mindspore")`` loads them unchanged (for the MindSpore oracle subprocess). A folder
without ``__init__.py`` (``mindcv``, ``mindcv/utils``) loads as an empty package, so importing
``mindcv.models`` does not pull in MindCV's datasets and callbacks; ``mindcv.utils.download``
(checkpoint downloads, needs tqdm and the network) is replaced by a stub.
This file runs under both frameworks, so it imports neither."""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
PACKAGE = "mindcv"
DOWNLOAD_STUB = '''"""Stands in for MindCV's checkpoint downloader: the tests load no pretrained weights."""
import os


def get_default_download_root():
    return os.path.join(os.path.expanduser("~"), ".mindspore")


class DownLoad:
    def download_url(self, *args, **kwargs):
        raise RuntimeError("no downloads in the tests")
'''


def _rename(name: str, framework: str) -> str:
    return framework + name[len("mindspore"):]


class _ImportRewriter(ast.NodeTransformer):
    """``import mindspore[.x] [as y]`` and ``from mindspore[.x] import ...`` -> ``msc``."""

    def __init__(self, framework: str) -> None:
        self.framework = framework

    def _ours(self, name: str | None) -> bool:
        return name is not None and (name == "mindspore" or name.startswith("mindspore."))

    def visit_Import(self, node: ast.Import) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for alias in node.names:
            if not self._ours(alias.name):
                out.append(ast.Import(names=[alias]))
            elif alias.asname is not None:
                out.append(ast.Import(names=[ast.alias(_rename(alias.name, self.framework),
                                                       alias.asname)]))
            else:  # `import mindspore.nn` binds `mindspore` and loads its submodule
                out.append(ast.Import(names=[ast.alias(_rename(alias.name, self.framework),
                                                       "_mindcv_loaded_submodule")]))
                out.append(ast.Import(names=[ast.alias(self.framework, "mindspore")]))
        return [ast.copy_location(stmt, node) for stmt in out]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.ImportFrom:
        if node.level == 0 and self._ours(node.module):
            node.module = _rename(node.module, self.framework)
        return node


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, framework: str) -> None:
        self.framework = framework

    def find_spec(self, fullname, path=None, target=None):
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + "."):
            return None
        base = HERE.joinpath(*fullname.split("."))
        if base.is_dir():
            init = base / "__init__.py"
            if init.exists():
                return importlib.util.spec_from_file_location(
                    fullname, init, loader=self, submodule_search_locations=[str(base)])
            spec = importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            spec.submodule_search_locations = [str(base)]
            return spec
        if fullname == PACKAGE + ".utils.download" or base.with_suffix(".py").exists():
            return importlib.util.spec_from_file_location(fullname, base.with_suffix(".py"),
                                                          loader=self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module: ModuleType) -> None:
        name = module.__spec__.name
        origin = module.__spec__.origin
        if name == PACKAGE + ".utils.download":
            exec(compile(DOWNLOAD_STUB, "<mindcv.utils.download stub>", "exec"), module.__dict__)
            return
        if origin is None or not Path(origin).exists():
            return  # a folder without __init__.py: an empty package
        tree = ast.parse(Path(origin).read_text(), origin)
        if self.framework != "mindspore":
            tree = ast.fix_missing_locations(_ImportRewriter(self.framework).visit(tree))
        exec(compile(tree, origin, "exec"), module.__dict__)


def install(framework: str = "msc") -> None:
    """Makes ``import mindcv...`` load the vendored files against ``framework``."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(framework))

"""Files vendored unchanged from the MindSpore model zoo (see NOTICE.md) and the loader that
imports them under msc: every ``mindspore`` / ``mindspore.X`` import resolves to ``msc`` /
``msc.X`` (an import hook aliases the modules; the files are not edited), and each model's
``src`` package is imported from its own folder."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent


class _MindSporeAsMsc(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import mindspore.nn`` gives the module ``msc.nn`` (the same object)."""

    def __init__(self):
        self.specs = {}

    def find_spec(self, name, path=None, target=None):
        if name == "mindspore" or name.startswith("mindspore."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module("msc" + spec.name[len("mindspore"):])
        self.specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        """The import machinery gave the msc module the alias's spec: its own goes back
        (tools that find msc's files by its spec, such as template loaders, read it)."""
        for name, spec in list(self.specs.items()):
            if spec.name == module.__name__:
                module.__spec__ = self.specs.pop(name)


@contextmanager
def mindspore_as_msc() -> Iterator[None]:
    """Inside the block ``mindspore`` imports resolve to msc; after it the aliases leave
    ``sys.modules`` again (the modules imported inside keep what they bound), so other
    tests of the process see no ``mindspore``. With ``MSC_ZOO_REAL_MINDSPORE=1`` (the
    MindSpore oracle's subprocess) nothing is aliased."""
    if os.environ.get("MSC_ZOO_REAL_MINDSPORE") == "1":
        yield
        return
    finder = _MindSporeAsMsc()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if k == "mindspore" or k.startswith("mindspore.")]:
            if sys.modules[k].__name__.startswith("msc"):
                del sys.modules[k]


#: The ``src`` modules each model's blocks imported, and the model of the latest block.
_loaded: dict[str, dict[str, types.ModuleType]] = {}
_last = ""


def activate_last() -> None:
    """Put the latest model's ``src`` modules back into ``sys.modules``: MindSpore's graph
    parser finds a function's module there by name when a ``@jit`` method first runs."""
    for k in _src_modules():
        del sys.modules[k]
    sys.modules.update(_loaded.get(_last, {}))


def _src_modules() -> dict[str, types.ModuleType]:
    return {k: sys.modules[k] for k in list(sys.modules) if k == "src" or k.startswith("src.")}


@contextmanager
def model(name: str, stubs: dict[str, dict] | None = None) -> Iterator[types.SimpleNamespace]:
    """Inside the block, ``import src.X`` imports ``tests/e2e/zoo/<name>/src/X.py`` with
    mindspore aliased to msc; ``stubs`` gives modules the files import but that are not
    vendored (a model's yaml-backed config): dotted name -> attributes. Lazy imports the
    networks make while they are built (``from src.CRF import CRF``) resolve too; after
    the block ``src`` is free for the next model."""
    saved = _src_modules()
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, str(HERE / name))
    added: list[str] = []
    alias = mindspore_as_msc()
    alias.__enter__()
    try:
        importlib.import_module("src")  # the model's folder, a namespace package
        for dotted, attrs in (stubs or {}).items():
            parts = dotted.split(".")
            for i in range(1, len(parts) + 1):  # the stub and any missing package above it
                sub = ".".join(parts[:i])
                if sub not in sys.modules:
                    sys.modules[sub] = types.ModuleType(sub)
                    added.append(sub)
                    if i > 1:
                        setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1],
                                sys.modules[sub])
            sys.modules[dotted].__dict__.update(attrs)
        yield types.SimpleNamespace(load=importlib.import_module)
    finally:
        global _last
        _last = name
        _loaded.setdefault(name, {}).update(_src_modules())
        alias.__exit__(None, None, None)
        sys.path.remove(str(HERE / name))
        for k in [*_src_modules(), *added]:
            sys.modules.pop(k, None)
        sys.modules.update(saved)


def load(name: str, *modules: str, stubs: dict[str, dict] | None = None):
    """The model's modules (``"src.resnet"``, ...), imported under msc: one module, or a
    tuple of them."""
    with model(name, stubs) as m:
        loaded = tuple(m.load(dotted) for dotted in modules)
    return loaded[0] if len(loaded) == 1 else loaded

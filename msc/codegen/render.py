"""The one Jinja2 environment: render a ModuleSpec with its target's template.

Templates only loop and place; every name and expression was decided by ``lower``.
A rendered module must parse before anyone sees it.
"""

from __future__ import annotations

import ast
import importlib.util
import pprint
import sys
from types import ModuleType
from typing import Any

from msc.codegen.lower import ModuleSpec
from msc.errors import InternalCompilerError

_ENV: list[Any] = []


def _environment() -> Any:
    """Made on the first render: a compile-cache hit never imports Jinja2."""
    if not _ENV:
        import jinja2

        env = jinja2.Environment(loader=jinja2.PackageLoader("msc", "templates"),
                                 undefined=jinja2.StrictUndefined, trim_blocks=True,
                                 lstrip_blocks=True, keep_trailing_newline=True,
                                 autoescape=False)
        env.filters["pyrepr"] = lambda v: pprint.pformat(v, width=88, compact=True)
        _ENV.append(env)
    return _ENV[0]


def render(spec: ModuleSpec) -> str:
    source = _environment().get_template(f"{spec.target}.py.j2").render(spec=spec)
    try:
        ast.parse(source)
    except SyntaxError as e:
        raise InternalCompilerError(f"generated {spec.target} module does not parse: {e}") \
            from None
    return source


def import_file(path: str, name: str) -> ModuleType:
    """Import a generated module from ``path``. It is registered in ``sys.modules``
    before it runs: Numba's ``cache=True`` looks the module up while compiling."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module

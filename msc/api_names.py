"""MindSpore 2.10's public names per namespace, and the error for the ones msc lacks.

``_mindspore_names.json`` lists them (``ops`` split into functions and primitive classes,
as MindSpore's own objects are). A lookup of a missing name in ``msc``, ``msc.ops``,
``msc.nn`` or on a Tensor raises ``UnsupportedApiError`` when MindSpore has the name, so
a script learns that msc does not support it yet rather than that it does not exist.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from msc.errors import MscError

NAMESPACES = ("ops_functions", "ops_classes", "nn", "tensor", "top")


class UnsupportedApiError(MscError, AttributeError):
    """A MindSpore public name msc does not provide yet. It is an AttributeError, so
    ``hasattr`` and ``getattr(obj, name, default)`` keep answering "absent" and
    feature checks in user code behave as they would for a missing attribute."""


class UnsupportedModuleError(MscError, ImportError):
    """A MindSpore module msc does not provide (``import msc.dataset``)."""


@functools.cache
def mindspore_names() -> dict[str, frozenset[str]]:
    """namespace -> MindSpore 2.10's public names in it."""
    data = json.loads((Path(__file__).parent / "_mindspore_names.json").read_text())
    return {ns: frozenset(data[ns]) for ns in NAMESPACES}


def missing_attribute(owner: str, namespaces: tuple[str, ...], name: str) -> AttributeError:
    """The error for ``owner.name`` not found: ``UnsupportedApiError`` if ``name`` is one of
    MindSpore's public names in ``namespaces``, a plain AttributeError otherwise."""
    if not name.startswith("__") and any(name in mindspore_names()[ns] for ns in namespaces):
        return UnsupportedApiError(f"'{owner}.{name}' (MindSpore 2.10) is not supported by msc "
                                   "yet.")
    return AttributeError(f"module or class '{owner}' has no attribute '{name}'")


def unsupported_module(module: str) -> UnsupportedModuleError:
    return UnsupportedModuleError(f"'{module}' (MindSpore 2.10) is not supported by msc; feed "
                                  "numpy arrays or Tensors instead.")

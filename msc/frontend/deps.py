"""What a compile depended on: the source files parsed and the constants read.

The in-memory compile cache re-checks the constants before reusing a graph (so a
changed attribute recompiles instead of running a stale graph), and the on-disk
cache hashes both lists.
"""

from __future__ import annotations

import hashlib
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from msc.ir.dtypes import DType
from msc.ir.types import MonadType, PyType, RefType, ScalarType, TensorType, TupleType

IR_TYPES = (TensorType, ScalarType, TupleType, RefType, MonadType, PyType)

_MISSING = object()


def fingerprint(value: Any) -> Any:
    """A hashable stand-in that changes when ``value`` changes in a way a graph sees.

    Numbers, strings and tuples compare by value, arrays and tensors by content;
    objects whose own attributes are read separately (Cells, modules, functions)
    by identity.
    """
    from msc.frontend.api.tensor import Parameter, Tensor

    if isinstance(value, Parameter):
        return ("param", id(value), value.dtype.name, value.shape)
    if isinstance(value, (Tensor, np.ndarray)):
        arr = np.asarray(value)
        return ("array", arr.dtype.str, arr.shape, hashlib.sha256(arr.tobytes()).hexdigest())
    if isinstance(value, (bool, int, float, str, bytes, type(None), np.generic, DType)
                  + IR_TYPES):
        return (type(value).__name__, value)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(fingerprint(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((fingerprint(k), fingerprint(v)) for k, v in value.items()))
    return ("object", type(value).__qualname__, id(value))


@dataclass(frozen=True)
class Read:
    """``owner.name`` (an attribute) or ``owner[name]`` (a globals dict) had ``print``."""

    owner: Any
    name: str
    print: Any
    is_attr: bool

    def still_valid(self) -> bool:
        current = getattr(self.owner, self.name, _MISSING) if self.is_attr \
            else self.owner.get(self.name, _MISSING)
        return current is not _MISSING and fingerprint(current) == self.print


@dataclass
class Deps:
    files: set[str] = field(default_factory=set)
    reads: dict[tuple[int, str], Read] = field(default_factory=dict)

    def read_attr(self, owner: Any, name: str, value: Any) -> Any:
        if not isinstance(value, (types.ModuleType, types.FunctionType, type)):
            self.reads.setdefault((id(owner), name), Read(owner, name, fingerprint(value), True))
        return value

    def read_config(self, obj: Any) -> None:
        """Record the plain settings of an object whose code runs natively (msc's own
        layers): their reads are not seen one by one, and ``training`` is among them."""
        for name, value in vars(obj).items():
            if isinstance(value, (bool, int, float, str, tuple, type(None))):
                self.read_attr(obj, name, value)

    def read_global(self, globals_: dict[str, Any], name: str) -> Any:
        value = globals_[name]
        if not isinstance(value, (types.ModuleType, types.FunctionType, type)):
            self.reads.setdefault((id(globals_), name),
                                  Read(globals_, name, fingerprint(value), False))
        return value

    def read_closure(self, name: str, value: Any) -> Any:
        return value  # closure cells are fixed once the function object exists

    def still_valid(self) -> bool:
        return all(r.still_valid() for r in self.reads.values())

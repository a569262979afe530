"""What a compile depended on: the source files parsed and the constants read.

The in-memory compile cache re-checks the constants before reusing a graph (so a
changed attribute recompiles instead of running a stale graph), and the on-disk
cache hashes both lists.
"""

from __future__ import annotations

import hashlib
import os
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from msc.ir.dtypes import DType
from msc.ir.types import MonadType, PyType, RefType, ScalarType, TensorType, TupleType

IR_TYPES = (TensorType, ScalarType, TupleType, RefType, MonadType, PyType)

_MISSING = object()  # shared with the cache records
#: Values that cannot change in place: the same object has the same fingerprint.
IMMUTABLE = (bool, int, float, str, bytes, type(None), np.generic, DType) + IR_TYPES


def fingerprint(value: Any) -> Any:
    """A hashable stand-in that changes when ``value`` changes in a way a graph sees.

    Numbers, strings and tuples compare by value, arrays and tensors by content;
    objects whose own attributes are read separately (Cells, modules, functions)
    by identity; a bound method by its object and function, a built-in one
    (``out.append`` of a list) by its object and name: ``obj.m`` makes a new method
    object on every read, and the graph it gave must not be recompiled for that.
    """
    from msc.common.tensor import Parameter, Tensor

    if isinstance(value, Parameter):
        data = value._data  # (not ``value.type``: this runs for each weight on every call)
        return ("param", id(value), data.dtype.str, data.shape)
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
    if isinstance(value, types.MethodType):
        return ("method", id(value.__self__), id(value.__func__))
    if isinstance(value, types.BuiltinMethodType) and not isinstance(
            getattr(value, "__self__", None), types.ModuleType):
        return ("builtin method", id(value.__self__), value.__name__)  # ``out.append``
    return ("object", type(value).__qualname__, id(value))


@dataclass(frozen=True)
class Read:
    """What the compile saw: ``owner.name`` (kind "attr"), ``owner[name]`` of a module's
    globals dict ("global"), or the free variable ``name`` of the function ``owner``
    ("closure"); ``print`` is the value's fingerprint.

    ``seen`` is the value itself where finding the same object there again proves the
    fingerprint unchanged (an object compared by identity, an immutable constant, a tuple
    of Parameters while no Parameter got a new buffer): the check on every call of the
    compiled code is then one ``is``, not a fingerprint."""

    owner: Any
    name: str
    print: Any
    kind: str
    seen: Any = field(default=_MISSING, compare=False, repr=False)
    buffers: int = field(default=-1, compare=False, repr=False)  # Parameter.buffers then

    @staticmethod
    def of(owner: Any, name: str, value: Any, kind: str) -> Read:
        from msc.common.tensor import Parameter

        fp = fingerprint(value)
        if isinstance(value, tuple) and value and all(isinstance(v, Parameter) for v in value):
            return Read(owner, name, fp, kind, value, Parameter.buffers)
        by_identity = fp[0] == "object" or isinstance(value, IMMUTABLE)
        return Read(owner, name, fp, kind, value if by_identity else _MISSING)

    def current(self) -> Any:
        """The value there now (``_MISSING`` if it is gone)."""
        if self.kind == "attr":
            return getattr(self.owner, self.name, _MISSING)
        if self.kind == "global":
            return self.owner.get(self.name, _MISSING)
        return closure_value(self.owner, self.name)

    def still_valid(self) -> bool:
        from msc.common.tensor import Parameter

        current = self.current()
        if current is self.seen and (self.buffers < 0 or self.buffers == Parameter.buffers):
            return True
        return current is not _MISSING and fingerprint(current) == self.print


def closure_value(fn: Any, name: str) -> Any:
    """The current value of ``fn``'s free variable ``name`` (``_MISSING`` if unbound)."""
    try:
        cell = fn.__closure__[fn.__code__.co_freevars.index(name)]
        return cell.cell_contents
    except (AttributeError, TypeError, ValueError, IndexError):
        return _MISSING


@dataclass
class Deps:
    files: set[str] = field(default_factory=set)
    reads: dict[tuple[int, str], Read] = field(default_factory=dict)

    def _record(self, owner: Any, name: str, value: Any, kind: str) -> Any:
        if not isinstance(value, types.ModuleType):
            key = (id(owner), name)
            if key not in self.reads:
                self.reads[key] = Read.of(owner, name, value, kind)
        return value

    def read_attr(self, owner: Any, name: str, value: Any) -> Any:
        return self._record(owner, name, value, "attr")

    def read_config(self, obj: Any) -> None:
        """Record the plain settings of an object whose code runs natively (msc's own
        layers): their reads are not seen one by one, and ``training`` is among them."""
        for name, value in vars(obj).items():  # not ``_prefix``-like bookkeeping
            if not name.startswith("_") and \
                    isinstance(value, (bool, int, float, str, tuple, type(None))):
                self.read_attr(obj, name, value)

    def read_global(self, globals_: dict[str, Any], name: str) -> Any:
        return self._record(globals_, name, globals_[name], "global")

    def read_closure(self, fn: Any, name: str, value: Any) -> Any:
        # NOTE: a closure cell can be rebound (``nonlocal``), and in a new process the
        # same function may close over other values: both are reads like any other.
        return value if fn is None else self._record(fn, name, value, "closure")

    def still_valid(self) -> bool:
        return all(r.still_valid() for r in self.reads.values())


_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: str) -> str | None:
    """sha256 of the file's bytes (None if it cannot be read), memoised per process on
    (path, mtime, size) so that checking a warm entry reads each file once."""
    try:
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
        if key not in _DIGESTS:
            with open(path, "rb") as f:
                _DIGESTS[key] = hashlib.sha256(f.read()).hexdigest()
        return _DIGESTS[key]
    except OSError:
        return None

"""Where the lower layers reach the upper ones without importing them.

``jit`` and ``Cell.__call__`` compile, but the compiler sits above them (it builds graphs
that call Cells and ``@jit`` functions); the front end tells a Cell from other objects,
but ``msc.nn`` (every layer) sits above it. Each upper layer fills its slot here when
it is imported, as JAX's upper modules fill the tables of ``core.py``:

- ``nn/cell.py`` registers ``Cell``: ``is_cell`` is ``isinstance(x, Cell)`` (no Cell can
  exist before that module is imported);
- ``msc``'s package installs the compiler, loaded on the first compile so that
  ``import msc`` stays cheap: ``compile_call(entry, args)``.

This module imports nothing from msc.
"""

from __future__ import annotations

from typing import Any, Callable

_CELLS: tuple[type, ...] = ()
_COMPILE: Callable[[Any, tuple[Any, ...]], Any] | None = None


def register_cell(cls: type) -> type:
    """Make ``cls`` (``nn.Cell``) what ``is_cell`` recognises."""
    global _CELLS
    _CELLS = (cls,)
    return cls


def is_cell(obj: Any) -> bool:
    return isinstance(obj, _CELLS)


def is_cell_class(cls: type) -> bool:
    return issubclass(cls, _CELLS)


def structure_parts(value: Any) -> tuple[Any, ...] | None:
    """The parts of a structure of tensors that crosses a graph's boundary as them (msc's
    sparse tensors: ``type(x).__msc_parts__(x)``, Tensors and constants; the class's
    ``__msc_rebuild__(parts)`` makes it again), or None for anything else."""
    parts = getattr(type(value), "__msc_parts__", None)
    return None if parts is None else tuple(parts(value))


def install_compiler(compile_call: Callable[[Any, tuple[Any, ...]], Any]) -> None:
    """Set how an entry (a ``JitFunction`` or a Cell) compiles for its call's arguments."""
    global _COMPILE
    _COMPILE = compile_call


def compile_call(entry: Any, args: tuple[Any, ...]) -> Any:
    """``entry`` compiled for ``args`` (see ``msc.compiler.compile_call``)."""
    assert _COMPILE is not None, "importing msc installs the compiler"
    return _COMPILE(entry, args)

"""``mindspore.nn.grad.cell_grad``: ``Jvp(fn)(*inputs, v)`` is ``(fn(*inputs), J v)`` and
``Vjp(fn)(*inputs, v)`` is ``(fn(*inputs), v^T J)``, the inputs' gradients for the output
sensitivity ``v`` (one tensor for one input, a tuple for several)."""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.ops.function.grad_func import _Differentiated, _Want, jvp

__all__ = ["Jvp", "Vjp"]


class Jvp(Cell):
    """Forward mode: ``v`` is one tangent per input (a tensor for one input, a tuple for
    several), the result's tangent has the output's structure."""

    def __init__(self, fn: Any):
        super().__init__()
        self.fn = fn

    def construct(self, *args: Any) -> Any:
        inputs, v = args[:-1], args[-1]
        return jvp(self.fn, inputs[0] if len(inputs) == 1 else inputs, v)


class Vjp(Cell):
    """Reverse mode: ``v`` has the output's structure."""

    def __init__(self, fn: Any):
        super().__init__()
        self.fn = fn
        self._first = _Differentiated(fn, _Want("first", None, sens=True))
        self._all = _Differentiated(fn, _Want("all", None, sens=True))

    def construct(self, *args: Any) -> Any:
        inputs = args[:-1]
        gradients = self._first(*args) if len(inputs) == 1 else self._all(*args)
        return self.fn(*inputs), gradients

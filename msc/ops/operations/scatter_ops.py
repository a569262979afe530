"""MindSpore's scatter primitive classes that write into a Parameter (``ops.ScatterAdd()``,
``ops.ScatterNdMax()``, ...): attributes go to ``__init__``, inputs to ``__call__``, which
calls the function of ``function/scatter_func.py``.
"""

from __future__ import annotations

from typing import Any

from msc.ops.function import scatter_func
from msc.ops.primitive import Primitive


class _Scatter(Primitive):
    function = staticmethod(scatter_func.scatter_add)

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)
        self.use_locking = use_locking

    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return type(self).function(input_x, indices, updates)


def _scatter_class(name: str, function: str) -> type:
    return type(name, (_Scatter,), {
        "function": staticmethod(getattr(scatter_func, function)), "__module__": __name__,
        "__doc__": f"``ops.{name}(use_locking=False)(input_x, indices, updates)``: "
                   f"``ops.{function}``."})


_CLASSES = {"ScatterAdd": "scatter_add", "ScatterSub": "scatter_sub",
            "ScatterMul": "scatter_mul", "ScatterDiv": "scatter_div",
            "ScatterMax": "scatter_max", "ScatterMin": "scatter_min",
            "ScatterUpdate": "scatter_update", "ScatterNdAdd": "scatter_nd_add",
            "ScatterNdSub": "scatter_nd_sub", "ScatterNdMul": "scatter_nd_mul",
            "ScatterNdDiv": "scatter_nd_div", "ScatterNdMax": "scatter_nd_max",
            "ScatterNdMin": "scatter_nd_min", "ScatterNdUpdate": "scatter_nd_update",
            "ScatterNonAliasingAdd": "scatter_nd_add"}
globals().update((name, _scatter_class(name, fn)) for name, fn in _CLASSES.items())

__all__ = list(_CLASSES)

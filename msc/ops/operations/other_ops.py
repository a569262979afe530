"""The classes of the side-effect ops: ``ops.Assign``, ``ops.AssignAdd``,
``ops.AssignSub``, ``ops.Depend`` and ``ops.Print``, each calling its function in
``function/side_effect_func.py``.
"""

from __future__ import annotations

from typing import Any

from msc.ir.primitives import Op, Primitive
from msc.ops.function.side_effect_func import assign, assign_add, assign_sub, depend, print_


class _EffectPrimitive:
    """Base of the primitive classes: ``ops.Assign()(variable, value)`` calls ``assign``."""

    name = ""
    function: Any = None

    def __call__(self, *args: Any) -> Any:
        return type(self).function(*args)

    def __repr__(self) -> str:
        return f"Prim[{self.name}]"


def _primitive_class(prim: Primitive, function: Any) -> type:
    name = prim.name
    return type(name, (_EffectPrimitive,), {"name": name, "function": staticmethod(function),
                                            "__doc__": f"``ops.{name}()(...)``: see "
                                                       f"``{function.__name__}``.",
                                            "__module__": __name__})


Assign = _primitive_class(Op.Assign, assign)
AssignAdd = _primitive_class(Op.AssignAdd, assign_add)
AssignSub = _primitive_class(Op.AssignSub, assign_sub)
Depend = _primitive_class(Op.Depend, depend)
Print = _primitive_class(Op.Print, print_)


__all__ = ["Assign", "AssignAdd", "AssignSub", "Depend", "Print"]

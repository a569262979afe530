"""The padding layers of ``msc.nn``: ``ConstantPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d`` and ``ZeroPad2d``, over ``ops.pad``.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.ops.function.image_func import _int_pairs, pad


class _PadNd(Cell):
    """The ``nn.XxxPadNd`` layers: ``padding`` an int (every side) or a tuple of 2*nd
    ints in ``ops.pad``'s order."""

    nd = 1
    mode = "constant"

    def __init__(self, padding: Any, value: Any = None):
        super().__init__()
        sides = 2 * self.nd
        if isinstance(padding, bool) or not isinstance(padding, (int, tuple)):
            raise GraphTypeError(f"For '{self.cls_name}', the type of parameter 'padding' "
                                 f"must be in [int, tuple], but got {type(padding)}")
        if isinstance(padding, tuple) and len(padding) != sides:
            raise GraphValueError(f"For '{self.cls_name}', the length of input 'padding' "
                                  f"must be {sides}, but got padding of length "
                                  f"{len(padding)}.")
        self.padding = (padding,) * sides if isinstance(padding, int) else padding
        _int_pairs(self.padding, self.cls_name)
        if value is not None and (isinstance(value, bool) or
                                  not isinstance(value, (int, float))):
            raise GraphTypeError(f"For '{self.cls_name}', the type of parameter 'value' "
                                 f"must be in [int, float], but got {type(value)}")
        self.value = value

    def construct(self, x: Any) -> Any:
        return pad(x, self.padding, self.mode, self.value)

    def extend_repr(self) -> str:
        return f"padding={self.padding}" + ("" if self.value is None else
                                            f", value={self.value}")


def _pad_layer(name: str, nd: int, mode: str) -> type:
    if mode == "constant":
        def __init__(self: Any, padding: Any, value: Any) -> None:
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self: Any, padding: Any) -> None:
            _PadNd.__init__(self, padding)
    doc = f"``{mode}`` padding of the last {nd} axes (see ``ops.pad``)."
    return type(name, (_PadNd,), {"nd": nd, "mode": mode, "__init__": __init__,
                                  "__doc__": doc, "__module__": __name__})


ConstantPad1d = _pad_layer("ConstantPad1d", 1, "constant")
ConstantPad2d = _pad_layer("ConstantPad2d", 2, "constant")
ConstantPad3d = _pad_layer("ConstantPad3d", 3, "constant")
ReflectionPad1d = _pad_layer("ReflectionPad1d", 1, "reflect")
ReflectionPad2d = _pad_layer("ReflectionPad2d", 2, "reflect")
ReflectionPad3d = _pad_layer("ReflectionPad3d", 3, "reflect")
ReplicationPad1d = _pad_layer("ReplicationPad1d", 1, "replicate")
ReplicationPad2d = _pad_layer("ReplicationPad2d", 2, "replicate")
ReplicationPad3d = _pad_layer("ReplicationPad3d", 3, "replicate")


class ZeroPad2d(_PadNd):
    """Zero padding of the last 2 axes (see ``ops.pad``)."""

    nd = 2

    def __init__(self, padding: Any):
        super().__init__(padding, 0)


__all__ = ["ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d"]

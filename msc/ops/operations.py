"""``from msc.ops import operations as P`` (``mindspore.ops.operations``): the primitive
classes, ``P.Add()(x, y)``."""

from msc.frontend.api.effects import Assign, AssignAdd, AssignSub, Depend, Print  # noqa: F401
from msc.frontend.api.prim_classes import *  # noqa: F401,F403
from msc.frontend.api.prim_classes import __all__ as _classes_all

__all__ = [*_classes_all, "Assign", "AssignAdd", "AssignSub", "Depend", "Print"]

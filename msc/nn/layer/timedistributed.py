"""``nn.TimeDistributed``: one layer applied to every time step of its input (as
MindSpore's ``mindspore.nn.layer.timedistributed``).
"""

from __future__ import annotations

from typing import Any

from msc._checkparam import _int
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.nn.cell import Cell
from msc.ops import functional as F
from msc.ops.function import array_func as A


class TimeDistributed(Cell):
    """``layer`` on each slice of the input along ``time_axis``, the results stacked back
    along it. ``reshape_with_axis`` (MindSpore's way to fold time into another axis for
    one call) gives the same results for layers that treat examples independently."""

    def __init__(self, layer: Any, time_axis: int, reshape_with_axis: int | None = None):
        super().__init__()
        if not isinstance(layer, Cell):
            raise GraphTypeError(f"For 'TimeDistributed', the 'layer' must be a Cell, but got "
                                 f"{type(layer).__name__}.", user_loc())
        self.layer = layer
        self.time_axis = _int(time_axis, "time_axis", self.cls_name)
        self.reshape_with_axis = reshape_with_axis

    def construct(self, inputs: Any) -> Any:
        if inputs.ndim < 3:
            raise GraphValueError(f"For 'TimeDistributed', the input must be at least 3-D, "
                                  f"but got {inputs.ndim}-D.", user_loc())
        axis = self.time_axis % inputs.ndim
        steps = [self.layer(x) for x in A.unbind(inputs, axis)]
        return F.stack(steps, axis)


__all__ = ["TimeDistributed"]

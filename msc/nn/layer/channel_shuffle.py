"""``nn.ChannelShuffle``: the channels split into ``groups`` and interleaved (as
MindSpore's ``mindspore.nn.layer.channel_shuffle``), over ``ops.channel_shuffle``.
"""

from __future__ import annotations

from typing import Any

from msc._checkparam import _int
from msc.nn.cell import Cell
from msc.ops.function.nn_func import channel_shuffle


class ChannelShuffle(Cell):
    def __init__(self, groups: int):
        super().__init__()
        self.groups = _int(groups, "groups", self.cls_name, positive=True)

    def construct(self, x: Any) -> Any:
        return channel_shuffle(x, self.groups)


__all__ = ["ChannelShuffle"]

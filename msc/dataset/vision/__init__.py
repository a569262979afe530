"""``mindspore.dataset.vision``: image transforms for ``Dataset.map``."""

from msc.dataset.vision.transforms import (
                                           HWC2CHW,
                                           CenterCrop,
                                           Decode,
                                           Normalize,
                                           RandomCrop,
                                           RandomHorizontalFlip,
                                           Rescale,
                                           Resize,
)
from msc.dataset.vision.utils import Border, Inter

__all__ = ["CenterCrop", "Decode", "HWC2CHW", "Normalize", "RandomCrop", "RandomHorizontalFlip",
           "Rescale", "Resize", "Border", "Inter"]

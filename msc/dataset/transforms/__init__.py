"""``mindspore.dataset.transforms``: transforms for any column."""

from msc.dataset.transforms.transforms import Compose, OneHot, TypeCast

__all__ = ["Compose", "OneHot", "TypeCast"]

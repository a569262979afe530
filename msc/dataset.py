"""``mindspore.dataset`` is not part of msc: importing it says so. Feed numpy arrays or
Tensors (``msc.train.Model`` takes any iterable of batches)."""

from msc.api_names import unsupported_module

raise unsupported_module("msc.dataset")

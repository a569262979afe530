"""``from msc.ops import operations as P`` (``mindspore.ops.operations``): the primitive
classes of ``msc.ops`` (``P.Add()(x, y)``, ``P.Conv2D(...)``), every one it has."""

import msc.ops as _ops

__all__ = [name for name in _ops.__all__ if isinstance(getattr(_ops, name), type)]
globals().update((name, getattr(_ops, name)) for name in __all__)

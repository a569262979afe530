"""``mindspore.nn.grad``: ``Jvp`` and ``Vjp``, the cell forms of ``ops.jvp`` and
``ops.vjp``."""

from msc.nn.grad.cell_grad import Jvp, Vjp

__all__ = ["Jvp", "Vjp"]

"""``nn.Rprop``: resilient backpropagation, MindSpore 2.10's arguments, state and update
rule.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.optim.optimizer import Optimizer
from msc.ops import functional as F
from msc.ops.function.side_effect_func import assign

__all__ = ["Rprop"]


def _pair(value: Any, name: str) -> tuple[float, float]:
    if not isinstance(value, tuple):
        raise GraphTypeError(f"For Rprop, {name} must be a tuple, but got {type(value)}.")
    if len(value) != 2:
        raise GraphValueError(f"For Rprop, {name} must be a tuple with two elements, but got "
                              f"{len(value)}.")
    return float(value[0]), float(value[1])


class Rprop(Optimizer):
    """``nn.Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
    weight_decay=0.)``: each weight's step size (``lr`` at first) grows by ``etas[1]``
    while its gradient keeps its sign and shrinks by ``etas[0]`` when it flips (that
    step's gradient then counts as 0), clipped to ``step_sizes``; w -= step sign(g). State
    ``prev.<name>`` and ``step_size.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, etas: Any = (0.5, 1.2),
                 step_sizes: Any = (1e-6, 50.), weight_decay: Any = 0.):
        super().__init__(learning_rate, params, weight_decay)
        self.etaminus, self.etaplus = _pair(etas, "etas")
        self.step_size_min, self.step_size_max = _pair(step_sizes, "step_sizes")
        if self.step_size_min > self.step_size_max:
            raise GraphValueError("For Rprop, maximal step size should not be less than minimal "
                                  f"step size, but got {self.step_size_min} > "
                                  f"{self.step_size_max}.")
        if not 0.0 < self.etaminus < 1.0 or self.etaplus <= 1.0:
            raise GraphValueError("For Rprop, etaminus must be in (0, 1) and etaplus greater "
                                  f"than 1, but got {etas}.")
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = self.parameters.clone(prefix="step_size", init="zeros")

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        first = F.reshape(self.global_step, ()) == 1

        def update(lr: Any, w: Any, prev: Any, size_slot: Any, g: Any) -> Any:
            size = F.select(first, F.ones_like(size_slot) * F.cast(lr, w.dtype), size_slot)
            sign = F.sign(g * prev)
            factor = F.select(sign > 0, F.full_like(sign, self.etaplus),
                              F.select(sign < 0, F.full_like(sign, self.etaminus),
                                       F.ones_like(sign)))
            size = F.clamp(size * factor, self.step_size_min, self.step_size_max)
            g = F.select(sign < 0, F.zeros_like(g), g)
            assign(prev, g)
            assign(size_slot, size)
            return assign(w, w - F.sign(g) * size)
        return self.map_update(update, lr, self.parameters, self.prev, self.step_size, grads)

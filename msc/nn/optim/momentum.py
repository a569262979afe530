"""``nn.Momentum``: SGD with momentum, MindSpore 2.10's arguments, state (``moments``)
and update rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, Tensor
from msc.nn.optim.optimizer import Optimizer, _non_negative
from msc.ops.composite.base import partial
from msc.ops.function.side_effect_func import assign

# --- SGD and Momentum ------------------------------------------------------------------------


def _momentum_update(momentum: Any, nesterov: bool, lr: Any, weight: Any, moment: Any,
                     grad: Any) -> Any:
    """v = momentum * v + g; w -= lr * v (Nesterov: w -= lr * (g + momentum * v))."""
    momentum = momentum.astype(moment.dtype) if momentum.dtype != moment.dtype else momentum
    v = moment * momentum + grad
    new_weight = weight - lr * (grad + v * momentum if nesterov else v)
    assign(moment, v)  # (every read first: one loop computes and stores both)
    return assign(weight, new_weight)


class Momentum(Optimizer):
    """``nn.Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``; its state: ``moments.<name>`` per parameter, and ``momentum``
    itself a float32 Parameter, as MindSpore keeps it (its checkpoints hold it)."""

    def __init__(self, params: Any, learning_rate: Any, momentum: float,
                 weight_decay: Any = 0.0, loss_scale: float = 1.0,
                 use_nesterov: bool = False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        value = _non_negative(momentum, "momentum", "Momentum")
        self.momentum = Parameter(Tensor(np.float32(value)), name="momentum")
        self.use_nesterov = bool(use_nesterov)
        self.moments = self.parameters.clone(prefix="moments", init="zeros")

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        update = partial(_momentum_update, self.momentum, self.use_nesterov)
        return self.map_update(update, lr, self.parameters, self.moments, grads)


__all__ = ["Momentum"]

"""``nn.SGD``: stochastic gradient descent with optional momentum, dampening and
Nesterov, MindSpore 2.10's arguments, state (``accum``, ``stat``, ``momentum``) and update
rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.optim.optimizer import Optimizer, _non_negative
from msc.ops import functional as F
from msc.ops.composite.base import partial
from msc.ops.function.side_effect_func import assign


def _sgd_update(use_momentum: bool, momentum: Any, dampening: float, nesterov: bool, lr: Any,
                weight: Any, accum: Any, stat: Any, grad: Any) -> Any:
    """With momentum: accum = g on the first step (``stat`` is 1), else
    momentum * accum + (1 - dampening) * g; w -= lr * accum (Nesterov: g + momentum *
    accum). Without: w -= lr * g, and ``accum``/``stat`` stay as they are."""
    if use_momentum:
        momentum = momentum.astype(accum.dtype) if momentum.dtype != accum.dtype else momentum
        a = F.select(stat > 0, grad, accum * momentum + grad * (1 - dampening))
        assign(accum, a)
        assign(stat, F.zeros_like(stat))
        grad = grad + a * momentum if nesterov else a
    return assign(weight, weight - lr * grad)


class SGD(Optimizer):
    """``nn.SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0,
    weight_decay=0.0, nesterov=False, loss_scale=1.0)``; its state: ``accum.<name>`` and
    ``stat.<name>`` per parameter, and ``momentum`` itself a float32 Parameter, as MindSpore
    keeps it (its checkpoints hold it). Whether the momentum terms run at all is fixed by
    the value given here (MindSpore's kernel checks it at each step)."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: Any = 0.0, nesterov: bool = False,
                 loss_scale: float = 1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        value = _non_negative(momentum, "momentum", "SGD")
        self.dampening = _non_negative(dampening, "dampening", "SGD")
        if nesterov and (value <= 0 or self.dampening != 0):
            raise GraphValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 "
                                  "and 'dampening' must equal to 0.0")
        if self.dynamic_weight_decay:
            raise GraphTypeError("For 'SGD', dynamic weight decay is currently not supported, "
                                 "the argument 'weight_decay' or 'weight_decay' set in grouped "
                                 "'params' must be float or int type.")
        self.nesterov = bool(nesterov)
        self._use_momentum = value > 0
        self.momentum = Parameter(Tensor(np.float32(value)), name="momentum")
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        update = partial(_sgd_update, self._use_momentum, self.momentum, self.dampening,
                         self.nesterov)
        return self.map_update(update, lr, self.parameters, self.accum, self.stat, grads)


__all__ = ["SGD"]

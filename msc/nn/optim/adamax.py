"""``nn.AdaMax``: MindSpore 2.10's arguments, state and update rule (the step of
``P.ApplyAdaMax``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphValueError
from msc.nn.optim.optimizer import Optimizer, _in_unit
from msc.ops.function.side_effect_func import assign
from msc.ops.operations.optim_ops import ApplyAdaMax

__all__ = ["AdaMax"]


class AdaMax(Optimizer):
    """``nn.AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
    weight_decay=0.0, loss_scale=1.0)``: m = b1 m + (1 - b1) g; v = max(b2 v, |g|);
    w -= lr / (1 - b1^t) m / (v + eps). State ``moment1.<name>``, ``moment2.<name>``,
    ``beta1_power``."""

    def __init__(self, params: Any, learning_rate: Any = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-08, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _in_unit(beta1, "beta1", "AdaMax")
        self.beta2 = _in_unit(beta2, "beta2", "AdaMax")
        if not isinstance(eps, float) or eps <= 0:
            raise GraphValueError(f"For 'AdaMax', the 'eps' must be a float greater than 0, but "
                                  f"got {eps!r}.")
        self.eps = eps
        self.beta1_power = Parameter(Tensor(np.ones(1, np.float32)), name="beta1_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        self.opt = ApplyAdaMax()

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        power = assign(self.beta1_power, self.beta1_power * self.beta1)

        def update(lr: Any, w: Any, m: Any, v: Any, g: Any) -> Any:
            return self.opt(w, m, v, power.reshape(()), lr, self.beta1, self.beta2, self.eps, g)
        return self.map_update(update, lr, self.parameters, self.moment1, self.moment2, grads)

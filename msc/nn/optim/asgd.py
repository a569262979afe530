"""``nn.ASGD``: averaged stochastic gradient descent, MindSpore 2.10's arguments, state and
update rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, ParameterTuple, Tensor
from msc.errors import GraphTypeError
from msc.nn.optim.optimizer import Optimizer
from msc.ops import functional as F
from msc.ops.function.side_effect_func import assign

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``nn.ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
    weight_decay=0.0)``: w = w (1 - lambd eta) - eta g with eta the step's rate (``lr``
    at the first step, then lr / (1 + lambd lr t)^alpha); the average ``ax`` moves towards
    w by mu = 1 / max(1, t - t0). State ``mu_<name>``, ``eta_<name>``, ``ax_.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, value in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            if not isinstance(value, float):
                raise GraphTypeError(f"For 'ASGD', the type of '{name}' should be float, but "
                                     f"got {type(value).__name__}.")
        self.lambd, self.alpha, self.t0 = lambd, alpha, t0
        self.mu = ParameterTuple(Parameter(Tensor(np.float32(1.0)), name=f"mu_{p.name}")
                                 for p in self.parameters)
        self.eta = ParameterTuple(Parameter(Tensor(np.float32(0.0)), name=f"eta_{p.name}")
                                  for p in self.parameters)
        self.ax = self.parameters.clone(prefix="ax_", init="zeros")

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lrs = self.get_lr()
        self.step()
        t = F.cast(F.reshape(self.global_step, ()), np.float32)
        for i, (g, w, mu, eta, ax) in enumerate(zip(grads, self.parameters, self.mu,
                                                     self.eta, self.ax)):
            lr = F.reshape(lrs[i] if self.is_group_lr else lrs, ())
            rate = F.select(t == 1, lr, eta)
            new = F.cast(w, np.float32) * (1.0 - self.lambd * rate) - rate * F.cast(g, np.float32)
            assign(w, F.cast(new, w.dtype))
            assign(ax, ax + F.cast((new - F.cast(ax, np.float32)) * mu, ax.dtype))
            assign(eta, lr / F.pow(1.0 + self.lambd * lr * t, self.alpha))
            assign(mu, 1.0 / F.maximum(1.0, t - self.t0))
        return True

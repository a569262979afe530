"""``nn.Adam`` and ``nn.AdamWeightDecay``: MindSpore 2.10's arguments, state
(``moment1``, ``moment2``, the beta powers) and update rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphValueError
from msc.nn.optim.optimizer import Optimizer, _in_unit
from msc.ops import functional as F
from msc.ops.composite.base import partial
from msc.ops.function.side_effect_func import assign

# --- Adam --------------------------------------------------------------------------------


def _adam_update(beta1: float, beta2: float, eps: float, nesterov: bool, beta1_power: Any,
                 beta2_power: Any, lr: Any, weight: Any, m: Any, v: Any, grad: Any) -> Any:
    """m, v: moving averages of g and g*g; w -= lr' * m / (sqrt(v) + eps) with the
    bias-corrected step size lr' = lr * sqrt(1 - beta2^t) / (1 - beta1^t) (Nesterov:
    ``beta1 * m + (1 - beta1) * g`` for ``m``)."""
    m_new = m * beta1 + grad * (1 - beta1)
    v_new = v * beta2 + grad * grad * (1 - beta2)
    assign(m, m_new)
    assign(v, v_new)
    step_size = lr * F.sqrt(1 - beta2_power) / (1 - beta1_power)
    top = m_new * beta1 + grad * (1 - beta1) if nesterov else m_new
    return assign(weight, weight - step_size * top / (F.sqrt(v_new) + eps))


class Adam(Optimizer):
    """``nn.Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``; its
    state: ``moment1.<name>``, ``moment2.<name>``, ``beta1_power``, ``beta2_power``."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2 = _in_unit(beta1, "beta1", "Adam"), _in_unit(beta2, "beta2",
                                                                            "Adam")
        self.eps = float(eps)
        if self.eps <= 0:
            raise GraphValueError(f"For 'Adam', the 'eps' must be greater than 0, but got "
                                  f"{eps}.")
        self.use_nesterov = bool(use_nesterov)
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        self.beta1_power = Parameter(Tensor(np.float32(1.0)), name="beta1_power")
        self.beta2_power = Parameter(Tensor(np.float32(1.0)), name="beta2_power")

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        b1 = self.beta1_power * self.beta1
        b2 = self.beta2_power * self.beta2
        assign(self.beta1_power, b1)
        assign(self.beta2_power, b2)
        update = partial(_adam_update, self.beta1, self.beta2, self.eps, self.use_nesterov,
                         b1, b2)
        return self.map_update(update, lr, self.parameters, self.moment1, self.moment2, grads)


def _adam_weight_decay_update(beta1: float, beta2: float, eps: float, lr: Any, decay: Any,
                              weight: Any, m: Any, v: Any, grad: Any, flag: bool) -> Any:
    """No bias correction; the decay is added to the step, not to the gradient."""
    m_new = m * beta1 + grad * (1 - beta1)
    v_new = v * beta2 + grad * grad * (1 - beta2)
    assign(m, m_new)
    assign(v, v_new)
    step = m_new / (F.sqrt(v_new) + eps)
    if flag:
        step = step + weight * F.cast(decay, weight.dtype)
    return assign(weight, weight - lr * step)


class AdamWeightDecay(Optimizer):
    """``nn.AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)`` (decoupled weight decay); its state: ``adam_m.<name>``,
    ``adam_v.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1 = _in_unit(beta1, "beta1", "AdamWeightDecay")
        self.beta2 = _in_unit(beta2, "beta2", "AdamWeightDecay")
        self.eps = float(eps)
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")

    def construct(self, gradients: Any) -> Any:
        decay = self.get_weight_decay()
        lr = self.get_lr()
        self.step()
        decays = decay if self.is_group else (decay,) * self.param_length
        update = partial(_adam_weight_decay_update, self.beta1, self.beta2, self.eps)
        return self.map_update(update, lr, decays, self.parameters, self.moments1,
                               self.moments2, gradients, self.decay_flags)


__all__ = ["Adam", "AdamWeightDecay"]

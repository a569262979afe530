"""``nn.Lamb``: layer-wise adaptive moments, MindSpore 2.10's arguments, state and update
rule.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.optim.optimizer import Optimizer
from msc.ops import functional as F
from msc.ops.function.side_effect_func import assign

__all__ = ["Lamb"]


def _norm(x: Any) -> Any:
    return F.sqrt(F.sum(F.square(x)))


class Lamb(Optimizer):
    """``nn.Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)``: Adam's bias-corrected ratio r = m^ / (sqrt(v^) + eps) plus
    ``weight_decay * w`` (where the decay flags allow), scaled per Parameter by the trust
    ratio ||w|| / ||r|| (1 when either is 0): w -= lr * trust * r. State
    ``lamb_m.<name>`` and ``lamb_v.<name>``."""

    def __init__(self, params: Any, learning_rate: Any, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
            if not isinstance(value, float):
                raise GraphTypeError(f"For 'Lamb', the type of '{name}' should be float, but "
                                     f"got {type(value).__name__}.")
        if not 0.0 < beta1 < 1.0 or not 0.0 < beta2 < 1.0 or eps <= 0:
            raise GraphValueError("For 'Lamb', 'beta1' and 'beta2' must be in (0.0, 1.0) and "
                                  f"'eps' positive, but got {beta1}, {beta2}, {eps}.")
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.moments1 = self.parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="lamb_v", init="zeros")

    def construct(self, gradients: Any) -> Any:
        decay = self.get_weight_decay()
        lr = self.get_lr()
        self.step()
        grads = self.gradients_centralization(gradients)
        t = F.cast(F.reshape(self.global_step, ()), self.moments1[0].dtype)
        decays = decay if self.is_group else (decay,) * self.param_length

        def update(lr: Any, d: Any, w: Any, m: Any, v: Any, g: Any, flag: bool) -> Any:
            m_new = m * self.beta1 + g * (1 - self.beta1)
            v_new = v * self.beta2 + g * g * (1 - self.beta2)
            assign(m, m_new)
            assign(v, v_new)
            m_hat = m_new / (1 - F.pow(F.full_like(t, self.beta1), t))
            v_hat = v_new / (1 - F.pow(F.full_like(t, self.beta2), t))
            r = m_hat / (F.sqrt(v_hat) + self.eps)
            if flag:
                r = r + w * F.cast(d, w.dtype)
            w_norm, r_norm = _norm(w), _norm(r)
            trust = F.select(F.logical_and(w_norm > 0, r_norm > 0),
                             w_norm / F.select(r_norm > 0, r_norm, F.ones_like(r_norm)),
                             F.ones_like(w_norm))
            return assign(w, w - lr * trust * r)
        return self.map_update(update, lr, decays, self.parameters, self.moments1,
                               self.moments2, grads, self.decay_flags)

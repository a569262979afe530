"""``nn.RMSProp``: MindSpore 2.10's arguments, state and update rule (the steps of
``P.ApplyRMSProp`` and, ``centered``, ``P.ApplyCenteredRMSProp``).
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError
from msc.nn.optim.optimizer import Optimizer, _non_negative
from msc.ops.operations.optim_ops import ApplyCenteredRMSProp, ApplyRMSProp

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """``nn.RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
    use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0)``: ms = decay ms +
    (1 - decay) g^2; mom = momentum mom + lr g / sqrt(ms + eps) (centered: ms - mg^2);
    w -= mom. State ``mean_square.<name>`` (ones), ``moment.<name>``, and ``centered``
    ``mean_grad.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, decay: float = 0.9,
                 momentum: float = 0.0, epsilon: float = 1e-10, use_locking: bool = False,
                 centered: bool = False, loss_scale: float = 1.0, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, value in (("decay", decay), ("momentum", momentum), ("epsilon", epsilon)):
            if not isinstance(value, float):
                raise GraphTypeError(f"For 'RMSProp', the type of '{name}' should be float, "
                                     f"but got {type(value).__name__}.")
        self.decay = _non_negative(decay, "decay", "RMSProp")
        self.momentum = _non_negative(momentum, "momentum", "RMSProp")
        self.epsilon = epsilon
        self.centered = bool(centered)
        if self.centered:
            self.mg = self.parameters.clone(prefix="mean_grad", init="zeros")
            self.opt: Any = ApplyCenteredRMSProp(use_locking)
        else:
            self.opt = ApplyRMSProp(use_locking)
        self.ms = self.parameters.clone(prefix="mean_square", init="ones")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        if self.centered:
            def centered(lr: Any, w: Any, mg: Any, ms: Any, mom: Any, g: Any) -> Any:
                return self.opt(w, mg, ms, mom, g, lr, self.decay, self.momentum, self.epsilon)
            return self.map_update(centered, lr, self.parameters, self.mg, self.ms,
                                   self.moment, grads)

        def plain(lr: Any, w: Any, ms: Any, mom: Any, g: Any) -> Any:
            return self.opt(w, ms, mom, lr, g, self.decay, self.momentum, self.epsilon)
        return self.map_update(plain, lr, self.parameters, self.ms, self.moment, grads)

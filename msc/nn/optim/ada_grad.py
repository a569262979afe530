"""``nn.Adagrad``, ``nn.ProximalAdagrad`` and ``nn.Adadelta``: MindSpore 2.10's arguments,
state and update rules (the steps of ``P.ApplyAdagrad``, ``P.ApplyProximalAdagrad`` and
``P.ApplyAdadelta``).
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.optim.optimizer import Optimizer, _non_negative
from msc.ops.operations.optim_ops import (
    ApplyAdadelta,
    ApplyAdagrad,
    ApplyProximalAdagrad,
)

__all__ = ["Adagrad", "ProximalAdagrad", "Adadelta"]


def _apply(op: Any, *hyper: Any) -> Any:
    """``update(lr, param, *slots, grad)`` calling ``op`` with the hyper-parameters after
    the slots, as the MindSpore primitive orders its inputs."""
    def update(lr: Any, param: Any, *rest: Any) -> Any:
        *slots, grad = rest
        return op(param, *slots, lr, *hyper, grad)
    return update


class Adagrad(Optimizer):
    """``nn.Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True,
    loss_scale=1.0, weight_decay=0.0)``: accum += g^2; w -= lr g / sqrt(accum). State
    ``accum.<name>`` (starting at ``accum``)."""

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001,
                 update_slots: bool = True, loss_scale: float = 1.0, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(update_slots, bool):
            raise GraphTypeError(f"For 'Adagrad', the type of 'update_slots' should be bool, "
                                 f"but got {type(update_slots).__name__}.")
        self.accum = self.parameters.clone(prefix="accum", init=_non_negative(
            accum, "accum", "Adagrad"))
        self.opt = ApplyAdagrad(update_slots)

    def construct(self, grads: Any) -> Any:
        grads = self.prepared(grads)
        lr = self.get_lr()
        self.step()
        return self.map_update(_apply(self.opt), lr, self.parameters, self.accum, grads)


class ProximalAdagrad(Optimizer):
    """``nn.ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0)``: Adagrad's step followed by the
    L1/L2 proximal step. State ``accum.<name>``."""

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001,
                 l1: float = 0.0, l2: float = 0.0, use_locking: bool = False,
                 loss_scale: float = 1.0, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum = self.parameters.clone(prefix="accum", init=_non_negative(
            accum, "accum", "ProximalAdagrad"))
        self.l1 = _non_negative(l1, "l1", "ProximalAdagrad")
        self.l2 = _non_negative(l2, "l2", "ProximalAdagrad")
        self.use_locking = use_locking
        self.opt = ApplyProximalAdagrad(use_locking)

    def construct(self, grads: Any) -> Any:
        grads = self.prepared(grads)
        lr = self.get_lr()
        self.step()
        return self.map_update(_apply(self.opt, self.l1, self.l2), lr, self.parameters,
                               self.accum, grads)


class Adadelta(Optimizer):
    """``nn.Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
    weight_decay=0.0)``; state ``accum.<name>`` and ``accum_update.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 1.0, rho: float = 0.9,
                 epsilon: float = 1e-6, loss_scale: float = 1.0, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(rho, float) or not 0.0 <= rho <= 1.0:
            raise GraphValueError(f"For 'Adadelta', the 'rho' must be a float in [0.0, 1.0], "
                                  f"but got {rho!r}.")
        if not isinstance(epsilon, float) or epsilon < 0:
            raise GraphValueError(f"For 'Adadelta', the 'epsilon' must be a float >= 0, but got "
                                  f"{epsilon!r}.")
        self.rho, self.epsilon = rho, epsilon
        self.accum = self.parameters.clone(prefix="accum", init=0)
        self.accum_update = self.parameters.clone(prefix="accum_update", init=0)
        self.opt = ApplyAdadelta()

    def construct(self, grads: Any) -> Any:
        grads = self.prepared(grads)
        lr = self.get_lr()
        self.step()
        return self.map_update(_apply(self.opt, self.rho, self.epsilon), lr, self.parameters,
                               self.accum, self.accum_update, grads)

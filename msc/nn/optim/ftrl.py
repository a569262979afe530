"""``nn.FTRL``: MindSpore 2.10's arguments, state and update rule (the step of
``P.ApplyFtrl``).
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.optim.optimizer import Optimizer, _non_negative
from msc.ops.operations.optim_ops import ApplyFtrl

__all__ = ["FTRL"]


class FTRL(Optimizer):
    """``nn.FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
    l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0)``: FTRL-proximal with a
    fixed learning rate; state ``moments.<name>`` (starting at ``initial_accum``) and
    ``linear.<name>``. Without groups every parameter is decayed."""

    def __init__(self, params: Any, initial_accum: float = 0.1, learning_rate: float = 0.001,
                 lr_power: float = -0.5, l1: float = 0.0, l2: float = 0.0,
                 use_locking: bool = False, loss_scale: float = 1.0, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise GraphValueError("For 'FTRL', dynamic learning rate and group learning rate "
                                  "are currently not supported in FTRL, they should all be "
                                  "false, but got dynamic learning rate "
                                  f"{self.dynamic_lr} and group learning rate "
                                  f"{self.is_group_lr}.")
        if not isinstance(lr_power, float) or lr_power > 0:
            raise GraphValueError(f"For 'FTRL', the 'lr_power' must be a float <= 0, but got "
                                  f"{lr_power!r}.")
        if not isinstance(use_locking, bool):
            raise GraphTypeError(f"For 'FTRL', the type of 'use_locking' should be bool, but "
                                 f"got {type(use_locking).__name__}.")
        self.moments = self.parameters.clone(prefix="moments", init=_non_negative(
            initial_accum, "initial_accum", "FTRL"))
        self.linear = self.parameters.clone(prefix="linear", init="zeros")
        self.l1 = _non_negative(l1, "l1", "FTRL")
        self.l2 = _non_negative(l2, "l2", "FTRL")
        self.lr, self.lr_power, self.use_locking = float(learning_rate), lr_power, use_locking
        if not self.is_group:
            self.decay_flags = tuple(True for _ in self.parameters)
        self.opt = ApplyFtrl(use_locking=use_locking)

    def construct(self, grads: Any) -> Any:
        grads = self.prepared(grads)
        self.step()

        def update(w: Any, accum: Any, linear: Any, g: Any) -> Any:
            return self.opt(w, accum, linear, g, self.lr, self.l1, self.l2, self.lr_power)
        return self.hyper_map(update, self.parameters, self.moments, self.linear, grads)

"""``mindspore.train.callback._reduce_lr_on_plateau``: lower the learning rate when a
monitored value stops improving."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphValueError
from msc.train.callback._callback import RunContext
from msc.train.callback._early_stop import Monitored

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(Monitored):
    """After ``patience`` epochs without improvement the optimizer's learning rate becomes
    ``max(lr * factor, min_lr)``, then ``cooldown`` epochs pass before counting again."""

    def __init__(self, monitor: str = "eval_loss", factor: float = 0.1, patience: int = 10,
                 verbose: bool = False, mode: str = "auto", min_delta: Any = 1e-4,
                 cooldown: int = 0, min_lr: float = 0):
        super().__init__(monitor, min_delta, patience, mode)
        if not 0.0 < factor < 1.0:
            raise GraphValueError(f"The argument 'factor' must be in (0.0, 1.0), but got "
                                  f"{factor}.")
        self.factor, self.verbose = factor, verbose
        self.cooldown, self.min_lr = cooldown, min_lr
        self.cooldown_counter = self.wait = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        self.cooldown_counter = self.wait = 0
        self.reset()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        from msc.common.tensor import Parameter, Tensor

        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter) or lr.asnumpy().shape != ():
            raise GraphValueError("ReduceLROnPlateau does not support dynamic learning rate and "
                                  "group learning rate now.")
        current = self.monitored(cb_params)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(lr.asnumpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    lr.set_data(Tensor(np.asarray(new, lr.asnumpy().dtype)))
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing "
                              f"learning rate to {new}.")
                self.cooldown_counter, self.wait = self.cooldown, 0

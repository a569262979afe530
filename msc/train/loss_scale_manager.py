"""Loss-scale managers (``mindspore.amp.LossScaleManager`` and its two kinds) with
MindSpore 2.10's arguments: ``Model`` and ``build_train_network`` take one, and its
``get_update_cell`` gives the Cell that ``nn.TrainOneStepWithLossScaleCell`` updates
its scale with inside the step.
"""

from __future__ import annotations

from typing import Any

from msc.errors import GraphValueError
from msc.nn.learning_rate_schedule import check_positive_int

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


class LossScaleManager:
    """The interface: ``get_loss_scale``, ``update_loss_scale(overflow)``,
    ``get_update_cell``."""

    def get_loss_scale(self) -> Any:
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        raise NotImplementedError

    def get_update_cell(self) -> Any:
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant scale; with ``drop_overflow_update`` a step whose gradients overflow
    leaves the weights alone (its update cell is ``nn.FixedLossScaleUpdateCell``),
    without it the optimizer takes ``loss_scale`` and divides it out itself."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True):
        if loss_scale < 1:
            raise GraphValueError(f"The argument 'loss_scale' must be >= 1, but got "
                                  f"{loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self) -> float:
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """A fixed scale does not change."""

    def get_update_cell(self) -> Any:
        if not self._drop_overflow_update:
            return None
        from msc.nn.wrap.loss_scale import FixedLossScaleUpdateCell

        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A scale divided by ``scale_factor`` (not below 1) on overflow and multiplied by it
    after ``scale_window`` steps without one; the step always drops an overflowing
    update."""

    def __init__(self, init_loss_scale: float = 2 ** 24, scale_factor: float = 2,
                 scale_window: int = 2000):
        if init_loss_scale < 1.0:
            raise GraphValueError(f"The argument 'init_loss_scale' must be > 1, but got "
                                  f"{init_loss_scale}")
        self.loss_scale = init_loss_scale
        self.scale_window = check_positive_int(scale_window, "scale_window",
                                               type(self).__name__)
        if scale_factor <= 0:
            raise GraphValueError(f"The argument 'scale_factor' must be > 0, but got "
                                  f"{scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self) -> float:
        return self.loss_scale

    def update_loss_scale(self, overflow: bool) -> None:
        """The host-side rule (for loops that manage the scale in Python)."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError("Dynamic loss scale Continuous overflow ", self.bad_step,
                               " times, has exceeded maximum threshold.")
        self.cur_iter += 1

    def get_drop_overflow_update(self) -> bool:
        return True

    def get_update_cell(self) -> Any:
        from msc.nn.wrap.loss_scale import DynamicLossScaleUpdateCell

        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor,
                                          self.scale_window)

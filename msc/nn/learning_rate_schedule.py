"""Learning-rate schedules (``mindspore.nn.learning_rate_schedule``): Cells that map the
global step (an integer Tensor) to a float32 learning rate, so an optimizer can evaluate
them inside its compiled step; and the argument checks MindSpore's schedules and
``dynamic_lr`` list functions share, with MindSpore's exception types and wording.
"""

from __future__ import annotations

import math
from typing import Any

from msc import dtype as mstype
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.ops import functional as F

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


# --- argument checks ----------------------------------------------------------------------


def _for(owner: str | None) -> str:
    return f"For '{owner}', the" if owner else "The"


def check_float(value: Any, name: str, owner: str | None, minimum: float = 0.0,
                strict: bool = True) -> float:
    """A Python float > ``minimum`` (``>=`` unless ``strict``); an int is a TypeError, as
    MindSpore's schedules want float literals."""
    bound = ">" if strict else ">="
    if isinstance(value, (int, float)) and not isinstance(value, bool) and \
            not (value > minimum if strict else value >= minimum):
        raise GraphValueError(f"{_for(owner)} '{name}' must be float and must {bound} "
                              f"{minimum:g}, but got '{value}' with type "
                              f"'{type(value).__name__}'.")
    if not isinstance(value, float):
        raise GraphTypeError(f"{_for(owner)} '{name}' must be float, but got "
                             f"'{type(value).__name__}'")
    return value


def check_positive_int(value: Any, name: str, owner: str | None) -> int:
    if isinstance(value, bool):
        raise GraphTypeError(f"{_for(owner)} '{name}' must be int and must > 0, but got "
                             f"'{value}' with type 'bool'.")
    if not isinstance(value, int):
        raise GraphTypeError(f"{_for(owner)} '{name}' must be int, but got "
                             f"'{type(value).__name__}'")
    if value <= 0:
        raise GraphValueError(f"{_for(owner)} '{name}' must be int and must > 0, but got "
                              f"'{value}' with type 'int'.")
    return value


def check_bool(value: Any, name: str, owner: str | None) -> bool:
    if not isinstance(value, bool):
        start = f"For '{owner}', the type" if owner else "The type"
        raise GraphTypeError(f"{start} of '{name}' should be 'bool', but got type "
                             f"'{type(value).__name__}'.")
    return value


def check_decay(learning_rate: Any, decay_rate: Any, is_stair: Any,
                owner: str | None) -> None:
    """The checks of the exponential, natural-exponential and inverse decays."""
    check_float(learning_rate, "learning_rate", owner)
    check_float(decay_rate, "decay_rate", owner)
    check_bool(is_stair, "is_stair", owner)


def check_min_max(min_lr: Any, max_lr: Any, owner: str) -> None:
    """The cosine decay's range: 0 <= min_lr < max_lr, both floats."""
    if not isinstance(min_lr, float):
        raise GraphTypeError(f"For '{owner}', the argument 'min_lr' must be type of float, but "
                             f"got 'min_lr' type: {type(min_lr)}.")
    check_float(min_lr, "min_lr", owner, strict=False)
    check_float(max_lr, "max_lr", owner)
    if min_lr >= max_lr:
        raise GraphValueError(f"For '{owner}', the 'max_lr' must be greater than the 'min_lr', "
                              f"but got 'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")


def check_typed_float(value: Any, name: str, owner: str) -> float:
    """A float >= 0 whose type MindSpore checks first (warm-up rate, end learning rate)."""
    if not isinstance(value, float):
        raise GraphTypeError(f"For '{owner}', the argument '{name}' must be type of float, but "
                             f"got '{name}' type: {type(value)}.")
    return check_float(value, name, owner, strict=False)


# --- schedules ----------------------------------------------------------------------------


class LearningRateSchedule(Cell):
    """Base of the schedules: ``construct(global_step)`` returns the learning rate."""

    def construct(self, global_step: Any) -> Any:
        raise NotImplementedError


def _step(global_step: Any) -> Any:
    return F.cast(global_step, mstype.float32)


class _Decay(LearningRateSchedule):
    """The shared arguments of the three rate-based decays."""

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int,
                 is_stair: bool = False):
        super().__init__()
        name = type(self).__name__
        check_positive_int(decay_steps, "decay_steps", name)
        check_decay(learning_rate, decay_rate, is_stair, name)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def progress(self, global_step: Any) -> Any:
        """step / decay_steps, rounded down to whole periods when ``is_stair``."""
        p = _step(global_step) / self.decay_steps
        return F.floor(p) if self.is_stair else p


class ExponentialDecayLR(_Decay):
    """lr * decay_rate ** (step / decay_steps)."""

    def construct(self, global_step: Any) -> Any:
        return self.learning_rate * F.pow(self.decay_rate, self.progress(global_step))


class NaturalExpDecayLR(_Decay):
    """lr * e ** (-decay_rate * step); with ``is_stair`` the step is rounded down to a
    multiple of decay_steps."""

    def construct(self, global_step: Any) -> Any:
        p = _step(global_step)
        if self.is_stair:
            p = F.floor(p / self.decay_steps) * self.decay_steps
        return self.learning_rate * F.exp(p * -self.decay_rate)


class InverseDecayLR(_Decay):
    """lr / (1 + decay_rate * step / decay_steps)."""

    def construct(self, global_step: Any) -> Any:
        return self.learning_rate / (self.progress(global_step) * self.decay_rate + 1)


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) / decay_steps))."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int):
        super().__init__()
        check_min_max(min_lr, max_lr, "CosineDecayLR")
        check_positive_int(decay_steps, "decay_steps", "CosineDecayLR")
        self.min_lr = min_lr
        self.max_lr = max_lr
        self.decay_steps = decay_steps

    def construct(self, global_step: Any) -> Any:
        p = _step(F.minimum(global_step, self.decay_steps)) / self.decay_steps
        half_range = 0.5 * (self.max_lr - self.min_lr)
        return self.min_lr + half_range * (F.cos(p * math.pi) + 1.0)


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end_lr) * (1 - step / decay_steps) ** power + end_lr, the step capped at
    decay_steps; with ``update_decay_steps`` the period grows to the next multiple of
    decay_steps instead."""

    def __init__(self, learning_rate: float, end_learning_rate: float, decay_steps: int,
                 power: float, update_decay_steps: bool = False):
        super().__init__()
        name = "PolynomialDecayLR"
        check_float(learning_rate, "learning_rate", None)
        check_typed_float(end_learning_rate, "end_learning_rate", name)
        check_positive_int(decay_steps, "decay_steps", name)
        check_bool(update_decay_steps, "update_decay_steps", name)
        check_float(power, "power", name)
        self.learning_rate = learning_rate
        self.end_learning_rate = end_learning_rate
        self.decay_steps = decay_steps
        self.power = power
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step: Any) -> Any:
        step = _step(global_step)
        period: Any = self.decay_steps
        if self.update_decay_steps:
            period = F.maximum(F.ceil(step / self.decay_steps), 1.0) * self.decay_steps
        else:
            step = F.minimum(step, float(self.decay_steps))
        span = self.learning_rate - self.end_learning_rate
        return span * F.pow(1.0 - step / period, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate: float, warmup_steps: int):
        super().__init__()
        check_typed_float(learning_rate, "learning_rate", "WarmUpLR")
        check_positive_int(warmup_steps, "warmup_steps", "WarmUpLR")
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps

    def construct(self, global_step: Any) -> Any:
        done = _step(F.minimum(global_step, self.warmup_steps)) / self.warmup_steps
        return self.learning_rate * done

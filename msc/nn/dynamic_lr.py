"""``mindspore.nn.dynamic_lr``: learning-rate lists, one Python float per training step,
for an optimizer's ``learning_rate``. The rate changes once per epoch
(``epoch = step // step_per_epoch``)."""

from __future__ import annotations

import math
from typing import Any, Callable

from msc.errors import GraphTypeError, GraphValueError
from msc.nn.learning_rate_schedule import (
    check_bool,
    check_decay,
    check_float,
    check_min_max,
    check_positive_int,
    check_typed_float,
)

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone: Any, learning_rates: Any) -> list[float]:
    """``learning_rates[t]`` for the steps in [milestone[t-1], milestone[t])."""
    for name, value in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(value, (tuple, list)):
            raise GraphTypeError(f"The type of '{name}' should be one of '['tuple', 'list']', "
                                 f"but got type '{type(value).__name__}'.")
    if len(milestone) != len(learning_rates):
        raise GraphValueError("For 'piecewise_constant_lr', the size of 'milestone' must be "
                              "same with the size of 'learning_rates', but got 'milestone' "
                              f"size: {len(milestone)}, 'learning_rates' size: "
                              f"{len(learning_rates)}.")
    rates: list[float] = []
    for i, (end, rate) in enumerate(zip(milestone, learning_rates)):
        check_positive_int(end, f"milestone[{i}]", None)
        if not isinstance(rate, float):
            raise GraphTypeError(f"The type of 'learning_rates[{i}]' must be 'float', but got "
                                 f"'{type(rate).__name__}'.")
        if end < len(rates):
            raise GraphValueError(f"For 'piecewise_constant_lr', the value of milestone[{i}] "
                                  f"must be greater than milestone[{i - 1}], but got "
                                  f"milestone[{i}]: {end}, milestone[{i - 1}]: {len(rates)}.")
        rates += [rate] * (end - len(rates))
    return rates


def _per_epoch(total_step: Any, step_per_epoch: Any, rate_of_epoch: Callable[[int], float]
               ) -> list[float]:
    check_positive_int(total_step, "total_step", None)
    check_positive_int(step_per_epoch, "step_per_epoch", None)
    return [rate_of_epoch(step // step_per_epoch) for step in range(total_step)]


def _decay_args(learning_rate: Any, decay_rate: Any, total_step: Any, step_per_epoch: Any,
                decay_epoch: Any, is_stair: Any) -> None:
    check_positive_int(total_step, "total_step", None)
    check_positive_int(step_per_epoch, "step_per_epoch", None)
    check_positive_int(decay_epoch, "decay_epoch", None)
    check_decay(learning_rate, decay_rate, is_stair, None)


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                         step_per_epoch: int, decay_epoch: int,
                         is_stair: bool = False) -> list[float]:
    """lr * decay_rate ** (epoch / decay_epoch), the exponent whole with ``is_stair``."""
    _decay_args(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)

    def rate(epoch: int) -> float:
        periods = epoch // decay_epoch if is_stair else epoch / decay_epoch
        return learning_rate * decay_rate ** periods
    return _per_epoch(total_step, step_per_epoch, rate)


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                         step_per_epoch: int, decay_epoch: int,
                         is_stair: bool = False) -> list[float]:
    """lr * e ** (-decay_rate * epoch), the epoch rounded down to a multiple of
    decay_epoch with ``is_stair``."""
    _decay_args(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)

    def rate(epoch: int) -> float:
        counted = epoch // decay_epoch * decay_epoch if is_stair else epoch
        return learning_rate * math.e ** (-decay_rate * counted)
    return _per_epoch(total_step, step_per_epoch, rate)


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                     step_per_epoch: int, decay_epoch: int,
                     is_stair: bool = False) -> list[float]:
    """lr / (1 + decay_rate * epoch / decay_epoch), the ratio whole with ``is_stair``."""
    _decay_args(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)

    def rate(epoch: int) -> float:
        if is_stair:
            return learning_rate / (1 + decay_rate * (epoch // decay_epoch))
        return learning_rate / (1 + decay_rate * epoch / decay_epoch)
    return _per_epoch(total_step, step_per_epoch, rate)


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> list[float]:
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(epoch, decay_epoch) /
    decay_epoch))."""
    check_min_max(min_lr, max_lr, "cosine_decay_lr")
    check_positive_int(decay_epoch, "decay_epoch", None)
    half_range = 0.5 * (max_lr - min_lr)
    return _per_epoch(total_step, step_per_epoch, lambda epoch: min_lr + half_range * (
        1 + math.cos(math.pi * min(epoch, decay_epoch) / decay_epoch)))


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int,
                        step_per_epoch: int, decay_epoch: int, power: float,
                        update_decay_epoch: bool = False) -> list[float]:
    """(lr - end_lr) * (1 - epoch / decay_epoch) ** power + end_lr, the epoch capped at
    decay_epoch; with ``update_decay_epoch`` the period grows to the next multiple of
    decay_epoch instead."""
    check_float(learning_rate, "learning_rate", None)
    check_typed_float(end_learning_rate, "end_learning_rate", "polynomial_decay_lr")
    check_float(power, "power", None)
    check_positive_int(decay_epoch, "decay_epoch", None)
    check_bool(update_decay_epoch, "update_decay_epoch", None)
    span = learning_rate - end_learning_rate

    def rate(epoch: int) -> float:
        if update_decay_epoch:
            period, done = decay_epoch * max(math.ceil(epoch / decay_epoch), 1), epoch
        else:
            period, done = decay_epoch, min(epoch, decay_epoch)
        return span * (1 - done / period) ** power + end_learning_rate
    return _per_epoch(total_step, step_per_epoch, rate)


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int,
              warmup_epoch: int) -> list[float]:
    """lr * min(epoch, warmup_epoch) / warmup_epoch."""
    check_typed_float(learning_rate, "learning_rate", "warmup_lr")
    check_positive_int(warmup_epoch, "warmup_epoch", None)
    return _per_epoch(total_step, step_per_epoch,
                      lambda epoch: learning_rate * min(epoch, warmup_epoch) / warmup_epoch)

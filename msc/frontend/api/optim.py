"""Optimizers of ``msc.nn`` (``nn.SGD``, ``nn.Momentum``, ``nn.Adam``,
``nn.AdamWeightDecay``) with MindSpore 2.10's arguments, state names and update rules.

Each is a Cell whose ``construct(gradients)`` maps one update function over the
parameters, their state and the gradients with ``HyperMap``, writing every Parameter
with ``ops.assign``, as MindSpore's optimizers do; in a graph the writes are effects in
program order, so a train step updates the weights in place. Weight decay applies to
every parameter whose name has neither "beta" nor "gamma" in it (MindSpore's default
filter; normalisation scales and shifts are not decayed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api.cell import Cell
from msc.frontend.api.effects import assign, assign_add
from msc.frontend.api.hypermap import HyperMap, partial
from msc.frontend.api.tensor import Parameter, ParameterTuple, Tensor

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay"]


class Optimizer(Cell):
    """The parts every optimizer shares: ``parameters``, ``learning_rate`` (a float or a
    0-d Tensor, held in a Parameter so it can be changed between steps), ``weight_decay``
    and ``loss_scale`` (gradients are divided by it), and a ``global_step`` counter."""

    def __init__(self, learning_rate: Any, parameters: Any, weight_decay: float = 0.0,
                 loss_scale: float = 1.0):
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if not params:
            raise GraphValueError(f"For '{type(self).__name__}', the argument 'params' must "
                                  "not be empty.")
        if any(isinstance(p, dict) for p in params):
            raise GraphTypeError("parameter groups (dicts) are not supported yet: pass the "
                                 "Parameters")
        if not all(isinstance(p, Parameter) for p in params):
            raise GraphTypeError(f"For '{type(self).__name__}', the 'params' must be "
                                 "Parameters.")
        self.parameters = ParameterTuple(params)
        self.learning_rate = Parameter(_learning_rate(learning_rate), name="learning_rate")
        self.weight_decay = _non_negative(weight_decay, "weight_decay", type(self).__name__)
        self.loss_scale = float(loss_scale)
        if self.loss_scale <= 0:
            raise GraphValueError(f"For '{type(self).__name__}', the 'loss_scale' must be "
                                  f"greater than 0, but got {loss_scale}.")
        self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                 for p in params)
        self.global_step = Parameter(Tensor(np.array([0], np.int32)), name="global_step")
        self.hyper_map = HyperMap()

    def get_lr(self) -> Any:
        return self.learning_rate * 1  # its value now, not the Parameter

    def scaled(self, gradients: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients divided by the loss scale."""
        if self.loss_scale == 1.0:
            return tuple(gradients)
        return tuple(g / self.loss_scale for g in gradients)

    def decayed(self, gradients: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients plus ``weight_decay * weight`` where the filter allows (L2)."""
        if self.weight_decay == 0.0:
            return tuple(gradients)
        return tuple(g + self.weight_decay * p if flag else g
                     for g, p, flag in zip(gradients, self.parameters, self.decay_flags))

    def step(self) -> None:
        assign_add(self.global_step, Tensor(np.array([1], np.int32)))


def _learning_rate(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise GraphValueError("a learning rate Tensor must be 0-d here (dynamic learning "
                                  "rates are not supported yet)")
        return Tensor(value.asnumpy().astype(np.float32))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GraphTypeError(f"learning_rate must be a float or a Tensor, not "
                             f"{type(value).__name__}")
    return Tensor(np.float32(value))


def _non_negative(value: Any, arg: str, cls: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise GraphValueError(f"For '{cls}', the '{arg}' must be a float >= 0, but got "
                              f"{value!r}.")
    return float(value)


def _in_unit(value: Any, arg: str, cls: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise GraphValueError(f"For '{cls}', the '{arg}' must be in range [0.0, 1.0), but "
                              f"got {value!r}.")
    return float(value)


# --- SGD and Momentum ------------------------------------------------------------------------


def _momentum_update(lr: Any, momentum: float, nesterov: bool, weight: Any, moment: Any,
                     grad: Any) -> Any:
    """v = momentum * v + g; w -= lr * v (Nesterov: w -= lr * (g + momentum * v))."""
    v = moment * momentum + grad
    assign(moment, v)
    return assign(weight, weight - lr * (grad + v * momentum if nesterov else v))


class Momentum(Optimizer):
    """``nn.Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``; its state: ``moments.<name>`` per parameter."""

    def __init__(self, params: Any, learning_rate: Any, momentum: float,
                 weight_decay: float = 0.0, loss_scale: float = 1.0,
                 use_nesterov: bool = False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _non_negative(momentum, "momentum", "Momentum")
        self.use_nesterov = bool(use_nesterov)
        self.moments = self.parameters.clone(prefix="moments", init="zeros")

    def construct(self, gradients: Any) -> Any:
        grads = self.decayed(self.scaled(gradients))
        self.step()
        update = partial(_momentum_update, self.get_lr(), self.momentum, self.use_nesterov)
        return self.hyper_map(update, self.parameters, self.moments, grads)


def _sgd_update(lr: Any, momentum: float, dampening: float, nesterov: bool, weight: Any,
                accum: Any, stat: Any, grad: Any) -> Any:
    """With momentum: accum = g on the first step (``stat`` is 1), else
    momentum * accum + (1 - dampening) * g; w -= lr * accum (Nesterov: g + momentum *
    accum). Without: w -= lr * g."""
    if momentum > 0:
        a = F.select(stat > 0, grad, accum * momentum + grad * (1 - dampening))
        assign(accum, a)
        assign(stat, F.zeros_like(stat))
        grad = grad + a * momentum if nesterov else a
    return assign(weight, weight - lr * grad)


class SGD(Optimizer):
    """``nn.SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0,
    weight_decay=0.0, nesterov=False, loss_scale=1.0)``; its state: ``accum.<name>`` and
    ``stat.<name>`` per parameter."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 loss_scale: float = 1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _non_negative(momentum, "momentum", "SGD")
        self.dampening = _non_negative(dampening, "dampening", "SGD")
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise GraphValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 "
                                  "and 'dampening' must equal to 0.0")
        self.nesterov = bool(nesterov)
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients: Any) -> Any:
        grads = self.decayed(self.scaled(gradients))
        self.step()
        update = partial(_sgd_update, self.get_lr(), self.momentum, self.dampening,
                         self.nesterov)
        return self.hyper_map(update, self.parameters, self.accum, self.stat, grads)


# --- Adam --------------------------------------------------------------------------------


def _adam_update(lr: Any, beta1: float, beta2: float, eps: float, nesterov: bool,
                 weight: Any, m: Any, v: Any, grad: Any) -> Any:
    """m, v: moving averages of g and g*g; w -= lr * m / (sqrt(v) + eps), with ``lr``
    already bias-corrected (Nesterov: ``beta1 * m + (1 - beta1) * g`` for ``m``)."""
    m_new = m * beta1 + grad * (1 - beta1)
    v_new = v * beta2 + grad * grad * (1 - beta2)
    assign(m, m_new)
    assign(v, v_new)
    top = m_new * beta1 + grad * (1 - beta1) if nesterov else m_new
    return assign(weight, weight - lr * top / (F.sqrt(v_new) + eps))


class Adam(Optimizer):
    """``nn.Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``: the
    step size ``lr * sqrt(1 - beta2^t) / (1 - beta1^t)``; its state: ``moment1.<name>``,
    ``moment2.<name>``, ``beta1_power``, ``beta2_power``."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: float = 0.0,
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
        grads = self.decayed(self.scaled(gradients))
        self.step()
        b1 = self.beta1_power * self.beta1
        b2 = self.beta2_power * self.beta2
        assign(self.beta1_power, b1)
        assign(self.beta2_power, b2)
        lr = self.get_lr() * F.sqrt(1 - b2) / (1 - b1)
        update = partial(_adam_update, lr, self.beta1, self.beta2, self.eps,
                         self.use_nesterov)
        return self.hyper_map(update, self.parameters, self.moment1, self.moment2, grads)


def _adam_weight_decay_update(lr: Any, beta1: float, beta2: float, eps: float,
                              decay: float, weight: Any, m: Any, v: Any, grad: Any,
                              flag: bool) -> Any:
    """No bias correction; the decay is added to the step, not to the gradient."""
    m_new = m * beta1 + grad * (1 - beta1)
    v_new = v * beta2 + grad * grad * (1 - beta2)
    assign(m, m_new)
    assign(v, v_new)
    step = m_new / (F.sqrt(v_new) + eps)
    if flag and decay:
        step = step + weight * decay
    return assign(weight, weight - lr * step)


class AdamWeightDecay(Optimizer):
    """``nn.AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)`` (decoupled weight decay); its state: ``adam_m.<name>``,
    ``adam_v.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1 = _in_unit(beta1, "beta1", "AdamWeightDecay")
        self.beta2 = _in_unit(beta2, "beta2", "AdamWeightDecay")
        self.eps = float(eps)
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")

    def construct(self, gradients: Any) -> Any:
        grads = self.scaled(gradients)
        self.step()
        update = partial(_adam_weight_decay_update, self.get_lr(), self.beta1, self.beta2,
                         self.eps, self.weight_decay)
        return self.hyper_map(update, self.parameters, self.moments1, self.moments2, grads,
                              self.decay_flags)

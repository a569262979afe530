"""The optimizer primitive classes of ``mindspore.ops`` (``P.ApplyMomentum``,
``P.ApplyAdagrad``, ``P.Adam``, ...), with MindSpore 2.10's arguments and update rules.

Each writes its Parameters in place with ``assign`` (eagerly at once, in a graph as
effects in program order) and returns the updated values: the variable alone, or the
tuple MindSpore documents (variable and slots). The hyper-parameters may be numbers or
0-d Tensors; a Tensor is cast to the variable's type.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.ops import functional as F
from msc.ops.function.side_effect_func import assign
from msc.ops.primitive import Primitive

__all__ = ["ApplyMomentum", "ApplyGradientDescent", "ApplyProximalGradientDescent",
           "ApplyAdagrad", "ApplyAdagradV2", "ApplyRMSProp", "ApplyCenteredRMSProp",
           "ApplyAdaMax", "ApplyAdadelta", "ApplyFtrl", "ApplyProximalAdagrad",
           "ApplyPowerSign", "ApplyAddSign", "ApplyKerasMomentum", "ApplyAdamWithAmsgrad",
           "Adam"]


def _like(value: Any, var: Any) -> Any:
    """A hyper-parameter in the variable's type (numbers stay weak scalars)."""
    return F.cast(value, var.dtype) if isinstance(value, Tensor) else value


def _sqrt(x: Any) -> Any:
    return math.sqrt(x) if isinstance(x, (int, float)) else F.sqrt(x)


def _proximal(prox: Any, lr: Any, l1: Any, l2: Any) -> Any:
    """sign(v) max(|v| - lr l1, 0) / (1 + lr l2): the L1/L2 proximal step."""
    return F.sign(prox) * F.maximum(F.abs(prox) - lr * l1, 0.0) / (1 + lr * l2)


class ApplyMomentum(Primitive):
    """accum = momentum accum + g; var -= lr accum (Nesterov: lr (g + momentum accum))."""

    def __init__(self, use_nesterov: bool = False, use_locking: bool = False,
                 gradient_scale: float = 1.0):
        super().__init__(use_nesterov=use_nesterov, use_locking=use_locking,
                         gradient_scale=gradient_scale)
        self.use_nesterov, self.gradient_scale = use_nesterov, gradient_scale

    def __call__(self, variable: Any, accumulation: Any, learning_rate: Any, gradient: Any,
                 momentum: Any) -> Any:
        lr, mom = _like(learning_rate, variable), _like(momentum, variable)
        grad = gradient * self.gradient_scale if self.gradient_scale != 1.0 else gradient
        accum = accumulation * mom + grad
        assign(accumulation, accum)
        step = (grad + accum * mom) * lr if self.use_nesterov else accum * lr
        return assign(variable, variable - step)


class ApplyKerasMomentum(Primitive):
    """accum = momentum accum - lr g; var += accum (Nesterov: momentum accum - lr g)."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)
        self.use_nesterov = use_nesterov

    def __call__(self, var: Any, accum: Any, lr: Any, grad: Any, momentum: Any) -> Any:
        lr, mom = _like(lr, var), _like(momentum, var)
        new = accum * mom - grad * lr
        out_accum = assign(accum, new)
        step = new * mom - grad * lr if self.use_nesterov else new
        return assign(var, var + step), out_accum


class ApplyGradientDescent(Primitive):
    """var -= alpha delta."""

    def __call__(self, var: Any, alpha: Any, delta: Any) -> Any:
        return assign(var, var - delta * _like(alpha, var))


class ApplyProximalGradientDescent(Primitive):
    """The proximal step of var - alpha delta with L1 ``l1`` and L2 ``l2``."""

    def __call__(self, var: Any, alpha: Any, l1: Any, l2: Any, delta: Any) -> Any:
        lr = _like(alpha, var)
        return assign(var, _proximal(var - delta * lr, lr, _like(l1, var), _like(l2, var)))


class ApplyAdagrad(Primitive):
    """accum += g^2 (if ``update_slots``); var -= lr g / sqrt(accum)."""

    def __init__(self, update_slots: bool = True):
        super().__init__(update_slots=update_slots)
        self.update_slots = update_slots

    def _eps(self) -> float:
        return 0.0

    def __call__(self, var: Any, accum: Any, lr: Any, grad: Any) -> Any:
        new = accum + grad * grad if self.update_slots else accum * 1
        out_accum = assign(accum, new)
        denom = F.sqrt(new) + self._eps() if self._eps() else F.sqrt(new)
        return assign(var, var - _like(lr, var) * grad / denom), out_accum


class ApplyAdagradV2(ApplyAdagrad):
    """``ApplyAdagrad`` with ``epsilon`` added to sqrt(accum)."""

    def __init__(self, epsilon: float, update_slots: bool = True):
        super().__init__(update_slots)
        self.attrs["epsilon"] = self.epsilon = epsilon

    def _eps(self) -> float:
        return self.epsilon


def _one_minus(decay: Any) -> Any:
    """1 - decay as MindSpore's kernel forms it: in double from the float32 decay, rounded
    to float32 (a Python number's float32, so that 1 - 0.9 is 0.100000024 as there)."""
    if isinstance(decay, (int, float)):
        return float(np.float32(1.0 - float(np.float32(decay))))
    return 1 - decay


def _vector_lanes(var: Any) -> Any:
    """Where MindSpore 2.10's CPU ApplyRMSProp adds epsilon outside the square root: its
    8-wide AVX loop covers the leading multiple of 8 elements (sqrt(ms) + eps), its scalar
    tail the rest (sqrt(ms + eps)). A bool Tensor of ``var``'s shape, or True / False when
    one of them covers all."""
    size = var.size
    whole = size // 8 * 8
    if whole in (0, size):
        return whole == size and size > 0
    return Tensor(np.arange(size).reshape(var.shape) < whole)


class ApplyRMSProp(Primitive):
    """ms += (g^2 - ms)(1 - decay); mom = momentum mom + lr g / denom; var -= mom, where
    denom is sqrt(ms) + eps on the elements MindSpore's CPU kernel updates 8 at a time and
    sqrt(ms + eps) on the last size % 8 (its scalar loop): the formula MindSpore 2.10
    computes. NOTE: that is where its kernel ran one range (as measured up to 300k
    elements on two CPUs); where it splits a tensor among threads, each range has a tail."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var: Any, mean_square: Any, moment: Any, learning_rate: Any,
                 grad: Any, decay: Any, momentum: Any, epsilon: Any) -> Any:
        ms = mean_square + (grad * grad - mean_square) * _one_minus(decay)
        assign(mean_square, ms)
        lanes = _vector_lanes(var)
        if lanes is True:
            denom = F.sqrt(ms) + epsilon
        elif lanes is False:
            denom = F.sqrt(ms + epsilon)
        else:
            denom = F.select(lanes, F.sqrt(ms) + epsilon, F.sqrt(ms + epsilon))
        mom = moment * momentum + grad * _like(learning_rate, var) / denom
        assign(moment, mom)
        return assign(var, var - mom)


class ApplyCenteredRMSProp(Primitive):
    """``ApplyRMSProp`` with the mean gradient's square taken from the mean square; an
    element whose denominator ms - mg^2 + eps is not positive keeps its moment and value
    (MindSpore's kernel skips it)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var: Any, mean_gradient: Any, mean_square: Any, moment: Any,
                 grad: Any, learning_rate: Any, decay: Any, momentum: Any,
                 epsilon: Any) -> Any:
        rest = _one_minus(decay)
        ms = mean_square + (grad * grad - mean_square) * rest
        mg = mean_gradient + (grad - mean_gradient) * rest
        assign(mean_gradient, mg)
        assign(mean_square, ms)
        denom = ms - mg * mg + epsilon
        live = denom > 0
        step = grad * _like(learning_rate, var) / F.sqrt(F.select(live, denom,
                                                                  F.ones_like(denom)))
        mom = F.select(live, moment * momentum + step, moment)
        assign(moment, mom)
        return assign(var, var - F.select(live, mom, F.zeros_like(mom)))


class ApplyAdaMax(Primitive):
    """m = b1 m + (1 - b1) g; v = max(b2 v, |g|); var -= lr / (1 - b1^t) m / (v + eps)."""

    def __call__(self, var: Any, m: Any, v: Any, beta1_power: Any, lr: Any, beta1: Any,
                 beta2: Any, epsilon: Any, grad: Any) -> Any:
        b1, b2 = _like(beta1, var), _like(beta2, var)
        new_m = m * b1 + grad * (1 - b1)
        new_v = F.maximum(v * b2, F.abs(grad))
        out_m, out_v = assign(m, new_m), assign(v, new_v)
        step = _like(lr, var) / (1 - _like(beta1_power, var)) * new_m / (new_v +
                                                                          _like(epsilon, var))
        return assign(var, var - step), out_m, out_v


class ApplyAdadelta(Primitive):
    """accum = rho accum + (1 - rho) g^2; u = sqrt(accum_update + eps) / sqrt(accum + eps)
    g; accum_update = rho accum_update + (1 - rho) u^2; var -= lr u."""

    def __call__(self, var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any,
                 epsilon: Any, grad: Any) -> Any:
        rho, eps = _like(rho, var), _like(epsilon, var)
        new_accum = accum * rho + grad * grad * (1 - rho)
        update = F.sqrt(accum_update + eps) / F.sqrt(new_accum + eps) * grad
        out_accum = assign(accum, new_accum)
        out_update = assign(accum_update, accum_update * rho + update * update * (1 - rho))
        return assign(var, var - _like(lr, var) * update), out_accum, out_update


class ApplyFtrl(Primitive):
    """FTRL-proximal: accum' = accum + g^2; linear += g - (accum'^-p - accum^-p) / lr var;
    var = (sign(linear) l1 - linear) / (accum'^-p / lr + 2 l2) where |linear| > l1, else 0
    (p is ``lr_power``)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any,
                 l2: Any, lr_power: Any) -> Any:
        lr, l1, l2, power = (_like(a, var) for a in (lr, l1, l2, lr_power))
        new_accum = accum + grad * grad
        new_linear = linear + grad - (F.pow(new_accum, -power) - F.pow(accum, -power)) / lr \
            * var
        quadratic = F.pow(new_accum, -power) / lr + 2 * l2
        value = (F.sign(new_linear) * l1 - new_linear) / quadratic
        assign(accum, new_accum)
        assign(linear, new_linear)
        return assign(var, F.select(F.abs(new_linear) > l1, value, F.zeros_like(value)))


class ApplyProximalAdagrad(Primitive):
    """accum += g^2; with the step's rate r = lr / sqrt(accum), var = the proximal step
    (rate r) of var - r g (MindSpore's kernel scales the L1/L2 terms by r, not lr)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any) -> Any:
        new_accum = accum + grad * grad
        out_accum = assign(accum, new_accum)
        rate = _like(lr, var) / F.sqrt(new_accum)
        prox = var - rate * grad
        return assign(var, _proximal(prox, rate, _like(l1, var), _like(l2, var))), out_accum


class ApplyPowerSign(Primitive):
    """m = beta m + (1 - beta) g; var -= lr exp(logbase sign_decay sign(g) sign(m)) g."""

    def __call__(self, var: Any, m: Any, lr: Any, logbase: Any, sign_decay: Any, beta: Any,
                 grad: Any) -> Any:
        beta = _like(beta, var)
        new_m = m * beta + grad * (1 - beta)
        out_m = assign(m, new_m)
        scale = F.exp(_like(logbase, var) * _like(sign_decay, var) * F.sign(grad) *
                      F.sign(new_m))
        return assign(var, var - _like(lr, var) * scale * grad), out_m


class ApplyAddSign(Primitive):
    """m = beta m + (1 - beta) g; var -= lr (alpha + sign_decay sign(g) sign(m)) g."""

    def __call__(self, var: Any, m: Any, lr: Any, alpha: Any, sign_decay: Any, beta: Any,
                 grad: Any) -> Any:
        beta = _like(beta, var)
        new_m = m * beta + grad * (1 - beta)
        out_m = assign(m, new_m)
        scale = _like(alpha, var) + _like(sign_decay, var) * F.sign(grad) * F.sign(new_m)
        return assign(var, var - _like(lr, var) * scale * grad), out_m


def _adam_moments(m: Any, v: Any, grad: Any, beta1: Any, beta2: Any) -> tuple[Any, Any]:
    return m * beta1 + grad * (1 - beta1), v * beta2 + grad * grad * (1 - beta2)


class Adam(Primitive):
    """The Adam step: m, v the moving averages of g and g^2; var -= lr sqrt(1 - b2^t) /
    (1 - b1^t) m / (sqrt(v) + eps) (Nesterov: b1 m + (1 - b1) g for m)."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)
        self.use_nesterov = use_nesterov

    def __call__(self, var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
                 beta1: Any, beta2: Any, epsilon: Any, gradient: Any) -> Any:
        b1, b2 = _like(beta1, var), _like(beta2, var)
        new_m, new_v = _adam_moments(m, v, gradient, b1, b2)
        out_m, out_v = assign(m, new_m), assign(v, new_v)
        lr_t = _like(lr, var) * _sqrt(1 - _like(beta2_power, var)) / (
            1 - _like(beta1_power, var))
        top = new_m * b1 + gradient * (1 - b1) if self.use_nesterov else new_m
        return assign(var, var - lr_t * top / (F.sqrt(new_v) + _like(epsilon, var))), out_m, \
            out_v


class ApplyAdamWithAmsgrad(Primitive):
    """Adam with vhat = max(vhat, v) in the denominator."""

    def __init__(self, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
                 use_locking: bool = False):
        super().__init__(beta1=beta1, beta2=beta2, epsilon=epsilon, use_locking=use_locking)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def __call__(self, var: Any, m: Any, v: Any, vhat: Any, beta1_power: Any,
                 beta2_power: Any, lr: Any, grad: Any) -> Any:
        new_m, new_v = _adam_moments(m, v, grad, self.beta1, self.beta2)
        new_vhat = F.maximum(vhat, new_v)
        out_m, out_v, out_vhat = assign(m, new_m), assign(v, new_v), assign(vhat, new_vhat)
        lr_t = _like(lr, var) * _sqrt(1 - _like(beta2_power, var)) / (
            1 - _like(beta1_power, var))
        return assign(var, var - lr_t * new_m / (F.sqrt(new_vhat) + self.epsilon)), out_m, \
            out_v, out_vhat

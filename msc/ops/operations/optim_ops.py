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
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.scatter_func import _store
from msc.ops.function.side_effect_func import assign
from msc.ops.primitive import Primitive

__all__ = ["ApplyMomentum", "ApplyGradientDescent", "ApplyProximalGradientDescent",
           "ApplyAdagrad", "ApplyAdagradV2", "ApplyRMSProp", "ApplyCenteredRMSProp",
           "ApplyAdaMax", "ApplyAdadelta", "ApplyFtrl", "ApplyProximalAdagrad",
           "ApplyPowerSign", "ApplyAddSign", "ApplyKerasMomentum", "ApplyAdamWithAmsgrad",
           "Adam", "ApplyAdamWithAmsgradV2", "ApplyAdagradDA", "AdamWeightDecay",
           "FusedCastAdamWeightDecay", "AdamNoUpdateParam", "SGD", "FusedWeightScaleApplyMomentum",
           "LARSUpdate", "SparseApplyAdagrad", "SparseApplyAdagradV2",
           "SparseApplyProximalAdagrad", "FusedSparseProximalAdagrad", "SparseApplyFtrl",
           "SparseApplyFtrlV2", "FusedSparseFtrl", "SparseApplyRMSProp", "SparseApplyAdadelta",
           "FusedSparseAdam", "FusedSparseLazyAdam"]


def _like(value: Any, var: Any) -> Any:
    """A hyper-parameter in the variable's type (numbers stay weak scalars)."""
    return F.cast(value, var.dtype) if isinstance(value, Tensor) else value


def _flag(value: Any, name: str, op: str) -> bool:
    if not isinstance(value, bool):
        raise GraphTypeError(f"For '{op}', the '{name}' must be a bool, but got "
                             f"{type(value).__name__}.")
    return value


def _number(value: Any, name: str, op: str) -> float:
    """A float attribute (MindSpore takes an int for none of them)."""
    if not isinstance(value, float):
        raise GraphTypeError(f"For '{op}', the '{name}' must be a float, but got "
                             f"{type(value).__name__}.")
    return value


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
        new_var, new_accum, new_update = _adadelta(var, accum, accum_update, lr, rho,
                                                   epsilon, grad)
        out_accum, out_update = assign(accum, new_accum), assign(accum_update, new_update)
        return assign(var, new_var), out_accum, out_update


def _adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any,
              grad: Any) -> tuple[Any, Any, Any]:
    rho, eps = _like(rho, var), _like(epsilon, var)
    new_accum = accum * rho + grad * grad * (1 - rho)
    update = F.sqrt(accum_update + eps) / F.sqrt(new_accum + eps) * grad
    return var - _like(lr, var) * update, new_accum, accum_update * rho + update * update * (
        1 - rho)


class ApplyFtrl(Primitive):
    """FTRL-proximal: accum' = accum + g^2; linear += g - (accum'^-p - accum^-p) / lr var;
    var = (sign(linear) l1 - linear) / (accum'^-p / lr + 2 l2) where |linear| > l1, else 0
    (p is ``lr_power``)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any,
                 l2: Any, lr_power: Any) -> Any:
        new_var, new_accum, new_linear = _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power)
        assign(accum, new_accum)
        assign(linear, new_linear)
        return assign(var, new_var)


def _ftrl(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any,
          lr_power: Any, l2_shrinkage: Any = 0.0) -> tuple[Any, Any, Any]:
    """The FTRL step's (var, accum, linear); ``l2_shrinkage`` adds 2 l2_shrinkage var to the
    gradient the linear term takes (FTRL-V2)."""
    lr, l1, l2, power = (_like(a, var) for a in (lr, l1, l2, lr_power))
    new_accum = accum + grad * grad
    shrunk = grad + var * (2 * l2_shrinkage) if l2_shrinkage else grad
    new_linear = linear + shrunk - (F.pow(new_accum, -power) - F.pow(accum, -power)) / lr * var
    quadratic = F.pow(new_accum, -power) / lr + 2 * l2
    value = (F.sign(new_linear) * l1 - new_linear) / quadratic
    return F.select(F.abs(new_linear) > l1, value, F.zeros_like(value)), new_accum, new_linear


class ApplyProximalAdagrad(Primitive):
    """accum += g^2; with the step's rate r = lr / sqrt(accum), var = the proximal step
    (rate r) of var - r g (MindSpore's kernel scales the L1/L2 terms by r, not lr)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any) -> Any:
        new_var, new_accum = _proximal_adagrad(var, accum, lr, l1, l2, grad)
        out_accum = assign(accum, new_accum)
        return assign(var, new_var), out_accum


def _proximal_adagrad(var: Any, accum: Any, lr: Any, l1: Any, l2: Any,
                      grad: Any) -> tuple[Any, Any]:
    new_accum = accum + grad * grad
    rate = _like(lr, var) / F.sqrt(new_accum)
    prox = var - rate * grad
    return _proximal(prox, rate, _like(l1, var), _like(l2, var)), new_accum


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
        return _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, self.beta1, self.beta2,
                        self.epsilon, grad)


def _amsgrad(var: Any, m: Any, v: Any, vhat: Any, beta1_power: Any, beta2_power: Any, lr: Any,
             beta1: Any, beta2: Any, epsilon: Any, grad: Any) -> tuple[Any, Any, Any, Any]:
    new_m, new_v = _adam_moments(m, v, grad, beta1, beta2)
    new_vhat = F.maximum(vhat, new_v)
    out_m, out_v, out_vhat = assign(m, new_m), assign(v, new_v), assign(vhat, new_vhat)
    lr_t = _like(lr, var) * _sqrt(1 - _like(beta2_power, var)) / (1 - _like(beta1_power, var))
    return assign(var, var - lr_t * new_m / (F.sqrt(new_vhat) + epsilon)), out_m, out_v, \
        out_vhat


class ApplyAdamWithAmsgradV2(Primitive):
    """``ApplyAdamWithAmsgrad`` with beta1, beta2 and epsilon as inputs (numbers or 0-d
    Tensors) instead of attributes."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=_flag(use_locking, "use_locking", "ApplyAdamWithAmsgradV2"))

    def __call__(self, var: Any, m: Any, v: Any, vhat: Any, beta1_power: Any,
                 beta2_power: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any,
                 grad: Any) -> Any:
        return _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, _like(beta1, var),
                        _like(beta2, var), _like(epsilon, var), grad)


class ApplyAdagradDA(Primitive):
    """Adagrad dual averaging: the accumulators gather g and g^2, and var is computed afresh
    from them: -lr shrink(grad_accum) / (l2 global_step lr + sqrt(squared_accum)), where
    shrink is the L1 soft threshold by l1 global_step (MindSpore's documented formula; its
    CPU kernel adds the threshold to negative accumulators instead: see differences.md)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=_flag(use_locking, "use_locking", "ApplyAdagradDA"))

    def __call__(self, var: Any, gradient_accumulator: Any, gradient_squared_accumulator: Any,
                 grad: Any, lr: Any, l1: Any, l2: Any, global_step: Any) -> Any:
        lr, l1, l2 = (_like(a, var) for a in (lr, l1, l2))
        step = F.cast(global_step, var.dtype) if isinstance(global_step, Tensor) else global_step
        acc = gradient_accumulator + grad
        squared = gradient_squared_accumulator + grad * grad
        assign(gradient_accumulator, acc)
        assign(gradient_squared_accumulator, squared)
        l1 = F.maximum(l1, 0.0) if isinstance(l1, Tensor) else max(l1, 0.0)  # l1 <= 0: acc
        shrunk = F.sign(acc) * F.maximum(F.abs(acc) - l1 * step, 0.0)
        return assign(var, -lr * shrunk / (l2 * step * lr + F.sqrt(squared)))


def _adam_weight_decay(var: Any, m: Any, v: Any, lr: Any, beta1: Any, beta2: Any,
                       epsilon: Any, decay: Any, grad: Any) -> tuple[Any, Any, Any]:
    """m, v the moving averages of g and g^2 (in their own type); var -= lr (m / (sqrt(v) +
    eps) + decay var), computed in m's type and written in var's."""
    new_m, new_v = _adam_moments(m, v, grad, beta1, beta2)
    wide = F.cast(var, m.dtype)
    step = new_m / (F.sqrt(new_v) + epsilon) + wide * decay
    new_var = F.cast(wide - step * lr, var.dtype)
    out_m, out_v = assign(m, new_m), assign(v, new_v)  # (every read first: one loop)
    return assign(var, new_var), out_m, out_v


class AdamWeightDecay(Primitive):
    """Adam with decoupled weight decay and no bias correction; returns (var, m, v) updated,
    as documented (MindSpore 2.10's CPU kernel returns uninitialised memory there)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=_flag(use_locking, "use_locking", "AdamWeightDecay"))

    def __call__(self, var: Any, m: Any, v: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any,
                 decay: Any, gradient: Any) -> Any:
        return _adam_weight_decay(var, m, v, *(_like(a, m) for a in (lr, beta1, beta2,
                                                                      epsilon, decay)),
                                  F.cast(gradient, m.dtype))


class FusedCastAdamWeightDecay(Primitive):
    """``AdamWeightDecay`` on a float16 gradient scaled by 1 / ``global_norm`` and a float16
    or float32 var, the moments in float32; returns (var, m, v) updated, as documented."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=_flag(use_locking, "use_locking",
                                           "FusedCastAdamWeightDecay"))

    def __call__(self, var: Any, m: Any, v: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any,
                 decay: Any, gradient: Any, global_norm: Any) -> Any:
        grad = F.cast(gradient, m.dtype) / _like(global_norm, m)
        return _adam_weight_decay(var, m, v, *(_like(a, m) for a in (lr, beta1, beta2,
                                                                      epsilon, decay)), grad)


class AdamNoUpdateParam(Primitive):
    """The Adam step's moments, written to m and v, and the change -lr_t m / (sqrt(v) + eps)
    it would add to the parameter (returned, not applied)."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False):
        super().__init__(use_locking=_flag(use_locking, "use_locking", "AdamNoUpdateParam"),
                         use_nesterov=_flag(use_nesterov, "use_nesterov", "AdamNoUpdateParam"))

    def __call__(self, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
                 beta1: Any, beta2: Any, epsilon: Any, gradient: Any) -> Any:
        b1, b2 = _like(beta1, m), _like(beta2, m)
        new_m, new_v = _adam_moments(m, v, gradient, b1, b2)
        _store(m, new_m)
        _store(v, new_v)
        lr_t = _like(lr, m) * F.sqrt(1 - _like(beta2_power, m)) / (1 - _like(beta1_power, m))
        top = new_m * b1 + gradient * (1 - b1) if self.attrs["use_nesterov"] else new_m
        return -lr_t * top / (F.sqrt(new_v) + _like(epsilon, m))


class SGD(Primitive):
    """SGD with momentum: g += weight_decay var; accum = g on the first step (``stat`` > 0,
    then set to 0), else momentum accum + (1 - dampening) g; var -= lr accum (Nesterov: lr
    (g + momentum accum))."""

    def __init__(self, dampening: float = 0.0, weight_decay: float = 0.0,
                 nesterov: bool = False):
        for name, value in (("dampening", dampening), ("weight_decay", weight_decay)):
            _number(value, name, "SGD")
        super().__init__(dampening=dampening, weight_decay=weight_decay,
                         nesterov=_flag(nesterov, "nesterov", "SGD"))

    def __call__(self, parameters: Any, gradient: Any, learning_rate: Any, accum: Any,
                 momentum: Any, stat: Any) -> Any:
        var, attrs = parameters, self.attrs
        mom = _like(momentum, var)
        grad = gradient + var * attrs["weight_decay"] if attrs["weight_decay"] else gradient
        first = F.cast(stat, var.dtype) > 0
        new_accum = F.select(first, grad + accum * 0,
                             accum * mom + grad * (1.0 - attrs["dampening"]))
        _store(accum, new_accum)
        _store(stat, F.zeros_like(stat))
        step = grad + new_accum * mom if attrs["nesterov"] else new_accum
        return _store(var, var - step * _like(learning_rate, var))


class FusedWeightScaleApplyMomentum(Primitive):
    """``ApplyMomentum`` on (g + weight_decay var) loss_scale; returns var."""

    def __call__(self, weight_decay: Any, loss_scale: Any, variable: Any, accumulation: Any,
                 learning_rate: Any, gradient: Any, momentum: Any) -> Any:
        grad = (gradient + variable * _like(weight_decay, variable)) * _like(loss_scale, variable)
        return ApplyMomentum()(variable, accumulation, learning_rate, grad, momentum)


class LARSUpdate(Primitive):
    """The LARS gradient: (g + weight_decay w) c, with the trust ratio c = hyperpara |w| /
    (|g| + weight_decay |w| + epsilon) from the sums of squares ``norm_weight`` and
    ``norm_gradient`` (1 where either norm is 0); ``use_clip``: min(c / lr, 1)."""

    def __init__(self, epsilon: float = 1e-05, hyperpara: float = 0.001,
                 use_clip: bool = False):
        super().__init__(epsilon=_number(epsilon, "epsilon", "LARSUpdate"),
                         hyperpara=_number(hyperpara, "hyperpara", "LARSUpdate"),
                         use_clip=_flag(use_clip, "use_clip", "LARSUpdate"))

    def __call__(self, weight: Any, gradient: Any, norm_weight: Any, norm_gradient: Any,
                 weight_decay: Any, learning_rate: Any) -> Any:
        if tuple(gradient.shape) != tuple(weight.shape):
            raise GraphTypeError(f"For 'LARSUpdate', the shape of 'gradient' {gradient.shape} "
                                 f"must be the shape of 'weight' {weight.shape}.")
        decay = _like(weight_decay, weight)
        w_norm, g_norm = F.sqrt(norm_weight), F.sqrt(norm_gradient)
        ratio = self.attrs["hyperpara"] * w_norm / (g_norm + decay * w_norm +
                                                    self.attrs["epsilon"])
        ratio = F.select((w_norm > 0) & (g_norm > 0), ratio, F.ones_like(ratio))
        if self.attrs["use_clip"]:
            ratio = F.minimum(ratio / _like(learning_rate, weight), 1.0)
        return (gradient + weight * decay) * F.cast(ratio, weight.dtype)


# --- sparse row updates --------------------------------------------------------------------


def _sparse_rows(op: str, var: Any, grad: Any, indices: Any, slots: tuple[Any, ...] = (),
                 index_types: tuple[Any, ...] = (dtypes.int32, dtypes.int64),
                 grad_rows: int | None = None) -> tuple[Any, Any]:
    """The gradient rows summed per row of ``var`` (a tensor of var's shape, 0 where no index
    points) and where an index points (a bool tensor of var's shape). A row named twice takes
    one step with the sum of its gradients, as MindSpore's CPU kernels that merge repeats do;
    ``grad_rows``: the number of indices MindSpore requires (var's rows, for some ops)."""
    if not isinstance(indices, Tensor) or not isinstance(grad, Tensor):
        raise GraphTypeError(f"For '{op}', the 'grad' and 'indices' must be Tensors, but got "
                             f"{type(grad).__name__} and {type(indices).__name__}.")
    if var.dtype not in (dtypes.float16, dtypes.float32) or grad.dtype != var.dtype:
        raise GraphTypeError(f"For '{op}', the 'var' and 'grad' must be float16 or float32 of "
                             f"one dtype, but got {var.dtype} and {grad.dtype}.")
    if indices.dtype not in index_types:
        raise GraphTypeError(f"For '{op}', the 'indices' must be "
                             f"{' or '.join(map(str, index_types))}, but got {indices.dtype}.")
    want = ((indices.shape[0] if indices.ndim == 1 else -1,) + tuple(var.shape[1:]))
    if indices.ndim != 1 or tuple(grad.shape) != want or var.ndim < 1 or (
            grad_rows is not None and indices.shape[0] != grad_rows):
        raise GraphValueError(f"For '{op}', the 'indices' must be 1-D with one entry per row of "
                              f"'grad', and 'grad' of shape (len(indices), *var.shape[1:]), but "
                              f"got 'indices' {indices.shape}, 'grad' {grad.shape} and 'var' "
                              f"{var.shape}.")
    for slot in slots:
        if tuple(slot.shape) != tuple(var.shape):
            raise GraphValueError(f"For '{op}', every slot must have the shape of 'var' "
                                  f"{var.shape}, but got {slot.shape}.")
    rows = F.reshape(indices, (-1, 1))
    summed = A.tensor_scatter_add(F.zeros_like(var), rows, grad)
    count = A.tensor_scatter_add(Tensor(np.zeros(var.shape[0], indices.dtype.np)), rows,
                                 F.ones_like(indices))
    hit = F.reshape(count > 0, (var.shape[0],) + (1,) * (var.ndim - 1))
    return summed, F.broadcast_to(hit, tuple(var.shape))


def _write_rows(hit: Any, *pairs: tuple[Any, Any]) -> tuple[Any, ...]:
    """Each (slot, new value) written where ``hit`` holds; the other rows keep theirs."""
    return tuple(assign(slot, F.select(hit, new, slot)) for slot, new in pairs)


class SparseApplyAdagrad(Primitive):
    """``ApplyAdagrad`` on the rows ``indices`` names, with ``lr`` an attribute; returns
    (var, accum)."""

    def __init__(self, lr: float, update_slots: bool = True, use_locking: bool = False):
        op = type(self).__name__
        super().__init__(lr=_number(lr, "lr", op),
                         update_slots=_flag(update_slots, "update_slots", op),
                         use_locking=_flag(use_locking, "use_locking", op))

    def _eps(self) -> float:
        return 0.0

    def __call__(self, var: Any, accum: Any, grad: Any, indices: Any) -> Any:
        g, hit = _sparse_rows(type(self).__name__, var, grad, indices, (accum,))
        new = accum + g * g if self.attrs["update_slots"] else accum
        denom = F.sqrt(new + self._eps()) if self._eps() else F.sqrt(new)
        return _write_rows(hit, (var, var - g * self.attrs["lr"] / denom), (accum, new))


class SparseApplyAdagradV2(SparseApplyAdagrad):
    """``SparseApplyAdagrad`` dividing by sqrt(accum + epsilon): where MindSpore 2.10's CPU
    kernel adds it (its documentation, and the dense ``ApplyAdagradV2``, add it to
    sqrt(accum))."""

    def __init__(self, lr: float, epsilon: float, use_locking: bool = False,
                 update_slots: bool = True):
        super().__init__(lr, update_slots, use_locking)
        self.attrs["epsilon"] = _number(epsilon, "epsilon", "SparseApplyAdagradV2")

    def _eps(self) -> float:
        return self.attrs["epsilon"]


class SparseApplyProximalAdagrad(Primitive):
    """``ApplyProximalAdagrad`` on the rows ``indices`` names; returns (var, accum)."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=_flag(use_locking, "use_locking", type(self).__name__))

    def _outputs(self, var: Any, accum: Any) -> tuple[Any, ...]:
        return var, accum

    def __call__(self, var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any,
                 indices: Any) -> Any:
        op = type(self).__name__
        g, hit = _sparse_rows(op, var, grad, indices, (accum,), _index_types(op))
        new_var, new_accum = _proximal_adagrad(var, accum, lr, l1, l2, g)
        return self._outputs(*_write_rows(hit, (var, new_var), (accum, new_accum)))


class FusedSparseProximalAdagrad(SparseApplyProximalAdagrad):
    """``SparseApplyProximalAdagrad`` on int32 indices; returns (var, zeros): MindSpore
    documents the second output as a placeholder (its CPU kernel leaves it unwritten)."""

    def _outputs(self, var: Any, accum: Any) -> tuple[Any, ...]:
        return var, F.zeros_like(var)


def _index_types(op: str) -> tuple[Any, ...]:
    """The fused sparse optimizers take int32 indices, the others int32 or int64."""
    return (dtypes.int32,) if op.startswith("Fused") else (dtypes.int32, dtypes.int64)


class SparseApplyFtrl(Primitive):
    """``ApplyFtrl`` on the rows ``indices`` names, with its hyper-parameters attributes;
    returns (var, accum, linear)."""

    def __init__(self, lr: float, l1: float, l2: float, lr_power: float,
                 use_locking: bool = False):
        op = type(self).__name__
        super().__init__(lr=_number(lr, "lr", op), l1=_number(l1, "l1", op),
                         l2=_number(l2, "l2", op), lr_power=_number(lr_power, "lr_power", op),
                         use_locking=_flag(use_locking, "use_locking", op))

    def _outputs(self, var: Any, accum: Any, linear: Any) -> tuple[Any, ...]:
        return var, accum, linear

    def __call__(self, var: Any, accum: Any, linear: Any, grad: Any, indices: Any) -> Any:
        op, a = type(self).__name__, self.attrs
        g, hit = _sparse_rows(op, var, grad, indices, (accum, linear), _index_types(op))
        new = _ftrl(var, accum, linear, g, a["lr"], a["l1"], a["l2"], a["lr_power"],
                    a.get("l2_shrinkage", 0.0))
        return self._outputs(*_write_rows(hit, *zip((var, accum, linear), new)))


class SparseApplyFtrlV2(SparseApplyFtrl):
    """``SparseApplyFtrl`` whose linear term takes the gradient plus 2 l2_shrinkage var."""

    def __init__(self, lr: float, l1: float, l2: float, l2_shrinkage: float, lr_power: float,
                 use_locking: bool = False):
        super().__init__(lr, l1, l2, lr_power, use_locking)
        self.attrs["l2_shrinkage"] = _number(l2_shrinkage, "l2_shrinkage", "SparseApplyFtrlV2")


class FusedSparseFtrl(SparseApplyFtrl):
    """``SparseApplyFtrl`` on int32 indices; returns (var, zeros, zeros): MindSpore documents
    the last two outputs as placeholders (its CPU kernel leaves them unwritten)."""

    def _outputs(self, var: Any, accum: Any, linear: Any) -> tuple[Any, ...]:
        return var, F.zeros_like(var), F.zeros_like(var)


class SparseApplyRMSProp(Primitive):
    """RMSProp on the rows ``indices`` names (one index per row of var, as MindSpore
    requires): ms = rho ms + (1 - rho) g^2; mom = momentum mom + lr g / sqrt(ms + eps);
    var -= mom. Returns (var, ms, mom)."""

    def __init__(self, rho: float, momentum: float, epsilon: float, use_locking: bool = False):
        op = "SparseApplyRMSProp"
        super().__init__(rho=_number(rho, "rho", op), momentum=_number(momentum, "momentum", op),
                         epsilon=_number(epsilon, "epsilon", op),
                         use_locking=_flag(use_locking, "use_locking", op))

    def __call__(self, var: Any, ms: Any, mom: Any, lr: Any, grad: Any, indices: Any) -> Any:
        a = self.attrs
        g, hit = _sparse_rows("SparseApplyRMSProp", var, grad, indices, (ms, mom),
                              grad_rows=var.shape[0])
        new_ms = ms * a["rho"] + g * g * (1 - a["rho"])
        new_mom = mom * a["momentum"] + g * _like(lr, var) / F.sqrt(new_ms + a["epsilon"])
        return _write_rows(hit, (var, var - new_mom), (ms, new_ms), (mom, new_mom))


class SparseApplyAdadelta(Primitive):
    """``ApplyAdadelta`` on the rows ``indices`` names (one index per row of var, as
    MindSpore requires); returns (var, accum, accum_update)."""

    def __init__(self, epsilon: float, use_locking: bool = False):
        op = "SparseApplyAdadelta"
        if _number(epsilon, "epsilon", op) < 0:
            raise GraphValueError(f"For '{op}', the 'epsilon' must be at least 0, but got "
                                  f"{epsilon}.")
        super().__init__(epsilon=epsilon, use_locking=_flag(use_locking, "use_locking", op))

    def __call__(self, var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, grad: Any,
                 indices: Any) -> Any:
        g, hit = _sparse_rows("SparseApplyAdadelta", var, grad, indices, (accum, accum_update),
                              grad_rows=var.shape[0])
        new = _adadelta(var, accum, accum_update, lr, rho, self.attrs["epsilon"], g)
        return _write_rows(hit, *zip((var, accum, accum_update), new))


class FusedSparseAdam(Primitive):
    """Adam with the gradient rows ``indices`` names (0 elsewhere): m and v decay on every
    row; var takes the step on every row (Nesterov: on the named rows only, as MindSpore's
    CPU kernel does). Returns (var, zeros, zeros): the last two are placeholders."""

    lazy = False

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False):
        op = type(self).__name__
        super().__init__(use_locking=_flag(use_locking, "use_locking", op),
                         use_nesterov=_flag(use_nesterov, "use_nesterov", op))

    def __call__(self, var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
                 beta1: Any, beta2: Any, epsilon: Any, gradient: Any, indices: Any) -> Any:
        op = type(self).__name__
        g, hit = _sparse_rows(op, var, gradient, indices, (m, v), (dtypes.int32,))
        b1, b2 = _like(beta1, var), _like(beta2, var)
        new_m, new_v = _adam_moments(m, v, g, b1, b2)
        lr_t = _like(lr, var) * F.sqrt(1 - _like(beta2_power, var)) / (
            1 - _like(beta1_power, var))
        nesterov = self.attrs["use_nesterov"]
        top = new_m * b1 + g * (1 - b1) if nesterov else new_m
        new_var = var - lr_t * top / (F.sqrt(new_v) + _like(epsilon, var))
        if self.lazy:
            _write_rows(hit, (var, new_var), (m, new_m), (v, new_v))
        else:
            assign(m, new_m)
            assign(v, new_v)
            _write_rows(hit, (var, new_var)) if nesterov else assign(var, new_var)
        return var, F.zeros_like(var), F.zeros_like(var)


class FusedSparseLazyAdam(FusedSparseAdam):
    """``FusedSparseAdam`` that updates var, m and v on the rows ``indices`` names only."""

    lazy = True

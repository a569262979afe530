"""``nn.Adam`` and ``nn.AdamWeightDecay``: MindSpore 2.10's arguments, state
(``moment1``, ``moment2``, the beta powers) and update rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.sparse_rows import is_sparse_table
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.optim.optimizer import Optimizer, _in_unit
from msc.ops import functional as F
from msc.ops.composite.base import partial
from msc.ops.function.side_effect_func import assign

# --- Adam --------------------------------------------------------------------------------


def _f32(x: float) -> float:
    """A hyper-parameter as MindSpore holds it: a float32 Tensor."""
    return float(np.float32(x))


def _adam_update(beta1: float, beta2: float, eps: float, nesterov: bool, beta1_power: Any,
                 beta2_power: Any, lr: Any, weight: Any, m: Any, v: Any, grad: Any) -> Any:
    """m, v: moving averages of g and g*g; w -= lr' * m / (sqrt(v) + eps) with the
    bias-corrected step size lr' = lr * sqrt(1 - beta2^t) / (1 - beta1^t) (Nesterov:
    ``beta1 * m + (1 - beta1) * g`` for ``m``). Written as MindSpore's CPU ``Adam`` kernel
    computes it: m += (g - m)(1 - beta1) with 1 - beta1 in float32."""
    rest1, rest2 = _f32(1 - np.float32(beta1)), _f32(1 - np.float32(beta2))
    m_new = m + (grad - m) * rest1
    v_new = v + (grad * grad - v) * rest2
    step_size = lr * F.sqrt(1 - beta2_power) / (1 - beta1_power)
    top = m_new * _f32(beta1) + grad * rest1 if nesterov else m_new
    new_weight = weight - step_size * top / (F.sqrt(v_new) + _f32(eps))
    assign(m, m_new)  # (every read first: one loop computes and stores all three)
    assign(v, v_new)
    return assign(weight, new_weight)


def _lazy_adam_update(beta1: float, beta2: float, eps: float, nesterov: bool,
                      beta1_power: Any, beta2_power: Any, lr: Any, weight: Any, m: Any, v: Any,
                      grad: Any, sparse: bool) -> Any:
    """Lazy Adam of a table whose gradient MindSpore makes sparse (rows gathered by
    ``EmbeddingLookup``/``SparseGatherV2``): only the rows the gradient touches (any
    element nonzero) update their moments and value, as MindSpore's lazy step does on
    the rows of a RowTensor; any other Parameter takes the dense step."""
    if not sparse or weight.ndim == 0:
        return _adam_update(beta1, beta2, eps, nesterov, beta1_power, beta2_power, lr, weight,
                            m, v, grad)
    rest1, rest2 = _f32(1 - np.float32(beta1)), _f32(1 - np.float32(beta2))
    touched = grad != 0
    if weight.ndim > 1:
        touched = F.any(touched, tuple(range(1, weight.ndim)), True)
    m_new = m * _f32(beta1) + grad * rest1
    v_new = v * _f32(beta2) + grad * grad * rest2
    top = m_new * _f32(beta1) + grad * rest1 if nesterov else m_new
    step = lr * F.sqrt(1 - beta2_power) / (1 - beta1_power) * top / (F.sqrt(v_new) + _f32(eps))
    assign(m, F.select(touched, m_new, m))
    assign(v, F.select(touched, v_new, v))
    return assign(weight, weight - F.select(touched, step, F.zeros_like(step)))


def _amsgrad_update(beta1: float, beta2: float, eps: float, beta1_power: Any,
                    beta2_power: Any, lr: Any, weight: Any, m: Any, v: Any, vhat: Any,
                    grad: Any) -> Any:
    """Adam with the largest ``v`` seen so far (``vhat``) in the denominator."""
    m_new = m * beta1 + grad * (1 - beta1)
    v_new = v * beta2 + grad * grad * (1 - beta2)
    vhat_new = F.maximum(vhat, v_new)
    step_size = lr * F.sqrt(1 - beta2_power) / (1 - beta1_power)
    new_weight = weight - step_size * m_new / (F.sqrt(vhat_new) + eps)
    assign(m, m_new)  # (every read first: one loop computes and stores all four)
    assign(v, v_new)
    assign(vhat, vhat_new)
    return assign(weight, new_weight)


class Adam(Optimizer):
    """``nn.Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
    use_amsgrad=False, use_lazy=False, use_offload=False)``; its state:
    ``moment1.<name>``, ``moment2.<name>`` (and ``vhat.<name>`` with ``use_amsgrad``),
    ``beta1_power``, ``beta2_power``. ``use_lazy`` updates only the touched rows of the
    tables whose gradient MindSpore makes sparse (``common/sparse_rows.py``) and takes the
    dense step elsewhere, as MindSpore does; ``use_offload`` (the step on the host) is the
    dense step."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0, use_amsgrad: bool = False, **kwargs: Any):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = type(self).__name__
        if set(kwargs) - {"use_lazy", "use_offload"}:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs, supported keys are "
                           f"'use_lazy' and'use_offload', but got {kwargs.keys()}.")
        self.use_lazy = kwargs.get("use_lazy", False)
        self.use_offload = kwargs.get("use_offload", False)
        for flag, value in (("use_locking", use_locking), ("use_nesterov", use_nesterov),
                            ("use_amsgrad", use_amsgrad), ("use_lazy", self.use_lazy),
                            ("use_offload", self.use_offload)):
            if not isinstance(value, bool):
                raise GraphTypeError(f"For '{name}', the type of '{flag}' should be bool, but "
                                     f"got {type(value).__name__}.")
        if self.use_lazy and self.use_offload:
            raise GraphValueError("For 'Adam', 'use_lazy' and 'use_offload' can not both be "
                                  "True.")
        if use_amsgrad and (self.use_lazy or self.use_offload):
            raise GraphValueError("For 'Adam', 'use_amsgrad' can not be True while 'use_lazy' "
                                  "or 'use_offload' is True.")
        self.beta1, self.beta2 = _in_unit(beta1, "beta1", name), _in_unit(beta2, "beta2", name)
        self.eps = float(eps)
        if self.eps <= 0:
            raise GraphValueError(f"For '{name}', the 'eps' must be greater than 0, but got "
                                  f"{eps}.")
        self.use_nesterov, self.use_locking = use_nesterov, use_locking
        self.use_amsgrad = use_amsgrad
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        if use_amsgrad:
            self.vhat = self.parameters.clone(prefix="vhat", init="zeros")
        self.beta1_power = Parameter(Tensor(np.float32(1.0)), name="beta1_power")
        self.beta2_power = Parameter(Tensor(np.float32(1.0)), name="beta2_power")

    @property
    def sparse_rows(self) -> tuple[bool, ...]:
        """Which Parameters MindSpore gives a sparse gradient (read when a step is built:
        ``SparseGatherV2`` marks its table when the network runs)."""
        return tuple(is_sparse_table(p) for p in self.parameters)

    def construct(self, gradients: Any) -> Any:
        grads = self.prepared(gradients)
        lr = self.get_lr()
        self.step()
        b1 = self.beta1_power * self.beta1
        b2 = self.beta2_power * self.beta2
        assign(self.beta1_power, b1)
        assign(self.beta2_power, b2)
        if self.use_amsgrad:
            update = partial(_amsgrad_update, self.beta1, self.beta2, self.eps, b1, b2)
            return self.map_update(update, lr, self.parameters, self.moment1, self.moment2,
                                   self.vhat, grads)
        if self.use_lazy:
            update = partial(_lazy_adam_update, self.beta1, self.beta2, self.eps,
                             self.use_nesterov, b1, b2)
            return self.map_update(update, lr, self.parameters, self.moment1, self.moment2,
                                   grads, self.sparse_rows)
        update = partial(_adam_update, self.beta1, self.beta2, self.eps, self.use_nesterov,
                         b1, b2)
        return self.map_update(update, lr, self.parameters, self.moment1, self.moment2, grads)


class LazyAdam(Adam):
    """``nn.LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``: Adam that
    updates only the rows a sparse gradient touches; with dense gradients, Adam."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: Any = 0.0, loss_scale: float = 1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale, use_lazy=True)


class AdamOffload(Adam):
    """``nn.AdamOffload(params, ...)``: Adam computed on the host, which is where msc's
    CPU targets compute anyway."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: Any = 0.0, loss_scale: float = 1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)


def _adam_weight_decay_update(beta1: float, beta2: float, eps: float, lr: Any, decay: Any,
                              weight: Any, m: Any, v: Any, grad: Any, flag: bool) -> Any:
    """No bias correction; the decay is added to the step, not to the gradient."""
    m_new = m * beta1 + grad * (1 - beta1)
    v_new = v * beta2 + grad * grad * (1 - beta2)
    step = m_new / (F.sqrt(v_new) + eps)
    if flag:
        step = step + weight * F.cast(decay, weight.dtype)
    new_weight = weight - lr * step
    assign(m, m_new)  # (every read first: one loop computes and stores all three)
    assign(v, v_new)
    return assign(weight, new_weight)


class AdamWeightDecay(Optimizer):
    """``nn.AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)`` (decoupled weight decay); its state: ``adam_m.<name>``,
    ``adam_v.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: Any = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1 = _in_unit(beta1, "beta1", "AdamWeightDecay")
        self.beta2 = _in_unit(beta2, "beta2", "AdamWeightDecay")
        self.eps = float(eps)
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")

    def construct(self, gradients: Any) -> Any:
        decay = self.get_weight_decay()
        lr = self.get_lr()
        self.step()
        decays = decay if self.is_group else (decay,) * self.param_length
        update = partial(_adam_weight_decay_update, self.beta1, self.beta2, self.eps)
        return self.map_update(update, lr, decays, self.parameters, self.moments1,
                               self.moments2, gradients, self.decay_flags)


__all__ = ["Adam", "AdamWeightDecay", "LazyAdam", "AdamOffload"]

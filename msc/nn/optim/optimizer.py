"""``nn.Optimizer``: what every optimizer of ``msc.nn`` shares, with MindSpore 2.10's
arguments and state names (``SGD``, ``Momentum``, ``Adam`` and ``AdamWeightDecay`` each
have a module of their own).

An optimizer is a Cell whose ``construct(gradients)`` maps one update function over the
parameters, their state and the gradients with ``HyperMap``, writing every Parameter
with ``ops.assign``, as MindSpore's optimizers do; in a graph the writes are effects in
program order, so a train step updates the weights in place.

The learning rate is a number (held in the Parameter ``learning_rate``), a
``LearningRateSchedule`` or a 1-D sequence of per-step rates; the last two are evaluated
at ``global_step`` before the step increments it. ``params`` may be parameter groups
(dicts with ``params``, ``lr``, ``weight_decay``, ``grad_centralization``, or one
``order_params``), as MindSpore's are.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from msc.common.tensor import Parameter, ParameterTuple, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.nn.layer.container import CellList
from msc.nn.learning_rate_schedule import LearningRateSchedule
from msc.ops import functional as F
from msc.ops.composite.base import HyperMap, Map, partial
from msc.ops.function.side_effect_func import assign_add
from msc.ops.operations.other_ops import AssignAdd

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _non_negative(value: Any, arg: str, cls: str) -> float:
    if not _is_number(value) or value < 0:
        raise GraphValueError(f"For '{cls}', the '{arg}' must be float and must >= 0, but got "
                              f"'{value}' with type '{type(value).__name__}'.")
    return float(value)


def _in_unit(value: Any, arg: str, cls: str) -> float:
    if not _is_number(value) or not 0 <= value < 1:
        raise GraphValueError(f"For '{cls}', the '{arg}' must be in range [0.0, 1.0), but "
                              f"got {value!r}.")
    return float(value)


def _decay_tensor(decay: Any) -> Any:
    """A fixed weight decay as MindSpore holds it (a float32 Tensor); a schedule as it is."""
    return decay if isinstance(decay, Cell) else Tensor(np.float32(decay))


def _parameter_list(parameters: Any, what: str) -> list[Any]:
    if parameters is None:
        raise GraphValueError(f"For 'Optimizer', the argument {what} can not be None.")
    if not isinstance(parameters, Iterable):
        raise GraphTypeError(f"For 'Optimizer', the argument {what} must be Iterable type, "
                             f"but got {type(parameters)}.")
    params = list(parameters)
    if not params:
        raise GraphValueError(f"For 'Optimizer', the argument {what} must not be empty.")
    return params


class _ConstantLR(LearningRateSchedule):
    """A fixed rate among dynamic group rates: the Parameter's value at every step."""

    def __init__(self, learning_rate: Parameter):
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step: Any) -> Any:
        return self.learning_rate + 0.0


class _ListLR(LearningRateSchedule):
    """Per-step rates: the rate of step i is ``rates[i]``; past the end is an error, as
    MindSpore's gather of the step index is."""

    def __init__(self, rates: Tensor, name: str):
        super().__init__()
        self.learning_rate = Parameter(rates, name)

    def construct(self, global_step: Any) -> Any:
        return F.gather(self.learning_rate, global_step, 0)


class Optimizer(Cell):
    """The parts every optimizer shares: ``parameters`` (or parameter groups),
    ``learning_rate``, ``weight_decay`` (a number or a Cell of the step) and
    ``loss_scale`` (gradients are divided by it), and the ``global_step`` counter."""

    def __init__(self, learning_rate: Any, parameters: Any, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0):
        super().__init__(auto_prefix=False)
        params = _parameter_list(parameters, "parameters")
        if not all(isinstance(p, Parameter) for p in params) and \
                not all(isinstance(p, dict) for p in params):
            raise GraphTypeError("For 'Optimizer', all elements of the argument 'parameters' "
                                 "must be 'Parameter' or 'dict', please check the "
                                 "'parameters'.")
        if _is_number(loss_scale):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float):
            raise GraphTypeError(f"For '{self.cls_name}', the type of 'loss_scale' should be "
                                 f"'float', but got type '{type(loss_scale).__name__}'.")
        if loss_scale <= 0:
            raise GraphValueError(f"For '{self.cls_name}', the 'loss_scale' must be greater "
                                  f"than 0, but got {loss_scale}.")
        self.loss_scale = loss_scale
        self.need_scale = loss_scale != 1.0
        self.reciprocal_scale = 1.0 / loss_scale
        self.dynamic_lr = self.dynamic_weight_decay = False
        self.is_group = isinstance(params[0], dict)
        self.is_group_lr = False
        self.global_step = Parameter(Tensor(np.array([0], np.int32)), name="global_step")
        self.global_step_increase_tensor = Tensor(np.array([1], np.int32))
        lr = self._preprocess_lr(learning_rate)
        if self.is_group:
            params, lrs, decays, centralize = self._groups(params, lr, weight_decay)
            self.decay_flags = tuple(isinstance(d, Cell) or d > 0 for d in decays)
            self.grad_centralization_flags = tuple(centralize)
            self.weight_decay = tuple(decays)
            self.exec_weight_decay = any(self.decay_flags)
        else:
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                     for p in params)
            self.weight_decay = self._preprocess_weight_decay(weight_decay)
            self.exec_weight_decay = self.dynamic_weight_decay or self.weight_decay > 0
        if self.is_group_lr:
            self.group_lr = lrs
            self.learning_rate = CellList([_ConstantLR(x) if isinstance(x, Parameter) else x
                                           for x in lrs], auto_prefix=False) \
                if self.dynamic_lr else ParameterTuple(lrs)
        else:
            self.learning_rate = self._build_lr(lr, "learning_rate")
        self.parameters = ParameterTuple(params)
        self._parameters = self.parameters
        self.param_length = len(params)
        self.hyper_map = HyperMap()
        # NOTE: what MindSpore's optimizers hold and subclasses written for MindSpore read
        # (MindCV's Adan, AdamW, Lion): fixed weight decays as float32 Tensors (a
        # MultitypeFuncGraph registered for "Tensor" takes them), ``map_``, ``assignadd``.
        self.weight_decay = tuple(_decay_tensor(d) for d in self.weight_decay) \
            if self.is_group else _decay_tensor(self.weight_decay)
        self.map_ = Map()
        self.assignadd = AssignAdd()
        self.optim_filter = (True,) * self.param_length  # every Parameter updates here
        self.param_rank = None
        self.use_parallel = False
        self._target = "CPU"
        self._unique = True

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    @property
    def target(self) -> str:
        """Where the update runs: always "CPU" (msc updates on the host)."""
        return self._target

    @target.setter
    def target(self, value: str) -> None:
        raise NotImplementedError  # an optimizer with a host form sets ``_set_base_target``

    def _set_base_target(self, value: str) -> None:
        if not isinstance(value, str):
            raise GraphTypeError("For 'Optimizer', the property 'target' must be string, but "
                                 f"got {type(value)}")
        if value not in ("CPU", "Ascend", "GPU"):
            raise GraphValueError("For 'Optimizer', the property 'target' must be one of "
                                  f"['CPU', 'Ascend' ,'GPU'], but got {value}")
        if value != "CPU":
            raise GraphValueError("For 'Optimizer', the property 'target' cannot be set to "
                                  "'GPU' or 'Ascend' in the 'CPU' environment.")
        self._target = value

    def _is_dynamic_lr_or_weight_decay(self) -> bool:
        return self.dynamic_lr or self.dynamic_weight_decay

    def _grad_sparse_indices_deduplicate(self, gradients: Any) -> Any:
        """The gradients as they are: msc's sparse gradients already add repeated rows."""
        return gradients

    # --- arguments ----------------------------------------------------------------------

    def _preprocess_lr(self, value: Any) -> Any:
        """A float, a 0-d float32 Tensor (both fixed), a 1-D float32 Tensor of per-step
        rates or a schedule (both dynamic: ``dynamic_lr`` is set)."""
        if _is_number(value) or isinstance(value, bool):
            return _non_negative(float(value), "learning rate", self.cls_name)
        if isinstance(value, Tensor) and value.ndim == 0:
            return Tensor(value.asnumpy().astype(np.float32))
        if isinstance(value, LearningRateSchedule):
            self.dynamic_lr = True
            return value
        if isinstance(value, str):
            raise GraphTypeError(f"For 'Optimizer', the argument 'learning_rate' must be int, "
                                 f"float, Tensor, Iterable or LearningRateSchedule, but got "
                                 f"{type(value)}.")
        if isinstance(value, (Tensor, np.ndarray)) or isinstance(value, Iterable):
            rates = np.asarray(value.asnumpy() if isinstance(value, Tensor) else list(value),
                               np.float32)
            if rates.ndim != 1:
                raise GraphValueError(f"For 'Optimizer', if 'learning_rate' is Tensor type, then "
                                      f"the dimension of it should be 0 or 1, but got "
                                      f"{rates.ndim}.")
            self.dynamic_lr = True
            return Tensor(rates)
        raise GraphTypeError(f"For 'Optimizer', the argument 'learning_rate' must be int, "
                             f"float, Tensor, Iterable or LearningRateSchedule, but got "
                             f"{type(value)}.")

    def _build_lr(self, lr: Any, name: str) -> Any:
        """A fixed rate becomes a Parameter, per-step rates a ``_ListLR``."""
        if isinstance(lr, float):
            return Parameter(Tensor(np.float32(lr)), name)
        if isinstance(lr, Tensor) and lr.ndim == 0:
            return Parameter(lr, name)
        if isinstance(lr, Tensor):
            return _ListLR(lr, name)
        return lr

    def _preprocess_weight_decay(self, value: Any) -> Any:
        """A float (times the loss scale, which the gradient scaling then divides out) or
        a Cell of the step."""
        if isinstance(value, Cell):
            self.dynamic_weight_decay = True
            return value
        if not isinstance(value, (int, float)):
            raise GraphTypeError("For 'Optimizer', the argument 'Weight_decay' must be int, "
                                 f"float or Cell.but got {type(value)}")
        return _non_negative(float(value), "weight_decay", self.cls_name) * self.loss_scale

    def _groups(self, groups: list[dict], lr: Any,
                weight_decay: Any) -> tuple[list, list, list, list]:
        """The parameters of the groups in order, and each one's learning rate, weight
        decay and gradient-centralisation flag."""
        order = None
        for group in groups:
            unknown = [k for k in group if k not in _GROUP_KEYS]
            if unknown:
                raise KeyError(f"For 'Optimizer', the key in group params must be one of in "
                               f"{list(_GROUP_KEYS)}, but got {unknown}.")
            if "order_params" in group:
                if len(group) > 1:
                    raise GraphValueError("For 'Optimizer', the order params dict in group "
                                          "parameters should only include the "
                                          f"'order_params' key, but got {group.keys()}.")
                if not isinstance(group["order_params"], Iterable):
                    raise GraphTypeError("For 'Optimizer', the value of 'order_params' in "
                                         "group parameters should be Iterable type, but got "
                                         f"{type(group['order_params'])}.")
                order = list(group["order_params"])
                continue
            for index, param in enumerate(_parameter_list(group["params"], "group `params`")):
                if not isinstance(param, Parameter):
                    raise GraphTypeError("For 'Optimizer', the element in group parameters "
                                         f"must be Parameter type, but got {type(param)} at "
                                         f"index {index}.")
        group_rates = {i: self._preprocess_lr(g["lr"]) for i, g in enumerate(groups)
                       if "lr" in g}
        self.is_group_lr = bool(group_rates)
        lengths = {r.size for r in [lr, *group_rates.values()]
                   if isinstance(r, Tensor) and r.ndim == 1}
        if len(lengths) > 1:
            raise GraphValueError("For 'Optimizer', the Tensor type dynamic learning rate in "
                                  "group must be the same size as the argument "
                                  "'learning_rate'.")
        default_lr = self._build_lr(lr, "learning_rate")
        rows: list[tuple[Any, Any, Any, bool]] = []
        for i, group in enumerate(groups):
            if "order_params" in group:
                continue
            rate = self._build_lr(group_rates[i], f"learning_rate_group_{i}") \
                if i in group_rates else default_lr
            decay = self._preprocess_weight_decay(group.get("weight_decay", weight_decay))
            centralize = group.get("grad_centralization", False)
            if not isinstance(centralize, bool):
                raise GraphTypeError("For 'Optimizer', the 'gradients_centralization' must be "
                                     f"bool type, but got {type(centralize)}.")
            for param in group["params"]:
                if any(param.name == row[0].name for row in rows):
                    raise RuntimeError(f"For 'Optimizer', the {param.name} parameter already "
                                       "exists, it does not support repeated setting. Please "
                                       "check whether the optimizer parameter has been set "
                                       "multiple times.")
                rows.append((param, rate, decay, centralize))
        if order:
            if len(order) != len(rows):
                raise GraphValueError("For 'Optimizer',the length of order parameters must be "
                                      "the same as the length of group parameters, but got "
                                      f"order parameters' length {len(order)}, group "
                                      f"parameters' length {len(rows)}.")
            names = [p.name for p in order]
            missing = [row[0].name for row in rows if row[0].name not in names]
            if missing:
                raise GraphValueError(f"'{missing[0]}' is not in list")
            rows.sort(key=lambda row: names.index(row[0].name))
        return [list(column) for column in zip(*rows)]

    # --- what a construct calls -----------------------------------------------------------

    def get_lr(self) -> Any:
        """The learning rate of the current step: a Parameter (fixed) or the schedule's
        value; with group rates, a tuple with one per parameter."""
        if not self.dynamic_lr:
            return self.learning_rate
        if self.is_group_lr:
            return tuple(rate(self.global_step).reshape(()) for rate in self.learning_rate)
        return self.learning_rate(self.global_step).reshape(())

    def get_weight_decay(self) -> Any:
        """The weight decay of the current step (a tuple per parameter with groups)."""
        if not self.dynamic_weight_decay:
            return self.weight_decay
        if self.is_group:
            return tuple(d(self.global_step) * self.loss_scale if isinstance(d, Cell) else d
                         for d in self.weight_decay)
        return self.weight_decay(self.global_step) * self.loss_scale

    def get_lr_parameter(self, param: Any) -> Any:
        """The learning rate (Parameter, or schedule when dynamic) of ``param`` or of each
        Parameter in a list."""
        if not isinstance(param, (Parameter, list)):
            raise GraphTypeError("For 'get_lr_parameter', the 'param' must be 'Parameter' or "
                                 f"'list' type, but got {type(param)}.")
        ids = [id(p) for p in self.parameters]
        rates = []
        for p in param if isinstance(param, list) else [param]:
            if id(p) not in ids:
                raise GraphValueError(f"For 'get_lr_parameter', the parameter {p.name} is not "
                                      "in optimizer, please check whether the argument "
                                      "'param' is correct.")
            rate = self.learning_rate[ids.index(id(p))] if self.is_group_lr \
                else self.learning_rate
            rates.append(rate.learning_rate if isinstance(rate, (_ConstantLR, _ListLR))
                         else rate)
        return rates if isinstance(param, list) else rates[0]

    def decay_weight(self, gradients: Any) -> tuple[Any, ...]:
        """Gradients plus ``weight_decay * weight`` where the decay flags allow (L2)."""
        if not self.exec_weight_decay:
            return tuple(gradients)
        decay = self.get_weight_decay()
        decays = decay if self.is_group else (decay,) * self.param_length
        return tuple(g + p * F.cast(d, p.dtype) if flag else g for g, p, d, flag
                     in zip(gradients, self.parameters, decays, self.decay_flags))

    def gradients_centralization(self, gradients: Any) -> tuple[Any, ...]:
        """With a group's ``grad_centralization``: a gradient of rank >= 2 whose axis 1 is
        a multiple of 16 less its mean over the axes after the first."""
        if not self.is_group:
            return tuple(gradients)
        return tuple(g - g.mean(axis=tuple(range(1, g.ndim)), keep_dims=True)
                     if flag and g.ndim > 1 and g.shape[1] % 16 == 0 else g
                     for g, flag in zip(gradients, self.grad_centralization_flags))

    def scale_grad(self, gradients: Any) -> tuple[Any, ...]:
        """Gradients divided by the loss scale."""
        if not self.need_scale:
            return tuple(gradients)
        return tuple(g * self.reciprocal_scale for g in gradients)

    def flatten_gradients(self, gradients: Any) -> Any:
        return gradients

    def prepared(self, gradients: Any) -> tuple[Any, ...]:
        """Decayed, centralised and unscaled gradients, in MindSpore's order."""
        return self.scale_grad(self.gradients_centralization(self.decay_weight(gradients)))

    def step(self) -> None:
        assign_add(self.global_step, self.global_step_increase_tensor)

    def map_update(self, update: Any, lr: Any, *columns: Any) -> Any:
        """``update(lr, *row)`` for each parameter's row of ``columns``; ``lr`` is one per
        parameter with group rates."""
        if self.is_group_lr:
            return self.hyper_map(update, lr, *columns)
        return self.hyper_map(partial(update, lr), *columns)



def opt_init_args_register(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate an optimizer's ``__init__`` so that, once it has run, the optimizer holds
    the arguments it was built with, as MindSpore's decorator of the same name records
    them (its parallel optimizer reads them; msc keeps them for code that does):
    ``init_params`` is ``{"params": params}`` and ``init_args`` the other arguments, a
    Tensor learning rate as a list.

    Example:
        >>> class MySGD(nn.Optimizer):
        ...     @opt_init_args_register
        ...     def __init__(self, params, learning_rate=0.1):
        ...         super().__init__(learning_rate, params)
    """
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(list(bound.arguments.items())[1:])
        fn(self, *args, **kwargs)
        if "params" in arguments:
            self.init_params = {"params": arguments.pop("params")}
        if isinstance(arguments.get("learning_rate"), Tensor):
            arguments["learning_rate"] = arguments["learning_rate"].asnumpy().tolist()
        self.init_args = arguments

    return init


__all__ = ["Optimizer"]

"""Training wrappers of ``msc.nn``: ``WithLossCell``, ``WithEvalCell``, ``WithGradCell``,
``TrainOneStepCell``, ``ForwardValueAndGrad`` and ``ParameterUpdate``, with MindSpore
2.10's arguments and outputs.

``TrainOneStepCell`` differentiates its network once per step (the forward runs once, its
value is the loss) and hands the weight gradients to the optimizer; compiled, the whole
step is one graph whose writes update the weights and optimizer state in place.
"""

from __future__ import annotations

from typing import Any

from msc.common.tensor import Parameter, ParameterTuple
from msc.errors import GraphTypeError, GraphValueError
from msc.nn.cell import Cell
from msc.ops.function.grad_func import _Differentiated, _Want, _weights
from msc.ops.function.side_effect_func import depend

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "TrainOneStepCell",
           "ForwardValueAndGrad", "ParameterUpdate"]


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``."""

    def __init__(self, backbone: Cell, loss_fn: Any):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Any, label: Any) -> Any:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class WithEvalCell(Cell):
    """``(loss, outputs, label)`` of ``backbone(data)`` for evaluation; ``add_cast_fp32``
    computes the loss on float32 outputs and labels (for a float16 network)."""

    def __init__(self, network: Cell, loss_fn: Any, add_cast_fp32: bool = False):
        super().__init__(auto_prefix=False)
        if not isinstance(add_cast_fp32, bool):
            raise GraphTypeError(f"For 'WithEvalCell', the 'add_cast_fp32' must be bool, but got "
                                 f"{type(add_cast_fp32).__name__}.")
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data: Any, label: Any) -> Any:
        from msc import dtype as mstype
        from msc.ops import functional as F

        outputs = self._network(data)
        if self.add_cast_fp32:
            if label.is_floating_point():  # MindSpore's mixed_precision_cast leaves ints
                label = F.cast(label, mstype.float32)
            outputs = F.cast(outputs, mstype.float32)
        return self._loss_fn(outputs, label), outputs, label


class WithGradCell(Cell):
    """The gradients of ``loss_fn(network(data), label)`` (or of ``network(*inputs)`` alone
    without a ``loss_fn``) with respect to the network's trainable parameters, a tuple in
    their order; ``sens`` scales them (ones by default)."""

    def __init__(self, network: Cell, loss_fn: Any = None, sens: Any = None):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()
        self.grad = _Differentiated(self.network_with_loss,
                                    _Want(None, tuple(self.weights), sens=sens is not None))

    def construct(self, *inputs: Any) -> Any:
        if self.sens is None:
            return self.grad(*inputs)
        return self.grad(*inputs, self.sens)


class ParameterUpdate(Cell):
    """Writes ``x`` into the Parameter given at construction and returns ``x``."""

    def __init__(self, param: Parameter):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise GraphTypeError(f"For 'ParameterUpdate', 'param' must be 'Parameter', but got "
                                 f"{type(param)}.")
        self._param = param

    def construct(self, x: Any) -> Any:
        from msc.ops.function.side_effect_func import assign

        assign(self._param, x)
        return x


class TrainOneStepCell(Cell):
    """One training step: the loss of ``network(*inputs)``, its gradients with respect to
    the optimizer's parameters (times ``sens``), and the optimizer's update; returns the
    loss, or ``(loss, {name: gradient})`` with ``return_grad``.

    The attributes are MindSpore's, so subclasses that write their own ``construct``
    work: ``self.grad`` is ``GradOperation(get_by_list=True, sens_param=True)``,
    ``self.grad_no_sens`` the same without ``sens_param``, ``self.sens`` the sensitivity
    (1.0 when None was given, ``sense_flag`` then False), ``self.grad_reducer`` the
    identity (one device). The step itself runs the forward once, its value the loss."""

    def __init__(self, network: Cell, optimizer: Cell, sens: Any = None,
                 return_grad: bool = False):
        super().__init__(auto_prefix=False)
        from msc.nn.layer.basic import Identity
        from msc.ops.composite.base import GradOperation

        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = ParameterTuple(optimizer.parameters)
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = GradOperation(get_by_list=True)
        if sens is not None and sens == 0:
            raise GraphValueError("The input argument of 'sens' can not be 0.")
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        if return_grad:
            self.weights_name = [p.name for p in self.weights]
        reducer = _data_parallel_reducer(network, self.weights)
        self.reducer_flag = reducer is not None
        self.grad_reducer = Identity() if reducer is None else reducer
        self._value_and_grad = _Differentiated(network, _Want(None, tuple(self.weights),
                                                              value=True))
        self._named_grads = True  # False while called at the top level (see __call__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """With ``return_grad`` at the top level the compiled step returns the gradients
        as a tuple (a graph returns no dict) and they are named here."""
        from msc.frontend.builder import current_builder

        if not self.return_grad or current_builder() is not None:
            return super().__call__(*args, **kwargs)
        self._named_grads = False
        try:
            loss, grads = super().__call__(*args, **kwargs)
        finally:
            self._named_grads = True
        return loss, dict(zip(self.weights_name, grads))

    def construct(self, *inputs: Any) -> Any:
        loss, grads = self._value_and_grad(*inputs)
        if self.sense_flag:  # the sensitivity scales every gradient (they are linear in it)
            grads = tuple(g * self.sens for g in grads)
        grads = self.grad_reducer(grads)
        loss = depend(loss, self.optimizer(grads))
        if self.return_grad:
            return loss, (dict(zip(self.weights_name, grads)) if self._named_grads else grads)
        return loss


def _data_parallel_reducer(network: Cell, weights: Any) -> Any:
    """Under ``ParallelMode.DATA_PARALLEL``: every rank takes rank 0's weights now, and
    the step reduces its gradients with a ``DistributedGradReducer``; else None."""
    from msc.context import ParallelMode, get_auto_parallel_context

    if get_auto_parallel_context("parallel_mode") != ParallelMode.DATA_PARALLEL:
        return None
    from msc.nn.wrap.grad_reducer import DistributedGradReducer, broadcast_parameters

    broadcast_parameters(list(network.get_parameters()))
    return DistributedGradReducer(weights, get_auto_parallel_context("gradients_mean"),
                                  get_auto_parallel_context("device_num"))


class ForwardValueAndGrad(Cell):
    """``(network(*inputs), gradients)``, the gradients chosen as ``GradOperation``'s
    ``get_all``/``get_by_list`` choose them (the first input's alone by default); with
    ``sens_param`` the last input is the sensitivity."""

    def __init__(self, network: Cell, weights: Any = None, get_all: bool = False,
                 get_by_list: bool = False, sens_param: bool = False):
        super().__init__(auto_prefix=False)
        if get_by_list and weights is None:
            raise GraphTypeError("For 'ForwardValueAndGrad', when 'get_by_list' is True, "
                                 "'weights' must not be None.")
        self.network = network
        if get_by_list and isinstance(weights, Parameter):
            raise GraphTypeError("For 'ForwardValueAndGrad', when 'get_by_list' is set to True, "
                                 "the argument 'weights' must be Parameters array, but got "
                                 "'Parameter'.")
        params = _weights(weights)[0] if get_by_list else None
        positions: Any = "all" if get_all else (None if get_by_list else "first")
        self.grad = _Differentiated(network, _Want(positions, params, value=True,
                                                   sens=sens_param))

    def construct(self, *inputs: Any) -> Any:
        return self.grad(*inputs)

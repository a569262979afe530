"""Training wrappers of ``msc.nn``: ``WithLossCell``, ``TrainOneStepCell`` and
``ForwardValueAndGrad``, with MindSpore 2.10's arguments and outputs.

``TrainOneStepCell`` differentiates its network once per step (the forward runs once, its
value is the loss) and hands the weight gradients to the optimizer; compiled, the whole
step is one graph whose writes update the weights and optimizer state in place.
"""

from __future__ import annotations

from typing import Any

from msc.common.tensor import ParameterTuple
from msc.errors import GraphTypeError
from msc.nn.cell import Cell
from msc.ops.function.grad_func import _Differentiated, _Want, _weights
from msc.ops.function.side_effect_func import depend

__all__ = ["WithLossCell", "TrainOneStepCell", "ForwardValueAndGrad"]


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


class TrainOneStepCell(Cell):
    """One training step: the loss of ``network(*inputs)``, its gradients with respect to
    the optimizer's parameters (times ``sens``), and the optimizer's update; returns the
    loss."""

    def __init__(self, network: Cell, optimizer: Cell, sens: float = 1.0):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = ParameterTuple(optimizer.parameters)
        self.sens = float(sens)
        self.grad = _Differentiated(network, _Want(None, tuple(self.weights), value=True))
        self.grad_reducer = _data_parallel_reducer(network, self.weights)

    def construct(self, *inputs: Any) -> Any:
        loss, grads = self.grad(*inputs)
        if self.sens != 1.0:  # the sensitivity scales every gradient (they are linear in it)
            grads = tuple(g * self.sens for g in grads)
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        return depend(loss, self.optimizer(grads))


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
        params = _weights(weights)[0] if get_by_list else None
        positions: Any = "all" if get_all else (None if get_by_list else 0)
        self.grad = _Differentiated(network, _Want(positions, params, value=True,
                                                   sens=sens_param))

    def construct(self, *inputs: Any) -> Any:
        return self.grad(*inputs)

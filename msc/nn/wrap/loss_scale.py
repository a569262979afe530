"""Loss-scaled training of ``msc.nn``: ``TrainOneStepWithLossScaleCell`` and the update
cells that adjust its scale (``DynamicLossScaleUpdateCell``, ``FixedLossScaleUpdateCell``),
with MindSpore 2.10's arguments, state names and outputs.

The step differentiates the loss with the scale as its sensitivity, so the backward pass
runs on scaled values (what keeps float16 gradients from underflowing), divides the
gradients by the scale, and updates the weights only when every gradient is finite.
Overflow is detected as on MindSpore's GPU target: a gradient with an inf or a NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc import dtype as mstype
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.calls import interpreted
from msc.nn.cell import Cell
from msc.nn.wrap.cell_wrapper import TrainOneStepCell
from msc.ops import functional as F
from msc.ops.composite.base import HyperMap, partial
from msc.ops.function.grad_func import _Differentiated, _Want
from msc.ops.function.side_effect_func import assign, depend

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]


class DynamicLossScaleUpdateCell(Cell):
    """``construct(loss_scale, overflow)``: on overflow the scale (a Parameter) is divided
    by ``scale_factor`` (not below 1); after ``scale_window`` steps without one it is
    multiplied by it. Returns ``overflow``."""

    def __init__(self, loss_scale_value: float, scale_factor: float, scale_window: int):
        super().__init__()
        self.scale_window = Tensor(np.int32(scale_window))
        self.scale_factor = Tensor(np.float32(scale_factor))
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.int32(1)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.int32(0)),
                                            name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(np.float32(1.0))

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Any, overflow: Any) -> Any:
        on_overflow = F.select(overflow, F.maximum(loss_scale * F.reciprocal(self.scale_factor),
                                                   self.minimum_loss_scale), loss_scale)
        should_inc = self.scale_window <= self.cur_iter - self.last_overflow_iter
        last_iter = F.select(F.logical_or(overflow, should_inc), self.cur_iter,
                             self.last_overflow_iter)
        written = assign(self.last_overflow_iter, last_iter)
        grow = F.logical_and(should_inc, F.logical_not(overflow))
        assign(loss_scale, F.select(grow, on_overflow * self.scale_factor, on_overflow))
        assign(self.cur_iter, depend(self.cur_iter + 1, written))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A constant scale: ``construct(loss_scale, overflow)`` returns ``overflow``."""

    def __init__(self, loss_scale_value: float):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, _: Any, overflow: Any) -> Any:
        return overflow


class _ScaledLoss(Cell):
    """``(network(*inputs) * scale, network(*inputs))``: differentiated with the second
    output as an auxiliary one, its gradients are those with the scale as sensitivity."""

    def __init__(self, network: Cell):
        super().__init__(auto_prefix=False)
        self.network = network

    def construct(self, *args: Any) -> Any:
        *inputs, scale = args
        loss = self.network(*inputs)
        return loss * F.cast(scale, loss.dtype), loss


def _grad_scale(scale: Any, grad: Any) -> Any:
    return grad * F.cast(F.reciprocal(scale), grad.dtype)


def _finite(grad: Any) -> Any:
    return F.all(F.isfinite(grad))


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """One loss-scaled training step; ``scale_sense`` is an update cell (its scale lives
    in the Parameter ``scale_sense``) or a Tensor of shape () or (1,) (a fixed scale,
    changed with ``set_sense_scale``). Returns ``(loss, overflow, scale)``, the scale as
    it was for this step."""

    def __init__(self, network: Cell, optimizer: Cell, scale_sense: Any):
        super().__init__(network, optimizer)
        self.hyper_map = HyperMap()
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(np.float32(scale_sense.get_loss_scale())),
                                         name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((1,), ()):
                raise GraphValueError("For 'TrainOneStepWithLossScaleCell', the shape of "
                                      "'scale_sense' must be (1,) or (), but got "
                                      f"{scale_sense.shape}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise GraphTypeError("For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must "
                                 "be Cell or Tensor, but got 'scale_sense' type: "
                                 f"{type(scale_sense)}.")
        self.scaled_grad = _Differentiated(_ScaledLoss(network),
                                           _Want(None, tuple(self.weights), value=True,
                                                 aux=True))

    @interpreted  # the tensor ``if`` below is a branch of the graph
    def construct(self, *inputs: Any) -> Any:
        scaling_sens = self.scale_sense * 1  # this step's scale, before the update
        (_, loss), grads = self.scaled_grad(*inputs, scaling_sens)
        grads = self.unscaled(scaling_sens, grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            loss = depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens

    def unscaled(self, scale: Any, grads: Any) -> Any:
        """The gradients divided by the scale."""
        return self.hyper_map(partial(_grad_scale, scale), grads)

    def set_sense_scale(self, sens: Any) -> None:
        if not isinstance(sens, Tensor):
            raise GraphTypeError("For 'TrainOneStepWithLossScaleCell', the type of 'sens' must "
                                 f"be Tensor, but got {type(sens)}")
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond: Any, compute_input: Any) -> Any:
        """``(status, compute_input)``: msc checks the gradients themselves, so the status
        is a placeholder kept for code that threads it through."""
        return Tensor(np.zeros(8, np.int32)), compute_input

    def get_overflow_status(self, status: Any, compute_output: Any) -> Any:
        """Whether any gradient holds an inf or a NaN (a 0-d bool Tensor)."""
        finite = [_finite(g) for g in compute_output]
        if not finite:
            return F.zeros((), mstype.bool_)
        result = finite[0]
        for f in finite[1:]:
            result = F.logical_and(result, f)
        return F.logical_not(result)

    def process_loss_scale(self, overflow: Any) -> Any:
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

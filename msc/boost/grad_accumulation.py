"""``boost.GradientAccumulation``: gradients summed over several steps, divided by the step
count, and one optimizer update every ``max_accumulation_step`` steps; and the two
``MultitypeFuncGraph``s it maps over the gradients, which training wrappers (MindCV's
``TrainStep``) import on their own."""

from __future__ import annotations

from typing import Any

from msc.common.tensor import Parameter, Tensor
from msc.ir import dtypes
from msc.nn.cell import Cell
from msc.ops import functional as F
from msc.ops.composite import HyperMap, MultitypeFuncGraph

__all__ = ["GradientAccumulation", "gradient_accumulation_op", "gradient_clear_op"]

gradient_accumulation_op = MultitypeFuncGraph("gradient_accumulation_op")


@gradient_accumulation_op.register("Int64", "Tensor", "Tensor")
def _accumulate(steps: Any, total: Any, grad: Any) -> Any:
    """``total += grad / steps``: the mean over the accumulated steps."""
    F.assign_add(total, grad / steps)
    return total


gradient_clear_op = MultitypeFuncGraph("gradient_clear_op")


@gradient_clear_op.register("Tensor")
def _clear(total: Any) -> Any:
    return F.assign(total, F.zeros_like(total))


class GradientAccumulation(Cell):
    """``GradientAccumulation(max_accumulation_step, optimizer)(loss, grads)``: adds
    ``grads / max_accumulation_step`` to a zeroed copy of each weight, and every
    ``max_accumulation_step``-th call runs ``optimizer`` on the sums and clears them.
    Returns ``loss``, after the updates.

    Example:
        >>> acc = GradientAccumulation(2, nn.SGD(net.trainable_params(), 0.1))
        >>> loss = acc(loss, grads)  # the weights move on every second call
    """

    def __init__(self, max_accumulation_step: int, optimizer: Cell):
        super().__init__()
        self._max_accumulation_step = max_accumulation_step
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.hyper_map = HyperMap()
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, dtypes.int32), name="accumulation_step")

    def construct(self, loss: Any, grads: Any) -> Any:
        loss = F.depend(loss, self.hyper_map(
            F.partial(gradient_accumulation_op, self._max_accumulation_step),
            self._grad_accumulation, grads))
        self._accumulation_step += 1
        if self._accumulation_step >= self._max_accumulation_step:
            loss = F.depend(loss, self.optimizer(self._grad_accumulation))
            F.assign(self._accumulation_step, 0)
        if self._accumulation_step == 0:
            loss = F.depend(loss, self.hyper_map(F.partial(gradient_clear_op),
                                                 self._grad_accumulation))
        return loss

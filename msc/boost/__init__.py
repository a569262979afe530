"""``msc.boost``: MindSpore's training accelerations that training scripts import; of them,
gradient accumulation (the rest of ``mindspore.boost``'s names raise msc's "not supported
yet")."""

from __future__ import annotations

from msc.boost.grad_accumulation import GradientAccumulation

__all__ = ["GradientAccumulation"]

#: ``mindspore.boost``'s other public names (MindSpore 2.10).
_MINDSPORE_NAMES = ("AutoBoost", "OptimizerProcess", "ParameterProcess",
                    "BoostTrainOneStepCell", "BoostTrainOneStepWithLossScaleCell", "LessBN",
                    "GradientFreeze", "FreezeOpt", "freeze_cell", "AdaSum", "DimReduce",
                    "GroupLossScaleManager")


def __getattr__(name: str) -> object:
    from msc.api_names import UnsupportedApiError

    if name in _MINDSPORE_NAMES:
        raise UnsupportedApiError(f"'msc.boost.{name}' (MindSpore 2.10) is not supported by "
                                  "msc yet.")
    raise AttributeError(f"module 'msc.boost' has no attribute '{name}'")

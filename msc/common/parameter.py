"""``mindspore.common.parameter``: ``Parameter`` and ``ParameterTuple``."""

from msc.common.tensor import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]

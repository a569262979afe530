"""``mindspore.common.parameter``: ``Parameter`` and ``ParameterTuple``."""

from msc.frontend.api.tensor import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]

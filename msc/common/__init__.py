"""msc.common (mindspore.common): Parameter, ParameterTuple, Tensor, dtype, lazy_inline."""

from msc.common import dtype
from msc.frontend.api.lazy_inline import lazy_inline
from msc.frontend.api.tensor import Parameter, ParameterTuple, Tensor

__all__ = ["Parameter", "ParameterTuple", "Tensor", "dtype", "lazy_inline"]

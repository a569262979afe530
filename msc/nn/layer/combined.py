"""The combined layers ``nn.Conv2dBnAct`` and ``nn.DenseBnAct``: a convolution (or dense
layer), an optional batch normalisation and an optional activation, as MindSpore's
``mindspore.nn.layer.combined`` names them (children ``conv``/``dense``, ``batchnorm``,
``activation``).
"""

from __future__ import annotations

from typing import Any

from msc.nn.cell import Cell
from msc.nn.layer.activation import LeakyReLU, get_activation
from msc.nn.layer.basic import Dense
from msc.nn.layer.conv import Conv2d
from msc.nn.layer.normalization import BatchNorm1d, BatchNorm2d


def _activation(activation: Any, alpha: float, owner: str) -> Any:
    if isinstance(activation, str) and activation.lower() == "leakyrelu":
        return LeakyReLU(alpha)
    return get_activation(activation, owner) if isinstance(activation, str) else activation


class Conv2dBnAct(Cell):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = "normal", bias_init: Any = "zeros",
                 has_bn: bool = False, momentum: float = 0.997, eps: float = 1e-5,
                 activation: Any = None, alpha: float = 0.2, after_fake: bool = True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self.has_bn = has_bn
        self.batchnorm = BatchNorm2d(out_channels, eps, momentum) if has_bn else None
        self.activation = _activation(activation, alpha, self.cls_name)
        self.has_act = self.activation is not None

    def construct(self, x: Any) -> Any:
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = "normal",
                 bias_init: Any = "zeros", has_bias: bool = True, has_bn: bool = False,
                 momentum: float = 0.9, eps: float = 1e-5, activation: Any = None,
                 alpha: float = 0.2, after_fake: bool = True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = has_bn
        self.batchnorm = BatchNorm1d(out_channels, eps, momentum) if has_bn else None
        self.activation = _activation(activation, alpha, self.cls_name)
        self.has_act = self.activation is not None

    def construct(self, x: Any) -> Any:
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


__all__ = ["Conv2dBnAct", "DenseBnAct"]

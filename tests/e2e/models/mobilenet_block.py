"""MobileNetV2's inverted residual block: a 1x1 expansion, a 3x3 depthwise convolution
(``group`` equal to the channel count) and a linear 1x1 projection, with batch norm and
ReLU6; the input is added back when the block keeps the shape."""

from msc import nn


class ConvBNReLU(nn.Cell):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        super().__init__()
        padding = (kernel_size - 1) // 2
        self.features = nn.SequentialCell([
            nn.Conv2d(in_planes, out_planes, kernel_size, stride, pad_mode="pad",
                      padding=padding, group=groups),
            nn.BatchNorm2d(out_planes),
            nn.ReLU6()])

    def construct(self, x):
        return self.features(x)


class InvertedResidual(nn.Cell):
    def __init__(self, inp=8, oup=8, stride=1, expand_ratio=4):
        super().__init__()
        hidden_dim = round(inp * expand_ratio)
        self.use_res_connect = stride == 1 and inp == oup
        layers = [] if expand_ratio == 1 else [ConvBNReLU(inp, hidden_dim, kernel_size=1)]
        layers += [ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
                   nn.Conv2d(hidden_dim, oup, 1, pad_mode="pad"),
                   nn.BatchNorm2d(oup)]
        self.conv = nn.SequentialCell(layers)

    def construct(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2Blocks(nn.Cell):
    """A residual block followed by a downsampling one that widens the channels."""

    def __init__(self, channels=8):
        super().__init__()
        self.keep = InvertedResidual(channels, channels, 1, 4)
        self.down = InvertedResidual(channels, 2 * channels, 2, 6)

    def construct(self, x):
        return self.down(self.keep(x))

"""ResNet's basic block (two 3x3 convolutions with batch norm and a residual add) and a
tiny ResNet built from it. A block that changes the channel count or the stride routes
its shortcut through a 1x1 convolution and batch norm (downsampling)."""

from msc import nn, ops


def conv3x3(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, 3, stride=stride, pad_mode="pad", padding=1)


class BasicBlock(nn.Cell):
    """relu(bn(conv(relu(bn(conv(x))))) + shortcut(x))."""

    expansion = 1

    def __init__(self, in_channel=8, out_channel=16, stride=2):
        super().__init__()
        self.conv1 = conv3x3(in_channel, out_channel, stride)
        self.bn1 = nn.BatchNorm2d(out_channel)
        self.conv2 = conv3x3(out_channel, out_channel)
        self.bn2 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([
                nn.Conv2d(in_channel, out_channel, 1, stride=stride, pad_mode="valid"),
                nn.BatchNorm2d(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(x)
        return self.relu(out + identity)


class TinyResNet(nn.Cell):
    """A 3x3 stem, one block per stage (the second one downsampling), global average
    pooling and a Dense classifier."""

    def __init__(self, num_classes=10, in_channel=3, widths=(8, 16)):
        super().__init__()
        self.stem = nn.SequentialCell([conv3x3(in_channel, widths[0]),
                                       nn.BatchNorm2d(widths[0]), nn.ReLU()])
        blocks, channels = [], widths[0]
        for i, width in enumerate(widths):
            blocks.append(BasicBlock(channels, width, stride=1 if i == 0 else 2))
            channels = width
        self.layers = nn.SequentialCell(blocks)
        self.head = nn.Dense(channels, num_classes)

    def construct(self, x):
        x = self.layers(self.stem(x))
        return self.head(ops.mean(x, (2, 3)))

"""ResNet-18 and ResNet-50 as MindSpore's model collection writes them (``official/cv/ResNet``):
a 7x7 stride-2 stem with batch norm and ReLU, 3x3 stride-2 max pooling, four stages of
basic blocks (ResNet-18: 2, 2, 2, 2) or bottleneck blocks (ResNet-50: 3, 4, 6, 3), global
average pooling and a Dense classifier. Eval mode uses the batch norms' moving statistics."""

from msc import nn, ops


def _conv(in_channel, out_channel, kernel, stride=1):
    pad = kernel // 2
    if pad:
        return nn.Conv2d(in_channel, out_channel, kernel, stride=stride, pad_mode="pad",
                         padding=pad)
    return nn.Conv2d(in_channel, out_channel, kernel, stride=stride, pad_mode="valid")


class BasicBlock(nn.Cell):
    """Two 3x3 convolutions; ResNet-18 and -34."""

    expansion = 1

    def __init__(self, in_channel, out_channel, stride=1):
        super().__init__()
        self.conv1 = _conv(in_channel, out_channel, 3, stride)
        self.bn1 = nn.BatchNorm2d(out_channel)
        self.conv2 = _conv(out_channel, out_channel, 3)
        self.bn2 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([
                _conv(in_channel, out_channel, 1, stride), nn.BatchNorm2d(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(x)
        return self.relu(out + identity)


class ResidualBlock(nn.Cell):
    """1x1 reduce, 3x3 (strided), 1x1 expand by 4; ResNet-50 and deeper."""

    expansion = 4

    def __init__(self, in_channel, out_channel, stride=1):
        super().__init__()
        channel = out_channel // self.expansion
        self.conv1 = _conv(in_channel, channel, 1)
        self.bn1 = nn.BatchNorm2d(channel)
        self.conv2 = _conv(channel, channel, 3, stride)
        self.bn2 = nn.BatchNorm2d(channel)
        self.conv3 = _conv(channel, out_channel, 1)
        self.bn3 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([
                _conv(in_channel, out_channel, 1, stride), nn.BatchNorm2d(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.down_sample:
            identity = self.down_sample_layer(x)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    def __init__(self, block, layer_nums, in_channels, out_channels, strides, num_classes):
        super().__init__()
        self.conv1 = _conv(3, 64, 7, 2)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        stages = []
        for count, cin, cout, stride in zip(layer_nums, in_channels, out_channels, strides):
            blocks = [block(cin, cout, stride)]
            blocks += [block(cout, cout, 1) for _ in range(count - 1)]
            stages.append(nn.SequentialCell(blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(out_channels[-1], num_classes)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = ops.mean(x, (2, 3), keep_dims=True)
        return self.end_point(self.flatten(x))


def resnet18(num_classes=10):
    return ResNet(BasicBlock, [2, 2, 2, 2], [64, 64, 128, 256], [64, 128, 256, 512],
                  [1, 2, 2, 2], num_classes)


def resnet50(num_classes=10):
    return ResNet(ResidualBlock, [3, 4, 6, 3], [64, 256, 512, 1024], [256, 512, 1024, 2048],
                  [1, 2, 2, 2], num_classes)

"""LeNet-5 for 1x32x32 images: two convolution, ReLU and max-pool stages, then three
fully connected layers (the classic layout of MindSpore's model collections)."""

from msc import nn

NUM_CLASS, NUM_CHANNEL, IMAGE = 10, 1, 32


class LeNet5(nn.Cell):
    """conv(5x5, valid) -> ReLU -> max-pool(2) twice, flatten, Dense 120 -> 84 -> classes."""

    def __init__(self, num_class=NUM_CLASS, num_channel=NUM_CHANNEL):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)

"""LeNet-5 trained for one epoch through ``Model.train`` on an MNIST-format folder.

The script writes a small MNIST-format folder (the four idx files; images of ten
synthetic "digits", a fixed pattern per class plus noise) so it runs anywhere in seconds,
reads it with ``MnistDataset``, trains with ``LossMonitor`` and ``ModelCheckpoint``, and
prints the test accuracy. The same file runs under MindSpore with ``--mindspore``: the
data order (no shuffle), the input pipeline and the initial weights (drawn with numpy)
are the same, so both print the same loss curve.

    python examples/lenet_mnist.py [--mindspore] [--graph] [--folder DIR]

The data and the checkpoints go to DIR, or without ``--folder`` to a temporary folder
that the script names and removes at the end.
"""

import argparse
import os
import struct
import sys
import tempfile

import numpy as np

CLASSES, TRAIN, TEST, BATCH = 10, 640, 160, 32


def write_mnist(folder, seed=0):
    """The four idx files: big-endian magic (0x0803 images, 0x0801 labels), the
    dimensions, then the bytes."""
    rng = np.random.default_rng(seed)
    patterns = rng.random((CLASSES, 28, 28)) < 0.25
    for prefix, count in (("train", TRAIN), ("t10k", TEST)):
        labels = rng.integers(0, CLASSES, count).astype(np.uint8)
        noise = rng.integers(0, 140, (count, 28, 28))
        images = np.clip(patterns[labels] * 110 + noise, 0, 255).astype(np.uint8)
        for kind, array in (("images-idx3", images), ("labels-idx1", labels)):
            header = struct.pack(">I", 0x800 | array.ndim)
            header += struct.pack(f">{array.ndim}I", *array.shape)
            with open(os.path.join(folder, f"{prefix}-{kind}-ubyte"), "wb") as f:
                f.write(header + array.tobytes())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mindspore", action="store_true", help="run under MindSpore")
    parser.add_argument("--graph", action="store_true", help="GRAPH_MODE (compiled)")
    parser.add_argument("--folder", help="where to write the data and the checkpoints")
    args = parser.parse_args(argv)
    if args.mindspore:
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore import nn
        from mindspore.dataset import transforms, vision
        from mindspore.train import CheckpointConfig, LossMonitor, Model, ModelCheckpoint
    else:
        import msc as ms
        import msc.dataset as ds
        from msc import nn
        from msc.dataset import transforms, vision
        from msc.train import CheckpointConfig, LossMonitor, Model, ModelCheckpoint
    ms.set_context(mode=ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE)

    class LeNet5(nn.Cell):
        """LeNet-5 on 28x28 digits: the first convolution pads by 2, as the original
        network saw 32x32 inputs."""

        def __init__(self, num_class=CLASSES):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="pad", padding=2)
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

    def dataset(folder, usage):
        data = ds.MnistDataset(folder, usage=usage, shuffle=False)
        image_ops = [vision.Rescale(1.0 / 255.0, 0.0),
                     vision.Rescale(1 / 0.3081, -1 * 0.1307 / 0.3081), vision.HWC2CHW()]
        data = data.map(operations=image_ops, input_columns="image")
        data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
        return data.batch(BATCH, drop_remainder=True)

    def train(folder):
        os.makedirs(folder, exist_ok=True)
        write_mnist(folder)
        net = LeNet5()
        init = np.random.default_rng(1)  # the same weights in both frameworks
        for param in sorted(net.get_parameters(), key=lambda p: p.name):
            shape = param.shape
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            value = init.normal(0, np.sqrt(2 / fan_in), shape) if len(shape) > 1 \
                else np.zeros(shape)
            param.set_data(ms.Tensor(value.astype(np.float32)))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        model = Model(net, loss, opt, metrics={"accuracy"})
        config = CheckpointConfig(save_checkpoint_steps=10, keep_checkpoint_max=2)
        checkpoints = os.path.join(folder, "checkpoints")
        ckpt = ModelCheckpoint(prefix="lenet", directory=checkpoints, config=config)
        model.train(1, dataset(folder, "train"), callbacks=[LossMonitor(), ckpt],
                    dataset_sink_mode=False)
        print(f"accuracy: {model.eval(dataset(folder, 'test'))['accuracy']:.4f}")
        print("checkpoints:", " ".join(sorted(f for f in os.listdir(checkpoints))))
        return 0

    if args.folder is not None:
        print(f"data and checkpoints: {args.folder}")
        return train(args.folder)
    with tempfile.TemporaryDirectory(prefix="lenet-mnist-") as folder:  # removed at the end
        print(f"data and checkpoints: {folder} (a temporary folder, removed at the end; "
              "--folder DIR keeps them)")
        return train(folder)


if __name__ == "__main__":
    sys.exit(main())

"""The model ``examples/batch_inference.py`` scores with: a small seeded classifier
whose output is each row's class probabilities.

    msc compile examples/scorer.py Scorer --input f32[256,32] -o scorer
"""

import msc as ms
from msc import nn, ops


class Scorer(nn.Cell):
    def __init__(self, features=32, hidden=64, classes=8):
        super().__init__()
        ms.set_seed(0)
        self.fc1 = nn.Dense(features, hidden, activation="relu")
        self.fc2 = nn.Dense(hidden, classes)

    def construct(self, x):
        return ops.softmax(self.fc2(self.fc1(x)), axis=-1)

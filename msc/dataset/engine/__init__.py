"""``mindspore.dataset.engine``: the datasets, their pipeline operations and iterators."""

from msc.dataset.core.columns import DatasetError
from msc.dataset.engine.datasets import Dataset, zip
from msc.dataset.engine.datasets_user_defined import (
           GeneratorDataset,
           NumpySlicesDataset,
)
from msc.dataset.engine.datasets_vision import Cifar10Dataset, MnistDataset

__all__ = ["Dataset", "DatasetError", "GeneratorDataset", "NumpySlicesDataset", "MnistDataset",
           "Cifar10Dataset", "zip"]

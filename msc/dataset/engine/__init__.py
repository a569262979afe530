"""``mindspore.dataset.engine``: the datasets, their pipeline operations and iterators."""

from msc.dataset.engine.datasets import Dataset, DatasetError, zip  # noqa: A004
from msc.dataset.engine.datasets_user_defined import GeneratorDataset, NumpySlicesDataset
from msc.dataset.engine.datasets_vision import Cifar10Dataset, MnistDataset

__all__ = ["Dataset", "DatasetError", "GeneratorDataset", "NumpySlicesDataset", "MnistDataset",
           "Cifar10Dataset", "zip"]

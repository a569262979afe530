"""``mindspore.dataset``: input pipelines for training (``import msc.dataset as ds``).

Sources (``GeneratorDataset``, ``NumpySlicesDataset``, ``MnistDataset``,
``Cifar10Dataset``), the pipeline operations every dataset has (``map``, ``batch``,
``shuffle``, ...), the iterators, and the ``vision`` and ``transforms`` operations.
``ds.config.set_seed`` (or ``msc.set_seed``) makes shuffles and random transforms repeat.
"""

from msc.dataset import transforms, vision
from msc.dataset.core import config
from msc.dataset.engine import (
                                Cifar10Dataset,
                                Dataset,
                                DatasetError,
                                GeneratorDataset,
                                MnistDataset,
                                NumpySlicesDataset,
                                zip,
)

__all__ = ["config", "transforms", "vision", "Dataset", "DatasetError", "GeneratorDataset",
           "NumpySlicesDataset", "MnistDataset", "Cifar10Dataset", "zip"]

"""MindSpore's module paths resolve in msc, not only its top-level names: model code imports
``from mindspore.nn.cell import Cell``, ``from mindspore.ops.operations import nn_ops``,
``from mindspore.common.initializer import _assignment``. ``data/mindspore_module_paths.json``
lists the modules of MindSpore 2.10's public tree that msc provides, each with MindSpore
names msc defines there; every one imports with ``mindspore`` replaced by ``msc``."""

from __future__ import annotations

import importlib
import json
import pathlib

import pytest

import msc

PATHS = {name: names for name, names in json.loads(
    (pathlib.Path(__file__).parent / "data" / "mindspore_module_paths.json").read_text()).items()
    if not name.startswith("_")}


def test_the_list_is_mindspores_tree():
    assert all(name == "mindspore" or name.startswith("mindspore.") for name in PATHS)
    assert {"mindspore.nn.cell", "mindspore.nn.layer.conv", "mindspore.nn.optim.optimizer",
            "mindspore.context", "mindspore.common.initializer",
            "mindspore.ops.operations.nn_ops", "mindspore.ops.function.math_func",
            "mindspore.train.callback"} <= PATHS.keys()


@pytest.mark.parametrize("module", sorted(PATHS))
def test_module_path_imports_with_its_names(module):
    mod = importlib.import_module("msc" + module[len("mindspore"):])
    for name in PATHS[module]:
        assert hasattr(mod, name), f"{module}.{name}"


def test_a_name_is_one_object_from_every_path():
    """The module paths and the namespaces hand out the same objects (one class per name)."""
    from msc.common.initializer import Normal
    from msc.common.parameter import Parameter
    from msc.common.tensor import Tensor
    from msc.nn.cell import Cell
    from msc.nn.layer.conv import Conv2d
    from msc.nn.optim.momentum import Momentum
    from msc.ops.function.math_func import xlogy
    from msc.ops.operations import nn_ops
    from msc.ops.operations.math_ops import Add

    assert Tensor is msc.Tensor and Parameter is msc.Parameter and Cell is msc.nn.Cell
    assert Conv2d is msc.nn.Conv2d and Momentum is msc.nn.Momentum
    assert nn_ops.Conv2D is msc.ops.Conv2D is msc.ops.operations.Conv2D
    assert Add is msc.ops.Add and xlogy is msc.ops.xlogy and Normal is msc.common.initializer.Normal


def test_the_helpers_model_code_imports_work():
    import numpy as np

    from msc.common.initializer import Initializer, _assignment, initializer
    from msc.context import ParallelMode
    from msc.nn.optim.optimizer import opt_init_args_register

    class Fives(Initializer):
        def _initialize(self, arr):
            _assignment(arr, 5.0)

    assert initializer(Fives(), (2, 2)).asnumpy().tolist() == [[5.0, 5.0], [5.0, 5.0]]
    assert _assignment(np.zeros(()), 3.0) == 3.0
    assert ParallelMode.STAND_ALONE == "stand_alone" and "data_parallel" in ParallelMode.MODE_LIST

    class MySGD(msc.nn.Optimizer):
        @opt_init_args_register
        def __init__(self, params, learning_rate=0.1, momentum=0.0):
            super().__init__(learning_rate, params)

    dense = msc.nn.Dense(2, 2)
    opt = MySGD(dense.trainable_params(), momentum=0.5)
    assert opt.init_args == {"learning_rate": 0.1, "momentum": 0.5}
    assert list(opt.init_params["params"]) == list(dense.trainable_params())


def test_mindspore_callbacks_msc_lacks_are_reported_as_unsupported():
    from msc.api_names import UnsupportedApiError
    from msc.train import callback

    assert callback.LossMonitor is msc.train.LossMonitor
    with pytest.raises(UnsupportedApiError, match="not supported by msc yet"):
        callback.BackupAndRestore  # noqa: B018
    with pytest.raises(ImportError):
        from msc.train.callback import SummaryCollector  # noqa: F401

"""Names the MindSpore model zoo's training code imports: ``ops.FloatStatus`` (the
loss-scaled train cells' overflow check, eagerly and in graphs, against numpy),
``composite.add_flags``, ``mindspore.log`` and ``mindspore.parallel._utils`` /
``_auto_parallel_context``."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn
from msc.ops import composite as C
from msc.ops import operations as P

VALUES = [[1.0, -2.0, 3.5], [1.0, np.inf, 0.0], [np.nan, 1.0, 2.0], [-np.inf, 0.0, 0.0]]


class _Status(nn.Cell):
    def __init__(self):
        super().__init__()
        self.status = P.FloatStatus()

    def construct(self, x):
        return self.status(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float_status_flags_inf_and_nan(mode, dtype):
    ms.set_context(mode=mode, jit_target="python")
    net = _Status()
    for row in VALUES:
        x = np.array(row, dtype).reshape(3, 1)
        got = net(Tensor(x)).asnumpy()
        assert got.dtype == np.float32 and got.shape == (1,)
        assert got[0] == float(not np.isfinite(x).all()), row


def test_add_flags_keeps_the_function_and_its_flags():
    @C.add_flags(has_effect=True)
    def f(x):
        return x + 1

    assert f(1) == 2 and f._func_graph_flags == {"has_effect": True}


def test_log_functions_reach_the_msc_logger(caplog):
    from msc import log as logger

    with caplog.at_level(logging.INFO, logger="msc"):
        logger.info("step %d", 3)
        logger.warning("lr %s", 0.1)
        assert logger.get_level() == "1"
    assert [r.getMessage() for r in caplog.records] == ["step 3", "lr 0.1"]


def test_parallel_helpers_read_the_auto_parallel_context():
    from msc.parallel._auto_parallel_context import auto_parallel_context
    from msc.parallel._utils import _get_device_num, _get_gradients_mean, _get_parallel_mode

    assert (_get_parallel_mode(), _get_gradients_mean(), _get_device_num()) == \
        (ms.ParallelMode.STAND_ALONE, False, 1)
    assert not auto_parallel_context().get_device_num_is_set()
    ms.set_auto_parallel_context(device_num=4, gradients_mean=True)
    try:
        assert auto_parallel_context().get_device_num_is_set()
        assert (_get_device_num(), _get_gradients_mean()) == (4, True)
    finally:
        ms.reset_auto_parallel_context()


class _ValueNet(nn.Cell):
    """The Transformer's EmbeddingLookup returns ``embedding_table.value()`` for the tied
    output projection: the gradient flows through it, and a graph reads the weight."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return (self.w.value() * x).sum() + (self.w * x * x).sum()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_parameter_value_passes_gradients_and_reads_the_current_weight(mode):
    ms.set_context(mode=mode, jit_target="python")
    net = _ValueNet()
    x = np.array([1.0, 10.0, 100.0], np.float32)
    grad = ms.ops.GradOperation(get_by_list=True)(net, ms.ParameterTuple(
        net.trainable_params()))(Tensor(x))[0].asnumpy()
    np.testing.assert_allclose(grad, x + x * x)  # MindSpore 2.10: [2, 110, 10100]
    assert float(net(Tensor(x)).asnumpy()) == float(x @ [1, 2, 3] + x * x @ [1, 2, 3])
    net.w.set_data(Tensor(np.array([0.0, 0.0, 1.0], np.float32)))
    assert float(net(Tensor(x)).asnumpy()) == 100.0 + 10000.0  # the new weight, both uses

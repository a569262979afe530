"""``lazy_inline`` as MindSpore has it: on ``Cell.__init__``, recording the arguments."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.common import lazy_inline as from_common
from msc.errors import GraphTypeError


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self, width, scale=2.0):
        super().__init__()
        self.dense = nn.Dense(width, width)
        self.scale = scale

    def construct(self, x):
        return self.dense(x) * self.scale


def test_both_import_paths_are_one_decorator():
    assert from_common is ms.lazy_inline


def test_init_args_are_recorded_with_defaults():
    block = Block(4)
    assert block.cell_init_args == "lazy_inline_Block{'width': 4, 'scale': 2.0}"
    assert block.no_inline is True
    assert Block(4, scale=3.0).cell_init_args == "lazy_inline_Block{'width': 4, 'scale': 3.0}"
    assert [p.name for p in block.trainable_params()] == ["dense.weight", "dense.bias"]


def test_attrs_limit_what_is_recorded_and_policy_front_is_accepted():
    class Narrow(nn.Cell):
        @from_common(attrs="width", policy="front")
        def __init__(self, width, name="x"):
            super().__init__()
            self.width = width

        def construct(self, x):
            return x

    assert Narrow(3, name="y").cell_init_args == "lazy_inline_Narrow{'width': 3}"


def test_the_decorated_cell_still_runs_eagerly_and_compiled():
    block = Block(3)
    x = ms.Tensor(np.ones((2, 3), np.float32))
    eager = block(x).asnumpy()
    w, b = block.dense.weight.asnumpy(), block.dense.bias.asnumpy()
    np.testing.assert_allclose(eager, (np.ones((2, 3)) @ w.T + b) * 2.0, rtol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    np.testing.assert_allclose(block(x).asnumpy(), eager, rtol=1e-6)


def test_misuse_is_a_type_error():
    with pytest.raises(GraphTypeError, match="__init__"):
        ms.lazy_inline(lambda self: None)
    with pytest.raises(GraphTypeError, match="policy"):
        ms.lazy_inline(policy="back")

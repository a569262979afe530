"""Everyday ops ordinary programs use: ``one_hot``/``OneHot``, ``floor_divide``, and the
public forms of ``cumsum``: compiled == eager == numpy written independently."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import check_all


class OneHots(nn.Cell):
    def construct(self, i):
        return (ops.one_hot(i, 4, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)),
                ops.OneHot(axis=0)(i, 3, Tensor(5, ms.int32), Tensor(-1, ms.int32)),
                ops.one_hot(i, 3))


def test_one_hot(tmp_path):
    i = np.array([0, 3, -1, 2], np.int64)
    eye4, eye3 = np.eye(4, dtype=np.float32), np.eye(3, dtype=np.int64)
    first = np.stack([eye4[k] if 0 <= k < 4 else np.zeros(4, np.float32) for k in i])
    rows = np.stack([eye3[k] if 0 <= k < 3 else np.zeros(3, np.int64) for k in i])
    expect = (first, np.where(rows.T == 1, 5, -1).astype(np.int32), rows)
    check_all(OneHots(), [i], tmp_path, expect=expect)


def test_one_hot_errors():
    with pytest.raises(TypeError, match="integer"):
        ops.one_hot(Tensor(np.array([0.5])), 3)
    with pytest.raises(ValueError, match="axis"):
        ops.one_hot(Tensor(np.array([1])), 3, axis=2)


class Divides(nn.Cell):
    def construct(self, x, y):
        return ops.floor_divide(x, y), x // 3, x.cumsum(0), ops.cumsum(x, 1, ms.float32)


def test_floor_divide_and_cumsum_forms(tmp_path):
    x = np.array([[7, -7, 5], [-3, 9, 0]], np.int32)
    y = np.array([2, 3, -4], np.int32)
    expect = (x // y, x // 3, np.add.accumulate(x, 0).astype(np.int32),
              np.add.accumulate(x.astype(np.float32), 1))
    check_all(Divides(), [x, y], tmp_path, expect=expect)


class Primitives(nn.Cell):
    def construct(self, x, b, m):
        return (ops.ReduceAll(keep_dims=True)(x > 0, 1), ops.ReduceAny()(x > 2), x.all(),
                (x * 0).any(0), ops.AddN()((x, x, b[0])), ops.BiasAdd()(m, b),
                ops.TensorAdd()(x, 1.0), m.bmm(ops.transpose(m, (0, 2, 1))))


def test_primitive_forms_of_mindspore_tests(tmp_path):
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)
    b = np.array([0.5, -1.0, 2.0], np.float32)
    m = np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 10
    expect = ((x > 0).all(1, keepdims=True), np.array((x > 2).any()), np.array(x.all()),
              (x * 0).any(0), x + x + b[0], m + b.reshape(1, 3, 1), x + 1,
              m @ m.transpose(0, 2, 1))
    check_all(Primitives(), [x, b, m], tmp_path, expect=expect)


def test_reductions_of_empty_tensors():
    assert ops.ReduceAll()(Tensor(np.zeros((0,), bool))).asnumpy().tolist() is True
    assert ops.ReduceAny()(Tensor(np.zeros((0,), bool))).asnumpy().tolist() is False


class ManyJoined(nn.Cell):
    """More operands than the numba target joins with ``np.concatenate``: each is copied
    into place by its own loop (int32 operands promoted to float32 by Concat)."""

    def construct(self, x, i):
        rows = [x[k] * k for k in range(12)]
        return (ops.stack(rows), ops.stack(rows, axis=1),
                ops.concat([x] * 9 + [i.astype(ms.float32)], axis=1),
                ops.concat([i] * 10, axis=0))


def test_stack_and_concat_of_many_operands(tmp_path):
    x = np.random.default_rng(0).standard_normal((12, 3)).astype(np.float32)
    i = np.arange(36, dtype=np.int32).reshape(12, 3)
    rows = [x[k] * np.float32(k) for k in range(12)]
    expect = (np.stack(rows), np.stack(rows, axis=1),
              np.concatenate([x] * 9 + [i.astype(np.float32)], axis=1),
              np.concatenate([i] * 10, axis=0))
    check_all(ManyJoined(), [x, i], tmp_path, expect=expect)

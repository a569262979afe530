"""MindSpore 2.10's image, pooling, loss, special-function and random primitives that
compose msc's functions: values against numpy written here, eagerly and in a few compiled
graphs, gradients against finite differences, errors, and MindSpore itself where
``.peers/ms`` is installed (one subprocess for every case)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from msc.errors import MscError

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
rng = np.random.default_rng(7)


def _close(actual, expected, rtol=1e-5, atol=1e-6):
    value = actual.asnumpy() if isinstance(actual, Tensor) else np.asarray(actual)
    assert value.shape == np.shape(expected), (value.shape, np.shape(expected))
    np.testing.assert_allclose(value, expected, rtol=rtol, atol=atol)


# --- SpaceToBatch, BatchToSpace, CheckNumerics, mirror_pad -----------------------------------


def _space_to_batch(x, b, pads):
    """out[(i * b + j) * N + n, c, h, w] = padded[n, c, h * b + i, w * b + j]."""
    x = np.pad(x, ((0, 0), (0, 0), tuple(pads[0]), tuple(pads[1])))
    n, c, hh, ww = x.shape
    out = np.zeros((n * b * b, c, hh // b, ww // b), x.dtype)
    for i in range(b):
        for j in range(b):
            for k in range(n):
                out[(i * b + j) * n + k] = x[k, :, i::b, j::b]
    return out


def test_space_to_batch_and_back():
    x = rng.standard_normal((2, 3, 4, 6)).astype(np.float32)
    pads = [[1, 1], [0, 2]]
    y = ops.SpaceToBatch(2, pads)(Tensor(x))
    _close(y, _space_to_batch(x, 2, pads))
    back = ops.BatchToSpace(2, pads)(y)
    _close(back, x)
    assert back.dtype == ms.float32


def test_space_to_batch_checks_its_arguments():
    with pytest.raises(ValueError, match="block_size"):
        ops.SpaceToBatch(1, [[0, 0], [0, 0]])
    with pytest.raises(TypeError, match="block_size"):
        ops.BatchToSpace(2.0, [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="crops"):
        ops.BatchToSpace(2, [[0, 0]])
    with pytest.raises(ValueError, match="rank of 'input_x' must be 4"):
        ops.SpaceToBatch(2, [[0, 0], [0, 0]])(Tensor(np.ones((2, 4, 4), np.float32)))


def test_check_numerics():
    x = Tensor(np.array([1.0, -2.5], np.float32))
    _close(ops.CheckNumerics()(x), [1.0, -2.5])
    with pytest.raises(RuntimeError, match="Tensor had NaN values"):
        ops.CheckNumerics()(Tensor(np.array([1.0, np.nan], np.float32)))
    with pytest.raises(RuntimeError, match="Tensor had Inf values"):
        ops.CheckNumerics()(Tensor(np.array([-np.inf, 0.0])))


def test_check_numerics_in_a_graph_is_a_clear_error():
    @ms.jit
    def f(x):
        return ops.CheckNumerics()(x) * 2

    with pytest.raises(MscError, match="CheckNumerics") as info:
        f(Tensor(np.ones(2, np.float32)))
    assert "test_more_primitives.py" in str(info.value)


def test_mirror_pad():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for mode, np_mode in (("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")):
        out = ops.mirror_pad(Tensor(x), Tensor(np.array([[1, 2], [2, 1]])), mode)
        _close(out, np.pad(x, ((1, 2), (2, 1)), mode=np_mode))
    with pytest.raises(ValueError, match="mode"):
        ops.mirror_pad(Tensor(x), Tensor(np.array([[1, 1], [1, 1]])), "EDGE")

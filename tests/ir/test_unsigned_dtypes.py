"""uint16, uint32 and uint64 (``ir/dtypes.py``): accepted wherever a dtype is, with
MindSpore 2.10's rules for them.

What MindSpore 2.10 did (CPU, checked while writing): a uint16/32/64 tensor meets only a
tensor of its own type or bool in arithmetic; with another int, uint or float tensor, or
with a Python number, it raises TypeError ("Type implicit conversion between ... is not
supported"); casts to and from them work; their sum keeps the type (a uint8, int or bool
sum is int64).
"""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops

WIDE = ["uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", WIDE)
def test_the_dtype_and_its_names(name):
    dt = getattr(ms, name)
    assert dt is getattr(ms.dtype, name) and ms.dtype_to_nptype(dt) is getattr(np, name)
    assert Tensor(np.zeros(2, getattr(np, name))).dtype is dt
    assert Tensor([1, 2], dt).asnumpy().dtype == np.dtype(name)
    assert ms.dtype.pytype_to_dtype(np.dtype(name)) is dt


@pytest.mark.parametrize("name", WIDE)
def test_arithmetic_with_itself_and_bool(name):
    np_t = getattr(np, name)
    x = np.array([3, np.iinfo(np_t).max], np_t)
    y = np.array([2, 1], np_t)
    out = Tensor(x) + Tensor(y)
    assert out.dtype is getattr(ms, name)
    np.testing.assert_array_equal(out.asnumpy(), x + y)  # wraps around, as numpy's
    assert (Tensor(x) * Tensor(np.array([True, False]))).dtype is getattr(ms, name)
    assert Tensor(x).sum().dtype is getattr(ms, name)
    assert Tensor(np.array([1, 2], np.uint8)).sum().dtype is ms.int64
    np.testing.assert_array_equal(ops.cast(Tensor(x), ms.float64).asnumpy(), x.astype(np.float64))
    np.testing.assert_array_equal(ops.cast(Tensor(np.array([5.7, 2.0], np.float32)),
                                           getattr(ms, name)).asnumpy(), [5, 2])


@pytest.mark.parametrize("name", WIDE)
@pytest.mark.parametrize("other", ["uint8", "int8", "int32", "int64", "float16", "float32"])
def test_no_implicit_conversion(name, other):
    x = Tensor(np.ones(2, getattr(np, name)))
    with pytest.raises(TypeError, match="implicit conversion"):
        x + Tensor(np.ones(2, getattr(np, other)))
    with pytest.raises(TypeError, match="implicit conversion"):
        x + 1


def test_compiled_on_both_targets():
    x = np.array([1, 65535], np.uint16)
    y = np.array([2, 1], np.uint16)
    z = np.array([4000000000, 3], np.uint32)
    want = ((x + y).astype(np.float32) * 2, y.astype(np.uint64) * y.astype(np.uint64),
            (z * z).sum(dtype=np.uint32), z.max())
    for target in ("python", "numba"):
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)

        @ms.jit
        def f(a, b, c):
            return ((a + b).astype(ms.float32) * 2, ops.cast(b, ms.uint64) * ops.cast(b, ms.uint64),
                    (c * c).sum(), c.max())

        out = f(Tensor(x), Tensor(y), Tensor(z))
        assert [o.dtype for o in out] == [ms.float32, ms.uint64, ms.uint32, ms.uint32]
        for o, w in zip(out, want):
            np.testing.assert_array_equal(o.asnumpy(), w)


def test_checkpoints_and_numpy_names(tmp_path):
    net = ms.nn.Cell()
    net.u = ms.Parameter(Tensor(np.array([1, 70000], np.uint32)), name="u")
    ms.save_checkpoint(net, str(tmp_path / "u.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "u.ckpt"))["u"]
    assert loaded.dtype is ms.uint32 and loaded.asnumpy().tolist() == [1, 70000]
    assert ms.numpy.uint16 is ms.uint16 and ms.numpy.uint64 is ms.uint64

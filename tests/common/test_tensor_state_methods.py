"""The Tensor methods about data and state (``data``, ``value``, ``is_init``,
``init_flag``, ``init_data``, ``set_``, ``to_``) and the small array ones (``itemset``,
``fills``, ``repeat``, ``resize``) against numpy, eagerly and compiled."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor


def _x():
    return np.arange(6, dtype=np.float32).reshape(2, 3)


def test_itemset_fills_repeat_resize_eager():
    x = Tensor(_x())
    want = _x()
    want[0, 1] = 9
    np.testing.assert_array_equal(x.itemset((0, 1), 9.0).asnumpy(), want)
    want = _x()
    want.flat[4] = 7.5
    np.testing.assert_array_equal(x.itemset(4, 7.5).asnumpy(), want)
    np.testing.assert_array_equal(x.asnumpy(), _x())  # a copy: x itself is unchanged
    assert Tensor(np.array([3], np.int32)).itemset(5.7).asnumpy().tolist() == [5]
    with pytest.raises(ValueError, match="one-element"):
        x.itemset(1.0)
    filled = x.fills(2.5)
    assert filled.dtype == ms.float32 and filled.asnumpy().tolist() == [[2.5] * 3] * 2
    np.testing.assert_array_equal(x.repeat(2, 1, 2).asnumpy(), np.tile(_x(), (2, 1, 2)))
    np.testing.assert_array_equal(x.repeat((1, 3)).asnumpy(), np.tile(_x(), (1, 3)))
    with pytest.raises(ValueError, match="at least"):
        x.repeat(2)
    np.testing.assert_array_equal(x.resize(4, 2).asnumpy(),
                                  np.concatenate([_x().ravel(), [0, 0]]).reshape(4, 2))
    np.testing.assert_array_equal(x.resize((2,)).asnumpy(), [0, 1])
    assert x.resize() is x


def test_the_array_methods_compiled():
    @ms.jit
    def f(x):
        return x.itemset((1, 2), -1.0), x.fills(3.0), x.repeat(1, 2), x.resize(7)

    got = [t.asnumpy() for t in f(Tensor(_x()))]
    want = _x()
    want[1, 2] = -1
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], np.full((2, 3), 3.0))
    np.testing.assert_array_equal(got[2], np.tile(_x(), (1, 2)))
    np.testing.assert_array_equal(got[3], np.append(_x().ravel(), 0))


def test_data_value_and_init_state():
    x = Tensor(_x())
    data = x.data
    assert isinstance(data, Tensor) and data is not x  # a new Tensor over the same buffer
    data[0, 0] = 100
    assert x.asnumpy()[0, 0] == 100
    x.data = Tensor(np.ones(3, np.float32))
    np.testing.assert_array_equal(x.asnumpy(), np.ones(3))
    assert x.value() is x
    assert x.is_init() is False and x.init_flag is False
    x.set_init_flag(True)
    assert x.is_init() is True and x.init_flag is True
    with pytest.raises(TypeError, match="init can't be None"):
        x.init_data()
    p = Parameter(Tensor(_x()), name="p")
    assert p.is_init is False and p.data is p


def test_set_and_to():
    x = Tensor(np.zeros(3, np.float32))
    src = Tensor(np.arange(4, dtype=np.float32))
    assert x.set_(src) is x
    src[1] = 50  # the buffer is shared both ways
    np.testing.assert_array_equal(x.asnumpy(), [0, 50, 2, 3])
    view = Tensor(np.zeros(1, np.float32)).set_(src, 1, (2,), (2,))
    np.testing.assert_array_equal(view.asnumpy(), [50, 3])
    assert Tensor(_x()).set_().shape == (0,)
    with pytest.raises(RuntimeError, match="Could not set tensor of type Int32"):
        Tensor(_x()).set_(Tensor(np.ones(2, np.int32)))
    assert x.to_("CPU") is x
    with pytest.raises(ValueError, match="one of"):
        x.to_("GPU")
    with pytest.raises(ValueError, match="non_blocking"):
        x.to_("CPU", non_blocking=1)


def test_bytes_device_and_dlpack():
    """get_bytes / convert_bytes_to_tensor round-trip the raw data; a DLPack capsule
    (to_dlpack) gives back a tensor over the same memory (from_dlpack), as numpy reads
    it; a host tensor's device is 'CPU' and it is never a meta tensor."""
    x = np.arange(12, dtype=np.int16).reshape(3, 4) * 7
    t = Tensor(x)
    assert t.get_bytes() == x.tobytes() and t.device == "CPU" and t.is_meta is False
    back = Tensor.convert_bytes_to_tensor(t.get_bytes(), (4, 3), ms.int16)
    assert back.dtype == ms.int16 and np.array_equal(back.asnumpy(), x.reshape(4, 3))
    shared = Tensor.from_dlpack(t.to_dlpack())
    assert shared.dtype == ms.int16 and np.array_equal(shared.asnumpy(), x)
    assert np.shares_memory(shared.asnumpy(), t.asnumpy())
    assert np.array_equal(Tensor.from_dlpack(np.ones(3, np.float32)).asnumpy(), np.ones(3))

"""Kernels spread over threads (``msc/codegen/threads.py``, the runtime's ``_rt_threaded``,
``_rt_run_parts`` and ``_rt_wino_threaded``): an outlined model's results are the same
to the bit on 1, 2 and 3 threads and agree with eager mode; the driver spreads the loop
nests and Winograd convolutions it should; a part's exception reaches the caller."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.codegen import threads
from msc.runtime import numba_rt


class Stack(nn.Cell):
    """Six 3x3 convolutions of 32 channels (Winograd's), each with a batch norm and a
    ReLU, a max pool and a residual add: a model large enough to be outlined."""

    def __init__(self):
        super().__init__()
        self.convs = nn.CellList([nn.Conv2d(32, 32, 3, pad_mode="pad", padding=1)
                                  for _ in range(6)])
        self.norms = nn.CellList([nn.BatchNorm2d(32) for _ in range(6)])
        self.pool = nn.MaxPool2d(3, 2, pad_mode="same")

    def construct(self, x):
        y = x
        for conv, norm in zip(self.convs, self.norms):
            y = ops.relu(norm(conv(y))) + y
        return self.pool(y) * 0.5


def test_outlined_model_is_the_same_on_1_2_and_3_threads(tmp_path, monkeypatch):
    from tests.codegen import build, compile_fn

    monkeypatch.setattr(threads, "MIN_WORK", 0)  # (every loop nest spread, small as it is)
    rng = np.random.default_rng(5)
    net = Stack()
    net.set_train(False)
    x = rng.standard_normal((2, 32, 16, 16)).astype(np.float32)
    compiled = compile_fn(net, [x], target="numba")
    built = build(compiled.module, "numba", tmp_path, [p.asnumpy() for p in compiled.weights])
    assert built.source.count("_rt_threaded(_k_") >= 6  # norms, ReLUs, adds, the pool
    assert built.source.count("= _rt_wino_threaded(") == 6
    got = {}
    for count in ("1", "2", "3"):
        monkeypatch.setenv("MSC_NUM_THREADS", count)
        got[count] = built(x)
    assert np.array_equal(got["1"], got["2"]) and np.array_equal(got["1"], got["3"])
    eager = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got["2"], eager, rtol=1e-4, atol=1e-4 * np.abs(eager).max())


def test_small_calls_stay_on_one_thread(tmp_path):
    """Below ``MIN_WORK`` a spread kernel is called over its whole range directly."""
    from tests.codegen import build, compile_fn

    net = Stack()
    net.set_train(False)
    x = np.ones((1, 32, 16, 16), np.float32)
    compiled = compile_fn(net, [x], target="numba")
    source = build(compiled.module, "numba", tmp_path,
                   [p.asnumpy() for p in compiled.weights]).source
    assert "_rt_threaded(_k_" not in source  # (8,192 elements a loop nest)
    assert ", 0, 32)" in source  # a norm's loop over all 32 channels, rows inside


def test_a_part_that_raises_raises_after_every_part_is_done(monkeypatch):
    done = []

    def part(k):
        if k == 1:
            raise IndexError("part 1")
        done.append(k)
        return k * 10

    assert numba_rt._rt_run_parts([(part, (0,)), (part, (2,))]) == [0, 20]
    with pytest.raises(IndexError, match="part 1"):
        numba_rt._rt_run_parts([(part, (0,)), (part, (1,)), (part, (2,))])
    assert sorted(done) == [0, 0, 2, 2]


def test_thread_count_comes_from_msc_num_threads(monkeypatch):
    monkeypatch.setenv("MSC_NUM_THREADS", "3")
    assert numba_rt._rt_thread_count() == 3
    monkeypatch.delenv("MSC_NUM_THREADS")
    assert numba_rt._rt_thread_count() >= 1
    monkeypatch.setenv("MSC_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="MSC_NUM_THREADS must be a whole number"):
        numba_rt._rt_thread_count()


def test_the_blas_runs_on_one_thread_while_a_driver_runs_and_as_before_after():
    blas = numba_rt._rt_blas_threads()
    if blas is None:
        pytest.skip("numpy's wheel bundles no OpenBLAS here: nothing to coordinate")
    before = blas[1]()
    with numba_rt._rt_own_threads():
        inside = blas[1]()
    assert inside == 1 and blas[1]() == before


@pytest.mark.parametrize("shape_a,shape_b", [((64, 96), (96, 1200)), ((3, 40, 50), (50, 530)),
                                             ((70, 33), (2, 33, 1100)), ((8, 16), (16, 8)),
                                             ((2, 3, 40, 64), (2, 3, 64, 140)),
                                             ((2, 1, 20, 30), (3, 30, 140)),
                                             ((394, 50), (50, 70)), ((2, 3, 600, 20), (20, 40))])
def test_products_cut_into_columns_are_the_same_on_any_number_of_threads(
        shape_a, shape_b, monkeypatch):
    """A driver's large product is BLAS calls over parts of its longer side, whichever
    thread makes them: 1, 2 and 3 threads give the same bits, numpy's product's values,
    and with a bias numpy's sum of the product and the bias."""
    monkeypatch.setattr(numba_rt, "_RT_PRODUCT_WORK", 0)
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape_a).astype(np.float32)
    b = rng.standard_normal(shape_b).astype(np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    got = {}
    for count in ("1", "2", "3"):
        monkeypatch.setenv("MSC_NUM_THREADS", count)
        got[count] = numba_rt._rt_products(a, b)
        out = np.full(want.shape, np.nan, np.float32)
        assert numba_rt._rt_products(a, b, out) is out and np.array_equal(out, got[count])
        # a bias of one value per column, added by each part: numpy's float32 sums
        bias = rng.standard_normal(want.shape[-1]).astype(np.float32)
        plus = numba_rt._rt_products(a, b, None, bias)
        assert np.array_equal(plus, got[count] + bias)
    assert got["1"].dtype == np.float32 and got["1"].shape == want.shape
    assert np.array_equal(got["1"], got["2"]) and np.array_equal(got["1"], got["3"])
    np.testing.assert_allclose(got["1"], want, rtol=1e-5, atol=1e-4)


def test_copies_in_parts_are_numpys(monkeypatch):
    """A driver's copy (_rt_copy) in parts along the first axis long enough, casting as
    numpy's assignment does; a broadcast source is copied whole."""
    monkeypatch.setattr(numba_rt, "_RT_COPY_SIZE", 0)
    rng = np.random.default_rng(4)
    src = rng.standard_normal((1, 5, 7, 9))
    window = np.lib.stride_tricks.as_strided(src, (1, 5, 3, 9), (src.strides[0], src.strides[1],
                                                                 src.strides[2], src.strides[3]))
    for count in ("2", "3"):
        monkeypatch.setenv("MSC_NUM_THREADS", count)
        dst = np.zeros((1, 5, 3, 9), np.float32)
        numba_rt._rt_copy(dst, window)
        assert np.array_equal(dst, window.astype(np.float32))
        whole = np.zeros((4, 9), np.float64)
        numba_rt._rt_copy(whole, src[0, 0, 0])  # (a row broadcast to every row)
        assert np.array_equal(whole, np.broadcast_to(src[0, 0, 0], (4, 9)))

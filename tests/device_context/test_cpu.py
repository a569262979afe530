"""``msc.device_context.cpu`` and ``set_context(num_threads=...)``: the threads generated
code and numpy's BLAS use, set as MindSpore sets its CPU kernels' threads."""

from __future__ import annotations

import os

import pytest

import msc as ms
from msc.device_context.cpu import op_tuning
from msc.errors import GraphValueError
from msc.runtime.numba_rt import _rt_blas_threads, _rt_thread_count


@pytest.fixture(autouse=True)
def _threads_restored(monkeypatch):
    monkeypatch.setenv("MSC_NUM_THREADS", "")  # (restored after the test)
    monkeypatch.setattr(op_tuning, "_SET", [])
    yield
    ms.set_context(num_threads=None)


def blas_threads():
    blas = _rt_blas_threads()
    return None if blas is None else blas[1]()


def test_set_context_num_threads_sets_generated_code_and_blas_threads():
    ms.set_context(num_threads=1)
    assert os.environ["MSC_NUM_THREADS"] == "1" and _rt_thread_count() == 1
    assert blas_threads() in (None, 1)
    ms.set_context(runtime_num_threads=3)  # MindSpore's name
    assert ms.get_context("num_threads") == 3 and _rt_thread_count() == 3
    ms.set_context(num_threads=None)
    assert "MSC_NUM_THREADS" not in os.environ
    assert _rt_thread_count() == len(os.sched_getaffinity(0))
    assert blas_threads() in (None, len(os.sched_getaffinity(0)))


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_num_threads_must_be_a_positive_whole_number(bad):
    with pytest.raises(GraphValueError, match="num_threads must be a positive whole number"):
        ms.set_context(num_threads=bad)


def test_threads_num_is_set_once_with_mindspores_errors():
    assert ms.device_context.cpu.is_available() and ms.device_context.cpu.device_count() == 1
    with pytest.raises(TypeError, match="The parameter 'num' must be <class 'int'>"):
        ms.device_context.cpu.op_tuning.threads_num("2")
    with pytest.raises(ValueError, match="The 'num' must be int and must > 0, but got '0'"):
        ms.device_context.cpu.op_tuning.threads_num(0)
    ms.device_context.cpu.threads_num(2)
    assert ms.get_context("num_threads") == 2 and _rt_thread_count() == 2
    with pytest.raises(RuntimeError, match="can not be set repeatedly"):
        ms.device_context.cpu.op_tuning.threads_num(2)

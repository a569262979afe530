"""Turning the compile cache on and off, as MindSpore spells it: the context wins over
the environment variables."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc.compiler import context_store
from msc.errors import GraphValueError


def twice(x):
    return x * 2 + 1


def entries(root):
    return [p for p in root.glob("*/*") if p.is_dir()]


def test_environment_switches_the_cache_on_at_its_path(tmp_path, monkeypatch):
    monkeypatch.setenv("MSC_COMPILER_CACHE_ENABLE", "1")
    monkeypatch.setenv("MSC_COMPILER_CACHE_PATH", str(tmp_path / "env"))
    ms.set_context(jit_target="python")
    out = ms.jit(twice)(ms.Tensor(np.arange(3, dtype=np.float32)))
    assert out.asnumpy().tolist() == [1.0, 3.0, 5.0]
    assert len(entries(tmp_path / "env")) == 1


def test_the_context_wins_over_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MSC_COMPILER_CACHE_ENABLE", "1")
    monkeypatch.setenv("MSC_COMPILER_CACHE_PATH", str(tmp_path / "env"))
    ms.set_context(enable_compile_cache=False)
    assert context_store() is None
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path / "ctx"))
    assert context_store().root == tmp_path / "ctx"
    monkeypatch.setenv("MSC_COMPILER_CACHE_ENABLE", "0")
    assert context_store() is not None  # the context said True


def test_off_by_default(monkeypatch):
    monkeypatch.delenv("MSC_COMPILER_CACHE_ENABLE", raising=False)
    assert context_store() is None
    fn = ms.jit(twice)
    fn(ms.Tensor(np.ones(2, np.float32)))
    assert next(iter(fn.cache.entries.values())).cache == "off"


@pytest.mark.parametrize("option, value", [("enable_compile_cache", "yes"),
                                           ("compile_cache_path", 3), ("reuse", "always"),
                                           ("if_to_select", "yes")])
def test_bad_settings_are_value_errors(option, value):
    with pytest.raises(GraphValueError, match=option):
        ms.set_context(**{option: value})

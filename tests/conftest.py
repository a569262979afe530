"""Shared fixtures: every test starts from the default context and an empty compile
cache of its own (``msc compile`` uses one unless ``--no-cache``; module fixtures share
the session's; the kernel library is the session's too, as it is a machine's). In-process
numba compiles wait for Numba (MSC_JIT_TIER=numba), so the
numba target is what the tests of the numba target run; ``tests/e2e/test_tiering.py``
tests the tiers."""

import numpy as np
import pytest

import msc


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("MSC_COMPILER_CACHE_PATH", str(tmp_path_factory.mktemp("compile-cache")))
    mp.delenv("MSC_COMPILER_CACHE_ENABLE", raising=False)
    mp.setenv("MSC_JIT_TIER", "numba")
    mp.setenv("MSC_KERNEL_CACHE_PATH", str(tmp_path_factory.mktemp("kernel-library")))
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def _fresh_context(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MSC_COMPILER_CACHE_PATH", str(tmp_path_factory.mktemp("cache")))
    msc.context.reset_context()
    yield
    msc.context.reset_context()


@pytest.fixture
def rng():
    return np.random.default_rng(0)

"""Shared fixtures: every test starts from the default context."""

import numpy as np
import pytest

import msc


@pytest.fixture(autouse=True)
def _fresh_context():
    msc.context.reset_context()
    yield
    msc.context.reset_context()


@pytest.fixture
def rng():
    return np.random.default_rng(0)

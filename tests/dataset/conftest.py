import pytest

from msc.dataset.core import config


@pytest.fixture(autouse=True)
def _unseeded():
    """Every test starts with the dataset seed unset, as a fresh process does."""
    config._seed = None
    yield
    config._seed = None

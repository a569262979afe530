"""The mode each gradient test runs in: GRAPH_MODE and PyNative, on the numpy target."""

import pytest

import msc as ms


@pytest.fixture(params=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE,
                   jit_target="python")
    yield request.param

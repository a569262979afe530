"""In-process compiled execution: @jit and GRAPH_MODE run generated code, both targets."""

import threading

import numpy as np
import pytest

import msc as ms
from msc import nn, ops


def two_hundred(input_x, input_y):
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output


@pytest.mark.parametrize("target", ["numba", "python"])
def test_200_iteration_model_runs_generated_code(target):
    ms.set_context(jit_target=target)
    func = ms.jit(two_hundred)
    x, y = ms.Tensor([1], ms.float32), ms.Tensor([2], ms.float32)
    out = func(x, y)
    assert out.dtype == ms.float32 and out.shape == (1,)
    assert out.asnumpy()[0] == 601.0                       # 1 + 200 * (1 + 1 * 2)
    np.testing.assert_array_equal(out.asnumpy(), two_hundred(x, y).asnumpy())
    compiled = next(iter(func.cache.entries.values()))
    assert compiled.code is not None and compiled.code.__name__.startswith("_msc_jit_")
    assert ("@_rt_jit" in compiled.source) == (target == "numba")
    assert "import msc" not in compiled.source and "from msc" not in compiled.source
    if target == "numba":   # CSE leaves 202 elementwise nodes; all fuse into one loop
        assert compiled.source.count("for i0 in range(1):") == 1
    func(x, y)
    assert func.cache.compiles == 1


@pytest.mark.parametrize("target", ["numba", "python"])
def test_graph_mode_mlp_equals_eager(target, rng):
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(16, 32), nn.GELU(), nn.LayerNorm((32,)), nn.Dense(32, 4),
                             nn.Softmax()])
    x = ms.Tensor(rng.normal(size=(8, 16)).astype(np.float32))
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    graph = net(x).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
    net.cells()  # the compiled Cell keeps working after inspection
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-6)


def test_parameter_updates_are_seen_without_recompiling():
    class Scale(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="w")

        @ms.jit
        def construct(self, x):
            return x * self.w

    net = Scale()
    x = ms.Tensor(np.array([3.0], np.float32))
    assert net(x).asnumpy()[0] == 6.0
    net.w.set_data(ms.Tensor(np.array([5.0], np.float32)))
    assert net(x).asnumpy()[0] == 15.0
    from msc.frontend.jit import cell_cache
    assert cell_cache(net).compiles == 1


def test_outputs_do_not_alias_inputs_or_weights():
    @ms.jit
    def passthrough(x):
        return x, ops.reshape(x, (2, 2))

    x = ms.Tensor(np.arange(4, dtype=np.float32))
    a, b = passthrough(x)
    a.asnumpy()[0] = 99.0
    assert x.asnumpy()[0] == 0.0
    np.testing.assert_array_equal(b.asnumpy(), [[0, 1], [2, 3]])
    x.asnumpy()[1] = 42.0
    assert b.asnumpy()[0, 1] == 1.0          # a reshaped input is returned as a copy


GC_DURING_COMPILE: list[bool] = []


@ops.constexpr
def _gc_state():  # runs while the graph is built
    import gc
    GC_DURING_COMPILE.append(gc.isenabled())
    return 2.0


def gc_probe(x):
    return x * _gc_state()


def gc_probe_fails(x):
    return x * _gc_state() + undefined_name  # noqa: F821 - a compile error


def test_the_cyclic_gc_is_paused_while_a_graph_compiles_and_restored_after():
    import gc
    ms.set_context(jit_target="python")
    x = ms.Tensor(np.ones(3, np.float32))
    GC_DURING_COMPILE.clear()
    assert gc.isenabled()
    np.testing.assert_array_equal(ms.jit(gc_probe)(x).asnumpy(), np.full(3, 2, np.float32))
    with pytest.raises(NameError):
        ms.jit(gc_probe_fails)(x)
    assert GC_DURING_COMPILE == [False, False] and gc.isenabled()
    gc.disable()  # a program that turned it off keeps it off
    try:
        ms.jit(gc_probe)(ms.Tensor(np.ones(4, np.float32)))
        assert not gc.isenabled()
    finally:
        gc.enable()
    GC_DURING_COMPILE.clear()  # another thread's compile pauses it too (the numba tier's)
    worker = threading.Thread(target=lambda: ms.jit(gc_probe)(ms.Tensor(np.ones(5, np.float32))))
    worker.start()
    worker.join()
    assert GC_DURING_COMPILE == [False] and gc.isenabled()
    from msc.collector import GC_PAUSE
    with GC_PAUSE:  # overlapping pauses: the collector is back on when the last one ends
        worker = threading.Thread(
            target=lambda: ms.jit(gc_probe)(ms.Tensor(np.ones(6, np.float32))))
        worker.start()
        worker.join()
        assert not gc.isenabled()
    assert GC_DURING_COMPILE == [False, False] and gc.isenabled()

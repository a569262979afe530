"""Tiered execution (``msc/tiering.py``): the python tier answers while Numba compiles in a
worker process; the numba tier takes over when loaded; each call runs one tier, so every
Parameter write happens once per call; a process may exit while the worker runs."""

import os
import signal
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.tiering import NumbaTier, TierWarning, ready_file


class Counter(nn.Cell):
    """Writes a Parameter on every call and returns a value that depends on it."""

    def __init__(self):
        super().__init__()
        self.calls = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="calls")
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)),
                              name="w")

    def construct(self, x):
        ops.assign_add(self.calls, ops.ones((1,), ms.float32))
        return ops.relu(ops.matmul(x, self.w)) * self.calls


def reference(x, w, calls):
    return np.maximum(x @ w, 0) * np.float32(calls)


def compiled_of(net):
    from msc.frontend.jit import cell_cache

    (compiled,) = cell_cache(net).entries.values()
    return compiled


def test_calls_while_numba_compiles_apply_each_write_once():
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="auto")
    net = Counter()
    x = np.arange(8, dtype=np.float32).reshape(4, 2) - 3
    tiers = []
    for i in range(1, 40):
        out = net(ms.Tensor(x))
        tiers.append(compiled_of(net).tier)
        np.testing.assert_array_equal(out.asnumpy(), reference(x, net.w.asnumpy(), i))
        assert out.dtype == ms.float32
    assert tiers[0] == "python"  # the first call did not wait for Numba
    assert ms.wait_for_compiles(timeout=300)
    for i in range(40, 43):
        out = net(ms.Tensor(x))
        np.testing.assert_array_equal(out.asnumpy(), reference(x, net.w.asnumpy(), i))
    assert compiled_of(net).tier == "numba"
    assert net.calls.asnumpy()[0] == 42  # once per call, whichever tier ran it


class WithConstants(nn.Cell):
    """Reads tensor constants (read-only arrays in the caller) beside a weight; a loop of
    two ops (a kernel, outlined)."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.full((3, 3), 0.5, np.float32)), name="w")
        self.scale = ms.Tensor(np.array([1.0, -2.0, 3.0], np.float32))
        self.shift = ms.Tensor(np.arange(3, dtype=np.float32))

    def construct(self, x):
        return ops.matmul(ops.tanh(x * self.scale), self.w) + self.shift


def kernels(module):
    from numba.core.dispatcher import Dispatcher

    return {name: d for name, d in vars(module).items() if isinstance(d, Dispatcher)}


@pytest.mark.parametrize("outlined,cpus", [(False, 2), (True, 2), (True, 1)])
def test_switching_to_the_loaded_numba_tier_compiles_nothing(monkeypatch, outlined, cpus):
    """The worker compiles for the arrays the caller passes (read-only constants included),
    so the first numba-tier call only runs what the loader thread took from Numba's cache.
    Where the module's foreseen calls are all it makes (outlined kernels of the library),
    the worker compiles that list instead: no arrays handed over, no call run; and on one
    CPU the tier's thread compiles it, no worker started."""
    from msc.codegen import outline
    from msc.codegen.numba_worker import FORESEEN

    if outlined:
        monkeypatch.setattr(outline, "OUTLINE_LINES", 0)
    monkeypatch.setenv("MSC_COMPILE_JOBS", str(cpus))
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="auto")
    net = WithConstants()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = np.tanh(x * [1, -2, 3]) @ np.full((3, 3), 0.5, np.float32) + np.arange(3)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), expected, rtol=1e-6)
    compiled = compiled_of(net)
    assert compiled.tier == "python"
    assert ms.wait_for_compiles(timeout=300)
    here = outlined and cpus == 1
    assert compiled.numba_tier.here == here
    assert (compiled.numba_tier.process is None) == here
    assert (compiled.numba_tier.args_file == FORESEEN) == (outlined and not here)
    assert any(not c.flags.writeable for c in compiled.numba_tier.constants)
    loaded = kernels(compiled.numba_tier.module)
    counts = {name: len(d.signatures) for name, d in loaded.items()}
    assert sum(counts.values()) >= 1
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), expected, rtol=1e-6)
    assert compiled.tier == "numba"
    assert {name: len(d.signatures) for name, d in loaded.items()} == counts
    assert all(not d.stats.cache_misses for d in loaded.values())


def test_a_graph_whose_kernels_the_library_holds_runs_numba_from_its_first_call(
        monkeypatch, tmp_path):
    """Once the kernel library holds every kernel of a graph, a new process (here a new
    Cell of the same graph: no compile cache) loads them on its first call instead of
    running the python tier and a worker; with an empty library the first call answers
    from the python tier, and so does a graph too small to ask the library."""
    import msc.codegen.outline
    import msc.compiler

    monkeypatch.setenv("MSC_KERNEL_CACHE_PATH", str(tmp_path / "library"))
    monkeypatch.setattr(msc.codegen.outline, "OUTLINE_LINES", 0)  # every loop a library kernel
    monkeypatch.setattr(msc.compiler, "LIBRARY_MIN_NODES", 0)  # however small the graph
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="auto", enable_compile_cache=False)
    x = np.arange(8, dtype=np.float32).reshape(4, 2) - 3
    first = Counter()
    first(ms.Tensor(x))
    assert compiled_of(first).tier == "python"
    assert ms.wait_for_compiles(timeout=300)
    second = Counter()
    for i in (1, 2):
        out = second(ms.Tensor(x))
        compiled = compiled_of(second)
        assert (compiled.tier, compiled.standby, compiled.numba_tier) == ("numba", None, None)
        np.testing.assert_array_equal(out.asnumpy(), reference(x, second.w.asnumpy(), i))
    assert not [line for line in compiled.source.splitlines() if line == "@_rt_jit"]
    monkeypatch.setattr(msc.compiler, "LIBRARY_MIN_NODES", 50)
    small = Counter()
    small(ms.Tensor(x))
    assert compiled_of(small).tier == "python"


def test_a_cache_hit_whose_kernels_the_library_holds_runs_numba_from_its_first_call(
        monkeypatch, tmp_path):
    """An entry the library served at its first call gets no worker, so no ready file: its
    manifest lists the library files it runs, and a later hit (here a new Cell) whose
    library holds them all compiled runs the numba tier at once, not the python tier."""
    import msc.codegen.outline
    import msc.compiler

    monkeypatch.setenv("MSC_KERNEL_CACHE_PATH", str(tmp_path / "library"))
    monkeypatch.setattr(msc.codegen.outline, "OUTLINE_LINES", 0)
    monkeypatch.setattr(msc.compiler, "LIBRARY_MIN_NODES", 0)
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="auto", enable_compile_cache=False)
    x = np.arange(8, dtype=np.float32).reshape(4, 2) - 3
    Counter()(ms.Tensor(x))  # fills the library
    assert ms.wait_for_compiles(timeout=300)
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path / "cache"))
    try:
        for cache in ("miss", "hit"):
            net = Counter()
            out = net(ms.Tensor(x))
            compiled = compiled_of(net)
            assert (compiled.cache, compiled.tier, compiled.standby) == (cache, "numba", None)
            assert compiled.manifest["library"]["stems"]
            assert not ready_file(compiled.module_path()).exists()
            np.testing.assert_array_equal(out.asnumpy(), reference(x, net.w.asnumpy(), 1))
    finally:
        ms.set_context(enable_compile_cache=False)


def test_tier_workers_wait_for_a_free_slot(monkeypatch):
    """With one worker slot, three graphs compiling at once run their workers one after
    another (never two alive together), all three reach the numba tier, and every call
    meanwhile is answered, by the python tier, with eager mode's values."""
    import threading

    from msc import tiering

    monkeypatch.setattr(tiering, "spare_cpus", lambda: 1)  # a worker even on one CPU
    monkeypatch.setattr(tiering, "_WORKER_SLOTS", threading.BoundedSemaphore(1))
    ms.set_context(mode=ms.GRAPH_MODE, jit_tier="auto")
    scales = (2.0, -3.0, 0.5)
    fns = [ms.jit(lambda x, s=s: ops.tanh(x) * s + x) for s in scales]
    x = np.linspace(-1, 1, 7, dtype=np.float32)
    want = [np.tanh(x) * np.float32(s) + x for s in scales]
    for f, w in zip(fns, want):
        np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), w, rtol=1e-6)
    tiers = [next(iter(f.cache.entries.values())).numba_tier for f in fns]
    while not all(t.done.is_set() for t in tiers):
        alive = [t for t in tiers if t.process is not None and t.process.poll() is None]
        assert len(alive) <= 1
        for f, w in zip(fns, want):
            np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), w, rtol=1e-6)
    assert ms.wait_for_compiles(timeout=300)
    assert all(t.process is not None and t.process.returncode == 0 for t in tiers)
    for f, w in zip(fns, want):
        np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), w, rtol=1e-6)
        assert next(iter(f.cache.entries.values())).tier == "numba"


def test_python_tier_alone_never_starts_numba():
    ms.set_context(jit_tier="python")

    @ms.jit
    def f(x):
        return ops.exp(x) + 1

    x = np.linspace(0, 1, 5, dtype=np.float32)
    np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), np.exp(x) + 1, rtol=1e-6)
    (compiled,) = f.cache.entries.values()
    assert (compiled.tier, compiled.numba_tier, compiled.standby) == ("python", None, None)


def test_numba_tier_alone_waits_for_numba():
    ms.set_context(jit_tier="numba")

    @ms.jit
    def f(x):
        return x * 2 - 1

    x = np.arange(4, dtype=np.int32)
    np.testing.assert_array_equal(f(ms.Tensor(x)).asnumpy(), x * 2 - 1)
    (compiled,) = f.cache.entries.values()
    assert compiled.tier == "numba" and compiled.standby is None
    assert compiled.code is not None and "@_rt_jit" in compiled.source


def test_a_module_numba_cannot_compile_reports_the_failure(tmp_path):
    module = tmp_path / "broken_kernel.py"
    module.write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def k(x):
            return x.no_such_method()

        def run(x):
            return k(x)
    """))
    tier = NumbaTier(lambda: (module, False, (), None), [np.zeros(3)])
    assert tier.wait(timeout=300)
    assert tier.module is None and "no_such_method" in tier.error
    assert not ready_file(module).exists()


def test_failed_numba_tier_warns_and_stays_on_python(monkeypatch):
    """A worker that cannot run (here: an interpreter path that does not exist) is a failed
    numba tier: one TierWarning, and the python tier keeps answering correctly."""
    monkeypatch.setattr("msc.tiering.sys.executable", "/nonexistent/python")
    ms.set_context(jit_tier="auto")

    @ms.jit
    def f(x):
        return x + 1

    x = np.arange(3, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(f(ms.Tensor(x)).asnumpy(), x + 1)
        assert ms.wait_for_compiles(timeout=300)
        for _ in range(3):
            np.testing.assert_array_equal(f(ms.Tensor(x)).asnumpy(), x + 1)
    assert [w.category for w in caught] == [TierWarning]
    assert "failed to compile" in str(caught[0].message)
    (compiled,) = f.cache.entries.values()
    assert compiled.tier == "python"


SCRIPT = """
import sys
import time
import numpy as np
import msc as ms

ms.set_context(jit_tier="auto", enable_compile_cache=True, compile_cache_path=sys.argv[1])
if sys.argv[2] == "pid":  # the worker starts behind a gate that never opens: it is killed
    import msc.tiering    # before it compiles anything, however slow or fast the machine
    msc.tiering.WORKER = sys.argv[3]

@ms.jit
def f(x, y):
    out = x
    for _ in range(5):
        out = ops.tanh(out) * y + x
    return out

from msc import ops
x = ms.Tensor(np.linspace(-2, 2, 7, dtype=np.float32))
y = ms.Tensor(np.float32(0.5) * np.ones(7, np.float32))
out = f(x, y)
(compiled,) = f.cache.entries.values()
print(compiled.cache, compiled.tier, out.asnumpy().tolist(), flush=True)
if sys.argv[2] == "pid":  # once the worker started (the tier's thread starts it)
    while compiled.numba_tier.process is None:
        time.sleep(0.01)
    print(compiled.numba_tier.process.pid, flush=True)
elif sys.argv[2] == "wait":
    assert ms.wait_for_compiles(timeout=300)
    print(compiled.cache, f(x, y) is not None and compiled.tier, flush=True)
"""


GATE = """
import time
while True:
    time.sleep(1)
"""


def run_script(tmp_path, cache, mode):
    env = {**os.environ, "MSC_JIT_TIER": ""}
    (tmp_path / "gate.py").write_text(GATE)
    proc = subprocess.run([sys.executable, str(tmp_path / "model.py"), str(cache), mode,
                           str(tmp_path / "gate.py")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n")


def expected():
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    out = x
    for _ in range(5):
        out = np.tanh(out) * np.float32(0.5) + x
    return out


def test_process_exiting_while_numba_compiles_leaves_a_sound_cache(tmp_path):
    (tmp_path / "model.py").write_text(SCRIPT)
    cache = tmp_path / "cache"
    first = run_script(tmp_path, cache, "pid")
    assert first[0].split(" ", 2)[:2] == ["miss", "python"]
    os.kill(int(first[1]), signal.SIGKILL)  # the worker dies before it compiled
    np.testing.assert_allclose(eval(first[0].split(" ", 2)[2]), expected(), rtol=1e-6)

    second = run_script(tmp_path, cache, "wait")  # the entry is sound: a hit, Numba again
    assert second[0].split(" ", 2)[:2] == ["hit", "python"]
    np.testing.assert_allclose(eval(second[0].split(" ", 2)[2]), expected(), rtol=1e-6)
    assert second[1] == "hit numba"

    third = run_script(tmp_path, cache, "none")  # warm: the numba tier from the first call
    assert third[0].split(" ", 2)[:2] == ["hit", "numba"]
    np.testing.assert_allclose(eval(third[0].split(" ", 2)[2]), expected(), rtol=1e-6)


HERE = """
import sys
import numpy as np
import msc as ms
from msc import nn, ops
from msc.codegen import outline

outline.OUTLINE_LINES = 0  # outlined: the library's kernels, every call foreseen
ms.set_context(mode=ms.GRAPH_MODE, jit_tier="auto", enable_compile_cache=True,
               compile_cache_path=sys.argv[1])

class Net(nn.Cell):
    def construct(self, x):
        return ops.relu(ops.exp(x) - ops.sqrt(ops.abs(x) + 1.5)) * x

net = Net()
x = ms.Tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
out = net(x)
from msc.frontend.jit import cell_cache
(compiled,) = cell_cache(net).entries.values()
if sys.argv[2] == "wait":
    assert ms.wait_for_compiles(timeout=300)
    out = net(x)
print(compiled.tier, out.asnumpy().tolist(), flush=True)
"""


def test_process_exiting_while_its_thread_compiles_ends_cleanly(tmp_path):
    """On one CPU the tier's thread compiles in the process: one that exits at once (its
    thread anywhere: generating, compiling, done) ends cleanly and leaves a cache the next
    process runs on, whichever point the thread had reached."""
    (tmp_path / "model.py").write_text(HERE)
    env = {**os.environ, "MSC_JIT_TIER": "", "MSC_COMPILE_JOBS": "1"}
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    expected = np.maximum(np.exp(x) - np.sqrt(np.abs(x) + np.float32(1.5)), 0) * x
    for mode, tier in (("exit", "python"), ("wait", "numba"), ("wait", "numba")):
        proc = subprocess.run([sys.executable, str(tmp_path / "model.py"),
                               str(tmp_path / "cache"), mode],
                              capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        ran, values = proc.stdout.split(" ", 1)
        assert ran == tier or (mode, ran) == ("exit", "numba")  # a warm cache: numba at once
        np.testing.assert_allclose(eval(values), expected, rtol=1e-5)

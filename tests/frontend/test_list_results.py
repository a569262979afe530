"""A graph returns the lists its Python result holds as lists, as MindSpore's graph mode
and eager mode do (the compiled code returns tuples; the compile records where the lists
are, and a compile-cache entry keeps it): after ``append``, ``insert`` and ``pop`` on
lists of tensors, nested in tuples, on both targets and from a cache hit in a fresh
process; against numpy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn

ROOT = Path(__file__).resolve().parents[2]
A = np.array([1.0, 2.0], np.float32)
B = np.array([3.0, -4.0], np.float32)


class Lists(nn.Cell):
    def construct(self, a, b):
        items = [a, b]
        items.insert(1, a + b)
        last = items.pop()
        items.append(last * 2)
        return items, (last, [a - b, 7]), ()


class Plain(nn.Cell):
    """Lists without list methods (a program calling them is not cached yet)."""

    def construct(self, a, b):
        return [a, (b, [a + b])]


def _shape(value):
    """The nesting of lists and tuples, leaves as their type's name."""
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_shape(v) for v in value]]
    return type(value).__name__


@pytest.mark.parametrize("mode", ["eager", "numba", "python"])
def test_lists_come_back_as_lists(mode):
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        results = [Lists()(Tensor(A), Tensor(B)) for _ in range(2)]  # the second: fast path
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for items, (last, pair), empty in results:
        assert _shape(items) == ["list", ["Tensor", "Tensor", "Tensor"]]
        assert _shape(pair) == ["list", ["Tensor", "int"]]
        assert empty == ()
        for got, want in zip(items, [A, A + B, B * 2]):
            np.testing.assert_allclose(got.asnumpy(), want)
        np.testing.assert_allclose(last.asnumpy(), B)
        np.testing.assert_allclose(pair[0].asnumpy(), A - B)
        assert pair[1] == 7


SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import msc as ms
    sys.path.insert(0, sys.argv[1])
    from test_list_results import Plain, A, B
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=sys.argv[2])
    items = Plain()(ms.Tensor(A), ms.Tensor(B))
    print(json.dumps([type(items).__name__, type(items[1][1]).__name__, len(items)]))
""")


def test_a_compile_cache_hit_keeps_the_lists(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = []
    for _ in range(2):  # a miss that stores the entry, then a hit in a fresh process
        proc = subprocess.run([sys.executable, "-c", SCRIPT, str(Path(__file__).parent),
                               str(tmp_path / "cache")], capture_output=True, text=True,
                              env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1] == ["list", "list", 2]
    manifests = list((tmp_path / "cache").rglob("manifest.json"))
    assert manifests and all("lists" in json.loads(m.read_text()) for m in manifests)

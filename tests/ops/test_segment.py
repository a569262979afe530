"""``ops.SegmentSum/Max/Min/Mean/Prod``: reductions over runs of sorted segment ids with
max(id) + 1 rows (empty segments 0, 1 for a product), against numpy, their gradient, in a
graph with constant ids (and msc's error at the user's line for ids the graph computes), and
against MindSpore itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from msc.errors import MscError

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
rng = np.random.default_rng(5)
X = rng.standard_normal((6, 2)).astype(np.float32)
IDS = np.array([0, 0, 2, 2, 2, 4], np.int32)
NUMPY = {"Sum": np.sum, "Max": np.max, "Min": np.min, "Mean": np.mean, "Prod": np.prod}


def _expected(kind, x, ids):
    out = np.full((ids[-1] + 1,) + x.shape[1:], 1 if kind == "Prod" else 0, x.dtype)
    for s in np.unique(ids):
        out[s] = NUMPY[kind](x[ids == s], axis=0)
    return out


@pytest.mark.parametrize("kind", sorted(NUMPY))
def test_eager(kind):
    out = getattr(ops, f"Segment{kind}")()(Tensor(X), Tensor(IDS))
    assert out.dtype == ms.float32 and out.shape == (5, 2)
    np.testing.assert_allclose(out.asnumpy(), _expected(kind, X, IDS), rtol=1e-6)


def test_integers_and_rank3():
    xi = rng.integers(-9, 9, (6, 2, 3)).astype(np.int32)
    ids = Tensor(IDS.astype(np.int64))
    for kind in ("Sum", "Max", "Prod"):
        out = getattr(ops, f"Segment{kind}")()(Tensor(xi), ids)
        assert out.dtype == ms.int32
        np.testing.assert_array_equal(out.asnumpy(), _expected(kind, xi, IDS))
    mean = ops.SegmentMean()(Tensor(xi), ids).asnumpy()
    sums, sizes = _expected("Sum", xi, IDS), np.bincount(IDS)[:, None, None]
    np.testing.assert_array_equal(mean, np.trunc(sums / np.maximum(sizes, 1)))


def test_gradients():
    x = Tensor(X)
    g_sum = ops.grad(lambda v: (ops.SegmentSum()(v, Tensor(IDS)) ** 2).sum())(x)
    sums = _expected("Sum", X, IDS)
    np.testing.assert_allclose(g_sum.asnumpy(), 2 * sums[IDS], rtol=1e-6)
    g_mean = ops.grad(lambda v: ops.SegmentMean()(v, Tensor(IDS)).sum())(x)
    np.testing.assert_allclose(g_mean.asnumpy(), 1 / np.bincount(IDS)[IDS][:, None] *
                               np.ones_like(X), rtol=1e-6)
    g_max = ops.grad(lambda v: ops.SegmentMax()(v, Tensor(IDS)).sum())(x).asnumpy()
    top = np.zeros_like(X)
    for s in np.unique(IDS):
        rows = np.flatnonzero(IDS == s)
        top[rows[np.argmax(X[rows], 0)], np.arange(2)] = 1
    np.testing.assert_array_equal(g_max, top)


class ConstantIds(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ids = Tensor(IDS)

    def construct(self, x):
        return ops.SegmentMax()(x, self.ids) + ops.SegmentSum()(x, self.ids)


class ComputedIds(nn.Cell):
    def construct(self, x, ids):
        return ops.SegmentSum()(x, ids)


def test_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = ConstantIds()(Tensor(X))
        with pytest.raises(MscError, match="must be a constant") as err:
            ComputedIds()(Tensor(X), Tensor(IDS))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), _expected("Max", X, IDS) +
                               _expected("Sum", X, IDS), rtol=1e-6)
    assert "test_segment.py" in str(err.value) and isinstance(err.value, TypeError)


@pytest.mark.parametrize("ids, x, error, words", [
    (np.array([0, 2, 1, 3, 3, 4], np.int32), X, ValueError, "sorted in ascending order"),
    (np.array([-1, 0, 0, 1, 1, 1], np.int32), X, ValueError, "non-negative"),
    (IDS[:5], X, ValueError, "one id per row"),
    (IDS.astype(np.float32), X, TypeError, "int32 or int64"),
])
def test_checks(ids, x, error, words):
    with pytest.raises(error, match=words):
        ops.SegmentSum()(Tensor(x), Tensor(ids))


SCRIPT = textwrap.dedent("""
    import numpy as np
    from {lib} import Tensor, ops
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 3)).astype(np.float32)
    xi = rng.integers(-5, 5, (7, 3)).astype(np.int32)
    ids = Tensor(np.array([1, 1, 1, 3, 4, 4, 6], np.int32))
    out = {{}}
    for kind in ("Sum", "Max", "Min", "Mean", "Prod"):
        for name, v in (("f", x), ("i", xi)):
            out[kind + name] = getattr(ops, "Segment" + kind)()(Tensor(v), ids).asnumpy()
    np.savez("results.npz", **out)
""")


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore 2.10 is not installed in .peers/ms")
def test_matches_mindspore(tmp_path, monkeypatch):
    (tmp_path / "seg.py").write_text(SCRIPT.format(lib="mindspore"))
    run = subprocess.run([str(MINDSPORE), "seg.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = dict(np.load(tmp_path / "results.npz"))
    monkeypatch.chdir(tmp_path)
    exec(compile(SCRIPT.format(lib="msc"), "seg.py", "exec"), {})
    ours = dict(np.load(tmp_path / "results.npz"))
    for key, want in theirs.items():
        assert ours[key].dtype == want.dtype and ours[key].shape == want.shape, key
        np.testing.assert_allclose(ours[key], want, rtol=1e-6, err_msg=key)

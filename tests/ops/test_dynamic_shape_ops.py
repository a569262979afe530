"""Ops whose result's shape depends on the data (``nonzero``, ``argwhere``,
``masked_select``, ``unique``, ``unique_consecutive``, ``bincount``, their primitive
classes and Tensor methods) against numpy eagerly, and msc's error at the user's line in
a graph; ``unique_with_pad`` and ``CountNonZero`` (static shapes) compiled too; and
against MindSpore itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import inspect
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from msc.errors import GraphTypeError, MscError

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
X = np.array([[0, 3, 0], [2, 0, 1]], np.float32)
U = np.array([3, 1, 2, 1, 3, 5, 2], np.int32)


def _first_order(values):
    """Distinct values in order of first appearance and each element's rank among them."""
    seen = []
    for v in values.tolist():
        if v not in seen:
            seen.append(v)
    return np.array(seen, values.dtype), np.array([seen.index(v) for v in values.tolist()])


def test_nonzero_argwhere_masked_select():
    want = np.array([(i, j) for i in range(2) for j in range(3) if X[i, j] != 0])
    for got in (ops.nonzero(Tensor(X)), ops.argwhere(Tensor(X)), ops.NonZero()(Tensor(X)),
                Tensor(X).nonzero(), Tensor(X).argwhere()):
        assert got.dtype == ms.int64 and got.shape == (3, 2)
        np.testing.assert_array_equal(got.asnumpy(), want)
    rows, cols = ops.nonzero(Tensor(X), as_tuple=True)
    np.testing.assert_array_equal(rows.asnumpy(), want[:, 0])
    np.testing.assert_array_equal(cols.asnumpy(), want[:, 1])
    mask = np.array([True, False, True])
    want_sel = [X[i, j] for i in range(2) for j in range(3) if mask[j]]
    for got in (ops.masked_select(Tensor(X), Tensor(mask)), Tensor(X).masked_select(
            Tensor(mask)), ops.MaskedSelect()(Tensor(X), Tensor(mask))):
        assert got.dtype == ms.float32
        np.testing.assert_array_equal(got.asnumpy(), want_sel)
    with pytest.raises(TypeError, match="bool"):
        ops.masked_select(Tensor(X), Tensor(mask.astype(np.int32)))


def test_unique_family():
    values, rank = _first_order(U)
    for got_v, got_i in (ops.unique(Tensor(U)), ops.Unique()(Tensor(U))):
        np.testing.assert_array_equal(got_v.asnumpy(), values)
        assert got_i.dtype == ms.int32
        np.testing.assert_array_equal(got_i.asnumpy(), rank)
    assert ops.unique(Tensor(U.astype(np.int64)))[1].dtype == ms.int64
    padded, idx = ops.unique_with_pad(Tensor(U), -1)
    np.testing.assert_array_equal(padded.asnumpy(),
                                  np.concatenate([values, [-1] * (U.size - values.size)]))
    np.testing.assert_array_equal(idx.asnumpy(), rank)
    np.testing.assert_array_equal(Tensor(U).unique_with_pad(0)[0].asnumpy()[values.size:], 0)
    sorted_v, inverse, counts = Tensor(U).unique(return_inverse=True, return_counts=True)
    distinct = sorted(set(U.tolist()))
    np.testing.assert_array_equal(sorted_v.asnumpy(), distinct)
    np.testing.assert_array_equal(inverse.asnumpy(), [distinct.index(v) for v in U.tolist()])
    np.testing.assert_array_equal(counts.asnumpy(), [U.tolist().count(v) for v in distinct])
    runs = np.array([1, 1, 2, 2, 3, 1, 1], np.int32)
    out, inv, cnt = ops.unique_consecutive(Tensor(runs), True, True)
    np.testing.assert_array_equal(out.asnumpy(), [1, 2, 3, 1])
    assert inv.dtype == ms.int64 and cnt.dtype == ms.int64
    np.testing.assert_array_equal(inv.asnumpy(), [0, 0, 1, 1, 2, 3, 3])
    np.testing.assert_array_equal(cnt.asnumpy(), [2, 2, 1, 2])
    np.testing.assert_array_equal(Tensor(runs).unique_consecutive().asnumpy(), [1, 2, 3, 1])
    rows = np.array([[1, 2], [1, 2], [3, 4], [1, 2]], np.int32)
    out, cnt = ops.unique_consecutive(Tensor(rows), return_counts=True, dim=0)
    np.testing.assert_array_equal(out.asnumpy(), [[1, 2], [3, 4], [1, 2]])
    np.testing.assert_array_equal(cnt.asnumpy(), [2, 1, 1])
    assert len(ops.UniqueConsecutive()(Tensor(runs))) == 3


def test_bincount_and_count_nonzero():
    want = np.zeros(max(U) + 1)
    for v in U:
        want[v] += 1
    got = ops.bincount(Tensor(U))
    assert got.dtype == ms.float32
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(Tensor(U).bincount(minlength=9).asnumpy(),
                                  np.append(want, [0, 0, 0]))
    w = np.arange(U.size, dtype=np.float32)
    weighted = np.zeros(max(U) + 1)
    for v, k in zip(U, w):
        weighted[v] += k
    np.testing.assert_allclose(ops.bincount(Tensor(U), Tensor(w)).asnumpy(), weighted)
    np.testing.assert_array_equal(ops.Bincount()(Tensor(U), Tensor(np.int32(4)),
                                                 Tensor(np.zeros(0, np.float32))).asnumpy(),
                                  want[:4])
    with pytest.raises(ValueError, match="one-dimensional"):
        ops.bincount(Tensor(U.reshape(7, 1)))
    with pytest.raises(ValueError, match="minlength"):
        ops.bincount(Tensor(U), minlength=-1)
    counted = ops.CountNonZero(dims=[1])(Tensor(X))
    assert counted.dtype == ms.int64
    np.testing.assert_array_equal(counted.asnumpy(), (X != 0).sum(1))
    assert int(ops.CountNonZero()(Tensor(X)).asnumpy()) == 3


def nonzero_in_graph(x):
    return ops.nonzero(x)


def masked_in_graph(x):
    return x.masked_select(x > 1)


@pytest.mark.parametrize("fn", [nonzero_in_graph, masked_in_graph])
def test_data_dependent_shapes_are_msc_errors_in_graphs(fn):
    line = inspect.getsourcelines(fn)[1] + 1
    with pytest.raises(GraphTypeError) as info:
        ms.jit(fn)(Tensor(X))
    assert isinstance(info.value, MscError)
    message = str(info.value)
    assert "depends on the data" in message
    assert f"{Path(__file__).name}:{line}:" in message


def test_static_shapes_compile():
    @ms.jit
    def f(x, y):
        values, idx = ops.unique_with_pad(x, -1)
        return values, idx, ops.CountNonZero(dims=[0])(y)

    values, idx, counted = f(Tensor(U), Tensor(X))
    eager = ops.unique_with_pad(Tensor(U), -1)
    np.testing.assert_array_equal(values.asnumpy(), eager[0].asnumpy())
    np.testing.assert_array_equal(idx.asnumpy(), eager[1].asnumpy())
    assert idx.dtype == ms.int32
    np.testing.assert_array_equal(counted.asnumpy(), (X != 0).sum(0))


SCRIPT = r'''
import json, numpy as np
from mindspore import ops, Tensor
X, U = (np.array(a, t) for a, t in zip(json.load(open("data.json")), (np.float32, np.int32)))
out = {"nonzero": ops.nonzero(Tensor(X)).asnumpy().tolist(),
       "masked": ops.masked_select(Tensor(X), Tensor(X > 1)).asnumpy().tolist(),
       "unique": [t.asnumpy().tolist() for t in ops.unique(Tensor(U))],
       "pad": [t.asnumpy().tolist() for t in ops.unique_with_pad(Tensor(U), Tensor(np.int32(-1)))],
       "cons": [t.asnumpy().tolist() for t in ops.unique_consecutive(Tensor(U), True, True)],
       "bincount": ops.Bincount()(Tensor(U), Tensor(np.int32(5)),
                                  Tensor(np.arange(U.size, dtype=np.float32))).asnumpy().tolist()}
print(json.dumps(out))
'''


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the ops are checked against numpy above")
def test_matches_mindspore_itself(tmp_path):
    (tmp_path / "data.json").write_text(json.dumps([X.tolist(), U.tolist()]))
    (tmp_path / "run.py").write_text(SCRIPT)
    proc = subprocess.run([str(MINDSPORE), "run.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = {"nonzero": ops.nonzero(Tensor(X)).asnumpy().tolist(),
            "masked": ops.masked_select(Tensor(X), Tensor(X > 1)).asnumpy().tolist(),
            "unique": [t.asnumpy().tolist() for t in ops.unique(Tensor(U))],
            "pad": [t.asnumpy().tolist() for t in ops.unique_with_pad(Tensor(U), -1)],
            "cons": [t.asnumpy().tolist() for t in ops.unique_consecutive(Tensor(U), True, True)],
            "bincount": ops.Bincount()(Tensor(U), Tensor(np.int32(5)),
                                       Tensor(np.arange(U.size, dtype=np.float32))).asnumpy()
            .tolist()}
    assert ours == theirs

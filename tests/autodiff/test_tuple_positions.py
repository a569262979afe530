"""Gradient positions over arguments that are tuples, as MindSpore 2.10 counts them:
``grad_position`` indexes every argument, a tuple (or number) argument has no gradient,
and ``ms.grad`` returns ``()`` for none, the gradient itself for one and a tuple for
more; ``GradOperation(get_all=True)`` the tensor arguments' gradients, and its first
input's when that is a tensor (``()`` when a tuple). Eagerly and compiled, against numpy
and against MindSpore itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
X = np.array([1.0, 2.0], np.float32)
Y = np.array([3.0, 4.0], np.float32)
W = np.array([0.5, -1.5], np.float32)


def f(t, z, w):
    return (t[0] * t[1] * z * w).sum()


def g(z, t, w):
    return (t[0] * t[1] * z * w).sum()


D_Z, D_W = X * Y * W, X * Y * Y  # with z = Y, w = W: d/dz = t0 t1 w, d/dw = t0 t1 z


def _calls():
    """name -> (call, the gradients expected: None for (), an array, or a tuple)."""
    args = ((Tensor(X), Tensor(Y)), Tensor(Y), Tensor(W))
    swapped = (Tensor(Y), (Tensor(X), Tensor(Y)), Tensor(W))
    return {
        "position 1": (lambda: ms.grad(f, 1)(*args), D_Z),
        "position 0 is the tuple": (lambda: ms.grad(f, 0)(*args), None),
        "positions (1,)": (lambda: ms.grad(f, (1,))(*args), D_Z),
        "positions (0, 2)": (lambda: ms.grad(f, (0, 2))(*args), D_W),
        "positions (0, 1, 2)": (lambda: ms.grad(f, (0, 1, 2))(*args), (D_Z, D_W)),
        "positions (1, 2) after a tuple": (lambda: ms.grad(g, (1, 2))(*swapped), D_W),
        "value_and_grad (0, 1)": (lambda: ms.value_and_grad(g, (0, 1))(*swapped)[1], D_Z),
        "get_all": (lambda: ops.GradOperation(get_all=True)(f)(*args), (D_Z, D_W)),
        "first is the tuple": (lambda: ops.GradOperation()(f)(*args), None),
        "first is a tensor": (lambda: ops.GradOperation()(g)(*swapped), D_Z),
    }


def _check(got, want):
    if want is None:
        assert got == ()
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-6)
    else:
        assert not isinstance(got, tuple)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["eager", "numba", "python"])
@pytest.mark.parametrize("name", sorted(_calls()))
def test_positions_count_every_argument(mode, name):
    call, want = _calls()[name]
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        got = call()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _check(got, want)


def test_one_position_of_tensors_is_bare_and_return_ids_keeps_positions():
    def h(a, b):
        return (a * b).sum()

    _check(ms.grad(h, (1,))(Tensor(X), Tensor(Y)), X)
    pairs = ms.grad(f, (0, 1, 2), return_ids=True)((Tensor(X), Tensor(Y)), Tensor(Y), Tensor(W))
    assert [p for p, _ in pairs] == [1, 2]
    with pytest.raises(IndexError, match="Position index 3"):
        ms.grad(f, (1, 3))((Tensor(X), Tensor(Y)), Tensor(Y), Tensor(W))


SCRIPT = r'''
import json, numpy as np
import mindspore as ms
from mindspore import ops, Tensor
ms.set_context(mode=ms.GRAPH_MODE)
X, Y, W = (np.array(v, np.float32) for v in json.loads(open("data.json").read()))
def f(t, z, w):
    return (t[0] * t[1] * z * w).sum()
def g(z, t, w):
    return (t[0] * t[1] * z * w).sum()
args = ((Tensor(X), Tensor(Y)), Tensor(Y), Tensor(W))
swapped = (Tensor(Y), (Tensor(X), Tensor(Y)), Tensor(W))
calls = {
    "position 1": lambda: ms.grad(f, 1)(*args),
    "position 0 is the tuple": lambda: ms.grad(f, 0)(*args),
    "positions (1,)": lambda: ms.grad(f, (1,))(*args),
    "positions (0, 2)": lambda: ms.grad(f, (0, 2))(*args),
    "positions (0, 1, 2)": lambda: ms.grad(f, (0, 1, 2))(*args),
    "positions (1, 2) after a tuple": lambda: ms.grad(g, (1, 2))(*swapped),
    "value_and_grad (0, 1)": lambda: ms.value_and_grad(g, (0, 1))(*swapped)[1],
    "get_all": lambda: ops.GradOperation(get_all=True)(f)(*args),
    "first is the tuple": lambda: ops.GradOperation()(f)(*args),
    "first is a tensor": lambda: ops.GradOperation()(g)(*swapped),
}
def plain(v):
    return [plain(x) for x in v] if isinstance(v, tuple) else {"tensor": v.asnumpy().tolist()}
print(json.dumps({k: plain(c()) for k, c in calls.items()}))
'''


def _plain(v):
    return [_plain(x) for x in v] if isinstance(v, tuple) else {"tensor": v.asnumpy().tolist()}


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the positions are checked against numpy above")
def test_positions_match_mindspore_itself(tmp_path):
    (tmp_path / "data.json").write_text(json.dumps([X.tolist(), Y.tolist(), W.tolist()]))
    (tmp_path / "grads.py").write_text(SCRIPT)  # MindSpore's graph mode reads the file
    proc = subprocess.run([str(MINDSPORE), "grads.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ours = {k: _plain(call()) for k, (call, _) in _calls().items()}
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert ours.keys() == theirs.keys()
    for k in ours:
        assert _structure(ours[k]) == _structure(theirs[k]), k
        np.testing.assert_allclose(_flat(ours[k]), _flat(theirs[k]), rtol=1e-6, err_msg=k)


def _flat(v):
    return [x for item in v for x in _flat(item)] if isinstance(v, list) else v["tensor"]


def _structure(v):
    return [_structure(x) for x in v] if isinstance(v, list) else "tensor"

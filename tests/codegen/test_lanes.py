"""Weight arenas and lane loops: many Parameters cost the kernel no extra arguments, and
identical chains over many tensors compile as one loop; results stay right and fresh."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.ops import composite as C
from msc.ops import functional as F

N, SHAPE = 6, (3, 4)
update = C.MultitypeFuncGraph("lanes_update")


@update.register("Number", "Tensor", "Tensor")
def _update(lr, param, grad):  # type: ignore[no-untyped-def]
    return param * 0.5 - lr * grad


class Update(nn.Cell):
    """HyperMap's update over N Parameters; also returns one result doubled (a lane's
    result read again inside the kernel)."""

    def __init__(self) -> None:
        super().__init__()
        self.params = ms.ParameterTuple(
            ms.Parameter(ms.Tensor(np.arange(12, dtype=np.float32).reshape(SHAPE) + i),
                         name=f"w{i}") for i in range(N))
        self.hyper_map = C.HyperMap()

    def construct(self, grads):  # type: ignore[no-untyped-def]
        out = self.hyper_map(F.partial(update, 0.25), self.params, grads)
        return out, ops.exp(out[2])


def want(params: list[np.ndarray], grads: list[np.ndarray]) -> list[np.ndarray]:
    return [p * np.float32(0.5) - np.float32(0.25) * g for p, g in zip(params, grads)]


def grads_of(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(size=SHAPE).astype(np.float32) for _ in range(N))


@pytest.mark.parametrize("target", ["numba", "python"])
def test_hypermap_update_is_one_lane_loop_and_right(target: str) -> None:
    net = Update()
    grads = grads_of(0)
    compiled = compile_entry(net, [arg_spec(grads)], store=None, target=target)
    kernel = compiled.spec.kernel
    if target == "numba":  # the five lanes whose result exp does not read: one loop
        assert len(re.findall(r"for lane\w* in range\(5\)", compiled.source)) == 1
        assert len(kernel.params) < N  # packed gradients, one arena
    else:
        assert len(kernel.params) == N + 2  # the gradients, the arena and its offsets
    params = [p.asnumpy().copy() for p in net.params]
    first, doubled = compiled.run([tuple(ms.Tensor(g) for g in grads)])
    expected = want(params, list(grads))
    for got, w in zip(first, expected):
        np.testing.assert_array_equal(got.asnumpy(), w)
    np.testing.assert_allclose(doubled.asnumpy(), np.exp(expected[2]), rtol=1e-6)
    kept = [t.asnumpy().copy() for t in first]
    net.params[1].set_data(np.full(SHAPE, 7.0, np.float32))  # seen by the next call
    again, _ = compiled.run([tuple(ms.Tensor(g) for g in grads_of(1))])
    params[1] = np.full(SHAPE, 7.0, np.float32)
    for got, w in zip(again, want(params, list(grads_of(1)))):
        np.testing.assert_array_equal(got.asnumpy(), w)
    for t, k in zip(first, kept):  # results handed out are never written again
        np.testing.assert_array_equal(t.asnumpy(), k)
    arrays = [t.asnumpy() for t in again]
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])


class Scale(nn.Cell):
    def __init__(self, params: ms.ParameterTuple) -> None:
        super().__init__()
        self.params = params

    def construct(self, x):  # type: ignore[no-untyped-def]
        for p in self.params:
            ops.assign(p, p * x)
        return x


class Sum(nn.Cell):
    def __init__(self, params: ms.ParameterTuple) -> None:
        super().__init__()
        self.params = params

    def construct(self, x):  # type: ignore[no-untyped-def]
        out = x
        for p in self.params:
            out = out + p
        return out


def test_graphs_sharing_parameters_merge_their_arenas() -> None:
    """Two graphs over overlapping Parameters, called in turn: each sees the other's
    writes, and eager reads, set_data and a deep copy keep working."""
    params = [ms.Parameter(ms.Tensor(np.full(2, i + 1.0, np.float32)), name=f"q{i}")
              for i in range(4)]
    scale = Scale(ms.ParameterTuple(params[:3]))
    total = Sum(ms.ParameterTuple(params[1:]))
    x = np.array([2.0, 3.0], np.float32)
    run_scale = compile_entry(scale, [arg_spec(x)], store=None, target="python")
    run_sum = compile_entry(total, [arg_spec(x)], store=None, target="python")
    values = [np.full(2, i + 1.0, np.float32) for i in range(4)]
    for _ in range(2):
        run_scale.run([ms.Tensor(x)])
        values[:3] = [v * x for v in values[:3]]
        np.testing.assert_array_equal(run_sum.run([ms.Tensor(x)]).asnumpy(),
                                      x + sum(values[1:]))
    for p, v in zip(params, values):
        np.testing.assert_array_equal(p.asnumpy(), v)
    clone = copy.deepcopy(params[2])
    params[2].set_data(np.zeros(2, np.float32))
    np.testing.assert_array_equal(clone.asnumpy(), values[2])
    values[2] = np.zeros(2, np.float32)
    np.testing.assert_array_equal(run_sum.run([ms.Tensor(x)]).asnumpy(), x + sum(values[1:]))
    params[3].set_data(np.ones(5, np.float32))  # a new shape leaves the arena
    run_scale.run([ms.Tensor(x)])
    values[:3] = [v * x for v in values[:3]]
    for p, v in zip(params[:3], values):
        np.testing.assert_array_equal(p.asnumpy(), v)

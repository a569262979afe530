"""``HyperMap``, ``MultitypeFuncGraph`` and ``partial``: eager == compiled == numpy, and in a
graph the mapped function is built once per element signature, not once per element."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.compiler import arg_spec, compile_entry
from msc.errors import GraphTypeError
from msc.frontend.specialize import specialize
from msc.ops import composite as C
from msc.ops import functional as F
from tests.codegen import check_module, to_numpy

update = C.MultitypeFuncGraph("update")


@update.register("Number", "Tensor", "Tensor")
def _update_tensor(lr, param, grad):
    return param - lr * grad


@update.register("Number", "Tensor", "Number")
def _update_number(lr, param, grad):
    return param * (1 - lr * grad)


class Sgd(nn.Cell):
    def __init__(self, n, shapes=((3,),)):
        super().__init__()
        self.params = ms.ParameterTuple(
            [ms.Parameter(ms.Tensor(np.full(shapes[i % len(shapes)], i + 1, np.float32)),
                          name=f"p{i}") for i in range(n)])
        self.hyper_map = C.HyperMap()

    def construct(self, grads):
        return self.hyper_map(F.partial(update, 0.5), self.params, grads)


@pytest.mark.parametrize("n", [1, 2, 8, 64])
def test_hypermap_over_n_tensors(n, rng, tmp_path):
    net = Sgd(n)
    grads = tuple(rng.standard_normal(3).astype(np.float32) for _ in range(n))
    want = tuple(np.full(3, i + 1, np.float32) - 0.5 * g for i, g in enumerate(grads))
    eager = to_numpy(net(tuple(ms.Tensor(g) for g in grads)))
    for got, w in zip(eager, want):
        np.testing.assert_allclose(got, w, rtol=1e-6)
    spec = arg_spec(tuple(ms.Tensor(g) for g in grads))
    parsed = specialize(net, [spec]).module
    assert [g.name for g in parsed.graphs][1:] == ["update_map"]  # built once
    assert [n_.op.name for n_ in parsed.entry_graph.nodes].count("Call") == n
    c = compile_entry(net, [spec], store=None, target="python")
    check_module(c.module, list(grads), tmp_path, want, [p.asnumpy() for p in c.weights])


def test_one_graph_per_element_signature(rng):
    net = Sgd(6, shapes=((3,), (2, 2)))
    grads = tuple(ms.Tensor(rng.standard_normal((3,) if i % 2 == 0 else (2, 2))
                            .astype(np.float32)) for i in range(6))
    parsed = specialize(net, [arg_spec(grads)]).module
    assert len(parsed.graphs) == 3  # the entry and one update graph per shape


class Mixed(nn.Cell):
    """Numbers dispatch to the other registration; nested tuples map recursively."""

    def construct(self, x, y):
        mapper = C.HyperMap(F.partial(update, 0.5))
        return mapper((x, (y, x)), (1.0, (y, 2.0)))


def test_dispatch_by_type_names_and_nested_tuples(tmp_path):
    x, y = np.array([1.0, 2.0], np.float32), np.array([4.0, 8.0], np.float32)
    want = (x * 0.5, (y - 0.5 * y, x * 0.0))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    first, (second, third) = to_numpy(Mixed()(ms.Tensor(x), ms.Tensor(y)))
    for got, w in zip((first, second, third), (want[0], *want[1])):
        np.testing.assert_allclose(got, w)
    c = compile_entry(Mixed(), [arg_spec(x), arg_spec(y)], store=None, target="python")
    check_module(c.module, [x, y], tmp_path, want)


def test_the_names_mindspore_scripts_use():
    assert ms.ops.HyperMap is C.HyperMap and ms.ops.MultitypeFuncGraph is C.MultitypeFuncGraph
    assert ms.ops.partial is F.partial
    assert F.partial(lambda a, b: a - b, 5)(2) == 3


def test_misuse_is_a_type_error():
    with pytest.raises(GraphTypeError, match=r"no function registered for \(Number, Number, "
                                             r"String\)"):
        update(0.5, 1.0, "x")
    with pytest.raises(GraphTypeError, match="same length"):
        C.HyperMap(F.partial(update, 0.5))((ms.Tensor(1.0),), (1.0, 2.0))
    assert C.HyperMap(reverse=True)(lambda a: a * 2, (1, 2, 3)) == (2, 4, 6)


def test_the_example_gives_the_same_results_both_ways():
    import subprocess
    import sys

    root = __file__.rsplit("/tests/", 1)[0]
    proc = subprocess.run([sys.executable, "examples/hypermap.py", "4"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # one Load in the mapped graph, against one per Parameter in the loop
    assert lines[0].startswith("HyperMapUpdate: 4 tensors, 8 IR nodes after parsing")
    assert lines[1].startswith("LoopUpdate: 4 tensors, 13 IR nodes after parsing")
    assert lines[-1] == "same results: True"

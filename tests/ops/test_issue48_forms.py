"""Forms MindCV's and the model zoo's training code uses: ``ops.Map`` at module level
beside ``HyperMap`` (top level of the sequences only), ``ops.identity`` / ``F.identity``
of any value, a ``TrainOneStepCell`` subclass whose ``construct`` calls a ``@jit``
helper method, eagerly and in graphs, against plain Python loops and numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from msc.ops import composite as C
from msc.ops import functional as F

TARGETS = ["numba", "python"]

_scale_update = ops.MultitypeFuncGraph("scale_update")
_map = ops.Map()


@_scale_update.register("Number", "Tensor", "Tensor")
def _update_tensor(lr, param, grad):
    return param - lr * grad


@_scale_update.register("Number", "Tuple", "Tensor")
def _update_pair(lr, pair, grad):
    """A nested tuple reaches the function whole under ``Map``."""
    return pair[0] * pair[1] - lr * grad


class MapStep(nn.Cell):
    """MindCV's optimizer shape: ``_map(ops.partial(fn, lr), tuple1, tuple2)``."""

    def construct(self, params, grads):
        return _map(ops.partial(_scale_update, 0.5), params, grads)


def _inputs(rng):
    a, b, c, d = (rng.standard_normal(s).astype(np.float32) for s in [(3,), (2, 2), (2, 2), (4,)])
    ga, gb, gd = (rng.standard_normal(s).astype(np.float32) for s in [(3,), (2, 2), (4,)])
    params = (Tensor(a), (Tensor(b), Tensor(c)), Tensor(d))
    grads = (Tensor(ga), Tensor(gb), Tensor(gd))
    want = (a - 0.5 * ga, b * c - 0.5 * gb, d - 0.5 * gd)
    return params, grads, want


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
def test_map_applies_to_the_top_level_only(mode):
    params, grads, want = _inputs(np.random.default_rng(0))
    loop = tuple(_scale_update(0.5, p, g) for p, g in zip(params, grads))  # a plain loop
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        got = MapStep()(params, grads)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert isinstance(got, tuple) and len(got) == 3
    for g, l, w in zip(got, loop, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)
        np.testing.assert_allclose(g.asnumpy(), l.asnumpy(), rtol=1e-6)


def test_hypermap_recurses_where_map_does_not():
    rng = np.random.default_rng(1)
    x = (Tensor(rng.standard_normal(2).astype(np.float32)),
         (Tensor(rng.standard_normal(3).astype(np.float32)),))
    lengths = ops.Map()(lambda v: len(v) if isinstance(v, tuple) else 0, x)
    assert lengths == (0, 1)
    doubled = C.HyperMap()(lambda v: v * 2, x)
    np.testing.assert_allclose(doubled[1][0].asnumpy(), x[1][0].asnumpy() * 2)
    assert ops.Map(F.neg)([x[0]])[0].shape == (2,)  # a list maps to a list
    assert isinstance(ops.Map(F.neg)([x[0]]), list)
    reversed_order = []
    ops.Map(reverse=True)(lambda v: reversed_order.append(v) or v, (1, 2, 3))
    assert reversed_order == [3, 2, 1]
    with pytest.raises(ms.errors.GraphTypeError, match="same length"):
        ops.Map()(F.add, (x[0],), (x[0], x[0]))


class Reduced(nn.Cell):
    """MindCV's train step: ``self.grad_reducer = F.identity`` over the gradients' tuple."""

    def __init__(self, reducer):
        super().__init__()
        self.grad_reducer = reducer

    def construct(self, grads, x):
        grads = self.grad_reducer(grads)
        return grads[0] + grads[1] * self.grad_reducer(x) + self.grad_reducer(2)


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
@pytest.mark.parametrize("reducer", [ops.identity, F.identity], ids=["ops", "F"])
def test_identity_passes_any_value_through(mode, reducer):
    rng = np.random.default_rng(2)
    a, b, x = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    grads = (Tensor(a), Tensor(b))
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        got = Reduced(reducer)(grads, Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got.asnumpy(), a + b * x + 2, rtol=1e-6)
    same = reducer(grads)
    assert isinstance(same, tuple) and len(same) == 2 and same[0] is grads[0]
    assert reducer(None) is None and reducer([1, 2]) == [1, 2]
    np.testing.assert_array_equal(reducer(Tensor(x)).asnumpy(), x)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, -0.5, 2.0], np.float32)), name="w")

    def construct(self, x, mask):
        return ((self.w * x) ** 2).sum() * mask.sum()


def _step_class(decorator):
    class ClippedStep(nn.TrainOneStepCell):
        """The model zoo Transformer's ``TransformerTrainOneStepCell`` shape."""

        @decorator
        def clip_grads(self, grads):
            return ops.clip_by_global_norm(grads, 1.0)

        def construct(self, x, mask):
            loss = self.network(x, mask)
            grads = self.grad(self.network, self.weights)(x, mask, ops.ones_like(loss))
            grads = self.clip_grads(grads)
            self.optimizer(grads)
            return loss

    return ClippedStep


@pytest.mark.parametrize("mode", ["eager", "python"])
@pytest.mark.parametrize("decorator", [ms.jit, ms.ms_function], ids=["jit", "ms_function"])
def test_a_jit_method_called_from_construct_is_its_own_function(mode, decorator):
    x, mask = np.array([0.5, 1.0, 2.0], np.float32), np.ones(2, np.float32)
    w = np.array([1.0, -0.5, 2.0])
    losses = []
    for _ in range(2):  # numpy: the loss, its gradient clipped to norm 1, an SGD step
        losses.append(np.sum((w * x) ** 2) * 2)
        g = 2 * w * x ** 2 * 2
        w = w - 0.1 * g / max(np.linalg.norm(g), 1.0)
    net = Net()
    step = _step_class(decorator)(net, nn.SGD(net.trainable_params(), 0.1))
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        got = [float(step(Tensor(x), Tensor(mask)).asnumpy()) for _ in range(2)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, losses, rtol=1e-5)
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-5)


class Member(nn.Cell):
    """``x in [t1, t2]`` beside another condition, with constant tensors (Cell
    attributes) and graph inputs."""

    def __init__(self):
        super().__init__()
        self.t1 = Tensor(np.array([1.0, 2.0], np.float32))
        self.t2 = Tensor(np.array([3.0, 4.0], np.float32))
        self.t3 = Tensor(np.array([3.0, 4.0], np.float32))

    def construct(self, x, y):
        out = x * 0
        if self.t3 in [self.t1, self.t2] and y > 0:  # constants: equal values, not identity
            out = out + 1
        if x in (self.t1, self.t2) or y < 0:
            out = out + 10
        if not x in [self.t2] and y > 0:  # noqa: E713
            out = out + 100
        return out


@pytest.mark.parametrize("target", TARGETS)
def test_a_tensor_in_a_list_is_mindspores_bool_tensor(target):
    """MindSpore's graph mode: true where an element of the same dtype and shape equals
    the tensor in every position (Python's ``in`` would take the truth value of an
    elementwise comparison and raise)."""
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    try:
        for x, y, want in [([1.0, 2.0], 1.0, 111), ([3.0, 4.0], 1.0, 11), ([1.0, 4.0], 1.0, 101),
                           ([1.0, 4.0], -1.0, 10)]:
            got = Member()(Tensor(np.array(x, np.float32)), Tensor(np.array(y, np.float32)))
            np.testing.assert_array_equal(got.asnumpy(), np.full(2, want, np.float32))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_mutable_from_msc_common_is_the_function():
    from msc.common import mutable

    assert callable(mutable) and mutable is ms.mutable
    x = Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(mutable(x).asnumpy(), x.asnumpy())

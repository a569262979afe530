"""Mixed precision (``train/amp.py``, ``common/amp_scope.py``, ``nn/wrap/loss_scale.py``):
the casts of ``Cell.to_float`` and of the amp levels, eagerly and compiled, the dtypes of
outputs and gradients, and loss-scaled training.

What MindSpore 2.10 (CPU) did, run from ``.peers/ms`` while writing these tests:

- ``to_float(float16)`` in PyNative mode casts the floating inputs of *every op* run inside
  the cell (``x + ones(float32)`` is float16, ``cast(x, float32) * 2`` is float16 again,
  ``cast`` itself gives float32, int ops stay int). Its GRAPH_MODE casts only the cell's
  inputs and attributes (there ``x + ones(float32)`` is float32); msc follows PyNative.
- A float32 cell inside a float16 one computes in float32; after it returns, the outer
  cell's ops are float16 again. Writes (``assign``) leave a float32 Parameter float32.
- O2 wraps the network in ``_OutputTo32`` and each BatchNorm/LayerNorm in ``_OutputTo16``
  (the norms' flags fp32), O3 wraps the network in ``_OutputTo32`` with every cell fp16;
  Parameter names and dtypes (float32) are unchanged; every output and gradient of the
  wrapped network is float32, the inner network's outputs float16.
- O1 (the rewrite) raised ImportError on CPU for a network in a module of a temporary
  folder; its casts here follow MindSpore's source (white-listed Cells and primitives run
  in float16, each output cast back to float32).
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, amp, nn, ops
from msc import dtype as mstype

F16, F32 = mstype.float16, mstype.float32

MODES = [pytest.param(ms.PYNATIVE_MODE, id="eager"), pytest.param(ms.GRAPH_MODE, id="graph")]


@pytest.fixture(params=MODES)
def mode(request):
    ms.set_context(mode=request.param, jit_target="python")
    return request.param


class OpsInside(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
        self.c = Tensor(np.ones(3, np.float32))

    def construct(self, x, i):
        d = ops.cast(x, mstype.float32)
        return (x + ops.ones((3,), mstype.float32), x * self.w, x + self.c, d, d * 2, i + 1)


def test_to_float_casts_the_inputs_of_every_op_as_pynative_does(mode):
    net = OpsInside().to_float(F16)
    out = net(Tensor(np.full(3, 1.5, np.float32)), Tensor(np.ones(3, np.int32)))
    assert [o.dtype for o in out] == [F16, F16, F16, F32, F16, mstype.int32]
    np.testing.assert_array_equal(out[0].asnumpy(), np.full(3, 2.5, np.float16))
    assert net.w.dtype == F32 and net.fp16 and not net.fp32


class Inner(nn.Cell):
    def construct(self, x):
        return x * 1


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")

    def construct(self, x):
        y = self.inner(x)
        z = ops.assign_add(self.p, x)
        return y, ops.cast(x, mstype.float32) * 1, z


def test_a_float32_cell_inside_a_float16_one_and_writes(mode):
    net = Outer()
    net.to_float(F16)
    net.inner.to_float(F32)
    y, again16, z = net(Tensor(np.ones(3, np.float32)))
    assert (y.dtype, again16.dtype, z.dtype, net.p.dtype) == (F32, F16, F32, F32)
    np.testing.assert_array_equal(net.p.asnumpy(), np.ones(3, np.float32))


def test_to_float_rejects_other_types():
    with pytest.raises(ValueError, match="dst_type"):
        Inner().to_float(mstype.int32)


def test_a_float16_dense_computes_in_float16(mode, rng):
    dense = nn.Dense(5, 3).to_float(F16)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    out = dense(Tensor(x))
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    want = (x.astype(np.float16).astype(np.float32) @ w.astype(np.float16).astype(np.float32).T
            + b.astype(np.float16))
    assert out.dtype == F16
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want, rtol=2e-3, atol=2e-3)
    # in float32 the result differs from the float16 one by more than float32 rounding
    assert not np.allclose(nn.Dense(5, 3, weight_init=Tensor(w), bias_init=Tensor(b))(
        Tensor(x)).asnumpy(), out.asnumpy(), rtol=1e-6, atol=0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d1 = nn.Dense(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.ln = nn.LayerNorm((4,))
        self.relu = nn.ReLU()
        self.d2 = nn.Dense(4, 2)

    def construct(self, x):
        a = self.d1(x)
        b = self.ln(self.bn(a))
        return self.d2(ops.exp(self.relu(b))), a, b


PARAMS = ["d1.weight", "d1.bias", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta",
          "ln.gamma", "ln.beta", "d2.weight", "d2.bias"]
CELLS = {
    "O2": [("", "_OutputTo32", None, None), ("_backbone", "Net", True, False),
           ("_backbone.d1", "Dense", True, False), ("_backbone.bn", "_OutputTo16", None, None),
           ("_backbone.bn._backbone", "BatchNorm1d", False, True),
           ("_backbone.ln", "_OutputTo16", None, None),
           ("_backbone.ln._backbone", "LayerNorm", False, True),
           ("_backbone.relu", "ReLU", True, False), ("_backbone.d2", "Dense", True, False)],
    "O3": [("", "_OutputTo32", None, None), ("_backbone", "Net", True, False),
           ("_backbone.d1", "Dense", True, False), ("_backbone.bn", "BatchNorm1d", True, False),
           ("_backbone.ln", "LayerNorm", True, False), ("_backbone.relu", "ReLU", True, False),
           ("_backbone.d2", "Dense", True, False)],
}


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_amp_levels_wrap_and_cast_as_mindspore(mode, level, rng):
    net = Net().set_train()
    wrapped = amp.auto_mixed_precision(net, level)
    if level in CELLS:
        assert [(n, type(c).__name__, getattr(c, "fp16", None), getattr(c, "fp32", None))
                for n, c in wrapped.cells_and_names()] == CELLS[level]
    assert [p.name for p in wrapped.get_parameters()] == PARAMS
    assert all(p.dtype == F32 for p in wrapped.get_parameters())
    x = Tensor(rng.standard_normal((5, 3)).astype(np.float32))
    assert [o.dtype for o in wrapped(x)] == [F32] * 3
    if level != "O1":  # the inner network computes in float16
        assert [o.dtype for o in net(x)] == [F16] * 3
    grads = ms.grad(lambda v: wrapped(v)[0].sum(), None, wrapped.trainable_params())(x)
    assert [g.dtype for g in grads] == [F32] * 8
    assert all(np.isfinite(g.asnumpy()).all() for g in grads)


def test_o1_rounds_the_white_listed_ops_to_float16(rng):
    dense = nn.Dense(6, 3)
    x = rng.standard_normal((2, 6)).astype(np.float32)
    ref = dense(Tensor(x)).asnumpy()
    out = amp.auto_mixed_precision(dense, "O1")(Tensor(x))
    assert out.dtype == F32
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=5e-3, atol=5e-3)
    assert not np.array_equal(out.asnumpy(), ref)


def test_amp_argument_errors():
    with pytest.raises(TypeError, match="should be Cell"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    with pytest.raises(ValueError, match="amp level O4 is not supported"):
        amp.auto_mixed_precision(Inner(), "O4")
    with pytest.raises(ValueError, match="one of white_list and black_list"):
        amp.custom_mixed_precision(Inner())
    with pytest.raises(ValueError, match="Unsupported arg 'foo'"):
        amp.build_train_network(Inner(), nn.SGD([Parameter(Tensor(1.0), "a")]), foo=1)
    assert amp.get_black_list() == [nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm]
    assert nn.Dense in amp.get_white_list() and ops.MatMul in amp.get_white_list()


# --- loss scaling ---------------------------------------------------------------------------


def dynamic_rule(scale, flags, factor, window):
    """MindSpore's DynamicLossScaleUpdateCell, written from its documentation: the scale
    used by each step, and after the last."""
    cur, last, used = 1, 0, []
    for overflow in flags:
        used.append(scale)
        if overflow:
            scale = max(scale / factor, 1.0)
        grow = window <= cur - last
        if overflow or grow:
            last = cur
        if grow and not overflow:
            scale *= factor
        cur += 1
    return used, scale


def test_the_dynamic_update_cell_follows_mindspores_rule(mode):
    flags = [False, False, True, False, False, False, True, True, False, False]
    cell = nn.DynamicLossScaleUpdateCell(2.0 ** 4, 2, 3)
    scale = Parameter(Tensor(np.float32(2.0 ** 4)), name="scale")
    seen = []
    for flag in flags:
        seen.append(float(scale.asnumpy()))
        assert bool(cell(scale, Tensor(flag)).asnumpy()) is flag
    used, final = dynamic_rule(2.0 ** 4, flags, 2, 3)
    assert seen == used and float(scale.asnumpy()) == final


def regression(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    return x, (x @ rng.standard_normal((4, 2)) + 0.1).astype(np.float32)


def mlp():
    ms.set_seed(3)
    return nn.SequentialCell([nn.Dense(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dense(16, 2)])


def train(level, steps=15, **kwargs):
    x, y = regression()
    net = mlp()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = amp.build_train_network(net, opt, nn.MSELoss(), level=level, **kwargs)
    out = [step(Tensor(x), Tensor(y)) for _ in range(steps)]
    return step, [float((o[0] if isinstance(o, tuple) else o).asnumpy()) for o in out]


def test_float16_training_with_loss_scaling_follows_float32():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    _, full = train("O0")
    step, half = train("O2", loss_scale_manager=amp.DynamicLossScaleManager(2.0 ** 12, 2, 5))
    assert isinstance(step, nn.TrainOneStepWithLossScaleCell)
    assert half[-1] < 0.25 * half[0]
    np.testing.assert_allclose(half, full, rtol=0.05, atol=0.02)
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 15  # three windows without overflow


def test_the_numba_target_makes_the_same_casts():
    """A float16 Dense's value and float32 weight gradients, compiled for Numba (one
    compile), equal the numpy target's up to float16 rounding of the sum."""
    x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    results = []
    for target in ("python", "numba"):
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
        ms.set_seed(0)
        dense = nn.Dense(4, 3).to_float(F16)
        out, grads = ms.value_and_grad(lambda v: dense(v).sum(), None, dense.trainable_params())(x)
        results.append((out, grads))
    (a, ga), (b, gb) = results
    assert a.dtype == b.dtype == F16 and [g.dtype for g in gb] == [F32, F32]
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=2e-3)
    for u, v in zip(ga, gb):
        np.testing.assert_array_equal(u.asnumpy(), v.asnumpy())


def test_an_overflowing_scale_skips_the_update_and_shrinks(mode):
    x, y = regression(8)
    net = mlp()
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = amp.build_train_network(net, opt, nn.MSELoss(), level="O3",
                                   loss_scale_manager=amp.DynamicLossScaleManager(2.0 ** 24))
    first = [step(Tensor(x), Tensor(y)) for _ in range(3)]
    # float16 gradients of a loss scaled by 2^24 overflow: no update, the scale halves
    assert [bool(o[1].asnumpy()) for o in first] == [True, True, True]
    assert [float(o[2].asnumpy()) for o in first] == [2.0 ** 24, 2.0 ** 23, 2.0 ** 22]
    for p, b in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)
    for _ in range(12):
        loss, overflow, scale = step(Tensor(x), Tensor(y))
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) < 2.0 ** 22
    assert any(not np.array_equal(p.asnumpy(), b) for p, b in zip(net.trainable_params(), before))


def test_a_fixed_tensor_scale_and_set_sense_scale(mode):
    x, y = regression(8)
    net = nn.WithLossCell(mlp(), nn.MSELoss())
    step = nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1),
                                            Tensor(np.float32(64.0)))
    loss, overflow, scale = step(Tensor(x), Tensor(y))
    assert (loss.dtype, overflow.dtype, float(scale.asnumpy())) == (F32, mstype.bool_, 64.0)
    step.set_sense_scale(Tensor(np.float32(8.0)))
    assert float(step(Tensor(x), Tensor(y))[2].asnumpy()) == 8.0
    with pytest.raises(ValueError, match=r"must be \(1,\) or \(\)"):
        nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params()),
                                         Tensor(np.ones(2, np.float32)))


def test_loss_scale_managers():
    fixed = amp.FixedLossScaleManager(32.0, drop_overflow_update=False)
    assert fixed.get_loss_scale() == 32.0 and fixed.get_update_cell() is None
    assert isinstance(amp.FixedLossScaleManager().get_update_cell(), nn.FixedLossScaleUpdateCell)
    dyn = amp.DynamicLossScaleManager(16, 2, 2)
    for overflow in [False, False, True, False]:
        dyn.update_loss_scale(overflow)
    assert dyn.get_loss_scale() == 16  # 32 after two finite steps, halved on the overflow
    assert ms.FixedLossScaleManager is amp.FixedLossScaleManager
    assert ms.build_train_network is amp.build_train_network


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the dtypes above are MindSpore 2.10's, written down in this file's notes")
def test_dtypes_match_mindspore_itself(tmp_path):
    script = textwrap.dedent("""
        import json, numpy as np, mindspore as ms
        from mindspore import nn, ops, Tensor, Parameter, amp
        import mindspore.common.dtype as mstype
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.d1 = nn.Dense(3, 4); self.bn = nn.BatchNorm1d(4)
                self.ln = nn.LayerNorm((4,)); self.relu = nn.ReLU(); self.d2 = nn.Dense(4, 2)
            def construct(self, x):
                a = self.d1(x)
                b = self.ln(self.bn(a))
                return self.d2(ops.exp(self.relu(b))), a, b
        out = {}
        x = Tensor(np.ones((5, 3), np.float32))
        for level in ["O2", "O3"]:
            net = Net().set_train()
            w = amp.auto_mixed_precision(net, level)
            out[level] = [[str(o.dtype) for o in w(x)], [str(o.dtype) for o in net(x)],
                          [p.name for p in w.get_parameters()]]
        print(json.dumps(out))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for level in ["O2", "O3"]:
        net = Net().set_train()
        w = amp.auto_mixed_precision(net, level)
        x = Tensor(np.ones((5, 3), np.float32))
        assert theirs[level] == [[str(o.dtype) for o in w(x)], [str(o.dtype) for o in net(x)],
                                 [p.name for p in w.get_parameters()]]


def test_the_names_real_scripts_import():
    import msc.train.model
    from msc import Model
    from msc.common.api import jit, ms_function
    from msc.common.mutable import mutable
    from msc.train import DynamicLossScaleManager, build_train_network

    assert Model is msc.train.model.Model and jit is ms.jit and ms_function is ms.ms_function
    assert mutable is ms.mutable and build_train_network is amp.build_train_network
    assert DynamicLossScaleManager is ms.DynamicLossScaleManager
    assert ops.make_tuple(1, 2) == (1, 2) and ops.functional.tuple_getitem((3, 4), 1) == 4
    assert ms.float_ is ms.single is F32 and ms.half is F16 and ms.double is ms.float64
    assert ms.dtype_to_pytype(ms.int8) is int and ms.pytype_to_dtype(bool) is ms.bool_

"""MindSpore's API surface in msc: import paths, "not supported yet" errors, learning-rate
schedules and lists, loss scalers, checkpoints, parameter names, initializers and
``train.Model``; schedules and scalers eagerly and compiled on both targets against the
formulas written out in numpy."""

from __future__ import annotations

import json
import math
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn
from msc.api_names import UnsupportedApiError
from msc.common.initializer import Initializer
from msc.errors import MscError

MODES = ["eager", "numba", "python"]


def _set_mode(mode):
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)


# --- import paths and unsupported names ------------------------------------------------


def test_mindspore_import_paths_resolve_to_msc_objects():
    from msc.common.initializer import Initializer, Normal
    from msc.nn import dynamic_lr, learning_rate_schedule, optim
    from msc.train import Model
    from msc.train.serialization import load_checkpoint, save_checkpoint

    assert optim.Momentum is nn.Momentum and learning_rate_schedule.WarmUpLR is nn.WarmUpLR
    assert dynamic_lr.cosine_decay_lr is nn.cosine_decay_lr
    assert ms.train.Model is Model and ms.amp.DynamicLossScaler is not None
    assert save_checkpoint is ms.save_checkpoint and load_checkpoint is ms.load_checkpoint
    assert issubclass(Normal, Initializer)


def missing(namespace):
    """A MindSpore 2.10 name msc does not have yet (taken live: names keep being added)."""
    from msc.coverage import coverage

    return coverage(namespace).missing[0]


@pytest.mark.parametrize("owner, namespace", [(ms, "top"), (ms.ops, "ops_functions"),
                                              (ms.nn, "nn"), (ms.ops, "ops_classes")])
def test_missing_mindspore_name_raises_msc_unsupported_error(owner, namespace):
    name = missing(namespace)
    with pytest.raises(UnsupportedApiError, match="not supported by msc yet"):
        getattr(owner, name)
    assert not hasattr(owner, name)
    assert isinstance(UnsupportedApiError("x"), (AttributeError, MscError))


def test_missing_tensor_method_and_unknown_names():
    t = Tensor(np.ones(2, np.float32))
    method, function = missing("tensor"), missing("ops_functions")
    with pytest.raises(UnsupportedApiError, match=f"Tensor.{method}"):
        getattr(t, method)
    for owner in (ms, ms.ops, ms.nn, t):
        with pytest.raises(AttributeError) as info:
            owner.not_a_mindspore_name  # noqa: B018
        assert not isinstance(info.value, UnsupportedApiError)
    with pytest.raises(ImportError):
        exec(f"from msc.ops import {function}", {})


def test_dataset_module_is_msc_dataset():
    import msc.dataset

    assert ms.dataset is msc.dataset and ms.dataset.GeneratorDataset is not None


# --- learning-rate schedules -------------------------------------------------------------


def _schedule_reference(name, step):
    """The schedules' formulas in float64, step by step."""
    if name == "exp":
        return 0.1 * 0.9 ** (step / 4)
    if name == "exp_stair":
        return 0.1 * 0.9 ** math.floor(step / 4)
    if name == "natural_stair":
        return 0.1 * math.exp(-0.9 * (step // 4 * 4))
    if name == "inverse":
        return 0.1 / (1 + 0.5 * step / 2)
    if name == "cosine":
        return 0.01 + 0.045 * (1 + math.cos(math.pi * min(step, 10) / 10))
    if name == "poly":
        return 0.09 * (1 - min(step, 2) / 2) ** 0.5 + 0.01
    if name == "poly_update":
        period = 2 * max(math.ceil(step / 2), 1)
        return 0.09 * (1 - step / period) ** 0.5 + 0.01
    return 0.1 * min(step, 4) / 4  # warmup


SCHEDULES = {
    "exp": lambda: nn.ExponentialDecayLR(0.1, 0.9, 4),
    "exp_stair": lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, True),
    "natural_stair": lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4, True),
    "inverse": lambda: nn.InverseDecayLR(0.1, 0.5, 2),
    "cosine": lambda: nn.CosineDecayLR(0.01, 0.1, 10),
    "poly": lambda: nn.PolynomialDecayLR(0.1, 0.01, 2, 0.5),
    "poly_update": lambda: nn.PolynomialDecayLR(0.1, 0.01, 2, 0.5, True),
    "warmup": lambda: nn.WarmUpLR(0.1, 4),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_cells_follow_their_formulas(name, mode):
    _set_mode(mode)
    schedule = SCHEDULES[name]()
    for step in (0, 1, 3, 5, 12):
        out = schedule(Tensor(np.array(step, np.int32)))
        assert out.dtype == ms.float32 and out.shape == ()
        np.testing.assert_allclose(out.asnumpy(), _schedule_reference(name, step), rtol=2e-6)


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.ExponentialDecayLR(1, 0.9, 4), TypeError, "'learning_rate' must be float"),
    (lambda: nn.ExponentialDecayLR(-0.1, 0.9, 4), ValueError, "must be float and must > 0"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError, "'decay_steps' must be int"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 2.0), TypeError, "'decay_steps' must be int"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 2, 1), TypeError, "'is_stair' should be 'bool'"),
    (lambda: nn.CosineDecayLR(0.1, 0.01, 10), ValueError, "greater than the 'min_lr'"),
    (lambda: nn.CosineDecayLR(0, 0.1, 10), TypeError, "'min_lr' must be type of float"),
    (lambda: nn.WarmUpLR(-0.1, 2), ValueError, "must >= 0"),
])
def test_schedule_argument_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def _per_step(total, per_epoch, rate_of_epoch):
    return [rate_of_epoch(i // per_epoch) for i in range(total)]


def test_dynamic_lr_lists_follow_their_formulas():
    cases = [
        (nn.exponential_decay_lr(0.1, 0.9, 7, 2, 2), lambda e: 0.1 * 0.9 ** (e / 2)),
        (nn.exponential_decay_lr(0.1, 0.9, 7, 2, 2, True), lambda e: 0.1 * 0.9 ** (e // 2)),
        (nn.natural_exp_decay_lr(0.1, 0.9, 7, 2, 2, True),
         lambda e: 0.1 * math.exp(-0.9 * (e // 2 * 2))),
        (nn.inverse_decay_lr(0.1, 0.5, 7, 2, 2), lambda e: 0.1 / (1 + 0.5 * e / 2)),
        (nn.cosine_decay_lr(0.01, 0.1, 7, 2, 2),
         lambda e: 0.01 + 0.045 * (1 + math.cos(math.pi * min(e, 2) / 2))),
        (nn.polynomial_decay_lr(0.1, 0.01, 7, 2, 2, 0.5),
         lambda e: 0.09 * (1 - min(e, 2) / 2) ** 0.5 + 0.01),
        (nn.warmup_lr(0.1, 7, 2, 2), lambda e: 0.1 * min(e, 2) / 2),
    ]
    for got, rate in cases:
        assert all(isinstance(r, float) for r in got)
        np.testing.assert_allclose(got, _per_step(7, 2, rate), rtol=1e-12)
    assert nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]) == \
        [0.1] * 2 + [0.05] * 3 + [0.01]


def test_dynamic_lr_errors():
    with pytest.raises(ValueError, match=r"milestone\[2\] must be greater"):
        nn.piecewise_constant_lr([2, 5, 4], [0.1, 0.05, 0.01])
    with pytest.raises(ValueError, match="size of 'milestone' must be same"):
        nn.piecewise_constant_lr([2, 5], [0.1, 0.05, 0.01])
    with pytest.raises(TypeError, match=r"'learning_rates\[1\]' must be 'float'"):
        nn.piecewise_constant_lr([2, 5], [0.1, 1])
    with pytest.raises(ValueError, match="'total_step' must be int and must > 0"):
        nn.exponential_decay_lr(0.1, 0.9, 0, 2, 2)


# --- loss scaling ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_loss_scaler_scales_and_adjusts_like_its_rule(mode):
    _set_mode(mode)
    scaler = ms.amp.DynamicLossScaler(8.0, 2, 2)

    def step(grads, finite):
        ok = ms.amp.all_finite(grads)
        unscaled = scaler.unscale(grads)
        scaler.adjust(finite)
        return ok, unscaled, scaler.scale(grads[0])

    run = ms.jit(step) if mode != "eager" else step
    g = np.array([1.0, -3.0], np.float32)
    scale, counter = 8.0, 0  # the rule: grow after 2 finite steps, shrink (>= 1) on overflow
    for finite in (True, True, True, False, False, False, False, True):
        grads = (Tensor(g), Tensor(g if finite else np.array([np.inf, 1], np.float32)))
        ok, unscaled, scaled = run(grads, Tensor(np.array(finite)))
        assert bool(ok.asnumpy()) is finite
        np.testing.assert_allclose(unscaled[0].asnumpy(), g / scale, rtol=1e-6)
        if finite:
            scale, counter = (scale * 2, 0) if counter == 1 else (scale, counter + 1)
        else:
            scale, counter = max(scale / 2, 1.0), 0
        np.testing.assert_allclose(scaled.asnumpy(), g * scale, rtol=1e-6)
        assert float(scaler.scale_value.asnumpy()) == scale
        assert int(scaler.counter.asnumpy()) == counter


def test_static_loss_scaler_and_argument_errors():
    scaler = ms.amp.StaticLossScaler(4)
    x = Tensor(np.array([2.0], np.float16))
    out = scaler.scale(x)
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [8.0]
    assert scaler.adjust(Tensor(np.array(True))) is False
    assert not bool(ms.amp.all_finite([x, Tensor(np.array([np.nan], np.float32))]).asnumpy())
    with pytest.raises(ValueError, match="must be > 1"):
        ms.amp.StaticLossScaler(0.5)
    with pytest.raises(TypeError, match="scale_value"):
        ms.amp.DynamicLossScaler("2", 2, 2)
    with pytest.raises(ValueError, match="'scale_window' must be int and must > 0"):
        ms.amp.DynamicLossScaler(2.0, 2, 0)


# --- checkpoints ---------------------------------------------------------------------------

# Bytes of a checkpoint MindSpore 2.10 wrote: a float32 scalar 'sc' = 2.5 and an int32
# vector 'i' = [1, 2] (the format's reference, to read without MindSpore installed).
MINDSPORE_CKPT = (b"\n\x15\n\x02sc\x12\x0f\x12\x07Float32\x1a\x04\x00\x00 @"
                  b"\n\x18\n\x01i\x12\x13\x08\x02\x12\x05Int32\x1a\x08\x01\x00\x00\x00\x02\x00\x00\x00")


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.scale = Parameter(Tensor(np.float32(1.5)), name="scale")
        self.steps = Parameter(Tensor(np.array([1, 2], np.int32)), requires_grad=False)
        self.half = Parameter(Tensor(np.ones((2, 2), np.float16)))

    def construct(self, x):
        return self.dense(x) * self.scale


def test_checkpoint_reads_mindspore_bytes_and_writes_them_back(tmp_path):
    path = tmp_path / "ms.ckpt"
    path.write_bytes(MINDSPORE_CKPT)
    loaded = ms.load_checkpoint(str(path))
    assert list(loaded) == ["sc", "i"]
    assert loaded["sc"].shape == () and loaded["sc"].dtype == ms.float32
    assert float(loaded["sc"].asnumpy()) == 2.5 and loaded["i"].asnumpy().tolist() == [1, 2]
    assert loaded["i"].dtype == ms.int32 and loaded["i"].name == "i"
    ms.save_checkpoint(loaded, str(tmp_path / "again"))
    assert (tmp_path / "again.ckpt").read_bytes() == MINDSPORE_CKPT


def test_checkpoint_round_trip_into_a_fresh_network(tmp_path, rng):
    net = Small()
    net.dense.weight.set_data(Tensor(rng.standard_normal((2, 3)).astype(np.float32)))
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path, append_dict={"epoch": 3, "lr": 0.5, "note": "hi"},
                       crc_check=True)
    params = ms.load_checkpoint(path, crc_check=True)
    assert params["epoch"].dtype == ms.int64 and params["lr"].dtype == ms.float32
    assert params["note"] == "hi"
    fresh = Small()
    not_loaded, unused = ms.load_param_into_net(fresh, params)
    assert not_loaded == [] and unused == ["epoch", "lr", "note"]
    for (name, a), (_, b) in zip(net.parameters_and_names(), fresh.parameters_and_names()):
        assert a.dtype == b.dtype and np.array_equal(a.asnumpy(), b.asnumpy()), name
    other = Small()
    assert ms.load_checkpoint(path, other, choice_func=lambda n: n.startswith("dense"))
    np.testing.assert_array_equal(other.dense.weight.asnumpy(), net.dense.weight.asnumpy())


def test_load_param_into_net_checks_and_prefix_fallback(tmp_path):
    net = Small()
    bad = {"dense.weight": Parameter(Tensor(np.zeros((3, 3), np.float32)), name="dense.weight")}
    with pytest.raises(RuntimeError, match="should have the same shape"):
        ms.load_param_into_net(net, bad)
    as64 = {"scale": Parameter(Tensor(np.float64(4.0)), name="scale")}
    ms.load_param_into_net(net, as64)
    assert net.scale.dtype == ms.float32 and float(net.scale.asnumpy()) == 4.0
    with pytest.raises(RuntimeError, match="should have the same type"):
        ms.load_param_into_net(net, as64, strict_load=True)
    wrapped = {"network." + n: Parameter(Tensor(p.asnumpy() + 1), name="network." + n)
               for n, p in Small().parameters_dict().items()}
    not_loaded, _ = ms.load_param_into_net(net, wrapped)
    assert not_loaded == [] and float(net.scale.asnumpy()) == 2.5
    with pytest.raises(TypeError, match="should be a Cell"):
        ms.load_param_into_net({}, {})
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "none.ckpt"))


# --- parameter names, Cell and Parameter APIs -------------------------------------------------


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(2, 2)
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="kernel")


class Holder(nn.Cell):
    """Containers filled in the ways MindSpore 2.10 names differently."""

    def __init__(self):
        super().__init__()
        self.seq = nn.SequentialCell()
        self.seq.append(Block())
        self.seq.append(nn.Dense(2, 3))
        self.lst = nn.CellList([Block()])
        self.grown = nn.SequentialCell([nn.Dense(2, 2)])
        self.grown.append(nn.Dense(2, 2))


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Holder()
        self.late = nn.CellList()
        self.late.append(nn.Dense(2, 2))


# The names MindSpore 2.10 gives these structures (its quirk: a cell appended to a
# container that was empty when the top-level cell took it has no container prefix).
HOLDER_NAMES = ["0.w", "0.d.weight", "0.d.bias", "1.weight", "1.bias", "lst.0.w",
                "lst.0.d.weight", "lst.0.d.bias", "grown.0.weight", "grown.0.bias",
                "grown.1.weight", "grown.1.bias"]
OUTER_NAMES = ["inner.seq.0.w", "inner.seq.0.d.weight", "inner.seq.0.d.bias",
               "inner.seq.1.weight", "inner.seq.1.bias", "inner.lst.0.w", "inner.lst.0.d.weight",
               "inner.lst.0.d.bias", "inner.grown.0.weight", "inner.grown.0.bias",
               "inner.grown.1.weight", "inner.grown.1.bias", "0.weight", "0.bias"]


def test_parameter_names_match_mindspore_for_nested_containers():
    holder = Holder()
    assert [p.name for p in holder.get_parameters()] == HOLDER_NAMES
    assert [n for n, _ in holder.parameters_and_names()][:2] == ["seq.0.w", "seq.0.d.weight"]
    assert [p.name for p in Outer().get_parameters()] == OUTER_NAMES
    assert list(Holder().parameters_dict()) == HOLDER_NAMES
    assert Block().w.name == "kernel"


def test_cell_and_parameter_apis():
    net = Small()
    assert net.to_float(ms.float16) is net  # (tests/train/test_amp.py runs it)
    assert net.to_float(ms.float32) is net
    with pytest.raises(ValueError, match="dst_type"):  # MindSpore 2.10's ValueError
        net.to_float(ms.int32)
    init = net.init_parameters_data()
    assert all(k is v for k, v in init.items()) and len(init) == 5
    assert net.scale.data is net.scale
    assert [n for n, _ in net.cells_and_names()] == ["", "dense"]
    assert list(net.name_cells()) == ["dense"]
    assert net.set_train() is net and net.dense.training
    assert [p.name for p in net.trainable_params()] == ["scale", "half", "dense.weight",
                                                        "dense.bias"]


# --- initializers and seeds ------------------------------------------------------------------


class Ramp(Initializer):
    """MindSpore's protocol: fill ``arr`` in place."""

    def __init__(self, step):
        super().__init__(step=step)
        self.step = step

    def _initialize(self, arr):
        arr[...] = np.arange(arr.size).reshape(arr.shape) * self.step


def test_custom_initializer_and_seeded_init():
    from msc.common.initializer import initializer

    out = initializer(Ramp(2), (2, 3), ms.float16)
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), np.arange(6).reshape(2, 3) * 2)
    assert nn.Dense(3, 3, weight_init=Ramp(1)).weight.asnumpy()[1, 2] == 5
    ms.set_seed(7)
    first = [nn.Dense(4, 4).weight.asnumpy(), nn.Dropout(p=0.5).set_train()(
        Tensor(np.ones((64,), np.float32))).asnumpy()]
    ms.set_seed(7)
    second = [nn.Dense(4, 4).weight.asnumpy(), nn.Dropout(p=0.5).set_train()(
        Tensor(np.ones((64,), np.float32))).asnumpy()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_set_seed_seeds_numpys_global_generator_too():
    """MindSpore's set_seed calls np.random.seed: weights a model draws with np.random
    are the same after the same seed."""
    ms.set_seed(11)
    drawn = np.random.normal(size=5)
    np.random.seed(11)
    np.testing.assert_array_equal(drawn, np.random.normal(size=5))


# --- train.Model -------------------------------------------------------------------------------


def _linear(w0):
    net = nn.Dense(3, 2, weight_init=Tensor(w0), bias_init="zeros")
    return net, nn.SGD(net.trainable_params(), 0.1)


@pytest.mark.parametrize("mode", ["eager", "numba"])
def test_model_train_eval_predict(mode, rng):
    _set_mode(mode)
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    batches = [(rng.standard_normal((4, 3)).astype(np.float32),
                rng.standard_normal((4, 2)).astype(np.float32)) for _ in range(3)]
    net, opt = _linear(w0)
    model = ms.train.Model(net, nn.MSELoss(), opt, metrics={"loss"})
    model.train(2, batches)
    w, b = w0.astype(np.float64), np.zeros(2)
    for _ in range(2):  # SGD on the mean squared error, by hand
        for x, y in batches:
            err = x @ w.T + b - y
            gw, gb = 2 * err.T @ x / err.size, 2 * err.sum(0) / err.size
            w, b = w - 0.1 * gw, b - 0.1 * gb
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-5, atol=1e-6)
    losses = [np.mean((x @ w.T + b - y) ** 2) for x, y in batches]
    np.testing.assert_allclose(model.eval(batches)["loss"], np.mean(losses), rtol=1e-5)
    np.testing.assert_allclose(model.predict(Tensor(batches[0][0])).asnumpy(),
                               batches[0][0] @ w.T + b, rtol=1e-5, atol=1e-6)


def test_model_accuracy_and_errors(rng):
    net, opt = _linear(rng.standard_normal((2, 3)).astype(np.float32))
    x = rng.standard_normal((6, 3)).astype(np.float32)
    labels = np.array([0, 1, 1, 0, 1, 0], np.int32)
    model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), opt,
                           metrics={"accuracy"})
    expected = np.mean((x @ net.weight.asnumpy().T).argmax(1) == labels)
    assert model.eval([(x, labels)])["accuracy"] == pytest.approx(expected)
    with pytest.raises(ValueError, match="metrics"):
        ms.train.Model(net, nn.MSELoss(), opt).eval([(x, labels)])
    with pytest.raises(TypeError, match="iterable of batches"):
        model.train(1, 3)
    with pytest.raises(TypeError, match="Callback objects"):
        model.train(1, [(x, labels)], callbacks=[object()])


# --- against MindSpore itself, where it is installed -----------------------------------------

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "msc is checked against MindSpore's recorded names and bytes above")
def test_names_and_checkpoints_match_mindspore_itself(tmp_path):
    source = Path(__file__).read_text()
    classes = source[source.index("class Block(nn.Cell):"):source.index("# The names MindSpore")]
    script = textwrap.dedent("""
        import json, numpy as np, mindspore as ms
        from mindspore import nn, Parameter, Tensor
    """) + classes + textwrap.dedent("""
        mine = ms.load_checkpoint("msc.ckpt")
        net = Holder()
        ms.save_checkpoint(net, "ms.ckpt")
        print(json.dumps({"holder": [p.name for p in net.get_parameters()],
                          "outer": [p.name for p in Outer().get_parameters()],
                          "loaded": {k: v.asnumpy().tolist() for k, v in mine.items()},
                          "saved": {k: v.asnumpy().tolist() for k, v in
                                    net.parameters_dict().items()}}))
    """)
    small = Small()
    ms.save_checkpoint(small, str(tmp_path / "msc.ckpt"))
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [p.name for p in Holder().get_parameters()] == theirs["holder"]
    assert [p.name for p in Outer().get_parameters()] == theirs["outer"]
    assert theirs["loaded"] == {k: v.asnumpy().tolist() for k, v in small.parameters_dict().items()}
    loaded = ms.load_checkpoint(str(tmp_path / "ms.ckpt"))
    assert {k: v.asnumpy().tolist() for k, v in loaded.items()} == theirs["saved"]

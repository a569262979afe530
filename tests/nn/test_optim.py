"""Optimizers with learning-rate schedules, per-step rate lists, parameter groups and
dynamic weight decay: three ``TrainOneStepCell`` steps against MindSpore's update rules
and schedules written out in numpy, eagerly and compiled; and against MindSpore 2.10
itself where it is installed."""

from __future__ import annotations

import contextlib
import io
import json
import math
import runpy
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn

X = np.array([3.0, 4.0], np.float32)
INIT = {"w": np.array([1.0, -2.0]), "gamma": np.array([0.5])}
GRADS = {"w": X.astype(np.float64), "gamma": np.array([X.sum()], np.float64)}
STEPS = 3


class Net(nn.Cell):
    """loss = w . x + sum(gamma * x); "gamma" escapes the default weight-decay filter."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(INIT["w"].astype(np.float32)), name="w")
        self.gamma = Parameter(Tensor(INIT["gamma"].astype(np.float32)), name="gamma")

    def construct(self, x):
        return (self.w * x).sum() + (self.gamma * x).sum()


# --- schedules, step t = 0, 1, 2, ... (the global step before the update) -------------------


def warmup(lr, n):
    return lambda t: lr * min(t, n) / n


def cosine(lo, hi, n):
    return lambda t: lo + 0.5 * (hi - lo) * (1 + math.cos(math.pi * min(t, n) / n))


def exponential(lr, rate, n):
    return lambda t: lr * rate ** (t / n)


def rates(*values):
    return lambda t: values[t]


def const(value):
    return lambda t: value


# Each case: the optimizer (source text, evaluated with ``p`` the parameters, ``w`` and
# ``gamma``, in msc and in MindSpore) and its numpy spec: kind, hyper-parameters, each
# parameter's rate and weight decay (functions of the step; 0 where not decayed) and
# the loss scale.
CASES = {
    "SGD-list": ("nn.SGD(p, [0.1, 0.2, 0.3])",
                 dict(kind="sgd", momentum=0.0, lr={"w": rates(.1, .2, .3),
                                                    "gamma": rates(.1, .2, .3)})),
    "SGD-tensor-momentum": (
        "nn.SGD(p, Tensor(np.array([0.3, 0.2, 0.1], np.float32)), momentum=0.9, "
        "dampening=0.1, weight_decay=0.01)",
        dict(kind="sgd", momentum=0.9, dampening=0.1, lr={"w": rates(.3, .2, .1),
                                                          "gamma": rates(.3, .2, .1)},
             wd={"w": const(0.01)})),
    "Momentum-warmup": ("nn.Momentum(p, nn.WarmUpLR(0.5, 2), 0.9, weight_decay=0.01)",
                        dict(kind="momentum", momentum=0.9,
                             lr={"w": warmup(0.5, 2), "gamma": warmup(0.5, 2)},
                             wd={"w": const(0.01)})),
    "Adam-cosine": ("nn.Adam(p, nn.CosineDecayLR(0.01, 0.2, 2))",
                    dict(kind="adam", lr={"w": cosine(0.01, 0.2, 2),
                                          "gamma": cosine(0.01, 0.2, 2)})),
    "AdamWeightDecay-exponential": (
        "nn.AdamWeightDecay(p, nn.ExponentialDecayLR(0.1, 0.5, 2), weight_decay=0.01)",
        dict(kind="adamwd", lr={"w": exponential(0.1, 0.5, 2),
                                "gamma": exponential(0.1, 0.5, 2)}, wd={"w": const(0.01)})),
    "Momentum-groups": (
        "nn.Momentum([{'params': [w], 'lr': 0.5}, {'params': [gamma], 'weight_decay': 0.1}], "
        "0.1, 0.9, loss_scale=2.0)",
        dict(kind="momentum", momentum=0.9, lr={"w": const(0.5), "gamma": const(0.1)},
             wd={"gamma": const(0.1)}, scale=2.0)),
    "SGD-groups-dynamic-ordered": (
        "nn.SGD([{'params': [w], 'lr': nn.WarmUpLR(0.4, 2), 'weight_decay': 0.02}, "
        "{'params': [gamma], 'lr': 0.05}, {'order_params': [gamma, w]}], (0.1, 0.2, 0.3), "
        "momentum=0.8)",
        dict(kind="sgd", momentum=0.8, lr={"w": warmup(0.4, 2), "gamma": const(0.05)},
             wd={"w": const(0.02)})),
    "Adam-groups": (
        "nn.Adam([{'params': [w], 'lr': [0.2, 0.1, 0.05]}, {'params': [gamma]}], "
        "np.array([0.1, 0.1, 0.2]), weight_decay=0.01)",
        dict(kind="adam", lr={"w": rates(.2, .1, .05), "gamma": rates(.1, .1, .2)},
             wd={"w": const(0.01), "gamma": const(0.01)})),
    "AdamWeightDecay-groups": (
        "nn.AdamWeightDecay([{'params': [w], 'weight_decay': 0.1}, "
        "{'params': [gamma], 'lr': nn.WarmUpLR(0.3, 2)}], 0.1)",
        dict(kind="adamwd", lr={"w": const(0.1), "gamma": warmup(0.3, 2)},
             wd={"w": const(0.1)})),
    "Momentum-dynamic-decay": (
        "nn.Momentum(p, 0.1, 0.9, weight_decay=nn.WarmUpLR(0.5, 2), loss_scale=2.0)",
        dict(kind="momentum", momentum=0.9, lr={"w": const(0.1), "gamma": const(0.1)},
             wd={"w": warmup(0.5, 2)}, scale=2.0)),
}


def numpy_steps(spec):
    """The weights after each step, by MindSpore's update rules (float64)."""
    ws = {k: v.copy() for k, v in INIT.items()}
    m = {k: np.zeros_like(v) for k, v in INIT.items()}
    v2 = {k: np.zeros_like(v) for k, v in INIT.items()}
    out = []
    for t in range(STEPS):
        for k, w in ws.items():
            lr, wd = spec["lr"][k](t), spec.get("wd", {}).get(k, const(0.0))(t)
            g = GRADS[k] / spec.get("scale", 1.0) + wd * w
            if spec["kind"] == "sgd":
                if spec["momentum"] > 0:
                    m[k] = g if t == 0 else spec["momentum"] * m[k] + \
                        (1 - spec.get("dampening", 0.0)) * g
                    g = m[k]
                w -= lr * g
            elif spec["kind"] == "momentum":
                m[k] = spec["momentum"] * m[k] + g
                w -= lr * m[k]
            elif spec["kind"] == "adam":
                m[k] = 0.9 * m[k] + 0.1 * g
                v2[k] = 0.999 * v2[k] + 0.001 * g * g
                w -= lr * np.sqrt(1 - 0.999 ** (t + 1)) / (1 - 0.9 ** (t + 1)) * m[k] / \
                    (np.sqrt(v2[k]) + 1e-8)
            else:  # adamwd: the decay goes to the step, not the gradient
                g = GRADS[k]
                m[k] = 0.9 * m[k] + 0.1 * g
                v2[k] = 0.999 * v2[k] + 0.001 * g * g
                w -= lr * (m[k] / (np.sqrt(v2[k]) + 1e-6) + wd * w)
        out.append([ws["w"].copy(), ws["gamma"].copy()])
    return out


def make(source, net):
    scope = {"nn": nn, "Tensor": Tensor, "np": np, "p": net.trainable_params(), "w": net.w,
             "gamma": net.gamma}
    return eval(source, scope)  # noqa: S307 (the test's own table)


def msc_steps(source):
    net = Net()
    opt = make(source, net)
    step = nn.TrainOneStepCell(net, opt)
    out = []
    for _ in range(STEPS):
        loss = step(Tensor(X))
        assert loss.dtype == ms.float32 and loss.shape == ()
        out.append([net.w.asnumpy().copy(), net.gamma.asnumpy().copy()])
    assert opt.global_step.asnumpy().tolist() == [STEPS]
    return out


def check(got_steps, want_steps, rtol=2e-5, name=""):
    """float32 against float64: Adam's 1 - beta2^t cancels to ~1e-5 of a weight."""
    for got, want in zip(got_steps, want_steps, strict=True):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("name", CASES)
def test_schedule_lists_and_groups_follow_the_update_rules(name, mode):
    ms.set_context(mode=mode, jit_target="python")
    source, spec = CASES[name]
    check(msc_steps(source), numpy_steps(spec))


@pytest.mark.parametrize("name", ["SGD-groups-dynamic-ordered", "Adam-cosine"])
def test_numba_target(name):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    source, spec = CASES[name]
    check(msc_steps(source), numpy_steps(spec))


def test_state_global_step_and_group_names():
    net = Net()
    opt = make(CASES["SGD-groups-dynamic-ordered"][0], net)
    assert [p.name for p in opt.parameters] == ["gamma", "w"]  # order_params
    assert opt.global_step.name == "global_step" and opt.global_step.shape == (1,)
    assert opt.global_step.dtype == ms.int32
    names = sorted(p.name for p in opt.get_parameters())
    assert "learning_rate_group_1" in names and "learning_rate" not in names  # unused
    assert opt.decay_flags == (False, True)  # groups: decayed where the group's decay > 0
    opt = make(CASES["Momentum-groups"][0], Net())
    assert opt.decay_flags == (False, True)  # not the name filter: "gamma" decays here


def test_get_lr_and_get_lr_parameter():
    net = Net()
    fixed = nn.Momentum(net.trainable_params(), 0.25, 0.9)
    assert isinstance(fixed.get_lr(), Parameter) and fixed.get_lr().name == "learning_rate"
    np.testing.assert_allclose(fixed.get_lr().asnumpy(), 0.25)
    listed = nn.SGD(net.trainable_params(), [0.5, 0.25])
    got = listed.get_lr()
    assert got.shape == () and got.dtype == ms.float32 and float(got.asnumpy()) == 0.5
    listed.global_step.set_data(Tensor(np.array([1], np.int32)))
    assert float(listed.get_lr().asnumpy()) == 0.25
    assert listed.get_lr_parameter(net.w).shape == (2,)
    groups = nn.Adam([{"params": [net.w], "lr": 0.5}, {"params": [net.gamma]}], 0.1)
    lrs = groups.get_lr()
    assert [p.name for p in lrs] == ["learning_rate_group_0", "learning_rate"]
    assert [p.name for p in groups.get_lr_parameter([net.gamma, net.w])] == \
        ["learning_rate", "learning_rate_group_0"]
    schedule = nn.WarmUpLR(0.4, 4)
    dynamic = nn.Momentum([{"params": [net.w], "lr": schedule}, {"params": [net.gamma]}],
                          0.1, 0.9)
    dynamic.global_step.set_data(Tensor(np.array([2], np.int32)))
    np.testing.assert_allclose([float(v.asnumpy()) for v in dynamic.get_lr()], [0.2, 0.1],
                               rtol=1e-6)
    assert dynamic.get_lr_parameter(net.w) is schedule
    with pytest.raises(ValueError, match="not in optimizer"):
        fixed.get_lr_parameter(Parameter(Tensor(np.ones(1, np.float32)), name="other"))
    with pytest.raises(TypeError):
        fixed.get_lr_parameter("w")


def test_past_the_last_listed_rate_is_an_error():
    net = Net()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), [0.1, 0.2]))
    step(Tensor(X))
    step(Tensor(X))
    with pytest.raises(IndexError):
        step(Tensor(X))


def _bad(net):
    w, gamma = net.w, net.gamma
    return [
        (KeyError, "key in group params", lambda: nn.SGD([{"params": [w], "foo": 1}])),
        (KeyError, "params", lambda: nn.SGD([{"lr": 0.1}])),
        (ValueError, "only include the 'order_params'",
         lambda: nn.SGD([{"params": [w]}, {"order_params": [w], "lr": 1.0}])),
        (TypeError, "'Parameter' or 'dict'", lambda: nn.SGD([w, {"params": [gamma]}])),
        (RuntimeError, "already exists", lambda: nn.SGD([{"params": [w]}, {"params": [w]}])),
        (ValueError, "length of order parameters",
         lambda: nn.SGD([{"params": [w, gamma]}, {"order_params": [w]}])),
        (ValueError, "not in list", lambda: nn.SGD([{"params": [w]}, {"order_params": [gamma]}])),
        (ValueError, "learning rate", lambda: nn.SGD([{"params": [w], "lr": -1.0}])),
        (ValueError, "same size", lambda: nn.SGD([{"params": [w], "lr": [0.1, 0.2]}],
                                                 [0.1, 0.2, 0.3])),
        (TypeError, "must be Parameter type", lambda: nn.SGD([{"params": [w, 1.0]}])),
        (ValueError, "dimension", lambda: nn.SGD([w], Tensor(np.ones((2, 2), np.float32)))),
        (TypeError, "NoneType", lambda: nn.SGD([w], None)),
        (ValueError, "must >= 0", lambda: nn.SGD([w], -0.1)),
        (ValueError, "can not be None", lambda: nn.SGD(None)),
        (TypeError, "Iterable", lambda: nn.SGD(1.0)),
        (TypeError, "Weight_decay", lambda: nn.Momentum([w], 0.1, 0.9, weight_decay="x")),
        (TypeError, "dynamic weight decay",
         lambda: nn.SGD([w], 0.1, weight_decay=nn.WarmUpLR(0.1, 2))),
        (TypeError, "gradients_centralization",
         lambda: nn.SGD([{"params": [w], "grad_centralization": 1}])),
        (TypeError, "loss_scale", lambda: nn.Momentum([w], 0.1, 0.9, loss_scale="2")),
    ]


def test_bad_arguments_raise_mindsporess_exceptions():
    for error, words, build in _bad(Net()):
        with pytest.raises(error, match=words):
            build()


def test_grad_centralization_of_a_group():
    """A gradient whose axis 1 is a multiple of 16 loses its mean over axes >= 1."""

    class Wide(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = Parameter(Tensor(np.zeros((2, 16), np.float32)), name="k")

        def construct(self, x):
            return (self.k * x).sum()

    x = np.arange(32, dtype=np.float32).reshape(2, 16) ** 2 / 100
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode, jit_target="python")
        net = Wide()
        opt = nn.SGD([{"params": net.trainable_params(), "grad_centralization": True}], 0.5)
        nn.TrainOneStepCell(net, opt)(Tensor(x))
        np.testing.assert_allclose(net.k.asnumpy(), -0.5 * (x - x.mean(1, keepdims=True)),
                                   rtol=1e-5, atol=1e-6)


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms "
                    "(see the notes on peers); msc is checked against numpy above")
def test_msc_matches_mindspore_itself(tmp_path):
    script = textwrap.dedent(f"""
        import json, numpy as np, mindspore as ms
        from mindspore import nn, Tensor, Parameter
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.array({INIT['w'].tolist()}, np.float32)), name="w")
                self.gamma = Parameter(Tensor(np.array({INIT['gamma'].tolist()}, np.float32)),
                                       name="gamma")
            def construct(self, x):
                return (self.w * x).sum() + (self.gamma * x).sum()
        out = {{}}
        for name, source in {json.dumps({k: v[0] for k, v in CASES.items()})}.items():
            net = Net()
            scope = dict(nn=nn, Tensor=Tensor, np=np, p=net.trainable_params(), w=net.w,
                         gamma=net.gamma)
            step = nn.TrainOneStepCell(net, eval(source, scope))
            out[name] = []
            for _ in range({STEPS}):
                step(Tensor(np.array({X.tolist()}, np.float32)))
                out[name].append([net.w.asnumpy().tolist(), net.gamma.asnumpy().tolist()])
        print(json.dumps(out))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    for name, steps in theirs.items():
        check(msc_steps(CASES[name][0]), steps, rtol=5e-5, name=name)


# --- SGD's state, as MindSpore 2.10 keeps it ---------------------------------------------------

SGD_STATE_SCRIPT = """
import json, numpy as np
from {lib} import nn, Tensor, Parameter
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array({w}, np.float32)), name="w")
        self.gamma = Parameter(Tensor(np.array({gamma}, np.float32)), name="gamma")
    def construct(self, x):
        return (self.w * x).sum() + (self.gamma * x).sum()
out = {{}}
for momentum in (0.0, 0.9):
    net = Net()
    opt = nn.SGD(net.trainable_params(), 0.1, momentum=momentum, dampening=0.25)
    step = nn.TrainOneStepCell(net, opt)
    for _ in range(2):
        step(Tensor(np.array({x}, np.float32)))
    out[str(momentum)] = {{k: [str(p.dtype), list(p.shape), p.asnumpy().tolist()]
                          for k, p in opt.parameters_dict().items()}}
print(json.dumps(out))
"""


def _sgd_state(lib: str, tmp_path: Path) -> dict:
    """Two training steps with ``nn.SGD``; its state by name: [dtype, shape, values]."""
    script = tmp_path / f"sgd_state_{lib}.py"  # a file: graphs are built from its source
    script.write_text(SGD_STATE_SCRIPT.format(lib=lib, w=INIT["w"].tolist(),
                                              gamma=INIT["gamma"].tolist(), x=X.tolist()))
    if lib == "msc":
        with contextlib.redirect_stdout(io.StringIO()) as out:
            runpy.run_path(str(script))
        return json.loads(out.getvalue().strip().splitlines()[-1])
    proc = subprocess.run([str(MINDSPORE), str(script)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_sgd_keeps_momentum_as_a_float32_parameter(tmp_path):
    # MindSpore 2.10's nn.SGD: self.momentum = Parameter(Tensor(momentum, float32),
    # name="momentum"); accum and stat per weight
    state = _sgd_state("msc", tmp_path)
    for momentum, entries in state.items():
        assert entries["momentum"] == ["Float32", [], float(np.float32(momentum))]
        assert sorted(entries) == sorted(["global_step", "learning_rate", "momentum", "w",
                                          "gamma", "accum.w", "accum.gamma", "stat.w",
                                          "stat.gamma"])
    # without momentum, accum and stat stay as they were made; with it, stat is spent
    # and accum = 0.9 * g + 0.75 * g after the second step (g = x each step)
    assert state["0.0"]["accum.w"][2] == [0.0, 0.0] and state["0.0"]["stat.w"][2] == [1, 1]
    np.testing.assert_allclose(state["0.9"]["accum.w"][2], 1.65 * X, rtol=1e-6)
    assert state["0.9"]["stat.w"][2] == [0.0, 0.0]


def test_sgd_checkpoint_holds_momentum(tmp_path):
    net = Net()
    opt = nn.SGD(net.trainable_params(), 0.1, momentum=0.5)
    ms.save_checkpoint(opt, str(tmp_path / "opt.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "opt.ckpt"))
    assert loaded["momentum"].asnumpy().dtype == np.float32
    assert loaded["momentum"].asnumpy() == np.float32(0.5)
    fresh = nn.SGD(Net().trainable_params(), 0.1, momentum=0.5)
    assert ms.load_param_into_net(fresh, loaded)[0] == []


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms "
                    "(see the notes on peers); msc's SGD state is checked above")
def test_sgd_state_matches_mindspore_itself(tmp_path):
    """The same entries (MindSpore lists the weights before ``momentum``, msc after the
    learning rate: checkpoints load by name), dtypes, shapes and values after two steps."""
    ours, theirs = _sgd_state("msc", tmp_path), _sgd_state("mindspore", tmp_path)
    for momentum, entries in theirs.items():
        assert sorted(ours[momentum]) == sorted(entries), momentum
        for key, (dtype, shape, value) in entries.items():
            assert ours[momentum][key][:2] == [dtype, shape], key
            np.testing.assert_allclose(ours[momentum][key][2], value, rtol=1e-6,
                                       err_msg=f"{momentum} {key}")

"""MindCV's own model and optimizer files (``tests/e2e/mindcv``, vendored from
mindspore-lab/mindcv at 51b0636, Apache-2.0) run under msc with their ``mindspore``
imports rewritten to ``msc`` as they load (``mindcv/loader.py``), as a user would run them.

- A representative model of many MindCV families, small inputs, eval mode: eager (PyNative)
  and GRAPH_MODE give the same output on the same weights, and the graph is compiled.
- A few of them against MindSpore 2.10 itself on the same weights (``.peers/ms``; skipped
  where it is absent), through the same vendored files run unchanged.
- MindCV's optimizers (AdamW, Adan, Lion, NAdam, through ``create_optimizer``) take two
  steps of a linear model with an MSE loss through ``nn.TrainOneStepCell``, eagerly and in
  GRAPH_MODE; the weights equal the update rules restated in numpy below (gradients
  written out by hand), and MindSpore's where installed, with MindCV's ``TrainStep``
  (EMA, gradient clipping, gradient accumulation) too.

All 52 model families, what runs and what does not: ``docs/mindcv.md``.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn
from msc.frontend import hooks

from .mindcv.loader import HERE as VENDORED
from .mindcv.loader import install

install("msc")

import mindcv.models as M  # noqa: E402  (the vendored files, loaded by the loader above)
from mindcv.optim import create_optimizer  # noqa: E402
from mindcv.utils.train_step import TrainStep  # noqa: E402

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
F32 = np.float32

#: id -> (constructor source, evaluated with the vendored ``mindcv.models`` as ``M``; image
#: side). One model per family, the smallest variant, at the smallest size it takes.
MODELS = {
    "resnet18": ('M.create_model("resnet18", num_classes=10)', 32),
    "convnextv2_atto": ('M.create_model("convnextv2_atto", num_classes=10)', 32),
    "densenet121": ('M.create_model("densenet121", num_classes=10)', 32),
    "efficientnet_b0": ('M.create_model("efficientnet_b0", num_classes=10)', 32),
    "ghostnet_050": ('M.create_model("ghostnet_050", num_classes=10)', 32),
    "mobilenet_v3_small_075": ('M.create_model("mobilenet_v3_small_075", num_classes=10)', 32),
    "shufflenet_v2_x0_5": ('M.create_model("shufflenet_v2_x0_5", num_classes=10)', 32),
    "squeezenet1_1": ('M.create_model("squeezenet1_1", num_classes=10)', 32),
    "poolformer_s12": ('M.create_model("poolformer_s12", num_classes=10)', 32),
    "edgenext_xx_small": ('M.create_model("edgenext_xx_small", num_classes=10)', 256),
    "mobilevit_xx_small": ('M.create_model("mobilevit_xx_small", num_classes=10)', 256),
    "pvt_v2_b0": ('M.create_model("pvt_v2_b0", num_classes=10)', 224),
    "convit_tiny": ('M.create_model("convit_tiny", num_classes=10)', 224),
    "vit_small": ("M.vit.VisionTransformer(image_size=32, patch_size=8, embed_dim=32, "
                  "depth=2, num_heads=2, num_classes=10)", 32),
}
#: Checked against MindSpore itself (source, input shape): whole models, and single layers
#: where MindSpore's own run of the whole model is slow: BiT's convolution, which calls
#: ``self.conv2d`` with a standardised weight, and ConvNeXt's channels-first LayerNorm, which
#: calls ``self.layer_norm``; the ViT's init calls ``init_data()``.
AGAINST_MINDSPORE = {
    "resnet18": (MODELS["resnet18"][0], (1, 3, 32, 32)),
    "squeezenet1_1": (MODELS["squeezenet1_1"][0], (1, 3, 32, 32)),
    "mobilenet_v3_small_075": (MODELS["mobilenet_v3_small_075"][0], (1, 3, 32, 32)),
    "vit_small": (MODELS["vit_small"][0], (1, 3, 32, 32)),
    "bit_std_conv": ("M.bit.StdConv2d(3, 8, 3, stride=2)", (2, 3, 9, 9)),
    "convnext_layer_norm": ("M.convnext.ConvNextLayerNorm((3,), epsilon=1e-6, norm_axis=1)",
                            (2, 3, 5, 5)),
}


#: Models whose Parameter names are compared with MindSpore's (built, not run): each holds a
#: cell under two paths (SqueezeNet's ``final_conv`` is item 1 of ``classifier`` too, CoaT's
#: ``cpe1`` is each serial block's ``cpe``), which MindSpore names by the later one.
NAMES_AGAINST_MINDSPORE = {
    "squeezenet1_1": MODELS["squeezenet1_1"][0],
    "coat_lite_tiny": 'M.create_model("coat_lite_tiny", num_classes=10)',
}


def build(name: str):
    ms.set_seed(0)
    net = eval(MODELS[name][0], {"M": M})  # noqa: S307 (our own table)
    net.set_train(False)
    return net


def image(name: str) -> np.ndarray:
    side = MODELS[name][1]
    return np.random.default_rng(1).standard_normal((1, 3, side, side)).astype(F32)


@pytest.fixture(autouse=True)
def _python_target():
    """Graphs (GRAPH_MODE, and the optimizers' ``@jit`` constructs in PyNative mode too)
    compile for the python target: the same results as Numba's without its compile time."""
    ms.set_context(jit_target="python")


@pytest.fixture
def compiles(monkeypatch):
    """How many graphs were compiled (each first call of a Cell under GRAPH_MODE is one)."""
    count = [0]
    original = hooks._COMPILE

    def counting(entry, args):
        count[0] += 1
        return original(entry, args)

    monkeypatch.setattr(hooks, "_COMPILE", counting)
    return count


def test_the_loader_rewrites_only_the_imports():
    source = (VENDORED / "mindcv" / "models" / "resnet.py").read_text()
    assert "import mindspore" in source and "msc" not in source  # the file is MindCV's
    import msc.common.initializer

    assert M.resnet.nn is ms.nn and M.resnet.init is msc.common.initializer
    assert M.bit.mindspore is ms  # `import mindspore` binds the name to msc
    assert len(set(M.registry._model_to_module.values())) == 52  # every model file imported


@pytest.mark.parametrize("name", MODELS)
def test_eager_equals_graph(name, compiles):
    net = build(name)
    x = Tensor(image(name))
    eager = net(x).asnumpy()
    assert eager.shape == (1, 10) and eager.dtype == F32 and np.isfinite(eager).all()
    assert compiles[0] == 0
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(x).asnumpy()
    assert compiles[0] == 1
    assert graph.dtype == eager.dtype
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-5 * np.abs(eager).max())


def test_volo_fold_refuses_a_float16_weight_as_mindspore_does():
    """VOLO's Fold keeps a float16 weight for a float32 input: MindSpore 2.10 raises
    TypeError ("the input type must be same") in Conv2DTranspose, and so does msc."""
    fold = M.volo.Fold(channels=2, output_size=4, kernel_size=2, stride=2)
    with pytest.raises(TypeError, match="same dtype"):
        fold(Tensor(np.ones((1, 8, 4), F32)))


# --- optimizers ----------------------------------------------------------------------------

LR, DECAY, STEPS = 0.01, 0.1, 2
_rng = np.random.default_rng(0)
W0, B0 = _rng.standard_normal((3, 4)).astype(F32), _rng.standard_normal(3).astype(F32)
X, Y = _rng.standard_normal((5, 4)).astype(F32), _rng.standard_normal((5, 3)).astype(F32)


def grads(w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d/d(w, b) of mean((X w^T + b - Y)^2), by hand."""
    d = 2 * (X @ w.T + b - Y) / Y.size
    return d.T @ X, d.sum(0)


def np_adamw(p, g, s, t, decay, b1=0.9, b2=0.999, eps=1e-8):
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    update = s["m"] / (1 - b1 ** t) / (eps + np.sqrt(s["v"] / (1 - b2 ** t))) + decay * p
    return p - LR * update


def np_lion(p, g, s, t, decay, b1=0.9, b2=0.99):
    m = s.get("m", 0)
    update = np.sign(b1 * m + (1 - b1) * g) + decay * p
    s["m"] = b2 * m + (1 - b2) * g
    return p - LR * update


def np_adan(p, g, s, t, decay, b1=0.98, b2=0.92, b3=0.99, eps=1e-8):
    """MindCV's Adan takes no weight decay from parameter groups (its own is 0 here)."""
    prev = s.get("prev", np.zeros_like(g))
    if prev.sum() == 0:
        prev = g
    s["m"] = (1 - b1) * s.get("m", 0) + b1 * g
    s["v"] = (1 - b2) * s.get("v", 0) + b2 * (g - prev)
    s["n"] = (1 - b3) * s.get("n", 0) + b3 * (g + (1 - b2) * (g - prev)) ** 2
    s["prev"] = g
    lr_t = LR / (eps + np.sqrt(s["n"]))
    return p - lr_t * (s["m"] + (1 - b2) * s["v"])


def np_nadam(p, g, s, t, decay, b1=0.9, b2=0.999, eps=1e-8, schedule_decay=4e-3):
    """MindCV's NAdam: L2 weight decay on the gradient; its step count stays 1 (the global
    step moves only with a dynamic learning rate), its momentum schedule multiplies on."""
    g = g + decay * p
    mu = b1 * (1 - 0.5 * 0.96 ** schedule_decay)
    mu_next = b1 * (1 - 0.5 * 0.96 ** (2 * schedule_decay))
    schedule = s.get("schedule", 1.0)
    s["schedule"] = schedule * mu
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    m_hat = mu_next * s["m"] / (1 - schedule * mu * mu_next) + (1 - mu) * g / (1 - s["schedule"])
    return p - LR * m_hat / (eps + np.sqrt(s["v"] / (1 - b2 ** t)))


NUMPY_RULES = {"adamw": np_adamw, "lion": np_lion, "adan": np_adan, "nadam": np_nadam}


def numpy_steps(rule) -> tuple[np.ndarray, np.ndarray]:
    """The weights after STEPS steps; ``weight_decay_filter='norm_and_bias'`` decays the
    weight, not the bias."""
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    state_w, state_b = {}, {}
    for t in range(1, STEPS + 1):
        gw, gb = grads(w, b)
        w, b = rule(w, gw, state_w, t, DECAY), rule(b, gb, state_b, t, 0.0)
    return w, b


def train(opt: str, wrap: str = "one_step") -> dict[str, list]:
    net = nn.Dense(4, 3)
    net.weight.set_data(Tensor(W0))
    net.bias.set_data(Tensor(B0))
    loss = nn.WithLossCell(net, nn.MSELoss())
    optimizer = create_optimizer(net, opt=opt, lr=LR, weight_decay=DECAY,
                                 weight_decay_filter="norm_and_bias")
    if wrap == "one_step":
        step = nn.TrainOneStepCell(loss, optimizer)
    else:  # MindCV's TrainStep: EMA and clipping, or accumulation over two steps
        step = TrainStep(loss, optimizer, scale_sense=Tensor(1.0, ms.float32),
                         **({"ema": True, "clip_grad": True, "clip_value": 1.0}
                            if wrap == "ema_clip" else {"gradient_accumulation_steps": 2}))
    losses = [float(step(Tensor(X), Tensor(Y)).asnumpy()) for _ in range(STEPS)]
    return {"loss": losses, "w": net.weight.asnumpy().tolist(), "b": net.bias.asnumpy().tolist(),
            "ema": [p.asnumpy().tolist() for p in getattr(step, "ema_weight", ())]}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("opt", NUMPY_RULES)
def test_optimizer_steps_match_numpy(opt, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE,
                   jit_target="python")
    got = train(opt)
    want_w, want_b = numpy_steps(NUMPY_RULES[opt])
    np.testing.assert_allclose(got["w"], want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["b"], want_b, rtol=1e-5, atol=1e-6)
    assert np.abs(np.array(got["w"]) - W0).min() > 1e-4  # every weight moved


def test_gradient_accumulation_in_pynative_raises_as_in_mindspore():
    """MindCV's accumulation assigns ``self._accumulation_step = 0`` to a Parameter in
    ``construct``: MindSpore 2.10's PyNative mode raises TypeError there (its graph mode
    runs it), and so does msc."""
    with pytest.raises(TypeError, match="_accumulation_step"):
        train("adamw", "accumulate")


# --- against MindSpore ----------------------------------------------------------------------

MS_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, {vendored!r})
    import loader
    loader.install("mindspore")
    import mindspore as ms
    from mindspore import Tensor, nn
    import mindcv.models as M
    from mindcv.optim import create_optimizer
    from mindcv.utils.train_step import TrainStep
    weights, inputs, outputs = np.load("weights.npz"), np.load("inputs.npz"), {{}}
    for name, (source, _) in {models!r}.items():
        net = eval(source, {{"M": M}})
        net.set_train(False)
        for pname, param in net.parameters_dict().items():
            param.set_data(ms.Tensor(weights[name + "/" + pname]))
        outputs[name] = net(ms.Tensor(inputs[name])).asnumpy()
    np.savez("outputs.npz", **outputs)
    names = {{name: list(eval(source, {{"M": M}}).parameters_dict())
             for name, source in {names!r}.items()}}
    json.dump(names, open("names.json", "w"))
    exec(open("train.py").read())
    steps = {{}}
    for mode, wrap, opts in {cases!r}:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        for opt in opts:
            steps[f"{{mode}}/{{wrap}}/{{opt}}"] = train(opt, wrap)
    json.dump(steps, open("steps.json", "w"))
""")

#: (mode, wrapper, optimizers): MindCV's accumulation runs in graph mode only (see above).
MS_CASES = [("pynative", "one_step", ["adamw", "adan", "lion", "nadam", "adam", "momentum"]),
            ("pynative", "ema_clip", ["adamw", "lion"]),
            ("graph", "accumulate", ["adamw"])]


def model_inputs(name: str) -> np.ndarray:
    return np.random.default_rng(2).standard_normal(AGAINST_MINDSPORE[name][1]).astype(F32)


def build_layer(name: str):
    ms.set_seed(0)
    net = eval(AGAINST_MINDSPORE[name][0], {"M": M})  # noqa: S307 (our own table)
    net.set_train(False)
    return net


@pytest.fixture(scope="module")
def mindspore_run(tmp_path_factory):
    """MindSpore's outputs for ``AGAINST_MINDSPORE`` on msc's weights, and its train steps
    for ``MS_CASES``: one subprocess (importing MindCV under MindSpore takes seconds)."""
    if not MINDSPORE.exists():
        pytest.skip("MindSpore 2.10 is not installed in .peers/ms")
    import inspect

    root = tmp_path_factory.mktemp("mindcv-mindspore")
    weights, inputs = {}, {}
    for name in AGAINST_MINDSPORE:
        for pname, param in build_layer(name).parameters_dict().items():
            weights[f"{name}/{pname}"] = param.asnumpy()
        inputs[name] = model_inputs(name)
    np.savez(root / "weights.npz", **weights)
    np.savez(root / "inputs.npz", **inputs)
    data = "".join(f"{k} = np.array({v.tolist()!r}, np.float32)\n"
                   for k, v in (("W0", W0), ("B0", B0), ("X", X), ("Y", Y)))
    (root / "train.py").write_text(f"F32 = np.float32\nLR, DECAY, STEPS = {LR}, {DECAY}, "
                                   f"{STEPS}\n{data}{inspect.getsource(train)}")
    (root / "run.py").write_text(MS_SCRIPT.format(vendored=str(VENDORED),
                                                  models=AGAINST_MINDSPORE, cases=MS_CASES,
                                                  names=NAMES_AGAINST_MINDSPORE))
    run = subprocess.run([str(MINDSPORE), "run.py"], cwd=root, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    with np.load(root / "outputs.npz") as out:
        outputs = {name: out[name] for name in out.files}
    return outputs, json.loads((root / "steps.json").read_text()), \
        json.loads((root / "names.json").read_text())


@pytest.mark.parametrize("name", AGAINST_MINDSPORE)
def test_models_match_mindspore(mindspore_run, name):
    """Eagerly and in GRAPH_MODE."""
    want = mindspore_run[0][name]
    net, x = build_layer(name), Tensor(model_inputs(name))
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        got = net(x).asnumpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max(),
                                   err_msg=f"mode {mode}")


def test_parameter_names_of_a_cell_held_twice():
    """The later path names the weights, as in MindSpore 2.10 (which printed these)."""
    squeeze = list(eval(NAMES_AGAINST_MINDSPORE["squeezenet1_1"], {"M": M}).parameters_dict())
    assert squeeze[-2:] == ["classifier.1.weight", "classifier.1.bias"]
    assert "final_conv.weight" not in squeeze
    coat = list(eval(NAMES_AGAINST_MINDSPORE["coat_lite_tiny"], {"M": M}).parameters_dict())
    assert "serial_blocks1.0.cpe.proj.weight" in coat and "cpe1.proj.weight" not in coat


@pytest.mark.parametrize("name", NAMES_AGAINST_MINDSPORE)
def test_parameter_names_match_mindspore(mindspore_run, name):
    ms.set_seed(0)
    net = eval(NAMES_AGAINST_MINDSPORE[name], {"M": M})  # noqa: S307 (our own table)
    assert list(net.parameters_dict()) == mindspore_run[2][name]


@pytest.mark.parametrize("mode, wrap, opts", MS_CASES)
def test_optimizers_and_train_step_match_mindspore(mindspore_run, mode, wrap, opts):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    for opt in opts:
        key, ours, theirs = f"{mode}/{wrap}/{opt}", train(opt, wrap), mindspore_run[1]
        assert len(ours["ema"]) == len(theirs[key]["ema"]), key
        for field, got, want in [(f, ours[f], theirs[key][f]) for f in ("loss", "w", "b")] \
                + [("ema", *pair) for pair in zip(ours["ema"], theirs[key]["ema"])]:
            np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-5, atol=2e-6,
                                       err_msg=f"{key} {field}")

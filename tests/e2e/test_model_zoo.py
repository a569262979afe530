"""Model-zoo style networks (``tests/e2e/models``: LeNet-5, a ResNet basic block and a tiny
ResNet, a MobileNetV2 inverted-residual block, a tiny BERT classifier, a tiny GPT, a tiny
Vision Transformer and the quick-start MLP) give the same results eagerly (PyNative), in
GRAPH_MODE (python target; numba too for LeNet-5 and the ResNet block) and as ``msc
compile`` artifacts run in a fresh process that cannot import msc, all on the same weights.
One training step of LeNet-5 and of the ResNet block (``WithLossCell`` + ``Momentum`` +
``TrainOneStepCell``) moves the weights by the learning rate times the gradients JAX
computes for the same program (JAX installed in ``.peers/jax``; skipped where it is not),
and by central differences of the eager loss on a few weights (always)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn

from .cases.models import ROOT, load_file, start_msc

MODELS = ROOT / "tests" / "e2e" / "models"
JAX = ROOT / ".peers" / "jax" / "bin" / "python"
NO_MSC = "import sys; sys.modules['msc'] = None\n"  # an import of msc would fail
F32 = np.float32


@dataclass(frozen=True)
class Model:
    file: str
    entry: str
    inputs: tuple[str, ...]                       # --input specs
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]]
    numba: bool = False                           # also compiled by the numba target


def _images(*shape: int) -> Callable[[np.random.Generator], list[np.ndarray]]:
    return lambda rng: [rng.standard_normal(shape).astype(F32)]


def _tokens_and_mask(rng: np.random.Generator) -> list[np.ndarray]:
    mask = np.ones((2, 8), np.int32)
    mask[1, 5:] = 0  # the second sequence is padded
    return [rng.integers(0, 50, (2, 8)).astype(np.int32), mask]


ZOO = {
    "lenet": Model("lenet.py", "LeNet5", ("f32[2,1,32,32]",), _images(2, 1, 32, 32), True),
    "resnet_block": Model("resnet_block.py", "BasicBlock", ("f32[2,8,8,8]",),
                          _images(2, 8, 8, 8), True),
    "tiny_resnet": Model("resnet_block.py", "TinyResNet", ("f32[2,3,8,8]",), _images(2, 3, 8, 8)),
    "mobilenet_block": Model("mobilenet_block.py", "MobileNetV2Blocks", ("f32[2,8,8,8]",),
                             _images(2, 8, 8, 8)),
    "bert_tiny": Model("bert_tiny.py", "BertClassifier", ("i32[2,8]", "i32[2,8]"),
                       _tokens_and_mask),
    "gpt_tiny": Model("gpt_tiny.py", "TinyGPT", ("i32[2,8]",),
                      lambda rng: [rng.integers(0, 64, (2, 8)).astype(np.int32)]),
    "mlp_quickstart": Model("mlp_quickstart.py", "Network", ("f32[2,1,28,28]",),
                            _images(2, 1, 28, 28)),
    "vit_tiny": Model("vit.py", "vit_tiny", ("f32[2,3,32,32]",), _images(2, 3, 32, 32)),
}


def build(name: str):
    """A fresh instance of the model's entry class (its file imported under its own name)."""
    model = ZOO[name]
    module = load_file(MODELS / model.file, f"_zoo_{Path(model.file).stem}")
    return getattr(module, model.entry)()


def set_weights(net, weights: dict[str, np.ndarray]) -> None:
    for pname, param in net.parameters_dict().items():
        param.set_data(Tensor(weights[pname]))


@pytest.fixture(autouse=True)
def _python_target():
    """Graphs compile for the python target unless a test asks for numba (the shared
    fixture resets the context after each test)."""
    ms.set_context(jit_target="python")


# --- eager == graph == artifact --------------------------------------------------------------


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """Each model compiled for the python target by a concurrent ``msc compile``, then all
    of them run on the same inputs by one fresh process without msc: name -> (weights,
    inputs, artifact output)."""
    root = tmp_path_factory.mktemp("zoo")
    rng = np.random.default_rng(0)
    inputs = {name: model.make_inputs(rng) for name, model in ZOO.items()}
    procs = {}
    for name, model in ZOO.items():
        args = ["compile", str(MODELS / model.file), model.entry]
        for spec in model.inputs:
            args += ["--input", spec]
        procs[name] = start_msc(*args, "--target", "python", "-o", str(root / name),
                                "--quiet", "--no-cache")
    for name, proc in procs.items():
        _, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {stderr}"
    np.savez(root / "inputs.npz", **{f"{name}.{i}": x for name, xs in inputs.items()
                                     for i, x in enumerate(xs)})
    modules = {name: json.loads((root / name / "manifest.json").read_text())["module"]
               for name in ZOO}
    script = NO_MSC + textwrap.dedent(f"""
        import importlib.util, numpy as np
        inputs, outputs = np.load("inputs.npz"), {{}}
        for name, module in {modules!r}.items():
            spec = importlib.util.spec_from_file_location(module[:-3], f"{{name}}/{{module}}")
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
            args = [inputs[k] for k in sorted(inputs.files) if k.rsplit(".", 1)[0] == name]
            outputs[name] = m.forward(*args)
        np.savez("outputs.npz", **outputs)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with np.load(root / "outputs.npz") as out:
        results = {}
        for name in ZOO:
            with np.load(root / name / "weights.npz") as w:
                weights = {k: w[k] for k in w.files if not k.startswith("__const")}
            results[name] = (weights, inputs[name], out[name])
    return results


def run_modes(name: str, weights: dict[str, np.ndarray], inputs: list[np.ndarray],
              targets: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The model on ``weights``: eagerly, then in GRAPH_MODE on each of ``targets``."""
    net = build(name)
    set_weights(net, weights)
    args = [Tensor(x) for x in inputs]
    results = {"eager": net(*args).asnumpy()}
    for target in targets:
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
        results[target] = net(*args).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return results


@pytest.mark.parametrize("name", ZOO)
def test_eager_equals_graph_equals_artifact(artifacts, name):
    weights, inputs, from_artifact = artifacts[name]
    targets = ("python", "numba") if ZOO[name].numba else ("python",)
    results = run_modes(name, weights, inputs, targets)
    eager = results["eager"]
    assert eager.dtype == np.float32 and np.isfinite(eager).all()
    assert eager.std() > 1e-3  # not a degenerate constant output
    for mode, got in [*results.items(), ("artifact", from_artifact)]:
        assert got.dtype == eager.dtype and got.shape == eager.shape, mode
        np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-5, err_msg=mode)


def test_padding_tokens_do_not_change_the_bert_logits(artifacts):
    """The attention mask works: changing a padded token leaves its sequence's logits."""
    weights, (ids, mask), _ = artifacts["bert_tiny"]
    other = ids.copy()
    other[1, 6] = (ids[1, 6] + 1) % 50
    other[0, 6] = (ids[0, 6] + 1) % 50  # not padded: this row must change
    a, b = (run_modes("bert_tiny", weights, [x, mask], ())["eager"] for x in (ids, other))
    np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-6)
    assert np.abs(a[0] - b[0]).max() > 1e-4


def test_the_gpt_is_causal(artifacts):
    """Changing the last token leaves the logits of every earlier position."""
    weights, (ids,), _ = artifacts["gpt_tiny"]
    other = ids.copy()
    other[:, -1] = (ids[:, -1] + 1) % 64
    a, b = (run_modes("gpt_tiny", weights, [x], ())["eager"] for x in (ids, other))
    np.testing.assert_allclose(a[:, :-1], b[:, :-1], rtol=1e-5, atol=1e-6)
    assert np.abs(a[:, -1] - b[:, -1]).max() > 1e-4


# --- one training step against JAX and central differences -----------------------------------


LR, MOMENTUM, BN_MOMENTUM = 0.05, 0.9, 0.9

JAX_LAYERS = """
def conv(x, w, stride=1, pad=0):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))
def channel(v):
    return v[None, :, None, None]
def batch_norm(p, name, x, stats):  # training mode: the batch's statistics
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    n = x.size // x.shape[1]
    stats[name] = (mean, var * n / (n - 1))  # the moving variance takes the unbiased one
    return (x - channel(mean)) / jnp.sqrt(channel(var) + 1e-5) * channel(p[name + ".gamma"]) \\
        + channel(p[name + ".beta"])
def dense(p, name, x):
    return x @ p[name + ".weight"].T + p[name + ".bias"]
"""

JAX_PROGRAMS = {
    "lenet": """
def loss(p, x, labels):
    pool = lambda t: jax.lax.reduce_window(t, -jnp.inf, jax.lax.max, (1, 1, 2, 2),
                                           (1, 1, 2, 2), "VALID")
    x = pool(jax.nn.relu(conv(x, p["conv1.weight"])))
    x = pool(jax.nn.relu(conv(x, p["conv2.weight"])))
    x = x.reshape(x.shape[0], -1)
    x = jax.nn.relu(dense(p, "fc2", jax.nn.relu(dense(p, "fc1", x))))
    logp = jax.nn.log_softmax(dense(p, "fc3", x), -1)
    return -jnp.take_along_axis(logp, labels[:, None].astype(jnp.int32), 1).mean(), {}
""",
    "resnet_block": """
def loss(p, x, target):
    stats = {}
    out = jax.nn.relu(batch_norm(p, "bn1", conv(x, p["conv1.weight"], 2, 1), stats))
    out = batch_norm(p, "bn2", conv(out, p["conv2.weight"], 1, 1), stats)
    shortcut = batch_norm(p, "down_sample_layer.1",
                          conv(x, p["down_sample_layer.0.weight"], 2, 0), stats)
    return ((jax.nn.relu(out + shortcut) - target) ** 2).mean(), stats
""",
}


def train_data(name: str, rng: np.random.Generator):
    """(inputs, labels or targets, the loss): a batch of 4."""
    if name == "lenet":
        return (rng.standard_normal((4, 1, 32, 32)).astype(F32),
                rng.integers(0, 10, 4).astype(np.int32),
                nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    return (rng.standard_normal((4, 8, 8, 8)).astype(F32),
            rng.standard_normal((4, 16, 4, 4)).astype(F32), nn.MSELoss())


def snapshot(net) -> dict[str, np.ndarray]:
    return {k: p.asnumpy().copy() for k, p in net.parameters_dict().items()}


def jax_value_and_grads(tmp_path, name: str, points: list[dict[str, np.ndarray]], x, y):
    """JAX's loss, gradients and batch-norm batch statistics at each point."""
    trainable = [k for k in points[0] if "moving_" not in k]
    arrays = {f"{i}/{k}": point[k] for i, point in enumerate(points) for k in trainable}
    np.savez(tmp_path / "in.npz", x=x, y=y, **arrays)
    script = textwrap.dedent("""
        import numpy as np, jax, jax.numpy as jnp
        jax.config.update("jax_enable_x64", False)
        a = dict(np.load("in.npz"))
    """) + JAX_LAYERS + JAX_PROGRAMS[name] + textwrap.dedent(f"""
        out = {{}}
        for i in range({len(points)}):
            p = {{k: jnp.asarray(a[f"{{i}}/{{k}}"]) for k in {trainable!r}}}
            (value, stats), g = jax.value_and_grad(loss, has_aux=True)(p, a["x"], a["y"])
            out[f"{{i}}/loss"] = np.asarray(value)
            out.update({{f"{{i}}/grad/{{k}}": np.asarray(v) for k, v in g.items()}})
            for k, (mean, var) in stats.items():
                out[f"{{i}}/mean/{{k}}"] = np.asarray(mean)
                out[f"{{i}}/var/{{k}}"] = np.asarray(var)
        np.savez("out.npz", **out)
    """)
    proc = subprocess.run([str(JAX), "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with np.load(tmp_path / "out.npz") as out:
        return {k: out[k] for k in out.files}


@pytest.fixture(scope="module")
def trained():
    """``two_steps`` of each model, run once for both tests that read them."""
    done = {}
    return lambda name: done[name] if name in done else done.setdefault(name, two_steps(name))


def two_steps(name: str):
    """Two compiled Momentum steps from fresh weights: the weights before each step and
    after the second, the two losses, the gradients the updates imply (the first step's
    moment is its gradient: w1 = w0 - lr g0; w2 = w1 - lr (momentum g0 + g1)), the data
    and the network."""
    rng = np.random.default_rng(3)
    ms.set_seed(3)  # the same initial weights every run
    net = build(name)
    x, y, loss_fn = train_data(name, rng)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.Momentum(net.trainable_params(), LR, MOMENTUM))
    step.set_train()
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    points, losses = [snapshot(net)], []
    for _ in range(2):
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        points.append(snapshot(net))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    w0, w1, w2 = points
    g0 = {k: (w0[k] - w1[k]) / LR for k in w0 if "moving_" not in k}
    g1 = {k: (w1[k] - w2[k]) / LR - MOMENTUM * g0[k] for k in g0}
    return points, losses, (g0, g1), (x, y, loss_fn), net


@pytest.mark.skipif(not JAX.exists(), reason="JAX is not installed in .peers/jax (python3 -m "
                    "venv .peers/jax && .peers/jax/bin/pip install jax jaxlib); the training "
                    "steps are still checked by central differences below")
@pytest.mark.parametrize("name", list(JAX_PROGRAMS))
def test_momentum_training_steps_follow_jax_gradients(trained, name, tmp_path):
    points, losses, grads, (x, y, _), _ = trained(name)
    want = jax_value_and_grads(tmp_path, name, points[:2], x, y)
    for i in range(2):
        np.testing.assert_allclose(losses[i], want[f"{i}/loss"], rtol=1e-5)
        for k, g in grads[i].items():
            np.testing.assert_allclose(g, want[f"{i}/grad/{k}"], rtol=2e-3, atol=2e-4,
                                       err_msg=f"step {i}: {k}")
    assert losses[1] < losses[0]
    moving = [k for k in points[0] if k.endswith(".moving_mean")]
    assert len(moving) == (3 if name == "resnet_block" else 0)
    for k in moving:  # moving = momentum * moving + (1 - momentum) * batch, each step
        bn = k.rsplit(".", 1)[0]
        for stat, start in (("mean", points[0][k]),
                            ("var", points[0][f"{bn}.moving_variance"])):
            got = points[1][k if stat == "mean" else f"{bn}.moving_variance"]
            np.testing.assert_allclose(got, BN_MOMENTUM * start + (1 - BN_MOMENTUM)
                                       * want[f"0/{stat}/{bn}"], rtol=1e-4, atol=1e-6,
                                       err_msg=f"{bn} moving {stat}")


@pytest.mark.parametrize("name", list(JAX_PROGRAMS))
def test_the_first_training_step_follows_central_differences(trained, name):
    """The gradient the first update implies, at the largest entries of each weight,
    against central differences of the eager loss (float32: a coarse check)."""
    points, losses, (g0, _), (x, y, loss_fn), net = trained(name)
    set_weights(net, points[0])
    loss_cell = nn.WithLossCell(net, loss_fn)
    net.set_train()
    args = (Tensor(x), Tensor(y))
    np.testing.assert_allclose(float(loss_cell(*args).asnumpy()), losses[0], rtol=1e-5)
    eps = 5e-4
    for k in ("conv1.weight", "conv2.weight"):
        param = net.parameters_dict()[k]
        for flat in np.argsort(-np.abs(g0[k]).ravel())[:2]:
            at = np.unravel_index(flat, g0[k].shape)
            values = []
            for sign in (1, -1):
                w = points[0][k].copy()
                w[at] += sign * eps
                param.set_data(Tensor(w))
                values.append(float(loss_cell(*args).asnumpy()))
            param.set_data(Tensor(points[0][k]))
            numeric = (values[0] - values[1]) / (2 * eps)
            np.testing.assert_allclose(g0[k][at], numeric, rtol=1e-2, atol=5e-4,
                                       err_msg=f"{k}{at}")


# --- optional oracle: the same model files under MindSpore ------------------------------------


MINDSPORE = ROOT / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore 2.10 is not installed in "
                    ".peers/ms; the models are checked across msc's modes and artifacts above")
def test_mindspore_runs_the_same_files_to_the_same_outputs(artifacts, tmp_path):
    """Each model file with ``msc`` replaced by ``mindspore`` in its imports, on the
    artifact's weights and inputs (PyNative), gives the artifact's output."""
    arrays = {}
    for name, (weights, inputs, _) in artifacts.items():
        arrays.update({f"{name}/w/{k}": v for k, v in weights.items()})
        arrays.update({f"{name}/x/{i}": x for i, x in enumerate(inputs)})
    np.savez(tmp_path / "in.npz", **arrays)
    zoo = {name: (str(MODELS / m.file), m.entry, len(m.inputs)) for name, m in ZOO.items()}
    script = textwrap.dedent(f"""
        import types, numpy as np, mindspore as ms
        ms.set_context(mode=ms.PYNATIVE_MODE)
        a, out = np.load("in.npz"), {{}}
        for name, (path, entry, n_inputs) in {zoo!r}.items():
            source = open(path).read().replace("from msc import", "from mindspore import")
            module = types.ModuleType(name)
            exec(compile(source.replace("import msc as", "import mindspore as"), path,
                         "exec"), module.__dict__)
            net = getattr(module, entry)()
            for k, p in net.parameters_dict().items():
                p.set_data(ms.Tensor(a[f"{{name}}/w/{{k}}"]))
            net.set_train(False)
            out[name] = net(*[ms.Tensor(a[f"{{name}}/x/{{i}}"]) for i in range(n_inputs)])
        np.savez("out.npz", **{{k: v.asnumpy() for k, v in out.items()}})
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with np.load(tmp_path / "out.npz") as theirs:
        for name, (_, _, ours) in artifacts.items():
            assert theirs[name].dtype == ours.dtype and theirs[name].shape == ours.shape, name
            np.testing.assert_allclose(ours, theirs[name], rtol=1e-4, atol=1e-5, err_msg=name)

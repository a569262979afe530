"""Convolutional models against JAX and MindSpore: LeNet-5, a ResNet basic block, and
whole ResNet-18 and ResNet-50 (inference and a training step).

Run ``python bench/bench_models.py`` (``--quick``: 2 rounds of shorter batches;
``--workloads`` (space- or comma-separated), ``--systems`` pick a subset, ``--json`` keeps
the raw rounds). Each case runs in a fresh process per round. The default run is the two
small inference workloads:

- ``lenet``: ``tests/e2e/models/lenet.py``'s ``LeNet5`` on float32[32, 1, 32, 32];
- ``resblock``: ``tests/e2e/models/resnet_block.py``'s ``BasicBlock(64, 64, stride=1)``
  (ResNet-18's first stage: two 3x3 convolutions, batch norm with moving statistics,
  the identity shortcut) on float32[8, 64, 56, 56].

Whole models, from ``tests/e2e/models/resnet.py`` (MindSpore's model collection, 10
classes), picked with ``--workloads resnet18,resnet50,resnet18-train``:

- ``resnet18``, ``resnet50``: inference in eval mode (batch norm with moving statistics)
  on float32[4, 3, 224, 224];
- ``resnet18-train``: one training step on float32[8, 3, 64, 64] with int32 labels in
  [0, 10): ``nn.TrainOneStepCell(nn.WithLossCell(net, SoftmaxCrossEntropyWithLogits(
  sparse=True, reduction="mean")), nn.Momentum(params, 0.01, 0.9))`` (batch norm with
  batch statistics, moving statistics updated).

msc runs the model files as they are (GRAPH_MODE, numba and python targets); MindSpore
2.10 runs the very same files with ``msc`` replaced by ``mindspore`` in their imports
(GRAPH_MODE); JAX runs the same networks written with ``jax.lax.conv_general_dilated``
and ``lax.reduce_window`` under ``jax.jit`` (the ResNets in NHWC layout, XLA's faster
one on CPU; the training step with ``jax.value_and_grad`` and MindSpore's Momentum
update, ``v = 0.9 v + g; w -= 0.01 v``, written by hand). Every system gets the same
weights (drawn per parameter name) and inputs. Each worker reports its first call
(compile + one run, after the imports) and the per-call latency after warm-up (median of
batches), and fails loudly unless its results equal a float64 numpy reference within
1e-4 (relative to max(1, |reference|)); the training step's first loss (the forward
pass, batch norm on batch statistics) within 1e-3 relative. One thread everywhere, peers
in their own interpreters (a missing one prints "not installed"), compile caches off
(msc's, JAX's), as in ``bench_codegen.py``.

msc's numba target runs tiered (``jit_tier="auto"``, the default): the first call is
answered by the python (numpy) tier while Numba compiles in a background process; the
worker then waits for the numba tier (``msc.wait_for_compiles()``), makes one call on it
and times per call on it. Numba's compiled kernels live in a per-machine kernel library
(``$MSC_KERNEL_CACHE_PATH``): the ResNet workloads run msc's numba target twice per round,
with an empty library (a fresh folder: a machine where msc never ran) and with the library
that empty-library process filled (a warm library), and time ``python -m msc compile``
of ResNet-18 (``--no-cache``) the same two ways. LeNet-5 and the block keep whatever
library the machine has.

This file imports only the standard library at top level (besides the other benchmarks,
which do too): the peer interpreters run it as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import types
import warnings
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (ROOT, add_round_args, first_call_cell, fmt_s, machine, round_defaults,
                     row_problem, run_in_worker, save_json, time_per_call)
from bench_compile_cache import init_note, start_msc
from bench_control import med, ok

MODELS = os.path.join(ROOT, "tests", "e2e", "models")
WORKLOADS = {  # workload -> (model file, entry, constructor args, input shape, title)
    "lenet": ("lenet.py", "LeNet5", (), (32, 1, 32, 32),
              "LeNet-5 forward, float32[32, 1, 32, 32]"),
    "resblock": ("resnet_block.py", "BasicBlock", (64, 64, 1), (8, 64, 56, 56),
                 "ResNet basic block (64 channels, stride 1, batch norm in inference), "
                 "float32[8, 64, 56, 56]"),
    "resnet18": ("resnet.py", "resnet18", (), (4, 3, 224, 224),
                 "ResNet-18 inference (eval mode: batch norm with moving statistics, 10 "
                 "classes), float32[4, 3, 224, 224]"),
    "resnet50": ("resnet.py", "resnet50", (), (4, 3, 224, 224),
                 "ResNet-50 inference (eval mode: batch norm with moving statistics, 10 "
                 "classes), float32[4, 3, 224, 224]"),
    "resnet18-train": ("resnet.py", "resnet18", (), (8, 3, 64, 64),
                       "ResNet-18 training step (batch statistics, sparse softmax "
                       "cross-entropy, Momentum 0.01/0.9), float32[8, 3, 64, 64], int32 "
                       "labels"),
}
DEFAULT_WORKLOADS = ("lenet", "resblock")
TRAIN = ("resnet18-train",)
CASES = {  # case -> (system, label)
    "msc-numba": ("msc", "msc GRAPH_MODE, numba target"),
    "msc-numba-cold": ("msc", "msc GRAPH_MODE, numba target, empty kernel library"),
    "msc-numba-warm": ("msc", "msc GRAPH_MODE, numba target, warm kernel library"),
    "msc-python": ("msc", "msc GRAPH_MODE, python (numpy) target"),
    "jax": ("jax", "JAX `jax.jit` (`lax.conv_general_dilated`)"),
    "mindspore": ("mindspore", "MindSpore 2.10 GRAPH_MODE"),
    "msc-compile-cold": ("msc", "`python -m msc compile`, empty kernel library"),
    "msc-compile-warm": ("msc", "`python -m msc compile`, warm kernel library"),
}
CLI_CASES = ("msc-compile-cold", "msc-compile-warm")
CLI_WORKLOADS = ("resnet18",)  # the workloads whose `msc compile` is timed too
SYSTEMS = ("msc", "jax", "mindspore")
TOL, LOSS_TOL = 1e-4, 1e-3
LR, MOMENTUM = 0.01, 0.9
# the JAX ResNets run NHWC activations and HWIO weights: XLA's CPU convolutions are faster
# so (ResNet-18 inference 0.21 s per call against 0.40 s NCHW, ResNet-50 0.48 s against
# 0.65 s, the training step 1.16 s against 1.30 s; one pinned CPU)
JAX_NHWC = True


def cases_of(workload: str) -> tuple[str, ...]:
    if workload in DEFAULT_WORKLOADS:
        return "msc-numba", "msc-python", "jax", "mindspore"
    cases = ("msc-numba-cold", "msc-numba-warm", "msc-python", "jax", "mindspore")
    return cases + (CLI_CASES if workload in CLI_WORKLOADS else ())


# --- weights, inputs and the float64 numpy reference -----------------------------------------


def weight(name: str, shape: tuple[int, ...]) -> Any:
    """The same float32 array for a parameter name in every process and system."""
    import numpy as np

    rng = np.random.default_rng(zlib.crc32(name.encode()))
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "weight":  # He-scaled, so activations keep their size through the layers
        w = rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))
    elif leaf in ("gamma", "moving_variance"):
        w = rng.uniform(0.5, 1.5, shape)
    else:  # bias, beta, moving_mean
        w = rng.standard_normal(shape) * 0.1
    return w.astype(np.float32)


def data(workload: str) -> Any:
    import numpy as np

    return np.random.default_rng(0).standard_normal(WORKLOADS[workload][3]).astype(np.float32)


def labels(workload: str) -> Any:
    """The training step's int32 class labels in [0, CLASSES)."""
    import numpy as np

    batch = WORKLOADS[workload][3][0]
    return np.random.default_rng(1).integers(0, CLASSES, batch).astype(np.int32)


def conv_ref(x: Any, w: Any, stride: int = 1, pad: int = 0) -> Any:
    """Cross-correlation of NCHW ``x`` with OIHW ``w`` in float64 (windows + tensordot)."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(x, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.tensordot(win, w.astype(np.float64), ((1, 4, 5), (1, 2, 3))).transpose(0, 3, 1, 2)


# --- ResNet-18 and -50, written once for numpy (float64) and JAX ------------------------------

RESNETS = {  # arch -> (block, blocks per stage, stage input channels, stage output channels)
    "resnet18": ("basic", (2, 2, 2, 2), (64, 64, 128, 256), (64, 128, 256, 512)),
    "resnet50": ("bottleneck", (3, 4, 6, 3), (64, 256, 512, 1024), (256, 512, 1024, 2048)),
}
STRIDES, CLASSES, EPS = (1, 2, 2, 2), 10, 1e-5
BN_PARAMS = ("moving_mean", "moving_variance", "gamma", "beta")
Conv = tuple[str, str, int, int, int, int]  # conv name, batch norm name, cin, cout, k, stride


def arch_of(workload: str) -> str:
    return WORKLOADS[workload][1]


def resnet_blocks(arch: str) -> Iterator[tuple[list[Conv], Conv | None]]:
    """Each block of ``resnet.py``'s ``ResNet``: its main path and its down-sampling
    shortcut (None for the identity), named as msc and MindSpore name the Parameters."""
    kind, counts, cins, couts = RESNETS[arch]
    for s, (count, cin, cout, stride) in enumerate(zip(counts, cins, couts, STRIDES)):
        for i in range(count):
            p, c_in, st = f"layer{s + 1}.{i}", (cin if i == 0 else cout), (stride if i == 0 else 1)
            if kind == "basic":
                main = [(f"{p}.conv1", f"{p}.bn1", c_in, cout, 3, st),
                        (f"{p}.conv2", f"{p}.bn2", cout, cout, 3, 1)]
            else:
                ch = cout // 4
                main = [(f"{p}.conv1", f"{p}.bn1", c_in, ch, 1, 1),
                        (f"{p}.conv2", f"{p}.bn2", ch, ch, 3, st),
                        (f"{p}.conv3", f"{p}.bn3", ch, cout, 1, 1)]
            down = (f"{p}.down_sample_layer.0", f"{p}.down_sample_layer.1", c_in, cout, 1, st) \
                if st != 1 or c_in != cout else None
            yield main, down


def resnet_shapes(arch: str) -> dict[str, tuple[int, ...]]:
    """Every Parameter of the network and its shape."""
    shapes: dict[str, tuple[int, ...]] = {}

    def add(conv: str, bn: str, cin: int, cout: int, k: int, stride: int) -> None:
        shapes[f"{conv}.weight"] = (cout, cin, k, k)
        shapes.update({f"{bn}.{v}": (cout,) for v in BN_PARAMS})

    add("conv1", "bn1", 3, 64, 7, 2)
    for main, down in resnet_blocks(arch):
        for c in main + ([down] if down else []):
            add(*c)
    shapes["end_point.weight"] = (CLASSES, RESNETS[arch][3][-1])
    shapes["end_point.bias"] = (CLASSES,)
    return shapes


def resnet_forward(o: Any, p: dict[str, Any], x: Any, arch: str, train: bool,
                   stats: dict[str, Any]) -> Any:
    """The logits, with the ops of ``o`` (numpy in float64, or JAX); in training, batch norm
    uses the batch's statistics and puts (mean, unbiased variance) per layer in ``stats``."""
    def cbr(h: Any, conv: str, bn: str, cin: int, cout: int, k: int, stride: int,
            relu: bool = True) -> Any:
        h = o.bn(o.conv(h, p[f"{conv}.weight"], stride, k // 2), p, bn, train, stats)
        return o.relu(h) if relu else h

    h = o.maxpool(cbr(x, "conv1", "bn1", 3, 64, 7, 2))
    for main, down in resnet_blocks(arch):
        out = h
        for i, c in enumerate(main):
            out = cbr(out, *c, relu=i < len(main) - 1)
        h = o.relu(out + (cbr(h, *down, relu=False) if down else h))
    h = o.spatial_mean(h)
    return h @ o.f(p["end_point.weight"]).T + o.f(p["end_point.bias"])


class NumpyOps:
    """``resnet_forward``'s ops in float64 numpy."""

    @staticmethod
    def f(a: Any) -> Any:
        import numpy as np

        return np.asarray(a, np.float64)

    @staticmethod
    def conv(x: Any, w: Any, stride: int, pad: int) -> Any:
        return conv_ref(x, w, stride, pad)

    @staticmethod
    def relu(x: Any) -> Any:
        import numpy as np

        return np.maximum(x, 0)

    @staticmethod
    def bn(x: Any, p: dict[str, Any], name: str, train: bool, stats: dict[str, Any]) -> Any:
        import numpy as np

        c = lambda v: NumpyOps.f(p[f"{name}.{v}"])[None, :, None, None]  # noqa: E731
        if train:
            mean, var = x.mean((0, 2, 3), keepdims=True), x.var((0, 2, 3), keepdims=True)
        else:
            mean, var = c("moving_mean"), c("moving_variance")
        return (x - mean) / np.sqrt(var + EPS) * c("gamma") + c("beta")

    @staticmethod
    def spatial_mean(x: Any) -> Any:
        return x.mean((2, 3))

    @staticmethod
    def maxpool(x: Any) -> Any:
        """3x3, stride 2, MindSpore's pad_mode="same": ceil(n / 2) outputs, the odd unit of
        padding after the input."""
        import numpy as np
        from numpy.lib.stride_tricks import sliding_window_view

        pads = []
        for n in x.shape[2:]:
            need = max(0, (-(-n // 2) - 1) * 2 + 3 - n)
            pads.append((need // 2, need - need // 2))
        x = np.pad(x, ((0, 0), (0, 0), *pads), constant_values=-np.inf)
        return sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max((4, 5))


def cross_entropy_ref(logits: Any, y: Any) -> float:
    import numpy as np

    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


_REFERENCE: dict[str, Any] = {}


def reference(workload: str, w: dict[str, Any]) -> Any:
    """The float64 result: logits, or the training step's loss (computed once a process)."""
    if workload in _REFERENCE:
        return _REFERENCE[workload]
    import numpy as np

    x = data(workload)
    if workload in RESNETS or workload in TRAIN:
        train = workload in TRAIN
        logits = resnet_forward(NumpyOps, w, x, arch_of(workload), train, {})
        want = cross_entropy_ref(logits, labels(workload)) if train else logits
    elif workload == "lenet":
        def pool(t: Any) -> Any:
            n, c, h, wd = t.shape
            return t.reshape(n, c, h // 2, 2, wd // 2, 2).max((3, 5))

        h = pool(np.maximum(conv_ref(x, w["conv1.weight"]), 0))
        h = pool(np.maximum(conv_ref(h, w["conv2.weight"]), 0)).reshape(x.shape[0], -1)
        for i, name in enumerate(("fc1", "fc2", "fc3")):
            h = h @ w[f"{name}.weight"].T.astype(np.float64) + w[f"{name}.bias"]
            h = np.maximum(h, 0) if i < 2 else h
        want = h
    else:
        def bn(t: Any, name: str) -> Any:
            return NumpyOps.bn(t, w, name, False, {})

        out = np.maximum(bn(conv_ref(x, w["conv1.weight"], 1, 1), "bn1"), 0)
        out = bn(conv_ref(out, w["conv2.weight"], 1, 1), "bn2")
        want = np.maximum(out + x, 0)
    _REFERENCE[workload] = want
    return want


def check(case: str, workload: str, out: Any, w: dict[str, Any]) -> float:
    """The maximum relative error of ``out`` (raises past the tolerance)."""
    import numpy as np

    want = reference(workload, w)
    if workload in TRAIN:
        got = float(out)
        err = abs(got - want) / abs(want)
        if not err < LOSS_TOL:
            raise AssertionError(f"{case}: first loss {got} against numpy's {want}: "
                                 f"relative error {err:.3g} >= {LOSS_TOL}")
        return err
    got = np.asarray(out)
    if got.dtype != np.float32 or got.shape != want.shape:
        raise AssertionError(f"{case}: got {got.dtype}{got.shape}, want float32{want.shape}")
    err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))
    if not err < TOL:
        raise AssertionError(f"{case}: max relative error {err:.3g} >= {TOL}")
    return err


# --- per-system setup: (the call, its result as numpy, the weights, what to report) ---------

Setup = tuple[Callable[[], Any], Callable[[Any], Any], dict[str, Any], dict[str, Any]]


def model_file(workload: str, package: str) -> Any:
    """The model file as a module, with ``msc`` replaced by ``package`` in its imports (the
    same source runs under MindSpore)."""
    path = os.path.join(MODELS, WORKLOADS[workload][0])
    with open(path) as f:
        source = f.read()
    if package != "msc":
        source = source.replace("from msc import", f"from {package} import") \
            .replace("import msc as", f"import {package} as")
    module = types.ModuleType(f"bench_{workload.replace('-', '_')}")
    module.__file__ = path
    sys.modules[module.__name__] = module  # where inspect looks for the classes' source
    exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - our own model file
    return module


def cell_with_weights(workload: str, package: str, tensor: Callable[[Any], Any]) -> Any:
    _, entry, args, _, _ = WORKLOADS[workload]
    net = getattr(model_file(workload, package), entry)(*args)
    weights = {}
    for name, param in net.parameters_dict().items():
        weights[name] = weight(name, tuple(param.shape))
        param.set_data(tensor(weights[name]))
    if workload in RESNETS or workload in TRAIN:  # the JAX network has the same Parameters
        want = resnet_shapes(arch_of(workload))
        got = {k: tuple(v.shape) for k, v in weights.items()}
        if got != want:
            raise AssertionError(f"{workload}: the Parameters differ from the JAX network's: "
                                 f"{sorted(set(got.items()) ^ set(want.items()))[:6]}")
    net.set_train(False)
    return net, weights


def graph_cell(ms: Any, workload: str) -> tuple[Any, Callable[[], Any], dict[str, Any]]:
    """msc's or MindSpore's cell for ``workload``, its call, and the weights."""
    net, w = cell_with_weights(workload, ms.__name__, ms.Tensor)
    x = ms.Tensor(data(workload))
    if workload not in TRAIN:
        return net, (lambda: net(x)), w
    loss = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = ms.nn.Momentum(net.trainable_params(), LR, MOMENTUM)
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, loss), opt)
    step.set_train(True)  # batch norm on batch statistics
    y = ms.Tensor(labels(workload))
    return step, (lambda: step(x, y)), w


def msc_tiers(cell: Any) -> list[str]:
    """Which tier runs the next call of each graph ``cell`` compiled ("numba"/"python")."""
    from msc.frontend.jit import cell_cache

    return sorted({c.tier for c in cell_cache(cell).entries.values()})


def setup_msc(case: str, workload: str) -> Setup:
    import_s, init_s = start_msc()
    import msc as ms
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=False,
                   jit_target="python" if case == "msc-python" else "numba")
    if case in ("msc-numba-cold", "msc-numba-warm"):
        ms.set_context(jit_tier="auto")  # the default, whatever $MSC_JIT_TIER says
    cell, call, w = graph_cell(ms, workload)
    info = {"import_s": import_s, "init_s": init_s, "version": ms.__version__}
    if case != "msc-python":
        info["tiers"] = lambda: msc_tiers(cell)
    return call, (lambda r: r.asnumpy()), w, info


def setup_mindspore(case: str, workload: str) -> Setup:
    t0 = time.perf_counter()
    import mindspore as ms
    import_s = time.perf_counter() - t0
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.device_context.cpu.op_tuning.threads_num(1)
    _, call, w = graph_cell(ms, workload)
    return call, (lambda r: r.asnumpy()), w, {"import_s": import_s, "version": ms.__version__}


def jax_forward(workload: str, jax: Any, jnp: Any) -> Callable[[dict[str, Any], Any], Any]:
    """The workload's network written for JAX."""
    lax = jax.lax

    def conv(x: Any, w: Any, pad: int = 0, stride: int = 1) -> Any:
        return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def lenet(p: dict[str, Any], x: Any) -> Any:
        def pool(t: Any) -> Any:
            return lax.reduce_window(t, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        h = pool(jax.nn.relu(conv(x, p["conv1.weight"])))
        h = pool(jax.nn.relu(conv(h, p["conv2.weight"]))).reshape(x.shape[0], -1)
        h = jax.nn.relu(h @ p["fc1.weight"].T + p["fc1.bias"])
        h = jax.nn.relu(h @ p["fc2.weight"].T + p["fc2.bias"])
        return h @ p["fc3.weight"].T + p["fc3.bias"]

    def block(p: dict[str, Any], x: Any) -> Any:
        def bn(t: Any, name: str) -> Any:
            c = lambda v: p[f"{name}.{v}"][None, :, None, None]  # noqa: E731
            return (t - c("moving_mean")) * lax.rsqrt(c("moving_variance") + 1e-5) \
                * c("gamma") + c("beta")

        out = jax.nn.relu(bn(conv(x, p["conv1.weight"], 1), "bn1"))
        return jax.nn.relu(bn(conv(out, p["conv2.weight"], 1), "bn2") + x)

    if workload in RESNETS:
        ops = jax_ops(jax, jnp, JAX_NHWC)
        return lambda p, x: resnet_forward(ops, p, x.transpose(0, 2, 3, 1) if JAX_NHWC else x,
                                           workload, False, {})
    return lenet if workload == "lenet" else block


def jax_ops(jax: Any, jnp: Any, nhwc: bool) -> Any:
    """``resnet_forward``'s ops in JAX (float32), on NCHW activations and OIHW weights or,
    with ``nhwc``, on NHWC activations and HWIO weights (see ``to_jax_layout``)."""
    lax = jax.lax
    dims = ("NHWC", "HWIO", "NHWC") if nhwc else ("NCHW", "OIHW", "NCHW")
    spatial, window = ((1, 2), (1, 3, 3, 1)) if nhwc else ((2, 3), (1, 1, 3, 3))

    class JaxOps:
        f = staticmethod(lambda a: a)
        relu = staticmethod(jax.nn.relu)

        @staticmethod
        def conv(x: Any, w: Any, stride: int, pad: int) -> Any:
            return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                            dimension_numbers=dims)

        @staticmethod
        def bn(x: Any, p: dict[str, Any], name: str, train: bool,
               stats: dict[str, Any]) -> Any:
            axes = (0, *spatial)
            shape = (1, 1, 1, -1) if nhwc else (1, -1, 1, 1)
            c = lambda v: p[f"{name}.{v}"].reshape(shape)  # noqa: E731
            if train:
                mean, var = x.mean(axes), x.var(axes)
                n = x.size // mean.size
                stats[name] = (mean, var * (n / (n - 1)))
                mean, var = mean.reshape(shape), var.reshape(shape)
            else:
                mean, var = c("moving_mean"), c("moving_variance")
            return (x - mean) * lax.rsqrt(var + EPS) * c("gamma") + c("beta")

        @staticmethod
        def spatial_mean(x: Any) -> Any:
            return x.mean(spatial)

        @staticmethod
        def maxpool(x: Any) -> Any:  # XLA's "SAME" is MindSpore's pad_mode="same"
            return lax.reduce_window(x, -jnp.inf, lax.max, window, (1, 2, 2, 1) if nhwc
                                     else (1, 1, 2, 2), "SAME")
    return JaxOps


def to_jax_layout(w: dict[str, Any], nhwc: bool) -> dict[str, Any]:
    """The weights as the JAX network takes them: OIHW convolution weights become HWIO
    with ``nhwc`` (done once, outside the timed calls)."""
    if not nhwc:
        return dict(w)
    return {k: v.transpose(2, 3, 1, 0).copy() if v.ndim == 4 else v for k, v in w.items()}


def jax_param_shapes(workload: str) -> dict[str, tuple[int, ...]]:
    if workload in RESNETS or workload in TRAIN:
        return resnet_shapes(arch_of(workload))
    if workload == "lenet":
        return {"conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5),
                "fc1.weight": (120, 400), "fc1.bias": (120,), "fc2.weight": (84, 120),
                "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,)}
    shapes: dict[str, tuple[int, ...]] = {}
    for i in (1, 2):
        shapes[f"conv{i}.weight"] = (64, 64, 3, 3)
        shapes.update({f"bn{i}.{v}": (64,) for v in ("moving_mean", "moving_variance",
                                                     "gamma", "beta")})
    return shapes


def jax_train_step(workload: str, jax: Any, jnp: Any,
                   w: dict[str, Any]) -> Callable[[], Any]:
    """One jitted step: loss and gradients of the trainable Parameters, MindSpore's
    Momentum update, and the batch norms' moving statistics moved towards the batch's
    (weight 0.1, unbiased variance) as msc and MindSpore do. Returns the step (it returns
    the loss)."""
    arch, ops = arch_of(workload), jax_ops(jax, jnp, JAX_NHWC)
    moving = {k for k in w if k.rsplit(".", 1)[-1] in ("moving_mean", "moving_variance")}

    def loss_fn(train_p: dict[str, Any], frozen: dict[str, Any], x: Any, y: Any) -> Any:
        stats: dict[str, Any] = {}
        x = x.transpose(0, 2, 3, 1) if JAX_NHWC else x
        logits = resnet_forward(ops, {**train_p, **frozen}, x, arch, True, stats)
        logp = jax.nn.log_softmax(logits, -1)
        return -jnp.take_along_axis(logp, y[:, None], 1).mean(), stats

    @jax.jit
    def step(train_p: Any, frozen: Any, v: Any, x: Any, y: Any) -> Any:
        (loss, stats), g = jax.value_and_grad(loss_fn, has_aux=True)(train_p, frozen, x, y)
        v = jax.tree_util.tree_map(lambda m, d: MOMENTUM * m + d, v, g)
        train_p = jax.tree_util.tree_map(lambda p, m: p - LR * m, train_p, v)
        frozen = dict(frozen)
        for bn, (mean, var) in stats.items():
            for key, batch in (("moving_mean", mean), ("moving_variance", var)):
                frozen[f"{bn}.{key}"] = 0.9 * frozen[f"{bn}.{key}"] + 0.1 * batch
        return loss, train_p, frozen, v

    w = to_jax_layout(w, JAX_NHWC)
    state = [{k: jnp.asarray(v) for k, v in w.items() if k not in moving},
             {k: jnp.asarray(v) for k, v in w.items() if k in moving}]
    state.append(jax.tree_util.tree_map(jnp.zeros_like, state[0]))
    x, y = jnp.asarray(data(workload)), jnp.asarray(labels(workload))

    def run() -> Any:
        loss, state[0], state[1], state[2] = step(state[0], state[1], state[2], x, y)
        return jax.block_until_ready(loss)
    return run


def setup_jax(case: str, workload: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    import_s = time.perf_counter() - t0
    jax.config.update("jax_enable_compilation_cache", False)  # a cold first call
    w = {k: weight(k, s) for k, s in jax_param_shapes(workload).items()}
    info = {"import_s": import_s, "version": jax.__version__}
    if workload in TRAIN:
        return jax_train_step(workload, jax, jnp, w), np.asarray, w, info
    fn = jax.jit(jax_forward(workload, jax, jnp))
    layout = to_jax_layout(w, JAX_NHWC and workload in RESNETS)
    params = {k: jax.device_put(v) for k, v in layout.items()}
    x = jax.device_put(data(workload))
    return (lambda: jax.block_until_ready(fn(params, x))), np.asarray, w, info


# --- the workers: one case, one fresh process -------------------------------------------------


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    name, workload = case.rsplit(":", 1)
    if name in CLI_CASES:
        return compile_worker(workload)
    setup = {"msc": setup_msc, "jax": setup_jax, "mindspore": setup_mindspore}
    call, to_np, w, info = setup[CASES[name][0]](name, workload)
    tiers = info.pop("tiers", None)
    res: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:  # a TierWarning: Numba failed
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        out = to_np(call()).copy()
        t1 = time.perf_counter()
        outs = [out]
        if tiers is not None:
            # nothing else runs on this process's CPU while the numba tier compiles
            from msc.tiering import wait_for_compiles

            wait_for_compiles()
            t2 = time.perf_counter()
            outs.append(to_np(call()).copy())
            t3 = time.perf_counter()
            res = {"numba_after_s": t2 - t0, "numba_ready_s": t2 - t1, "first_numba_s": t3 - t2,
                   "tiers": tiers()}
            if res["tiers"] != ["numba"]:
                raise AssertionError(f"{name}: after wait_for_compiles the tiers are "
                                     f"{res['tiers']}, not numba")
        else:
            outs.append(to_np(call()).copy())
        per_call_s, n = time_per_call(call, batches, batch_s)
        last = to_np(call())
    failed = [str(c.message) for c in caught if type(c.message).__name__ == "TierWarning"]
    if failed:
        raise AssertionError(f"{name}: the numba tier failed: {failed[0][:300]}")
    if workload in TRAIN:
        # the second step's loss (after one Momentum update) is not checked here; the
        # report shows it per system, which should agree on it too
        err = check(name, workload, outs[0], w)
        res.update(loss0=float(outs[0]), loss1=float(outs[1]), loss_last=float(last))
    else:
        err = max(check(name, workload, o, w) for o in (*outs, last))
    return {"first_s": t1 - t0, "per_call_s": per_call_s, "calls_per_batch": n,
            "max_rel_err": err, **res, **info}


def compile_worker(workload: str) -> dict[str, Any]:
    """Wall time of ``python -m msc compile`` of the workload (compile cache bypassed;
    ``$MSC_KERNEL_CACHE_PATH`` is the library this round gave), then the artifact's first
    forward in this process (untimed by the wall time)."""
    import numpy as np

    file, entry, _, shape, _ = WORKLOADS[workload]
    out = os.path.join(os.getcwd(), "artifact")
    cmd = [sys.executable, "-m", "msc", "compile", os.path.join(MODELS, file), entry,
           "--input", f"f32[{','.join(map(str, shape))}]", "-o", out, "--no-cache", "--quiet"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        tail = " | ".join((p.stderr or p.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"msc compile: exit {p.returncode}: {tail}")
    kernels = [f for f in os.listdir(os.path.join(out, "kernels")) if f.endswith(".py")] \
        if os.path.isdir(os.path.join(out, "kernels")) else []
    import msc
    from msc.codegen.artifact import load_artifact

    t0 = time.perf_counter()
    result = load_artifact(out).forward(data(workload))
    first_run = time.perf_counter() - t0
    logits = np.asarray(result[0] if isinstance(result, (tuple, list)) else result)
    if logits.shape != (shape[0], CLASSES) or not np.isfinite(logits).all():
        raise AssertionError(f"msc compile: the artifact returned {logits.shape}, "
                             f"finite: {np.isfinite(logits).all()}")
    return {"first_s": wall, "kernel_files": len(kernels), "artifact_first_s": first_run,
            "stderr": p.stderr.strip()[-300:], "version": msc.__version__}


# --- the driver and its tables ----------------------------------------------------------------

Results = dict[str, "list[dict[str, Any]] | None"]  # case -> one row per round


def table(results: Results) -> list[str]:
    jax_rows = results.get("jax")
    out = ["| case | first call (compile + run) | per call | ÷ JAX per call | max rel err |",
           "| --- | ---: | ---: | ---: | ---: |"]
    for case, (_, label) in CASES.items():
        if case not in results:
            continue
        rows = results[case]
        if (problem := row_problem(rows)) is not None:
            out.append(f"| {label} | {problem} | | | |")
            continue
        per = med(rows, lambda r: r["per_call_s"])
        ratio = f"{per / med(jax_rows, lambda r: r['per_call_s']):.2f}x" \
            if ok(jax_rows) else "—"
        out.append(f"| {label} | {first_call_cell(rows)} | {fmt_s(per)} | "
                   f"{ratio} | {max(r['max_rel_err'] for r in rows):.1e} |")
    return out


def resnet_table(workload: str, results: Results) -> list[str]:
    """The whole-model table: the numba tier's timings on their own columns, then the
    `msc compile` one."""
    train = workload in TRAIN
    call, err = ("step", "first-loss rel err") if train else ("call", "max rel err")
    jax_rows = results.get("jax")
    out = [f"| case | first {call} (compile + run) | numba tier ready, after the first {call} "
           f"returned | first numba-tier {call} | per {call} | ÷ JAX per {call} | {err} |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for case, (_, label) in CASES.items():
        if case not in results or case in CLI_CASES:
            continue
        rows = results[case]
        if (problem := row_problem(rows)) is not None:
            out.append(f"| {label} | {problem} | | | | | |")
            continue
        tiered = all("numba_ready_s" in r for r in rows)  # type: ignore[union-attr]
        per = med(rows, lambda r: r["per_call_s"])
        ratio = f"{per / med(jax_rows, lambda r: r['per_call_s']):.2f}x" \
            if ok(jax_rows) else "—"
        ready = fmt_s(med(rows, lambda r: r["numba_ready_s"])) if tiered else "—"
        first_numba = fmt_s(med(rows, lambda r: r["first_numba_s"])) if tiered else "—"
        out.append(f"| {label} | {fmt_s(med(rows, lambda r: r['first_s']))} | {ready} | "
                   f"{first_numba} | {fmt_s(per)} | {ratio} | "
                   f"{max(r['max_rel_err'] for r in rows):.1e} |")  # type: ignore[union-attr]
    if any(c in results for c in CLI_CASES):
        file, entry, _, shape, _ = WORKLOADS[workload]
        out += ["", f"`python -m msc compile tests/e2e/models/{file} {entry} --input "
                f"'f32[{','.join(map(str, shape))}]' -o OUT --no-cache --quiet`:", "",
                "| kernel library | wall time | kernel sources in the artifact | the artifact's "
                "first forward (loaded in another process) |", "| --- | ---: | ---: | ---: |"]
        for case in CLI_CASES:
            rows = results.get(case)
            label = CASES[case][1].split(", ", 1)[1]
            if case not in results:
                continue
            if (problem := row_problem(rows)) is not None:
                out.append(f"| {label} | {problem} | | |")
                continue
            out.append(f"| {label} | {fmt_s(med(rows, lambda r: r['first_s']))} | "
                       f"{rows[0]['kernel_files']} | "  # type: ignore[index]
                       f"{fmt_s(med(rows, lambda r: r['artifact_first_s']))} |")
    return out


def notes(workload: str, results: Results) -> list[str]:
    out = []
    for case, what in (("msc-numba-warm", "the numba target's"), ("msc-compile-warm",
                                                                 "`msc compile`'s")):
        libs = [r["library_files"] for r in results.get(case) or [] if "library_files" in r]
        if libs:
            out.append(f"- {what[0].upper()}{what[1:]} warm library is the folder its "
                       f"empty-library process of the same round filled: {libs[0]} files "
                       f"(kernel sources and Numba's cache of them), round 1.")
    if workload in TRAIN:
        second = {c: [r["loss1"] for r in rows if r.get("loss1") is not None]
                  for c, rows in results.items() if ok(rows)}
        second = {c: v for c, v in second.items() if v}
        if second:
            out.append("- Loss of the second step (after one Momentum update; msc's first "
                       "numba-tier step), round 1: " + ", ".join(
                           f"{CASES[c][1]}: {v[0]:.6f}" for c, v in second.items()) + ".")
    return out


def report(results: dict[str, Results], args: argparse.Namespace, start: datetime) -> str:
    found: dict[str, str] = {}
    for rs in results.values():
        for case, rows in rs.items():
            if ok(rows):
                found.setdefault(CASES[case][0], rows[0]["version"])  # type: ignore[index]
    out = [f"Machine: {machine(start)}. "
           f"One thread everywhere, one pinned CPU per process. Versions: "
           + ", ".join(f"{k} {v}" for k, v in found.items()) + ".",
           f"Fresh process per case and round; medians of {args.rounds} round(s); first "
           f"call after the imports; per call = median of {args.batches} batches of >= "
           f"{args.batch_seconds * 1e3:.0f} ms after warm-up; compile caches off.", ""]
    for workload, rs in results.items():
        body = resnet_table(workload, rs) if workload not in DEFAULT_WORKLOADS else table(rs)
        out += [f"### {WORKLOADS[workload][4]}", "", *body, "", *notes(workload, rs)]
        if out[-1]:
            out.append("")
    inits = [r["init_s"] for rs in results.values() for case, rows in rs.items()
             if CASES[case][0] == "msc" and ok(rows) for r in rows  # type: ignore[union-attr]
             if "init_s" in r]
    return "\n".join(out + init_note(inits, "first-call"))


def workload_list(values: list[str]) -> list[str]:
    names = [n for v in values for n in v.split(",") if n]
    bad = [n for n in names if n not in WORKLOADS]
    if bad:
        raise SystemExit(f"unknown workload(s) {', '.join(bad)}: choose from "
                         f"{', '.join(WORKLOADS)}")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_round_args(ap)
    ap.set_defaults(timeout=900.0)  # an empty-library ResNet-50 on a loaded machine
    ap.add_argument("--workloads", nargs="+", default=list(DEFAULT_WORKLOADS),
                    help=f"space- or comma-separated, of: {', '.join(WORKLOADS)} (default: "
                         f"{' '.join(DEFAULT_WORKLOADS)})")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--worker", help=argparse.SUPPRESS)  # case:workload
    args = round_defaults(ap.parse_args(argv))
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return 0
    args.workloads = workload_list(args.workloads)
    start = datetime.now(timezone.utc)
    results: dict[str, Results] = {w: {} for w in args.workloads}
    for rnd in range(args.rounds):
        for workload in args.workloads:
            with tempfile.TemporaryDirectory(prefix="msc-bench-kernels-") as libs:
                run_round(workload, results[workload], args, rnd, libs)
    print(report(results, args, start))
    save_json(args.json, results)
    return 1 if any("error" in r for rs in results.values() for rows in rs.values()
                    for r in rows or []) else 0


def run_round(workload: str, res: Results, args: argparse.Namespace, rnd: int,
              libs: str) -> None:
    """One round of ``workload``'s cases, interleaved (load spikes hit every case). The
    ResNet cases get kernel libraries under ``libs``: an empty one for the empty-library
    case, the one it filled for the warm case (likewise for `msc compile`), a scratch one
    for the python target."""
    lib = {case: os.path.join(libs, kind) for kind, cases in (
        ("jit", ("msc-numba-cold", "msc-numba-warm")), ("python", ("msc-python",)),
        ("cli", CLI_CASES)) for case in cases}
    for case in cases_of(workload):
        system = CASES[case][0]
        if system not in args.systems or (case in res and res[case] is None):
            continue
        env = None
        if case in lib:
            os.makedirs(lib[case], exist_ok=True)
            env = {"MSC_KERNEL_CACHE_PATH": lib[case]}
        cold = {"msc-numba-warm": "msc-numba-cold", "msc-compile-warm": "msc-compile-cold"}
        if case in cold:
            before = (res.get(cold[case]) or [])  # type: ignore[arg-type]
            if cold[case] in res and (len(before) <= rnd or "error" in before[rnd]):
                res.setdefault(case, []).append(  # type: ignore[union-attr]
                    {"error": "no warm library: the empty-library case failed this round"})
                continue
        # what the warm case finds in its library (the empty-library process's files)
        found = sum(len(files) for _, _, files in os.walk(lib[case])) if case in cold else None
        print(f"round {rnd + 1}/{args.rounds}: {workload} {case}", file=sys.stderr)
        r = run_in_worker(__file__, system, f"{case}:{workload}", args, env)
        if r is None:
            res[case] = None
            continue
        if found is not None:
            r["library_files"] = found
        res.setdefault(case, []).append(r)  # type: ignore[union-attr]


if __name__ == "__main__":
    sys.exit(main())

"""Whole models against JAX and MindSpore: LeNet-5, a ResNet basic block, ResNet-18 and
ResNet-50 (inference and a training step), a BERT-base-shaped encoder (inference and a
fine-tuning step), a GPT-like stack's training step and a ViT-Ti/16-shaped Vision
Transformer.

Run ``python bench/bench_models.py`` (``--quick``: 2 rounds of shorter batches;
``--workloads`` (space- or comma-separated), ``--systems`` pick a subset, ``--json`` keeps
the raw rounds). Each case runs in a fresh process per round. The default run is the two
small inference workloads and the Vision Transformer:

- ``lenet``: ``tests/e2e/models/lenet.py``'s ``LeNet5`` on float32[32, 1, 32, 32];
- ``resblock``: ``tests/e2e/models/resnet_block.py``'s ``BasicBlock(64, 64, stride=1)``
  (ResNet-18's first stage: two 3x3 convolutions, batch norm with moving statistics,
  the identity shortcut) on float32[8, 64, 56, 56];
- ``vit``: ``tests/e2e/models/vit.py``'s ``vit_ti16`` (ViT-Ti/16: 224x224 images in
  16x16 patches by a convolution, a class token and learned positions, 12 pre-norm blocks
  of width 192 with 3 heads and an exact-GELU MLP of 768, a 10-class head) on
  float32[2, 3, 224, 224], with the whole models' cases below (both kernel libraries, the
  native library, onnxruntime).

Whole models, from ``tests/e2e/models/resnet.py`` (MindSpore's model collection, 10
classes), picked with ``--workloads resnet18,resnet50,resnet18-train``:

- ``resnet18``, ``resnet50``: inference in eval mode (batch norm with moving statistics)
  on float32[4, 3, 224, 224];
- ``resnet18-train``: one training step on float32[8, 3, 64, 64] with int32 labels in
  [0, 10): ``nn.TrainOneStepCell(nn.WithLossCell(net, SoftmaxCrossEntropyWithLogits(
  sparse=True, reduction="mean")), nn.Momentum(params, 0.01, 0.9))`` (batch norm with
  batch statistics, moving statistics updated).

Transformers, picked with ``--workloads bert2,bert4,bert2-train,gpt-train``:

- ``bert2``, ``bert4``: ``tests/e2e/models/bert_base.py``'s ``BertEncoder`` with 2 and 4
  layers (BERT-base's hidden 768, 12 heads, FFN 3072, exact GELU, post-norm LayerNorm,
  residuals, vocabulary 8192) on int32[2, 128] token ids and a padding mask (the second
  sequence ends in 32 padding tokens); the result is the last hidden states;
- ``bert2-train``: a fine-tuning step of ``BertClassifier(2)`` (tanh pooler, 2 classes):
  ``nn.TrainOneStepCell(ClassifierLoss(net), nn.AdamWeightDecay(params, 5e-5, 0.9, 0.999,
  1e-6, 0.01))`` (the sparse mean softmax cross-entropy; LayerNorm's gamma and beta not
  decayed, MindSpore's default filter);
- ``gpt-train``: a training step of ``tests/e2e/models/gpt_tiny.py``'s ``gpt_small()``
  (2 pre-norm blocks, width 384, 6 heads, 128 positions, vocabulary 2048) on int32[2, 128]
  tokens: ``NextTokenLoss`` (next-token sparse softmax cross-entropy) and ``nn.Momentum(
  params, 0.01, 0.9)``.

No dropout anywhere: every system computes the same numbers.

msc runs the model files as they are (GRAPH_MODE, numba and python targets, and the whole
models as native libraries: ``msc compile --native``, compiled in the first call and run
through the ctypes wrapper); onnxruntime runs msc's own ONNX export of each inference
network (exported and loaded in its first call, its session given the same threads); MindSpore
2.10 runs the very same files with ``msc`` replaced by ``mindspore`` in their imports
(GRAPH_MODE); JAX runs the same networks under ``jax.jit``, the convolutional ones
written with ``jax.lax.conv_general_dilated`` and ``lax.reduce_window`` (the ResNets in
NHWC layout, XLA's faster one on CPU), the transformers with jax.numpy
(``models_resnet.py``, ``models_bert.py``; the ViT cuts its patches by reshapes and one
product, ``models_vit.py``); the training steps with ``jax.value_and_grad``
and MindSpore's update written by hand (Momentum: ``v = 0.9 v + g; w -= 0.01 v``;
AdamWeightDecay: no bias correction, the decay added to the step). Every system gets the same
weights (drawn per parameter name) and inputs. Each worker reports its first call
(compile + one run, after the imports) and the per-call latency after warm-up (median of
batches), and fails loudly unless its results equal a float64 numpy reference within
1e-4 (relative to max(1, |reference|)); the training step's first loss (the forward
pass, batch norm on batch statistics) within 1e-3 relative. One thread everywhere, peers
in their own interpreters (a missing one prints "not installed"), compile caches off
(msc's, JAX's), as in ``bench_codegen.py``. ``--threads N`` instead gives every process all
CPUs and N threads (each system's pools: OpenBLAS, OpenMP, Numba, XLA, onnxruntime,
MindSpore's kernels).

msc's numba target runs tiered (``jit_tier="auto"``, the default): the first call is
answered by the python (numpy) tier while Numba compiles in a background process; the
worker then waits for the numba tier (``msc.wait_for_compiles()``), makes one call on it
and times per call on it. Numba's compiled kernels live in a per-machine kernel library
(``$MSC_KERNEL_CACHE_PATH``): the whole models run msc's numba target twice per round,
with an empty library (a fresh folder: a machine where msc never ran) and with the library
that empty-library process filled (a warm library), and time ``python -m msc compile``
of ResNet-18 and of the 2- and 4-layer encoders (``--no-cache``) the same two ways (the
report gives the 4-layer encoder's over the 2-layer one's). LeNet-5 and the block keep whatever
library the machine has.

The workloads and cases are in ``models_workloads.py``, the networks for numpy and JAX in
``models_resnet.py``, ``models_bert.py`` and ``models_vit.py``, the tables in ``models_report.py``. This file
imports only the standard library at top level (besides those files and the other
benchmarks, which do too): the peer interpreters run it as workers.
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
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models_bert as bert
import models_vit as vit
from bench_compile_cache import start_msc
from harness import (
    add_round_args,
    round_defaults,
    run_in_worker,
    save_json,
    time_per_call,
)
from models_report import Results, report
from models_resnet import (
    CLASSES,
    JAX_NHWC,
    LR,
    MOMENTUM,
    RESNETS,
    NumpyOps,
    block_ref,
    cross_entropy_ref,
    jax_forward,
    jax_param_shapes,
    jax_train_step,
    lenet_ref,
    resnet_forward,
    to_jax_layout,
)
from models_workloads import (
    CASES,
    CLI_CASES,
    DEFAULT_WORKLOADS,
    LOSS_TOL,
    MODELS,
    SMALL_WORKLOADS,
    SYSTEMS,
    TOL,
    TRAIN,
    TRANSFORMERS,
    WORKLOADS,
    cases_of,
    data,
    input_specs,
    inputs,
    labels,
    weight,
)

_REFERENCE: dict[str, Any] = {}


def net_of(workload: str) -> str:
    """What ``models_resnet`` calls the workload's network: "lenet", "resblock" or an arch."""
    return WORKLOADS[workload][1] if workload in RESNETS or workload in TRAIN else workload


def param_shapes(workload: str) -> dict[str, tuple[int, ...]]:
    """Every Parameter of the workload's network, as the JAX and numpy networks take them."""
    if workload in ("bert2", "bert4"):
        return bert.bert_shapes(int(workload[-1]), classifier=False)
    if workload == "bert2-train":
        return bert.bert_shapes(2, classifier=True)
    if workload == "gpt-train":
        return bert.gpt_shapes()
    if workload == "vit":
        return vit.vit_shapes()
    return jax_param_shapes(net_of(workload))


def reference(workload: str, w: dict[str, Any]) -> Any:
    """The float64 result: the output, or the training step's first loss (computed once a
    process)."""
    if workload in _REFERENCE:
        return _REFERENCE[workload]
    xs, o = inputs(workload), bert.NumpyMath
    if workload in ("bert2", "bert4"):
        want = bert.bert_encoder(o, w, *xs, int(workload[-1]))
    elif workload == "bert2-train":
        want = cross_entropy_ref(bert.bert_logits(o, w, *xs, 2), labels(workload))
    elif workload == "gpt-train":
        logits = bert.gpt_logits(o, w, *xs)
        want = cross_entropy_ref(logits.reshape(-1, logits.shape[-1]),
                                 labels(workload).reshape(-1))
    elif workload == "vit":
        want = vit.vit_logits(o, w, xs[0])
    elif workload in RESNETS or workload in TRAIN:
        train = workload in TRAIN
        logits = resnet_forward(NumpyOps, w, xs[0], net_of(workload), train, {})
        want = cross_entropy_ref(logits, labels(workload)) if train else logits
    else:
        want = (lenet_ref if workload == "lenet" else block_ref)(xs[0], w)
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
    """The workload's network with the bench's weights, the weights, and the model file."""
    _, entry, args, _, _ = WORKLOADS[workload]
    module = model_file(workload, package)
    net = getattr(module, entry)(*args)
    weights = {}
    for name, param in net.parameters_dict().items():
        weights[name] = weight(name, tuple(param.shape))
        param.set_data(tensor(weights[name]))
    if workload not in SMALL_WORKLOADS:  # the JAX network has the same Parameters
        want = param_shapes(workload)
        got = {k: tuple(v.shape) for k, v in weights.items()}
        if got != want:
            raise AssertionError(f"{workload}: the Parameters differ from the JAX network's: "
                                 f"{sorted(set(got.items()) ^ set(want.items()))[:6]}")
    net.set_train(False)
    return net, weights, module


def graph_cell(ms: Any, workload: str) -> tuple[Any, Callable[[], Any], dict[str, Any]]:
    """msc's or MindSpore's cell for ``workload``, its call, and the weights."""
    net, w, module = cell_with_weights(workload, ms.__name__, ms.Tensor)
    xs = [ms.Tensor(x) for x in inputs(workload)]
    if workload not in TRAIN:
        return net, (lambda: net(*xs)), w
    nn = ms.nn
    if workload == "bert2-train":
        loss_cell = module.ClassifierLoss(net)
        a = bert.ADAM
        opt = nn.AdamWeightDecay(net.trainable_params(), a["lr"], a["beta1"], a["beta2"],
                                 a["eps"], a["weight_decay"])
    elif workload == "gpt-train":
        loss_cell = module.NextTokenLoss(net)
        opt = nn.Momentum(net.trainable_params(), bert.LR, bert.MOMENTUM)
    else:
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        loss_cell = nn.WithLossCell(net, loss)
        opt = nn.Momentum(net.trainable_params(), LR, MOMENTUM)
    step = nn.TrainOneStepCell(loss_cell, opt)
    step.set_train(True)  # batch norm on batch statistics
    y = ms.Tensor(labels(workload))
    return step, (lambda: step(*xs, y)), w


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


def setup_native(case: str, workload: str) -> Setup:
    """msc's numba-lowered program as a C library (``msc compile --native``, compiled in
    this process, its library cache off: part of the first call), run through its ctypes
    wrapper. A training step updates its weights inside the library."""
    import importlib

    import_s, init_s = start_msc()
    import msc as ms
    from msc.codegen.native.build import write_native
    from msc.compiler import arg_spec, build

    cell, _, w = graph_cell(ms, workload)
    xs = list(inputs(workload)) + ([labels(workload)] if workload in TRAIN else [])
    folder = os.path.join(os.getcwd(), "native")
    state: dict[str, Any] = {}

    def call() -> Any:
        if "model" not in state:  # the first call: compile, load, map the weights
            write_native(build(cell, [arg_spec(ms.Tensor(x)) for x in xs]), folder,
                         entry_name=workload, input_specs=[])
            sys.path.insert(0, folder)
            state["model"] = importlib.import_module("msc_model").Model()
        out = state["model"](*xs)
        return out[0] if isinstance(out, tuple) else out
    return call, (lambda r: r), w, {"import_s": import_s, "init_s": init_s,
                                    "version": ms.__version__}


def setup_onnxruntime(case: str, workload: str) -> Setup:
    """onnxruntime on msc's ONNX export of the network (exported and loaded in the first
    call), its session limited to the benchmark's threads."""
    import onnxruntime as ort

    import msc as ms
    from harness import bench_threads

    net, _, w = graph_cell(ms, workload)
    xs = inputs(workload)
    path = os.path.join(os.getcwd(), "model")
    state: dict[str, Any] = {}

    def call() -> Any:
        if "session" not in state:
            ms.export(net, *(ms.Tensor(x) for x in xs), file_name=path, file_format="ONNX")
            options = ort.SessionOptions()
            options.intra_op_num_threads = bench_threads()
            options.inter_op_num_threads = 1
            state["session"] = ort.InferenceSession(path + ".onnx", options,
                                                    providers=["CPUExecutionProvider"])
            state["feed"] = {i.name: x for i, x in zip(state["session"].get_inputs(), xs)}
        return state["session"].run(None, state["feed"])[0]
    return call, (lambda r: r), w, {"version": ort.__version__, "system": "onnxruntime"}


def setup_mindspore(case: str, workload: str) -> Setup:
    t0 = time.perf_counter()
    import mindspore as ms
    import_s = time.perf_counter() - t0
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    from harness import bench_threads

    ms.device_context.cpu.op_tuning.threads_num(bench_threads())
    _, call, w = graph_cell(ms, workload)
    return call, (lambda r: r.asnumpy()), w, {"import_s": import_s, "version": ms.__version__}


def setup_jax(case: str, workload: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    import_s = time.perf_counter() - t0
    jax.config.update("jax_enable_compilation_cache", False)  # a cold first call
    w = {k: weight(k, s) for k, s in param_shapes(workload).items()}
    info = {"import_s": import_s, "version": jax.__version__}
    if workload in TRANSFORMERS and workload in TRAIN:
        run = bert.jax_train_step(workload, jax, jnp, w, (*inputs(workload), labels(workload)))
        return run, np.asarray, w, info
    if workload in TRAIN:
        run = jax_train_step(net_of(workload), jax, jnp, w, data(workload), labels(workload))
        return run, np.asarray, w, info
    if workload in TRANSFORMERS:
        fn = jax.jit(bert.jax_bert_forward(int(workload[-1]), jax, jnp))
    elif workload == "vit":
        fn = jax.jit(vit.jax_vit_forward(jax, jnp))
    else:
        fn = jax.jit(jax_forward(net_of(workload), jax, jnp))
    layout = to_jax_layout(w, JAX_NHWC and workload in RESNETS)
    params = {k: jax.device_put(v) for k, v in layout.items()}
    xs = [jax.device_put(x) for x in inputs(workload)]
    return (lambda: jax.block_until_ready(fn(params, *xs))), np.asarray, w, info


# --- the workers: one case, one fresh process -------------------------------------------------


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    name, workload = case.rsplit(":", 1)
    if name in CLI_CASES:
        return compile_worker(workload)
    setup = {"msc": setup_msc, "jax": setup_jax, "mindspore": setup_mindspore,
             "msc-native": setup_native, "onnxruntime": setup_onnxruntime}
    call, to_np, w, info = setup.get(name, setup[CASES[name][0]])(name, workload)
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
    specs = [a for spec in input_specs(workload) for a in ("--input", spec)]
    cmd = [sys.executable, "-m", "msc", "compile", os.path.join(MODELS, file), entry, *specs,
           "-o", out, "--no-cache", "--quiet"]
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
    result = load_artifact(out).forward(*inputs(workload))
    first_run = time.perf_counter() - t0
    logits = np.asarray(result[0] if isinstance(result, (tuple, list)) else result)
    want = (*shape, bert.BERT["hidden"]) if workload in TRANSFORMERS else (shape[0], CLASSES)
    if logits.shape != want or not np.isfinite(logits).all():
        raise AssertionError(f"msc compile: the artifact returned {logits.shape}, "
                             f"finite: {np.isfinite(logits).all()}")
    return {"first_s": wall, "kernel_files": len(kernels), "artifact_first_s": first_run,
            "stderr": p.stderr.strip()[-300:], "version": msc.__version__}


# --- the driver ----------------------------------------------------------------------------

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

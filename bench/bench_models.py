"""Convolutional models against JAX and MindSpore: LeNet-5 and a ResNet basic block.

Run ``python bench/bench_models.py`` (``--quick``: 2 rounds of shorter batches;
``--workloads``, ``--systems`` pick a subset, ``--json`` keeps the raw rounds). Two
inference workloads, each case in a fresh process per round:

- ``lenet``: ``tests/e2e/models/lenet.py``'s ``LeNet5`` on float32[32, 1, 32, 32];
- ``resblock``: ``tests/e2e/models/resnet_block.py``'s ``BasicBlock(64, 64, stride=1)``
  (ResNet-18's first stage: two 3x3 convolutions, batch norm with moving statistics,
  the identity shortcut) on float32[8, 64, 56, 56].

msc runs the model files as they are (GRAPH_MODE, numba and python targets); MindSpore
2.10 runs the very same files with ``msc`` replaced by ``mindspore`` in their imports
(GRAPH_MODE); JAX runs the same networks written with ``jax.lax.conv_general_dilated``
under ``jax.jit``. Every system gets the same weights (drawn per parameter name) and
inputs. Each worker reports its first call (compile + one run, after the imports) and
the per-call latency after warm-up (median of batches), and fails loudly unless its
result equals a float64 numpy reference within 1e-4 (relative to max(1, |reference|)).
One thread everywhere, peers in their own interpreters (a missing one prints "not
installed"), compile caches off (msc's, JAX's), as in ``bench_codegen.py``.

This file imports only the standard library at top level (besides the other benchmarks,
which do too): the peer interpreters run it as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
import zlib
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (ROOT, add_round_args, first_call_cell, fmt_s, machine, numba_tier_after,
                     round_defaults, row_problem, run_in_worker, save_json, time_per_call)
from bench_compile_cache import init_note, start_msc
from bench_control import med, ok

MODELS = os.path.join(ROOT, "tests", "e2e", "models")
WORKLOADS = {  # workload -> (model file, entry, constructor args, input shape, title)
    "lenet": ("lenet.py", "LeNet5", (), (32, 1, 32, 32),
              "LeNet-5 forward, float32[32, 1, 32, 32]"),
    "resblock": ("resnet_block.py", "BasicBlock", (64, 64, 1), (8, 64, 56, 56),
                 "ResNet basic block (64 channels, stride 1, batch norm in inference), "
                 "float32[8, 64, 56, 56]"),
}
CASES = {  # case -> (system, label)
    "msc-numba": ("msc", "msc GRAPH_MODE, numba target"),
    "msc-python": ("msc", "msc GRAPH_MODE, python (numpy) target"),
    "jax": ("jax", "JAX `jax.jit` (`lax.conv_general_dilated`)"),
    "mindspore": ("mindspore", "MindSpore 2.10 GRAPH_MODE"),
}
SYSTEMS = ("msc", "jax", "mindspore")
TOL = 1e-4


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


def conv_ref(x: Any, w: Any, stride: int = 1, pad: int = 0) -> Any:
    """Cross-correlation of NCHW ``x`` with OIHW ``w`` in float64 (windows + tensordot)."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(x, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.tensordot(win, w.astype(np.float64), ((1, 4, 5), (1, 2, 3))).transpose(0, 3, 1, 2)


def reference(workload: str, w: dict[str, Any]) -> Any:
    import numpy as np

    x = data(workload)
    if workload == "lenet":
        def pool(t: Any) -> Any:
            n, c, h, wd = t.shape
            return t.reshape(n, c, h // 2, 2, wd // 2, 2).max((3, 5))

        h = pool(np.maximum(conv_ref(x, w["conv1.weight"]), 0))
        h = pool(np.maximum(conv_ref(h, w["conv2.weight"]), 0)).reshape(x.shape[0], -1)
        for i, name in enumerate(("fc1", "fc2", "fc3")):
            h = h @ w[f"{name}.weight"].T.astype(np.float64) + w[f"{name}.bias"]
            h = np.maximum(h, 0) if i < 2 else h
        return h

    def bn(t: Any, name: str) -> Any:
        c = lambda v: w[f"{name}.{v}"].astype(np.float64)[None, :, None, None]  # noqa: E731
        return (t - c("moving_mean")) / np.sqrt(c("moving_variance") + 1e-5) * c("gamma") \
            + c("beta")

    out = np.maximum(bn(conv_ref(x, w["conv1.weight"], 1, 1), "bn1"), 0)
    out = bn(conv_ref(out, w["conv2.weight"], 1, 1), "bn2")
    return np.maximum(out + x, 0)


def check(case: str, workload: str, out: Any, w: dict[str, Any]) -> float:
    import numpy as np

    want = reference(workload, w)
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
    module = types.ModuleType(f"bench_{workload}")
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
    net.set_train(False)
    return net, weights


def setup_msc(case: str, workload: str) -> Setup:
    import_s, init_s = start_msc()
    import msc as ms
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=False,
                   jit_target="numba" if case == "msc-numba" else "python")
    net, w = cell_with_weights(workload, "msc", ms.Tensor)
    x = ms.Tensor(data(workload))
    return (lambda: net(x)), (lambda r: r.asnumpy()), w, {
        "import_s": import_s, "init_s": init_s, "version": ms.__version__}


def setup_mindspore(case: str, workload: str) -> Setup:
    t0 = time.perf_counter()
    import mindspore as ms
    import_s = time.perf_counter() - t0
    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.device_context.cpu.op_tuning.threads_num(1)
    net, w = cell_with_weights(workload, "mindspore", ms.Tensor)
    x = ms.Tensor(data(workload))
    return (lambda: net(x)), (lambda r: r.asnumpy()), w, {
        "import_s": import_s, "version": ms.__version__}


def jax_forward(workload: str, jax: Any, jnp: Any) -> Callable[[dict[str, Any], Any], Any]:
    """The workload's network written for JAX."""
    lax = jax.lax

    def conv(x: Any, w: Any, pad: int = 0) -> Any:
        return lax.conv_general_dilated(x, w, (1, 1), [(pad, pad)] * 2,
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

    return lenet if workload == "lenet" else block


def jax_param_shapes(workload: str) -> dict[str, tuple[int, ...]]:
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


def setup_jax(case: str, workload: str) -> Setup:
    import numpy as np

    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    import_s = time.perf_counter() - t0
    jax.config.update("jax_enable_compilation_cache", False)  # a cold first call
    w = {k: weight(k, s) for k, s in jax_param_shapes(workload).items()}
    fn = jax.jit(jax_forward(workload, jax, jnp))
    params = {k: jax.device_put(v) for k, v in w.items()}
    x = jax.device_put(data(workload))
    return (lambda: jax.block_until_ready(fn(params, x))), np.asarray, w, {
        "import_s": import_s, "version": jax.__version__}


# --- the worker: one case, one fresh process --------------------------------------------------


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    name, workload = case.rsplit(":", 1)
    setup = {"msc": setup_msc, "jax": setup_jax, "mindspore": setup_mindspore}
    call, to_np, w, info = setup[CASES[name][0]](name, workload)
    t0 = time.perf_counter()
    out = call()
    first_s = time.perf_counter() - t0
    err = check(name, workload, to_np(out), w)
    tier = numba_tier_after(t0) if name == "msc-numba" else {}
    per_call_s, n = time_per_call(call, batches, batch_s)
    check(name, workload, to_np(call()), w)
    return {"first_s": first_s, "per_call_s": per_call_s, "calls_per_batch": n,
            "max_rel_err": err, **tier, **info}


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
        out += [f"### {WORKLOADS[workload][4]}", "", *table(rs), ""]
    inits = [r["init_s"] for rs in results.values() for case, rows in rs.items()
             if CASES[case][0] == "msc" and ok(rows) for r in rows]  # type: ignore[union-attr]
    return "\n".join(out + init_note(inits, "first-call"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_round_args(ap)
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--worker", help=argparse.SUPPRESS)  # case:workload
    args = round_defaults(ap.parse_args(argv))
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return 0
    start = datetime.now(timezone.utc)
    results: dict[str, Results] = {w: {} for w in args.workloads}
    for rnd in range(args.rounds):
        for workload in args.workloads:
            for case, (system, _) in CASES.items():  # interleaved: load spikes hit every case
                res = results[workload]
                if system not in args.systems or (case in res and res[case] is None):
                    continue
                print(f"round {rnd + 1}/{args.rounds}: {workload} {case}", file=sys.stderr)
                r = run_in_worker(__file__, system, f"{case}:{workload}", args)
                if r is None:
                    res[case] = None
                else:
                    res.setdefault(case, []).append(r)  # type: ignore[union-attr]
    print(report(results, args, start))
    save_json(args.json, results)
    return 1 if any("error" in r for rs in results.values() for rows in rs.values()
                    for r in rows or []) else 0


if __name__ == "__main__":
    sys.exit(main())

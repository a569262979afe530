"""Training steps: forward + backward + Momentum update, against JAX and MindSpore.

Run ``python bench/bench_train.py`` (``--quick``: 2 rounds of shorter batches;
``--systems``/``--workloads`` pick a subset, ``--json`` keeps the raw rounds). Each case
runs in a fresh process per round and reports its first step (compile + run) and the
median time per step after warm-up; the table shows medians over rounds.

- ``mlp``: a 256x512 float32 batch through Dense(512, 512, relu) and Dense(512, 10),
  softmax cross-entropy against one-hot labels.
- ``gpt``: two pre-norm attention blocks (d=64, 32 positions, causal softmax attention,
  layer norm, tanh-GELU MLP of width 256), loss ``mean(out ** 2)``.

msc and MindSpore 2.10 run the same model source: ``nn.TrainOneStepCell`` over
``nn.WithLossCell`` with ``nn.Momentum(lr=0.01, momentum=0.9)``, GRAPH_MODE (msc's numba
target, compile cache off). JAX runs the same math in jax.numpy: ``jax.jit`` of
``jax.value_and_grad`` followed by the same momentum update, written by hand. Every
worker starts from the same seeded weights and fails loudly unless its first loss equals
a float64 numpy forward pass and the loss has fallen after the timed steps. One thread
everywhere; peers in their own interpreters (``.peers/``; a missing one prints "not
installed").

This file imports only the standard library and numpy at top level: the peer
interpreters run it as workers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import datetime, timezone
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (add_round_args, first_call_cell, fmt_s, machine, numba_tier_after,
                     round_defaults, run_in_worker, save_json, time_per_call)

CASES = {"mlp": {"msc-mlp": "msc", "ms-mlp": "mindspore", "jax-mlp": "jax"},
         "gpt": {"msc-gpt": "msc", "ms-gpt": "mindspore", "jax-gpt": "jax"}}
SYSTEM_OF = {c: s for cases in CASES.values() for c, s in cases.items()}
WORKLOAD_OF = {c: w for w, cases in CASES.items() for c in cases}
SYSTEMS = ("msc", "jax", "mindspore")
LR, MOMENTUM = 0.01, 0.9
BATCH, IN, HID, OUT = 256, 512, 512, 10
T, D, FF, BLOCKS = 32, 64, 256, 2
BLOCK = ("g1", "be1", "wq", "wk", "wv", "wo", "g2", "be2", "wf1", "bf1", "wf2", "bf2")


# --- data and the numpy reference --------------------------------------------------------


def mlp_data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"w1": (rng.standard_normal((HID, IN)) * 0.04).astype(np.float32),
            "b1": np.zeros(HID, np.float32),
            "w2": (rng.standard_normal((OUT, HID)) * 0.04).astype(np.float32),
            "b2": np.zeros(OUT, np.float32),
            "x": rng.standard_normal((BATCH, IN)).astype(np.float32),
            "labels": np.eye(OUT, dtype=np.float32)[rng.integers(0, OUT, BATCH)]}


def mlp_loss_numpy(a: dict[str, np.ndarray]) -> float:
    h = np.maximum(a["x"] @ a["w1"].T.astype(np.float64) + a["b1"], 0)
    z = h @ a["w2"].T.astype(np.float64) + a["b2"]
    z = z - z.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return float(-(a["labels"] * logp).sum(-1).mean())


def gpt_data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [(D,), (D,), (D, D), (D, D), (D, D), (D, D), (D,), (D,), (FF, D), (FF,),
              (D, FF), (D,)]
    a = {}
    for i in range(BLOCKS):
        for name, shape in zip(BLOCK, shapes):
            if name.startswith("g"):
                a[f"{name}{i}"] = np.ones(shape, np.float32)
            elif name.startswith("b"):
                a[f"{name}{i}"] = np.zeros(shape, np.float32)
            else:
                a[f"{name}{i}"] = (rng.standard_normal(shape) / np.sqrt(shape[1])).astype(
                    np.float32)
    a["x"] = rng.standard_normal((T, D)).astype(np.float32)
    a["mask"] = np.tril(np.ones((T, T), bool))
    return a


class NumpyOps:
    T = staticmethod(lambda w: w.T)
    softmax = staticmethod(lambda x: np.exp(x - x.max(-1, keepdims=True))
                           / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))
    where = staticmethod(np.where)
    gelu = staticmethod(lambda x: 0.5 * x * (1 + np.tanh(0.7978845608028654
                                                         * (x + 0.044715 * x ** 3))))
    mean = staticmethod(lambda x: x.mean(-1, keepdims=True))
    rsqrt = staticmethod(lambda x: 1 / np.sqrt(x))


def block(o: Any, p: list[Any], x: Any, mask: Any) -> Any:
    """One pre-norm block with the ops of ``o`` (numpy, msc/MindSpore or jax.numpy)."""
    def ln(v: Any, g: Any, b: Any) -> Any:
        c = v - o.mean(v)
        return c * o.rsqrt(o.mean(c * c) + 1e-5) * g + b
    h = ln(x, p[0], p[1])
    q, k, v = (h @ o.T(w) for w in p[2:5])
    att = o.softmax(o.where(mask, q @ o.T(k) * float(1 / np.sqrt(D)), -1e9))
    x = x + (att @ v) @ o.T(p[5])
    f = o.gelu(ln(x, p[6], p[7]) @ o.T(p[8]) + p[9])
    return x + f @ o.T(p[10]) + p[11]


def gpt_params(a: dict[str, Any], i: int) -> list[Any]:
    return [a[f"{n}{i}"] for n in BLOCK]


def gpt_loss_numpy(a: dict[str, np.ndarray]) -> float:
    f = {k: v.astype(np.float64) if v.dtype == np.float32 else v for k, v in a.items()}
    x = f["x"]
    for i in range(BLOCKS):
        x = block(NumpyOps, gpt_params(f, i), x, f["mask"])
    return float((x * x).mean())


DATA = {"mlp": (mlp_data, mlp_loss_numpy), "gpt": (gpt_data, gpt_loss_numpy)}


# --- workers --------------------------------------------------------------------------------

ops_: Any = None  # msc.ops or mindspore.ops, bound by the worker before compiling


class GraphOps:
    """The block's ops for msc and MindSpore (methods, not lambdas: MindSpore's parser
    reads lambdas only on lines of their own)."""

    @staticmethod
    def T(w: Any) -> Any:  # noqa: N802 - as the other op sets spell it
        return ops_.transpose(w, (1, 0))

    @staticmethod
    def softmax(x: Any) -> Any:
        return ops_.softmax(x, -1)

    @staticmethod
    def where(c: Any, x: Any, y: Any) -> Any:
        return ops_.select(c, x, y)

    @staticmethod
    def gelu(x: Any) -> Any:
        return ops_.gelu(x, approximate="tanh")

    @staticmethod
    def mean(x: Any) -> Any:
        return x.mean(-1, keep_dims=True)

    @staticmethod
    def rsqrt(x: Any) -> Any:
        return ops_.rsqrt(x)



def graph_step(ms: Any, workload: str, a: dict[str, np.ndarray]) -> tuple[Any, list[Any]]:
    """msc's or MindSpore's TrainOneStepCell for ``workload`` and its inputs."""
    nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter

    global ops_
    ops_ = ops
    if workload == "mlp":
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(IN, HID, Tensor(a["w1"]), Tensor(a["b1"]),
                                    activation="relu")
                self.fc2 = nn.Dense(HID, OUT, Tensor(a["w2"]), Tensor(a["b2"]))

            def construct(self, x, labels):
                logp = ops.log_softmax(self.fc2(self.fc1(x)), -1)
                return -(labels * logp).sum(-1).mean()
        inputs = [Tensor(a["x"]), Tensor(a["labels"])]
    else:
        class Net(nn.Cell):  # type: ignore[no-redef]
            def __init__(self):
                super().__init__()
                self.p = ms.ParameterTuple(Parameter(Tensor(a[k]), name=k)
                                           for i in range(BLOCKS) for k in
                                           (f"{n}{i}" for n in BLOCK))

            def construct(self, x, mask):
                for i in range(BLOCKS):
                    x = block(GraphOps, list(self.p[12 * i:12 * i + 12]), x, mask)
                return (x * x).mean()
        inputs = [Tensor(a["x"]), Tensor(a["mask"])]
    net = Net()
    opt = nn.Momentum(net.trainable_params(), LR, MOMENTUM)
    return nn.TrainOneStepCell(net, opt), inputs


def jax_step(workload: str, a: dict[str, np.ndarray]) -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    class JaxOps:
        T = staticmethod(lambda w: w.T)
        softmax = staticmethod(lambda x: jax.nn.softmax(x, -1))
        where = staticmethod(jnp.where)
        gelu = staticmethod(lambda x: jax.nn.gelu(x, approximate=True))
        mean = staticmethod(lambda x: x.mean(-1, keepdims=True))
        rsqrt = staticmethod(jax.lax.rsqrt)

    if workload == "mlp":
        names = ["w1", "b1", "w2", "b2"]

        def loss(p: dict[str, Any], x: Any, labels: Any) -> Any:
            h = jax.nn.relu(x @ p["w1"].T + p["b1"])
            return -(labels * jax.nn.log_softmax(h @ p["w2"].T + p["b2"], -1)).sum(-1).mean()
        inputs = (jnp.asarray(a["x"]), jnp.asarray(a["labels"]))
    else:
        names = [f"{n}{i}" for i in range(BLOCKS) for n in BLOCK]

        def loss(p: dict[str, Any], x: Any, mask: Any) -> Any:  # type: ignore[misc]
            for i in range(BLOCKS):
                x = block(JaxOps, gpt_params(p, i), x, mask)
            return (x * x).mean()
        inputs = (jnp.asarray(a["x"]), jnp.asarray(a["mask"]))

    @jax.jit
    def step(p: Any, v: Any, *xs: Any) -> Any:
        value, g = jax.value_and_grad(loss)(p, *xs)
        v = jax.tree_util.tree_map(lambda m, d: MOMENTUM * m + d, v, g)
        p = jax.tree_util.tree_map(lambda w, m: w - LR * m, p, v)
        return value, p, v

    state = [{k: jnp.asarray(a[k]) for k in names}]
    state.append(jax.tree_util.tree_map(jnp.zeros_like, state[0]))

    def run() -> float:
        value, state[0], state[1] = step(state[0], state[1], *inputs)
        return float(value)
    return run, None


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    system, workload = SYSTEM_OF[case], WORKLOAD_OF[case]
    make, reference = DATA[workload]
    a = make()
    want = reference(a)
    start = time.perf_counter()
    if system == "jax":
        run, _ = jax_step(workload, a)
    else:
        if system == "msc":
            import msc as ms
            ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba", enable_compile_cache=False)
        else:
            import mindspore as ms  # type: ignore[no-redef]
            ms.set_context(mode=ms.GRAPH_MODE)
        step, inputs = graph_step(ms, workload, a)

        def run() -> float:
            return float(step(*inputs).asnumpy())
    first_loss = run()
    first = time.perf_counter() - start
    if not np.isclose(first_loss, want, rtol=1e-4, atol=1e-5):
        raise AssertionError(f"{case}: first loss {first_loss} != numpy's {want}")
    tier = numba_tier_after(start) if system == "msc" else {}
    per_step, calls = time_per_call(run, batches, batch_s)
    last = run()
    if not last < first_loss:
        raise AssertionError(f"{case}: the loss did not fall ({first_loss} -> {last})")
    return {"first_s": first, "step": per_step, "calls": calls, "loss0": first_loss,
            "loss": last, **tier}


# --- report ---------------------------------------------------------------------------------


def report(results: dict[str, dict[str, Any]], args: argparse.Namespace,
           start: datetime) -> str:
    lines = [f"Training steps (forward + backward + Momentum), {machine(start)}; "
             f"medians of {args.rounds} fresh processes", "",
             "| workload | system | first step (compile + run) | per step | vs JAX per step |",
             "| --- | --- | ---: | ---: | ---: |"]
    for workload, cases in results.items():
        jax_rows = cases.get(f"jax-{workload}")
        jax_step_s = statistics.median(r["step"] for r in jax_rows) if jax_rows else None
        for case, rows in cases.items():
            label = {"msc": "msc (numba)", "jax": "JAX jit", "mindspore": "MindSpore 2.10"}[
                SYSTEM_OF[case]]
            if rows is None:
                lines.append(f"| {workload} | {label} | not installed | | |")
                continue
            good = [r for r in rows if "error" not in r]
            if not good:
                lines.append(f"| {workload} | {label} | failed: {rows[0]['error']} | | |")
                continue
            step = statistics.median(r["step"] for r in good)
            ratio = f"{step / jax_step_s:.2f}x" if jax_step_s else "—"
            lines.append(f"| {workload} | {label} | {first_call_cell(good)} | {fmt_s(step)} | "
                         f"{ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_round_args(ap)
    ap.add_argument("--workloads", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--worker", choices=list(SYSTEM_OF), help=argparse.SUPPRESS)
    args = round_defaults(ap.parse_args(argv))
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return 0
    start = datetime.now(timezone.utc)
    results: dict[str, dict[str, Any]] = {w: {} for w in args.workloads}
    for rnd in range(args.rounds):
        for workload in args.workloads:
            for case in CASES[workload]:
                if SYSTEM_OF[case] not in args.systems or (
                        case in results[workload] and results[workload][case] is None):
                    continue
                print(f"round {rnd + 1}/{args.rounds}: {case}", file=sys.stderr)
                r = run_in_worker(__file__, SYSTEM_OF[case], case, args)
                if r is None:
                    results[workload][case] = None
                else:
                    results[workload].setdefault(case, []).append(r)
    print(report(results, args, start))
    save_json(args.json, results)
    return 1 if any("error" in r for rs in results.values() for rows in rs.values()
                    for r in rows or []) else 0


if __name__ == "__main__":
    sys.exit(main())

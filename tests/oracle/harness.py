"""Runs oracle configurations in a framework (msc or MindSpore): renders a batch of
configurations as the source of one Cell in the framework's names, runs it in GRAPH_MODE,
then the gradient of a weighted sum of its float results, and falls back to one Cell per
configuration when a batch raises, so one failure names its configuration. Imports only
the framework it is told to (MindSpore runs it in its own interpreter, see record.py)."""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from typing import Any

import numpy as np

from tests.oracle.spec import FLOATS, Case, case_inputs, case_seed, weight_for

_counter = itertools.count()

HEADER = """import numpy as np
import {fw} as ms
from {fw} import nn, ops, Tensor
from {fw}.ops import operations as P
"""


def _names(i: int, case: Case) -> list[str]:
    return [f"a{i}_{j}" for j in range(len(case.inputs))]


def _expr(i: int, case: Case) -> tuple[list[str], str]:
    """The statements (lines of ``call`` before its last) and the result's expression;
    ``{t}`` in them is a prefix private to the configuration."""
    names = dict(zip([f"x{j}" for j in range(len(case.inputs))], _names(i, case)))
    lines = case.call.format(c=f"self.c{i}", t=f"t{i}_", **names).split("\n")
    return lines[:-1], lines[-1]


def render_forward(cases: list[Case], fw: str) -> str:
    lines = [HEADER.format(fw=fw), "", "class Fwd(nn.Cell):", "    def __init__(self):",
             "        super().__init__()"]
    for i, case in enumerate(cases):
        if case.setup:
            lines.append(f"        self.c{i} = {case.setup}")
    params = [n for i, c in enumerate(cases) for n in _names(i, c)]
    lines.append(f"    def construct(self, {', '.join(params)}):")
    results = []
    for i, case in enumerate(cases):
        stmts, result = _expr(i, case)
        lines += [f"        {line}" for line in stmts]
        results.append(result)
    lines.append(f"        return ({', '.join(results)},)")
    return "\n".join(lines) + "\n"


def render_loss(terms: list[tuple[str, str]], n_in: int) -> str:
    """terms: (access path into the forward's result, weight name)."""
    xs = [f"x{j}" for j in range(n_in)]
    ws = [w for _, w in terms]
    body = " + ".join(f"(r{path} * {w}).sum()" for path, w in terms)
    return (f"\n\nclass Loss(nn.Cell):\n    def __init__(self, f):\n"
            f"        super().__init__()\n        self.f = f\n"
            f"    def construct(self, {', '.join(xs + ws)}):\n"
            f"        r = self.f({', '.join(xs)})\n        return {body}\n")


def _load(source: str, workdir: str) -> Any:
    name = f"oracle_batch_{os.getpid()}_{next(_counter)}"
    path = os.path.join(workdir, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def flatten(obj: Any, path: str = "") -> tuple[str, list[tuple[str, np.ndarray]]]:
    """The structure of a result ("T", "S", "(T,S)") and its leaves with their paths."""
    if isinstance(obj, (tuple, list)):
        parts, leaves = [], []
        for k, item in enumerate(obj):
            s, sub = flatten(item, f"{path}[{k}]")
            parts.append(s)
            leaves += sub
        return "(" + ",".join(parts) + ")", leaves
    if hasattr(obj, "asnumpy"):
        return "T", [(path, np.asarray(obj.asnumpy()))]
    return "S", [(path, np.asarray(obj))]


def _error(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines()]
    text = [ln for ln in lines if ln and set(ln) != {"-"} and not ln.startswith("- ")]
    return f"{type(exc).__name__}: {text[0][:200] if text else ''}"


class Runner:
    """Runs batches in one framework: ``fw`` is "msc" or "mindspore"."""

    def __init__(self, fw: str, workdir: str, target: str | None = None) -> None:
        self.fw, self.workdir = fw, workdir
        self.ms = __import__(fw)
        if fw == "msc":
            self.ms.set_context(mode=self.ms.GRAPH_MODE, jit_target=target or "python")
        else:
            self.ms.set_context(mode=self.ms.GRAPH_MODE, device_target="CPU")

    def tensors(self, arrays: list[np.ndarray]) -> list[Any]:
        return [self.ms.Tensor(a) for a in arrays]

    def forward(self, cases: list[Case]) -> tuple[Any, Any, list[np.ndarray]]:
        module = _load(render_forward(cases, self.fw), self.workdir)
        net = module.Fwd()
        arrays = [a for c in cases for a in case_inputs(c)]
        return module, net, arrays

    def run(self, cases: list[Case]) -> dict[str, dict[str, Any]]:
        """Each configuration's result: struct, outputs, grads (None where not compared)
        and the errors (``error`` of the forward run, ``grad_error`` of the gradient). A
        batch that raises is split in halves until the configurations that raise are
        alone."""
        if len(cases) == 1:
            return self._run_single(cases[0])
        try:
            return self._run_batch(cases)
        except Exception:  # noqa: BLE001 - rerun in halves to find the ones that raise
            half = len(cases) // 2
            return {**self.run(cases[:half]), **self.run(cases[half:])}

    def _run_single(self, case: Case) -> dict[str, dict[str, Any]]:
        try:
            return self._run_batch([case])
        except Exception as exc:  # noqa: BLE001 - recorded as the configuration's result
            return {case.id: {"error": _error(exc)}}

    def _run_batch(self, cases: list[Case]) -> dict[str, dict[str, Any]]:
        module, net, arrays = self.forward(cases)
        outs = net(*self.tensors(arrays))
        results: dict[str, dict[str, Any]] = {}
        terms, weights, graded = [], [], []
        for i, case in enumerate(cases):
            struct, leaves = flatten(outs[i])
            results[case.id] = {"struct": struct, "out": [v for _, v in leaves]}
            if not case.grad or not any(s.dtype in FLOATS for s in case.inputs):
                continue
            for k, (path, value) in enumerate(leaves):
                if value.dtype.name in FLOATS:
                    name = f"w{len(weights)}"
                    terms.append((f"[{i}]{path}", name))
                    weights.append(weight_for(value.shape, value.dtype.name, case_seed(case) + k))
            graded.append(i)
        if not terms:
            return results
        if len(cases) > 1:
            grads = self._grads(cases, module, net, arrays, terms, weights)
        else:
            try:
                grads = self._grads(cases, module, net, arrays, terms, weights)
            except Exception as exc:  # noqa: BLE001 - recorded as the configuration's result
                results[cases[0].id]["grad_error"] = _error(exc)
                return results
        start = 0
        for i, case in enumerate(cases):
            n = len(case.inputs)
            if i in graded:
                results[case.id]["grad"] = [
                    np.asarray(g.asnumpy()) if s.dtype in FLOATS else None
                    for g, s in zip(grads[start:start + n], case.inputs)]
            start += n
        return results

    def _grads(self, cases: list[Case], module: Any, net: Any, arrays: list[np.ndarray],
               terms: list[tuple[str, str]], weights: list[np.ndarray]) -> Any:
        loss_src = render_forward(cases, self.fw) + render_loss(terms, len(arrays))
        loss_mod = _load(loss_src, self.workdir)
        loss = loss_mod.Loss(loss_mod.Fwd())
        grad = self.ms.ops.GradOperation(get_all=True)(loss)
        return grad(*self.tensors(arrays), *self.tensors(weights))

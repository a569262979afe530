"""Compares what msc gave for a configuration with what MindSpore 2.10 gave (recorded in
``expected/``), part by part: ``error`` (one raised, the other did not), ``struct``,
``dtype``, ``shape``, ``value``, ``grad``. The policy decides which parts may differ."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tests.oracle.spec import Case

EXPECTED = Path(__file__).resolve().parent / "expected"


@lru_cache(maxsize=None)
def index() -> dict[str, dict[str, Any]]:
    path = EXPECTED / "index.json"
    return json.loads(path.read_text()) if path.exists() else {}


@lru_cache(maxsize=None)
def arrays(family: str) -> dict[str, np.ndarray]:
    with np.load(EXPECTED / f"{family}.npz") as data:
        return {k: data[k] for k in data.files}


def expected(case: Case) -> dict[str, Any] | None:
    """MindSpore's result in the harness's form, or None if it was not recorded."""
    meta = index().get(case.family, {}).get(case.id)
    if meta is None:
        return None
    if "error" in meta:
        return {"error": meta["error"]}
    data = arrays(case.family)
    res: dict[str, Any] = {"struct": meta["struct"],
                           "out": [data[f"{case.id}|out{k}"] for k in range(len(meta["dtypes"]))]}
    if "grad_error" in meta:
        res["grad_error"] = meta["grad_error"]
    if "grad" in meta:
        res["grad"] = [data[f"{case.id}|grad{j}"] if has else None
                       for j, has in enumerate(meta["grad"])]
    return res


def _close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> bool:
    if got.shape != want.shape:
        return False
    if got.dtype == np.bool_ or want.dtype == np.bool_ or got.dtype.kind in "iu":
        return bool(np.array_equal(got, want))
    g, w = got.astype(np.float64), want.astype(np.float64)
    if got.dtype == np.float16 or want.dtype == np.float16:
        rtol, atol = max(rtol, 2e-3), max(atol, 2e-3)
    scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)))
    return bool(np.allclose(g, w, rtol=rtol, atol=atol * scale, equal_nan=True))


def differences(case: Case, got: dict[str, Any], want: dict[str, Any]) -> dict[str, str]:
    """The parts that differ, each with a short description."""
    if "error" in got or "error" in want:
        if ("error" in got) != ("error" in want):
            return {"error": f"msc: {got.get('error', 'runs')}; "
                             f"MindSpore: {want.get('error', 'runs')}"}
        return {}
    diff: dict[str, str] = {}
    if got["struct"] != want["struct"]:
        return {"struct": f"msc {got['struct']}, MindSpore {want['struct']}"}
    for k, (g, w) in enumerate(zip(got["out"], want["out"])):
        if g.dtype != w.dtype:
            diff["dtype"] = f"result {k}: msc {g.dtype}, MindSpore {w.dtype}"
        if g.shape != w.shape:
            diff["shape"] = f"result {k}: msc {g.shape}, MindSpore {w.shape}"
        elif not _close(g, w, case.rtol, case.atol):
            diff.setdefault("value", f"result {k}: {_where(g, w)}")
    if ("grad_error" in got) != ("grad_error" in want):
        diff["grad"] = (f"gradient: msc {got.get('grad_error', 'runs')}; "
                        f"MindSpore {want.get('grad_error', 'runs')}")
    elif "grad" in want and "grad" in got:
        for j, (g, w) in enumerate(zip(got["grad"], want["grad"])):
            if g is None or w is None:
                continue
            if not _close(g, w, case.rtol * 10, case.atol * 10):
                diff.setdefault("grad", f"input {j}: {_where(g, w)}")
    return diff


def _where(got: np.ndarray, want: np.ndarray) -> str:
    if got.shape != want.shape:
        return f"shapes {got.shape} and {want.shape}"
    g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
    bad = ~((g == w) | (np.isnan(g) & np.isnan(w)) | np.isclose(g, w, rtol=1e-4, atol=1e-5))
    first = int(np.argmax(bad)) if bad.any() else 0
    return (f"{int(bad.sum())} of {g.size} differ, first at {first}: "
            f"msc {g[first]!r}, MindSpore {w[first]!r}")

"""What an oracle configuration is: one op call (a Cell built in ``__init__`` and called in
``construct``, or a function), its inputs drawn deterministically from their kind, and
whether its gradient is compared. Nothing here imports msc or MindSpore: the same
configurations run in both (``harness.py`` renders them as source for either)."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

FLOATS = ("float16", "float32", "float64")


@dataclass(frozen=True)
class In:
    """One input: its shape, dtype and kind of values.

    kinds: ``normal`` (uniform in [-3, 3)), ``ties`` (multiples of 0.5 in [-2, 2]: ties
    and zeros), ``pos`` (in [0.1, 2.1)), ``unit`` (in (0.05, 0.95)), ``nan`` (normal with
    NaN, inf and -inf among them), ``big`` (normal times 40), ``int`` (integers in
    [-5, 5]), ``idx:N`` (integers in [0, N)), ``bool``, ``const:V`` (every element V)."""

    shape: tuple[int, ...]
    dtype: str = "float32"
    kind: str = "normal"


@dataclass(frozen=True)
class Case:
    """One configuration. ``setup`` is a Cell or primitive built once (source text in the
    framework's names: ``nn``, ``ops``, ``P``, ``ms``, ``Tensor``, ``np``); ``call`` is
    the expression computed, with ``{c}`` for that object and ``{x0}``, ``{x1}``, ... for
    the inputs. ``grad``: compare the gradient of a weighted sum of the float results
    with respect to the float inputs."""

    id: str
    family: str
    call: str
    inputs: tuple[In, ...]
    setup: str | None = None
    grad: bool = True
    rtol: float = 1e-4
    atol: float = 1e-5
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def _hash01(n: int, seed: int) -> np.ndarray:
    """n numbers in [0, 1) from an integer hash: the same bits under every numpy version
    (unlike a Generator's stream), so expectations recorded under MindSpore's numpy 1.x
    hold under the suite's numpy."""
    i = np.arange(n, dtype=np.uint64) + np.uint64(seed) * np.uint64(7919)
    x = (i * np.uint64(2654435761) + np.uint64(12345)) & np.uint64(0xFFFFFFFF)
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x45D9F3B)) & np.uint64(0xFFFFFFFF)
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x45D9F3B)) & np.uint64(0xFFFFFFFF)
    x ^= x >> np.uint64(16)
    return x.astype(np.float64) / 2.0**32


def make_input(spec: In, seed: int) -> np.ndarray:
    n = int(np.prod(spec.shape, dtype=np.int64))
    u = _hash01(n, seed)
    kind = spec.kind
    if kind == "normal":
        v = u * 6 - 3
    elif kind == "ties":
        v = np.round(u * 8 - 4) / 2
    elif kind == "pos":
        v = u * 2 + 0.1
    elif kind == "unit":
        v = u * 0.9 + 0.05
    elif kind == "big":
        v = (u * 6 - 3) * 40
    elif kind == "nan":
        v = u * 6 - 3
        marks = _hash01(n, seed + 1000)
        v[marks < 0.12] = np.nan
        v[(marks >= 0.12) & (marks < 0.2)] = np.inf
        v[(marks >= 0.2) & (marks < 0.26)] = -np.inf
    elif kind == "int":
        v = np.floor(u * 11) - 5
    elif kind.startswith("idx:"):
        v = np.floor(u * int(kind[4:]))
    elif kind == "bool":
        return (u > 0.5).reshape(spec.shape)
    elif kind.startswith("const:"):
        v = np.full(n, float(kind[6:]))
    else:
        raise ValueError(f"unknown input kind {kind!r}")
    return v.astype(spec.dtype).reshape(spec.shape)


def case_seed(case: Case) -> int:
    return zlib.crc32(case.id.encode()) % 100003


def case_inputs(case: Case) -> list[np.ndarray]:
    seed = case_seed(case)
    return [make_input(s, seed * 16 + j) for j, s in enumerate(case.inputs)]


def weight_for(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    """The weights of the summed result whose gradient is compared: distinct, so a
    gradient sent to the wrong element shows."""
    n = int(np.prod(shape, dtype=np.int64))
    return (0.5 + _hash01(n, 50000 + seed)).astype(dtype).reshape(shape)

"""The models the artifact tests compile, their inputs, and the oracles they are checked
against: msc's eager (PyNative) run with the artifact's own weights, and numpy written
here independently where the model is small enough to restate."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Case:
    name: str
    model: str                      # relative to the repository root
    entry: str | None               # ENTRY on the command line
    inputs: tuple[str, ...]         # --input specs; empty: the input_signature
    kernel: str                     # the generated module's stem
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]]

    def compile_args(self, target: str, out: Path, *extra: str) -> list[str]:
        args = ["compile", self.model] + ([self.entry] if self.entry else [])
        for spec in self.inputs:
            args += ["--input", spec]
        return args + ["--target", target, "-o", str(out), *extra]


def _normal(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.normal(size=shape).astype(np.float32)


CASES = {
    "mlp": Case("mlp", "examples/mlp.py", None, ("f32[32,64]",), "MLP_construct",
                lambda rng: [_normal(32, 64)(rng)]),
    "loop200": Case("loop200", "examples/compile_cache.py", "func", (), "func",
                    lambda rng: [_normal(1)(rng), _normal(1)(rng)]),
    "gpt": Case("gpt", "tests/e2e/cases/gpt_blocks.py", "GPTStack", ("f32[2,8,32]",),
                "GPTStack_construct", lambda rng: [_normal(2, 8, 32)(rng)]),
}


def run_msc(*args: str, cwd: Path = ROOT, timeout: float = 600,
            **popen: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "msc", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout, **popen)


def start_msc(*args: str) -> subprocess.Popen[str]:
    """``msc`` in the background, so slow Numba compiles of several cases overlap."""
    return subprocess.Popen([sys.executable, "-m", "msc", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)


def load_file(path: Path, name: str) -> Any:
    """Import a model file under a private name (the CLI's import must not be disturbed)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def eager_output(case: Case, weights_file: Path, inputs: list[np.ndarray]) -> Any:
    """The model run eagerly by msc, with the weights taken from the artifact."""
    import msc as ms
    from msc.nn.cell import Cell

    module = load_file(ROOT / case.model, f"_eager_{case.name}")
    obj = getattr(module, case.entry or "MLP")
    args = [ms.Tensor(x) for x in inputs]
    if isinstance(obj, type) and issubclass(obj, Cell):
        net = obj()
        with np.load(weights_file, allow_pickle=False) as w:
            for name, param in net.parameters_dict().items():
                param.set_data(w[name])
        return to_numpy(net(*args))
    return to_numpy(obj.fn(*args))


def numpy_output(case: Case, weights_file: Path, inputs: list[np.ndarray]) -> Any:
    """The same results in plain numpy, for the models small enough to restate."""
    if case.name == "loop200":
        x, y = inputs
        out = x
        for _ in range(200):
            out = x + x * y + out
        return out
    assert case.name == "mlp"
    with np.load(weights_file, allow_pickle=False) as w:
        h = np.maximum(inputs[0] @ w["fc1.weight"].T + w["fc1.bias"], 0)
        y = h @ w["fc2.weight"].T + w["fc2.bias"]   # (relu + relu) * (2 - 1) * 0.5 == relu
    e = np.exp(y - y.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True), (32, 10)


def to_numpy(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(to_numpy(v) for v in value)
    return value.asnumpy() if hasattr(value, "asnumpy") else value


def assert_same(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Same structure (tuples stay tuples, constants are Python values of the same type),
    same dtypes and shapes, and close values."""
    if isinstance(expected, tuple):
        assert type(actual) is tuple and len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, rtol, atol)
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), type(actual)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
    else:
        assert type(actual) is type(expected) and actual == expected, (actual, expected)

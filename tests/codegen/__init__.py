"""Helpers for the code-generation tests: compile an entry, render both targets, import the
generated modules, and compare their results with eager execution and the interpreter.

A generated module is written under the test's temporary folder with a unique name and
imported the way an artifact is (registered in ``sys.modules`` first, for numba's cache).
"""

from __future__ import annotations

import hashlib
import pathlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Sequence

import numpy as np

import msc as ms
from msc.codegen.lower import ModuleSpec, lower_module
from msc.codegen.render import import_file, render
from msc.compiler import Compiled, arg_spec, compile_entry
from msc.ir.interpret import interpret
from msc.ir.nodes import Module, iter_nodes

#: numba computes float32 transcendental chains in float64 scalars and sums rows
#: sequentially; the results agree with numpy's float32 to a few ulps.
RTOL, ATOL = 1e-5, 1e-6


@dataclass
class Built:
    """One target's generated module and the arguments ``run`` takes after the inputs
    (the weights' arenas and the constants)."""

    target: str
    spec: ModuleSpec
    source: str
    module: ModuleType
    extra: tuple[np.ndarray, ...] = field(default=())

    def __call__(self, *inputs: np.ndarray) -> Any:
        return self.module.run(*inputs, *self.extra)


def build(module: Module, target: str, folder: pathlib.Path,
          weights: Sequence[np.ndarray] = ()) -> Built:
    """Lower, render, write and import ``module`` for ``target``."""
    spec = lower_module(module, target, "test")
    source = render(spec)
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    name = f"msc_test_{target}_{digest}"
    path = folder / f"{name}.py"
    path.write_text(source)
    code = import_file(str(path), name)
    arenas, _ = code.pack_weights(weights)  # copies: ``weights`` stay as they are
    return Built(target, spec, source, code, tuple(arenas) + tuple(spec.constants))


def to_numpy(value: Any) -> Any:
    """Tensors (eager results) as numpy arrays, keeping tuples."""
    if isinstance(value, (tuple, list)):
        return tuple(to_numpy(v) for v in value)
    if isinstance(value, ms.Tensor):
        return value.asnumpy()
    return value


def assert_same(got: Any, want: Any, what: str, rtol: float = RTOL, atol: float = ATOL) -> None:
    """Same structure, dtypes and shapes; floats allclose, integers and bools exact."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{what}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{what}[{i}]", rtol, atol)
        return
    if want is None:
        assert got is None, f"{what}: expected None, got {got!r}"
        return
    assert isinstance(got, np.ndarray), f"{what}: expected an array, got {type(got)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def numeric_grad(fn: Callable[..., Any], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The central finite difference of the sum of ``fn(Tensor(x))`` along every element
    of ``x`` (float64): the independent reference for gradient tests."""
    out = np.zeros_like(x)
    for k in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi.flat[k] += eps
        lo.flat[k] -= eps
        out.flat[k] = (fn(ms.Tensor(hi)).asnumpy().sum() -
                       fn(ms.Tensor(lo)).asnumpy().sum()) / (2 * eps)
    return out


def ops_in(module: Module) -> set[str]:
    return {n.op.name for n in iter_nodes(module)}


def compile_fn(fn: Any, inputs: Sequence[np.ndarray], target: str = "python") -> Compiled:
    """Frontend and passes (``compile_entry`` also renders ``target``, cheap for python)."""
    return compile_entry(fn, [arg_spec(x) for x in inputs], target=target)


def run_python_graph(fn: Callable[..., Any] | Any, inputs: Sequence[np.ndarray],
                     folder: pathlib.Path) -> Any:
    """``fn`` compiled for the python target and run on copies of ``inputs``."""
    compiled = compile_fn(fn, inputs)
    weights = [p.asnumpy() for p in compiled.weights]
    return to_numpy(build(compiled.module, "python", folder, weights)(
        *[np.array(x, copy=True) for x in inputs]))


def check_all(fn: Callable[..., Any] | Any, inputs: Sequence[np.ndarray],
              folder: pathlib.Path, *, expect: Any = None, rtol: float = RTOL,
              atol: float = ATOL) -> tuple[Compiled, dict[str, Built]]:
    """numba == python == eager == interpreter for ``fn`` (a function or a Cell) on
    ``inputs``; ``expect``, when given, is an independent numpy result checked too."""
    compiled = compile_fn(fn, inputs)
    weights = [p.asnumpy() for p in compiled.weights]
    eager = to_numpy(fn(*[ms.Tensor(x) for x in inputs]))
    if expect is not None:
        assert_same(eager, expect, "eager vs numpy", rtol, atol)
    built = check_module(compiled.module, inputs, folder, eager, weights, rtol=rtol, atol=atol)
    return compiled, built


def check_module(module: Module, inputs: Sequence[np.ndarray], folder: pathlib.Path,
                 want: Any, weights: Sequence[np.ndarray] = (), *, rtol: float = RTOL,
                 atol: float = ATOL, targets: Sequence[str] = ("numba", "python"),
                 ) -> dict[str, Built]:
    """The interpreter and ``targets`` (the host ones: cuda is tests/cuda's) give ``want``;
    a kernel never writes to its arguments, and its results are writeable and never share
    memory with them."""
    reference = interpret(module, list(inputs), list(weights))
    assert_same(reference, want, "interpreter", rtol, atol)
    built = {}
    for target in targets:
        built[target] = build(module, target, folder, weights)
        args = [np.array(x, copy=True) for x in inputs]
        got = built[target](*args)
        assert_same(got, want, f"{target} target", rtol, atol)
        for x, a in zip(inputs, args):
            np.testing.assert_array_equal(a, x, err_msg=f"{target} changed an input")
        for out in leaves(got):  # results are fresh, writeable arrays, as eager ones are
            assert not any(np.shares_memory(out, a) for a in [*args, *built[target].extra]), \
                f"{target}: a result shares memory with an argument"
            assert out.flags.writeable, f"{target}: a result is read-only"
    return built


def leaves(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [x for v in value for x in leaves(v)]
    return [] if value is None else [value]

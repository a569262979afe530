"""The plain public forms generated from the table's entries: real functions with
MindSpore's argument names, primitive classes and Tensor methods, eager and in graphs."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import msc as ms
from msc import ops
from msc.compiler import arg_spec, compile_entry
from msc.ir.primitives import PRIMITIVES


@pytest.mark.parametrize("fn, params", [
    (ops.add, ["input", "other"]), (ops.pow, ["input", "exponent"]),
    (ops.floor_mod, ["x", "y"]), (ops.remainder, ["input", "other"]),
    (ops.exp, ["input"]), (ops.log1p, ["input"]), (ops.erf, ["input"]),
    (ops.eq, ["input", "other"]),
])
def test_functions_take_mindspores_argument_names(fn, params) -> None:
    assert list(inspect.signature(fn).parameters) == params


def test_every_public_name_of_the_table_is_generated() -> None:
    for prim in PRIMITIVES.values():
        for name in prim.public.functions:
            assert callable(getattr(ops, name)), name
        for name in prim.public.classes:
            assert isinstance(getattr(ops, name), type), name
        for name in prim.public.methods:
            assert callable(getattr(ms.Tensor, name)), name


def test_generated_forms_compute_like_numpy_eagerly_and_in_a_graph() -> None:
    a = np.array([0.25, 1.5, -2.0], np.float32)
    b = np.array([2.0, -0.5, 3.0], np.float32)
    x, y = ms.Tensor(a), ms.Tensor(b)

    def f(x, y):
        return (ops.add(input=x, other=y), ops.pow(x, exponent=2.0), ops.RealDiv()(x, y),
                x.exp(), ops.floor_mod(x=x, y=y), ops.maximum(x, y))

    want = (a + b, a ** 2, a / b, np.exp(a), np.mod(a, b), np.maximum(a, b))
    graph = compile_entry(f, (arg_spec(x), arg_spec(y))).run([x, y])
    for got in (f(x, y), graph):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)
            assert g.asnumpy().dtype == np.float32
    with pytest.raises(TypeError, match="other"):
        ops.add(x)
    with pytest.raises(TypeError, match="expected 2 inputs, but got 1"):
        ops.RealDiv()(x)

"""``vmap`` results that hold Python numbers beside tensors, with nested ``in_axes`` and
``out_axes``: every number becomes a Tensor with the batch axis, as MindSpore 2.10 gives
it (a float a float32 one, an int int64, a bool bool), eagerly and inside a compiled
function, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(6, dtype=np.float32).reshape(3, 2) * 0.5


def example(a, b):
    return a * 2, (b + 1, 5.0, 3, True)


def mapped(a, b):
    return ms.vmap(example, in_axes=(0, 1), out_axes=(0, (1, 0, 0, 0)))(a, b)


@ms.jit
def compiled(a, b):
    return mapped(a, b)


@pytest.mark.parametrize("how", ["eager", "numba", "python"])
def test_numbers_in_vmapped_results_become_batched_tensors(how):
    if how == "eager":
        doubled, (shifted, five, three, yes) = mapped(Tensor(A), Tensor(B))
    else:
        ms.set_context(jit_target=how)
        try:
            doubled, (shifted, five, three, yes) = compiled(Tensor(A), Tensor(B))
        finally:
            ms.set_context(jit_target="numba")
    np.testing.assert_allclose(doubled.asnumpy(), A * 2)
    np.testing.assert_allclose(shifted.asnumpy(), B + 1)  # batch axis 1, as out_axes says
    for got, value, dtype in ((five, 5.0, ms.float32), (three, 3, ms.int64),
                              (yes, True, ms.bool_)):
        assert isinstance(got, Tensor) and got.dtype == dtype
        np.testing.assert_array_equal(got.asnumpy(), np.full(2, value))


def test_a_batched_number_is_usable_as_a_tensor_in_the_graph():
    @ms.jit
    def use(a):
        total, two = ms.vmap(lambda x: (x.sum(), 2.0))(a)
        return total * two

    np.testing.assert_allclose(use(Tensor(A)).asnumpy(), A.sum(axis=1) * 2.0)

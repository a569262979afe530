"""Shared by the gradient tests: float64 tensors and the tolerance of their checks."""

import numpy as np

from msc import Tensor

F64 = np.float64


def T(a):
    return Tensor(np.asarray(a, F64))


def close(got, want):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)

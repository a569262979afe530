"""Special functions composed of the table's ops: ``mvlgamma`` (a sum of ``lgamma``s),
``ldexp`` (``x * 2 ** other``). The one-primitive forms (``ops.lgamma``, ``ops.digamma``,
``ops.polygamma``, ``ops.zeta``, ``ops.bessel_i0``, ``ops.gcd``, ...) are generated from
the table into ``ops/functional.py``. Being compositions, these run eagerly and in graphs
on every target, with gradients from the primitives' rules.
"""

from __future__ import annotations

import math
from typing import Any


from msc.common.tensor import SymTensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor, _checking


def mvlgamma(input: Any, p: int) -> Any:  # noqa: A002 - MindSpore's name
    """The multivariate log-gamma function of dimension ``p``: ``p (p - 1) / 4 log(pi) +
    sum(lgamma(input - j / 2), j < p)``; every element must exceed ``(p - 1) / 2``."""
    x = _as_tensor(input, "Mvlgamma")
    with _checking("Mvlgamma"):
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise GraphValueError(f"p must be an int greater than or equal to 1, but got {p!r}")
        if not x.dtype.is_float:
            raise GraphTypeError(f"the input must be a float Tensor, but got {x.dtype}")
        if not isinstance(x, SymTensor) and not (x.asnumpy() > (p - 1) / 2).all():
            raise GraphValueError("all elements of 'x' must be greater than (p-1)/2.")
    total = apply(Op.Lgamma, x)
    for j in range(1, p):
        total = total + apply(Op.Lgamma, x - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


def ldexp(x: Any, other: Any) -> Any:
    """``x * 2 ** other``, in float32 (float64 for float64 ``x``), as MindSpore's."""
    x = _as_tensor(x, "ldexp")
    scale = apply(Op.Pow, 2.0, F.cast(_as_tensor(other, "ldexp"), dtypes.float32))
    return x * scale if x.dtype == dtypes.float64 else F.cast(x, dtypes.float32) * scale


METHODS = {"mvlgamma": lambda self, p: mvlgamma(self, p),
           "ldexp": lambda self, other: ldexp(self, other)}

__all__ = ["mvlgamma", "ldexp"]


"""Activation primitives with a parameter: ELU (``alpha``) and Softplus (``beta``,
``threshold``).

They are primitives rather than compositions because each has a branch whose untaken
side overflows (``exp`` of a large input): composed with Select, the gradient of the
untaken side would be ``0 * inf = nan``; their own rules never form that product. The
other activations (SELU, CELU, Mish, LogSigmoid, ...) are composed from these in the
frontend. Both take float tensors only, as MindSpore does, and fuse into loops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.errors import GraphTypeError
from msc.ir.kernel import X0, Fn, Select, attr, call, gt
from msc.ir.primitives.base import (
    Attr,
    Elementwise,
    Primitive,
    Public,
    on_all_targets,
    register,
    want_float_tensor,
)
from msc.ir.primitives.rules import batch_elementwise
from msc.ir.types import Type

_NUMBER = (int, float)


def _want_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, _NUMBER):
        raise GraphTypeError(f"{what} must be a float, but got {value!r}")
    return float(value)


# --- ELU: x where x > 0, alpha * (exp(x) - 1) elsewhere ----------------------------------


def _elu_infer(x: Type, *, alpha: float) -> Type:
    _want_number(alpha, "alpha")
    return want_float_tensor(x)


def _elu_impl(x: Any, *, alpha: float) -> Any:
    arr = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.where(arr > 0, arr, alpha * np.expm1(arr))


def _vjp_elu(b: Any, g: Any, x: Any, *, out: Any, alpha: float) -> tuple[Any]:
    """1 where x > 0, alpha * exp(x) = out + alpha elsewhere."""
    return (b.select(b.greater(x, 0.0), g, b.mul(g, b.add(out, alpha))),)


register(Primitive(
    "Elu", _elu_infer, _elu_impl,
    on_all_targets(Elementwise(Select(gt(X0, 0), X0, attr("alpha") * call(Fn.EXPM1, X0)))),
    attrs=(Attr("alpha", 1.0),), elementwise=True, cost=4, vjp=_vjp_elu,
    batch=batch_elementwise))


# --- Softplus: log(1 + exp(beta * x)) / beta, and x itself past the threshold ------------


def _softplus_infer(x: Type, *, beta: float, threshold: float) -> Type:
    _want_number(beta, "beta")
    _want_number(threshold, "threshold")
    return want_float_tensor(x)


def _softplus_impl(x: Any, *, beta: float, threshold: float) -> Any:
    arr = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.where(beta * arr > threshold, arr, np.log1p(np.exp(beta * arr)) / beta)


def _vjp_softplus(b: Any, g: Any, x: Any, *, out: Any, beta: float,
                  threshold: float) -> tuple[Any]:
    """sigmoid(beta * x), and 1 past the threshold."""
    bx = b.mul(x, beta)
    return (b.select(b.greater(bx, threshold), g, b.mul(g, b.sigmoid(bx))),)


register(Primitive(
    "Softplus", _softplus_infer, _softplus_impl,
    on_all_targets(Elementwise(Select(
        gt(attr("beta") * X0, attr("threshold")), X0,
        call(Fn.LOG1P, call(Fn.EXP, attr("beta") * X0)) / attr("beta")))),
    attrs=(Attr("beta", 1.0), Attr("threshold", 20.0)), elementwise=True, cost=6,
    vjp=_vjp_softplus, batch=batch_elementwise, public=Public(classes=("Softplus",))))

"""``mindspore.ops.function.sparse_unary_func``: ``coo_<f>`` and ``csr_<f>`` for each
elementwise function below, generated from one table. Each maps the stored values and
keeps the pattern (so ``csr_cos`` stores cos(0) = 1 nowhere: absent values stay absent),
eagerly and in graphs."""

from __future__ import annotations

from typing import Any, Callable

from msc.common.sparse_tensor import COOTensor, CSRTensor, _fail
from msc.errors import GraphTypeError
from msc.ops import functional as F
from msc.ops.function import math_func, nn_func

#: name -> the dense function applied to the values
UNARY: dict[str, Callable[[Any], Any]] = {
    "abs": F.abs, "acos": F.acos, "acosh": F.acosh, "asin": F.asin, "asinh": F.asinh,
    "atan": F.atan, "atanh": F.atanh, "ceil": F.ceil, "cos": F.cos, "cosh": F.cosh,
    "exp": F.exp, "expm1": F.expm1, "floor": F.floor, "inv": math_func.inv,
    "isfinite": F.isfinite, "isinf": F.isinf, "isnan": F.isnan, "log": F.log,
    "log1p": F.log1p, "neg": F.neg, "relu": F.relu, "relu6": nn_func.relu6,
    "round": math_func.round, "sigmoid": F.sigmoid, "sin": F.sin, "sinh": F.sinh,
    "softsign": nn_func.softsign, "sqrt": F.sqrt, "square": F.square, "tan": F.tan,
    "tanh": F.tanh,
}


def _sparse_unary(prefix: str, kind: type, name: str, fn: Callable[[Any], Any]) -> Any:
    def apply_to_values(x: Any) -> Any:
        if not isinstance(x, kind):
            _fail(f"{prefix}_{name}", f"Expects {kind.__name__} for {prefix}_{name}",
                  GraphTypeError)
        return x._with_values(fn(x.values))

    apply_to_values.__name__ = apply_to_values.__qualname__ = f"{prefix}_{name}"
    apply_to_values.__doc__ = f"``{name}`` of a {kind.__name__}'s stored values."
    return apply_to_values


__all__: list[str] = []
for _name, _fn in UNARY.items():
    for _prefix, _kind in (("coo", COOTensor), ("csr", CSRTensor)):
        globals()[f"{_prefix}_{_name}"] = _sparse_unary(_prefix, _kind, _name, _fn)
        __all__.append(f"{_prefix}_{_name}")

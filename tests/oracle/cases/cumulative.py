"""Cumulative ops: sums and products (exclusive, reverse, through zeros), running maxima
and minima with ties and NaN, logcumsumexp."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "cumulative"
FORMS = ("ops.cumsum({x0}, 0)", "ops.cumsum({x0}, -1)", "ops.cumprod({x0}, 0)",
         "ops.cumprod({x0}, 1)", "ops.cummax({x0}, 0)", "ops.cummax({x0}, 1)",
         "ops.cummin({x0}, 0)", "ops.cummin({x0}, -1)", "ops.logcumsumexp({x0}, 1)",
         "P.CumSum(True, False)({x0}, 1)", "P.CumSum(False, True)({x0}, 0)",
         "P.CumSum(True, True)({x0}, 1)", "P.CumProd(True, False)({x0}, 1)",
         "P.CumProd(False, True)({x0}, 0)", "P.CumProd(True, True)({x0}, 1)",
         "{x0}.cumsum(1)", "ops.cumsum({x0}, 1, ms.float64)")


def cases() -> list[Case]:
    out = []
    for form, kind in itertools.product(FORMS, ("normal", "ties", "nan")):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[{kind}]", FAMILY, form, (In((4, 5), kind=kind),), atol=1e-4))
    for form, dtype in itertools.product(FORMS[:8], ("int32", "int64")):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[{dtype}]", FAMILY, form, (In((4, 5), dtype, "int"),),
                        grad=False))
    return out

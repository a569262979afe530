"""Sorting and selection: sort, argsort, topk and top_k in both orders, every axis, with
ties (which index comes first) and NaN; searchsorted."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "sorting"
FORMS = ("ops.sort({x0})", "ops.sort({x0}, 0)", "ops.sort({x0}, -1, True)",
         "ops.sort({x0}, 1, True)", "ops.argsort({x0})", "ops.argsort({x0}, 0, True)",
         "ops.topk({x0}, 2)", "ops.topk({x0}, 3, 0)", "ops.topk({x0}, 2, 1, False)",
         "ops.topk({x0}, 4, -1, True, True)", "ops.top_k({x0}, 3)", "ops.top_k({x0}, 1)",
         "ops.msort({x0})", "P.Sort(1, True)({x0})", "P.TopK(True)({x0}, 2)",
         "{x0}.sort(0)", "{x0}.argsort(1)")


def cases() -> list[Case]:
    out = []
    for form, kind in itertools.product(FORMS, ("normal", "ties", "nan")):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[{kind}]", FAMILY, form, (In((4, 6), kind=kind),)))
    for form in FORMS[::2]:
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[int32]", FAMILY, form, (In((4, 6), "int32", "int"),),
                        grad=False))
        out.append(Case(f"{name}[float16]", FAMILY, form, (In((4, 6), "float16", "ties"),)))
    for right in (False, True):
        out.append(Case(f"ops.searchsorted(right={right})", FAMILY,
                        f"ops.searchsorted({{x0}}, {{x1}}, right={right})",
                        (In((6,), kind="const:0.0"), In((3, 4), kind="ties")), grad=False))
        out.append(Case(f"ops.searchsorted(sorted,right={right})", FAMILY,
                        f"ops.searchsorted(ops.sort({{x0}})[0], {{x1}}, right={right})",
                        (In((8,), kind="ties"), In((5,), kind="ties")), grad=False))
    return out

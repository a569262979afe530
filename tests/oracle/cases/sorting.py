"""Sorting and selection: sort, argsort, topk and top_k in both orders, every axis, with
ties (which index comes first) and NaN; searchsorted."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "sorting"
# each form with what it computes: (kind, axis, descending, k)
SHAPES = {
    "ops.sort({x0})": ("sort", -1, False, 0), "ops.sort({x0}, 0)": ("sort", 0, False, 0),
    "ops.sort({x0}, -1, True)": ("sort", -1, True, 0),
    "ops.sort({x0}, 1, True)": ("sort", 1, True, 0),
    "ops.argsort({x0})": ("argsort", -1, False, 0),
    "ops.argsort({x0}, 0, True)": ("argsort", 0, True, 0),
    "ops.topk({x0}, 2)": ("sort", -1, True, 2), "ops.topk({x0}, 3, 0)": ("sort", 0, True, 3),
    "ops.topk({x0}, 2, 1, False)": ("sort", 1, False, 2),
    "ops.topk({x0}, 4, -1, True, True)": ("sort", -1, True, 4),
    "ops.top_k({x0}, 3)": ("sort", -1, True, 3), "ops.top_k({x0}, 1)": ("sort", -1, True, 1),
    "ops.msort({x0})": ("values", 0, False, 0), "P.Sort(1, True)({x0})": ("sort", 1, True, 0),
    "P.TopK(True)({x0}, 2)": ("sort", -1, True, 2), "{x0}.sort(0)": ("sort", 0, False, 0),
    "{x0}.argsort(1)": ("argsort", 1, False, 0),
}
FORMS = tuple(SHAPES)


def cases() -> list[Case]:
    out = []
    for form, kind in itertools.product(FORMS, ("normal", "ties", "nan")):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[{kind}]", FAMILY, form, (In((4, 6), kind=kind),),
                        extra={"sort": SHAPES[form]}))
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

"""Reductions over every axis form (none, one, negative, several) with and without kept
dimensions, on float, int and bool inputs, with ties (which index wins) and NaN."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "reduction"
AXES = ("None", "0", "-1", "(0, 2)")
SHAPE = (3, 4, 5)


def _float_forms() -> list[str]:
    forms = []
    for ax, keep in itertools.product(AXES, (False, True)):
        forms += [f"ops.sum({{x0}}, {ax}, {keep})", f"ops.mean({{x0}}, {ax}, {keep})",
                  f"ops.prod({{x0}}, {ax}, {keep})", f"ops.amax({{x0}}, {ax}, {keep})",
                  f"ops.amin({{x0}}, {ax}, {keep})", f"ops.logsumexp({{x0}}, {ax}, {keep})",
                  f"ops.std({{x0}}, {ax}, 0, {keep})", f"ops.var({{x0}}, {ax}, 1, {keep})",
                  f"ops.nansum({{x0}}, {ax}, {keep})"]
        if ax != "None":
            forms += [f"P.ReduceSum({keep})({{x0}}, {ax})", f"P.ReduceMean({keep})({{x0}}, {ax})",
                      f"P.ReduceMax({keep})({{x0}}, {ax})", f"P.ReduceMin({keep})({{x0}}, {ax})",
                      f"P.ReduceProd({keep})({{x0}}, {ax})"]
    for ax, keep in itertools.product(("0", "1", "-1"), (False, True)):
        forms += [f"ops.max({{x0}}, {ax}, {keep})", f"ops.min({{x0}}, {ax}, {keep})",
                  f"ops.argmax({{x0}}, {ax}, {keep})", f"ops.argmin({{x0}}, {ax}, {keep})",
                  f"ops.median({{x0}}, {ax}, {keep})", f"{{x0}}.var({ax}, 1, {keep})",
                  f"ops.norm({{x0}}, None, {ax}, {keep})"]
    forms += ["ops.max({x0})", "ops.min({x0})", "ops.argmax({x0})", "ops.argmin({x0})",
              "ops.norm({x0})", "ops.norm({x0}, 1, 0)", "ops.norm({x0}, float('inf'), 1)",
              "ops.std_mean({x0}, 1)", "ops.var_mean({x0}, 0, 1)", "ops.aminmax({x0}, axis=1)",
              "P.ReduceSum(skip_mode=True)({x0}, ())", "P.ReduceSum()({x0}, ())",
              "{x0}.sum()", "{x0}.mean(1)", "{x0}.max(axis=1)", "{x0}.argmax(1)"]
    return forms


def cases() -> list[Case]:
    out = []
    for form, kind in itertools.product(_float_forms(), ("normal", "ties", "nan")):
        name = form.replace("{x0}", "x")
        ins = (In(SHAPE, kind=kind),)
        out.append(Case(f"{name}[{kind}]", FAMILY, form, ins, atol=1e-4))
    int_forms = []
    for ax, keep in itertools.product(("None", "1", "(0, 2)"), (False, True)):
        int_forms += [f"ops.sum({{x0}}, {ax}, {keep})", f"ops.mean({{x0}}, {ax}, {keep})",
                      f"ops.prod({{x0}}, {ax}, {keep})", f"ops.amax({{x0}}, {ax}, {keep})",
                      f"ops.amin({{x0}}, {ax}, {keep})"]
    int_forms += ["ops.argmax({x0}, 1)", "ops.argmin({x0}, 1)", "ops.max({x0}, 1)",
                  "ops.min({x0}, 0)", "ops.count_nonzero({x0}, 1)", "ops.sum({x0}, 1, dtype=ms.float32)"]
    for form, dtype in itertools.product(int_forms, ("int32", "int64", "int8")):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[{dtype}]", FAMILY, form, (In(SHAPE, dtype, "int"),),
                        grad=False))
    for form, ax in itertools.product(("ops.all", "ops.any"), ("None", "1", "(0, 2)")):
        out.append(Case(f"{form}(x, {ax})[bool]", FAMILY, f"{form}({{x0}}, {ax})",
                        (In(SHAPE, "bool", "bool"),), grad=False))
        out.append(Case(f"{form}(x, {ax})[float]", FAMILY, f"{form}({{x0}}, {ax})",
                        (In(SHAPE, "float32", "ties"),), grad=False))
    for form in ("ops.sum({x0}, 1)", "ops.mean({x0}, 1)", "ops.amax({x0}, 1)"):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[float16]", FAMILY, form, (In(SHAPE, "float16", "normal"),),
                        rtol=5e-3, atol=5e-3))
    return out

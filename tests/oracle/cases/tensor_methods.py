"""Tensor methods as models call them inside ``construct``: arithmetic, math, shape,
reduction and conversion methods, the properties (shape, ndim, size, T), and the
operators with Python numbers on either side."""

from __future__ import annotations

from tests.oracle.spec import Case, In

FAMILY = "tensor_methods"
X, Y = In((3, 4)), In((3, 4))

FORMS = (
    "{x0}.abs()", "{x0}.exp()", "{x0}.log()", "{x0}.sqrt()", "{x0}.rsqrt()", "{x0}.square()",
    "{x0}.neg()", "{x0}.sigmoid()", "{x0}.tanh()", "{x0}.sin()", "{x0}.cos()",
    "{x0}.floor()", "{x0}.ceil()", "{x0}.round()", "{x0}.trunc()", "{x0}.sign()",
    "{x0}.reciprocal()", "{x0}.pow(2)", "{x0}.pow(0.5)", "{x0}.clip(-1.0, 1.0)",
    "{x0}.clamp(min=0.0)", "{x0}.clamp(-0.5, 0.5)", "{x0}.log1p()", "{x0}.expm1()",
    "{x0}.erf()", "{x0}.nan_to_num()", "{x0}.isnan()",
    "{x0}.add({x1})", "{x0}.sub({x1})", "{x0}.mul({x1})", "{x0}.div({x1})",
    "{x0}.maximum({x1})", "{x0}.minimum({x1})", "{x0}.atan2({x1})", "{x0}.lerp({x1}, 0.25)",
    "{x0}.matmul({x1}.T)", "{x0}.T", "{x0}.t()", "{x0}.swapaxes(0, 1)",
    "{x0}.reshape(2, 6)", "{x0}.reshape((4, 3))", "{x0}.reshape(-1)", "{x0}.view(6, 2)",
    "{x0}.view(-1, 3)", "{x0}.flatten()", "{x0}.ravel()", "{x0}.squeeze()",
    "{x0}.unsqueeze(1)", "{x0}.expand_dims(0)", "{x0}.expand_as({x1})",
    "{x0}.broadcast_to((2, 3, 4))", "{x0}.permute(1, 0)", "{x0}.tile((2, 1))",
    "{x0}.flip((0, 1))", "{x0}.tril()",
    "{x0}.triu(1)", "{x0}.diagonal()", "{x0}.trace()", "{x0}.narrow(1, 1, 2)",
    "{x0}.chunk(2, 1)", "{x0}.split(1, 0)", "{x0}.split((1, 3), 1)",
    "{x0}.sum()", "{x0}.sum(1)", "{x0}.sum(0, keepdims=True)", "{x0}.mean()",
    "{x0}.mean(axis=0)", "{x0}.mean((0, 1), True)", "{x0}.prod(1)", "{x0}.max()",
    "{x0}.min(0)", "{x0}.max(axis=1, keepdims=True)", "{x0}.argmax()", "{x0}.argmin(0)",
    "{x0}.argmax(axis=1, keepdims=True)", "{x0}.std()", "{x0}.std(1, ddof=1)",
    "{x0}.var(0)", "{x0}.amax(1)", "{x0}.amin(0, True)", "{x0}.logsumexp(1)",
    "{x0}.norm()", "{x0}.nansum(1)", "{x0}.cumsum(0)",
    "{x0}.cumprod(1)", "{x0}.all()", "{x0}.any(1)", "{x0}.sort()", "{x0}.argsort(0)",
    "{x0}.topk(2)", "{x0}.masked_fill({x0} > 0, 0.5)", "{x0}.astype(ms.int32)",
    "{x0}.astype(ms.float16)", "{x0}.float()", "{x0}.half()", "{x0}.int()", "{x0}.long()",
    "{x0}.bool()", "{x0}.to(ms.float64)", "{x0}.type(ms.int32)",
    "{x0}.shape", "{x0}.ndim", "{x0}.size", "{x0}.numel()", "{x0}.dim()", "{x0}.nelement()",
    "{x0}.copy()", "{x0}.gather(Tensor([2, 0], ms.int32), 1)",
    "{x0}.index_select(0, Tensor([2, 0, 2], ms.int32))",
    "{x0}.repeat_interleave(2, 0)", "{x0}.square().sum(-1).sqrt()",
    "{x0} + 1", "1 + {x0}", "{x0} - 0.5", "2 - {x0}", "{x0} * 3", "0.5 * {x0}",
    "{x0} / 4", "1 / ({x0} * {x0} + 1)", "{x0} ** 2", "2 ** {x0}", "-{x0}", "abs({x0})",
    "{x0} // 0.7", "{x0} % 0.7", "{x0} @ {x1}.T", "({x0} > 0) & ({x1} < 0)",
    "({x0} > 0) | ({x1} < 0)", "~({x0} > 0)", "({x0} > 0) ^ ({x1} > 0)",
    "{x0} == {x1}", "{x0} != 0.5", "{x0} >= {x1}", "{x0} < 1",
)


def cases() -> list[Case]:
    out = []
    for form in FORMS:
        name = form.replace("{x0}", "x").replace("{x1}", "y")
        kind = "pos" if any(k in form for k in ("log", "sqrt", ".pow(0.5)", "rsqrt")) \
            else "ties"
        ins = (In(X.shape, kind=kind), Y) if "{x1}" in form else (In(X.shape, kind=kind),)
        out.append(Case(f"{name}[{kind}]", FAMILY, form, ins, rtol=1e-4, atol=1e-4))
    for form in FORMS[:40:3] + FORMS[-24:]:
        name = form.replace("{x0}", "x").replace("{x1}", "y")
        ins = tuple(In(X.shape, kind="normal") for _ in range(1 + ("{x1}" in form)))
        out.append(Case(f"{name}[normal]", FAMILY, form, ins, rtol=1e-4, atol=1e-4))
    for form in ("{x0} + 1", "{x0} * 2.5", "{x0}.sum()", "{x0}.abs()", "{x0}.float()",
                 "{x0}.max(0)", "{x0}.reshape(-1)", "{x0} // 2", "{x0} % 3", "{x0} / 2",
                 "{x0}.mean()", "{x0}.argmax(1)", "{x0}.bool()", "-{x0}", "{x0} ** 2"):
        name = form.replace("{x0}", "x")
        out.append(Case(f"{name}[int32]", FAMILY, form, (In(X.shape, "int32", "int"),),
                        grad=False))
    return out

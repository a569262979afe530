"""Contractions: batch_dot with every axes form, matmul of every rank pair, bmm,
tensor_dot and einsum, with gradients."""

from __future__ import annotations

from tests.oracle.spec import Case, In

FAMILY = "linalg"
FORMS = (
    ("ops.batch_dot({x0}, {x1})", (In((2, 3, 4)), In((2, 4, 5)))),
    ("ops.batch_dot({x0}, {x1}, (-1, -2))", (In((2, 2, 3)), In((2, 3, 2)))),
    ("ops.batch_dot({x0}, {x1}, (1, 2))", (In((3, 4, 2)), In((3, 5, 4)))),
    ("ops.batch_dot({x0}, {x1}, 2)", (In((2, 3, 4)), In((2, 5, 4)))),
    ("ops.batch_dot({x0}, {x1})", (In((2, 3)), In((2, 3)))),
    ("ops.batch_dot({x0}, {x1})", (In((2, 3)), In((2, 3, 4)))),
    ("ops.batch_dot({x0}, {x1})", (In((2, 3, 4)), In((2, 4)))),
    ("ops.batch_dot({x0}, {x1}, (2, 1))", (In((6, 2, 3, 5)), In((6, 3, 4)))),
    ("ops.matmul({x0}, {x1})", (In((3, 4)), In((4, 5)))),
    ("ops.matmul({x0}, {x1})", (In((2, 3, 4)), In((4, 5)))),
    ("ops.matmul({x0}, {x1})", (In((4,)), In((2, 4, 3)))),
    ("ops.matmul({x0}, {x1})", (In((2, 1, 3, 4)), In((3, 4, 2)))),
    ("ops.bmm({x0}, {x1})", (In((2, 3, 4)), In((2, 4, 5)))),
    ("ops.tensor_dot({x0}, {x1}, ((1, 2), (0, 1)))", (In((2, 3, 4)), In((3, 4, 5)))),
    ("ops.tensor_dot({x0}, {x1}, 1)", (In((2, 3)), In((3, 4)))),
    ("P.MatMul(True, False)({x0}, {x1})", (In((4, 3)), In((4, 5)))),
    ("P.MatMul(False, True)({x0}, {x1})", (In((3, 4)), In((5, 4)))),
    ("P.BatchMatMul(True, True)({x0}, {x1})", (In((2, 4, 3)), In((2, 5, 4)))),
    ("ops.einsum('ij,jk->ik', {x0}, {x1})", (In((3, 4)), In((4, 5)))),
    ("ops.einsum('bij,bkj->bik', {x0}, {x1})", (In((2, 3, 4)), In((2, 5, 4)))),
)


def cases() -> list[Case]:
    out = []
    for form, ins in FORMS:
        name = form.replace("{x0}", "a").replace("{x1}", "b")
        out.append(Case(f"{name}{[s.shape for s in ins]}", FAMILY, form, ins, atol=1e-4))
    return out

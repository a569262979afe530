"""Losses in every reduction, as functions and Cells, with gradients with respect to the
predictions and to the targets, labels, weights (where MindSpore defines some as zero)."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "losses"
REDUCTIONS = ("none", "mean", "sum")

X, T = In((4, 5)), In((4, 5))
P01, L01 = In((4, 5), kind="unit"), In((4, 5), kind="unit")
LOGITS, CLASSES = In((4, 5)), In((4,), "int32", "idx:5")


def _pairs() -> list[Case]:
    forms = (
        ("ops.l1_loss({x0}, {x1}, reduction='{r}')", (X, T)),
        ("ops.mse_loss({x0}, {x1}, reduction='{r}')", (X, T)),
        ("ops.smooth_l1_loss({x0}, {x1}, 1.0, '{r}')", (X, T)),
        ("ops.smooth_l1_loss({x0}, {x1}, 0.5, '{r}')", (X, T)),
        ("ops.huber_loss({x0}, {x1}, '{r}', 1.0)", (X, T)),
        ("ops.huber_loss({x0}, {x1}, '{r}', 2.0)", (X, T)),
        ("ops.soft_margin_loss({x0}, {x1}, '{r}')", (X, In((4, 5), kind="ties"))),
        ("ops.binary_cross_entropy({x0}, {x1}, None, '{r}')", (P01, L01)),
        ("ops.binary_cross_entropy({x0}, {x1}, {x2}, '{r}')", (P01, L01, In((4, 5), kind="pos"))),
        ("ops.binary_cross_entropy_with_logits({x0}, {x1}, {x2}, {x3}, '{r}')",
         (X, L01, In((4, 5), kind="pos"), In((5,), kind="pos"))),
        ("ops.kl_div({x0}, {x1}, '{r}')", (X, In((4, 5), kind="unit"))),
        ("ops.margin_ranking_loss({x0}, {x1}, {x2}, 0.5, '{r}')",
         (In((6,)), In((6,)), In((6,), kind="const:-1.0"))),
        ("ops.cosine_embedding_loss({x0}, {x1}, {x2}, 0.2, '{r}')",
         (In((4, 5)), In((4, 5)), In((4,), kind="const:1.0"))),
        ("ops.hinge_embedding_loss({x0}, {x1}, 1.0, '{r}')", (X, In((4, 5), kind="const:1.0"))),
        ("ops.gaussian_nll_loss({x0}, {x1}, {x2}, False, 1e-6, '{r}')",
         (X, T, In((4, 5), kind="pos"))),
        ("ops.cross_entropy({x0}, {x1}, None, -100, '{r}', 0.0)", (LOGITS, CLASSES)),
        ("ops.cross_entropy({x0}, {x1}, None, -100, '{r}', 0.2)", (LOGITS, CLASSES)),
        ("ops.cross_entropy({x0}, {x1}, {x2}, 2, '{r}', 0.0)",
         (LOGITS, CLASSES, In((5,), kind="pos"))),
        ("ops.cross_entropy({x0}, {x1}, None, -100, '{r}', 0.0)",
         (LOGITS, In((4, 5), kind="unit"))),
        ("ops.nll_loss({x0}, {x1}, None, -100, '{r}')", (LOGITS, CLASSES)),
        ("ops.nll_loss({x0}, {x1}, {x2}, 1, '{r}')", (LOGITS, CLASSES, In((5,), kind="pos"))),
        ("ops.cross_entropy({x0}, {x1}, None, -100, '{r}', 0.0)",
         (In((2, 5, 3)), In((2, 3), "int32", "idx:5"))),
        ("ops.nll_loss({x0}, {x1}, None, -100, '{r}')",
         (In((2, 5, 3, 2)), In((2, 3, 2), "int32", "idx:5"))),
        ("ops.multi_margin_loss({x0}, {x1}, 1, 1, None, '{r}')", (LOGITS, CLASSES)),
        ("ops.multilabel_soft_margin_loss({x0}, {x1}, None, '{r}')",
         (X, In((4, 5), kind="idx:2"))),
        ("ops.triplet_margin_loss({x0}, {x1}, {x2}, 1.0, 2, 1e-6, False, '{r}')",
         (In((4, 5)), In((4, 5)), In((4, 5)))),
    )
    out = []
    for (form, ins), r in itertools.product(forms, REDUCTIONS):
        call = form.replace("{r}", r)
        name = call.replace("{x0}", "a").replace("{x1}", "b").replace("{x2}", "c")
        name = name.replace("{x3}", "d")
        out.append(Case(f"{name}{[s.shape for s in ins]}", FAMILY, call, ins, atol=1e-4))
    return out


def _cells() -> list[Case]:
    forms = (
        ("nn.L1Loss('{r}')", (X, T)), ("nn.MSELoss('{r}')", (X, T)),
        ("nn.SmoothL1Loss(1.0, '{r}')", (X, T)), ("nn.HuberLoss('{r}')", (X, T)),
        ("nn.SoftMarginLoss('{r}')", (X, In((4, 5), kind="ties"))),
        ("nn.BCELoss(None, '{r}')", (P01, L01)),
        ("nn.BCEWithLogitsLoss('{r}')", (X, L01)),
        ("nn.KLDivLoss('{r}')", (X, In((4, 5), kind="unit"))),
        ("nn.CrossEntropyLoss(None, -100, '{r}')", (LOGITS, CLASSES)),
        ("nn.CrossEntropyLoss(None, -100, '{r}', 0.1)", (LOGITS, CLASSES)),
        ("nn.CrossEntropyLoss(None, -100, '{r}')", (In((2, 5, 3)), In((2, 3), "int32", "idx:5"))),
        ("nn.NLLLoss(None, -100, '{r}')", (LOGITS, CLASSES)),
        ("nn.NLLLoss(None, -100, '{r}')", (In((2, 5, 3)), In((2, 3), "int32", "idx:5"))),
        ("nn.MultiMarginLoss(1, 1.0, '{r}')", (LOGITS, CLASSES)),
        ("nn.SoftmaxCrossEntropyWithLogits(True, '{r}')", (LOGITS, CLASSES)),
        ("nn.SoftmaxCrossEntropyWithLogits(False, '{r}')", (LOGITS, In((4, 5), kind="unit"))),
        ("nn.MAELoss('{r}')", (X, T)),
    )
    out = []
    for (setup, ins), r in itertools.product(forms, REDUCTIONS):
        setup = setup.replace("{r}", r)
        out.append(Case(f"{setup}{[s.shape for s in ins]}", FAMILY, "{c}({x0}, {x1})", ins,
                        setup=setup, atol=1e-4))
    out.append(Case("nn.RMSELoss()", FAMILY, "{c}({x0}, {x1})", (X, T), setup="nn.RMSELoss()"))
    out.append(Case("nn.DiceLoss()", FAMILY, "{c}({x0}, {x1})", (P01, In((4, 5), kind="idx:2")),
                    setup="nn.DiceLoss()"))
    out.append(Case("nn.FocalLoss()", FAMILY, "{c}({x0}, {x1})",
                    (In((4, 3, 2)), In((4, 1, 2), "int32", "idx:3")), setup="nn.FocalLoss()"))
    prims = (
        ("P.SoftmaxCrossEntropyWithLogits()", (LOGITS, In((4, 5), kind="unit"))),
        ("P.SparseSoftmaxCrossEntropyWithLogits()", (LOGITS, CLASSES)),
        ("P.SigmoidCrossEntropyWithLogits()", (X, L01)),
        ("P.BinaryCrossEntropy('mean')", (P01, L01)),
        ("P.KLDivLoss('sum')", (X, In((4, 5), kind="unit"))),
        ("P.SmoothL1Loss()", (X, T)),
        ("P.SoftMarginLoss()", (X, In((4, 5), kind="ties"))),
    )
    for setup, ins in prims:
        out.append(Case(f"{setup}{[s.shape for s in ins]}", FAMILY, "{c}({x0}, {x1})", ins,
                        setup=setup, atol=1e-4))
    out.append(Case("P.NLLLoss('mean')", FAMILY, "{c}({x0}, {x1}, {x2})",
                    (LOGITS, CLASSES, In((5,), kind="pos")), setup="P.NLLLoss('mean')"))
    out.append(Case("P.MultiMarginLoss()", FAMILY, "{c}({x0}, {x1}, {x2})",
                    (LOGITS, In((4,), "int64", "idx:5"), In((5,), kind="pos")),
                    setup="P.MultiMarginLoss()"))
    return out


def cases() -> list[Case]:
    return _pairs() + _cells()

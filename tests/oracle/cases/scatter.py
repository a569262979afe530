"""Gathers, scatters and segment reductions beyond plain indexing: element-wise scatters
with every reduction, index_add/index_fill, scatter_nd forms, unsorted segment
reductions (empty segments, repeated ids), take_along_axis-style gathers and one_hot
embeddings; indices repeat, so a gradient that adds the repeats is checked."""

from __future__ import annotations

from tests.oracle.spec import Case, In

FAMILY = "scatter"
X = In((5, 4))

FORMS = (
    ("ops.tensor_scatter_elements({x0}, {x1}, {x2}, 1)",
     (X, In((5, 2), "int32", "idx:4"), In((5, 2)))),
    ("ops.tensor_scatter_elements({x0}, {x1}, {x2}, 0, 'add')",
     (X, In((3, 4), "int64", "idx:5"), In((3, 4)))),
    ("ops.scatter({x0}, 0, {x1}, {x2})", (X, In((2, 4), "int64", "idx:5"), In((2, 4)))),
    ("ops.scatter_add({x0}, 1, {x1}, {x2})", (X, In((5, 3), "int64", "idx:4"), In((5, 3)))),
    ("ops.scatter_nd({x0}, {x1}, (5, 3))", (In((4, 1), "int32", "idx:5"), In((4, 3)))),
    ("ops.scatter_nd({x0}, {x1}, (4, 5))", (In((6, 2), "int32", "idx:4"), In((6,)))),
    ("ops.tensor_scatter_update({x0}, {x1}, {x2})",
     (X, In((3, 2), "int32", "idx:4"), In((3,)))),
    ("ops.tensor_scatter_add({x0}, {x1}, {x2})", (X, In((6, 2), "int32", "idx:4"), In((6,)))),
    ("ops.index_add({x0}, {x1}, {x2}, 0)", (X, In((3,), "int32", "idx:5"), In((3, 4)))),
    ("ops.index_add({x0}, {x1}, {x2}, 1, alpha=2)",
     (X, In((5,), "int32", "idx:4"), In((5, 5)))),
    ("ops.index_fill({x0}, 1, {x1}, -1.0)", (X, In((2,), "int32", "idx:4"))),
    ("ops.unsorted_segment_sum({x0}, {x1}, 4)", (X, In((5,), "int32", "idx:3"))),
    ("ops.unsorted_segment_max({x0}, {x1}, 4)", (X, In((5,), "int32", "idx:3"))),
    ("ops.unsorted_segment_min({x0}, {x1}, 4)", (X, In((5,), "int32", "idx:3"))),
    ("ops.unsorted_segment_prod({x0}, {x1}, 4)", (X, In((5,), "int32", "idx:3"))),
    ("ops.unsorted_segment_sum({x0}, {x1}, 3)", (In((4, 3, 2)), In((4, 3), "int32", "idx:3"))),
    ("P.UnsortedSegmentSum()({x0}, {x1}, 6)", (X, In((5,), "int32", "idx:6"))),
    ("ops.gather_elements({x0}, 0, {x1})", (X, In((7, 4), "int64", "idx:5"))),
    ("ops.gather_d({x0}, 1, {x1})", (X, In((5, 6), "int32", "idx:4"))),
    ("ops.gather_nd({x0}, {x1})", (X, In((6, 2), "int32", "idx:4"))),
    ("ops.gather({x0}, {x1}, 0)", (X, In((2, 3), "int32", "idx:5"))),
    ("ops.gather({x0}, {x1}, 1, 1)", (X, In((5, 6), "int32", "idx:4"))),
    ("ops.index_select({x0}, 0, {x1})",
     (X, In((7,), "int64", "idx:5"))),
    ("ops.masked_fill({x0}, {x1}, {x2})",
     (X, In((5, 4), "bool", "bool"), In((), kind="const:2.5"))),
    ("ops.embedding({x1}, {x0})",
     (X, In((3, 2), "int32", "idx:5"))),
    ("ops.embedding({x1}, {x0}, padding_idx=1)", (X, In((3, 2), "int32", "idx:5"))),
    ("ops.embedding({x1}, {x0}, max_norm=1.0)", (X, In((3, 2), "int32", "idx:5"))),
    ("ops.one_hot({x0}, 4)", (In((3, 2), "int64", "idx:4"),)),
    ("ops.select_scatter({x0}, {x1}, 0, 2)", (X, In((4,)))),
    ("ops.diagonal_scatter({x0}, {x1}, 1)", (In((4, 4)), In((3,)))),
    ("ops.count_nonzero({x0}, 1)", (In((5, 4), kind="ties"),)),
    ("ops.bucketize({x1}, {x0})", (In((5,), kind="const:0.0"), In((3, 4), kind="ties"))),
)


def cases() -> list[Case]:
    out = []
    for form, ins in FORMS:
        name = form.replace("{x0}", "x").replace("{x1}", "i").replace("{x2}", "u")
        out.append(Case(f"{name}{[s.shape for s in ins]}", FAMILY, form, ins, atol=1e-4))
    return out

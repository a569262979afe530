"""Indexing and slicing (basic, negative steps, ellipsis, new axes, tensor and bool
indices, item assignment through a mask), gathers and scatters (duplicate indices),
padding and resizing, and the shape ops around them."""

from __future__ import annotations

from tests.oracle.spec import Case, In

FAMILY = "indexing"
X = In((4, 5, 6))

SLICES = (
    "[1:3, ::-1]", "[..., ::-2]", "[::2]", "[-1]", "[:, None]", "[1, 2]", "[::-1, 1:4]",
    "[:, -2:0:-1]", "[None, ..., 1]", "[2:, :, ::3]", "[-3:-1, 4:1:-2, ::-1]", "[..., 0]",
    "[:, 1:100]", "[0:0]", "[:, ::-3, 2]", "[3:0:-2, ..., 5:0:-4]", "[1:-1, 1:-1, 1:-1]",
)
EXPRESSIONS = (
    ("{x0}[{x1}]", (X, In((3,), "int32", "idx:4"))),
    ("{x0}[:, {x1}]", (X, In((2, 3), "int64", "idx:5"))),
    ("{x0}[{x1}, {x2}]", (X, In((3,), "int32", "idx:4"), In((3,), "int32", "idx:5"))),
    ("{x0}[{x1}, :, {x2}]", (X, In((2,), "int64", "idx:4"), In((2,), "int64", "idx:6"))),
    ("{x0}[:, {x1}, {x2}]", (X, In((3,), "int32", "idx:5"), In((3,), "int32", "idx:6"))),
    ("{x0}[{x1}, {x2}]", (X, In((2, 1), "int32", "idx:4"), In((3,), "int32", "idx:5"))),
    ("{x0}[{x1}, {x2}]", (In((4, 5)), In((2, 3), "int64", "idx:4"), In((2, 3), "int64", "idx:5"))),
    ("ops.gather({x0}, {x1}, 2, 2)", (X, In((4, 5, 2), "int32", "idx:6"))),
    ("{x0}[{x1}] = {x2}\n{x0}", (In((4, 5)), In((4,), "bool", "bool"), In((), kind="const:2.5"))),
    ("{x0}[{x0} > 1] = -1.0\n{x0}", (X,)),
    ("{x0}[{x1}] = 0.0\n{x0}", (In((5, 3)), In((3,), "int32", "idx:5"))),
    ("{x0}[{x1}]", (In((4, 5)), In((4, 5), "bool", "bool"))),
    ("{x0}[{x1}]", (X, In((4,), "bool", "bool"))),
    ("{x0}[-1, {x1}]", (X, In((3,), "int32", "idx:5"))),
    ("{x0}[{x0} > 0]", (In((3, 4)),)),
    ("ops.gather({x0}, {x1}, 0)", (X, In((3,), "int32", "idx:4"))),
    ("ops.gather({x0}, {x1}, 1)", (X, In((2, 3), "int32", "idx:5"))),
    ("ops.gather({x0}, {x1}, -1)", (X, In((7,), "int32", "idx:6"))),
    ("ops.gather({x0}, {x1}, 1, 1)", (X, In((4, 3), "int32", "idx:5"))),
    ("ops.gather_d({x0}, 1, {x1})", (X, In((4, 3, 6), "int32", "idx:5"))),
    ("ops.gather_elements({x0}, 2, {x1})", (X, In((4, 5, 2), "int64", "idx:6"))),
    ("ops.gather_nd({x0}, {x1})", (X, In((3, 2), "int32", "idx:4"))),
    ("ops.index_select({x0}, 1, {x1})", (X, In((4,), "int32", "idx:5"))),
    ("ops.masked_fill({x0}, {x1}, 0.5)", (X, In((4, 5, 6), "bool", "bool"))),
    ("ops.masked_fill({x0}, {x1}, 0.5)", (X, In((6,), "bool", "bool"))),
    ("ops.where({x1}, {x0}, {x2})", (X, In((4, 5, 6), "bool", "bool"), In((5, 6)))),
    ("ops.where({x0} > 0, {x0}, 0.0)", (X,)),
    ("ops.tensor_scatter_add({x0}, {x1}, {x2})",
     (In((5, 3)), In((4, 1), "int32", "idx:3"), In((4, 3)))),
    ("ops.tensor_scatter_mul({x0}, {x1}, {x2})",
     (In((5, 3)), In((4, 1), "int32", "idx:3"), In((4, 3)))),
    ("ops.tensor_scatter_div({x0}, {x1}, {x2})",
     (In((5, 3)), In((4, 1), "int32", "idx:3"), In((4, 3), kind="pos"))),
    ("ops.tensor_scatter_max({x0}, {x1}, {x2})",
     (In((5, 3)), In((4, 1), "int32", "idx:3"), In((4, 3)))),
    ("ops.tensor_scatter_min({x0}, {x1}, {x2})",
     (In((5, 3)), In((4, 1), "int32", "idx:3"), In((4, 3)))),
    ("ops.tensor_scatter_sub({x0}, {x1}, {x2})",
     (In((5, 3)), In((4, 1), "int32", "idx:3"), In((4, 3)))),
    ("ops.tensor_scatter_update({x0}, {x1}, {x2})",
     (In((5, 3)), In((2, 1), "int32", "idx:5"), In((2, 3)))),
    ("ops.scatter({x0}, 1, {x1}, {x2})",
     (In((3, 5)), In((3, 2), "int64", "idx:5"), In((3, 2)))),
    ("ops.narrow({x0}, 1, 1, 3)", (X,)), ("ops.narrow({x0}, -1, 2, 2)", (X,)),
    ("ops.flip({x0}, (0, 2))", (X,)), ("ops.roll({x0}, 2, 1)", (X,)),
    ("ops.roll({x0}, (1, -2), (0, 2))", (X,)), ("ops.tile({x0}, (2, 1, 1))", (X,)),
    ("ops.split({x0}, 2, 1)", (X,)), ("ops.split({x0}, (1, 3), 0)", (X,)),
    ("ops.repeat_interleave({x0}, 2, 1)", (X,)),
    ("ops.pad({x0}, (1, 2))", (X,)), ("ops.pad({x0}, (1, 0, 0, 2), value=1.5)", (X,)),
    ("ops.pad({x0}, (2, 1, 1, 2), 'reflect')", (In((2, 4, 5, 6)),)),
    ("ops.pad({x0}, (2, 1, 1, 2), 'replicate')", (In((2, 4, 5, 6)),)),
    ("ops.pad({x0}, (1, 1, 2, 0), 'circular')", (In((2, 4, 5, 6)),)),
    ("ops.interpolate({x0}, (7, 9), mode='bilinear', align_corners=True)", (In((1, 2, 4, 5)),)),
    ("ops.interpolate({x0}, (7, 9), mode='bilinear', align_corners=False)", (In((1, 2, 4, 5)),)),
    ("ops.interpolate({x0}, (7, 3), mode='nearest')", (In((1, 2, 4, 5)),)),
    ("ops.interpolate({x0}, scale_factor=2.0, mode='nearest')", (In((1, 2, 4, 5)),)),
    ("ops.interpolate({x0}, (9,), mode='linear', align_corners=False)", (In((1, 2, 5)),)),
    ("ops.interpolate({x0}, (7, 9), mode='bicubic', align_corners=True)", (In((1, 2, 4, 5)),)),
    ("ops.interpolate({x0}, (3, 4, 5), mode='trilinear')", (In((1, 1, 2, 3, 3)),)),
    ("ops.interpolate({x0}, (7, 9), mode='bicubic', align_corners=False)", (In((1, 2, 4, 5)),)),
    ("ops.interpolate({x0}, (3, 2), mode='bicubic', align_corners=False)", (In((1, 2, 6, 5)),)),
    ("ops.interpolate({x0}, (3, 2), mode='bicubic', align_corners=True)", (In((1, 2, 6, 5)),)),
    ("{x0}[{x0} < 0] = 0\n{x0}", (In((3, 4)),)),
    ("{x0}[1:3] = 2.5\n{x0}", (X,)),
    ("{x0}[:, {x1}] = 0.0\n{x0}", (In((3, 4)), In((2,), "int32", "idx:4"))),
    ("{x0}[..., 1] = {x1}\n{x0}", (X, In((4, 5)))),
    ("P.StridedSlice(1, 2, 0, 0, 0)({x0}, (1, 0, 5), (3, 4, 0), (1, 2, -2))", (X,)),
    ("P.StridedSlice(0, 0, 1, 0, 2)({x0}, (1, 0, 0), (3, 0, 0), (1, 1, 1))", (X,)),
    ("P.StridedSlice(0, 0, 0, 2, 0)({x0}, (0, 0, 0), (4, 5, 6), (-1, 1, -2))", (X,)),
    ("ops.strided_slice({x0}, (3, 4, 5), (0, 0, 0), (-1, -2, -3))", (X,)),
)


def cases() -> list[Case]:
    out = []
    for s in SLICES:
        out.append(Case(f"x{s}", FAMILY, f"{{x0}}{s}", (X,)))
        out.append(Case(f"x{s}[int32]", FAMILY, f"{{x0}}{s}", (In((4, 5, 6), "int32", "int"),)))
    for form, ins in EXPRESSIONS:
        name = form.replace("\n", "; ")
        for j in range(4):
            name = name.replace(f"{{x{j}}}", "xyzw"[j])
        out.append(Case(f"{name}{[s.shape for s in ins]}", FAMILY, form, ins))
    return out

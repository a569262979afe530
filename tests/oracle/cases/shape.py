"""Shape and layout ops: reshapes, transposes, joins and splits, squeezes and broadcasts,
triangles and diagonals, one-hot and the like-creation ops, each with the gradient that
travels back through the rearrangement."""

from __future__ import annotations

from tests.oracle.spec import Case, In

FAMILY = "shape"
X = In((2, 3, 4))
Y = In((2, 3, 4))

FORMS = (
    ("ops.reshape({x0}, (6, 4))", (X,)), ("ops.reshape({x0}, (-1, 2))", (X,)),
    ("ops.reshape({x0}, (4, -1, 3))", (X,)), ("P.Reshape()({x0}, (3, 8))", (X,)),
    ("ops.transpose({x0}, (2, 0, 1))", (X,)), ("ops.transpose({x0}, (0, 2, 1))", (X,)),
    ("ops.permute({x0}, (1, 2, 0))", (X,)), ("ops.swapaxes({x0}, 0, 2)", (X,)),
    ("ops.swapaxes({x0}, -1, 1)", (X,)), ("ops.movedim({x0}, 0, -1)", (X,)),
    ("ops.moveaxis({x0}, (0, 1), (2, 0))", (X,)), ("ops.t({x0})", (In((3, 5)),)),
    ("ops.concat(({x0}, {x1}), 0)", (X, Y)), ("ops.concat(({x0}, {x1}), -1)", (X, In((2, 3, 2)))),
    ("ops.cat(({x0}, {x1}, {x0}), 1)", (X, In((2, 1, 4)))),
    ("P.Concat(2)(({x0}, {x1}))", (X, Y)),
    ("ops.stack(({x0}, {x1}), 0)", (X, Y)), ("ops.stack(({x0}, {x1}), -1)", (X, Y)),
    ("ops.stack(({x0}, {x1}, {x0}), 2)", (X, Y)),
    ("ops.hstack(({x0}, {x1}))", (X, Y)), ("ops.vstack(({x0}, {x1}))", (X, Y)),
    ("ops.unstack({x0}, 1)", (X,)), ("ops.unbind({x0}, 2)", (X,)),
    ("ops.chunk({x0}, 2, 2)", (X,)), ("ops.chunk({x0}, 2, 1)", (X,)),
    ("ops.split({x0}, (1, 2), 1)", (X,)), ("ops.tensor_split({x0}, 3, 2)", (X,)),
    ("ops.squeeze({x0})", (In((2, 1, 3, 1)),)), ("ops.squeeze({x0}, 1)", (In((2, 1, 3, 1)),)),
    ("ops.squeeze({x0}, (1, 3))", (In((2, 1, 3, 1)),)),
    ("ops.expand_dims({x0}, 1)", (X,)), ("ops.expand_dims({x0}, -1)", (X,)),
    ("ops.unsqueeze({x0}, 0)", (X,)),
    ("ops.broadcast_to({x0}, (2, 3, 4))", (In((3, 1)),)),
    ("ops.broadcast_to({x0}, (4, -1, 3))", (In((1, 2, 3)),)),
    ("ops.flatten({x0})", (X,)), ("ops.flatten({x0}, start_dim=0)", (X,)),
    ("ops.flatten({x0}, start_dim=1, end_dim=2)", (In((2, 3, 4, 2)),)),
    ("ops.tril({x0})", (In((4, 5)),)), ("ops.tril({x0}, -1)", (In((4, 5)),)),
    ("ops.triu({x0}, 1)", (In((4, 5)),)), ("ops.triu({x0})", (In((2, 4, 3)),)),
    ("ops.diag({x0})", (In((4,)),)), ("ops.diagonal({x0})", (In((4, 5)),)),
    ("ops.diagonal({x0}, 1, 1, 2)", (In((2, 4, 5)),)), ("ops.diag_embed({x0})", (In((2, 3)),)),
    ("ops.fliplr({x0})", (In((3, 4)),)), ("ops.flipud({x0})", (In((3, 4)),)),
    ("ops.rot90({x0}, 1, (0, 1))", (In((3, 4)),)), ("ops.rot90({x0}, 2, (1, 2))", (X,)),
    ("ops.tile({x0}, (2, 3))", (In((2, 3)),)), ("ops.tile({x0}, (2,))", (X,)),
    ("ops.repeat_elements({x0}, 2, 1)", (X,)),
    ("ops.repeat_interleave({x0}, 3, 0)", (In((2, 3)),)),
    ("ops.zeros_like({x0})", (X,)), ("ops.ones_like({x0})", (X,)),
    ("ops.full_like({x0}, 2.5)", (X,)), ("ops.zeros_like({x0}, dtype=ms.int32)", (X,)),
    ("ops.one_hot({x0}, 5, Tensor(1.0), Tensor(0.0))", (In((4,), "int32", "idx:5"),)),
    ("ops.one_hot({x0}, 4, Tensor(2.0), Tensor(-1.0), 0)", (In((3,), "int64", "idx:4"),)),
    ("ops.meshgrid({x0}, {x1}, indexing='ij')", (In((3,)), In((4,)))),
    ("ops.meshgrid({x0}, {x1}, indexing='xy')", (In((3,)), In((4,)))),
    ("ops.cast({x0}, ms.int32)", (In((3, 4)),)), ("ops.cast({x0}, ms.float16)", (In((3, 4)),)),
    ("ops.cast({x0}, ms.bool_)", (In((3, 4), kind="ties"),)),
    ("ops.cast({x0}, ms.float32)", (In((3, 4), "int32", "int"),)),
    ("ops.cast({x0}, ms.uint8)", (In((3, 4), kind="pos"),)),
    ("ops.ravel({x0})", (X,)), ("ops.atleast_2d({x0})", (In((3,)),)),
    ("ops.narrow({x0}, 0, 1, 1)", (X,)),
    ("ops.select_scatter({x0}, {x1}, 1, 0)", (X, In((2, 4)))),
    ("ops.slice_scatter({x0}, {x1}, 2, 1, 3)", (X, In((2, 3, 2)))),
    ("ops.expand({x0}, Tensor([3, 2, 4]))", (In((1, 2, 4)),)),
    ("ops.column_stack(({x0}, {x1}))", (In((3,)), In((3, 2)))),
    ("ops.dstack(({x0}, {x1}))", (In((2, 3)), In((2, 3)))),
    ("ops.range(0, 5, 1) + {x0}.shape[0]", (In((3,)),)),
    ("ops.arange(0, 6, 2) + {x0}", (In((3,), "int64", "int"),)),
    ("ops.linspace(0.0, 1.0, 5) * {x0}", (In((5,)),)),
    ("ops.eye(3, 4, ms.float32) * {x0}", (In((3, 4)),)),
    ("ops.ones((2, 3), ms.float32) + {x0}", (In((2, 3)),)),
    ("ops.zeros(({x0}.shape[0], 2), ms.float32) + 1", (In((3, 4)),)),
    ("ops.fill(ms.float32, (2, 3), 1.5) * {x0}", (In((2, 3)),)),
    ("ops.full((2, 3), 0.5) * {x0}", (In((2, 3)),)),
    ("ops.shape({x0})", (X,)), ("ops.rank({x0})", (X,)), ("ops.size({x0})", (X,)),
)


def cases() -> list[Case]:
    out = []
    for form, ins in FORMS:
        name = form.replace("{x0}", "a").replace("{x1}", "b")
        out.append(Case(f"{name}{[s.shape for s in ins]}", FAMILY, form, ins))
    for form, ins in FORMS[:20]:
        name = form.replace("{x0}", "a").replace("{x1}", "b")
        ints = tuple(In(s.shape, "int32", "int") for s in ins)
        out.append(Case(f"{name}{[s.shape for s in ins]}[int32]", FAMILY, form, ints,
                        grad=False))
    return out

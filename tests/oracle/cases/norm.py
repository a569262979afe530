"""Normalisation: batch norm (Cells in training and eval, the functional form and the
primitive with every input's gradient), layer norm, group norm, instance norm and L2
normalisation, on ordinary inputs, large ones and rows without variance."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "norm"
KINDS = ("normal", "big", "const:1.5")


def _batch() -> list[Case]:
    out = []
    for kind, train, eps, mom in itertools.product(KINDS, (False, True), (1e-5, 0.1),
                                                   (0.9, 0.5)):
        if mom == 0.5 and not train:
            continue
        out.append(Case(f"nn.BatchNorm2d(train={train},eps={eps},mom={mom},{kind})", FAMILY,
                        "{c}({x0})", (In((3, 4, 3, 5), kind=kind),), atol=1e-4,
                        setup=f"nn.BatchNorm2d(4, eps={eps}, momentum={mom})"
                              f".set_train({train})"))
    for kind, train in itertools.product(KINDS, (False, True)):
        out.append(Case(f"nn.BatchNorm1d(train={train},{kind})", FAMILY, "{c}({x0})",
                        (In((6, 4), kind=kind),), atol=1e-4,
                        setup=f"nn.BatchNorm1d(4).set_train({train})"))
        out.append(Case(f"nn.BatchNorm3d(train={train},{kind})", FAMILY, "{c}({x0})",
                        (In((2, 3, 2, 3, 4), kind=kind),), atol=1e-4,
                        setup=f"nn.BatchNorm3d(3).set_train({train})"))
        out.append(Case(f"nn.BatchNorm2d(affine=False,train={train},{kind})", FAMILY,
                        "{c}({x0})", (In((3, 4, 3, 5), kind=kind),), atol=1e-4,
                        setup=f"nn.BatchNorm2d(4, affine=False).set_train({train})"))
    stats = (In((4,)), In((4,), kind="pos"), In((4,)), In((4,)))
    for kind, eps in itertools.product(KINDS, (1e-5, 0.3)):
        out.append(Case(f"ops.batch_norm(eval,eps={eps},{kind})", FAMILY,
                        f"ops.batch_norm({{x0}}, {{x1}}, {{x2}}, {{x3}}, {{x4}}, False, 0.1, "
                        f"{eps})", (In((3, 4, 3, 5), kind=kind), *stats), atol=1e-4))
        out.append(Case(f"P.BatchNorm(eval,eps={eps},{kind})", FAMILY,
                        "{c}({x0}, {x1}, {x2}, {x3}, {x4})[0]",
                        (In((3, 4, 3, 5), kind=kind), In((4,)), In((4,)), In((4,)),
                         In((4,), kind="pos")), atol=1e-4,
                        setup=f"P.BatchNorm(is_training=False, epsilon={eps})"))
    return out


def _layer() -> list[Case]:
    out = []
    for kind, (shape, begin), eps in itertools.product(
            KINDS, (((3, 4, 5), -1), ((3, 4, 5), 1), ((2, 3, 4), 2), ((6, 5), -1)),
            (1e-7, 1e-3)):
        norm = shape[begin % len(shape):]
        out.append(Case(f"nn.LayerNorm({shape},{norm},begin={begin},eps={eps},{kind})", FAMILY,
                        "{c}({x0})", (In(shape, kind=kind),), atol=1e-4,
                        setup=f"nn.LayerNorm({norm}, begin_norm_axis={begin}, "
                              f"begin_params_axis={begin}, epsilon={eps})"))
        out.append(Case(f"ops.layer_norm({shape},{norm},eps={eps},{kind})", FAMILY,
                        f"ops.layer_norm({{x0}}, {norm}, {{x1}}, {{x2}}, {eps})",
                        (In(shape, kind=kind), In(norm), In(norm)), atol=1e-4))
    for kind, begin in itertools.product(KINDS, (1, -1)):
        out.append(Case(f"P.LayerNorm(begin={begin},{kind})", FAMILY,
                        "{c}({x0}, {x1}, {x2})",
                        (In((3, 4, 5), kind=kind), In((4, 5)[begin:] if begin == -1 else (4, 5)),
                         In((4, 5)[begin:] if begin == -1 else (4, 5))), atol=1e-4,
                        setup=f"P.LayerNorm(begin_norm_axis={begin}, begin_params_axis={begin})"))
    return out


def _group() -> list[Case]:
    out = []
    for kind, groups, affine in itertools.product(KINDS, (1, 2, 4), (True, False)):
        out.append(Case(f"nn.GroupNorm({groups},4,affine={affine},{kind})", FAMILY,
                        "{c}({x0})", (In((2, 4, 3, 3), kind=kind),), atol=1e-4,
                        setup=f"nn.GroupNorm({groups}, 4, affine={affine})"))
    for kind, groups in itertools.product(KINDS, (1, 2)):
        out.append(Case(f"ops.group_norm({groups},{kind})", FAMILY,
                        f"ops.group_norm({{x0}}, {groups}, {{x1}}, {{x2}})",
                        (In((2, 4, 3, 3), kind=kind), In((4,)), In((4,))), atol=1e-4))
    for kind in KINDS:
        out.append(Case(f"nn.InstanceNorm2d({kind})", FAMILY, "{c}({x0})",
                        (In((2, 3, 4, 4), kind=kind),), atol=1e-4,
                        setup="nn.InstanceNorm2d(3)"))
        out.append(Case(f"nn.InstanceNorm1d({kind})", FAMILY, "{c}({x0})",
                        (In((2, 3, 6), kind=kind),), atol=1e-4, setup="nn.InstanceNorm1d(3)"))
    for kind, axis, eps in itertools.product(("normal", "ties", "const:0.0"), (0, -1),
                                             (1e-4, 0.1)):
        out.append(Case(f"P.L2Normalize(axis={axis},eps={eps},{kind})", FAMILY,
                        "{c}({x0})", (In((3, 5), kind=kind),), atol=1e-4,
                        setup=f"P.L2Normalize(axis={axis}, epsilon={eps})"))
    return out


def _running() -> list[Case]:
    """The moving statistics a BatchNorm keeps: after two calls in training (momentum
    weighs the old value; the variance is the unbiased one) and unchanged in inference."""
    out = []
    cells = (("nn.BatchNorm1d(4, momentum={m})", (6, 4)),
             ("nn.BatchNorm2d(4, momentum={m})", (3, 4, 3, 5)),
             ("nn.BatchNorm3d(3, momentum={m})", (2, 3, 2, 3, 4)))
    call = ("{t}y = {c}({x0})\n{t}z = {c}({x0} * 2.0 + 1.0)\n"
            "({t}z, {c}.moving_mean + 0.0, {c}.moving_variance + 0.0)")
    for (cell, shape), mom, train in itertools.product(cells, (0.9, 0.5), (True, False)):
        setup = cell.format(m=mom) + f".set_train({train})"
        out.append(Case(f"{setup}[running statistics]{shape}", FAMILY, call,
                        (In(shape),), setup=setup, grad=False, atol=1e-4))
    return out


def cases() -> list[Case]:
    return _batch() + _layer() + _group() + _running()

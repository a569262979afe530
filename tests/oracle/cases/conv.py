"""Convolutions of every rank: strides, pad modes, explicit paddings, dilations, groups
and biases; transposed convolutions with output padding. Functional forms take the weight
as an input (so its gradient is compared too); Cells get a fixed, irregular weight."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "conv"


def _weight(shape: tuple[int, ...]) -> str:
    n = 1
    for d in shape:
        n *= d
    return (f"Tensor(np.sin(np.arange({n}) * 1.7 + 0.3).reshape({shape})"
            f".astype(np.float32) * 0.5)")


def _functional() -> list[Case]:
    out = []
    pads = (("valid", 0), ("same", 0), ("pad", 1), ("pad", (1, 2)), ("pad", (0, 1, 2, 1)))
    for (mode, p), s, d, g, bias in itertools.product(pads, (1, 2), (1, 2), (1, 2),
                                                      (False, True)):
        if mode == "same" and s != 1:
            continue  # MindSpore's conv2d takes 'same' with stride 1 only
        if bias and (d == 2 or g == 2):
            continue
        b = "{x2}" if bias else "None"
        ins = (In((2, 4, 7, 8)), In((4, 4 // g, 3, 3)), In((4,)))[:3 if bias else 2]
        out.append(Case(f"ops.conv2d({mode},p={p},s={s},d={d},g={g},bias={bias})", FAMILY,
                        f"ops.conv2d({{x0}}, {{x1}}, {b}, {s}, '{mode}', {p}, {d}, {g})", ins,
                        rtol=1e-4, atol=1e-4))
    for (mode, p), s, d, g in itertools.product((("valid", 0), ("same", 0), ("pad", 2)),
                                                (1, 2), (1, 2), (1, 3)):
        if mode == "same" and s != 1:
            continue
        out.append(Case(f"ops.conv1d({mode},p={p},s={s},d={d},g={g})", FAMILY,
                        f"ops.conv1d({{x0}}, {{x1}}, None, {s}, '{mode}', {p}, {d}, {g})",
                        (In((2, 3, 11)), In((6, 3 // g, 3))), atol=1e-4))
    for (mode, p), s, d in itertools.product((("valid", 0), ("same", 0), ("pad", 1)),
                                             (1, 2), (1, 2)):
        if mode == "same" and s != 1:
            continue
        out.append(Case(f"ops.conv3d({mode},p={p},s={s},d={d})", FAMILY,
                        f"ops.conv3d({{x0}}, {{x1}}, None, {s}, '{mode}', {p}, {d}, 1)",
                        (In((1, 2, 5, 6, 7)), In((3, 2, 2, 3, 3))), atol=1e-4))
    for s, p, op, d in ((1, 0, 0, 1), (2, 1, 0, 1), (2, 1, 1, 1), (2, 0, 1, 2), (3, 1, 2, 1)):
        out.append(Case(f"ops.conv_transpose2d(s={s},p={p},op={op},d={d})", FAMILY,
                        f"ops.conv_transpose2d({{x0}}, {{x1}}, None, {s}, {p}, {op}, 1, {d})",
                        (In((2, 4, 5, 6)), In((4, 3, 3, 3))), atol=1e-4))
    return out


def _cells() -> list[Case]:
    out = []
    for (mode, p), s, d, g, bias in itertools.product(
            (("same", 0), ("valid", 0), ("pad", 1), ("pad", (1, 0, 2, 1))), (1, 2), (1, 2),
            (1, 2), (False, True)):
        if bias and g == 2:
            continue
        w = _weight((4, 4 // g, 3, 3))
        setup = (f"nn.Conv2d(4, 4, 3, {s}, '{mode}', {p}, {d}, {g}, {bias}, "
                 f"weight_init={w}, bias_init='ones')")
        out.append(Case(f"nn.Conv2d({mode},p={p},s={s},d={d},g={g},bias={bias})", FAMILY,
                        "{c}({x0})", (In((2, 4, 7, 8)),), setup=setup, atol=1e-4))
    for (mode, p), s in itertools.product((("same", 0), ("valid", 0), ("pad", 2)), (1, 2)):
        out.append(Case(f"nn.Conv1d({mode},p={p},s={s})", FAMILY, "{c}({x0})",
                        (In((2, 3, 11)),), atol=1e-4,
                        setup=f"nn.Conv1d(3, 4, 3, {s}, '{mode}', {p}, "
                              f"weight_init={_weight((4, 3, 3))})"))
        out.append(Case(f"nn.Conv3d({mode},p={p},s={s})", FAMILY, "{c}({x0})",
                        (In((1, 2, 5, 6, 5)),), atol=1e-4,
                        setup=f"nn.Conv3d(2, 3, 3, {s}, '{mode}', {p}, "
                              f"weight_init={_weight((3, 2, 3, 3, 3))})"))
    for (mode, p), s, d, bias in itertools.product((("same", 0), ("valid", 0), ("pad", 1)),
                                                   (1, 2), (1, 2), (False, True)):
        out.append(Case(f"nn.Conv2dTranspose({mode},p={p},s={s},d={d},bias={bias})", FAMILY,
                        "{c}({x0})", (In((2, 4, 5, 6)),), atol=1e-4,
                        setup=f"nn.Conv2dTranspose(4, 3, 3, {s}, '{mode}', {p}, dilation={d}, "
                              f"has_bias={bias}, weight_init={_weight((4, 3, 3, 3))}, "
                              f"bias_init='ones')"))
    for (mode, p), s in itertools.product((("same", 0), ("valid", 0), ("pad", 1)), (1, 2)):
        out.append(Case(f"nn.Conv1dTranspose({mode},p={p},s={s})", FAMILY, "{c}({x0})",
                        (In((2, 4, 9)),), atol=1e-4,
                        setup=f"nn.Conv1dTranspose(4, 3, 3, {s}, '{mode}', {p}, "
                              f"weight_init={_weight((4, 3, 3))})"))
        out.append(Case(f"nn.Conv3dTranspose({mode},p={p},s={s})", FAMILY, "{c}({x0})",
                        (In((1, 2, 4, 5, 4)),), atol=1e-4,
                        setup=f"nn.Conv3dTranspose(2, 3, 3, {s}, '{mode}', {p}, "
                              f"weight_init={_weight((2, 3, 3, 3, 3))})"))
    return out


def _primitives() -> list[Case]:
    out = []
    for mode, pad, s, d, op in (("valid", 0, 1, 1, 0), ("valid", 0, 2, 1, 0),
                                ("same", 0, 1, 1, 0), ("same", 0, 2, 1, 0),
                                ("pad", 1, 2, 1, 0), ("pad", 1, 2, 1, 1),
                                ("pad", (1, 0, 0, 1, 1, 1), 1, 2, 0), ("valid", 0, 2, 2, 1)):
        out.append(Case(f"P.Conv3DTranspose({mode},pad={pad},s={s},d={d},op={op})", FAMILY,
                        "{c}({x0}, {x1})", (In((1, 2, 3, 4, 3)), In((2, 3, 3, 3, 3))),
                        setup=f"P.Conv3DTranspose(2, 3, 3, 1, '{mode}', {pad}, {s}, {d}, 1, "
                              f"{op})", atol=1e-4))
    return out


def cases() -> list[Case]:
    return _functional() + _cells() + _primitives()

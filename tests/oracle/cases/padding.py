"""Padding: ops.pad in every mode over one, two and three trailing axes (asymmetric and
negative widths, constant values), the padding Cells, P.Pad and P.MirrorPad; the gradient
of a reflected or replicated border adds into the elements it copies."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "padding"
X3, X4, X5 = In((2, 3, 6)), In((1, 2, 5, 6)), In((1, 2, 3, 4, 5))
PADS = {
    X3: ("(1, 2)", "(0, 3)", "(2, 2)", "(-1, 2)"),
    X4: ("(1, 2, 0, 1)", "(2, 2, 2, 2)", "(0, 0, 3, 1)", "(1, 0)", "(-1, 1, 2, -2)"),
    X5: ("(1, 1, 1, 1, 1, 1)", "(0, 2, 1, 0, 2, 1)", "(1, 2)"),
}


def _functional() -> list[Case]:
    out = []
    for x, pads in PADS.items():
        for pad, mode in itertools.product(pads, ("constant", "reflect", "replicate",
                                                  "circular")):
            value = ", value=-1.5" if mode == "constant" and "1, 2)" in pad else ""
            call = f"ops.pad({{x0}}, {pad}, '{mode}'{value})"
            out.append(Case(f"ops.pad(x{x.shape}, {pad}, '{mode}'{value})", FAMILY, call, (x,)))
    return out


def _cells() -> list[Case]:
    out = []
    setups = (
        ("nn.ZeroPad2d(1)", X4), ("nn.ZeroPad2d((1, 2, 0, 3))", X4),
        ("nn.ConstantPad1d(2, 0.5)", X3), ("nn.ConstantPad1d((1, 3), -1.0)", X3),
        ("nn.ConstantPad2d((1, 0, 2, 1), 2.0)", X4), ("nn.ConstantPad3d(1, 1.0)", X5),
        ("nn.ReflectionPad1d(2)", X3), ("nn.ReflectionPad1d((3, 1))", X3),
        ("nn.ReflectionPad2d(1)", X4), ("nn.ReflectionPad2d((2, 1, 3, 0))", X4),
        ("nn.ReflectionPad3d(1)", X5),
        ("nn.ReplicationPad1d(2)", X3), ("nn.ReplicationPad1d((0, 4))", X3),
        ("nn.ReplicationPad2d(1)", X4), ("nn.ReplicationPad2d((3, 0, 1, 2))", X4),
        ("nn.ReplicationPad3d(1)", X5), ("nn.ReplicationPad3d((1, 0, 2, 1, 0, 1))", X5),
        ("nn.Pad(((0, 0), (1, 2)), 'CONSTANT')", In((3, 4))),
        ("nn.Pad(((1, 1), (2, 0)), 'REFLECT')", In((3, 4))),
        ("nn.Pad(((1, 2), (2, 1)), 'SYMMETRIC')", In((3, 4))),
        ("nn.Pad(((0, 0), (0, 0), (1, 1), (2, 2)), 'REFLECT')", X4),
        ("nn.Pad(((0, 0), (0, 0), (2, 1), (3, 3)), 'SYMMETRIC')", X4),
        ("P.Pad(((1, 2), (0, 1)))", In((3, 4))),
        ("P.Pad(((0, 0), (1, 1), (2, 0), (0, 3)))", X4),
    )
    for setup, x in setups:
        out.append(Case(f"{setup}{x.shape}", FAMILY, "{c}({x0})", (x,), setup=setup))
        if "Pad2d" in setup or "Pad1d" in setup:
            out.append(Case(f"{setup}{x.shape}[float16]", FAMILY, "{c}({x0})",
                            (In(x.shape, "float16"),), setup=setup))
    for mode, pads in itertools.product(("REFLECT", "SYMMETRIC"),
                                        ("[[0, 0], [1, 2]]", "[[1, 1], [2, 2]]",
                                         "[[2, 0], [0, 3]]")):
        setup = f"P.MirrorPad('{mode}')"
        out.append(Case(f"{setup}(x, {pads})", FAMILY,
                        f"{{c}}({{x0}}, Tensor({pads}, ms.int64))", (In((3, 4)),), setup=setup))
    for dtype in ("int32", "int64"):
        out.append(Case(f"ops.pad(x, (1, 2), value=3)[{dtype}]", FAMILY,
                        "ops.pad({x0}, (1, 2), value=3)", (In((2, 3), dtype, "int"),),
                        grad=False))
        out.append(Case(f"ops.pad(x, (1, 1), 'reflect')[{dtype}]", FAMILY,
                        "ops.pad({x0}, (1, 1), 'reflect')", (In((2, 3, 4), dtype, "int"),),
                        grad=False))
    return out


def cases() -> list[Case]:
    return _functional() + _cells()

"""Resizing: interpolate in every mode and rank, sizes up and down (odd ratios), corners
aligned or pixel centres, scale factors; the Upsample Cell, the resize
primitives, pixel (un)shuffle and grid sampling, each with the gradient that spreads back
over the source pixels."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "resize"
X1, X2, X3 = In((2, 3, 5)), In((1, 2, 4, 5)), In((1, 2, 3, 4, 3))


def _interpolate() -> list[Case]:
    out = []
    forms = []
    for size in ("(9,)", "(3,)", "(5,)", "(12,)"):
        forms.append((f"size={size}, mode='nearest'", X1))
        forms.append((f"size={size}, mode='nearest-exact'", X1))
        forms.append((f"size={size}, mode='area'", X1))
        for ac in (True, False):
            forms.append((f"size={size}, mode='linear', align_corners={ac}", X1))
    for size in ("(7, 9)", "(3, 2)", "(8, 10)", "(4, 7)", "(2, 13)"):
        forms.append((f"size={size}, mode='nearest'", X2))
        forms.append((f"size={size}, mode='nearest-exact'", X2))
        forms.append((f"size={size}, mode='area'", X2))
        for ac in (True, False):
            forms.append((f"size={size}, mode='bilinear', align_corners={ac}", X2))
            forms.append((f"size={size}, mode='bicubic', align_corners={ac}", X2))
    for size in ("(5, 6, 5)", "(2, 2, 2)", "(3, 7, 4)"):
        forms.append((f"size={size}, mode='nearest'", X3))
        forms.append((f"size={size}, mode='area'", X3))
        for ac in (True, False):
            forms.append((f"size={size}, mode='trilinear', align_corners={ac}", X3))
    for scale, rec in itertools.product(("2.0", "0.5", "1.7"), (None, True)):
        extra = "" if rec is None else ", recompute_scale_factor=True"
        forms.append((f"scale_factor={scale}, mode='nearest'{extra}", X1))
        forms.append((f"scale_factor=({scale}, {scale}), mode='nearest'{extra}", X2))
        forms.append((f"scale_factor=({scale}, {scale}), mode='bilinear'{extra}", X2))
        forms.append((f"scale_factor=({scale}, {scale}), mode='bicubic'{extra}", X2))
        forms.append((f"scale_factor={scale}, mode='linear'{extra}", X1))
        forms.append((f"scale_factor=({scale}, {scale}, {scale}), mode='trilinear'{extra}", X3))
    for args, x in forms:
        out.append(Case(f"ops.interpolate(x{x.shape}, {args})", FAMILY,
                        f"ops.interpolate({{x0}}, {args})", (x,), rtol=1e-4, atol=1e-4))
    return out


def _cells() -> list[Case]:
    out = []
    setups = (
        ("nn.Upsample(size=(7, 9), mode='nearest')", X2),
        ("nn.Upsample(scale_factor=(2.0, 2.0), mode='nearest')", X2),
        ("nn.Upsample(scale_factor=(2.0, 2.0), mode='bilinear', align_corners=True)", X2),
        ("nn.Upsample(size=(3, 8), mode='bilinear')", X2),
        ("nn.Upsample(size=(6,), mode='linear')", X1),
        ("nn.Upsample(size=(6, 6), mode='bicubic')", X2),
        ("nn.PixelShuffle(2)", In((1, 8, 3, 2))), ("nn.PixelUnshuffle(2)", In((1, 2, 4, 6))),
    )
    for setup, x in setups:
        out.append(Case(f"{setup}{x.shape}", FAMILY, "{c}({x0})", (x,), setup=setup,
                        atol=1e-4))
    prims = (
        ("P.ResizeBilinearV2(False, False)", "({x0}, (7, 9))"),
        ("P.ResizeBilinearV2(True, False)", "({x0}, (7, 9))"),
        ("P.ResizeBilinearV2(False, True)", "({x0}, (3, 8))"),
        ("P.ResizeNearestNeighbor((7, 9))", "({x0})"),
        ("P.ResizeNearestNeighbor((3, 2), True)", "({x0})"),
        ("P.ResizeNearestNeighborV2(False, False)", "({x0}, Tensor([7, 9], ms.int32))"),
        ("P.ResizeNearestNeighborV2(True, False)", "({x0}, Tensor([3, 8], ms.int32))"),
        ("P.ResizeNearestNeighborV2(False, True)", "({x0}, Tensor([3, 8], ms.int32))"),
        ("P.ResizeBicubic(False, False)", "({x0}, Tensor([7, 9], ms.int32))"),
        ("P.ResizeBicubic(True, False)", "({x0}, Tensor([3, 8], ms.int32))"),
    )
    for setup, args in prims:
        out.append(Case(f"{setup}{args.replace('{x0}', 'x')}", FAMILY, "{c}" + args, (X2,),
                        setup=setup, atol=1e-4))
    for factor in (2, 3):
        out.append(Case(f"ops.pixel_shuffle(x, {factor})", FAMILY,
                        f"ops.pixel_shuffle({{x0}}, {factor})", (In((1, 2 * factor ** 2, 3, 2)),)))
        out.append(Case(f"ops.pixel_unshuffle(x, {factor})", FAMILY,
                        f"ops.pixel_unshuffle({{x0}}, {factor})", (In((1, 2, 6, 6)),)))
    grid = In((1, 4, 3, 2), kind="unit")
    for mode, pad, ac in itertools.product(("bilinear", "nearest"), ("zeros", "border",
                                                                      "reflection"),
                                           (False, True)):
        out.append(Case(f"ops.grid_sample(x, g, '{mode}', '{pad}', {ac})", FAMILY,
                        f"ops.grid_sample({{x0}}, {{x1}} * 2.4 - 1.2, '{mode}', '{pad}', {ac})",
                        (X2, grid), atol=1e-4))
    grid3 = In((1, 2, 3, 2, 3), kind="unit")
    for mode, pad, ac in (("bilinear", "zeros", False), ("bilinear", "border", True),
                          ("bilinear", "reflection", False), ("bilinear", "reflection", True),
                          ("nearest", "zeros", True), ("nearest", "reflection", False)):
        out.append(Case(f"ops.grid_sample(x3d, g, '{mode}', '{pad}', {ac})", FAMILY,
                        f"ops.grid_sample({{x0}}, {{x1}} * 2.4 - 1.2, '{mode}', '{pad}', {ac})",
                        (X3, grid3), atol=1e-4))
    for ac in (False, True):
        out.append(Case(f"ops.affine_grid(theta, (1, 2, 3, 4), {ac})", FAMILY,
                        f"ops.affine_grid({{x0}}, (1, 2, 3, 4), {ac})", (In((1, 2, 3)),)))
    return out


def cases() -> list[Case]:
    return _interpolate() + _cells()

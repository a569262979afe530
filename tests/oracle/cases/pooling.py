"""Pooling: every rank, pad mode, padding, ceil mode, count_include_pad, divisor and
dilation MindSpore 2.10 takes, on inputs with ties and odd sizes that reach the borders."""

from __future__ import annotations

import itertools

from tests.oracle.spec import FLOATS, Case, In

FAMILY = "pooling"


def _max2d() -> list[Case]:
    out = []
    for (k, s), mode, kind in itertools.product(((2, 2), (3, 2), (3, 1), ((2, 3), (1, 2))),
                                                ("valid", "same"), ("ties", "normal")):
        out.append(Case(f"nn.MaxPool2d(k={k},s={s},{mode},{kind})", FAMILY, "{c}({x0})",
                        (In((2, 3, 7, 6), kind=kind),),
                        setup=f"nn.MaxPool2d(kernel_size={k}, stride={s}, pad_mode='{mode}')"))
    for k, s, p, d, ceil in ((3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 2, 1, 1, True),
                             (3, 1, 1, 2, False), (2, 3, 0, 1, True), (3, 2, 0, 2, True)):
        out.append(Case(f"nn.MaxPool2d(k={k},s={s},pad={p},d={d},ceil={ceil})", FAMILY,
                        "{c}({x0})", (In((2, 2, 7, 8), kind="ties"),),
                        setup=f"nn.MaxPool2d(kernel_size={k}, stride={s}, pad_mode='pad', "
                              f"padding={p}, dilation={d}, ceil_mode={ceil})"))
        out.append(Case(f"ops.max_pool2d(k={k},s={s},p={p},d={d},ceil={ceil},indices)", FAMILY,
                        f"ops.max_pool2d({{x0}}, {k}, {s}, {p}, {d}, True, {ceil})",
                        (In((2, 2, 7, 8), kind="ties"),)))
    out.append(Case("nn.MaxPool2d(k=3,s=2,pad=1,return_indices)", FAMILY, "{c}({x0})",
                    (In((1, 2, 7, 7), kind="ties"),),
                    setup="nn.MaxPool2d(3, 2, pad_mode='pad', padding=1, return_indices=True)"))
    for k, s, mode in ((3, 2, "valid"), (3, 2, "same"), (2, 1, "same"), (4, 3, "same")):
        out.append(Case(f"P.MaxPool(k={k},s={s},{mode})", FAMILY, "{c}({x0})",
                        (In((2, 3, 9, 8), kind="ties"),),
                        setup=f"P.MaxPool(kernel_size={k}, strides={s}, pad_mode='{mode}')"))
    return out


def _avg2d() -> list[Case]:
    out = []
    for (k, s), mode in itertools.product(((2, 2), (3, 2), (3, 1), ((2, 3), (1, 2))),
                                          ("valid", "same")):
        out.append(Case(f"nn.AvgPool2d(k={k},s={s},{mode})", FAMILY, "{c}({x0})",
                        (In((2, 3, 7, 6)),),
                        setup=f"nn.AvgPool2d(kernel_size={k}, stride={s}, pad_mode='{mode}')"))
    for (k, s, p), ceil, inc, div in itertools.product(((3, 2, 1), (2, 2, 1), (3, 1, 1)),
                                                       (False, True), (False, True), (None, 5)):
        out.append(Case(f"nn.AvgPool2d(k={k},s={s},pad={p},ceil={ceil},inc={inc},div={div})",
                        FAMILY, "{c}({x0})", (In((2, 2, 7, 8)),),
                        setup=f"nn.AvgPool2d(kernel_size={k}, stride={s}, pad_mode='pad', "
                              f"padding={p}, ceil_mode={ceil}, count_include_pad={inc}, "
                              f"divisor_override={div})"))
    for k, s, p, ceil, inc in ((3, 2, 1, True, False), (2, 2, 0, False, True),
                               (3, 2, (1, 0, 0, 1), False, True), (3, 2, 1, False, False)):
        out.append(Case(f"ops.avg_pool2d(k={k},s={s},p={p},ceil={ceil},inc={inc})", FAMILY,
                        f"ops.avg_pool2d({{x0}}, {k}, {s}, {p}, {ceil}, {inc})",
                        (In((2, 2, 7, 8)),)))
    for k, s, mode in ((3, 2, "valid"), (3, 2, "same"), (2, 1, "same"), (4, 3, "same")):
        out.append(Case(f"P.AvgPool(k={k},s={s},{mode})", FAMILY, "{c}({x0})",
                        (In((2, 3, 9, 8)),),
                        setup=f"P.AvgPool(kernel_size={k}, strides={s}, pad_mode='{mode}')"))
    return out


def _one_d() -> list[Case]:
    out = []
    for k, s, mode in ((3, 2, "valid"), (3, 2, "same"), (2, 1, "same"), (4, 3, "valid")):
        out.append(Case(f"nn.MaxPool1d(k={k},s={s},{mode})", FAMILY, "{c}({x0})",
                        (In((2, 3, 11), kind="ties"),),
                        setup=f"nn.MaxPool1d(kernel_size={k}, stride={s}, pad_mode='{mode}')"))
        out.append(Case(f"nn.AvgPool1d(k={k},s={s},{mode})", FAMILY, "{c}({x0})",
                        (In((2, 3, 11)),),
                        setup=f"nn.AvgPool1d(kernel_size={k}, stride={s}, pad_mode='{mode}')"))
    for k, s, p, ceil, inc in ((3, 2, 1, False, True), (3, 2, 1, True, False),
                               (2, 2, 1, True, True), (4, 3, 2, False, False)):
        out.append(Case(f"nn.AvgPool1d(k={k},s={s},pad={p},ceil={ceil},inc={inc})", FAMILY,
                        "{c}({x0})", (In((2, 3, 11)),),
                        setup=f"nn.AvgPool1d(kernel_size={k}, stride={s}, pad_mode='pad', "
                              f"padding={p}, ceil_mode={ceil}, count_include_pad={inc})"))
        out.append(Case(f"ops.avg_pool1d(k={k},s={s},p={p},ceil={ceil},inc={inc})", FAMILY,
                        f"ops.avg_pool1d({{x0}}, {k}, {s}, {p}, {ceil}, {inc})",
                        (In((2, 3, 11)),)))
        out.append(Case(f"nn.MaxPool1d(k={k},s={s},pad={p},ceil={ceil})", FAMILY, "{c}({x0})",
                        (In((2, 3, 11), kind="ties"),),
                        setup=f"nn.MaxPool1d(kernel_size={k}, stride={s}, pad_mode='pad', "
                              f"padding={p}, ceil_mode={ceil})"))
    out.append(Case("nn.MaxPool1d(k=3,s=2,return_indices)", FAMILY, "{c}({x0})",
                    (In((2, 3, 11), kind="ties"),),
                    setup="nn.MaxPool1d(3, 2, pad_mode='pad', padding=1, return_indices=True)"))
    return out


def _three_d() -> list[Case]:
    out = []
    for (k, s), mode in itertools.product(((2, 2), (3, 2), (3, 1)), ("valid", "same")):
        out.append(Case(f"P.MaxPool3D(k={k},s={s},{mode})", FAMILY, "{c}({x0})",
                        (In((1, 2, 5, 6, 7), kind="ties"),),
                        setup=f"P.MaxPool3D(kernel_size={k}, strides={s}, pad_mode='{mode}')"))
        for inc in (False, True):
            out.append(Case(f"P.AvgPool3D(k={k},s={s},{mode},inc={inc})", FAMILY, "{c}({x0})",
                            (In((1, 2, 5, 6, 7)),),
                            setup=f"P.AvgPool3D(kernel_size={k}, strides={s}, "
                                  f"pad_mode='{mode}', count_include_pad={inc})"))
    for pads, ceil in (((1, 1, 1, 1, 1, 1), False), ((1, 0, 0, 1, 1, 0), False),
                       ((1, 1, 1, 1, 1, 1), True)):
        out.append(Case(f"P.MaxPool3D(k=3,s=2,pads={pads},ceil={ceil})", FAMILY, "{c}({x0})",
                        (In((1, 2, 5, 6, 7), kind="ties"),),
                        setup=f"P.MaxPool3D(kernel_size=3, strides=2, pad_mode='pad', "
                              f"pad_list={pads}, ceil_mode={ceil})"))
        for inc, div in ((False, 0), (True, 0), (True, 7)):
            out.append(Case(f"P.AvgPool3D(k=3,s=2,pads={pads},ceil={ceil},inc={inc},div={div})",
                            FAMILY, "{c}({x0})", (In((1, 2, 5, 6, 7)),),
                            setup=f"P.AvgPool3D(kernel_size=3, strides=2, pad_mode='pad', "
                                  f"pad={pads}, ceil_mode={ceil}, count_include_pad={inc}, "
                                  f"divisor_override={div})"))
    for k, s, p, ceil, inc in ((3, 2, 1, False, True), (3, 2, 1, True, False),
                               (2, 2, 0, False, True)):
        out.append(Case(f"nn.AvgPool3d(k={k},s={s},p={p},ceil={ceil},inc={inc})", FAMILY,
                        "{c}({x0})", (In((1, 2, 5, 6, 7)),),
                        setup=f"nn.AvgPool3d({k}, {s}, 'pad', {p}, {ceil}, {inc})"))
        out.append(Case(f"ops.avg_pool3d(k={k},s={s},p={p},ceil={ceil},inc={inc})", FAMILY,
                        f"ops.avg_pool3d({{x0}}, {k}, {s}, {p}, {ceil}, {inc})",
                        (In((1, 2, 5, 6, 7)),)))
        out.append(Case(f"nn.MaxPool3d(k={k},s={s},p={p},ceil={ceil})", FAMILY, "{c}({x0})",
                        (In((1, 2, 5, 6, 7), kind="ties"),),
                        setup=f"nn.MaxPool3d({k}, {s}, 'pad', {p}, ceil_mode={ceil})"))
    return out


def _adaptive() -> list[Case]:
    out = []
    for size in (1, 2, 3, 4):
        out.append(Case(f"nn.AdaptiveAvgPool1d({size})", FAMILY, "{c}({x0})", (In((2, 3, 8)),),
                        setup=f"nn.AdaptiveAvgPool1d({size})"))
        out.append(Case(f"nn.AdaptiveMaxPool1d({size})", FAMILY, "{c}({x0})",
                        (In((2, 3, 8), kind="ties"),), setup=f"nn.AdaptiveMaxPool1d({size})"))
    for size in ((1, 1), (2, 2), (3, 2), (4, 4), (2, None)):
        out.append(Case(f"nn.AdaptiveAvgPool2d({size})", FAMILY, "{c}({x0})",
                        (In((2, 3, 6, 8)),), setup=f"nn.AdaptiveAvgPool2d({size})"))
        out.append(Case(f"nn.AdaptiveMaxPool2d({size})", FAMILY, "{c}({x0})",
                        (In((2, 3, 6, 8), kind="ties"),), setup=f"nn.AdaptiveMaxPool2d({size})"))
        out.append(Case(f"ops.adaptive_avg_pool2d({size})", FAMILY,
                        f"ops.adaptive_avg_pool2d({{x0}}, {size})", (In((2, 3, 6, 8)),)))
    out.append(Case("nn.AdaptiveMaxPool2d((2,2),return_indices)", FAMILY, "{c}({x0})",
                    (In((2, 3, 6, 8), kind="ties"),),
                    setup="nn.AdaptiveMaxPool2d((2, 2), return_indices=True)"))
    out.append(Case("P.AdaptiveMaxPool2D((2,2))", FAMILY, "{c}({x0})",
                    (In((2, 3, 6, 8), kind="ties"),), setup="P.AdaptiveMaxPool2D((2, 2))"))
    out.append(Case("ops.adaptive_max_pool2d((3,2),indices)", FAMILY,
                    "ops.adaptive_max_pool2d({x0}, (3, 2), True)",
                    (In((2, 3, 6, 8), kind="ties"),)))
    for size in ((1, 1, 1), (2, 3, 2), (5, 3, 3)):
        out.append(Case(f"nn.AdaptiveAvgPool3d({size})", FAMILY, "{c}({x0})",
                        (In((1, 2, 5, 6, 6)),), setup=f"nn.AdaptiveAvgPool3d({size})"))
        out.append(Case(f"nn.AdaptiveMaxPool3d({size})", FAMILY, "{c}({x0})",
                        (In((1, 2, 5, 6, 6), kind="ties"),),
                        setup=f"nn.AdaptiveMaxPool3d({size})"))
    return out


def _over_padding() -> list[Case]:
    """Windows with no tap inside the input: a dilation that steps over the whole input
    (width 1, padding 1, dilation 2: taps -1 and 1), or MaxPool3D's pad_list as wide as
    the kernel on one side. MindSpore's scans start at the dtype's lowest value
    (ops.max_pool2d: MaxPoolWithArgmaxV2, where a NaN never wins), float32's (MaxPool3D)
    or -inf (nn.MaxPool1d/2d/3d: MaxPool3DWithArgmax), and such a window's index is its
    first tap at or after 0. A padding wider than half the kernel raises, whatever the
    dilation (or, in MaxPool3D's pad_list, a pair summing to more than the kernel)."""
    out = []
    for dt in FLOATS:
        out += [Case(f"ops.max_pool2d(k=2,s=3,p=1,d=2,indices,over padding,{dt})", FAMILY,
                     "ops.max_pool2d({x0}, 2, 3, 1, 2, True, False)", (In((1, 1, 4, 1), dt),)),
                Case(f"ops.max_pool2d(k=2,s=1,p=1,d=3,ceil,over padding,{dt})", FAMILY,
                     "ops.max_pool2d({x0}, 2, 1, 1, 3, False, True)", (In((2, 2, 5, 2), dt),)),
                Case(f"P.MaxPoolWithArgmaxV2(k=(1,2),p=(0,1),d=(1,3),over padding,{dt})",
                     FAMILY, "{c}({x0})", (In((2, 2, 3, 2), dt),),
                     setup="P.MaxPoolWithArgmaxV2((1, 2), 1, (0, 1), (1, 3))"),
                Case(f"P.MaxPool3D(k=(1,2,2),pads=(0,0,0,2,2,0),over padding,{dt})", FAMILY,
                     "{c}({x0})", (In((1, 2, 2, 3, 4), dt, "ties"),),
                     setup="P.MaxPool3D((1, 2, 2), 1, 'pad', (0, 0, 0, 2, 2, 0))")]
    # MindSpore's gradient goes to the element its index names, outside the window
    for setup, shape in (("nn.MaxPool2d(2, 3, 'pad', 1, 2, return_indices=True)", (1, 2, 4, 1)),
                         ("nn.MaxPool1d(2, 3, 'pad', 1, 2, return_indices=True)", (2, 3, 1)),
                         ("nn.MaxPool3d((1, 2, 2), 1, 'pad', (0, 1, 1), (1, 3, 3), True)",
                          (1, 2, 2, 3, 2))):
        out.append(Case(f"{setup},over padding", FAMILY, "{c}({x0})", (In(shape),),
                        setup=setup, grad=False))
    # NaN and -inf read as the lowest value (MindSpore's gradient reaches them, msc's not)
    for kind in ("nan", "const:-inf"):
        out.append(Case(f"ops.max_pool2d(k=3,s=2,p=1,indices,{kind})", FAMILY,
                        "ops.max_pool2d({x0}, 3, 2, 1, 1, True)", (In((2, 2, 6, 5), kind=kind),),
                        grad=False))
    for name, call, shape in (
            ("ops.max_pool2d(k=2,p=2,d=4)", "ops.max_pool2d({x0}, 2, 1, 2, 4, True)", (1, 1, 3, 2)),
            ("nn.MaxPool2d(k=2,p=2,d=4)", "nn.MaxPool2d(2, 1, 'pad', 2, 4)({x0})", (1, 1, 3, 2)),
            ("P.MaxPool3D(k=(1,1,2),pads=(0,0,0,0,2,1))",
             "P.MaxPool3D((1, 1, 2), 1, 'pad', (0, 0, 0, 0, 2, 1))({x0})", (1, 1, 3, 2, 4))):
        out.append(Case(f"{name},padding too wide", FAMILY, call, (In(shape),), grad=False))
    return out


def cases() -> list[Case]:
    return _max2d() + _avg2d() + _one_d() + _three_d() + _adaptive() + _over_padding()

"""The cases ``test_more_primitives.py`` runs in msc and in MindSpore 2.10 (a subprocess
imports this file by path): written once against a framework's ``ms``, ``ops`` and
``Tensor``, with inputs from a fixed seed."""

import numpy as np


def cases(ms, ops, Tensor):  # noqa: N803
    """(name, thunk) pairs; each thunk returns a tuple of Tensors."""
    rng = np.random.default_rng(3)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    x4, x5, img = f32(2, 3, 7, 7), f32(1, 2, 5, 6, 6), f32(2, 6, 7, 3)
    logits, target = f32(4, 3), rng.uniform(0, 1, (4, 3)).astype(np.float32)
    weight, posw = rng.uniform(0.5, 2, (4, 3)).astype(np.float32), rng.uniform(0.5, 2, (3,)).astype(np.float32)
    grid2, grid3 = rng.uniform(-1.2, 1.2, (2, 4, 5, 2)).astype(np.float32), rng.uniform(-1.2, 1.2, (1, 2, 3, 4, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.1, 0.0], [-0.2, 0.3, 0.6, 1.3]], np.float32)
    box_index = np.array([1, 0, 1], np.int32)
    rois = np.array([[0, 1.0, 1.5, 9.0, 8.0], [1, -2.0, 0.0, 4.0, 13.0], [1, 3.0, 3.0, 3.5, 3.2]], np.float32)
    T = Tensor
    out = []
    for k, s, p in ((2, 2, "valid"), (3, 2, "same"), (3, 1, "same")):
        out.append((f"MaxPoolWithArgmax-{k}-{s}-{p}", lambda k=k, s=s, p=p: ops.MaxPoolWithArgmax(k, s, p)(T(x4))))
    for i, args in enumerate(((3, 2, 1), (2, None, 0, (1, 1), True), (3, 1, 1, (2, 2)),
                              (3, 2, 1, (1, 1), True, ms.int32))):
        out.append((f"MaxPoolWithArgmaxV2-{i}", lambda a=args: ops.MaxPoolWithArgmaxV2(*a)(T(x4))))
    for args in ((2, 2, 0), (3, 2, 1, (1, 1, 1), True), (2, 1, 0, (2, 1, 2))):
        out.append((f"MaxPool3DWithArgmax-{args}", lambda a=args: ops.MaxPool3DWithArgmax(*a)(T(x5))))
    out.append(("AdaptiveMaxPool3D", lambda: ops.AdaptiveMaxPool3D()(T(x5), T(np.array([2, 3, 4], np.int32)))))
    for red in ("mean", "sum", "none"):
        out.append((f"BCEWithLogitsLoss-{red}", lambda r=red: (ops.BCEWithLogitsLoss(r)(T(logits), T(target), T(weight), T(posw)),)))
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out.append((f"GridSampler2D-{mode}-{pad}-{ac}", lambda m=mode, p=pad, a=ac: (ops.GridSampler2D(m, p, a)(T(x4[:2]), T(grid2)),)))
        out.append((f"GridSampler3D-{mode}", lambda m=mode: (ops.GridSampler3D(m, "border", False)(T(x5), T(grid3)),)))
    for method in ("bilinear", "nearest"):
        for size, ext in (((4, 5), 0.0), ((1, 3), 0.5)):
            out.append((f"CropAndResize-{method}-{size}", lambda m=method, s=size, e=ext: (ops.CropAndResize(m, e)(T(img), T(boxes), T(box_index), s),)))
    for sample, end, scale in ((2, 1, 0.5), (1, 1, 1.0), (3, 0, 0.75), (2, 0, 1.0)):
        out.append((f"ROIAlign-{sample}-{end}-{scale}", lambda s=sample, e=end, c=scale: (ops.ROIAlign(3, 2, c, s, e)(T(x4), T(rois)),)))
    for size, ac in (((3, 4), False), ((10, 5), False), ((3, 4), True), ((11, 2), True)):
        out.append((f"ResizeArea-{size}-{ac}", lambda s=size, a=ac: (ops.ResizeArea(a)(T(img), T(np.array(s, np.int32))),)))
    xs = np.array([0.01, 0.4, 1.0, 2.7, 7.5, 19.0, 26.0, 55.0], np.float32)
    out.append(("BesselY0", lambda: (ops.bessel_y0(T(xs)), ops.BesselY0()(T(xs.astype(np.float64))))))
    out.append(("BesselY1", lambda: (ops.bessel_y1(T(xs)), ops.BesselY1()(T(xs.astype(np.float64))))))
    a, b, x = (rng.uniform(0.2, 6, 6), rng.uniform(0.2, 6, 6), rng.uniform(0, 1, 6))
    out.append(("Betainc", lambda: (ops.Betainc()(T(a), T(b), T(x)), ops.Betainc()(T(a.astype(np.float32)), T(b.astype(np.float32)), T(x.astype(np.float32))))))
    ints = np.array([0, 1, -1, 300, -300, 12345], np.int16)
    out.append(("PopulationCount", lambda: (ops.population_count(T(ints)), ops.population_count(T(ints.astype(np.int64))), ops.population_count(T(ints.astype(np.int8))))))
    m = f32(3, 4)
    out.append(("mirror_pad", lambda: (ops.mirror_pad(T(m), T(np.array([[1, 2], [3, 0]])), "REFLECT"), ops.mirror_pad(T(m), T(np.array([[2, 1], [0, 3]])), "SYMMETRIC"))))
    return out

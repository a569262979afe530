"""Bounding-box ops of detection models: ``ops.iou``, ``ops.check_valid``,
``ops.bounding_box_encode`` and ``ops.bounding_box_decode``, with MindSpore's pixel
convention (a box [x1, y1, x2, y2] spans x2 - x1 + 1 pixels), composed of elementwise ops
so they run eagerly and in graphs on every target.
"""

from __future__ import annotations

import math
from typing import Any

from msc.common.tensor import Tensor
from msc.ir import dtypes
from msc.ops import functional as F
from msc.ops.function.arguments import _as_tensor
from msc.ops.function.manipulation_func import _fail


def _boxes(x: Any, op: str) -> Tensor:
    t = _as_tensor(x, op)
    if t.ndim != 2 or t.shape[1] not in (4, 5):
        _fail(op, f"the boxes must have shape (N, 4), but got {t.shape}.")
    return t


def _corners(b: Tensor) -> tuple[Any, Any, Any, Any]:
    return b[:, 0], b[:, 1], b[:, 2], b[:, 3]


def iou(anchor_boxes: Any, gt_boxes: Any, mode: str = "iou") -> Any:
    """(M, N) overlaps of the N anchors with the M ground-truth boxes: intersection over
    union ('iou') or over the ground truth's area ('iof')."""
    if mode not in ("iou", "iof"):
        _fail("IOU", f"'mode' must be 'iou' or 'iof', but got {mode!r}.")
    a, g = _boxes(anchor_boxes, "IOU"), _boxes(gt_boxes, "IOU")
    ax1, ay1, ax2, ay2 = (F.reshape(v, (1, -1)) for v in _corners(a))
    gx1, gy1, gx2, gy2 = (F.reshape(v, (-1, 1)) for v in _corners(g))
    w = F.clamp(F.minimum(ax2, gx2) - F.maximum(ax1, gx1) + 1.0, 0.0, None)
    h = F.clamp(F.minimum(ay2, gy2) - F.maximum(ay1, gy1) + 1.0, 0.0, None)
    inter = w * h
    g_area = (gx2 - gx1 + 1.0) * (gy2 - gy1 + 1.0)
    if mode == "iof":
        return inter / g_area
    return inter / ((ax2 - ax1 + 1.0) * (ay2 - ay1 + 1.0) + g_area - inter)


def check_valid(bboxes: Any, img_metas: Any) -> Any:
    """Whether each box lies inside the image (``img_metas``: height, width, ratio):
    x1, y1 >= 0, x2 <= width * ratio - 1, y2 <= height * ratio - 1."""
    b, m = _boxes(bboxes, "CheckValid"), _as_tensor(img_metas, "CheckValid")
    x1, y1, x2, y2 = _corners(b)
    height, width = m[0] * m[2] - 1.0, m[1] * m[2] - 1.0
    ok = F.logical_and(x1 >= 0, y1 >= 0)
    return F.logical_and(ok, F.logical_and(x2 <= width, y2 <= height))


def _centre(b: Tensor) -> tuple[Any, Any, Any, Any]:
    x1, y1, x2, y2 = _corners(b)
    w, h = x2 - x1 + 1.0, y2 - y1 + 1.0
    return x1 + 0.5 * (w - 1.0), y1 + 0.5 * (h - 1.0), w, h


def bounding_box_encode(anchor_box: Any, groundtruth_box: Any,
                        means: Any = (0.0, 0.0, 0.0, 0.0),
                        stds: Any = (1.0, 1.0, 1.0, 1.0)) -> Any:
    """The deltas (dx, dy, dw, dh) that move each anchor onto its ground-truth box,
    normalised by ``means`` and ``stds``."""
    a, g = _boxes(anchor_box, "BoundingBoxEncode"), _boxes(groundtruth_box, "BoundingBoxEncode")
    px, py, pw, ph = _centre(a)
    gx, gy, gw, gh = _centre(g)
    deltas = F.stack([(gx - px) / pw, (gy - py) / ph, F.log(gw / pw), F.log(gh / ph)], 1)
    return (deltas - Tensor(list(means), a.dtype)) / Tensor(list(stds), a.dtype)


def bounding_box_decode(anchor_box: Any, deltas: Any, max_shape: Any,
                        means: Any = (0.0, 0.0, 0.0, 0.0), stds: Any = (1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip: float = 0.016) -> Any:
    """The boxes the ``deltas`` give from each anchor (the inverse of ``encode``), their
    log size ratios clipped to |log(wh_ratio_clip)|, the corners clipped to the image
    (``max_shape``: height, width)."""
    a = _boxes(anchor_box, "BoundingBoxDecode")
    d = _as_tensor(deltas, "BoundingBoxDecode")
    d = d * Tensor(list(stds), d.dtype) + Tensor(list(means), d.dtype)
    limit = abs(math.log(wh_ratio_clip))
    x1, y1, x2, y2 = _corners(a)
    px, py = (x1 + x2) * 0.5, (y1 + y2) * 0.5
    pw, ph = x2 - x1 + 1.0, y2 - y1 + 1.0
    gw = pw * F.exp(F.clamp(d[:, 2], -limit, limit))
    gh = ph * F.exp(F.clamp(d[:, 3], -limit, limit))
    gx, gy = px + pw * d[:, 0], py + ph * d[:, 1]
    height, width = float(max_shape[0]), float(max_shape[1])
    out = [F.clamp(gx - gw * 0.5 + 0.5, 0.0, width), F.clamp(gy - gh * 0.5 + 0.5, 0.0, height),
           F.clamp(gx + gw * 0.5 - 0.5, 0.0, width), F.clamp(gy + gh * 0.5 - 0.5, 0.0, height)]
    return F.cast(F.stack(out, 1), a.dtype) if a.dtype != dtypes.float32 else F.stack(out, 1)


__all__ = ["iou", "check_valid", "bounding_box_encode", "bounding_box_decode"]

"""``ops.clip_by_norm`` and ``ops.clip_by_global_norm`` (``mindspore.ops.function.clip_func``).

Norm clipping is composed from reductions and elementwise ops; the "clip only when the
norm is too large" test becomes a multiplication by ``min(coefficient, 1)``, so graphs
have no branch and the unclipped case returns the input's values exactly.
"""

from __future__ import annotations

from typing import Any

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ops import functional as F


def _total_norm(tensors: tuple[Any, ...], norm_type: float) -> Any:
    """MindSpore's total norm: the norm of the per-tensor norms, each (sum x^p)^(1/p)
    computed as written there (no absolute value: an odd ``norm_type`` sums signed
    powers), or the largest magnitude for ``inf``."""
    if norm_type == float("inf"):
        return F.amax(F.stack([F.amax(F.abs(t)) for t in tensors]))

    def norm(t: Any) -> Any:
        return F.cast(F.pow(F.sum(F.pow(t, norm_type)), 1.0 / norm_type), t.dtype)
    return norm(F.stack([norm(t) for t in tensors]))


def clip_by_norm(x: Any, max_norm: Any, norm_type: Any = 2.0,
                 error_if_nonfinite: bool = False) -> Any:
    """Scale a tensor, or every tensor of a list/tuple, by ``max_norm / (total norm +
    1e-6)`` when that is below 1."""
    single = isinstance(x, Tensor)
    tensors = (x,) if single else tuple(x)
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise GraphTypeError("For 'clip_by_norm', 'x' must be a Tensor or a list or tuple "
                             "of Tensors.", user_loc())
    if error_if_nonfinite:
        raise GraphValueError("For 'clip_by_norm', error_if_nonfinite=True needs the norm's "
                              "value while tracing; msc supports only False.", user_loc())
    total = _total_norm(tensors, float(norm_type))
    coef = F.minimum(max_norm / (total + 1e-6), 1.0)
    out = [F.cast(t * coef, t.dtype) for t in tensors]
    return out[0] if single else type(x)(out)


def clip_by_global_norm(x: Any, clip_norm: Any = 1.0, use_norm: Any = None) -> Any:
    """Scale every tensor by ``clip_norm / max(global norm, clip_norm)``, the global norm
    being the L2 norm of all the tensors together (computed in float32)."""
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float)) or \
            clip_norm <= 0:
        raise GraphValueError(f"For 'clip_by_global_norm', the argument 'clip_norm' must > "
                              f"0.0, but got {clip_norm}.", user_loc())
    if use_norm is not None:
        raise GraphValueError(f"For '_ClipByGlobalNorm', input 'use_norm' only supports "
                              f"None currently, but got 'use_norm': {use_norm}", user_loc())
    single = isinstance(x, Tensor)
    tensors = (x,) if single else tuple(x)
    square_sum = sum(F.sum(F.square(F.cast(t, dtypes.float32))) for t in tensors)
    global_norm = F.maximum(F.sqrt(square_sum), float(clip_norm))
    out = [F.cast(F.cast(t, dtypes.float32) * float(clip_norm) / global_norm, t.dtype)
           for t in tensors]
    return out[0] if single else tuple(out)


__all__ = ["clip_by_norm", "clip_by_global_norm"]

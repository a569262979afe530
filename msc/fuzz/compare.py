"""Whether a way of running agrees with eager mode, and if not, how (a ``Problem``).

Agreement: the same nested structure, the same dtype and shape for every tensor, values
equal (integers and bools exactly; floats to their dtype's tolerance, NaN equal to NaN;
float16 exactly unless the program reduced or multiplied matrices in float16; to
``GRAD_TOLERANCE`` where it took gradients, eager's being finite differences), the same
Parameter values after the call; or, when eager mode raised, an exception of the same
built-in kind, or any exception the program raises while its graph is built (a ``raise``
that graph building reaches unconditionally happens at compile time, before the run-time
checks that raised first in eager mode, as in MindSpore's graph mode). A program msc
refuses with its own clear error is not a disagreement (the campaign counts those apart);
an ``InternalCompilerError`` always is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from msc.fuzz.grads import GRAD_TOLERANCE
from msc.fuzz.run import Leaf, Outcome

#: (rtol, atol) per float dtype. Numba computes float32 transcendentals in float64 and
#: sums in another order than numpy: a few ulps apart.
TOLERANCE = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "float16": (0.0, 0.0)}
#: float16 after a float16 reduction, matmul or softmax: rounded once, not per step.
HALF_APPROX = (2e-3, 2e-3)


@dataclass(frozen=True)
class Problem:
    """A disagreement: ``kind`` names its class (what the shrinker keeps), ``detail`` says
    what differs."""

    kind: str  # internal, values, dtype, shape, structure, parameters, raised, returned, kind
    detail: str
    exception: str = ""  # the exception kind involved, if any

    @property
    def signature(self) -> tuple[str, str]:
        return (self.kind, self.exception)

    def __str__(self) -> str:
        return self.detail


def disagreement(eager: Outcome, other: Outcome, approx_half: bool = False,
                 approx_grad: bool = False, approx_wide: bool = False) -> Problem | None:
    """How ``other`` differs from ``eager``, or None when it agrees (or was refused);
    ``approx_grad``: eager's gradients were finite differences (``grads.py``);
    ``approx_wide``: float32 values were widened to float64 (their ulps come along)."""
    if other.kind == "internal":
        return Problem("internal", other.error, "InternalCompilerError")
    if other.kind in ("rejected", "timeout", "invalid") or eager.kind not in ("ok", "raised"):
        return None
    if eager.kind == "raised" and other.kind == "raised":
        if eager.exception == other.exception or other.phase == "compile":
            return None
        return Problem("kind", f"raised {other.error!r} ({other.phase}), eager raised "
                       f"{eager.error!r}", other.exception)
    if eager.kind == "raised":
        return Problem("returned", f"returned a value where eager raised {eager.error!r}",
                       eager.exception)
    if other.kind == "raised":
        return Problem("raised", f"raised {other.error!r} at {other.phase} time where eager "
                       "returned a value", other.exception)
    found = compare(other.value, eager.value, "output", approx_half, approx_grad, approx_wide)
    if found is None and other.params is not None and eager.params is not None:
        want = eager.params
        if other.some_params:  # an artifact keeps the weights its code uses
            want = {k: v for k, v in want.items() if k in other.params}
        found = compare_params(other.params, want, approx_half, approx_grad, approx_wide)
    return found


def compare_params(got: dict[str, np.ndarray], want: dict[str, np.ndarray],
                   approx_half: bool, approx_grad: bool = False,
                   approx_wide: bool = False) -> Problem | None:
    for name in sorted(set(got) | set(want)):
        if name not in got or name not in want:
            return Problem("parameters", f"Parameter {name!r} is missing on one side "
                           f"({sorted(got)} vs eager's {sorted(want)})")
        found = compare(Leaf(got[name]), Leaf(want[name]), f"Parameter {name}", approx_half,
                        approx_grad, approx_wide)
        if found is not None:
            return Problem("parameters", found.detail)
    return None


def compare(got: Any, want: Any, where: str, approx_half: bool = False,
            approx_grad: bool = False, approx_wide: bool = False) -> Problem | None:
    """The first difference between two nested results (tuples of ``Leaf``)."""
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or len(got) != len(want):
            return Problem("structure", f"{where}: {_shape_of(got)} where eager gave "
                           f"{_shape_of(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            found = compare(g, w, f"{where}[{i}]", approx_half, approx_grad, approx_wide)
            if found:
                return found
        return None
    if not isinstance(got, Leaf):
        return Problem("structure", f"{where}: {_shape_of(got)} where eager gave a value")
    g, w = got.array, want.array
    if got.tensor and want.tensor and g.dtype != w.dtype:
        return Problem("dtype", f"{where}: dtype {g.dtype} where eager gave {w.dtype}")
    if g.shape != w.shape:
        return Problem("shape", f"{where}: shape {g.shape} where eager gave {w.shape}")
    if not same_values(g, w, approx_half, approx_grad, approx_wide):
        return Problem("values", f"{where}: {_show(g)} where eager gave {_show(w)}")
    return None


def same_values(g: np.ndarray, w: np.ndarray, approx_half: bool = False,
                approx_grad: bool = False, approx_wide: bool = False) -> bool:
    if w.dtype.kind == "f" or g.dtype.kind == "f":
        name = w.dtype.name if w.dtype.kind == "f" else g.dtype.name
        if name == "float64" and approx_wide:
            name = "float32"
        rtol, atol = TOLERANCE.get(name, TOLERANCE["float32"])
        if name == "float16" and approx_half:
            rtol, atol = HALF_APPROX
        if approx_grad:
            rtol, atol = max(rtol, GRAD_TOLERANCE[0]), max(atol, GRAD_TOLERANCE[1])
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        if rtol == atol == 0.0:
            return bool(np.array_equal(g64, w64, equal_nan=True))
        return bool(np.allclose(g64, w64, rtol=rtol, atol=atol, equal_nan=True))
    if approx_grad and w.dtype.kind in "iu" and g.dtype.kind in "iu":
        # an integer cast of a finite-difference value lands a unit off at a boundary
        return bool(np.all(np.abs(g.astype(np.int64) - w.astype(np.int64)) <= 1))
    return bool(np.array_equal(g, w))


def _show(a: np.ndarray) -> str:
    flat = a.ravel()
    text = np.array2string(flat[:8], precision=8, separator=", ")
    return text[:-1] + ", ...]" if flat.size > 8 else text


def _shape_of(v: Any) -> str:
    if isinstance(v, tuple):
        return f"a tuple of {len(v)}"
    return "a value" if isinstance(v, Leaf) else type(v).__name__

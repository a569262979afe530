"""The code generators, one object each: everything that differs between targets.

The lowerer asks its target (``target.fuses``, ``target.prologue``, ...) and reads each
op's lowering for ``target.name`` from the primitive table; it never compares target
names. A new target (cuda) is one more object here, a lowering per op, and a template.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from msc.errors import InternalCompilerError


class Float16(Enum):
    """How a target's kernels hold and compute float16 tensors."""

    NATIVE = "native"  # numpy float16 arrays: numpy computes each op in float32 and rounds
    #: uint16 arrays of the bit patterns (Numba has no float16): kernels compute in float32
    #: and round as numpy does, see ``half.py``
    BITS = "bits"


@dataclass(frozen=True)
class Target:
    """``runtime``: the file of ``msc/runtime`` its helpers are copied from.
    ``numba``: Numba compiles its kernels (``msc compile`` compiles them ahead, the cache
    key names Numba's version and CPU, the matmul helpers depend on numpy's BLAS).
    ``fuses``: runs of elementwise nodes over one shape become one loop nest.
    ``float16``: how its kernels hold float16 tensors (``Float16``).
    ``splits``: an entry that calls shared graphs becomes plain Python around kernels
    (see ``split.py``), because the target's compile time grows with function size.
    ``prologue``: a statement each kernel body runs inside (its lines are indented).
    ``vector_math``: fused loops compute float32 exp, tanh, sigmoid, erf, erfc and GeLU
    with the runtime's functions that LLVM vectorizes (``passes.VECTOR_MATH``) instead of
    libm's scalar calls.
    ``device``: a GPU target: its graphs become host drivers around device kernels, lowered
    by ``msc/codegen/cuda`` (which also reads ``fallback``, the runtime file of the ops that
    run on the host).
    ``lanes``: many identical elementwise chains may become one loop over packed operands
    (``lanes.py``), which the generated ``run`` unpacks.
    ``borrows``: the target whose op lowerings it uses instead of its own."""

    name: str
    runtime: str
    numba: bool
    fuses: bool
    float16: Float16
    splits: bool
    prologue: str | None = None
    vector_math: bool = False
    device: bool = False
    fallback: str | None = None
    lanes: bool = True
    borrows: str | None = None

    @property
    def lowering(self) -> str:
        """The key of the op records' lowerings this target uses: its own name, or the
        target whose loop nests it renders another way (native: numba's)."""
        return self.borrows or self.name


NUMBA = Target("numba", "numba_rt.py", numba=True, fuses=True, float16=Float16.BITS,
               splits=True, vector_math=True)
#: Division by zero and overflow give inf/nan silently, as in eager mode (Numba's
#: ``error_model="numpy"`` does the same).
PYTHON = Target("python", "numpy_rt.py", numba=False, fuses=False, float16=Float16.NATIVE,
                splits=False, prologue='with np.errstate(all="ignore"):')

#: Kernels through numba.cuda; ops without a device lowering run on the host as the python
#: target runs them (``msc/codegen/cuda/lower.py``), so their helpers come from numpy_rt.
CUDA = Target("cuda", "cuda_rt.py", numba=False, fuses=True, float16=Float16.NATIVE,
              splits=False, prologue='with np.errstate(all="ignore"):', device=True,
              fallback="numpy_rt.py")

TARGETS = {t.name: t for t in (NUMBA, PYTHON, CUDA)}

#: A shared library with a C ABI (``msc compile --native``, ``codegen/native``): the numba
#: target's loop nests rendered as C, one function with every shared graph inlined. Not in
#: TARGETS: it renders no Python module.
NATIVE = Target("native", "native/msc_native.c", numba=False, fuses=True,
                float16=Float16.BITS, splits=False, vector_math=True, lanes=False,
                borrows="numba")


def target_named(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise InternalCompilerError(f"unknown target '{name}'") from None

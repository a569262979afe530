"""What lowering decides and the templates render: one ``KernelSpec`` per generated
function, one ``ModuleSpec`` per generated module. Every name and expression in them is
final; templates only place them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from msc.codegen.pyrender import line_locations
from msc.ir.kernel import helpers_called


#: Runtime functions an outlined driver calls in their Python form, which spreads the work
#: over threads: a Winograd convolution's blocks (its kernel form runs on one thread).
DRIVER_FORMS = {"_rt_wino_conv": "_rt_wino_threaded"}
#: The runtime functions through which a driver spreads work over threads: a module
#: whose driver calls one runs it with numpy's BLAS on one thread (``_rt_own_threads``).
THREADED = frozenset({"_rt_threaded", "_rt_products", "_rt_copy", *DRIVER_FORMS.values()})


@dataclass(frozen=True)
class KernelSpec:
    name: str
    params: tuple[str, ...]
    lines: tuple[str, ...]  # body lines, already indented relative to the function body
    returns: str
    jit: bool = True  # False: plain Python (an entry split around its calls, see split.py)
    #: the kernel IR ``lines`` were rendered from (``msc ir --kernels`` prints it); an
    #: outlined driver and the kernels cut out of it have none
    body: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    @property
    def locations(self) -> list[Any]:
        """The user's line (a ``Loc``, or None) of each of ``lines``: what a Numba error
        in a generated line is reported at (``linemap.py``)."""
        return line_locations(self.body)

    @property
    def helpers(self) -> frozenset[str]:
        """The runtime helpers (``_rt_*``) its statements call, which its module (or its
        library file) takes from the runtime files."""
        return helpers_called(self.body)

    @property
    def uses_blas(self) -> bool:
        """Whether the kernel calls the matmul helpers, whose code depends on numpy's BLAS."""
        return any(h.startswith("_rt_matmul") for h in self.helpers)


@dataclass(frozen=True)
class ModuleSpec:
    """What a target template needs; ``constants`` travel as hidden trailing arguments.
    ``arenas``: the dtype of each weight arena ``run`` takes (a buffer and its offsets)
    after the inputs; ``slots``: each weight's arena and shape, in ``weights`` order.
    ``half_args``: the positions of ``run``'s float16 arguments, which the kernel takes as
    their bits (``half.py``)."""

    target: str
    header: str
    kernel: KernelSpec  # the entry graph's
    inputs: tuple[tuple[str, str, tuple[int, ...]], ...]
    weights: tuple[str, ...]
    constants: tuple[np.ndarray, ...] = field(compare=False)
    output: str  # a Python expression over ``_r``, the kernel's tuple of results
    callees: tuple[KernelSpec, ...] = ()  # shared graphs' kernels, callees before callers
    half_args: tuple[int, ...] = ()
    arenas: tuple[str, ...] = ()
    slots: tuple[tuple[int, tuple[int, ...]], ...] = ()
    call_args: str = "*args"  # the kernel's arguments, from ``run``'s ``args``
    run_lines: tuple[str, ...] = ()  # ``run``'s statements between the kernel and ``output``
    pooled: tuple[tuple[tuple[int, ...], str], ...] = ()  # shape, dtype of ``_buffer(k)``
    #: kernels in the kernel library (``library.py``): (kernel name, file stem), and the
    #: files' sources (stem, source; the runtime helpers' first) the module writes if missing
    library: tuple[tuple[str, str], ...] = ()
    library_files: tuple[tuple[str, str], ...] = ()
    #: where the library is: None for an artifact's own ``kernels/`` folder
    library_dir: str | None = None
    #: the calls of library kernels foreseen (``library.signatures``): name, stem, arguments
    signatures: tuple[tuple[str, str, tuple[tuple[Any, ...], ...]], ...] = ()
    #: whether ``signatures`` covers every call the driver makes, each of a library kernel
    foresees_all: bool = False
    #: the user's lines of each library file's lines (stem, ((line, file name, user line),
    #: ...)), for Numba's errors in them (``linemap.py``)
    library_lines: tuple[tuple[str, tuple[tuple[int, str, int], ...]], ...] = ()

    @property
    def uses_blas(self) -> bool:
        return any(k.uses_blas for k in (*self.callees, self.kernel))

    @property
    def owns_threads(self) -> bool:
        """Whether the entry is a driver spreading work over msc's threads (``THREADED``)."""
        return not self.kernel.jit and bool(self.kernel.helpers & THREADED)

    @property
    def driver_forms(self) -> list[str]:
        """The threaded runtime functions (``THREADED``) the entry calls, which the module
        takes from the library's runtime file (where the kernels' helpers are compiled,
        once per machine) rather than from its own copy."""
        return sorted(self.kernel.helpers & THREADED)

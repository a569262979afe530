"""PTX of every kernel a cuda-target module launches, made without a GPU: numba.cuda's
``compile_ptx`` on each kernel's Python function and signature (libNVVM only), then
``ptxas`` where the CUDA toolkit has it. Tests and benchmarks use this to check that the
kernels compile for a real device, which the simulator does not show.

Must run in a process where Numba's CUDA simulator is off (the simulator has no
``compile_ptx``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from types import ModuleType
from typing import Any

#: The runtime kernels' signatures (per float dtype): how the driver helpers launch them.
#: (Arrays as their ndim; every array the drivers pass is C-contiguous.)
_RUNTIME = {
    "_rt_cuda_reduce_kernel": (3, 2, "int64", "float64"),
    "_rt_cuda_softmax_kernel": (3, 3, "boolean"),
    "_rt_cuda_layer_norm_kernel": (2, 1, 1, 2, "float64"),
}
_MATMUL = (3, 3, 1, 3, "boolean", "boolean", "boolean")


def _array(name: str, ndim: int) -> Any:
    from numba import types

    return types.Array(getattr(types, "boolean" if name == "bool" else name), ndim, "C")


def _signature(dtype: str, sig: tuple[Any, ...]) -> tuple[Any, ...]:
    from numba import types

    return tuple(_array(dtype, a) if isinstance(a, int) else getattr(types, a) for a in sig)


def kernels(module: ModuleType, spec: Any) -> list[tuple[str, Any, tuple[Any, ...]]]:
    """(name, Python function, argument types) of each kernel ``module`` (rendered from
    ``spec``) may launch: its generated kernels and the runtime kernels it carries."""
    out = []
    for k in spec.device_kernels:
        fn = getattr(module, k.name).py_func
        out.append((k.name, fn, tuple(_array(d, n) for d, n in k.arrays)))
    for dtype in ("float32", "float64"):
        for name, sig in _RUNTIME.items():
            if hasattr(module, name):
                out.append((f"{name}[{dtype}]", getattr(module, name).py_func,
                            _signature(dtype, sig)))
        for np_dtype, kernel in getattr(module, "_rt_cuda_matmul_kernels", {}).items():
            if np_dtype.name == dtype:
                out.append((f"_rt_cuda_matmul[{dtype}]", kernel.py_func,
                            _signature(dtype, _MATMUL)))
    return out


def compile_ptx(fn: Any, args: tuple[Any, ...], cc: tuple[int, int] = (8, 0)) -> str:
    from numba import cuda

    ptx, _ = cuda.compile_ptx(fn, args, cc=cc)
    return ptx  # type: ignore[no-any-return]


def assemble(ptx: str, arch: str = "sm_80") -> str | None:
    """Assemble ``ptx`` with ptxas; its error output when it fails, else None. Raises
    ``FileNotFoundError`` when ptxas is not on PATH."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        raise FileNotFoundError("ptxas is not on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w", encoding="utf-8") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, f"-arch={arch}", src, "-o", os.path.join(tmp, "k.cubin")],
                              capture_output=True, text=True)
    return proc.stderr or "ptxas failed" if proc.returncode else None

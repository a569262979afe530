"""Every kernel the cuda target generates or carries compiles to PTX for sm_80 through
libNVVM (``numba.cuda.compile_ptx``, no GPU needed) and assembles with ``ptxas``."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.codegen.cuda import ptx
from msc.codegen.render import import_file
from msc.compiler import compile_entry
from msc.common.tensor import Tensor


def _nvvm_reason() -> str | None:
    try:
        from numba import cuda, float32

        cuda.compile_ptx(lambda a: None, (float32[::1],), cc=(8, 0))
    except Exception as e:  # noqa: BLE001 - any failure means: no libNVVM here
        return f"numba.cuda cannot make PTX here ({type(e).__name__}: {e})"
    return None


pytestmark = pytest.mark.skipif(_nvvm_reason() is not None, reason=str(_nvvm_reason()))


class Model(nn.Cell):
    """One of each kernel family: a fused elementwise group with a broadcast, a Dense
    (tiled matmul), a layer norm, a softmax, a reduction and a weight write."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 8)
        self.norm = nn.LayerNorm((8,))
        self.w = ms.Parameter(Tensor(np.zeros(8, np.float32)), name="w")

    def construct(self, x):
        h = ops.gelu(self.fc(x)) * 2.0 + self.w
        ops.assign(self.w, h[0])
        return ops.softmax(self.norm(h), axis=-1), ops.reduce_max(h, 0)


def test_every_kernel_assembles(tmp_path):
    compiled = compile_entry(Model(), [Tensor(np.zeros((4, 8), np.float32))], target="cuda",
                             store=None)
    path = tmp_path / "model_cuda.py"
    path.write_text(compiled.source)
    module = import_file(str(path), "model_cuda")
    found = ptx.kernels(module, compiled.spec)
    names = [name.split("[")[0] for name, _, _ in found]
    for runtime in ("_rt_cuda_matmul", "_rt_cuda_layer_norm_kernel", "_rt_cuda_softmax_kernel",
                    "_rt_cuda_reduce_kernel"):
        assert runtime in names
    assert sum(name.startswith("_kernel") for name in names) >= 2  # elementwise, the write
    for name, fn, args in found:
        if "float64" in name:
            continue  # (the same code; float32 keeps the test short)
        text = ptx.compile_ptx(fn, args)
        assert ".entry" in text, name
        if shutil.which("ptxas"):
            assert ptx.assemble(text) is None, name

"""Code lowering by target: a host target's render spec comes from ``lower.py``, a device
target's (a host driver around GPU kernels) from ``cuda/lower.py``, which builds on it."""

from __future__ import annotations

from msc.codegen.lower import lower_module
from msc.codegen.spec import ModuleSpec
from msc.codegen.targets import target_named
from msc.ir.nodes import Module


def lower_for_target(module: Module, target: str, header: str) -> ModuleSpec:
    """The render spec of ``module`` for the target named ``target``, under ``header``."""
    if target_named(target).device:
        # NOTE: imported here: the CUDA lowering is a GPU compile's cost, not a host one's
        from msc.codegen.cuda.lower import lower_cuda_module
        return lower_cuda_module(module, target, header)
    return lower_module(module, target, header)

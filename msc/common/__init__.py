"""msc.common (mindspore.common): Parameter, ParameterTuple, Tensor, dtype, lazy_inline,
mutable (the function, as ``from mindspore.common import mutable`` gives it, not its module).

``import msc`` loads this package (Tensor lives here); ``dtype`` and ``lazy_inline`` load on
first use.
"""

from msc.common.mutable import mutable
from msc.common.tensor import Parameter, ParameterTuple, Tensor

__all__ = ["Parameter", "ParameterTuple", "Tensor", "dtype", "lazy_inline", "mutable"]


def __getattr__(name: str) -> object:
    """``lazy_inline`` (``common/api.py``), a sparse tensor class or a submodule (``dtype``),
    imported on first use."""
    import importlib

    if name == "lazy_inline":
        from msc.common.api import lazy_inline

        globals()[name] = lazy_inline
        return lazy_inline
    if name in ("COOTensor", "CSRTensor", "RowTensor", "SparseTensor"):
        return getattr(importlib.import_module(f"{__name__}.sparse_tensor"), name)
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")

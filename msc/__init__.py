"""msc: an ahead-of-time compiler for MindSpore-style static-graph Python models.

The top level mirrors ``mindspore``: ``import msc as ms`` then ``ms.Tensor``,
``ms.Parameter``, ``ms.jit``, ``ms.set_context(mode=ms.GRAPH_MODE)``, dtypes.

Importing msc loads only what a ``@jit`` model file needs at import time (Tensor,
Parameter, jit, context, dtypes, errors); the layers (``ms.nn``), the ops namespace
(``ms.ops``) and the rarer functions load on first use, so ``msc compile`` on a cache
hit and short scripts do not pay for them.
"""

from msc import context, dtype  # noqa: F401
from msc.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401
from msc.context import (  # noqa: F401
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from msc.dtype import (  # noqa: F401
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from msc.errors import (  # noqa: F401
    GraphAttributeError,
    GraphIndexError,
    GraphNameError,
    GraphTypeError,
    GraphValueError,
    InternalCompilerError,
    MatmulShapeError,
    MscError,
    ShapeError,
    UnsupportedSyntaxError,
)
from msc.common.tensor import Parameter, ParameterTuple, Tensor, tensor  # noqa: F401
from msc.ops import tensor_methods as _tensor_methods  # noqa: F401  (adds Tensor's methods)
from msc.frontend.jit import jit, ms_function  # noqa: F401,E402
from msc.frontend import hooks as _hooks  # noqa: E402

from msc._version import VERSION as __version__  # noqa: E402


def _compile_call(entry: object, args: tuple[object, ...]) -> object:
    """How ``jit`` functions and Cells compile (``frontend/hooks.py``): the compiler, which
    sits above them, loads on the first compile."""
    from msc.compiler import compile_call

    return compile_call(entry, args)


_hooks.install_compiler(_compile_call)


#: Submodules imported on first use (``ms.nn``, ``from msc import ops`` imports them too).
_LAZY_SUBMODULES = ("amp", "boost", "common", "communication", "dataset", "device_context",
                    "log", "nn", "numpy", "onnx", "ops", "parallel", "train")

#: Top-level names defined elsewhere, imported on first use: name -> module.
_LAZY_NAMES = {
    "set_seed": "msc.common.seed",
    "get_seed": "msc.common.seed",
    "lazy_inline": "msc.common.api",
    "mutable": "msc.common.api",
    "jit_class": "msc.common.api",
    "ms_class": "msc.common.api",
    "grad": "msc.ops.function.grad_func",
    "value_and_grad": "msc.ops.function.grad_func",
    "jvp": "msc.ops.function.grad_func",
    "vjp": "msc.ops.function.grad_func",
    "jacfwd": "msc.ops.function.grad_func",
    "jacrev": "msc.ops.function.grad_func",
    "vmap": "msc.ops.function.vmap_func",
    "load_checkpoint": "msc.train.serialization",
    "load_param_into_net": "msc.train.serialization",
    "save_checkpoint": "msc.train.serialization",
    "export": "msc.train.serialization",
    "Model": "msc.train.model",
    "Type": "msc.dtype",
    "float_": "msc.dtype",
    "int_": "msc.dtype",
    "half": "msc.dtype",
    "single": "msc.dtype",
    "double": "msc.dtype",
    "dtype_to_nptype": "msc.dtype",
    "dtype_to_pytype": "msc.dtype",
    "pytype_to_dtype": "msc.dtype",
    "build_train_network": "msc.train.amp",
    "LossScaleManager": "msc.train.loss_scale_manager",
    "FixedLossScaleManager": "msc.train.loss_scale_manager",
    "DynamicLossScaleManager": "msc.train.loss_scale_manager",
    "COOTensor": "msc.common.sparse_tensor",
    "CSRTensor": "msc.common.sparse_tensor",
    "RowTensor": "msc.common.sparse_tensor",
    "SparseTensor": "msc.common.sparse_tensor",
    "wait_for_compiles": "msc.tiering",  # msc's own: the tiered execution's background compiles
}
#: ``mindspore.train``'s names MindSpore also exports at the top (``ms.Model``).
_LAZY_NAMES.update(dict.fromkeys((
    "Model", "Callback", "CheckpointConfig", "EarlyStopping", "History", "LambdaCallback",
    "LossMonitor", "ModelCheckpoint", "ReduceLROnPlateau", "RunContext", "TimeMonitor", "Metric",
    "Accuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1",
    "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
    "get_metric_fn", "names", "rearrange_inputs", "ConfusionMatrix", "ConfusionMatrixMetric",
    "CosineSimilarity", "Dice", "HausdorffDistance", "MeanSurfaceDistance",
    "RootMeanSquareDistance", "Perplexity", "ROC", "auc", "BleuScore", "OcclusionSensitivity"),
    "msc.train"))


def __getattr__(name: str) -> object:
    """A lazy submodule or name on first use (then cached as a global, so later reads
    are plain attribute reads); a MindSpore name msc lacks raises msc's "not supported
    yet" error."""
    import importlib

    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"msc.{name}")
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value
        return value
    from msc.api_names import missing_attribute

    raise missing_attribute("msc", ("top",), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_SUBMODULES, *_LAZY_NAMES})


#: ``from msc import *`` binds what it bound when everything loaded eagerly (the lazy
#: names load then); ``numpy``, ``amp`` and ``train`` stay out, as before (``numpy``
#: would shadow the user's).
__all__ = sorted({n for n in globals() if not n.startswith("_")} | set(_LAZY_NAMES)
                 | {"common", "nn", "ops"})

"""msc: an ahead-of-time compiler for MindSpore-style static-graph Python models.

The top level mirrors ``mindspore``: ``import msc as ms`` then ``ms.Tensor``,
``ms.Parameter``, ``ms.jit``, ``ms.set_context(mode=ms.GRAPH_MODE)``, dtypes.
"""

from msc import context, dtype  # noqa: F401
from msc.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401
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
from msc.frontend.api.tensor import Parameter, ParameterTuple, Tensor, tensor  # noqa: F401
from msc import nn, ops, common  # noqa: F401,E402
from msc.frontend.api.initializer import set_seed  # noqa: F401,E402
from msc.frontend.api.lazy_inline import lazy_inline  # noqa: F401,E402
from msc.frontend.api.constants import mutable  # noqa: F401,E402
from msc.frontend.api.jit_class import jit_class, ms_class  # noqa: F401,E402
from msc.frontend.jit import jit, ms_function  # noqa: F401,E402
from msc.frontend.api.grad import grad, value_and_grad  # noqa: F401,E402
from msc.frontend.api.vmap import vmap  # noqa: F401,E402

from msc.frontend.api.checkpoint import (  # noqa: F401,E402
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)
from msc.frontend.api.initializer import get_seed  # noqa: F401,E402

from msc._version import VERSION as __version__  # noqa: E402

_LAZY_SUBMODULES = ("amp", "train", "numpy")  # imported on first use


def __getattr__(name: str) -> object:
    """``ms.amp`` / ``ms.train`` / ``ms.numpy`` on first use; a MindSpore name msc lacks
    raises msc's "not supported yet" error."""
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"msc.{name}")
    from msc.api_names import missing_attribute

    raise missing_attribute("msc", ("top",), name)

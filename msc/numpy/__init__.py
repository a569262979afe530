"""``import msc.numpy as mnp``: MindSpore's ``mindspore.numpy``, numpy-style functions over
Tensors. Each is a composition of ``msc.ops`` functions, so it runs eagerly and inside a
graph alike; Python ints and floats become int32 and float32 tensors, as there."""

import math as _math

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
from msc.numpy.array_creation import *  # noqa: F401,F403
from msc.numpy.array_creation import __all__ as _creation_all
from msc.numpy.array_ops import *  # noqa: F401,F403
from msc.numpy.array_ops import __all__ as _array_all
from msc.numpy.math_ops import *  # noqa: F401,F403
from msc.numpy.math_ops import __all__ as _math_all

float_ = float32
int_ = int32
pi = _math.pi
e = _math.e
inf = PINF = _math.inf
NINF = -_math.inf
nan = _math.nan

__all__ = [*_creation_all, *_array_all, *_math_all, "bool_", "float16", "float32", "float64",
           "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float_",
           "int_", "pi", "e", "inf", "PINF", "NINF", "nan"]

#: ``mindspore.numpy`` names msc leaves out: data-dependent shapes (``unique``), random
#: numbers, and the less common numerics.
_NOT_YET = frozenset("""
append apply_along_axis apply_over_axes argwhere around array_equal array_equiv array_str
average bartlett bincount blackman broadcast_arrays cbrt choose convolve copy corrcoef
correlate cov cross cumprod diag_indices digitize divmod ediff1d float_power gcd geomspace
gradient hamming hanning histogram histogram2d histogram_bin_edges histogramdd in1d indices
interp intersect1d isin isneginf isposinf isscalar ix_ lcm logaddexp2 matrix_power mgrid
multi_dot nancumsum nanmax nanmean nanmin nanstd nansum nanvar norm ogrid pad piecewise
polyadd polyder polyint polymul polysub polyval promote_types rand randint randn
ravel_multi_index result_type rint rollaxis round searchsorted select setdiff1d size
sometrue take_along_axis trapz tril_indices tril_indices_from triu_indices
triu_indices_from uint uint16 uint32 uint64 unique unravel_index unwrap vander
""".split())


def __getattr__(name: str) -> object:
    """A ``mindspore.numpy`` name msc lacks: msc's "not supported yet" error."""
    from msc.api_names import UnsupportedApiError

    if name in _NOT_YET:
        raise UnsupportedApiError(f"'msc.numpy.{name}' (MindSpore 2.10) is not supported by "
                                  "msc yet.")
    raise AttributeError(f"module 'msc.numpy' has no attribute '{name}'")

"""``from msc.ops import functional as F``: MindSpore's functional namespace (``F.matmul``,
``F.reshape``, ``F.shape``, ...) and the side-effect ops (``F.assign``, ``F.depend``, ...).
"""

from typing import Any

from msc.errors import GraphValueError
from msc.frontend.api.effects import assign, assign_add, assign_sub, depend, print_  # noqa: F401
from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import (
    __all__,  # noqa: F401
    select,
)
from msc.frontend.api.hypermap import partial  # noqa: E402,F401
from msc.common.tensor import Tensor


def switch(cond: Any, true_branch: Any, false_branch: Any) -> Any:
    """``F.switch``: ``true_branch`` if ``cond`` else ``false_branch``; a one-element
    tensor ``cond`` chooses at run time."""
    if not isinstance(cond, Tensor):
        return true_branch if cond else false_branch
    if cond.size != 1:
        raise GraphValueError(f"F.switch needs a one-element condition, not {cond.shape}")
    return select(cond, true_branch, false_branch)


def __getattr__(name: str) -> Any:
    """The rest of ``msc.ops``'s functions (``F.make_range``, ``F.conv2d``, ...): MindSpore's
    functional namespace has them too. Looked up on use, as ``msc.ops`` imports this module."""
    import msc.ops as ops

    value = getattr(ops, name)
    if isinstance(value, type) or name.startswith("_"):
        raise AttributeError(f"module 'msc.ops.functional' has no attribute '{name}'")
    return value

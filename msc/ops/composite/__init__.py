"""``from msc.ops import composite as C`` (``mindspore.ops.composite``): the functional ops,
``HyperMap``, ``Map``, ``MultitypeFuncGraph``, ``GradOperation`` (``base.py``) and ``vmap``."""

from typing import Any, Callable

from msc.ops.composite.base import GradOperation, HyperMap, Map, MultitypeFuncGraph
from msc.ops.function.vmap_func import vmap
from msc.ops.functional import *  # noqa: F401,F403
from msc.ops.functional import __all__ as _functional_all

__all__ = [*_functional_all, "GradOperation", "HyperMap", "Map", "MultitypeFuncGraph",
           "add_flags", "vmap"]


def add_flags(fn: Callable[..., Any] | None = None, **flags: Any) -> Any:
    """MindSpore's decorator that tags a graph function with compile flags
    (``@C.add_flags(has_effect=True)`` on a train cell's ``construct``): the flags are
    kept on the function (``_func_graph_flags``); msc orders effects without them."""

    def tag(f: Callable[..., Any]) -> Callable[..., Any]:
        f._func_graph_flags = {**getattr(f, "_func_graph_flags", {}), **flags}
        return f

    return tag if fn is None else tag(fn)

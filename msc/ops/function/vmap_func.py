"""``vmap`` (``mindspore.vmap``, ``ops.vmap``): a function mapped over a batch axis.

``vmap(fn, in_axes, out_axes)(*args)`` builds ``fn``'s graph for one example (each
batched argument without its batch axis) and batches it (``msc.ir.vmap``), so the
batch runs as whole-batch operations, never a Python loop. Inside a graph being built
the batched graph is spliced into it; called eagerly (PyNative), it is compiled like a
``@jit`` function of the same arguments. Argument errors are RuntimeErrors with
MindSpore's wording.
"""

from __future__ import annotations

from typing import Any, Callable

from msc.common import amp_scope
from msc.common.tensor import Parameter, SymTensor, Tensor
from msc.frontend.builder import GraphBuilder, _is_ref, current_builder, to_output
from msc.frontend.paths import describe_transform
from msc.ir.transform import Copier
from msc.ir.nodes import Var
from msc.ir.types import MonadType, RefType, TensorType, tensor_of
from msc.ir.vmap import VmapError, vmap_graph

__all__ = ["vmap"]


def vmap(fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0) -> _Batched:
    """``fn`` mapped over axis ``in_axes`` of its arguments: an int or None for every
    argument, or a tuple (list) with one entry per argument, nested like the
    arguments; ``out_axes`` places the batch axis in the results the same way."""
    if not callable(fn):
        raise VmapError(f"'VmapOperation' arg0 must be a 'Function' or 'Cell', but got "
                        f"{type(fn).__name__}.")
    for axes, name in ((in_axes, "in_axes"), (out_axes, "out_axes")):
        if axes is None and not isinstance(fn, _CellList()):
            raise VmapError(f"The '{name}' of 'vmap' cannot be a single None while 'fn' is "
                            f"not a 'CellList'.")
        _check_axes(axes, name)
    return _Batched(fn, in_axes, out_axes)


def _CellList() -> type:
    from msc.nn.layer.container import CellList
    return CellList


def _check_axes(axes: Any, name: str) -> None:
    if isinstance(axes, (tuple, list)):
        for a in axes:
            _check_axes(a, name)
    elif axes is not None and (not isinstance(axes, int) or isinstance(axes, bool)):
        raise VmapError(f"The axis in vmap`s '{name}' can only be of type Int or None, but "
                        f"got {axes!r}.")


class _Batched:
    """``fn`` batched as ``in_axes``/``out_axes`` say; called in a graph or eagerly."""

    def __init__(self, fn: Callable[..., Any], in_axes: Any, out_axes: Any):
        self.fn, self.in_axes, self.out_axes = fn, in_axes, out_axes
        self.__name__ = f"vmap_{getattr(fn, '__name__', type(fn).__name__)}"
        self._compiled: dict[Any, Any] = {}  # by the mixed-precision scope of the call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise VmapError(f"Got an unexpected keyword argument '{next(iter(kwargs))}'")
        builder = current_builder()
        if builder is None:  # eagerly: compiled as a @jit function of the same arguments,
            # traced under the call's mixed-precision scope as a graph being built would
            scope = amp_scope.current()
            compiled = self._compiled.get(scope)
            if compiled is None:
                from msc.frontend.jit import JitFunction, entry_function
                compiled = self._compiled[scope] = JitFunction(entry_function(self, scope))
            return compiled(*args)
        return self.build(builder, list(args))

    def cache_description(self) -> Any:
        """The axes and what is batched, as JSON for the compile cache's entry key
        (``paths.describe_callable``); None where it cannot say."""
        return describe_transform("vmap", self.fn, in_axes=self.in_axes,
                                  out_axes=self.out_axes)

    def build(self, outer: GraphBuilder, args: list[Any]) -> Any:
        from msc.frontend.calls import Calls
        from msc.frontend.deps import Deps

        if isinstance(self.in_axes, (tuple, list)) and len(self.in_axes) != len(args):
            raise VmapError(f"When vmap`s 'in_axes' is a tuple or list, and its size must be "
                            f"equal to the number of arguments of 'fn': {len(args)}, but got "
                            f"size: {len(self.in_axes)}.")
        sub = GraphBuilder(self.__name__)
        sub.calls = inner = Calls(sub, outer.calls.deps if outer.calls else Deps())
        inner.depth = outer.calls.depth if outer.calls else 0
        inner.reuse = outer.calls.reuse if outer.calls else None
        leaves = _Leaves(outer, sub)
        with sub:
            sub.loc = outer.loc
            axes = self.in_axes if isinstance(self.in_axes, (tuple, list)) else \
                (self.in_axes,) * len(args)
            inputs = [leaves.bind(a, ax) for a, ax in zip(args, axes)]
            if leaves.size is None:
                raise VmapError("vmap needs at least one argument with a batch axis, but "
                                "every 'in_axes' entry is None")
            sub.state = sub.add_input(MonadType(), "u").ssa
            output = to_output(sub, inner.call(self.fn, inputs, {}, None))
        graph = vmap_graph(sub.finish(output), leaves.dims, leaves.size, self.out_axes)
        weights = [p for p, _ in sub.weights.values()]
        operands = [outer.value(x) if ref else outer.operand(x)
                    for x, ref in zip(leaves.tensors, leaves.refs)]
        if sub.wrote:
            outer.order_loads()
        operands += [outer.state] + [outer.weight(w).ssa for w in weights]
        value, state = outer.unpack(Copier(outer.nodes).run(graph, operands))
        if sub.wrote:
            outer.advance(state.ssa)
            outer.wrote = True
        return value


class _Leaves:
    """The tensors among the arguments, each a graph input of one example's type."""

    def __init__(self, outer: GraphBuilder, sub: GraphBuilder):
        self.outer, self.sub = outer, sub
        self.tensors: list[Any] = []
        self.refs: list[bool] = []  # which of them are Parameters, passed by reference
        self.dims: list[int | None] = []
        self.size: int | None = None

    def bind(self, arg: Any, axis: Any) -> Any:
        """``arg`` as ``fn`` sees it in the graph: tensors become one-example inputs, and
        a Parameter stays one (a reference to its example's slice), so ``fn`` can write
        it (``ops.assign``, the ``Apply*`` optimizer primitives)."""
        if isinstance(arg, (tuple, list)):
            if isinstance(axis, (tuple, list)):
                if len(axis) != len(arg):
                    raise VmapError(f"The size of the 'in_axes' entry {axis!r} should be "
                                    f"equal to the size of its argument: {len(arg)}.")
                return type(arg)(self.bind(a, ax) for a, ax in zip(arg, axis))
            return type(arg)(self.bind(a, axis) for a in arg)
        if isinstance(axis, (tuple, list)):
            raise VmapError(f"The 'in_axes' entry {axis!r} is a sequence for an argument "
                            f"that is not a tuple or list.")
        if not isinstance(arg, Tensor):
            if axis is not None:
                raise VmapError(f"The argument for axis {axis} in 'in_axes' must be a "
                                f"Tensor, but got {type(arg).__name__}.")
            return arg
        ref = isinstance(arg, Parameter) or _is_ref(arg)
        t = tensor_of(self.outer.value(arg).type) if ref else self.outer.operand(arg).type
        assert isinstance(t, TensorType)
        example = t
        if axis is not None:
            if not -t.ndim <= axis < t.ndim:
                raise VmapError(f"The axis: {axis} in 'in_axes' is out of bounds for array "
                                f"of dimension [{-t.ndim},{t.ndim}).")
            axis %= t.ndim
            size = t.shape[axis]
            if self.size is not None and size != self.size:
                raise VmapError(f"The 'axis_size' of each argument in the scope of 'vmap' "
                                f"should be equal, but got {self.size} and {size}.")
            self.size = size
            example = TensorType(t.dtype, t.shape[:axis] + t.shape[axis + 1:])
        self.tensors.append(arg)
        self.refs.append(ref)
        self.dims.append(axis)
        if ref:
            var = Var(RefType(example), getattr(arg, "name", None) or f"x{len(self.tensors) - 1}")
            self.sub.inputs.append(var)
            return SymTensor(var, self.sub)
        return self.sub.add_input(example, f"x{len(self.tensors) - 1}")

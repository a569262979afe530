"""Gradients: ``ms.grad`` and ``ms.value_and_grad`` (``GradOperation``, in
``composite/base.py``, is built on the same machinery).

Each differentiates a function or Cell by building its forward graph for the argument
types at hand and transforming it (``msc.ir.grad``). Inside a graph being built the
result is spliced into it; called eagerly (PyNative), the differentiated function is
compiled like a ``@jit`` function and run, so eager gradients are compiled ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphIndexError, GraphTypeError, GraphValueError
from msc.frontend.builder import GraphBuilder, current_builder
from msc.ir.grad import grad_graph
from msc.ir.transform import Copier
from msc.ir.rewrite import result_and_state
from msc.ir.types import MonadType, TensorType, TupleType, Type, tensor_of

__all__ = ["grad", "value_and_grad"]


@dataclass(frozen=True)
class _Want:
    """What a differentiated call returns: gradients of the tensor inputs at
    ``positions`` (all of them for "all"; one bare gradient for an int; "first":
    ``GradOperation``'s first input's, ``()`` without inputs), of ``weights`` (a bare
    gradient for a single Parameter), the forward value too, and how ``has_aux``,
    ``sens`` and ``return_ids`` change the call."""

    positions: Any  # int, tuple of ints, "all", "first" or None
    weights: tuple[Parameter, ...] | None  # None: no weight gradients
    single_weight: bool = False
    value: bool = False
    aux: bool = False
    sens: bool = False
    ids: bool = False  # each gradient paired with its position or its weight's name

    def shape(self, d_inputs: tuple[Any, ...], d_weights: tuple[Any, ...],
              value: Any) -> Any:
        if self.positions == "all":
            picked: Any = d_inputs
        elif self.positions == "first":
            picked = d_inputs[0] if d_inputs else ()
        elif isinstance(self.positions, int):
            picked = self._pick(d_inputs, self.positions)
        elif self.positions is None:
            picked = None
        else:
            picked = tuple(self._pick(d_inputs, p) for p in self.positions)
        result = picked
        if self.weights is not None:
            grads = tuple((w.name, g) if self.ids else g
                          for w, g in zip(self.weights, d_weights))
            grads = grads[0] if self.single_weight else grads
            result = grads if picked is None else (picked, grads)
        if self.value:  # (with has_aux, the value holds the aux outputs already)
            return value, result
        if self.aux:
            return result, tuple(value[1:])
        return result

    def _pick(self, grads: tuple[Any, ...], position: int) -> Any:
        if position >= len(grads):
            raise GraphIndexError(f"Position index {position} is exceed input size.")
        return (position, grads[position]) if self.ids else grads[position]


class _Differentiated:
    """``fn`` differentiated as ``want`` says; called in a graph or eagerly."""

    def __init__(self, fn: Callable[..., Any], want: _Want):
        self.fn, self.want = fn, want
        self.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
        self._compiled: Any = None

    def __call__(self, *args: Any) -> Any:
        builder = current_builder()
        if builder is None:  # eagerly: compiled as a @jit function of the same arguments
            if self._compiled is None:
                from msc.frontend.jit import JitFunction, entry_function
                self._compiled = JitFunction(entry_function(self))
            return self._compiled(*args)
        return self.build(builder, list(args))

    def build(self, outer: GraphBuilder, args: list[Any]) -> Any:
        from msc.frontend.calls import Calls
        from msc.frontend.deps import Deps
        from msc.frontend.specialize import to_output

        sens = None
        if self.want.sens:
            if not args:
                raise GraphTypeError("sens_param=True needs the sensitivity as the last "
                                     "argument")
            *args, sens = args
        sub = GraphBuilder(self.__name__)
        sub.calls = inner = Calls(sub, outer.calls.deps if outer.calls else Deps())
        inner.depth = outer.calls.depth if outer.calls else 0
        inner.reuse = outer.calls.reuse if outer.calls else None  # shared blocks stay shared
        # the tensors inside tuple arguments are inputs too, but (as in MindSpore) only
        # the tensor arguments themselves get gradients
        tensors = [a for a in args if _is_input(a)]
        nested = [t for a in args if isinstance(a, (tuple, list)) for t in _leaves(a)]
        with sub:
            sub.loc = outer.loc
            sym = {id(a): sub.add_input(outer.operand(a).type, f"x{i}")
                   for i, a in enumerate(tensors + nested)}
            sub.state = sub.add_input(MonadType(), "u").var
            inputs = [_replace(a, sym) for a in args]
            output = to_output(sub, inner.call(self.fn, inputs, {}, None))
        forward = sub.finish(output)
        weights = [p for p, _ in sub.weights.values()]
        graph = grad_graph(forward, sens=sens is not None, aux=self.want.aux)
        operands = [outer.operand(a) for a in tensors + nested]
        if sens is not None:
            out_type = result_and_state(forward)[0].type
            if self.want.aux and isinstance(out_type, TupleType) and out_type.elems:
                out_type = out_type.elems[0]
            operands.append(_operand(outer, _sens_value(sens, out_type)))
        if sub.wrote:
            outer.order_loads()
        operands += [outer.state] + [outer.weight(w).var for w in weights]
        result = Copier(outer.nodes).run(graph, operands)
        value, d_inputs, d_weights, state = outer.unpack(result)
        if sub.wrote:
            outer.advance(state.var)
            outer.wrote = True
        by_param = dict(zip((id(w) for w in weights), d_weights))
        asked = tuple(by_param[id(p)] if id(p) in by_param else _zeros_like(p)
                      for p in self.want.weights or ())
        return self.want.shape(tuple(d_inputs)[:len(tensors)], asked, value)


def _is_input(a: Any) -> bool:
    return isinstance(a, Tensor) and not isinstance(a, Parameter)


def _leaves(a: Any) -> list[Any]:
    """The tensors inside a tuple or list argument, depth first."""
    if isinstance(a, (tuple, list)):
        return [t for item in a for t in _leaves(item)]
    return [a] if _is_input(a) else []


def _replace(a: Any, sym: dict[int, Any]) -> Any:
    if isinstance(a, (tuple, list)):
        return type(a)(_replace(item, sym) for item in a)
    return sym.get(id(a), a)


def _sens_value(sens: Any, t: Type) -> Any:
    """The sensitivity given for an output of type ``t``, in that type: a tuple for a
    tuple output; a tensor of the output's size reshaped to its shape (a ``(1,)``
    sensitivity of a scalar loss, as training wrappers pass), one that broadcasts to it
    broadcast, and cast to its dtype."""
    from msc.ops import functional as F

    if isinstance(t, TupleType):
        if not isinstance(sens, (tuple, list)) or len(sens) != len(t.elems):
            raise GraphTypeError(f"the sensitivity of an output of type {t} must be a tuple of "
                                 f"{len(t.elems)} sensitivities, but got {_describe(sens)}")
        return tuple(_sens_value(s, e) for s, e in zip(sens, t.elems))
    tt = tensor_of(t)
    if not isinstance(tt, TensorType):
        raise GraphTypeError(f"sens_param=True needs a function whose outputs are tensors; "
                             f"one output is {t}")
    if not isinstance(sens, Tensor):
        raise GraphTypeError(f"the sensitivity of a tensor output must be a Tensor, but got "
                             f"{_describe(sens)}")
    if tuple(sens.shape) != tt.shape:
        if math.prod(sens.shape) == math.prod(tt.shape):
            sens = F.reshape(sens, tt.shape)
        else:
            sens = F.broadcast_to(sens, tt.shape)
    return sens if sens.dtype == tt.dtype else F.cast(sens, tt.dtype)


def _operand(outer: GraphBuilder, x: Any) -> Any:
    if isinstance(x, tuple):
        from msc.ir.primitives import Op
        return outer.emit(Op.MakeTuple, tuple(_operand(outer, v) for v in x))
    return outer.operand(x)


def _describe(x: Any) -> str:
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)}"
    return type(x).__name__


def _zeros_like(p: Parameter) -> Any:
    """The gradient of a weight the function never reads."""
    from msc.ops import functional as F
    return F.zeros_like(p)


def _weights(weights: Any) -> tuple[tuple[Parameter, ...] | None, bool]:
    if weights is None:
        return None, False
    if isinstance(weights, Parameter):
        return (weights,), True
    items = tuple(weights)
    if not all(isinstance(w, Parameter) for w in items):
        raise GraphTypeError("weights must be a Parameter, a ParameterTuple or a list of "
                             "Parameters")
    return items, False


def grad(fn: Callable[..., Any], grad_position: Any = 0, weights: Any = None,
         has_aux: bool = False, return_ids: bool = False,
         sens_param: bool = False) -> _Differentiated:
    """``ms.grad``: gradients of ``fn`` with respect to the inputs at ``grad_position``
    (an int: one gradient; a tuple: a tuple; None: none) and ``weights``; with
    ``has_aux`` ``fn`` returns ``(out, aux...)`` and the result is ``(grads, aux)``;
    ``return_ids`` pairs each gradient with its position (weights: their names);
    ``sens_param`` takes the output's sensitivity as the last argument."""
    return _Differentiated(fn, _want(grad_position, weights, has_aux, False, return_ids,
                                     sens_param))


def value_and_grad(fn: Callable[..., Any], grad_position: Any = 0, weights: Any = None,
                   has_aux: bool = False, return_ids: bool = False,
                   sens_param: bool = False) -> _Differentiated:
    """``ms.value_and_grad``: ``(fn's value, grad(...)'s result)``."""
    return _Differentiated(fn, _want(grad_position, weights, has_aux, True, return_ids,
                                     sens_param))


def _want(grad_position: Any, weights: Any, has_aux: bool, value: bool, ids: bool = False,
          sens: bool = False) -> _Want:
    if grad_position is None and weights is None:
        raise GraphValueError("grad_position and weights cannot both be None")
    if isinstance(grad_position, list):
        grad_position = tuple(grad_position)
    if not (grad_position is None or isinstance(grad_position, int) or
            (isinstance(grad_position, tuple) and
             all(isinstance(p, int) for p in grad_position))):
        raise GraphTypeError(f"grad_position must be an int, a tuple of ints or None, not "
                             f"{grad_position!r}")
    positions = grad_position if isinstance(grad_position, tuple) else (grad_position,)
    if any(p is not None and p < 0 for p in positions):
        raise GraphValueError("grad_position must be >= 0.")
    params, single = _weights(weights)
    return _Want(grad_position, params, single, value=value, aux=has_aux, sens=sens,
                 ids=ids)

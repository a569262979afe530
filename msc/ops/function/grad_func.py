"""Gradients: ``ms.grad`` and ``ms.value_and_grad`` (``GradOperation``, in
``composite/base.py``, is built on the same machinery), and from them ``ops.vjp``,
``ops.jvp``, ``ops.jacfwd`` and ``ops.jacrev``.

Each differentiates a function or Cell by building its forward graph for the argument
types at hand and transforming it (``msc.ir.grad``). Inside a graph being built the
result is spliced into it; called eagerly (PyNative), the differentiated function is
compiled like a ``@jit`` function and run, so eager gradients are compiled ones.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from msc.common import amp_scope
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphIndexError, GraphTypeError, GraphValueError
from msc.frontend.builder import GraphBuilder, current_builder, to_output
from msc.frontend.paths import describe_transform, paths_from
from msc.ir.grad import grad_graph
from msc.ir.rewrite import result_and_state
from msc.ir.transform import Copier
from msc.ir.types import MonadType, TensorType, TupleType, Type, tensor_of
from msc.optimizer.slice_sink import sink_slices_graph

__all__ = ["grad", "value_and_grad", "jvp", "vjp", "jacfwd", "jacrev"]


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
    one_bare: bool = False  # ``ms.grad``'s: one gradient of a tuple of positions is bare

    def shape(self, d_inputs: tuple[Any, ...], d_weights: tuple[Any, ...], value: Any,
              where: tuple[int | None, ...] | None = None) -> Any:
        """``where[i]``: the index in ``d_inputs`` of argument ``i``'s gradient, None for
        an argument that is no tensor (a tuple, a number): as in MindSpore, positions
        count every argument and such a one has no gradient."""
        where = tuple(range(len(d_inputs))) if where is None else where
        if self.positions == "all":
            picked: Any = d_inputs
        elif self.positions == "first":
            first = where[0] if where else None
            picked = d_inputs[first] if first is not None else ()
        elif isinstance(self.positions, int):
            got = self._pick(d_inputs, where, self.positions)
            picked = got[0] if got else ()
        elif self.positions is None:
            picked = None
        else:  # a tuple (MindSpore 2.10's ms.grad: () without gradients, one bare)
            picked = tuple(g for p in self.positions for g in self._pick(d_inputs, where, p))
            picked = picked[0] if len(picked) == 1 and self.one_bare else picked
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

    def _pick(self, grads: tuple[Any, ...], where: tuple[int | None, ...],
              position: int) -> tuple[Any, ...]:
        """The gradient of argument ``position`` (with its position for ``ids``), or none."""
        if position >= len(where):
            raise GraphIndexError(f"Position index {position} is exceed input size.")
        at = where[position]
        if at is None:
            return ()
        return ((position, grads[at]) if self.ids else grads[at],)


class _Traced:
    """A transformed function: built into the graph being built, or, called eagerly
    (PyNative), compiled like a ``@jit`` function of the same arguments and run."""

    __name__ = "traced"

    def __call__(self, *args: Any) -> Any:
        builder = current_builder()
        if builder is None:  # (one compile by the mixed-precision scope of the call; a
            # graph being built traces it under its own)
            compiled = vars(self).setdefault("_compiled", {})
            scope = amp_scope.current()
            if scope not in compiled:
                compiled[scope] = _eager_function(self, scope)
            return compiled[scope](*args)
        return self.build(builder, list(args))

    def build(self, outer: GraphBuilder, args: list[Any]) -> Any:
        raise NotImplementedError

    def eager_key(self) -> tuple[Any, Any] | None:
        """(the object differentiated, what else tells two such functions apart) where
        two equal ones compile the same; None where each compiles on its own."""
        return None

    def cache_description(self) -> Any:
        """This transform, its settings and what it transforms, as JSON for the compile
        cache's entry key (``paths.describe_callable``); None where it cannot say."""
        return None


#: Compiled eager gradients, by the function or Cell they differentiate, then by the rest
#: of ``eager_key``. A training cell's eager ``construct`` makes a new gradient function
#: on every call (``self.grad(self.network, self.weights)(...)``); without this each call
#: compiled it anew (2 s a step for CycleGAN's generator), where MindSpore's PyNative
#: mode reuses its graph.
_EAGER: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _eager_function(traced: _Traced, scope: amp_scope.Scope | None = None) -> Any:
    """``traced`` compiled like a ``@jit`` function, traced under the mixed-precision
    ``scope`` of its call: the one compiled for an equal earlier function under the same
    scope where there is one. (That one's closure keeps its weights alive, so their ids
    in the key stay theirs.)"""
    from msc.frontend.jit import JitFunction, entry_function

    key = traced.eager_key()
    if key is None:
        return JitFunction(entry_function(traced, scope))
    owner, rest = key
    try:
        table = _EAGER.setdefault(owner, {})
        compiled = table.get((rest, scope))
    except TypeError:  # not weakly referable, or a key that cannot be hashed
        return JitFunction(entry_function(traced, scope))
    if compiled is None:
        compiled = table[(rest, scope)] = JitFunction(entry_function(traced, scope))
    return compiled


def _trace(outer: GraphBuilder, name: str, fn: Any, args: list[Any]) -> tuple[Any, ...]:
    """``fn(*args)`` built into a graph of its own: (its builder, the graph, the tensor
    arguments, the tensors inside tuple arguments); the graph's inputs are those tensors,
    then the state, then the weights it reads."""
    from msc.frontend.calls import Calls
    from msc.frontend.deps import Deps

    sub = GraphBuilder(name)
    sub.calls = inner = Calls(sub, outer.calls.deps if outer.calls else Deps())
    inner.depth = outer.calls.depth if outer.calls else 0
    inner.reuse = outer.calls.reuse if outer.calls else None  # shared blocks stay shared
    # the tensors inside tuple arguments are inputs too, but (as in MindSpore) only the
    # tensor arguments themselves get gradients
    tensors = [a for a in args if _is_input(a)]
    nested = [t for a in args if isinstance(a, (tuple, list)) for t in _leaves(a)]
    with sub:
        sub.loc = outer.loc
        sym = {id(a): sub.add_input(outer.operand(a).type, f"x{i}")
               for i, a in enumerate(tensors + nested)}
        sub.state = sub.add_input(MonadType(), "u").ssa
        inputs = [_replace(a, sym) for a in args]
        output = to_output(sub, inner.call(fn, inputs, {}, None))
    return sub, sub.finish(output), tensors, nested


def output_type(outer: GraphBuilder, fn: Any, args: list[Any], aux: bool = False) -> Type:
    """The type of ``fn(*args)`` (with ``aux``, of its first output), found by building
    it on the side: nothing is added to ``outer``."""
    forward = _trace(outer, "shape_of", fn, args)[1]
    t = result_and_state(forward)[0].type
    if aux:
        if not isinstance(t, TupleType) or not t.elems:
            raise GraphTypeError("has_aux=True needs a function returning a tuple "
                                 "(out, aux...)")
        t = t.elems[0]
    return t


class _Differentiated(_Traced):
    """``fn`` differentiated as ``want`` says; called in a graph or eagerly."""

    def __init__(self, fn: Callable[..., Any], want: _Want):
        self.fn, self.want = fn, want
        self.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"

    def eager_key(self) -> tuple[Any, Any] | None:
        """The same function (a bound method by its object and function) with the same
        weights, by identity, and the same options."""
        weights = None if self.want.weights is None else tuple(map(id, self.want.weights))
        method = getattr(self.fn, "__func__", None)
        owner = self.fn if method is None else getattr(self.fn, "__self__", None)
        return owner, (method, weights, dataclasses.replace(self.want, weights=None))

    def cache_description(self) -> Any:
        """The options, the weights by where they are found from ``fn``, and ``fn``."""
        want: dict[str, Any] = {f.name: getattr(self.want, f.name)
                                for f in dataclasses.fields(self.want) if f.name != "weights"}
        if self.want.weights is not None:
            paths = paths_from(self.fn, self.want.weights)
            if paths is None:
                return None
            want["weights"] = [[p, w.name] for p, w in zip(paths, self.want.weights)]
        return describe_transform("grad", self.fn, want=want)

    def build(self, outer: GraphBuilder, args: list[Any]) -> Any:
        sens = None
        if self.want.sens:
            if not args:
                raise GraphTypeError("sens_param=True needs the sensitivity as the last "
                                     "argument")
            *args, sens = args
        sub, forward, tensors, nested = _trace(outer, self.__name__, self.fn, args)
        weights = [p for p, _ in sub.weights.values()]
        # (the forward's slices moved first: the backward then works on the kept rows)
        graph = grad_graph(forward, sens=sens is not None, aux=self.want.aux,
                           prepare=sink_slices_graph)
        operands = [outer.operand(a) for a in tensors + nested]
        if sens is not None:
            out_type = result_and_state(forward)[0].type
            if self.want.aux and isinstance(out_type, TupleType) and out_type.elems:
                out_type = out_type.elems[0]
            operands.append(_operand(outer, _sens_value(sens, out_type)))
        if sub.wrote:
            outer.order_loads()
        operands += [outer.state] + [outer.weight(w).ssa for w in weights]
        result = Copier(outer.nodes).run(graph, operands)
        value, d_inputs, d_weights, state = outer.unpack(result)
        if sub.wrote:
            outer.advance(state.ssa)
            outer.wrote = True
        by_param = dict(zip((id(w) for w in weights), d_weights))
        asked = tuple(by_param[id(p)] if id(p) in by_param else _zeros_like(p)
                      for p in self.want.weights or ())
        where, k = [], 0
        for a in args:
            where.append(k if _is_input(a) else None)
            k += _is_input(a)
        return self.want.shape(tuple(d_inputs)[:len(tensors)], asked, value, tuple(where))


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
                 ids=ids, one_bare=True)


# --- vjp, jvp and Jacobians --------------------------------------------------------------
#
# Forward mode is reverse mode transposed: the pullback u -> J^T u is linear in u, so the
# gradient of <J^T u, v> with respect to u is J v, exactly, whatever u is (zeros here).
# The Jacobians take one pullback per output element, batched over the rows of an
# identity matrix by ``vmap``; jacfwd and jacrev give the same matrix.


def _cached(kind: str, fn: Any, *key: Any) -> Any:
    """One transformed function per (fn, settings), so eager calls compile once."""
    full = (kind, id(fn), *key)
    hit = _CACHE.get(full)
    if hit is None or hit[0] is not fn:
        if len(_CACHE) > 256:
            _CACHE.clear()
        hit = _CACHE[full] = (fn, _KINDS[kind](fn, *key))
    return hit[1]


def _aux_of(value: Any) -> Any:
    """MindSpore's aux: the second output alone, or a tuple of the outputs after the first."""
    rest = tuple(value[1:])
    return rest[0] if len(rest) == 1 else rest


def _tensor_leaves(t: Type) -> list[TensorType]:
    if isinstance(t, TupleType):
        return [leaf for e in t.elems for leaf in _tensor_leaves(e)]
    tt = tensor_of(t)
    if not isinstance(tt, TensorType):
        raise GraphTypeError(f"a function differentiated by jvp or a Jacobian must compute "
                             f"tensors, but one of its outputs is {t}")
    return [tt]


def _rebuild(t: Type, leaves: list[Any]) -> Any:
    """``leaves`` (consumed from the front) in the tuple structure of ``t``."""
    if isinstance(t, TupleType):
        return tuple(_rebuild(e, leaves) for e in t.elems)
    return leaves.pop(0)


def vjp(fn: Callable[..., Any], *inputs: Any, weights: Any = None,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``ops.vjp``: ``(fn(*inputs), vjp_fn)``, where ``vjp_fn(v)`` is the tuple of the
    inputs' gradients for the output sensitivity ``v`` (with ``weights``,
    ``(input gradients, weight gradients)``); with ``has_aux``, ``(out, vjp_fn, aux)``."""
    builder = current_builder()
    value = builder.calls.call(fn, list(inputs), {}, None) if builder else fn(*inputs)
    params, single = _weights(weights)
    pullback = _VjpFn(_cached("vjp", fn, params, single, has_aux), inputs, has_aux)
    if not has_aux:
        return value, pullback
    return value[0], pullback, _aux_of(value)


class _VjpFn:
    """The pullback ``vjp`` returns: the inputs' gradients for a sensitivity."""

    def __init__(self, grad: _Differentiated, inputs: tuple[Any, ...], aux: bool):
        self.grad, self.inputs, self.aux = grad, inputs, aux

    def __call__(self, v: Any) -> Any:
        result = self.grad(*self.inputs, v)
        return result[0] if self.aux else result


def _vjp_grad(fn: Any, params: Any, single: bool, aux: bool) -> _Differentiated:
    return _Differentiated(fn, _Want("all", params, single, aux=aux, sens=True))


def jvp(fn: Callable[..., Any], inputs: Any, v: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``ops.jvp``: ``(fn(*inputs), J v)``, the Jacobian of ``fn`` at ``inputs`` (a Tensor
    or a tuple of them) times the tangents ``v`` (the same structure); with ``has_aux``
    ``fn`` returns ``(out, aux...)`` and the result is ``(out, J v, aux)``."""
    xs, vs = _tensor_args(inputs), _tensor_args(v)
    if len(vs) != len(xs):
        raise GraphValueError(f"v has invalid length: should be {len(xs)}, but got {len(vs)}")
    return _cached("jvp", fn, len(xs), has_aux)(*xs, *vs)


def _tensor_args(x: Any) -> tuple[Any, ...]:
    items = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    if not items or not all(isinstance(t, Tensor) for t in items):
        raise GraphTypeError("The inputs type must be a Tensor, tuple or list of Tensors.")
    return items


class _Jvp(_Traced):
    """``(*inputs, *tangents) -> (out, J v[, aux])`` as the gradient of ``_PullbackDot``."""

    def __init__(self, fn: Any, n: int, aux: bool):
        self.fn, self.n, self.aux = fn, n, aux
        self.__name__ = f"jvp_{getattr(fn, '__name__', type(fn).__name__)}"

    def cache_description(self) -> Any:
        return describe_transform("jvp", self.fn, inputs=self.n, aux=self.aux)

    def build(self, outer: GraphBuilder, args: list[Any]) -> Any:
        from msc.ops import functional as F

        xs, vs = args[:self.n], args[self.n:]
        t = output_type(outer, self.fn, xs, self.aux)
        us = [F.zeros(tt.shape, tt.dtype) for tt in _tensor_leaves(t)]
        dot = _PullbackDot(self.fn, t, len(us), self.n, self.aux)
        tangents, (value,) = _Differentiated(dot, _Want(tuple(range(len(us))), None,
                                                        aux=True))(*us, *xs, *vs)
        tangent = _rebuild(t, list(tangents))
        if not self.aux:
            return value, tangent
        return value[0], tangent, _aux_of(value)


class _PullbackDot:
    """``(u..., x..., v...) -> (<J(x)^T u, v>, fn(x))``: linear in ``u``; its gradient
    with respect to ``u`` is ``J v``."""

    __name__ = "pullback_dot"

    def __init__(self, fn: Any, t: Type, k: int, n: int, aux: bool):
        self.fn, self.t, self.k, self.n, self.aux = fn, t, k, n, aux

    def __call__(self, *args: Any) -> Any:
        us, xs, vs = args[:self.k], args[self.k:self.k + self.n], args[self.k + self.n:]
        value, grads = _Differentiated(self.fn, _Want("all", None, value=True, aux=self.aux,
                                                      sens=True))(*xs, _rebuild(self.t,
                                                                                list(us)))
        dot = None
        for g, v in zip(grads, vs):
            term = (g * v.astype(g.dtype)).sum()
            dot = term if dot is None else dot + term
        return dot, value


def jacfwd(fn: Callable[..., Any], grad_position: Any = 0,
           has_aux: bool = False) -> _Jacobian:
    """``ops.jacfwd``: the Jacobian of ``fn`` with respect to the inputs at
    ``grad_position``, each of shape ``out.shape + input.shape`` (a tuple per output
    for several outputs, a tuple per position for several positions); with ``has_aux``
    ``(jacobian, aux)``. The same matrix as ``jacrev``."""
    return _cached("jac", fn, grad_position, has_aux)


def jacrev(fn: Callable[..., Any], grad_position: Any = 0,
           has_aux: bool = False) -> _Jacobian:
    """``ops.jacrev``: as ``jacfwd``, row by row from the pullback."""
    return _cached("jac", fn, grad_position, has_aux)


class _Jacobian(_Traced):
    def __init__(self, fn: Any, grad_position: Any, aux: bool):
        _want(grad_position, None, aux, False)  # MindSpore's checks of the positions
        self.fn, self.positions, self.aux = fn, grad_position, aux
        self.__name__ = f"jac_{getattr(fn, '__name__', type(fn).__name__)}"

    def cache_description(self) -> Any:
        return describe_transform("jacobian", self.fn, positions=self.positions, aux=self.aux)

    def build(self, outer: GraphBuilder, args: list[Any]) -> Any:
        from msc.ops import functional as F
        from msc.ops.function.array_func import eye
        from msc.ops.function.vmap_func import vmap

        t = output_type(outer, self.fn, args, self.aux)
        leaves = _tensor_leaves(t)
        positions = self.positions if isinstance(self.positions, tuple) else (self.positions,)
        tensors = [a for a in args if _is_input(a)]
        for p in positions:
            if p >= len(tensors):
                raise GraphIndexError(f"Position index {p} is exceed input size.")
        per_output = []
        for k, tt in enumerate(leaves):
            m = math.prod(tt.shape)
            basis = F.reshape(eye(m, m, tt.dtype), (m, *tt.shape))
            rows = vmap(_JacobianRows(self.fn, t, k, positions, self.aux),
                        in_axes=(0,) + (None,) * len(args))(basis, *args)
            jac = tuple(F.reshape(r, tt.shape + tuple(tensors[p].shape))
                        for r, p in zip(rows, positions))
            per_output.append(jac if isinstance(self.positions, tuple) else jac[0])
        jacobian = _rebuild(t, per_output)
        if not self.aux:
            return jacobian
        return jacobian, _aux_of(outer.calls.call(self.fn, args, {}, None))


class _JacobianRows:
    """``(e, *args) -> the gradients for the sensitivity e`` at output ``k`` (zeros at
    the others): one row of each Jacobian, batched over e by ``vmap``."""

    __name__ = "jacobian_rows"

    def __init__(self, fn: Any, t: Type, k: int, positions: tuple[int, ...], aux: bool):
        self.fn, self.t, self.k, self.positions, self.aux = fn, t, k, positions, aux

    def __call__(self, e: Any, *args: Any) -> Any:
        from msc.ops import functional as F

        leaves = [e if i == self.k else F.zeros(tt.shape, tt.dtype)
                  for i, tt in enumerate(_tensor_leaves(self.t))]
        grads = _Differentiated(self.fn, _Want(self.positions, None, aux=self.aux,
                                               sens=True))(*args, _rebuild(self.t, leaves))
        return grads[0] if self.aux else grads


_CACHE: dict[tuple[Any, ...], tuple[Any, Any]] = {}
_KINDS: dict[str, Callable[..., Any]] = {"vjp": _vjp_grad, "jvp": _Jvp, "jac": _Jacobian}

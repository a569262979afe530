"""Control flow on tensor values: ``if``/``elif``/``else`` and ``a if c else b``.

A Python-constant condition folds while the graph is built (see ``evaluator.py``); a
tensor condition builds each branch into a *region* (a graph without parameters that
reads the enclosing graph's values) and emits one ``If`` node. Variables assigned in
either branch are merged: both branches return them, and the ``If``'s results are
bound to their names afterwards. Their types must agree; an error names the variable,
both types and the line.
"""

from __future__ import annotations

import ast
import builtins
import types
from typing import Any, Callable

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor, WeakNumber, apply
from msc.errors import GraphTypeError, GraphValueError, UnsupportedSyntaxError
from msc.frontend.builder import ChosenParameter, GraphBuilder
from msc.frontend.hooks import is_cell
from msc.frontend.scope import Closure, Unmerged
from msc.ir import dtypes
from msc.ir.nodes import Const, Value
from msc.ir.primitives import Op
from msc.ir.types import TensorType, tensor_of


class Raised(Exception):
    """A ``raise`` was reached inside a region: it happens at run time (a ``Raise`` node),
    and the rest of the branch never runs."""


#: Set on an exception a user's ``raise`` (or failing ``assert``) threw while a graph was
#: built: under a tensor condition it happens at run time instead, wherever it came from.
USER_RAISE = "_msc_user_raise"

#: What a branch that raised gives for each value the other branch merges.
FILL = object()

#: A ``return`` inside a loop sets this flag and this slot, then leaves the loop(s); the
#: function returns the slot after the outermost loop if the flag is set (``loops.py``).
RETURNED, RETURN_VALUE = "__msc_returned", "__msc_return_value"


def raise_at_run_time(builder: GraphBuilder, exc: BaseException) -> None:
    """Emit ``Raise`` for ``exc`` (a built-in exception with a constant message) in
    program order, and end the branch."""
    kind = type(exc)
    if getattr(builtins, kind.__name__, None) is not kind:
        raise UnsupportedSyntaxError(f"only built-in exceptions can be raised under a tensor "
                                     f"condition, not {kind.__name__}")
    if any(isinstance(a, (SymTensor, Parameter)) for a in exc.args):
        raise UnsupportedSyntaxError("an exception raised under a tensor condition takes a "
                                     "constant message, not a tensor")
    message = str(exc.args[0]) if len(exc.args) == 1 else str(exc) if exc.args else ""
    builder.effect(Op.Raise, (), {"exception": kind.__name__, "message": message})
    raise Raised()


class _Return(Exception):
    """A ``return`` statement: the evaluator raises it, and a branch or a call that runs
    a body catches it with the returned value."""

    def __init__(self, value: Any):
        self.value = value


class RegionBuilder(GraphBuilder):
    """Builds one branch: it may use the tensors of the graphs around it, and weights
    stay inputs of the outermost graph. It starts in the state its parent is in; its
    state at the end is merged (``If``) or carried (``While``) like a variable."""

    def __init__(self, name: str, parent: GraphBuilder):
        super().__init__(name)
        self.parent = parent
        self.calls = parent.calls
        self.loc = parent.loc
        self.state = parent.state
        self.loads = dict(parent.loads)
        self.pending = list(parent.pending)  # a write in the region comes after these too

    def encloses(self, builder: Any) -> bool:
        b: Any = self
        while b is not None:
            if b is builder:
                return True
            b = getattr(b, "parent", None)
        return False

    def value(self, x: Any) -> Value:
        if isinstance(x, SymTensor) and x.builder is not self and self.encloses(x.builder):
            return x.ssa
        return super().value(x)

    def weight(self, param: Any) -> Any:
        return self.parent.weight(param)

    def seal(self, output: Value) -> Value:
        return output  # the enclosing If or While takes the region's state


def truth(cond: SymTensor) -> SymTensor:
    """The one-element bool tensor an ``if`` on ``cond`` tests (``x != 0`` for numbers)."""
    from msc.ops import functional as F

    if cond.type.size != 1:
        raise GraphValueError(f"the truth value of a tensor with {cond.type.size} elements is "
                             "ambiguous: reduce it (e.g. with .all() or .any()) first")
    return cond if cond.type.dtype == dtypes.bool_ else F.cast(cond, dtypes.bool_)


def branch(ev: Any, name: str, run: Callable[[], Any],
           own_lists: bool = False) -> tuple[RegionBuilder, Any]:
    """Run one branch into a region of its own: (its builder, what ``run`` returned,
    ``("return", value)`` for a ``return`` inside it, or ``Raised`` if it raises). Unless
    the branch has ``own_lists`` (a tensor ``if``'s, merged after it), a list it changes is
    an error: which items it holds would depend on run-time values."""
    lists = None if own_lists else _lists(ev.scope.names)
    outer = ev.builder
    region = RegionBuilder(name, outer)
    ev.builder = ev.calls.builder = region
    try:
        with region:
            try:
                result = run()
            except _Return as r:
                result = ("return", r.value)
            except Raised:
                result = Raised
            except Exception as e:  # a user's raise reached while building a callee
                if not getattr(e, USER_RAISE, False):
                    raise
                try:
                    raise_at_run_time(region, e)
                except Raised:
                    result = Raised
    finally:
        ev.builder = ev.calls.builder = outer
        if lists:
            _check_lists(lists)
    return region, result


def _lists(names: dict[str, Any]) -> dict[int, tuple[str, list[Any], list[Any]]]:
    """The lists the variables hold (through tuples, lists and dicts): id -> (a variable
    holding it, the list, a copy of its items)."""
    found: dict[int, tuple[str, list[Any], list[Any]]] = {}
    seen: set[int] = set()

    def walk(name: str, v: Any) -> None:
        if not isinstance(v, (list, tuple, dict)) or id(v) in seen:
            return
        seen.add(id(v))
        if isinstance(v, list):
            found[id(v)] = (name, v, list(v))
        for x in v.values() if isinstance(v, dict) else v:
            walk(name, x)
    for name, value in names.items():
        walk(name, value)
    return found


def _check_lists(lists: dict[int, tuple[str, list[Any], list[Any]]]) -> None:
    for name, items, before in lists.values():
        if len(items) != len(before) or any(a is not b for a, b in zip(items, before)):
            items[:] = before
            raise UnsupportedSyntaxError(
                f"the list in '{name}' is changed (append, pop, item assignment...) inside a "
                "tensor while loop, conditional expression, 'and'/'or' or tensor-indexed "
                "call: which items it holds would depend on run-time values; change it in "
                "an 'if' statement, or in a loop whose length Python constants decide")


def _own_lists(names: dict[str, Any]) -> dict[str, Any]:
    """``names`` with each list they hold (through tuples, lists and dicts) copied, aliases
    kept: a tensor ``if``'s branch changes its own copies, merged like variables after."""
    memo: dict[int, Any] = {}

    def copy(v: Any) -> Any:
        if id(v) in memo:
            return memo[id(v)]
        if isinstance(v, list):
            memo[id(v)] = new = []
            new.extend(copy(x) for x in v)
            return new
        if isinstance(v, dict):
            memo[id(v)] = new = {}
            new.update((k, copy(x)) for k, x in v.items())
            return new
        if isinstance(v, tuple) and v:
            items = tuple(copy(x) for x in v)
            return items if any(a is not b for a, b in zip(items, v)) else v
        return v
    return {name: copy(value) for name, value in names.items()}


def tensor_if(ev: Any, node: ast.If, cond: SymTensor) -> None:
    """``if`` on a tensor: both branches become regions of one ``If`` node. A branch that
    raises gives no values: the ``If`` takes the other branch's (see ``FILL``)."""
    test = truth(cond)
    before = dict(ev.scope.names)
    scopes = []
    regions = []
    for body, name in ((node.body, "then"), (node.orelse, "else")):
        ev.scope.names = _own_lists(before)
        region, result = branch(ev, name, lambda body=body: ev.run_body(body), own_lists=True)
        regions.append((region, result))
        scopes.append(dict(ev.scope.names))
    raised = [result is Raised for _, result in regions]
    if all(raised):  # the If raises whichever way it goes: nothing after it runs
        emit_if(ev, test, [(region, []) for region, _ in regions], [])
        ev.scope.names = before
        if isinstance(ev.builder, RegionBuilder):
            raise Raised()
        return
    live = raised.index(False)
    scopes = [scopes[live] if r else sc for r, sc in zip(raised, scopes)]
    results = [regions[live][1] if r else result for r, (_, result) in zip(raised, regions)]

    def given(i: int, values: list[Any]) -> tuple[RegionBuilder, list[Any]]:
        return regions[i][0], [FILL] * len(values) if raised[i] else values

    returned = [isinstance(r, tuple) and r[:1] == ("return",) for r in results]
    if any(returned) and not all(returned):
        raise UnsupportedSyntaxError("a 'return' in only one branch of a tensor if is not "
                                     "supported yet: assign a variable in both branches and "
                                     "return it after the if")
    if all(returned):
        values = emit_if(ev, test, [given(i, [r[1]]) for i, r in enumerate(results)],
                         ["the returned value"])
        raise _Return(values[0])
    then_names, else_names = scopes
    keep: dict[str, Any] = {}
    to_merge = []
    for n in dict.fromkeys([*then_names, *else_names]):
        a, b = then_names.get(n, Unmerged), else_names.get(n, Unmerged)
        if any(raised):  # only the live branch goes on: its values, its tensors via the If
            changed = a is not before.get(n, Unmerged)
            if changed and _mergeable(a) and _holds_tensor(a):
                to_merge.append(n)
            else:
                keep[n] = a
        elif a is b:
            keep[n] = a
        elif n == RETURN_VALUE:  # read only where RETURNED says a return set it
            to_merge.append(n)
        elif isinstance(a, Unmerged) or isinstance(b, Unmerged):
            keep[n] = a if isinstance(a, Unmerged) else b  # unusable either way
        elif a is Unmerged or b is Unmerged:
            keep[n] = Unmerged(f"variable '{n}' is assigned in only one branch of the tensor "
                               f"if at line {node.lineno}: assign it before the if or in both "
                               "branches to use it after")
        elif not _is_tensor(a) and not _is_tensor(b) and type(a) is type(b) and _same(a, b):
            keep[n] = a
        elif (chosen := choose_parameters(test, a, b)) is not None:
            keep[n] = chosen
        elif _mergeable(a) and _mergeable(b):
            to_merge.append(n)
        elif _is_function(a) and _is_function(b):
            keep[n] = Choice(test, a, b)
        else:
            keep[n] = Unmerged(f"variable '{n}' differs between the branches of the tensor if "
                               f"at line {node.lineno} ({type(a).__name__} and "
                               f"{type(b).__name__}): only tensors and numbers (or tuples of "
                               "them) can, so it cannot be used after the if")
    values = emit_if(ev, test, [given(0, [then_names.get(n, FILL) for n in to_merge]),
                                given(1, [else_names.get(n, FILL) for n in to_merge])],
                     [f"variable '{n}'" for n in to_merge])
    lists = [isinstance(then_names.get(n, else_names.get(n)), list) for n in to_merge]
    ev.scope.names = {**keep, **{n: list(v) if is_list else v  # a merged list stays one
                                 for n, v, is_list in zip(to_merge, values, lists)}}


class Choice:
    """One of two functions (or Cells), chosen at run time by a tensor condition: a
    variable bound to different functions in the branches of a tensor ``if``, or an item
    of a tuple or CellList indexed by a tensor. Calling it (``call_choice``) calls each
    function in a branch of one ``If`` and merges their results."""

    def __init__(self, test: SymTensor, then: Any, orelse: Any):
        self.test, self.then, self.orelse = test, then, orelse


def choose_parameters(test: SymTensor, a: Any, b: Any) -> Any:
    """``a`` or ``b`` as the tensor ``test`` says, where they are Parameters of one type
    (or tuples of them, the same object where they agree): each differing pair becomes a
    ``ChosenParameter``, so a write through it reaches the chosen one. None otherwise."""
    if a is b:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        items = [choose_parameters(test, x, y) for x, y in zip(a, b)]
        return None if any(i is None for i in items) else tuple(items)
    if _is_parameter(a) and _is_parameter(b) and a.type == b.type:
        return ChosenParameter(test, a, b)
    return None


def _is_parameter(v: Any) -> bool:
    return isinstance(v, (Parameter, ChosenParameter))


class _Outer:
    """What ``_emit_flat`` needs of an evaluator: the builder the ``If`` goes into."""

    def __init__(self, builder: GraphBuilder):
        self.builder = builder


def write_chosen(builder: GraphBuilder, chosen: ChosenParameter,
                 write: Callable[[Any], Any]) -> Any:
    """``write(parameter)`` for the Parameter ``chosen`` stands for: an ``If`` on its
    condition whose branches write one Parameter each; the written value merged."""
    regions = []
    for name, param in (("then", chosen.then), ("else", chosen.orelse)):
        region = RegionBuilder(name, builder)
        with region:
            regions.append((region, [write(param)]))
    return _emit_flat(_Outer(builder), chosen.test, regions, ["the written Parameter"])[0]


def call_choice(ev: Any, choice: Choice, args: list[Any], kwargs: dict[str, Any]) -> Any:
    runs = [branch(ev, name, lambda fn=fn: ev.calls.call(fn, list(args), kwargs, ev))
            for name, fn in (("then", choice.then), ("else", choice.orelse))]
    if all(result is Raised for _, result in runs):
        emit_if(ev, choice.test, [(region, []) for region, _ in runs], [])
        raise Raised()
    return emit_if(ev, choice.test, [(region, [FILL if result is Raised else result])
                                     for region, result in runs],
                   ["the chosen function's result"])[0]


def choose(ev: Any, index: SymTensor, items: list[Any]) -> Any:
    """``items[index]`` for a tensor index (negative counts from the end): a ``Choice``
    among functions, or the chosen value among values of one type. An index out of
    range gives the last item."""
    t = index.type
    if t.dtype == dtypes.bool_ and t.size == 1:  # (a, b)[flag]: False is 0, True is 1
        index = apply(Op.Cast, index, dtype=dtypes.int32)
        t = index.type
    if not t.dtype.is_int or t.size != 1:
        raise GraphTypeError(f"a tuple or CellList index must be one integer, not {_show(t)}")
    if not items:
        raise GraphValueError("cannot index an empty sequence with a tensor")
    n = len(items)
    index = apply(Op.Select, index < 0, index + n, index)
    chosen = items[-1]
    for k in range(n - 2, -1, -1):
        test = truth(index == k)
        if _is_function(items[k]) and _is_function(chosen):
            chosen = Choice(test, items[k], chosen)
        elif (param := choose_parameters(test, items[k], chosen)) is not None:
            chosen = param  # still a Parameter to write
        elif ev is None:
            raise GraphTypeError("only functions and Cells can be chosen by a tensor index here")
        else:
            a, b = items[k], chosen
            then, orelse = branch(ev, "then", lambda: a), branch(ev, "else", lambda: b)
            chosen = emit_if(ev, test, [(then[0], [then[1]]), (orelse[0], [orelse[1]])],
                             ["the indexed item"])[0]
    return chosen


def _is_function(v: Any) -> bool:
    return is_cell(v) or isinstance(v, (Closure, Choice, types.FunctionType, types.MethodType))


def _holds_tensor(v: Any) -> bool:
    if isinstance(v, (tuple, list)):
        return any(_holds_tensor(x) for x in v)
    return isinstance(v, SymTensor)


def _mergeable(v: Any) -> bool:
    if isinstance(v, (tuple, list)):
        return all(_mergeable(x) for x in v)
    return isinstance(v, (SymTensor, Tensor, Parameter, bool, int, float, np.generic))


def tensor_ifexp(ev: Any, node: ast.IfExp, cond: SymTensor) -> Any:
    """``a if c else b`` with a tensor ``c``."""
    test = truth(cond)
    then = branch(ev, "then", lambda: ev.visit(node.body))
    orelse = branch(ev, "else", lambda: ev.visit(node.orelse))
    if not then[0].nodes and not orelse[0].nodes and \
            (chosen := choose_parameters(test, then[1], orelse[1])) is not None:
        return chosen  # ``self.a if c else self.b``: still a Parameter to write
    return _emit_two(ev, test, then, orelse, "the conditional expression")


def _emit_two(ev: Any, test: SymTensor, then: tuple[RegionBuilder, Any],
              orelse: tuple[RegionBuilder, Any], what: str) -> Any:
    """The ``If`` of two expression branches; one that raised (a call in it raised, or
    ended as a recursive call does while its type is found) gives no value."""
    runs = (then, orelse)
    if all(result is Raised for _, result in runs):
        emit_if(ev, test, [(region, []) for region, _ in runs], [])
        raise Raised()
    return emit_if(ev, test, [(region, [FILL if result is Raised else result])
                              for region, result in runs], [what])[0]


def tensor_boolop(ev: Any, left: SymTensor, right: ast.expr, is_and: bool) -> Any:
    """``left and right`` / ``left or right`` with Python's meaning: the value of one
    operand, chosen by ``left``'s truth, and ``right`` evaluated only when it is chosen."""
    test = truth(left)
    other = branch(ev, "then" if is_and else "else", lambda: ev.visit(right))
    itself = branch(ev, "else" if is_and else "then", lambda: left)
    then, orelse = (other, itself) if is_and else (itself, other)
    what = "the 'and' expression" if is_and else "the 'or' expression"
    return _emit_two(ev, test, then, orelse, what)


def emit_if(ev: Any, test: SymTensor, branches: list[tuple[RegionBuilder, list[Any]]],
            what: list[str]) -> list[Any]:
    """The ``If`` node whose regions return each branch's values; its results as tensors.
    Tuples merge element by element (both branches must give them the same length)."""
    (then, a), (orelse, b) = branches
    flat_a: list[Any] = []
    flat_b: list[Any] = []
    flat_what: list[str] = []
    shapes = [_flatten(x, y, w, flat_a, flat_b, flat_what) for x, y, w in zip(a, b, what)]
    results = iter(_emit_flat(ev, test, [(then, flat_a), (orelse, flat_b)], flat_what))
    return [_rebuild(shape, results) for shape in shapes]


def _flatten(a: Any, b: Any, what: str, out_a: list[Any], out_b: list[Any],
             out_what: list[str]) -> Any:
    """Leaves of two same-shaped values; returns the shape (an int count or a leaf marker).
    ``FILL`` stands for a value shaped like the other one."""
    if a is FILL and isinstance(b, (tuple, list)):
        a = _fill_like(b)
    if b is FILL and isinstance(a, (tuple, list)):
        b = _fill_like(a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            if isinstance(a, list) or isinstance(b, list):  # MindSpore: a run-time length
                raise UnsupportedSyntaxError(
                    f"{what} is a list of {len(a)} in the if branch but of {len(b)} in the "
                    "else branch: msc needs a list's length at compile time, so both "
                    "branches of a tensor if must leave it with the same length (append a "
                    "placeholder in the other branch, or keep a count in a tensor)")
            raise GraphTypeError(f"{what} is a tuple of {len(a)} in the if branch but of "
                                 f"{len(b)} in the else branch")
        return tuple(_flatten(x, y, f"{what}[{i}]", out_a, out_b, out_what)
                     for i, (x, y) in enumerate(zip(a, b)))
    out_a.append(a)
    out_b.append(b)
    out_what.append(what)
    return None


def _fill_like(v: Any) -> Any:
    return tuple(_fill_like(x) for x in v) if isinstance(v, (tuple, list)) else FILL


def _rebuild(shape: Any, results: Any) -> Any:
    if shape is None:
        return next(results)
    return tuple(_rebuild(s, results) for s in shape)


def _emit_flat(ev: Any, test: SymTensor, branches: list[tuple[RegionBuilder, list[Any]]],
               what: list[str]) -> list[Any]:
    outer = ev.builder
    outputs: list[list[Any]] = [[], []]
    for (region, values), outs in zip(branches, outputs):
        with region:
            outs += [FILL if v is FILL else _value(region, v, w) for v, w in zip(values, what)]
    for outs, others in ((outputs[0], outputs[1]), (outputs[1], outputs[0])):
        for k, (o, other) in enumerate(zip(outs, others)):
            if o is FILL:  # never read where this branch ran: any value of the type will do
                outs[k] = other if isinstance(other, Const) else _zeros(other.type)
    wrote = any(region.wrote for region, _ in branches)
    if wrote:  # the state after the If is whichever branch's ran: merged like a variable
        for (region, _), outs in zip(branches, outputs):
            with region:
                region.order_loads()
            outs.append(region.state)
    for w, a, b in zip(what, *outputs):
        if a.type != b.type:
            raise GraphTypeError(f"{w} has type {_show(a.type)} in the if branch but "
                                 f"{_show(b.type)} in the else branch; both branches must "
                                 "give it the same dtype and shape")
    graphs = []
    for (region, _), outs in zip(branches, outputs):
        result = region.emit(Op.MakeTuple, tuple(outs))
        graphs.append(region.finish(result))
    out = outer.emit(Op.If, (test.ssa,), {"then": graphs[0], "orelse": graphs[1]})
    results = list(outer.unpack(out))
    if wrote:
        outer.advance(results.pop().ssa)
        outer.wrote = True
    return [_weak_merge(a, b, r) for a, b, r in zip(branches[0][1], branches[1][1], results)]


def _weak_merge(a: Any, b: Any, result: SymTensor) -> Any:
    """The If's result for values ``a`` and ``b``: a weak number where both are numbers."""
    numbers = [v for v in (a, b) if v is not FILL]
    if numbers and all(isinstance(v, (bool, int, float, WeakNumber)) for v in numbers):
        return WeakNumber.like(max(numbers, key=_category), result)
    return result


def _category(v: Any) -> int:
    return v.category if isinstance(v, WeakNumber) else dtypes.scalar_category(v)


def _zeros_like(v: Any) -> Any:
    """A constant of ``v``'s type (tuples element by element) with zero values."""
    if isinstance(v, (tuple, list)):
        return tuple(_zeros_like(x) for x in v)
    if isinstance(v, (SymTensor, Tensor)):
        return Tensor(np.zeros(v.shape, v.dtype.np))
    if isinstance(v, (bool, int, float, np.generic)):
        return type(v)(0)
    raise UnsupportedSyntaxError(f"a tensor while loop cannot return a {type(v).__name__}")


def _zeros(t: Any) -> Const:
    tt = tensor_of(t)
    assert isinstance(tt, TensorType), t
    return Const(np.zeros(tt.shape, tt.dtype.np))


def _value(builder: GraphBuilder, v: Any, what: str) -> Value:
    """An IR value for a variable an ``If`` merges or a ``While`` carries: tensors as they
    are, numbers as 0-d tensors."""
    if isinstance(v, Unmerged):
        raise UnsupportedSyntaxError(v.message)
    if isinstance(v, (SymTensor, Parameter, Tensor)):
        operand = builder.operand(v)
        if isinstance(operand, Const) or tensor_of(operand.type) is not None:
            return operand
    if isinstance(v, (bool, int, float, np.generic)):
        return Const(np.asarray(Tensor(v).asnumpy()))
    if v is None and what == "the returned value":
        raise UnsupportedSyntaxError("the function returns a value on one path of this tensor "
                                     "if and None on another (it ends without a return): "
                                     "return a value on every path")
    raise UnsupportedSyntaxError(f"{what} is a {type(v).__name__}: only tensors and numbers "
                                 "(or tuples of them) can differ between the branches of a "
                                 "tensor if or change in a tensor while loop")


def _is_tensor(v: Any) -> bool:
    return isinstance(v, (SymTensor, Tensor))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - not comparable: treat as different
        return False


def _show(t: Any) -> str:
    tt = tensor_of(t)
    return f"{tt.dtype}{list(tt.shape)}" if isinstance(tt, TensorType) else str(t)

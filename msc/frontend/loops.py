"""Loops on tensor values: ``while`` on a tensor condition (one ``While`` node whose
regions take the loop-carried variables), ``for i in range(n)`` with a tensor bound (a
counting ``while``), and the flags that stand for ``break``, ``continue`` and ``return``
inside loops (``LoopFlags``): the statements that may follow one run under ``if not
(break or continue)``, so they fold while the conditions are Python constants and merge
as tensor ifs otherwise. The regions and merging are ``control.py``'s.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from msc.common.tensor import SymTensor, Tensor, WeakNumber, apply
from msc.errors import GraphTypeError, UnsupportedSyntaxError
from msc.frontend.control import (
    RETURN_VALUE,
    RETURNED,
    Raised,
    RegionBuilder,
    _rebuild,
    _Return,
    _show,
    _value,
    _zeros,
    _zeros_like,
    branch,
    truth,
)
from msc.frontend.scope import Unmerged
from msc.ir.nodes import Graph, Value
from msc.ir.primitives import Op
from msc.ir.rewrite import substitute_graph
from msc.ir.types import MonadType

# --- while ----------------------------------------------------------------------------------


def tensor_while(ev: Any, node: ast.While, unreached: frozenset[str] = frozenset()) -> None:
    """``while`` on a tensor condition: one ``While`` node whose regions take the loop-
    carried variables (those the body assigns that exist before the loop) as parameters.
    Their dtypes and shapes must not change from one iteration to the next. ``unreached``:
    names the body assigns only in statements that constant conditions skip."""
    assigned = [n for n in _assigned(node.body) if n not in unreached]
    carried = [n for n in assigned  # (an Unmerged name has no value to carry)
               if n in ev.scope.names and not isinstance(ev.scope.names[n], Unmerged)]
    before = dict(ev.scope.names)
    shapes = [_structure(before[n]) for n in carried]  # tuples carry their elements
    names = [n for n, shape in zip(carried, shapes) for _ in range(_count(shape))]
    init = [_value(ev.builder, v, f"loop variable '{n}'")
            for n, v in zip(names, _leaves([before[n] for n in carried]))]
    types = [v.type for v in init]

    def bind(values: list[Any]) -> dict[str, Any]:
        it = iter(values)
        return {n: WeakNumber.like(before[n], _rebuild(shape, it))
                for n, shape in zip(carried, shapes)}

    def region(name: str, run: Callable[[], Any]) -> tuple[RegionBuilder, Any]:
        def enter() -> Any:
            params = [ev.builder.add_input(t, n) for t, n in zip(types, names)]
            ev.builder.state = ev.builder.add_input(MonadType(), "u").ssa  # carried state
            ev.builder.loads = {}
            ev.scope.names = {**before, **bind(params)}
            return run()
        return branch(ev, name, enter)

    if RETURN_VALUE in assigned and RETURN_VALUE not in before:
        # the returned value is carried like a variable: build the body once to learn
        # its type, start it as zeros (read only once RETURNED is set), and build again
        reuse, ev.calls.reuse = ev.calls.reuse, None  # the probe leaves no shared graphs
        try:
            region("probe", lambda: _run_loop_body(ev, node.body))
        finally:
            ev.calls.reuse = reuse
        probed = ev.scope.names.get(RETURN_VALUE)
        ev.scope.names = dict(before)
        if probed is None:  # no return is reached, under constant conditions
            tensor_while(ev, node, unreached | {RETURN_VALUE, RETURNED})
            return
        ev.scope.names[RETURN_VALUE] = _zeros_like(probed)
        tensor_while(ev, node, unreached)
        return
    outer = ev.builder
    cond_region, test = region("cond", lambda: ev.visit(node.test))
    if isinstance(test, tuple):
        raise UnsupportedSyntaxError("'return' is not allowed in a while condition")
    if cond_region.wrote:
        raise UnsupportedSyntaxError("a write or a print in a tensor while condition is not "
                                     "supported: do it in the loop body")
    with cond_region:
        cond_out = cond_region.operand(truth(test) if isinstance(test, SymTensor)
                                       else Tensor(bool(test)))
    body_region, result = region("body", lambda: _run_loop_body(ev, node.body))
    after = dict(ev.scope.names)
    for n, shape in zip(carried, shapes):
        if result is not Raised and _structure(after[n]) != shape:
            raise GraphTypeError(f"loop variable '{n}' changes its tuple structure in the "
                                 "loop body; a tensor while loop needs the same structure on "
                                 "every iteration")
    if result is Raised:  # an iteration always raises: what it carries does not matter
        outs: list[Value] = [_zeros(t) for t in types]
    else:
        with body_region:
            outs = [_value(body_region, v, f"loop variable '{n}'")
                    for n, v in zip(names, _leaves([after[n] for n in carried]))]
    for n, t, v in zip(names, types, outs):
        if v.type != t:
            raise GraphTypeError(f"loop variable '{n}' is {_show(t)} before the loop but "
                                 f"{_show(v.type)} after an iteration; a tensor while loop "
                                 "needs the same dtype and shape on every iteration")
    if body_region.wrote:  # the state is carried too
        with body_region:
            body_region.order_loads()
        outs, types, init = outs + [body_region.state], types + [MonadType()], \
            init + [outer.state]
    result_tuple = body_region.emit(Op.MakeTuple, tuple(outs))
    graphs = {"cond": cond_region.finish(cond_out), "body": body_region.finish(result_tuple)}
    if not body_region.wrote:  # a loop that only reads reads the state before it
        graphs = {k: _without_state(g, outer.state) for k, g in graphs.items()}
    out = outer.emit(Op.While, tuple(init), graphs)
    results = list(outer.unpack(out))
    if body_region.wrote:
        outer.advance(results.pop().ssa)
        outer.wrote = True
    local = {n: Unmerged(f"variable '{n}' is first assigned inside the tensor while loop at "
                         f"line {node.lineno}: assign it before the loop to use it after")
             for n in assigned if n not in before}
    ev.scope.names = {**before, **local, **bind(results)}


def _without_state(region: Graph, state: Value) -> Graph:
    """A loop region whose last parameter, the carried state, is ``state`` instead."""
    *params, u = region.params
    inner = substitute_graph(region, {u: state})
    return Graph(region.name, tuple(params), inner.nodes, inner.output, region.flags)


def _structure(v: Any) -> Any:
    return tuple(_structure(x) for x in v) if isinstance(v, (tuple, list)) else None


def _count(shape: Any) -> int:
    return 1 if shape is None else sum(_count(s) for s in shape)


def _leaves(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        out += _leaves(list(v)) if isinstance(v, (tuple, list)) else [v]
    return out


def _run_loop_body(ev: Any, body: list[ast.stmt]) -> None:
    try:
        ev.run_body(body)
    except _Return:
        raise UnsupportedSyntaxError("'return' inside a tensor while loop is not supported: "
                                     "return after the loop") from None


def _assigned(body: list[ast.stmt]) -> list[str]:
    """Names the statements assign or update by item, in order (not inside nested
    functions)."""
    names: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(node, ast.Return):  # (in an inner loop: it sets these when it runs)
            names.extend(n for n in (RETURN_VALUE, RETURNED) if n not in names)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and \
                isinstance(node.value, ast.Name) and node.value.id not in names:
            names.append(node.value.id)  # ``x[i] = v`` rebinds ``x``
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and \
                node.id not in names:
            names.append(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in body:
        visit(stmt)
    return names


# --- break and continue ---------------------------------------------------------------------



class LoopFlags:
    """The two flags that stand for one loop's ``break`` and ``continue``.

    A ``break`` under a tensor condition cannot stop the graph being built, so every
    ``break``/``continue`` of the loop sets a flag instead, and the statements that may
    follow one run under ``if not (break or continue)``. While the conditions are Python
    constants the flags are Python bools and everything folds as before; a tensor
    condition makes them bool tensors, merged by tensor ifs like any variable. An
    unrolled loop then runs each later iteration under ``if not break``; a ``while``
    continues as a ``While`` node whose test also checks the flag. The names carry the
    loop's position, so nested loops keep their own flags. A ``return`` is a break that
    also sets ``RETURNED`` and ``RETURN_VALUE`` (and breaks the loops around it).
    """

    def __init__(self, loop: ast.For | ast.While):
        tag = f"{loop.lineno}_{loop.col_offset}"
        self.brk, self.cont = f"__msc_break_{tag}", f"__msc_continue_{tag}"
        self.loop = loop

    @classmethod
    def of(cls, loop: ast.For | ast.While) -> LoopFlags | None:
        """The flags of ``loop``, or None if its body cannot leave an iteration early."""
        return cls(loop) if _jumps(loop.body) else None

    def start(self, ev: Any) -> None:
        """Set the flags before the loop runs."""
        ev.scope.names[self.brk] = False
        if returns_in(self.loop.body):
            ev.scope.names.setdefault(RETURNED, False)

    def body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """``body`` with jumps as flags; the continue flag is cleared first."""
        return [self._set(self.cont, False, self.loop)] + self._guarded(body)

    def test(self, test: ast.expr) -> ast.expr:
        """A ``while`` test that is false once the loop broke."""
        return _at(_call(both, _call(negate, _name(self.brk)), test), test)

    def unless_broken(self, body: list[ast.stmt], at: ast.AST) -> ast.If:
        """``if not break: body`` (an iteration of an unrolled loop, or the ``else``)."""
        return _at(ast.If(_call(negate, _name(self.brk)), body, []), at)

    def _set(self, flag: str, value: bool, at: ast.AST) -> ast.stmt:
        return _at(ast.Assign([_name(flag, ast.Store())], ast.Constant(value)), at)

    def _guarded(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, stmt in enumerate(body):
            if isinstance(stmt, (ast.Break, ast.Continue)):
                flag = self.brk if isinstance(stmt, ast.Break) else self.cont
                out.append(self._set(flag, True, stmt))
                return out  # what follows never runs
            if isinstance(stmt, ast.Return):
                value = stmt.value if stmt.value is not None else ast.Constant(None)
                out += [_at(ast.Assign([_name(RETURN_VALUE, ast.Store())], value), stmt),
                        self._set(RETURNED, True, stmt), self._set(self.brk, True, stmt)]
                return out
            if isinstance(stmt, ast.If) and _jumps([stmt]):
                out.append(_at(ast.If(stmt.test, self._guarded(stmt.body),
                                      self._guarded(stmt.orelse)), stmt))
            elif isinstance(stmt, (ast.For, ast.While)) and returns_in([stmt]):
                out.append(stmt)  # it returned: leave this loop too
                out.append(_at(ast.If(_name(RETURNED), [self._set(self.brk, True, stmt)], []),
                               stmt))
            else:
                out.append(stmt)
                continue
            rest = body[i + 1:]
            if rest:
                going = _call(negate, _call(either, _name(self.brk), _name(self.cont)))
                out.append(_at(ast.If(_at(going, stmt), self._guarded(rest), []), stmt))
            return out
        return out

    def forget(self, ev: Any) -> None:
        for flag in (self.brk, self.cont):
            ev.scope.names.pop(flag, None)


def returns_in(body: list[ast.stmt]) -> bool:
    """Whether a ``return`` of the function occurs in ``body`` (not in nested functions)."""
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))
    return False


def negate(flag: Any) -> Any:
    """``not flag`` for a flag that is a Python bool or a bool tensor."""
    return apply(Op.LogicalNot, truth(flag)) if isinstance(flag, SymTensor) else not flag


def either(a: Any, b: Any) -> Any:
    """``a or b`` for flags (Python bools or bool tensors), folded where one is known."""
    return _fold(a, b, True)


def both(a: Any, b: Any) -> Any:
    """``a and b`` for a flag and a loop test, folded where one is known."""
    return _fold(a, b, False)


def _fold(a: Any, b: Any, is_or: bool) -> Any:
    known = [v for v in (a, b) if not isinstance(v, SymTensor)]
    if any(bool(v) == is_or for v in known):
        return is_or  # decides alone
    tensors = [truth(v) for v in (a, b) if isinstance(v, SymTensor)]
    if not tensors:
        return not is_or
    if len(tensors) == 1:
        return tensors[0]
    return apply(Op.LogicalOr if is_or else Op.LogicalAnd, *tensors)


def _jumps(body: list[ast.stmt]) -> bool:
    """Whether this loop's ``break``/``continue`` occur (not those of inner loops), or a
    ``return`` (anywhere in it)."""
    for stmt in body:
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, ast.If) and (_jumps(stmt.body) or _jumps(stmt.orelse)):
            return True
    return returns_in(body)


def _call(fn: Callable[..., Any], *args: ast.expr) -> ast.Call:
    """A call of one of msc's own functions, which the evaluator runs natively."""
    return ast.Call(ast.Constant(fn), list(args), [])


def _name(name: str, ctx: ast.expr_context | None = None) -> ast.Name:
    return ast.Name(name, ctx or ast.Load())


def _at(new: Any, old: ast.AST) -> Any:
    """``new`` (and its children without a position) at ``old``'s source position."""
    for child in ast.walk(new):
        if not hasattr(child, "lineno") and hasattr(old, "lineno"):
            ast.copy_location(child, old)
    return ast.copy_location(new, old)


# --- for over range(tensor) -----------------------------------------------------------------


def tensor_range_for(ev: Any, node: ast.For, bounds: list[Any]) -> None:
    """``for i in range(n)`` with a tensor bound: a counting ``while`` loop (the counter
    advances before the body, so ``continue`` works). The step must be a positive constant."""
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds[:2], 1) \
        if len(bounds) == 2 else bounds
    if isinstance(step, SymTensor) or not isinstance(step, int) or step <= 0:
        raise UnsupportedSyntaxError("a range over a tensor bound needs a positive constant "
                                     f"step, not {step!r}")
    tag = f"{node.lineno}_{node.col_offset}"
    counter, limit = f"__msc_counter_{tag}", f"__msc_stop_{tag}"
    ev.scope.names[counter] = start
    ev.scope.names[limit] = stop
    body = [_at(ast.Assign([node.target], _name(counter)), node),
            _at(ast.AugAssign(_name(counter, ast.Store()), ast.Add(), ast.Constant(step)), node),
            *node.body]
    test = ast.Compare(_name(counter), [ast.Lt()], [_name(limit)])
    ev.visit(_at(ast.While(_at(test, node.iter), body, node.orelse), node))
    for temp in (counter, limit):
        ev.scope.names.pop(temp, None)

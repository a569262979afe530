"""Rewrites of a function's AST before it is interpreted into a graph.

**``with``** over ``@jit_class`` context managers, as in MindSpore: each ``with`` becomes
the statements it stands for, in the body around it: the manager is checked, its ``__enter__`` is called and bound
to the ``as`` target, the body runs, and ``__exit__(None, None, None)`` is called where
the body ends and before every ``return``, ``break`` or ``continue`` that leaves it (inner
managers first). The rest of the evaluator then sees plain statements, so tensor ``if``s,
loops and early returns inside a ``with`` work as they do elsewhere. ``__exit__``'s result
is ignored and an exception raised in the body does not reach it, as in MindSpore's graph
mode, where a graph cannot catch exceptions.

**Conditions.** ``a and b`` / ``a or b`` give one of their operands, so in a graph both
must have one type; but where the expression is a condition (of ``if``, ``while``, ``a if
c else b``, ``assert``, ``not``) only its truth counts. There each operand stands for its
truth value, a 0-d bool, so ``if x in (t1, t2) and y > 0`` works with a 0-d ``in`` result
and a one-element ``y > 0``, as MindSpore's graph mode allows.
"""

from __future__ import annotations

import ast
from typing import Any

from msc.common.api import is_jit_class
from msc.common.tensor import SymTensor, Tensor
from msc.errors import GraphTypeError, UnsupportedSyntaxError

_EXPANDED: dict[int, tuple[ast.AST, ast.AST]] = {}


def expand(node: Any) -> Any:
    """``node`` (a function's AST) with its ``with`` statements expanded and its conditions
    made truth values; the same node when it has neither. Done once per parsed function."""
    if not isinstance(node, ast.FunctionDef) or \
            not any(isinstance(n, (ast.With, ast.BoolOp)) for n in ast.walk(node)):
        return node
    done = _EXPANDED.get(id(node))
    if done is None or done[0] is not node:
        done = (node, _Expand().visit(_copy(node)))
        _EXPANDED[id(node)] = done
    return done[1]


def manager(obj: Any) -> Any:
    """The object a graph's ``with`` may enter: a ``@jit_class`` instance with both
    methods (MindSpore 2.10 raises these types, with this wording)."""
    if not is_jit_class(obj) or isinstance(obj, type):
        got = "a graph tensor" if isinstance(obj, Tensor) else \
            f"{type(obj).__name__} object {obj!r}"
        raise GraphTypeError(f"Only support jit_class instance, but got {got}: a 'with' "
                             "statement in a graph takes a @jit_class object")
    for method in ("__enter__", "__exit__"):
        if getattr(type(obj), method, None) is None:
            raise UnsupportedSyntaxError(f"MsClassObject: '{type(obj).__name__}' has no "
                                         f"{method} function, please check the code.")
    return obj


def _copy(node: ast.AST) -> Any:
    """A deep copy that keeps the positions (and constants such as functions) as they are."""
    new = type(node)()
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            value = _copy(value)
        elif isinstance(value, list):
            value = [_copy(v) if isinstance(v, ast.AST) else v for v in value]
        setattr(new, field, value)
    for attr in node._attributes:
        if hasattr(node, attr):
            setattr(new, attr, getattr(node, attr))
    return new


def _at(new: Any, old: ast.AST) -> Any:
    for child in ast.walk(new):
        if not hasattr(child, "lineno"):
            ast.copy_location(child, old)
    return new


def truth_of(value: Any) -> Any:
    """A condition operand's truth: a 0-d bool tensor for a graph tensor (one element, as
    Python asks), a bool otherwise."""
    from msc.frontend.control import truth
    from msc.ops.functional import reshape

    return reshape(truth(value), ()) if isinstance(value, SymTensor) else bool(value)


def _condition(test: ast.expr) -> ast.expr:
    """``test`` where only its truth counts: the operands of its ``and``/``or`` become
    their truth values (through ``not`` and nested ``and``/``or``)."""
    if isinstance(test, ast.BoolOp):
        return ast.copy_location(ast.BoolOp(test.op, [_operand(v) for v in test.values]), test)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.copy_location(ast.UnaryOp(test.op, _condition(test.operand)), test)
    return test


def _operand(value: ast.expr) -> ast.expr:
    if isinstance(value, ast.BoolOp) or \
            isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return _condition(value)
    return _at(ast.copy_location(ast.Call(ast.Constant(truth_of), [value], []), value), value)


class _Expand(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return self.generic_visit(node)

    def _test(self, node: Any) -> Any:
        self.generic_visit(node)
        node.test = _condition(node.test)
        return node

    visit_If = visit_While = visit_IfExp = visit_Assert = _test

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        self.generic_visit(node)
        return _condition(node) if isinstance(node.op, ast.Not) else node

    def visit_comprehension(self, node: ast.comprehension) -> Any:
        self.generic_visit(node)
        node.ifs = [_condition(c) for c in node.ifs]
        return node

    def visit_With(self, node: ast.With) -> list[ast.stmt]:
        self.generic_visit(node)  # inner ``with``s first: their exits come first
        body: list[ast.stmt] = node.body
        for k in reversed(range(len(node.items))):
            body = _one(node.items[k], body, node, k)
        return body


def _one(item: ast.withitem, body: list[ast.stmt], at: ast.With, k: int) -> list[ast.stmt]:
    name = f"__msc_with_{at.lineno}_{at.col_offset}_{k}"
    load = ast.Name(name, ast.Load())
    check = ast.Call(ast.Constant(manager), [item.context_expr], [])
    enter = ast.Call(ast.Attribute(load, "__enter__", ast.Load()), [], [])
    out: list[ast.stmt] = [ast.Assign([ast.Name(name, ast.Store())], check)]
    out.append(ast.Assign([item.optional_vars], enter) if item.optional_vars is not None
               else ast.Expr(enter))

    def exit_(where: ast.AST) -> list[ast.stmt]:
        none = [ast.Constant(None)] * 3
        call = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "__exit__", ast.Load()),
                        none, [])
        return [_at(ast.copy_location(ast.Expr(call), where), where)]

    out = [_at(ast.copy_location(s, at), at) for s in out]
    out += _exits_before_leaving(body, exit_, name, in_loop=False)
    drop = ast.Delete([ast.Name(name, ast.Del())])  # a loop around must not carry it
    out += exit_(at) + [_at(ast.copy_location(drop, at), at)]
    return out


def _exits_before_leaving(body: list[ast.stmt], exit_: Any, name: str,
                          in_loop: bool) -> list[ast.stmt]:
    """``body`` with ``__exit__`` called before each ``return``, and before each
    ``break``/``continue`` of a loop around the ``with`` (not those of its own loops)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.Return):
            if stmt.value is None or isinstance(stmt.value, (ast.Name, ast.Constant)):
                out += [*exit_(stmt), stmt]  # nothing left to evaluate after the exit
                continue
            tmp = ast.Name(f"{name}_ret_{stmt.lineno}_{stmt.col_offset}", ast.Store())
            out += [_at(ast.copy_location(ast.Assign([tmp], stmt.value), stmt), stmt),
                    *exit_(stmt),
                    _at(ast.copy_location(ast.Return(ast.Name(tmp.id, ast.Load())), stmt),
                        stmt)]
        elif isinstance(stmt, (ast.Break, ast.Continue)) and not in_loop:
            out += [*exit_(stmt), stmt]
        elif isinstance(stmt, ast.If):
            stmt.body = _exits_before_leaving(stmt.body, exit_, name, in_loop)
            stmt.orelse = _exits_before_leaving(stmt.orelse, exit_, name, in_loop)
            out.append(stmt)
        elif isinstance(stmt, (ast.For, ast.While)):
            stmt.body = _exits_before_leaving(stmt.body, exit_, name, True)
            stmt.orelse = _exits_before_leaving(stmt.orelse, exit_, name, in_loop)
            out.append(stmt)
        else:
            out.append(stmt)
    return out

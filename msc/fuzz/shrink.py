"""Shrinking: the smallest program that still fails the same way.

Works on the program's Python syntax tree, so it shrinks any program (a generated one or
one written by hand). Passes, each tried position by position, cheapest first: delete
chunks of statements, then single statements; replace a compound statement by one of
its bodies, drop an ``else``; replace an expression by one of its operands, a condition
by a constant; zero array literals and numbers; shrink the inputs (values, then shapes).
An edit is kept when ``still_fails(candidate)``; the passes repeat until none helps or
the time is up. Edits never remove a ``while`` loop's counter step or make its test
always true, so a candidate cannot loop forever by construction.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import time
from typing import Callable, Iterator

import numpy as np

from msc.fuzz.generate import Program

Edit = Callable[[ast.Module], bool]  # changes the tree in place; False if it does not apply


def shrink(program: Program, still_fails: Callable[[Program], bool],
           seconds: float = 60.0) -> Program:
    """Greedy shrinking of ``program`` while ``still_fails``, for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    best = _normalised(program)
    if best.source != program.source and not still_fails(best):
        best = program
    tried: set[tuple[str, str]] = set()
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for candidates in (_chunk_deletions, _deletions, _flattenings, _expressions,
                           _literals, _inputs):
            options, position = candidates(best), 0
            while position < len(options) and time.monotonic() < deadline:
                candidate = options[position]()
                position += 1
                if candidate is None:
                    continue
                key = (candidate.source, _inputs_key(candidate))
                if key in tried:
                    continue
                tried.add(key)
                if still_fails(candidate):
                    best, changed = candidate, True
                    # the options of the smaller program, from where this one was found
                    options, position = candidates(best), position - 1
    return best


def size(program: Program) -> int:
    """Statements in the program, nested ones included, imports and ``K = 2`` not."""
    tree = ast.parse(program.source)
    return sum(isinstance(n, ast.stmt) and not isinstance(n, (ast.Import, ast.ImportFrom))
               for n in ast.walk(tree)) - 1


def _normalised(program: Program) -> Program:
    return dataclasses.replace(program, source=ast.unparse(ast.parse(program.source)) + "\n")


def _inputs_key(p: Program) -> str:
    return repr([(x.dtype.str, x.shape, x.tobytes()) for x in p.inputs])


def _apply(program: Program, edit: Edit) -> Program | None:
    tree = ast.parse(program.source)
    if not edit(tree):
        return None
    ast.fix_missing_locations(tree)
    try:
        source = ast.unparse(tree) + "\n"
        compile(source, "<candidate>", "exec")
    except (SyntaxError, ValueError):
        return None  # a ``break`` left outside its loop, an empty body, ...
    return dataclasses.replace(program, source=source)


Candidate = Callable[[], "Program | None"]


def _edits(program: Program, make: Callable[[ast.Module], Iterator[Edit]]) -> list[Candidate]:
    """The candidates of the edits ``make`` finds in a parse of ``program``: an edit is
    recorded by its position and replayed on a fresh parse only when it is tried."""
    def candidate(edit: Edit) -> Candidate:
        def run() -> Program | None:
            found = _apply(program, edit)
            return found if found is not None and found.source != program.source else None
        return run
    return [candidate(edit) for edit in make(ast.parse(program.source))]


# --- statements ---------------------------------------------------------------------------


def _bodies(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """Every statement list: (owner node, field name), in a fixed walk order."""
    out = []
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                out.append((node, name))
    return out


def _body_at(tree: ast.AST, index: int) -> list[ast.stmt]:
    owner, name = _bodies(tree)[index]
    return getattr(owner, name)  # type: ignore[no-any-return]


def _protected(owner: ast.AST, stmt: ast.stmt) -> bool:
    """The counter step of a ``while`` (first statement of its body), ``super().__init__``,
    imports, and the ``Net`` class itself."""
    if isinstance(owner, ast.While) and owner.body and stmt is owner.body[0]:
        return True
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(stmt, ast.ClassDef) and stmt.name == "Net":
        return True
    if isinstance(stmt, ast.FunctionDef) and stmt.name in ("__init__", "construct"):
        return True
    return isinstance(stmt, ast.Expr) and "super()" in ast.unparse(stmt)


def _replace_body(tree: ast.AST, index: int, start: int, stop: int,
                  new: list[ast.stmt]) -> bool:
    owner, name = _bodies(tree)[index]
    body = getattr(owner, name)
    if any(_protected(owner, s) for s in body[start:stop]):
        return False
    body[start:stop] = new
    if not body:
        if name == "orelse":
            return True
        body.append(ast.Pass())
    return True


def _chunk_deletions(program: Program) -> list[Candidate]:
    def make(tree: ast.Module) -> Iterator[Edit]:
        for i, (owner, name) in enumerate(_bodies(tree)):
            n = len(getattr(owner, name))
            step = n // 2
            while step >= 2:
                for start in range(0, n - step + 1, step):
                    yield lambda t, i=i, s=start, k=step: _replace_body(t, i, s, s + k, [])
                step //= 2
    return _edits(program, make)


def _deletions(program: Program) -> list[Candidate]:
    def make(tree: ast.Module) -> Iterator[Edit]:
        for i, (owner, name) in enumerate(_bodies(tree)):
            for j in reversed(range(len(getattr(owner, name)))):
                yield lambda t, i=i, j=j: _replace_body(t, i, j, j + 1, [])
    return _edits(program, make)


def _flattenings(program: Program) -> list[Candidate]:
    """A compound statement by one of its bodies (a loop's index bound to its first
    value), or without its ``else``."""
    def make(tree: ast.Module) -> Iterator[Edit]:
        for i, (owner, name) in enumerate(_bodies(tree)):
            for j, stmt in enumerate(getattr(owner, name)):
                if isinstance(stmt, ast.If):
                    yield lambda t, i=i, j=j: _inline(t, i, j, "body")
                    if stmt.orelse:
                        yield lambda t, i=i, j=j: _inline(t, i, j, "orelse")
                        yield lambda t, i=i, j=j: _drop_else(t, i, j)
                elif isinstance(stmt, (ast.For, ast.While)):
                    yield lambda t, i=i, j=j: _inline(t, i, j, "body")
    return _edits(program, make)


def _inline(tree: ast.AST, i: int, j: int, field: str) -> bool:
    stmt = _body_at(tree, i)[j]
    new = list(getattr(stmt, field))
    if isinstance(stmt, ast.For):
        first = _first_value(stmt.iter)
        if first is None:
            return False
        new = [ast.Assign([stmt.target], first)] + new
    if any(isinstance(n, (ast.Break, ast.Continue)) for s in new for n in ast.walk(s)) and \
            isinstance(stmt, (ast.For, ast.While)):
        return False
    return _replace_body(tree, i, j, j + 1, new)


def _first_value(it: ast.expr) -> ast.expr | None:
    if isinstance(it, ast.Tuple) and it.elts:
        return it.elts[0]
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
        return it.args[0] if len(it.args) > 1 else ast.Constant(0)
    return None


def _drop_else(tree: ast.AST, i: int, j: int) -> bool:
    stmt = _body_at(tree, i)[j]
    assert isinstance(stmt, ast.If)
    stmt.orelse = []
    return True


# --- expressions --------------------------------------------------------------------------


def _expr_nodes(tree: ast.AST) -> list[ast.expr]:
    """Expressions that may be replaced: not assignment targets, not in ``__init__`` or
    a ``while`` test (handled apart), in a fixed walk order."""
    out: list[ast.expr] = []

    def visit(node: ast.AST, skip: bool) -> None:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            return
        if isinstance(node, ast.While):
            out.append(node.test)  # replaced whole, see _options
            for s in node.body + node.orelse:
                visit(s, False)
            return
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):  # an item assignment's index stays
                    if isinstance(sub, ast.expr):
                        sub._msc_target = True  # type: ignore[attr-defined]
        if isinstance(node, ast.expr) and not skip and \
                not getattr(node, "_msc_target", False) and \
                not isinstance(node.ctx if hasattr(node, "ctx") else None, (ast.Store, ast.Del)):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child, skip)
    visit(tree, False)
    return out


def _options(node: ast.expr, parent_while: bool) -> list[ast.expr]:
    """Simpler expressions to put in ``node``'s place."""
    if parent_while:  # never always-true: keep the counter's part or stop the loop
        parts = node.values if isinstance(node, ast.BoolOp) else []
        return [ast.Constant(False)] + [p for p in parts if isinstance(p, ast.Compare)]
    out: list[ast.expr] = []
    if isinstance(node, ast.Call):
        out += [a for a in node.args if not isinstance(a, (ast.Constant, ast.Tuple, ast.Starred))
                and not (isinstance(a, ast.Attribute) and _is_module(a.value))]
        if isinstance(node.func, ast.Attribute) and not _is_module(node.func.value):
            out.append(node.func.value)  # x.sum() -> x
    elif isinstance(node, ast.BinOp):
        out += [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        out.append(node.operand)
    elif isinstance(node, ast.IfExp):
        out += [node.body, node.orelse]
    elif isinstance(node, ast.BoolOp):
        out += list(node.values)
    elif isinstance(node, ast.Subscript):
        out.append(node.value)
    elif isinstance(node, ast.Attribute) and node.attr == "T":
        out.append(node.value)
    elif isinstance(node, ast.Compare):
        out += [ast.Constant(True), ast.Constant(False)]
    return [n for n in out if not isinstance(n, ast.Constant) or isinstance(node, ast.Compare)]


def _is_module(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("ops", "ms", "np", "nn")


def _expressions(program: Program) -> list[Candidate]:
    def make(tree: ast.Module) -> Iterator[Edit]:
        nodes = _expr_nodes(tree)
        tests = {id(w.test) for w in ast.walk(tree) if isinstance(w, ast.While)}
        for k, node in enumerate(nodes):
            for o in range(len(_options(node, id(node) in tests))):
                yield lambda t, k=k, o=o: _replace_expr(t, k, o)
    return _edits(program, make)


def _replace_expr(tree: ast.Module, k: int, o: int) -> bool:
    nodes = _expr_nodes(tree)
    tests = {id(w.test) for w in ast.walk(tree) if isinstance(w, ast.While)}
    node = nodes[k]
    new = copy.deepcopy(_options(node, id(node) in tests)[o])
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is node:
                setattr(parent, name, new)
                return True
            if isinstance(value, list) and any(v is node for v in value):
                value[[id(v) for v in value].index(id(node))] = new
                return True
    return False


# --- literals and inputs ---------------------------------------------------------------


def _literals(program: Program) -> list[Candidate]:
    """``np.array([...])`` literals to zeros; float constants to 0.0 or 1.0."""
    def make(tree: ast.Module) -> Iterator[Edit]:
        for k, node in enumerate(ast.walk(tree)):
            if isinstance(node, ast.List) and _numbers(node) and \
                    any(v not in (0, 0.0, False) for v in _numbers(node)):
                yield lambda t, k=k: _zero_list(t, k)
            elif isinstance(node, ast.Constant) and type(node.value) is float and \
                    node.value not in (0.0, 1.0):
                for v in (0.0, 1.0):
                    yield lambda t, k=k, v=v: _set_constant(t, k, v)
    return _edits(program, make)


def _numbers(node: ast.List) -> list[object]:
    values = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]
    if not values or not all(isinstance(v, (int, float, bool)) for v in values):
        return []
    return values


def _zero_list(tree: ast.Module, k: int) -> bool:
    node = list(ast.walk(tree))[k]
    for n in ast.walk(node):
        if isinstance(n, ast.Constant):
            n.value = type(n.value)(0)
    return True


def _set_constant(tree: ast.Module, k: int, v: float) -> bool:
    node = list(ast.walk(tree))[k]
    assert isinstance(node, ast.Constant)
    node.value = v
    return True


def _inputs(program: Program) -> list[Candidate]:
    """Each input as zeros, as ones, then with one dimension cut to size 1."""
    out: list[Candidate] = []
    for i, x in enumerate(program.inputs):
        options = [np.zeros_like(x), np.ones_like(x)]
        for axis, d in enumerate(x.shape):
            if d > 1:
                options.append(np.take(x, [0], axis=axis))
        for option in options:
            if option.shape != x.shape or not np.array_equal(option, x):
                inputs = list(program.inputs)
                inputs[i] = option
                out.append(lambda inputs=inputs: dataclasses.replace(program, inputs=inputs))
    return out

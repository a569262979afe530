"""Shrinking: the smallest program that still disagrees the same way.

Edits are tried one at a time, smallest result first: delete a statement, replace a
compound statement by one of its bodies, drop an ``else``. An edit is kept when the
program still shows the same disagreement (same way of running, same kind of problem);
an edit that breaks the program (eager mode then fails differently) is simply not kept.
"""

from __future__ import annotations

import copy
import time
from typing import Callable, Iterator

from msc.fuzz.generate import Program, Stmt


def shrink(program: Program, still_fails: Callable[[Program], bool],
           seconds: float = 60.0) -> Program:
    """Greedy shrinking of ``program`` while ``still_fails``, for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    best = program
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        for candidate in _edits(best):
            if time.monotonic() >= deadline:
                break
            if still_fails(candidate):
                best, improved = candidate, True
                break
    return best


def size(program: Program) -> int:
    """Statements in the program, nested ones included."""
    def count(body: list[Stmt]) -> int:
        return sum(1 + sum(count(b) for b in s.bodies) for s in body)
    return count(program.body)


def _edits(program: Program) -> Iterator[Program]:
    paths = list(_paths(program.body, ()))
    for path in paths:  # delete a statement (never the final return)
        if path != (len(program.body) - 1,) and not _at(program.body, path).keep:
            yield _edit(program, path, lambda stmt: [])
    for path in paths:  # a compound statement by one of its bodies, or without its else
        stmt = _at(program.body, path)
        for i, body in enumerate(stmt.bodies):
            yield _edit(program, path, lambda _s, body=body: copy.deepcopy(body))
            if i == 1:
                yield _edit(program, path, lambda s: [Stmt(s.head, s.bodies[:1], s.keep)])


def _paths(body: list[Stmt], prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every statement's position: its index in each enclosing body, bodies as (i, b)."""
    for i, stmt in enumerate(body):
        yield prefix + (i,)
        for b, inner in enumerate(stmt.bodies):
            yield from _paths(inner, prefix + (i, b))


def _at(body: list[Stmt], path: tuple[int, ...]) -> Stmt:
    stmt = body[path[0]]
    for i in range(1, len(path), 2):
        stmt = stmt.bodies[path[i]][path[i + 1]]
    return stmt


def _edit(program: Program, path: tuple[int, ...],
          change: Callable[[Stmt], list[Stmt]]) -> Program:
    body = copy.deepcopy(program.body)
    container = body
    for i in range(0, len(path) - 1, 2):
        container = container[path[i]].bodies[path[i + 1]]
    index = path[-1]
    container[index:index + 1] = change(container[index])
    return Program(program.inputs, program.params, body, program.features)

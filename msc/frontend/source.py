"""Source text of user functions, and locations in the user's files.

``parse_function`` returns a function's AST with line and column numbers already
corrected to the real file (``getsourcelines`` starts mid-file and ``dedent`` removes
indentation), so every ``Loc`` built from it points at the user's own text.
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
from dataclasses import dataclass
from types import FrameType
from typing import Any, Callable

from msc.errors import Loc, UnsupportedSyntaxError
from msc.frontend.active import current_builder

_MSC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class ParsedFunction:
    """A function's ``ast.FunctionDef`` (or ``Lambda``) and the file it came from."""

    node: ast.FunctionDef | ast.Lambda
    file: str


_CACHE: dict[Any, ParsedFunction] = {}


def parse_function(fn: Callable[..., Any]) -> ParsedFunction:
    """Parse ``fn``'s source; positions in the AST are positions in the real file."""
    code = fn.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name, code)
    if key in _CACHE:
        return _CACHE[key]
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise UnsupportedSyntaxError(
            f"cannot read the source of '{code.co_name}' (defined in {code.co_filename}); "
            "graphs can only be built from functions defined in files") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(raw.splitlines()[0]) - len(text.splitlines()[0])
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a lambda inside a larger expression: its lines are a fragment
        raise UnsupportedSyntaxError(
            f"cannot isolate the source of '{code.co_name}' at {code.co_filename}:{first}; "
            "define it with 'def' to compile it") from None
    for node in ast.walk(tree):
        if hasattr(node, "lineno"):
            node.lineno += first - 1
            node.end_lineno = (node.end_lineno or node.lineno) + first - 1
            node.col_offset += indent
            node.end_col_offset = (node.end_col_offset or 0) + indent
    fn_node = _find_def(tree, code)
    parsed = ParsedFunction(fn_node, code.co_filename)
    _CACHE[key] = parsed
    return parsed


def _find_def(tree: ast.Module, code: Any) -> ast.FunctionDef | ast.Lambda:
    body = tree.body[0] if tree.body else None
    if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if isinstance(body, ast.AsyncFunctionDef):
            raise UnsupportedSyntaxError("async functions cannot be compiled",
                                         loc_of(body, code.co_filename))
        return body
    # a lambda: its line holds the whole statement, and maybe other lambdas: the one
    # whose span holds every instruction of the code is it (the innermost such)
    lambdas = [node for node in ast.walk(tree)
               if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno]
    spots = [(line, col) for line, _, col, end in code.co_positions()
             if line is not None and col is not None and end]  # (not the frame set-up)
    fits = [node for node in lambdas if all(_inside(node, spot) for spot in spots)]
    if len(lambdas) == 1 or len(fits) >= 1:
        return min(fits or lambdas, key=lambda node: (  # type: ignore[no-any-return]
            node.end_lineno - node.lineno, node.end_col_offset - node.col_offset))
    raise UnsupportedSyntaxError(f"cannot find the definition of '{code.co_name}'")


def _inside(node: ast.Lambda, spot: tuple[int, int]) -> bool:
    return (node.lineno, node.col_offset) <= spot <= (node.end_lineno,  # type: ignore[operator]
                                                      node.end_col_offset)


def loc_of(node: ast.AST, file: str) -> Loc:
    return Loc(file, node.lineno, node.col_offset,  # type: ignore[attr-defined]
               getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))


def is_msc_file(path: str) -> bool:
    return os.path.abspath(path).startswith(_MSC_DIR + os.sep)


def user_loc() -> Loc | None:
    """The innermost stack position outside msc: where an eager op was called. While a
    graph is being built, the stack holds msc's evaluator, not the user's code: None, and
    the evaluator attaches the line of the statement it runs."""
    if current_builder() is not None:
        return None
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and is_msc_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    positions = list(code.co_positions()) if hasattr(code, "co_positions") else []
    index = frame.f_lasti // 2
    if 0 <= index < len(positions) and positions[index][0] is not None:
        line, end_line, col, end_col = positions[index]
        return Loc(code.co_filename, line, col or 0, end_line, end_col)
    return Loc(code.co_filename, frame.f_lineno)

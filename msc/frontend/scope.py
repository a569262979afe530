"""Name resolution while a graph is built: local scopes chained to the enclosing ones and,
at the end, to the function's globals, closure and builtins (``Scope``), and functions
defined inside a graph (``Closure``, with the signature Python would give them). Every
global and closure variable read is recorded in the compile's ``Deps``; a variable a
tensor ``if`` could not merge (``Unmerged``) is an error to read.
"""

from __future__ import annotations

import ast
import inspect
from typing import TYPE_CHECKING, Any

from msc.errors import GraphNameError, UnsupportedSyntaxError

if TYPE_CHECKING:  # the evaluator builds scopes and closures; they only call it back
    from msc.frontend.evaluator import Evaluator


class Scope:
    """Local variables, chained to the enclosing scope (nested ``def``/lambda) and,
    at the end, to the function's globals and closure."""

    def __init__(self, names: dict[str, Any], parent: Scope | None, globals_: dict[str, Any],
                 closure: dict[str, Any], function: Any = None):
        self.names = names
        self.parent = parent
        self.globals = globals_
        self.closure = closure
        self.function = function  # whose ``__closure__`` ``closure`` came from
        self.declared_global: set[str] = set()  # names of ``global`` statements

    def lookup(self, name: str, ctx: Evaluator) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                value = scope.names[name]
                if isinstance(value, Unmerged):
                    raise UnsupportedSyntaxError(value.message)
                return value
            if name in scope.closure:
                return ctx.deps.read_closure(scope.function, name, scope.closure[name])
            scope = scope.parent
        if name in self.globals:
            return ctx.deps.read_global(self.globals, name)
        builtins = self.globals.get("__builtins__", __builtins__)
        table = builtins if isinstance(builtins, dict) else vars(builtins)
        if name in table:
            return table[name]
        raise GraphNameError(f"name '{name}' is not defined")


class Unmerged:
    """A variable a tensor ``if`` cannot merge (assigned in one branch only, or an object
    other than a tensor or number that differs between the branches). Python would know
    at run time which one it is; a graph does not, so using it afterwards is an error."""

    def __init__(self, message: str):
        self.message = message


class Closure:
    """A function defined inside a graph (``def`` or ``lambda``): code, its scope, and
    its signature with defaults evaluated where it was defined, as Python does."""

    def __init__(self, node: ast.FunctionDef | ast.Lambda, ev: Evaluator):
        self.node = node
        self.scope = ev.scope
        self.file = ev.file
        self.calls = ev.calls
        self.__name__ = getattr(node, "name", "<lambda>")
        self.signature = _signature(node.args, ev)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Called from native code (``map``, ``sorted(key=...)``, ops taking functions)."""
        return self.calls.call_closure(self, list(args), kwargs)


def _signature(a: ast.arguments, ev: Evaluator) -> inspect.Signature:
    P = inspect.Parameter
    positional = [(x, P.POSITIONAL_ONLY) for x in a.posonlyargs] + \
                 [(x, P.POSITIONAL_OR_KEYWORD) for x in a.args]
    defaults = [ev.visit(d) for d in a.defaults]
    first_default = len(positional) - len(defaults)
    params = [P(x.arg, kind, default=defaults[i - first_default] if i >= first_default
                else P.empty) for i, (x, kind) in enumerate(positional)]
    if a.vararg:
        params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
    for x, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append(P(x.arg, P.KEYWORD_ONLY, default=P.empty if d is None else ev.visit(d)))
    if a.kwarg:
        params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(params)

"""The partial evaluator: interprets a function's AST with Python values known and
tensor values symbolic.

Python-level work (loops over ranges, tuples and CellLists, constant ``if``,
attribute lookups, helper calls) happens now, at compile time; every tensor
operation becomes an IR node through ``apply``. The supported subset of Python is
exactly the set of ``visit_*`` methods below: anything else is rejected with the
construct's name and the user's line.
"""

from __future__ import annotations

import ast
import operator
import warnings
from typing import Any

from msc.common.tensor import Parameter, SymTensor, Tensor, apply
from msc.errors import (
    GraphTypeError,
    GraphValueError,
    Loc,
    MscError,
    SideEffectWarning,
    UnsupportedSyntaxError,
    as_user_error,
)
from msc.frontend import control, loops
from msc.frontend.control import _Return
from msc.frontend.builder import GraphBuilder
from msc.frontend.effects import refuse_file_effects
from msc.frontend.scope import Closure, Scope
from msc.frontend.source import loc_of
from msc.ir.primitives import Op
from msc.ir.types import RefType
from msc.ops.function import indexing
from msc.ops.function import side_effect_func as effects

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: _contains(b, a),
    ast.NotIn: lambda a, b: loops.negate(_contains(b, a)),
}


def _contains(seq: Any, item: Any) -> Any:
    """``item in seq``. For a tensor in a tuple or list (graph tensors or constants),
    MindSpore's graph-mode answer: a bool tensor, true where an element of the same dtype
    and shape equals it in every position (other elements never match; none left: False).
    Python's own ``in`` would take the truth value of an elementwise comparison."""
    from msc.ops.functional import all as all_of

    if not (isinstance(item, Tensor) and isinstance(seq, (tuple, list))):
        return item in seq
    found: Any = False
    for e in seq:
        if isinstance(e, Tensor) and (e.dtype, e.shape) == (item.dtype, item.shape):
            found = loops.either(found, all_of(apply(Op.Equal, item, e)))
    return found
_UNSUPPORTED = {
    "Try": "try/except", "TryStar": "try/except*", "With": "with", "AsyncWith": "async with",
    "AsyncFor": "async for", "AsyncFunctionDef": "async def", "Await": "await",
    "Yield": "yield", "YieldFrom": "yield from", "Nonlocal": "nonlocal",
    "ClassDef": "class definitions", "Import": "import", "ImportFrom": "import",
    "Match": "match", "Set": "set literals", "SetComp": "set comprehensions",
}
#: Unrolled Python-constant ``while`` loops stop here: a graph must stay finite.
MAX_UNROLL = 100_000


class Evaluator(ast.NodeVisitor):
    """Interprets one function body. ``calls`` (see ``calls.py``) runs nested calls."""

    def __init__(self, builder: GraphBuilder, scope: Scope, file: str, deps: Any, calls: Any):
        self.builder = builder
        self.scope = scope
        self.file = file
        self.deps = deps
        self.calls = calls
        self.loops = 0  # how many loops of this function are running

    # --- driver ---------------------------------------------------------------------

    def visit(self, node: ast.AST) -> Any:
        if not hasattr(node, "lineno"):
            return super().visit(node)
        loc = loc_of(node, self.file)
        outer = self.builder.loc
        self.builder.loc = loc
        try:
            return super().visit(node)
        except (_Return, control.Raised):
            raise
        except MscError as e:
            raise e.with_loc(loc)
        except RecursionError:
            raise UnsupportedSyntaxError("recursion too deep while building the graph "
                                         "(recursion on tensor values cannot be compiled)",
                                         loc) from None
        finally:
            self.builder.loc = outer

    def generic_visit(self, node: ast.AST) -> Any:
        what = _UNSUPPORTED.get(type(node).__name__, type(node).__name__)
        raise UnsupportedSyntaxError(f"'{what}' is not supported in a graph")

    def run_body(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.If) and i + 1 < len(body) and loops.returns_in([stmt]):
                # ``if c: return a`` then more code: the code after the if belongs to every
                # branch that falls through, so a tensor if sees both branches return.
                rest = body[i + 1:]
                self.visit(ast.copy_location(ast.If(stmt.test, stmt.body + rest,
                                                    (stmt.orelse or []) + rest), stmt))
                return
            self.visit(stmt)
            if isinstance(stmt, (ast.For, ast.While)) and not self.loops and \
                    control.RETURNED in self.scope.names:
                self.return_after_loop(stmt, body[i + 1:])
                return

    def return_after_loop(self, loop: ast.stmt, rest: list[ast.stmt]) -> None:
        """After an outermost loop that may have returned (``loops.LoopFlags``): return
        its value if it did, else run the rest of the body."""
        returned = self.scope.names.pop(control.RETURNED)
        if returned is True:
            raise _Return(self.scope.names.pop(control.RETURN_VALUE))
        if returned is False:
            self.run_body(rest)
            return
        # the flag and value under this loop's own names: loops in ``rest`` start afresh
        tag = f"{loop.lineno}_{loop.col_offset}"
        flag, slot = f"{control.RETURNED}_{tag}", f"{control.RETURN_VALUE}_{tag}"
        self.scope.names[flag] = returned
        self.scope.names[slot] = self.scope.names.pop(control.RETURN_VALUE)
        self.visit(loops._at(ast.If(loops._name(flag), [loops._at(
            ast.Return(loops._name(slot)), loop)], rest), loop))

    @property
    def loc(self) -> Loc | None:
        return self.builder.loc

    def guarded(self, fn: Any, *args: Any) -> Any:
        """Call a Python-level operation; its exceptions become msc errors at this line."""
        try:
            return fn(*args)
        except MscError:
            raise
        except (TypeError, ValueError, AttributeError, IndexError, KeyError,
                ZeroDivisionError) as e:
            raise as_user_error(e, f"{type(e).__name__}: {e}") from None

    # --- statements -----------------------------------------------------------------

    def visit_Expr(self, node: ast.Expr) -> None:
        self.visit(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Return(self, node: ast.Return) -> None:
        raise _Return(None if node.value is None else self.visit(node.value))

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.visit(node.value))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        current = self.visit(_as_load(node.target))
        op = _BINOPS[type(node.op)]
        inplace = getattr(operator, f"i{op.__name__.strip('_')}_", None)
        fn = inplace if isinstance(current, list) and inplace is not None else op
        self.assign(node.target, self.guarded(fn, current, self.visit(node.value)))

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if not isinstance(target, ast.Name):
                raise UnsupportedSyntaxError("only local names can be deleted in a graph")
            self.scope.names.pop(target.id, None)

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            if target.id in self.scope.declared_global:
                self.warn_no_effect(f"assigning the global '{target.id}' inside a graph has no "
                                    "effect outside it: the graph only sees the new value")
            self.scope.names[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.assign_unpack(target.elts, value)
        elif isinstance(target, ast.Subscript):
            container = self.visit(target.value)
            if isinstance(container, Tensor):
                self.assign_item(target, container, value)
                return
            self.guarded(operator.setitem, container, self.visit(target.slice), value)
        elif isinstance(target, ast.Attribute):
            owner = self.visit(target.value)
            if isinstance(getattr(owner, target.attr, None), Parameter):
                effects.assign(getattr(owner, target.attr), value)  # as Cell.__setattr__
                return
            self.warn_no_effect(f"setting attribute '{target.attr}' of "
                                f"{type(owner).__name__} inside a graph has no effect outside "
                                "it (only a Parameter is written back: make it a Parameter "
                                "and use ops.assign)")
        else:
            raise UnsupportedSyntaxError(f"cannot assign to {type(target).__name__}")

    def assign_item(self, target: ast.Subscript, tensor: Tensor, value: Any) -> None:
        """``x[key] = value``: a Parameter is written in place; a local tensor is rebound
        to the updated copy, which is what Python shows unless another name holds the
        same tensor (then an error: that name would keep the old values)."""
        new = indexing.setitem(tensor, self.visit(target.slice), value)
        if isinstance(tensor, Parameter) or _is_ref(tensor):
            effects.assign(tensor, new)
            return
        if not isinstance(target.value, ast.Name):
            raise UnsupportedSyntaxError("item assignment in a graph updates a local tensor "
                                         "variable or a Parameter; assign this tensor to a "
                                         "name first")
        name = target.value.id
        for other, held in self.scope.names.items():
            if other != name and _holds(held, tensor):
                raise UnsupportedSyntaxError(f"'{name}' is also '{other}': a graph updates a "
                                             f"tensor by rebinding '{name}', so '{other}' "
                                             "would keep the old values; copy it first")
        self.scope.names[name] = new

    def warn_no_effect(self, message: str) -> None:
        """A write the compiled graph cannot perform, reported at the user's line."""
        loc = self.loc
        warnings.warn_explicit(message, SideEffectWarning, loc.file if loc else self.file,
                               loc.line if loc else 0)

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.declared_global.update(node.names)

    def assign_unpack(self, targets: list[ast.expr], value: Any) -> None:
        items = self.guarded(tuple, value)
        starred = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        if not starred:
            if len(items) != len(targets):
                raise GraphTypeError(f"cannot unpack {len(items)} values into "
                                     f"{len(targets)} names")
            for t, v in zip(targets, items):
                self.assign(t, v)
            return
        s = starred[0]
        tail = len(targets) - s - 1
        if len(items) < len(targets) - 1:
            raise GraphTypeError(f"cannot unpack {len(items)} values into "
                                 f"{len(targets)} names")
        for t, v in zip(targets[:s], items[:s]):
            self.assign(t, v)
        self.assign(targets[s].value, list(items[s:len(items) - tail]))  # type: ignore
        for t, v in zip(targets[s + 1:], items[len(items) - tail:]):
            self.assign(t, v)

    def visit_If(self, node: ast.If) -> None:
        value = self.visit(node.test)
        if isinstance(value, SymTensor):
            control.tensor_if(self, node, value)
            return
        self.run_body(node.body if self.guarded(bool, value) else node.orelse)

    def condition(self, test: ast.expr) -> bool:
        value = self.visit(test)
        if isinstance(value, SymTensor):
            raise UnsupportedSyntaxError("a comprehension's 'if' on a tensor is not "
                                         "supported: the number of items would depend on "
                                         "run-time values")
        return bool(self.guarded(bool, value))

    def visit_For(self, node: ast.For) -> None:
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                not it.keywords and self.visit(it.func) is range:
            bounds = [self.visit(a) for a in it.args]
            if any(isinstance(b, SymTensor) for b in bounds):  # a loop run by the graph
                loops.tensor_range_for(self, node, bounds)
                return
            iterable: Any = self.guarded(range, *bounds)
        else:
            iterable = self.visit(it)
        if isinstance(iterable, SymTensor):
            iterable = [iterable[i] for i in range(len(iterable))]
        items = self.guarded(list, iterable)
        flags = loops.LoopFlags.of(node)
        if flags is None:
            for item in items:
                self.assign(node.target, item)
                self.run_body(node.body)
            self.run_body(node.orelse)
            return
        # unrolled with flags: each iteration runs unless a break so far says otherwise
        item_name = f"{flags.brk}_item"
        body = [loops._at(ast.Assign([node.target], loops._name(item_name)), node),
                *flags.body(node.body)]
        flags.start(self)
        self.loops += 1
        for item in items:
            if self.scope.names[flags.brk] is True:
                break
            self.scope.names[item_name] = item
            self.visit(flags.unless_broken(body, node))
        self.loops -= 1
        self.visit(flags.unless_broken(node.orelse, node))
        flags.forget(self)
        self.scope.names.pop(item_name, None)

    def visit_While(self, node: ast.While) -> None:
        flags = loops.LoopFlags.of(node)
        body = node.body if flags is None else flags.body(node.body)
        if flags is not None:
            flags.start(self)
        self.loops += 1
        for _ in range(MAX_UNROLL):
            broke = False if flags is None else self.scope.names[flags.brk]
            if broke is True:
                break
            value = broke if isinstance(broke, SymTensor) else self.visit(node.test)
            if isinstance(value, SymTensor):  # the rest of the loop runs as a While node
                test = node.test if flags is None else flags.test(node.test)
                loops.tensor_while(self, loops._at(ast.While(test, body, []), node))
                break
            if not self.guarded(bool, value):
                break
            self.run_body(body)
        else:
            raise UnsupportedSyntaxError(f"a Python-constant while loop ran {MAX_UNROLL} "
                                         "times; it would unroll into too large a graph")
        self.loops -= 1
        if flags is None:
            self.run_body(node.orelse)
            return
        self.visit(flags.unless_broken(node.orelse, node))
        flags.forget(self)

    def visit_Break(self, node: ast.Break) -> None:
        raise UnsupportedSyntaxError("'break' outside a loop (or inside a statement msc "
                                     "cannot run it from)")

    def visit_Continue(self, node: ast.Continue) -> None:
        raise UnsupportedSyntaxError("'continue' outside a loop (or inside a statement msc "
                                     "cannot run it from)")

    def visit_Assert(self, node: ast.Assert) -> None:
        value = self.visit(node.test)
        if isinstance(value, SymTensor):  # checked at run time: a Raise under a tensor if
            failed = f"__msc_assert_{node.lineno}_{node.col_offset}"
            self.scope.names[failed] = loops.negate(value)
            error = ast.Call(ast.Constant(AssertionError), [] if node.msg is None
                             else [node.msg], [])
            self.visit(loops._at(ast.If(loops._name(failed), [ast.Raise(error, None)], []),
                                   node))
            self.scope.names.pop(failed, None)
            return
        if not self.guarded(bool, value):  # fails whenever it is reached: a raise
            exc = AssertionError(*(() if node.msg is None else (self.visit(node.msg),)))
            self.raise_(exc)

    def raise_(self, exc: BaseException) -> None:
        """Raise ``exc`` where graph building reached it: at run time under a tensor
        condition (a ``Raise`` node), now otherwise."""
        if isinstance(self.builder, control.RegionBuilder):
            control.raise_at_run_time(self.builder, exc)
        exc.add_note(f"raised while building the graph, at {self.loc}")
        setattr(exc, control.USER_RAISE, True)
        raise exc

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = self.visit(node.exc) if node.exc is not None else RuntimeError("re-raise")
        if isinstance(exc, type):
            exc = exc()
        if not isinstance(exc, BaseException):
            raise GraphTypeError("exceptions must derive from BaseException")
        self.raise_(exc)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.decorator_list:
            raise UnsupportedSyntaxError("decorated functions cannot be defined in a graph")
        self.scope.names[node.name] = Closure(node, self)

    # --- expressions ----------------------------------------------------------------

    def visit_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def visit_Name(self, node: ast.Name) -> Any:
        return self.scope.lookup(node.id, self)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.visit(node.value)
        self.assign(node.target, value)
        return value

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        return self.calls.get_attribute(self.visit(node.value), node.attr)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        container, index = self.visit(node.value), self.visit(node.slice)
        if isinstance(index, SymTensor) and isinstance(container, (tuple, list)):
            return control.choose(self, index, list(container))  # chosen at run time
        return self.guarded(operator.getitem, container, index)

    def visit_Slice(self, node: ast.Slice) -> slice:
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else self.visit(p) for p in parts))

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        op = _BINOPS.get(type(node.op))
        if op is None:
            return self.generic_visit(node)
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and _number(left) and \
                _number(right) and right == 0:  # MindSpore's graph-mode errors, not Python's
            raise GraphValueError("Cannot perform modulo operation on zero."
                                  if isinstance(node.op, ast.Mod) else
                                  "The divisor could not be zero. But the divisor is zero now.",
                                  self.loc)
        return self.guarded(op, left, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return loops.negate(value) if isinstance(value, SymTensor) \
                else not self.guarded(bool, value)
        op = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
        return self.guarded(op[type(node.op)], value)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        value = self.visit(node.values[0])
        for operand in node.values[1:]:
            if isinstance(value, SymTensor):
                value = control.tensor_boolop(self, value, operand, is_and)
                continue
            if bool(self.guarded(bool, value)) != is_and:
                return value
            value = self.visit(operand)
        return value

    def visit_Compare(self, node: ast.Compare) -> Any:
        left = self.visit(node.left)
        result: Any = True
        for op, comparator in zip(node.ops, node.comparators):
            right = self.visit(comparator)
            step = self.guarded(_CMPOPS[type(op)], left, right)
            if result is True:
                result = step
            elif isinstance(result, SymTensor) or isinstance(step, SymTensor):
                result = apply(Op.LogicalAnd, result, step)
            else:
                result = result and step
            if result is False:
                return False
            left = right
        return result

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        value = self.visit(node.test)
        if isinstance(value, SymTensor):
            return control.tensor_ifexp(self, node, value)
        return self.visit(node.body) if self.guarded(bool, value) else self.visit(node.orelse)

    def visit_Call(self, node: ast.Call) -> Any:
        fn = self.visit(node.func)
        refuse_file_effects(fn, node)  # (before the arguments: nothing of the call runs)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.guarded(list, self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.guarded(dict, self.visit(kw.value)))
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        return self.calls.call(fn, args, kwargs, self)

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.elements(node.elts))

    def visit_List(self, node: ast.List) -> list[Any]:
        return self.elements(node.elts)

    def elements(self, elts: list[ast.expr]) -> list[Any]:
        out: list[Any] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.guarded(list, self.visit(e.value)))
            else:
                out.append(self.visit(e))
        return out

    def visit_Dict(self, node: ast.Dict) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(self.visit(v))
            else:
                out[self.guarded(_hashable, self.visit(k))] = self.visit(v)
        return out

    def visit_JoinedStr(self, node: ast.JoinedStr) -> str:
        return "".join(str(self.visit(v)) for v in node.values)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> str:
        value = self.visit(node.value)
        if isinstance(value, SymTensor):
            raise GraphTypeError("a graph tensor has no value to format at compile time")
        conv = {-1: value, 115: str(value), 114: repr(value), 97: ascii(value)}[node.conversion]
        spec = self.visit(node.format_spec) if node.format_spec is not None else ""
        return self.guarded(format, conv, spec)

    def visit_Lambda(self, node: ast.Lambda) -> Closure:
        return Closure(node, self)

    def visit_ListComp(self, node: ast.ListComp) -> list[Any]:
        out: list[Any] = []
        self.comprehension(node.generators, lambda: out.append(self.visit(node.elt)))
        return out

    visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]

    def visit_DictComp(self, node: ast.DictComp) -> dict[Any, Any]:
        out: dict[Any, Any] = {}

        def emit() -> None:
            out[self.visit(node.key)] = self.visit(node.value)
        self.comprehension(node.generators, emit)
        return out

    def comprehension(self, generators: list[ast.comprehension], emit: Any) -> None:
        outer = self.scope
        self.scope = Scope({}, outer, outer.globals, {})
        try:
            self._comprehend(generators, emit)
        finally:
            self.scope = outer

    def _comprehend(self, generators: list[ast.comprehension], emit: Any) -> None:
        if not generators:
            emit()
            return
        gen, rest = generators[0], generators[1:]
        iterable = self.visit(gen.iter)
        if isinstance(iterable, SymTensor):
            iterable = [iterable[i] for i in range(len(iterable))]
        for item in self.guarded(list, iterable):
            self.assign(gen.target, item)
            if all(self.condition(c) for c in gen.ifs):
                self._comprehend(rest, emit)


def _holds(value: Any, tensor: Any) -> bool:
    """Whether ``value`` is ``tensor`` or a tuple, list or dict that contains it."""
    if value is tensor:
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds(v, tensor) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, tensor) for v in value.values())
    return False


def _is_ref(x: Any) -> bool:
    return isinstance(x, SymTensor) and isinstance(x.ssa.type, RefType)


def _as_load(target: ast.expr) -> ast.expr:
    """The same expression in load context (for ``x += 1``)."""
    node = ast.parse(ast.unparse(target), mode="eval").body
    ast.copy_location(node, target)
    for child in ast.walk(node):
        ast.copy_location(child, target)
    return node


def _hashable(key: Any) -> Any:
    hash(key)
    return key


def _number(v: Any) -> bool:
    """A Python number (a graph folds arithmetic on them while it is built)."""
    return isinstance(v, (bool, int, float))

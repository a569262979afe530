"""Calls and attribute reads inside a graph.

User code (functions, methods, ``construct`` of user Cells, functions defined in
the graph) is interpreted from its AST, so its Python-level work happens at
compile time and its tensor work becomes IR. msc's own functions (ops, layers,
Tensor methods) and Python builtins run natively: on graph tensors they emit IR
through ``apply``.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import threading
import types
from typing import Any

from msc.common import amp_scope
from msc.common.api import is_jit_class
from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import (
    GraphAttributeError,
    GraphTypeError,
    GraphValueError,
    MscError,
    UnsupportedSyntaxError,
    as_user_error,
)
from msc.frontend import control, desugar, recursion
from msc.frontend.builder import GraphBuilder, has_constants, to_output
from msc.frontend.control import _Return
from msc.frontend.deps import Deps
from msc.frontend.evaluator import Evaluator
from msc.frontend.hooks import is_cell, is_cell_class
from msc.frontend.jit import JitFunction
from msc.frontend.scope import Closure, Scope
from msc.frontend.source import is_msc_file, parse_function
from msc.ir.primitives import Op
from msc.ir.types import MonadType, TupleType
from msc.ops.function.side_effect_func import print_in_graph

#: The method by which an object runs a call in a graph its own way: ``type(obj).
#: __msc_graph_call__(obj, calls, args, kwargs, ev)``. ``HyperMap`` and ``MultitypeFuncGraph``
#: (``ops/composite/base.py``, above the front end: it holds ``GradOperation``) have it.
GRAPH_CALL = "__msc_graph_call__"

#: Nested calls deeper than this are reported as unbounded recursion (MindSpore's default
#: call depth limit). Recursion on Python constants unrolls up to it.
MAX_DEPTH = 1000
#: Python frames the interpretation of that many nested calls may need.
_PY_FRAMES = 40 * MAX_DEPTH


def _graph_type(args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``type(x)`` of a graph tensor is ``Tensor``, as in MindSpore (so that
    ``isinstance(self.weight, type(x))`` holds for a Parameter)."""
    return Tensor if len(args) == 1 and not kwargs and isinstance(args[0], SymTensor) else None


def _graph_extreme(op: Any) -> Any:
    """``max``/``min`` with graph tensors: of one tensor, its largest (smallest) element;
    of several one-element tensors (or a tuple of them), the first largest one, chosen
    at run time. A larger tensor has no truth value, as in Python."""
    from msc.frontend.control import truth

    def run(args: list[Any], kwargs: dict[str, Any]) -> Any:
        if kwargs:
            return None
        items = args[0] if len(args) == 1 else args
        if isinstance(items, SymTensor):
            return apply(Op.ReduceMax if op is Op.Greater else Op.ReduceMin, items)
        items = list(items) if isinstance(items, (tuple, list)) else None
        if not items or not any(isinstance(v, SymTensor) for v in items):
            return None
        best = items[0]
        for v in items[1:]:
            best = apply(Op.Select, truth(apply(op, v, best)), v, best)
        return best
    return run


_GRAPH_BUILTINS = {type: _graph_type, max: _graph_extreme(Op.Greater),
                   min: _graph_extreme(Op.Less)}


def _is_user_function(fn: Any) -> bool:
    """Code the evaluator interprets: the user's, and msc's own marked ``interpreted``."""
    return isinstance(fn, types.FunctionType) and (
        not is_msc_file(fn.__code__.co_filename) or getattr(fn, INTERPRETED, False))


INTERPRETED = "__msc_interpreted__"


def interpreted(fn: Any) -> Any:
    """Mark one of msc's own functions (a ``construct`` with a tensor ``if``, as MindSpore
    writes it) to be interpreted into graphs like user code instead of run natively."""
    setattr(fn, INTERPRETED, True)
    return fn


def _is_user_class(cls: Any) -> bool:
    """A class written by the user (not msc's, not a builtin), other than a Cell."""
    if not inspect.isclass(cls) or is_cell_class(cls) or cls.__module__ == "builtins":
        return False
    try:
        return not is_msc_file(inspect.getfile(cls))
    except (TypeError, OSError):
        return False


def compiled_object(obj: Any) -> bool:
    """Whether ``obj``'s methods compile into the graph: Cells and ``@jit_class`` objects."""
    return is_cell(obj) or is_jit_class(obj)


def _holds_graph_tensor(value: Any) -> bool:
    if isinstance(value, SymTensor):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_graph_tensor(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_graph_tensor(v) for v in value.values())
    return False


def _function_name(fn: Any) -> str:
    """A readable name for a mapped function (through partials; a MultitypeFuncGraph's own)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if hasattr(type(fn), GRAPH_CALL) and isinstance(getattr(fn, "name", None), str):
        return str(fn.name)  # a MultitypeFuncGraph's own
    return str(getattr(fn, "__name__", "fn"))


def _construct(cell: Any) -> Any:
    construct = inspect.getattr_static(type(cell), "construct")
    return construct.fn if isinstance(construct, JitFunction) else construct


def user_construct(cell: Any) -> Any:
    """``cell``'s ``construct`` if the user wrote it (msc's own layers run natively)."""
    construct = _construct(cell)
    return construct if _is_user_function(construct) else None


class Calls:
    """Runs calls for the evaluators of one graph build."""

    def __init__(self, builder: GraphBuilder, deps: Deps):
        self.builder = builder
        self.deps = deps
        self.depth = 0
        self.stack: list[tuple[Any, Scope, bool]] = []  # (function node, scope, under a
        # tensor condition) of each call being interpreted, outermost first
        self.reuse: Any = None  # the compile's ``Reuse``: shared graphs of repeated Cells
        self.frames: list[tuple[Any, GraphBuilder]] = []  # (recursion.key, builder) of each
        # call in ``stack``; the recursive function whose graph this build is, if any
        self.recursion: recursion.Recursion | None = None
        self.recursions: dict[Any, Any] = {}  # its recursive graphs, where no ``reuse``

    # --- attribute reads ------------------------------------------------------------

    def get_attribute(self, obj: Any, name: str) -> Any:
        try:
            value = getattr(obj, name)
        except MscError:
            raise
        except AttributeError:
            owner = obj.__name__ if isinstance(obj, (type, types.ModuleType)) \
                else f"'{type(obj).__name__}' object"
            raise GraphAttributeError(f"{owner} has no attribute '{name}'") from None
        if isinstance(obj, (Tensor, types.ModuleType, type)) or isinstance(value, SymTensor):
            return value  # (a graph value is no constant the compile depends on)
        return self.deps.read_attr(obj, name, value)

    # --- calls ----------------------------------------------------------------------

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], ev: Evaluator | None) -> Any:
        if isinstance(fn, Closure):
            return self.call_closure(fn, args, kwargs)
        if isinstance(fn, control.Choice):
            return control.call_choice(ev, fn, args, kwargs)
        if isinstance(fn, functools.partial):
            return self.call(fn.func, [*fn.args, *args], {**fn.keywords, **kwargs}, ev)
        if fn is functools.partial:  # ``ops.partial(f, x)``: it may bind graph tensors
            return functools.partial(*args, **kwargs)
        graph_call = getattr(type(fn), GRAPH_CALL, None)
        if graph_call is not None:
            return graph_call(fn, self, args, kwargs, ev)
        if isinstance(fn, JitFunction):
            return self.call(fn.fn, args, kwargs, ev)
        if is_cell(fn):
            if self.reuse is not None and self.reuse.wants(fn):
                result = self.reuse.call(self, fn, args, kwargs)
                if result is not None:
                    return result
            return self.call_cell(fn, args, kwargs, ev)
        if isinstance(fn, types.MethodType) and _is_user_function(fn.__func__):
            if compiled_object(fn.__self__):
                return self.interpret(fn.__func__, [fn.__self__, *args], kwargs)
            return self.plain_method(fn, args, kwargs)
        if _is_user_function(fn):
            return self.interpret(fn, args, kwargs)
        if fn is print:
            return print_in_graph(tuple(args), kwargs)
        if fn is super and not args and ev is not None:
            return self.zero_arg_super(ev)
        if inspect.isclass(fn) and _is_user_class(fn):
            return self.new_object(fn, args, kwargs)
        if _is_user_class(type(fn)):
            return self.call_object(fn, args, kwargs, ev)
        if fn is type or fn is max or fn is min:
            result = _GRAPH_BUILTINS[fn](args, kwargs)
            if result is not None:
                return result
        return self.native(fn, args, kwargs)

    def choose(self, index: SymTensor, items: list[Any]) -> Any:
        """``items[index]`` for native code indexing with a graph tensor (a ``CellList``,
        whose module sits below the front end): one of them chosen at run time."""
        return control.choose(None, index, items)

    # --- HyperMap -------------------------------------------------------------------------

    def hypermap(self, hm: Any, args: tuple[Any, ...]) -> Any:
        """``HyperMap`` in a graph: the function is built once per element signature and
        called for every element, not interpreted again for each."""
        graphs: dict[Any, Any] = {}
        return hm.map(args, lambda f, elems: self.mapped(f, elems, graphs))

    def mapped(self, fn: Any, elems: tuple[Any, ...], graphs: dict[Any, Any]) -> Any:
        from msc.common.tensor import Parameter

        values = [self.builder.weight(e) if isinstance(e, Parameter) else e for e in elems]
        if not values or not all(isinstance(v, SymTensor) and v.builder is self.builder
                                 for v in values):
            return self.call(fn, list(elems), {}, None)
        key = tuple(v.ssa.type for v in values)
        if key not in graphs:
            graphs[key] = self.function_graph(fn, values)
        built = graphs[key]
        if built is None:  # it closes over graph tensors, or returns constants
            return self.call(fn, list(elems), {}, None)
        graph, weights = built
        inputs = tuple(v.ssa for v in values) + (self.builder.state,) + \
            tuple(self.builder.weight(w).ssa for w in weights)
        out = self.builder.emit(Op.Call, inputs, {"graph": graph})
        return self.builder.unpack(out) if isinstance(out.type, TupleType) \
            else SymTensor(out, self.builder)

    def function_graph(self, fn: Any, values: list[Any]) -> tuple[Any, list[Any]] | None:
        """``fn`` built into a graph of its own (inlined again by the optimizer), or None."""
        name = _function_name(fn)
        sub = GraphBuilder(self.reuse.fresh(f"{name}_map") if self.reuse else f"{name}_map")
        deps = Deps()
        sub.calls = inner = Calls(sub, deps)
        inner.reuse, inner.depth = self.reuse, self.depth
        try:
            with sub:
                sub.loc = self.builder.loc
                inputs = [sub.add_input(v.ssa.type, f"x{i}") for i, v in enumerate(values)]
                sub.state = sub.add_input(MonadType(), "u").ssa  # the caller's state
                output = to_output(sub, inner.call(fn, inputs, {}, None))
        except MscError:
            return None  # the direct call reports a real error at the user's line
        if sub.wrote:
            return None  # writes and prints run in the caller's order: interpret per element
        self.deps.files |= deps.files
        for key, read in deps.reads.items():
            self.deps.reads.setdefault(key, read)
        if has_constants(sub, output):
            return None
        graph = sub.finish(output)
        if self.reuse is not None:
            self.reuse.functions.append(graph)
        return graph, [p for p, _ in sub.weights.values()]

    # --- user classes -----------------------------------------------------------------

    def new_object(self, cls: type, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """A user class instantiated inside a graph: its ``__init__`` runs in Python now,
        so its arguments must be constants."""
        if _holds_graph_tensor((args, kwargs)):
            raise GraphTypeError(
                f"cannot create a '{cls.__name__}' object from graph tensors inside a compiled "
                f"graph: the arguments of a class instantiated in a graph must be constants")
        return self.native(cls, args, kwargs)

    def call_object(self, obj: Any, args: list[Any], kwargs: dict[str, Any],
                    ev: Evaluator | None) -> Any:
        """``obj(...)``: its class's ``__call__``, compiled for a ``@jit_class``."""
        call = getattr(type(obj), "__call__", None)
        if is_jit_class(obj) and not _is_user_function(call):
            raise GraphValueError(f"MsClassObject: '{type(obj).__name__}' has no __call__ "
                                  "function, please check the code.")
        if call is None:
            raise GraphTypeError(f"'{type(obj).__name__}' object is not callable")
        return self.call(types.MethodType(call, obj), args, kwargs, ev)

    def plain_method(self, method: types.MethodType, args: list[Any],
                     kwargs: dict[str, Any]) -> Any:
        """A method of a plain (not ``@jit_class``) object runs in Python at compile time,
        as MindSpore's graph mode does: on constants only."""
        if _holds_graph_tensor((args, kwargs)):
            cls = type(method.__self__).__name__
            raise GraphTypeError(
                f"'{cls}.{method.__name__}' is a method of a plain class: it runs in Python "
                f"while the graph is compiled and cannot take graph tensors; decorate '{cls}' "
                f"with @jit_class to compile its methods into the graph")
        return self.native(method, args, kwargs)

    def call_cell(self, cell: Any, args: list[Any], kwargs: dict[str, Any],
                  ev: Evaluator | None) -> Any:
        """``cell.construct`` interpreted into the current graph."""
        construct = user_construct(cell)
        if construct is None:
            self.deps.read_config(cell)
            construct = _construct(cell)
        self.deps.read_attr(cell, amp_scope.ATTR, getattr(cell, amp_scope.ATTR, None))
        with amp_scope.cell_scope(cell):
            return self.call(construct, [cell, *args], kwargs, ev)

    def native(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if not callable(fn):
            raise GraphTypeError(f"'{type(fn).__name__}' object is not callable")
        try:
            return fn(*args, **kwargs)
        except MscError:
            raise
        except (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError) as e:
            if getattr(e, control.USER_RAISE, False):
                raise  # the user's own raise, in a function a native one (vmap) built
            name = getattr(fn, "__qualname__", type(fn).__name__)
            raise as_user_error(e, f"{type(e).__name__} in {name}(): {e}") from None

    def zero_arg_super(self, ev: Evaluator) -> Any:
        scope: Scope | None = ev.scope
        while scope is not None and "__class__" not in scope.closure:
            scope = scope.parent
        if scope is None or not scope.names:
            raise UnsupportedSyntaxError("super() without arguments needs a method's self")
        first = next(iter(scope.names.values()))
        return super(scope.closure["__class__"], first)

    # --- interpretation -------------------------------------------------------------

    def interpret(self, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]) -> Any:
        parsed = parse_function(fn)
        self.deps.files.add(parsed.file)
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise GraphTypeError(f"{fn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        cells = fn.__closure__ or ()
        closure = {}
        for name, cell in zip(fn.__code__.co_freevars, cells):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # a free variable not yet bound where fn was defined
                continue
        scope = Scope(dict(bound.arguments), None, fn.__globals__, closure, fn)
        return self.run(parsed.node, scope, parsed.file)

    def call_closure(self, fn: Closure, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise GraphTypeError(f"{fn.__name__}(): {e}") from None
        bound.apply_defaults()
        scope = Scope(dict(bound.arguments), fn.scope, fn.scope.globals, {})
        return self.run(fn.node, scope, fn.file)

    def run(self, node: ast.FunctionDef | ast.Lambda, scope: Scope, file: str) -> Any:
        key = recursion.key(node, scope)
        again = recursion.find(self, key)
        if again is not None:  # recursion a tensor condition ends: one recursive graph
            return recursion.call(self, again, node, scope, file, key)
        if self.depth >= MAX_DEPTH:
            raise _recursion_error(self.stack)
        if self.depth == 0:
            _deep_python(+1)
        self.depth += 1
        self.stack.append((node, scope, isinstance(self.builder, control.RegionBuilder)))
        self.frames.append((key, self.builder))
        ev = Evaluator(self.builder, scope, file, self.deps, self)
        try:
            if isinstance(node, ast.Lambda):
                return ev.visit(node.body)
            ev.run_body(_with_final_return(desugar.expand(node).body))
            return None
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
            self.stack.pop()
            self.frames.pop()
            if self.depth == 0:
                _deep_python(-1)


_BUILDS = [0, 0]  # graph builds running, the recursion limit before the first
_BUILDS_LOCK = threading.Lock()


def _deep_python(step: int) -> None:
    """While any graph is being built, Python allows the frames that unrolling
    MAX_DEPTH nested calls needs; the limit goes back when the last build ends."""
    with _BUILDS_LOCK:
        if step > 0 and _BUILDS[0] == 0:
            _BUILDS[1] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_BUILDS[1], _PY_FRAMES))
        _BUILDS[0] += step
        if _BUILDS[0] == 0:
            sys.setrecursionlimit(_BUILDS[1])


def _recursion_error(stack: list[tuple[Any, Scope, bool]]) -> UnsupportedSyntaxError:
    """Calls nested MAX_DEPTH deep: the function that recurs, and why its recursion does
    not end while the graph is built (a tensor condition decides it, or its constant
    arguments never reach the base case)."""
    node, scope, _ = stack[-1]
    name = getattr(node, "name", "<lambda>")
    again = [under for n, _, under in stack if n is node]
    shown = ", ".join(f"{k}={v!r}" for k, v in scope.names.items()
                      if isinstance(v, (bool, int, float, str)) or v is None)
    where = f"'{name}' calls itself" if len(again) > 1 else "calls are"
    if any(again[len(again) // 2:]):
        why = ("under a tensor condition, so its depth depends on run-time values, and its "
               "arguments change dtype, shape or constant value from one level to the next: "
               "msc builds tensor-decided recursion as one recursive graph only where every "
               "level takes the same (pass the changing value as a tensor, or write a while "
               "loop over tensors)")
    else:
        why = (f"its Python-constant arguments reach no base case within that depth (the "
               f"last call had {shown or 'no constant arguments'}); MindSpore raises "
               "RuntimeError 'Exceed function call depth limit' here too")
    return UnsupportedSyntaxError(f"{where} more than {MAX_DEPTH} levels deep while the graph "
                                  f"is built: {why}")


def _with_final_return(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` ending in an explicit ``return None`` where it can fall off its end: a
    branch that returns under a tensor condition then merges with that None (and a tensor
    against None is a clear error, as in MindSpore)."""
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return body
    end = ast.Return(ast.Constant(None))
    ast.copy_location(end, last)
    return [*body, end]

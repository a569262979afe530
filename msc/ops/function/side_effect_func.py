"""Side-effect ops: ``ops.assign``, ``assign_add``, ``assign_sub``, ``ops.depend``,
``ops.print_``, and ``print`` inside a graph (their classes are in
``operations/other_ops.py``).

Eagerly they act at once (a Parameter's buffer is written in place). In a graph they
become nodes that take the state token (see ``frontend/builder.py``), so they run in
program order at run time, from the generated code too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor
from msc.errors import GraphTypeError, MscError, UnsupportedSyntaxError
from msc.frontend.builder import ChosenParameter, current_builder
from msc.frontend.source import user_loc
from msc.ir.primitives import Op, Primitive, infer_type
from msc.ir.types import MonadType, RefType, TensorType, type_of_value
from msc.runtime.numpy_rt import print_text


def _write(op: Primitive, variable: Any, value: Any) -> Any:
    builder = current_builder()
    if builder is not None and isinstance(variable, ChosenParameter):
        from msc.frontend.control import write_chosen
        return write_chosen(builder, variable, lambda param: _write(op, param, value))
    if builder is not None:
        try:
            ref = builder.reference(variable)
        except MscError as e:
            e.message = f"For '{op.name}', {e.message}"
            raise e.with_loc(builder.loc) from None
        var = builder.effect(op, (ref, builder.operand(value)), {})
        return SymTensor(var, builder)
    if not isinstance(variable, Parameter):
        raise GraphTypeError(f"For '{op.name}', the variable must be a Parameter, but got "
                             f"{type(variable).__name__}", user_loc())
    data = value.asnumpy() if isinstance(value, Tensor) else value
    try:  # the graph's type rule, so eager and graph mode reject the same writes
        infer_type(op, (RefType(variable.type), type_of_value(data), MonadType()), {})
    except MscError as e:
        raise e.with_loc(user_loc()) from None
    op.impl(variable.asnumpy(), data, None)
    return variable


def assign(variable: Any, value: Any) -> Any:
    """``variable = value`` in place: ``variable`` is a Parameter; ``value`` a Tensor or
    number of a dtype that converts to the Parameter's, broadcasting to its shape.
    Returns the Parameter's new value."""
    return _write(Op.Assign, variable, value)


def assign_add(variable: Any, value: Any) -> Any:
    """``variable += value`` in place (see ``assign``)."""
    return _write(Op.AssignAdd, variable, value)


def assign_sub(variable: Any, value: Any) -> Any:
    """``variable -= value`` in place (see ``assign``)."""
    return _write(Op.AssignSub, variable, value)


def depend(value: Any, expr: Any) -> Any:
    """``value``, ordered after ``expr``: ``y = ops.depend(y, a)`` makes every use of ``y``
    come after ``a`` (a write, a print, any value)."""
    builder = current_builder()
    if builder is None or not isinstance(value, (SymTensor, Parameter)):
        if isinstance(value, tuple):
            return tuple(depend(v, expr) for v in value)
        return value
    after = tuple(builder.value(x) if isinstance(x, SymTensor) else builder.operand(x)
                  for x in _leaves(expr) if isinstance(x, (SymTensor, Parameter)))
    first = builder.operand(value)
    if not after:
        return SymTensor(first, builder)  # type: ignore[arg-type]
    out = builder.emit(Op.Depend, (first, *after))
    return SymTensor(out, builder)


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


# --- printing ------------------------------------------------------------------------------


def print_(*args: Any) -> Any:
    """``ops.print_``: print strings, numbers and tensors, one per line, tensors as
    ``Tensor(shape=[2], dtype=Float32, value=[1. 2.])``, when the graph runs."""
    return _print([_print_part(a) for a in args], "\n")


def print_in_graph(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Python's ``print`` inside a graph. With a graph tensor among the arguments it prints
    when the graph runs, as eager ``print`` would (tensors as their values); with constants
    only, it prints now, while the graph is built."""
    extra = set(kwargs) - {"sep"}
    if extra:
        raise UnsupportedSyntaxError(f"print(..., {min(extra)}=...) is not supported in "
                                     "a graph")
    if not any(isinstance(a, (SymTensor, Parameter)) for a in _leaves(args)):
        print(*args, **kwargs)
        return None
    _print([_python_part(a, top=True) for a in args], str(kwargs.get("sep", " ")))
    return None


def _python_part(x: Any, top: bool = False) -> tuple[str, list[Any]]:
    """Python's text for ``x``: a graph tensor as its values (``str``) at the top level, as
    ``Tensor(shape=..., value=...)`` (``repr``) inside a tuple or list."""
    if isinstance(x, (SymTensor, Parameter)):
        dims = ", ".join(map(str, x.type.shape))
        return ("{}" if top else f"Tensor(shape=[{dims}], dtype={x.type.dtype}, value={{}})"), [x]
    if isinstance(x, (tuple, list)) and any(isinstance(v, (SymTensor, Parameter))
                                           for v in _leaves(x)):
        items = [_python_part(v) for v in x]
        text = ", ".join(t for t, _ in items) + ("," if len(x) == 1 and isinstance(x, tuple)
                                                 else "")
        brackets = "()" if isinstance(x, tuple) else "[]"
        return brackets[0] + text + brackets[1], [v for _, vs in items for v in vs]
    return _escape(str(x) if top else repr(x)), []


def _print(parts: list[tuple[str, list[Any]]], sep: str) -> Any:
    """One ``Print`` node (a graph is being built) or one eager print of ``parts``: (format
    text with a ``{}`` field per value, those values)."""
    format_ = sep.join(text for text, _ in parts)
    values = [v for _, vs in parts for v in vs]
    builder = current_builder()
    if builder is None:
        print(print_text(format_, [v.asnumpy() for v in values]))
        return None
    var = builder.effect(Op.Print, tuple(builder.operand(v) for v in values),
                         {"format": format_})
    return SymTensor(var, builder)


def _print_part(x: Any) -> tuple[str, list[Any]]:
    """``Print``'s text for one argument (MindSpore's layout), and its run-time value."""
    if isinstance(x, (SymTensor, Parameter)) or (isinstance(x, Tensor) and
                                                  current_builder() is None):
        return _tensor_format(x.type), [x]
    if isinstance(x, Tensor):  # a constant inside a graph: its text is known now
        return _escape(_tensor_format(x.type).format(str(x.asnumpy()))), []
    if isinstance(x, np.ndarray):
        return _print_part(Tensor(x))
    if isinstance(x, (tuple, list)):
        raise GraphTypeError("Print takes strings, numbers and tensors, not a "
                             f"{type(x).__name__}: unpack it with *", user_loc())
    return _escape(str(x)), []


def _tensor_format(t: TensorType) -> str:
    dims = ", ".join(map(str, t.shape))
    return f"Tensor(shape=[{dims}], dtype={t.dtype}, value={chr(10) if t.ndim > 1 else ''}{{}})"


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


__all__ = ["assign", "assign_add", "assign_sub", "depend", "print_"]

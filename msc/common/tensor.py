"""Tensor, Parameter and the op dispatcher ``apply``.

``Tensor`` is numpy-backed (PyNative mode). ``SymTensor`` is the same interface for a
value inside a graph being built: it has a type but no data. Both share every
operator and method, and every one of them goes through ``apply``, so eager and
graph mode have the same type rules, the same errors and the same dtypes.
"""

from __future__ import annotations

import inspect
from keyword import iskeyword
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from msc.common import amp_scope
from msc.common.arena import leave
from msc.errors import GraphTypeError, GraphValueError, InternalCompilerError, MscError
from msc.frontend.active import current_builder
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.nodes import Var
from msc.ir.primitives import Op, Primitive, evaluate
from msc.ir.types import TensorType, tensor_of

if TYPE_CHECKING:  # the builder makes graph tensors: it imports this module
    from msc.frontend.builder import GraphBuilder

__all__ = ["Tensor"]  # as in ``mindspore.common.tensor``

_DEFAULTS = {0: dtypes.bool_, 1: dtypes.int64, 2: dtypes.float32}
_RESERVED = ("apply", "_prim", "Any")  # the names a generated body uses


def apply(prim: Primitive, *inputs: Any, **attrs: Any) -> Any:
    """Run ``prim`` on ``inputs``: emit a node when a graph is being built and an input
    is a graph tensor or a weight, compute eagerly with numpy otherwise. Inside a
    mixed-precision scope (``amp_scope.py``) the inputs are cast first."""
    if amp_scope.STACK and (scope := amp_scope.wanted(prim)) is not None:
        return _apply_in_scope(scope, prim, inputs, attrs)
    builder = current_builder()
    if builder is not None and any(isinstance(x, (SymTensor, Parameter)) for x in inputs):
        return builder.apply(prim, inputs, attrs)
    values = tuple(_eager_value(x) for x in inputs)
    try:
        out = evaluate(prim, values, attrs)
    except MscError as e:
        raise e.with_loc(builder.loc if builder is not None else user_loc()) from None
    return _wrap(out)


def _apply_in_scope(scope: amp_scope.Scope, prim: Primitive, inputs: tuple[Any, ...],
                    attrs: dict[str, Any]) -> Any:
    with amp_scope.opened(None):
        out = apply(prim, *amp_scope.cast_inputs(scope, inputs, apply, Op.Cast), **attrs)
        return amp_scope.cast_back(out, apply, Op.Cast) if scope.back else out


def public_function(prim: Primitive, name: str, doc: str, module: dict[str, Any],
                    method: bool = False) -> Callable[..., Any]:
    """``def name(*args): return apply(prim, *args)`` compiled into the module with globals
    ``module``, so it works as a ``def`` (keyword calls, ``inspect.signature``, errors);
    ``args``: ``public.args``, else ``infer``'s, ``self`` first for a Tensor method."""
    args = prim.public.args or tuple(inspect.getfullargspec(prim.infer).args)
    names = (name, "self", *args[1:]) if method else (name, *args)
    if len(set(names)) != len(names) or not all(n.isidentifier() and not iskeyword(n)
                                                and n not in _RESERVED for n in names):
        raise InternalCompilerError(f"{prim!r}: bad public names {names}")
    source = (f"def {name}({', '.join(a if a == 'self' else a + ': Any' for a in names[1:])})"
              f" -> Any:\n    {doc!r}\n    return apply(_prim, {', '.join(names[1:])})\n")
    space = {"__name__": module["__name__"], "apply": apply, "_prim": prim, "Any": Any}
    exec(compile(source, module["__file__"], "exec"), space)  # noqa: S102 - names checked
    space[name].__qualname__ = f"Tensor.{name}" if method else name
    return space[name]


def _eager_value(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, (bool, int, float, np.ndarray)):
        return x
    if isinstance(x, np.generic):
        return np.asarray(x)
    raise GraphTypeError(f"expected a Tensor or a number, but got {type(x).__name__}",
                         user_loc())


def _wrap(out: Any) -> Any:
    if isinstance(out, tuple):
        return tuple(_wrap(o) for o in out)
    return Tensor(out) if isinstance(out, np.ndarray) else out


def _to_array(data: Any, dtype: dtypes.DType | None) -> np.ndarray:
    """MindSpore's defaults: Python ints are int64, floats float32; numpy keeps its dtype."""
    if isinstance(data, Tensor):
        arr = data.asnumpy()
    elif isinstance(data, (np.ndarray, np.generic)):
        arr = np.array(data, copy=True)  # a Tensor owns its data (``from_numpy`` shares)
    else:
        arr = np.asarray(data)
        if arr.dtype.kind in "biuf":
            arr = arr.astype(_DEFAULTS[{"b": 0, "i": 1, "u": 1, "f": 2}[arr.dtype.kind]].np)
    if arr.dtype.kind not in "biuf":
        raise GraphTypeError(f"cannot make a Tensor from {type(data).__name__} data")
    if dtype is not None:
        dt = dtypes.coerce(dtype)
        if not isinstance(dt, dtypes.DType):
            raise GraphTypeError(f"dtype must be an msc dtype (msc.float32, ...), but got "
                                 f"{dtype!r}")
        arr = arr.astype(dt.np)
    dtypes.from_numpy(arr.dtype)  # rejects dtypes msc does not support
    return arr


class Tensor:
    """A numpy-backed tensor, with MindSpore's ``Tensor`` interface.

    Args:
        input_data: a Tensor, numpy array, Python number, or (nested) list/tuple.
        dtype: an msc dtype (``msc.float32``); default: MindSpore's default for the data.
        shape, init: build a tensor of ``shape`` filled by ``init`` ("zeros", "ones").

    Example:
        >>> Tensor([1, 2, 3]).dtype
        Int64
    """

    __hash__ = object.__hash__  # comparisons return tensors; identity hashing, like MindSpore

    def __init__(self, input_data: Any = None, dtype: dtypes.DType | None = None,
                 shape: Any = None, init: Any = None, const_arg: bool = False):
        if input_data is None and shape is not None:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            fill = {"zeros": 0, "ones": 1, None: 0}.get(init if isinstance(init, str) or
                                                        init is None else None, 0)
            input_data = np.full(shape, fill, dtype=(dtype or dtypes.float32).np)
        if input_data is None:
            raise GraphTypeError("Tensor needs input_data, or shape and dtype")
        self._data = _to_array(input_data, dtype)

    @classmethod
    def wrap(cls, array: np.ndarray) -> Tensor:
        """A Tensor over ``array`` as is: the fast path for results msc produced itself."""
        t = object.__new__(cls)
        t._data = array
        return t

    @staticmethod
    def from_numpy(array: np.ndarray) -> Tensor:
        """A Tensor that shares ``array``'s memory (the constructor copies), as in
        MindSpore: writes through either one show in both."""
        if not isinstance(array, np.ndarray):
            raise GraphTypeError(f"from_numpy takes a numpy array, not {type(array).__name__}")
        dtypes.from_numpy(array.dtype)
        return Tensor.wrap(array)

    def __getattr__(self, name: str) -> Any:
        """Reached only for a name Tensor lacks: a MindSpore Tensor method msc does not
        have yet raises msc's "not supported yet" error (an AttributeError)."""
        from msc.api_names import missing_attribute

        raise missing_attribute("Tensor", ("tensor",), name)

    # --- data and metadata --------------------------------------------------------------

    def asnumpy(self) -> np.ndarray:
        return self._data

    @property
    def type(self) -> TensorType:
        return TensorType(dtypes.from_numpy(self._data.dtype), tuple(self._data.shape))

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.shape

    @property
    def dtype(self) -> dtypes.DType:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return self.type.size

    def __len__(self) -> int:
        if not self.shape:
            raise GraphTypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __float__(self) -> float:
        return float(self._data)

    def __index__(self) -> int:
        return int(self._data)

    def item(self) -> Any:
        return self._data.item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def __repr__(self) -> str:
        dims = ", ".join(map(str, self.shape))
        return f"Tensor(shape=[{dims}], dtype={self.dtype}, value={self._data!s})"

    def __str__(self) -> str:
        return str(self._data)

    # --- operators ----------------------------------------------------------------------

    def __add__(self, o: Any) -> Any: return apply(Op.Add, self, o)
    def __radd__(self, o: Any) -> Any: return apply(Op.Add, o, self)
    def __sub__(self, o: Any) -> Any: return apply(Op.Sub, self, o)
    def __rsub__(self, o: Any) -> Any: return apply(Op.Sub, o, self)
    def __mul__(self, o: Any) -> Any: return apply(Op.Mul, self, o)
    def __rmul__(self, o: Any) -> Any: return apply(Op.Mul, o, self)
    def __truediv__(self, o: Any) -> Any: return apply(Op.Div, self, o)
    def __rtruediv__(self, o: Any) -> Any: return apply(Op.Div, o, self)
    def __floordiv__(self, o: Any) -> Any: return apply(Op.FloorDiv, self, o)
    def __rfloordiv__(self, o: Any) -> Any: return apply(Op.FloorDiv, o, self)
    def __mod__(self, o: Any) -> Any: return apply(Op.FloorMod, self, o)
    def __rmod__(self, o: Any) -> Any: return apply(Op.FloorMod, o, self)
    def __pow__(self, o: Any) -> Any: return apply(Op.Pow, self, o)
    def __rpow__(self, o: Any) -> Any: return apply(Op.Pow, o, self)
    def __neg__(self) -> Any: return apply(Op.Neg, self)
    def __pos__(self) -> Any: return self
    def __abs__(self) -> Any: return apply(Op.Abs, self)
    def __invert__(self) -> Any: return apply(Op.LogicalNot, self)
    def __and__(self, o: Any) -> Any: return apply(Op.LogicalAnd, self, o)
    def __rand__(self, o: Any) -> Any: return apply(Op.LogicalAnd, o, self)
    def __or__(self, o: Any) -> Any: return apply(Op.LogicalOr, self, o)
    def __ror__(self, o: Any) -> Any: return apply(Op.LogicalOr, o, self)
    def __xor__(self, o: Any) -> Any: return apply(Op.BitwiseXor, self, o)
    def __rxor__(self, o: Any) -> Any: return apply(Op.BitwiseXor, o, self)
    def __eq__(self, o: Any) -> Any: return apply(Op.Equal, self, o)  # type: ignore[override]
    def __ne__(self, o: Any) -> Any: return apply(Op.NotEqual, self, o)  # type: ignore[override]
    def __lt__(self, o: Any) -> Any: return apply(Op.Less, self, o)
    def __le__(self, o: Any) -> Any: return apply(Op.LessEqual, self, o)
    def __gt__(self, o: Any) -> Any: return apply(Op.Greater, self, o)
    def __ge__(self, o: Any) -> Any: return apply(Op.GreaterEqual, self, o)

    # ``@``, ``x[key]`` and the methods over the functional ops (``x.sum()``, ``x.sort()``,
    # ``x.add(y, alpha=2)``, ...) are added by ``ops/tensor_methods.py``: they call the ops
    # of ``msc.ops``, which are built on this class.


def eager_key(key: Any) -> Any:
    if isinstance(key, tuple):
        return tuple(eager_key(k) for k in key)
    return key.asnumpy() if isinstance(key, Tensor) else key


class SymTensor(Tensor):
    """A tensor inside a graph being built: its type is known, its value is not."""

    __hash__ = object.__hash__

    def __init__(self, var: Var, builder: GraphBuilder):  # noqa: D107 - no Tensor.__init__
        self.ssa = var
        self.builder = builder

    @property
    def type(self) -> TensorType:
        t = tensor_of(self.ssa.type)
        if t is None:
            raise GraphTypeError(f"expected a Tensor, but got {self.ssa.type}", self.builder.loc)
        return t

    def asnumpy(self) -> np.ndarray:
        raise GraphTypeError("a graph tensor has no value at compile time; asnumpy() and "
                             "numpy functions cannot be used on it inside a graph",
                             self.builder.loc)

    __array__ = asnumpy  # type: ignore[assignment]

    def _no_value(self, *args: Any) -> Any:
        raise GraphTypeError("a graph tensor has no Python value at compile time",
                             self.builder.loc)

    __int__ = __float__ = __index__ = item = tolist = _no_value  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise GraphTypeError("a tensor-valued condition is used where a Python bool is "
                             "needed", self.builder.loc)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise GraphTypeError("in-place item assignment of a graph tensor is not supported",
                             self.builder.loc)

    def __repr__(self) -> str:
        return f"SymTensor({self.ssa.type})"

    __str__ = __repr__


class WeakNumber(SymTensor):
    """A Python number a tensor ``if`` merged or a tensor ``while`` carried: a 0-d tensor
    in the graph that combines with tensors as the number would, weakly typed (``x_int32 +
    n`` stays int32, see ``dtypes.promote_weak``); arithmetic among such numbers gives one
    again. ``category``: 0 bool, 1 int, 2 float."""

    def __init__(self, var: Var, builder: GraphBuilder, category: int):  # noqa: D107
        super().__init__(var, builder)
        self.category = category

    @classmethod
    def like(cls, before: Any, value: Any) -> Any:
        """``value`` (a graph tensor standing for ``before``) as a weak number if ``before``
        was a Python number; tuples element by element."""
        if isinstance(before, (tuple, list)) and isinstance(value, tuple):
            return tuple(cls.like(b, v) for b, v in zip(before, value))
        if isinstance(before, (bool, int, float, WeakNumber)) and isinstance(value, SymTensor):
            category = before.category if isinstance(before, WeakNumber) else \
                dtypes.scalar_category(before)
            return cls(value.ssa, value.builder, category)
        return value


class Parameter(Tensor):
    """A named, trainable weight. Inside a graph it is an input of reference type.

    Args:
        default_input: initial value (Tensor, array or number).
        name: the name; a Cell attribute gets its attribute path if none is given.
        requires_grad: whether ``trainable_params`` lists it.
    """

    __hash__ = object.__hash__
    _arena: Any = None  # the weight arena holding the data (``arena.py``), if any
    _offset = 0  # where in the arena's buffer
    #: Bumped whenever any Parameter gets a new buffer (its shape may have changed):
    #: compiled code's checks of the Parameters it read trust identity until then.
    buffers = 0

    def __init__(self, default_input: Any, name: str | None = None,
                 requires_grad: bool = True, layerwise_parallel: bool = False):
        super().__init__(default_input)
        # A Parameter owns its buffer (C-contiguous, writable): graphs write it in place.
        self._data = np.array(self._data, order="C")
        self.name = name
        self.requires_grad = requires_grad

    @property
    def _data(self) -> np.ndarray:  # type: ignore[override]
        return self._buf

    @_data.setter
    def _data(self, value: np.ndarray) -> None:
        """A new buffer: the Parameter leaves its arena (compiled code re-binds)."""
        leave(self)
        self._buf = value
        Parameter.buffers += 1

    def set_data(self, data: Any, slice_shape: bool = False) -> Parameter:
        """``data``'s values, converted to this Parameter's dtype: copied into its buffer
        when the shape is the same (where compiled code reads them), else a new buffer.
        ``slice_shape`` (MindSpore's flag for a parallel slice) changes nothing here: one
        process holds the whole Parameter."""
        new = np.array(_to_array(data, None), dtype=self._buf.dtype, order="C")
        if self._arena is not None and new.shape == self._buf.shape:
            self._buf[...] = new
        else:
            self._data = new
        return self

    def __getstate__(self) -> dict[str, Any]:
        """A copy (``copy.deepcopy`` of a Cell) has its own buffer, in no arena."""
        state = dict(self.__dict__)
        state.pop("_arena", None)
        state.pop("_offset", None)
        state["_buf"] = np.array(self._buf, order="C")
        return state

    #: MindSpore's Parameter flag (a bool, where Tensor's ``is_init`` is a method); False
    #: off Ascend's graph engine.
    is_init = False

    def value(self) -> Parameter:
        """The Parameter's current value as a graph reads it: the Parameter itself, so
        that gradients flow through it and a compiled graph reads the weight when it runs
        (a copy cut the gradient, and a graph kept the copy as a constant)."""
        return self

    @property
    def data(self) -> Parameter:
        """The Parameter itself, as MindSpore's ``param.data`` is."""
        return self

    def init_data(self, layout: Any = None, set_sliced: bool = False) -> Parameter:
        """msc initialises every Parameter when it is made: the Parameter itself."""
        return self

    def clone(self, prefix: str = "") -> Parameter:
        return Parameter(self._data.copy(), f"{prefix}.{self.name}" if prefix else self.name,
                         self.requires_grad)

    def __repr__(self) -> str:
        return f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, " \
               f"requires_grad={self.requires_grad})"


class ParameterTuple(tuple):  # type: ignore[type-arg]
    """A tuple of Parameters (MindSpore's optimizer input)."""

    def __new__(cls, iterable: Any = ()) -> ParameterTuple:
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise GraphTypeError(f"ParameterTuple holds Parameters, not {type(p).__name__}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: Any = "same") -> ParameterTuple:
        """Copies named ``prefix.name``: of the same data, or zeros or ones (``init``), or
        filled with a number, as optimizers make their slots (Adagrad's ``accum=0.1``)."""
        number = isinstance(init, (int, float)) and not isinstance(init, bool)
        if init not in ("same", "zeros", "ones") and not number:
            raise GraphValueError(f"ParameterTuple.clone: init must be 'same', 'zeros', "
                                  f"'ones' or a number, but got {init!r}")
        fill = {"zeros": 0, "ones": 1}.get(init, init) if number or init != "same" else None
        copies = [p.clone(prefix) for p in self]
        for c in copies:
            if fill is not None:
                c.set_data(Tensor(np.full(c.shape, fill, c.dtype.np)))
        return ParameterTuple(copies)


def tensor(input_data: Any = None, dtype: dtypes.DType | None = None, **kwargs: Any) -> Tensor:
    """``msc.tensor``: the functional spelling of ``Tensor``."""
    return Tensor(input_data, dtype, **kwargs)


# The Tensor methods that are one primitive on the tensor (``x.exp()``), from the table.
for _prim in Op:
    for _name in _prim.public.methods:
        if _name in vars(Tensor):
            raise InternalCompilerError(f"Tensor.{_name} is both written and generated")
        setattr(Tensor, _name, public_function(_prim, _name, f"``Tensor.{_name}()``: the "
                f"{_prim.name} primitive on this tensor.", globals(), method=True))

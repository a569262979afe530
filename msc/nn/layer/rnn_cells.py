"""``nn.RNNCell``, ``nn.GRUCell`` and ``nn.LSTMCell`` (one time step), and the step
functions the recurrent layers of ``rnns.py`` loop over.

A step takes the input's projection ``x @ w_ih.T + b_ih`` already computed, so the
layers project the whole sequence with one matrix product outside their time loop and
only the recurrent product ``h @ w_hh.T + b_hh`` runs per step. The formulas and gate
orders are MindSpore's (LSTM: input, forget, cell, output; GRU: reset, update, new).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from msc.common.initializer import Uniform, initializer
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.nn.cell import Cell
from msc._checkparam import _bool, _int
from msc.ops import functional as F

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]

_FLOATS = (dtypes.float32, dtypes.float16)


# --- one step of each kind ----------------------------------------------------------------


def _recurrent(h: Any, w_hh: Any, b_hh: Any) -> Any:
    return F.dense(h, w_hh, b_hh)


def tanh_step(gi: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    return F.tanh(gi + _recurrent(h, w_hh, b_hh))


def relu_step(gi: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    return F.relu(gi + _recurrent(h, w_hh, b_hh))


def gru_step(gi: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    i_r, i_z, i_n = F.split(gi, gi.shape[-1] // 3, axis=-1)
    h_r, h_z, h_n = F.split(_recurrent(h, w_hh, b_hh), gi.shape[-1] // 3, axis=-1)
    reset = F.sigmoid(i_r + h_r)
    update = F.sigmoid(i_z + h_z)
    new = F.tanh(i_n + reset * h_n)
    return new + update * (h - new)


def lstm_step(gi: Any, state: tuple[Any, Any], w_hh: Any, b_hh: Any) -> tuple[Any, Any]:
    h, c = state
    gates = gi + _recurrent(h, w_hh, b_hh)
    i, f, g, o = F.split(gates, gates.shape[-1] // 4, axis=-1)
    c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
    return F.sigmoid(o) * F.tanh(c), c


Step = Callable[[Any, Any, Any, Any], Any]


# --- argument checks shared with the layers --------------------------------------------------


def check_tensor(value: Any, arg: str, cls: str) -> None:
    if not isinstance(value, Tensor):
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be 'Tensor', but got "
                             f"'{type(value).__name__}'", user_loc())


def check_float(value: Any, arg: str, cls: str) -> None:
    check_tensor(value, arg, cls)
    if value.dtype not in _FLOATS:
        raise GraphTypeError(f"For '{cls}', the '{arg}' should be one of [Float32, Float16], "
                             f"but got '{value.dtype}'.", user_loc())


def check_pair(value: Any, arg: str, cls: str) -> None:
    """An LSTM state: a tuple of two tensors."""
    if not isinstance(value, tuple):
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be 'Tuple', but got "
                             f"'{type(value).__name__}'", user_loc())
    if len(value) != 2:
        raise GraphTypeError(f"For '{cls}', the length of '{arg}' must be '2', but got "
                             f"'{len(value)}'", user_loc())


def as_dtype(w: Any, dtype: dtypes.DType) -> Any:
    """A weight in the input's dtype (MindSpore computes in the input's precision)."""
    return w if w is None or w.dtype == dtype else F.cast(w, dtype)


def uniform_parameter(shape: tuple[int, ...], hidden_size: int, dtype: dtypes.DType,
                      name: str) -> Parameter:
    """U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), MindSpore's initialisation of every
    recurrent weight and bias."""
    return Parameter(initializer(Uniform(1 / math.sqrt(hidden_size)), shape, dtype), name=name)


# --- the cells -------------------------------------------------------------------------------


class RNNCellBase(Cell):
    """The weights of one cell: ``weight_ih`` (chunks*hidden, input), ``weight_hh``
    (chunks*hidden, hidden) and, with ``has_bias``, ``bias_ih`` and ``bias_hh``."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool, num_chunks: int,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        self.has_bias = _bool(has_bias, "has_bias", self.cls_name)
        self.hidden_size = _int(hidden_size, "hidden_size", self.cls_name, positive=True)
        self.input_size = _int(input_size, "input_size", self.cls_name, positive=True)
        gates = num_chunks * hidden_size
        self.weight_ih = uniform_parameter((gates, input_size), hidden_size, dtype, "weight_ih")
        self.weight_hh = uniform_parameter((gates, hidden_size), hidden_size, dtype, "weight_hh")
        self.bias_ih = self.bias_hh = None
        if has_bias:
            self.bias_ih = uniform_parameter((gates,), hidden_size, dtype, "bias_ih")
            self.bias_hh = uniform_parameter((gates,), hidden_size, dtype, "bias_hh")

    def _step(self, step: Step, x: Any, state: Any) -> Any:
        dtype = x.dtype
        gi = F.dense(x, as_dtype(self.weight_ih, dtype), as_dtype(self.bias_ih, dtype))
        return step(gi, state, as_dtype(self.weight_hh, dtype), as_dtype(self.bias_hh, dtype))

    def extend_repr(self) -> str:
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}"


class RNNCell(RNNCellBase):
    """h' = nonlinearity(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh), with tanh or relu.

    Example:
        >>> cell = nn.RNNCell(3, 4)
        >>> x, h = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 4), np.float32))
        >>> cell(x, h).shape
        (2, 4)
    """

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 nonlinearity: str = "tanh", dtype: dtypes.DType = dtypes.float32):
        super().__init__(input_size, hidden_size, has_bias, 1, dtype)
        self.nonlinearity = nonlinearity_of(nonlinearity, self.cls_name)

    def construct(self, x: Any, hx: Any) -> Any:
        check_float(x, "x", self.cls_name)
        check_float(hx, "hx", self.cls_name)
        return self._step(tanh_step if self.nonlinearity == "tanh" else relu_step, x, hx)


def nonlinearity_of(value: Any, cls: str) -> str:
    if value not in ("tanh", "relu"):
        raise GraphValueError(f"For '{cls}', the 'nonlinearity' must be in ['tanh', 'relu'], "
                              f"but got {value}.", user_loc())
    return str(value)


class GRUCell(RNNCellBase):
    """One GRU step: reset and update gates, then h' = n + z * (h - n).

    Example:
        >>> cell = nn.GRUCell(3, 4)
        >>> x, h = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 4), np.float32))
        >>> cell(x, h).shape
        (2, 4)
    """

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__(input_size, hidden_size, has_bias, 3, dtype)

    def construct(self, x: Any, hx: Any) -> Any:
        check_float(x, "x", self.cls_name)
        check_float(hx, "hx", self.cls_name)
        return self._step(gru_step, x, hx)


class LSTMCell(RNNCellBase):
    """One LSTM step on ``hx = (h, c)``: returns ``(h', c')``.

    Example:
        >>> cell = nn.LSTMCell(3, 4)
        >>> h = c = ms.Tensor(np.zeros((2, 4), np.float32))
        >>> [t.shape for t in cell(ms.Tensor(np.ones((2, 3), np.float32)), (h, c))]
        [(2, 4), (2, 4)]
    """

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__(input_size, hidden_size, has_bias, 4, dtype)

    def construct(self, x: Any, hx: Any) -> Any:
        check_float(x, "x", self.cls_name)
        check_pair(hx, "hx", self.cls_name)
        check_float(hx[0], "hx[0]", self.cls_name)
        check_float(hx[1], "hx[1]", self.cls_name)
        return self._step(lstm_step, x, hx)

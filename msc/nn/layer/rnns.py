"""``nn.RNN``, ``nn.GRU`` and ``nn.LSTM``: stacked, optionally bidirectional recurrent
layers with MindSpore 2.10's arguments, Parameter names and results.

Each layer and direction projects its whole input with one matrix product, then runs
the recurrence in a time loop. In a graph that loop is one ``While`` node whose body
reads step ``t`` of the projection with a ``Gather`` and writes the step's output into a
preallocated sequence with a ``TensorScatterUpdate``, so the IR does not grow with the
sequence length and autodiff differentiates through the loop. Eagerly the same body runs
once per step. A ``seq_length`` masks the steps past each sequence's end as MindSpore
does: the state stops changing and the output is zero there; the reverse direction reads
each sequence backwards from its own end.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from msc.common.tensor import Tensor, apply
from msc.errors import GraphTypeError, GraphValueError, InternalCompilerError
from msc.frontend.builder import GraphBuilder, current_builder
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.nn.cell import Cell
from msc.nn.layer.basic import Dropout
from msc._checkparam import _bool, _int
from msc.nn.layer.rnn_cells import (
    Step,
    as_dtype,
    check_float,
    check_pair,
    check_tensor,
    gru_step,
    lstm_step,
    nonlinearity_of,
    relu_step,
    tanh_step,
    uniform_parameter,
)
from msc.ops import functional as F
from msc.ops.function.array_func import gather_d, tensor_scatter_update

__all__ = ["RNN", "GRU", "LSTM"]

Body = Callable[[Any, Any], Any]


# --- the time loop ---------------------------------------------------------------------------


def time_loop(steps: int, body: Body, carry: Any) -> Any:
    """``for t in range(steps): carry = body(t, carry)`` with ``t`` a 0-d int32 tensor:
    one ``While`` node while a graph is being built, a Python loop eagerly. ``carry`` is
    a tensor or a (nested) tuple of tensors whose dtypes and shapes ``body`` keeps."""
    builder = current_builder()
    if builder is None:
        for t in range(steps):
            carry = body(Tensor(np.array(t, np.int32)), carry)
        return carry
    return _while(builder, steps, body, carry)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _rebuild(like: Any, leaves: Any) -> Any:
    if isinstance(like, tuple):
        return tuple(_rebuild(item, leaves) for item in like)
    return next(leaves)


def _while(outer: GraphBuilder, steps: int, body: Body, carry: Any) -> Any:
    from msc.frontend.control import RegionBuilder

    init = [outer.value(v) for v in [Tensor(np.array(0, np.int32)), *_leaves(carry)]]
    types = [v.type for v in init]

    def region(name: str, run: Callable[[list[Any]], Any]) -> Any:
        builder = RegionBuilder(name, outer)
        with builder:
            params = [builder.add_input(t, f"carry{i}") for i, t in enumerate(types)]
            out = run(params)
            outs = [builder.operand(v) for v in (out if isinstance(out, list) else [out])]
            if builder.wrote:
                raise InternalCompilerError("a recurrent step wrote a weight")
            result = outs[0] if name == "cond" else builder.emit(Op.MakeTuple, tuple(outs))
            return builder.finish(result)

    def step(params: list[Any]) -> list[Any]:
        t, state = params[0], _rebuild(carry, iter(params[1:]))
        return [t + 1, *_leaves(body(t, state))]

    graphs = {"cond": region("cond", lambda params: apply(Op.Less, params[0], steps)),
              "body": region("body", step)}
    results = outer.unpack(outer.emit(Op.While, tuple(init), graphs))
    return _rebuild(carry, iter(results[1:]))


# --- one direction of one layer ---------------------------------------------------------------


def run_direction(step: Step, x: Any, state: Any, weights: tuple[Any, ...],
                  seq_length: Any) -> tuple[Any, Any]:
    """(outputs, final state) of ``step`` over ``x`` (seq, batch, input) from ``state``;
    with ``seq_length`` (batch,), steps at or past a sequence's length keep the state
    and output zeros."""
    w_ih, w_hh, b_ih, b_hh = (as_dtype(w, x.dtype) for w in weights)
    gi = F.dense(x, w_ih, b_ih)
    steps, batch, hidden = x.shape[0], x.shape[1], w_hh.shape[1]
    outputs = F.zeros((steps, batch, hidden), x.dtype)

    def body(t: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        old, out = carry
        new = step(F.gather(gi, t, 0), old, w_hh, b_hh)
        h = new[0] if isinstance(new, tuple) else new
        if seq_length is not None:
            valid = F.reshape(seq_length > t, (batch, 1))
            new = tuple(F.select(valid, n, o) for n, o in zip(new, old)) \
                if isinstance(new, tuple) else F.select(valid, new, old)
            h = F.select(valid, h, F.zeros_like(h))
        return new, tensor_scatter_update(out, F.reshape(t, (1,)), h)

    state, outputs = time_loop(steps, body, (state, outputs))
    return outputs, state


def reverse_time(x: Any, seq_length: Any) -> Any:
    """``x`` (seq, batch, ...) with each sequence reversed: all of it, or its first
    ``seq_length[b]`` steps (the rest stay where they are)."""
    steps = x.shape[0]
    if seq_length is None:
        return F.gather(x, Tensor(np.arange(steps - 1, -1, -1, dtype=np.int32)), 0)
    t = Tensor(np.arange(steps, dtype=np.int32).reshape(steps, 1))
    lengths = F.reshape(seq_length, (1, -1))
    index = F.select(t < lengths, lengths - 1 - t, F.broadcast_to(t, (steps, x.shape[1])))
    index = F.broadcast_to(F.reshape(index, index.shape + (1,) * (x.ndim - 2)), x.shape)
    return gather_d(x, 0, index)


# --- the layers -------------------------------------------------------------------------------


class _RNNBase(Cell):
    """Stacked recurrent layers of one kind (``step``, ``gates`` rows per hidden unit)."""

    def __init__(self, step: Step, gates: int, input_size: int, hidden_size: int,
                 num_layers: int = 1, has_bias: bool = True, batch_first: bool = False,
                 dropout: float = 0., bidirectional: bool = False,
                 dtype: dtypes.DType = dtypes.float32):
        super().__init__()
        cls = self.cls_name
        self.hidden_size = _int(hidden_size, "hidden_size", cls, positive=True)
        self.input_size = _int(input_size, "input_size", cls, positive=True)
        self.num_layers = _int(num_layers, "num_layers", cls, positive=True)
        if isinstance(dropout, bool) or not isinstance(dropout, float):
            raise GraphTypeError(f"For '{cls}', the type of 'dropout' must be 'float', but "
                                 f"got '{type(dropout).__name__}'.", user_loc())
        self.has_bias = _bool(has_bias, "has_bias", cls)
        self.batch_first = _bool(batch_first, "batch_first", cls)
        self.bidirectional = _bool(bidirectional, "bidirectional", cls)
        if not 0 <= dropout < 1:
            raise GraphValueError(f"For '{cls}', the 'dropout' must be a number in range "
                                  f"[0, 1) representing the probability of an element being "
                                  f"zeroed, but got {dropout}.", user_loc())
        self.dropout = dropout
        self.dropout_op = Dropout(p=dropout)
        self.step = step
        self.is_lstm = step is lstm_step
        self.num_directions = 2 if bidirectional else 1
        # MindSpore's order: every weight_ih, then weight_hh, bias_ih, bias_hh
        kinds = ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if has_bias else ())
        units = [(layer, direction) for layer in range(num_layers)
                 for direction in range(self.num_directions)]
        self.weight_names = [tuple(f"{kind}_l{layer}{'_reverse' if direction else ''}"
                                   for kind in kinds) for layer, direction in units]
        for k, kind in enumerate(kinds):
            for (layer, _), names in zip(units, self.weight_names):
                inputs = input_size if layer == 0 else hidden_size * self.num_directions
                shape = (gates * hidden_size,) + ((inputs,) if kind == "weight_ih" else
                                                  (hidden_size,) if kind == "weight_hh" else ())
                setattr(self, names[k], uniform_parameter(shape, hidden_size, dtype, names[k]))

    def _weights(self, index: int) -> tuple[Any, ...]:
        names = self.weight_names[index]
        biases = (getattr(self, names[2]), getattr(self, names[3])) if self.has_bias \
            else (None, None)
        return getattr(self, names[0]), getattr(self, names[1]), *biases

    def _check_inputs(self, x: Any, hx: Any, seq_length: Any) -> None:
        cls = self.cls_name
        check_tensor(x, "x", cls)
        if hx is not None:
            states = hx if self.is_lstm else (hx,)
            if self.is_lstm:
                check_pair(hx, "hx", cls)
            for i, h in enumerate(states):
                name = f"hx[{i}]" if self.is_lstm else "hx"
                check_float(h, name, cls)
                if h.dtype != x.dtype:
                    raise GraphTypeError(f"For '{cls}', the type of '{name}' should be same "
                                         f"as 'x', but got 'x' with type {x.dtype} and "
                                         f"'{name}' with type {h.dtype}.", user_loc())
        if seq_length is not None:
            check_tensor(seq_length, "seq_length", cls)
            if seq_length.dtype not in (dtypes.int32, dtypes.int64):
                raise GraphTypeError(f"For '{cls}', the 'seq_length' should be one of "
                                     f"[Int32, Int64], but got '{seq_length.dtype}'.",
                                     user_loc())
            batch = x.shape[0] if self.batch_first else x.shape[1]
            if seq_length.shape != (batch,):
                raise GraphValueError(f"For '{cls}' batch size of x and seq_length must be "
                                      f"equal, but got {batch} of x and {seq_length.shape} "
                                      "of seq_length.", user_loc())

    def construct(self, x: Any, hx: Any = None, seq_length: Any = None) -> Any:
        self._check_inputs(x, hx, seq_length)
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        if hx is None:
            shape = (self.num_layers * self.num_directions, x.shape[1], self.hidden_size)
            hx = (F.zeros(shape, x.dtype), F.zeros(shape, x.dtype)) if self.is_lstm \
                else F.zeros(shape, x.dtype)
        if seq_length is not None:
            seq_length = F.cast(seq_length, dtypes.int32)
        output, finals = x, []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.num_directions):
                index = layer * self.num_directions + direction
                state = (hx[0][index], hx[1][index]) if self.is_lstm else hx[index]
                seq = output if direction == 0 else reverse_time(output, seq_length)
                out, state = run_direction(self.step, seq, state, self._weights(index),
                                           seq_length)
                outputs.append(out if direction == 0 else reverse_time(out, seq_length))
                finals.append(state)
            output = outputs[0] if len(outputs) == 1 else F.concat(outputs, 2)
            if self.dropout != 0 and layer < self.num_layers - 1:
                output = self.dropout_op(output)
        if self.batch_first:
            output = F.transpose(output, (1, 0, 2))
        if self.is_lstm:
            return output, (F.stack([h for h, _ in finals]), F.stack([c for _, c in finals]))
        return output, F.stack(finals)

    def extend_repr(self) -> str:
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Stacked Elman RNN: h_t = nonlinearity(x_t @ w_ih.T + b_ih + h_{t-1} @ w_hh.T + b_hh).

    Inputs ``(x, hx=None, seq_length=None)``; outputs ``(output, h_n)``.

    Example:
        >>> net = nn.RNN(10, 16, 2, batch_first=True)
        >>> out, h = net(ms.Tensor(np.ones([3, 5, 10], np.float32)))
        >>> out.shape, h.shape
        ((3, 5, 16), (2, 3, 16))
    """

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any):
        step = relu_step if nonlinearity_of(nonlinearity, "RNN") == "relu" else tanh_step
        super().__init__(step, 1, *args, **kwargs)


class GRU(_RNNBase):
    """Stacked GRU layers (gates in MindSpore's order: reset, update, new).

    Inputs ``(x, hx=None, seq_length=None)``; outputs ``(output, h_n)``.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(gru_step, 3, *args, **kwargs)


class LSTM(_RNNBase):
    """Stacked LSTM layers (gates in MindSpore's order: input, forget, cell, output).

    Inputs ``(x, hx=None, seq_length=None)`` with ``hx = (h_0, c_0)``; outputs
    ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(lstm_step, 4, *args, **kwargs)

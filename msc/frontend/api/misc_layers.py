"""The smaller layers and helpers: ``nn.Unflatten``, ``nn.CellDict``, ``nn.ClipByNorm``,
``ops.clip_by_norm`` and ``ops.clip_by_global_norm``.

Norm clipping is composed from reductions and elementwise ops; the "clip only when the
norm is too large" test becomes a multiplication by ``min(coefficient, 1)``, so graphs
have no branch and the unclipped case returns the input's values exactly.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any, Iterator

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.api import functional as F
from msc.frontend.api.cell import Cell
from msc.frontend.api.functional import _as_tensor, _checking
from msc.common.seed import generator, get_seed
from msc.common.tensor import SymTensor, Tensor
from msc.frontend.builder import _ACTIVE, current_builder
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op

# --- Unflatten ----------------------------------------------------------------------------


class Unflatten(Cell):
    """Splits axis ``axis`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, axis: int, unflattened_size: Any):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise GraphTypeError(f"For 'Unflatten', the type of 'axis' must be 'int', but "
                                 f"got '{type(axis).__name__}'.", user_loc())
        if not isinstance(unflattened_size, (list, tuple)):
            raise GraphTypeError("For 'Unflatten', the type of 'unflattended_size' should be "
                                 "one of '['list', 'tuple']', but got type "
                                 f"'{type(unflattened_size).__name__}'.", user_loc())
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x: Any) -> Any:
        x = _as_tensor(input_x, "Unflatten")
        with _checking("Unflatten"):
            if not -x.ndim <= self.axis < x.ndim:
                raise GraphValueError(f"'axis' must be in range [{-x.ndim}, {x.ndim}), but "
                                      f"got {self.axis}")
        axis = self.axis % x.ndim
        return F.reshape(x, x.shape[:axis] + self.unflattened_size + x.shape[axis + 1:])

    def extend_repr(self) -> str:
        return f"axis={self.axis}, unflattened_size={self.unflattened_size}"


# --- CellDict -----------------------------------------------------------------------------


class CellDict(Cell):
    """Cells by name, in insertion order; parameters are named ``<attr>.<key>.<name>``.
    In ``construct``, ``self.cells['a'](x)`` and ``for key in self.cells`` (or
    ``.keys()``, ``.values()``, ``.items()``) work as in Python: keys are constants.

    Example:
        >>> d = nn.CellDict({'dense': nn.Dense(2, 3), 'act': nn.ReLU()})
        >>> list(d.keys())
        ['dense', 'act']
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(kwargs.pop("auto_prefix", True))
        if len(args) == 1:
            self.update(args[0])

    def _key(self, key: Any) -> str:
        if not isinstance(key, str):
            raise GraphTypeError(f"For 'CellDict', the type of key should be string but got "
                                 f"{type(key).__name__}.", user_loc())
        if "." in key:
            raise KeyError(f"For 'CellDict', key can not contain \".\", but got key {key}")
        return key

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        if not isinstance(cell, Cell):
            raise GraphTypeError(f"For 'CellDict', the type of cell should be Cell, but got "
                                 f"{type(cell).__name__}.", user_loc())
        self.insert_child_to_cell(self._key(key), cell)

    def __delitem__(self, key: str) -> None:
        if key not in self._cells:
            raise KeyError(key)
        self._forget(key)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._cells))

    def __contains__(self, key: object) -> bool:
        return key in self._cells

    def keys(self) -> Any:
        return OrderedDict(self._cells).keys()

    def values(self) -> Any:
        return OrderedDict(self._cells).values()

    def items(self) -> Any:
        return OrderedDict(self._cells).items()

    def clear(self) -> None:
        for key in list(self._cells):
            self._forget(key)

    def pop(self, key: str) -> Cell:
        cell = self[key]
        del self[key]
        return cell

    def update(self, cells: Any) -> None:
        """Add (or replace) the cells of a dict, a CellDict or an iterable of pairs."""
        if isinstance(cells, (dict, CellDict)):
            pairs = list(cells.items())
        else:
            try:
                pairs = [tuple(p) for p in cells]
            except TypeError:
                raise GraphTypeError(f"CellDict.update() should be called with an iterable "
                                     f"of key-value pairs, but got "
                                     f"{type(cells).__name__}", user_loc()) from None
            if any(len(p) != 2 for p in pairs):
                raise GraphValueError("CellDict.update(): every element of the iterable "
                                      "must be a (key, cell) pair", user_loc())
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs: Any) -> Any:
        raise NotImplementedError("CellDict holds cells; call its elements instead.")


# --- norm clipping ------------------------------------------------------------------------


class ClipByNorm(Cell):
    """``x * clip_norm / max(||x||_2, clip_norm)``, the L2 norm over ``axis`` (None: all
    axes); the result is float32, as in MindSpore."""

    def __init__(self, axis: Any = None):
        super().__init__()
        axes = () if axis is None else axis
        items = axes if isinstance(axes, (tuple, list)) else (axes,)
        if any(isinstance(a, bool) or not isinstance(a, int) for a in items):
            raise GraphTypeError(f"For 'ClipByNorm', the 'axis' must be None, int or a "
                                 f"tuple of ints, but got {axis!r}.", user_loc())
        self.axis = tuple(items) if isinstance(axes, (tuple, list)) else axes

    def construct(self, x: Any, clip_norm: Any) -> Any:
        with _checking("ClipByNorm"):
            if not isinstance(x, Tensor) or not isinstance(clip_norm, Tensor):
                raise GraphTypeError("the input args must be tensor.")
            for what, t in (("x", x), ("clip_norm", clip_norm)):
                if t.dtype not in (dtypes.float16, dtypes.float32):
                    raise GraphTypeError(f"the input argument[{what}] must be a type of "
                                         f"{{Float16, Float32}}, but got {t.dtype}.")
        x = F.cast(x, dtypes.float32)
        clip = F.cast(clip_norm, dtypes.float32)
        norm = F.sqrt(F.sum(F.square(x), self.axis if self.axis != () else None, True))
        return x * clip / F.maximum(norm, clip)


def _total_norm(tensors: tuple[Any, ...], norm_type: float) -> Any:
    """MindSpore's total norm: the norm of the per-tensor norms, each (sum x^p)^(1/p)
    computed as written there (no absolute value: an odd ``norm_type`` sums signed
    powers), or the largest magnitude for ``inf``."""
    if norm_type == float("inf"):
        return F.amax(F.stack([F.amax(F.abs(t)) for t in tensors]))

    def norm(t: Any) -> Any:
        return F.cast(F.pow(F.sum(F.pow(t, norm_type)), 1.0 / norm_type), t.dtype)
    return norm(F.stack([norm(t) for t in tensors]))


def clip_by_norm(x: Any, max_norm: Any, norm_type: Any = 2.0,
                 error_if_nonfinite: bool = False) -> Any:
    """Scale a tensor, or every tensor of a list/tuple, by ``max_norm / (total norm +
    1e-6)`` when that is below 1."""
    single = isinstance(x, Tensor)
    tensors = (x,) if single else tuple(x)
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise GraphTypeError("For 'clip_by_norm', 'x' must be a Tensor or a list or tuple "
                             "of Tensors.", user_loc())
    if error_if_nonfinite:
        raise GraphValueError("For 'clip_by_norm', error_if_nonfinite=True needs the norm's "
                              "value while tracing; msc supports only False.", user_loc())
    total = _total_norm(tensors, float(norm_type))
    coef = F.minimum(max_norm / (total + 1e-6), 1.0)
    out = [F.cast(t * coef, t.dtype) for t in tensors]
    return out[0] if single else type(x)(out)


def clip_by_global_norm(x: Any, clip_norm: Any = 1.0, use_norm: Any = None) -> Any:
    """Scale every tensor by ``clip_norm / max(global norm, clip_norm)``, the global norm
    being the L2 norm of all the tensors together (computed in float32)."""
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float)) or \
            clip_norm <= 0:
        raise GraphValueError(f"For 'clip_by_global_norm', the argument 'clip_norm' must > "
                              f"0.0, but got {clip_norm}.", user_loc())
    if use_norm is not None:
        raise GraphValueError(f"For '_ClipByGlobalNorm', input 'use_norm' only supports "
                              f"None currently, but got 'use_norm': {use_norm}", user_loc())
    single = isinstance(x, Tensor)
    tensors = (x,) if single else tuple(x)
    square_sum = sum(F.sum(F.square(F.cast(t, dtypes.float32))) for t in tensors)
    global_norm = F.maximum(F.sqrt(square_sum), float(clip_norm))
    out = [F.cast(F.cast(t, dtypes.float32) * float(clip_norm) / global_norm, t.dtype)
           for t in tensors]
    return out[0] if single else tuple(out)


# --- random numbers -----------------------------------------------------------------------

#: the root builder of a graph being built -> the draws it holds so far.
_DRAWS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def uniform_draw(shape: tuple[int, ...], seed: int | None = None) -> Any:
    """float32 numbers in [0, 1) of ``shape``. Eagerly they come from the generator
    ``set_seed`` seeds (or a fresh one for an explicit ``seed``); in a graph from a
    ``UniformReal`` node whose stream is seeded by the global seed (or ``seed``) and the
    node's rank among the build's draws, so a network built after ``set_seed(s)`` draws
    the same numbers each time (not MindSpore's numbers: its generator differs)."""
    builder = current_builder()
    if builder is None:
        rng = generator() if seed is None else np.random.default_rng((seed, 0))
        return Tensor(rng.random(shape, dtype=np.float32))
    root = _ACTIVE[0]
    offset = _DRAWS.get(root, 0)
    _DRAWS[root] = offset + 1
    var = builder.effect(Op.UniformReal, (), {"shape": tuple(shape), "offset": offset,
                                              "seed": get_seed() if seed is None else seed})
    return SymTensor(var, builder)


def dropout(input: Any, p: float = 0.5, training: bool = True, seed: int | None = None) -> Any:
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p)."""
    x = _as_tensor(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise GraphValueError(f"For 'dropout', the 'p' must be a number in range [0, 1], "
                              f"but got {p}.", user_loc())
    if not training or p == 0:
        return x
    if not x.dtype.is_float:
        raise GraphTypeError(f"For 'dropout', the dtype of 'input' must be float, but got "
                             f"{x.dtype}.", user_loc())
    if p == 1:
        return x * 0
    keep = F.cast(uniform_draw(x.shape, seed) < 1.0 - p, x.dtype)
    return x * keep / (1.0 - p)


def rand(*size: Any, dtype: Any = None, seed: int | None = None) -> Any:
    """Uniform numbers in [0, 1) of shape ``size`` (float32 unless ``dtype``)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in shape):
        raise GraphTypeError(f"For 'rand', the 'size' must be non-negative ints, but got "
                             f"{size!r}.", user_loc())
    out = uniform_draw(tuple(shape), seed)
    return out if dtype in (None, dtypes.float32) else F.cast(out, dtype)


#: ``msc.ops`` names.
OPS = ["clip_by_norm", "clip_by_global_norm", "dropout", "rand"]
#: ``msc.nn`` names.
NN = ["Unflatten", "CellDict", "ClipByNorm"]

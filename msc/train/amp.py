"""Mixed-precision training (``mindspore.amp``): the loss scalers (``StaticLossScaler``,
``DynamicLossScaler``, ``all_finite``) and the network transforms
(``auto_mixed_precision``, ``custom_mixed_precision``, ``build_train_network``).

The transforms only mark Cells with the type they compute in (``Cell.to_float``) and
wrap them where MindSpore wraps them; the casts happen at each op while a marked Cell
runs (``common/amp_scope.py``), eagerly and in compiled graphs alike.

The scalers are ``jit_class`` objects, so ``scale``/``unscale``/``adjust`` compile into a
``@jit`` train step; the scale and the dynamic scaler's counter are Parameters that
``adjust`` updates with ``assign``, as MindSpore's do.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from msc import dtype as mstype
from msc.common.api import jit_class
from msc.common.tensor import Parameter, Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.ir.primitives import Op
from msc.nn.cell import Cell
from msc.nn.learning_rate_schedule import check_positive_int
from msc.ops import functional as F
from msc.ops.composite.base import HyperMap, partial
from msc.ops.function.side_effect_func import assign
from msc.train.loss_scale_manager import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
)

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite",
           "auto_mixed_precision", "custom_mixed_precision", "build_train_network",
           "get_white_list", "get_black_list", "DynamicLossScaleManager", "LossScaleManager",
           "FixedLossScaleManager"]

_hyper_map = HyperMap()


def _finite(x: Any) -> Any:
    """Whether every element is finite: x * 0 is 0 exactly for finite x (NaN otherwise)."""
    return F.all(x * 0 == 0)


def all_finite(inputs: Any) -> Any:
    """A 0-d bool Tensor: whether every element of a Tensor or of a tuple/list of them is
    finite (no inf, no NaN)."""
    if isinstance(inputs, (tuple, list)):
        return reduce(F.logical_and, [_finite(x) for x in inputs])
    return _finite(inputs)


def _scaled(scale: Any, x: Any) -> Any:
    return x * F.cast(scale, x.dtype)


def _unscaled(scale: Any, x: Any) -> Any:
    return x * F.cast(1.0 / scale, x.dtype)


def _map(fn: Any, scale: Any, inputs: Any) -> Any:
    """``fn(scale, x)`` over a Tensor or a tuple of Tensors."""
    if isinstance(inputs, (tuple, list)):
        return _hyper_map(partial(fn, scale), tuple(inputs))
    return fn(scale, inputs)


def _scale_parameter(scale_value: Any) -> Parameter:
    if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)):
        raise GraphTypeError("The type of 'scale_value' should be one of '['float', 'int']', "
                             f"but got type '{type(scale_value).__name__}'.")
    if scale_value < 1.0:
        raise GraphValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
    return Parameter(Tensor(np.float32(scale_value)), name="scale_value")


@jit_class
class LossScaler:
    """Base of the loss scalers: ``scale`` the loss before differentiating, ``unscale``
    the gradients after, ``adjust`` the scale to whether they were finite."""

    def scale(self, inputs: Any) -> Any:
        raise NotImplementedError

    def unscale(self, inputs: Any) -> Any:
        raise NotImplementedError

    def adjust(self, grads_finite: Any) -> Any:
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A constant scale."""

    def __init__(self, scale_value: float):
        self.scale_value = _scale_parameter(scale_value)

    def scale(self, inputs: Any) -> Any:
        return _map(_scaled, self.scale_value, inputs)

    def unscale(self, inputs: Any) -> Any:
        return _map(_unscaled, self.scale_value, inputs)

    def adjust(self, grads_finite: Any) -> Any:
        return False


class DynamicLossScaler(StaticLossScaler):
    """A scale divided by ``scale_factor`` (not below 1) after a step whose gradients
    overflowed, and multiplied by it after ``scale_window`` finite steps in a row."""

    def __init__(self, scale_value: float, scale_factor: int, scale_window: int):
        super().__init__(scale_value)
        self.scale_window = check_positive_int(scale_window, "scale_window", None)
        self.scale_factor = check_positive_int(scale_factor, "scale_factor", None)
        self.counter = Parameter(Tensor(np.int32(0)), name="counter")

    def adjust(self, grads_finite: Any) -> Any:
        scale = self.scale_value * 1
        grown = scale * self.scale_factor
        grown = F.select(_finite(grown), grown, scale)
        finite_scale = F.select(self.counter == self.scale_window - 1, grown, scale)
        shrunk = F.maximum(scale / self.scale_factor, F.ones_like(scale))
        assign(self.scale_value, F.select(grads_finite, finite_scale, shrunk))
        counter = (self.counter + 1) % self.scale_window
        assign(self.counter, F.select(grads_finite, counter, F.zeros_like(counter)))
        return True



# --- the network transforms ----------------------------------------------------------------


def _white_cells() -> tuple[type, ...]:
    from msc import nn

    return (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose,
            nn.Conv3dTranspose, nn.Dense, nn.LSTMCell, nn.RNNCell, nn.GRUCell)


def _white_prims() -> dict[type, tuple[Any, ...]]:
    """MindSpore's white-listed primitive classes -> the primitives of msc's graphs they
    run as (``PReLU`` and ``Ger`` are compositions in msc: their ops are not cast by O1)."""
    from msc import ops

    return {ops.Conv2D: (Op.Conv,), ops.Conv3D: (Op.Conv,),
            ops.Conv2DTranspose: (Op.ConvTranspose,),
            ops.Conv2DBackpropInput: (Op.ConvTranspose,),
            ops.Conv3DTranspose: (Op.ConvTranspose,), ops.MatMul: (Op.MatMul, Op.Dense),
            ops.BatchMatMul: (Op.BatchMatMul,), ops.PReLU: (), ops.ReLU: (Op.ReLU,),
            ops.Ger: ()}


def _black_cells() -> tuple[type, ...]:
    from msc import nn

    return (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm)


def get_white_list() -> list[type]:
    """The Cells and primitive classes level "O1" runs in low precision."""
    return list(_white_cells()) + list(_white_prims())


def get_black_list() -> list[type]:
    """The Cells level "O2" keeps in float32."""
    return list(_black_cells())


def _cast_floats(dtype: Any, out: Any) -> Any:
    """``F.mixed_precision_cast``: each floating Tensor of ``out`` (nested) cast."""
    if isinstance(out, (tuple, list)):
        return type(out)(_cast_floats(dtype, o) for o in out)
    if isinstance(out, Tensor) and out.dtype.is_float:
        return F.cast(out, dtype)
    return out


class _OutputTo16(Cell):
    """A Cell kept in float32 inside a low-precision network: its outputs cast back."""

    def __init__(self, backbone: Cell, dtype: Any = mstype.float16):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        return _cast_floats(self.dtype, self._backbone(*args, **kwargs))


class _OutputTo32(Cell):
    """A low-precision network whose floating outputs come back in float32."""

    def __init__(self, backbone: Cell):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        return _cast_floats(mstype.float32, self._backbone(*args, **kwargs))


class _Float32LossCell(Cell):
    """``loss_fn(network(data), label)`` with the output and the label cast to float32."""

    def __init__(self, backbone: Cell, loss_fn: Cell):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Any, label: Any) -> Any:
        out = _cast_floats(mstype.float32, self._backbone(data))
        return self._loss_fn(out, _cast_floats(mstype.float32, label))


def _set_by_user(cell: Any) -> bool:
    return any(getattr(cell, flag, False) for flag in ("fp32", "fp16", "bf16"))


def _white_list_scopes(cell: Any, dtype: Any, cells: tuple[type, ...],
                       prims: tuple[str, ...]) -> None:
    """O1: a white-listed Cell runs every op in ``dtype``, the rest of the network the
    listed primitives; each such op's floating outputs are cast back to float32."""
    from msc.common.amp_scope import ATTR, Scope

    if _set_by_user(cell):
        return
    if isinstance(cell, cells):
        object.__setattr__(cell, ATTR, Scope(dtype, None, True))
        return
    if getattr(cell, ATTR, None) is None:
        object.__setattr__(cell, ATTR, Scope(dtype, prims, True))
    for child in cell.name_cells().values():
        _white_list_scopes(child, dtype, cells, prims)


def _auto_black_list(network: Any, black_list: tuple[type, ...], dtype: Any) -> Any:
    """The network in ``dtype``, the black-listed Cells in float32 with their outputs
    cast back to ``dtype``."""
    network.to_float(dtype)
    for name, child in list(network.name_cells().items()):
        if child is network:
            continue
        if isinstance(child, black_list):
            network._replace_child(name, lambda c: _OutputTo16(c.to_float(mstype.float32),
                                                               dtype))
        else:
            _auto_black_list(child, black_list, dtype)
    return network


def _check_network(network: Any, amp_level: str, dtype: Any) -> None:
    if not isinstance(network, Cell):
        raise GraphTypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    if dtype is not mstype.float16:
        raise GraphValueError("The dtype should be one of (mstype.float16, mstype.bfloat16), "
                              f"but got {dtype}.")


def _prims_of(classes: list[type]) -> tuple[str, ...]:
    names: list[str] = []
    for cls in classes:
        prim = getattr(cls, "prim", None)
        names += [prim.name] if prim is not None else \
            [p.name for p in _white_prims().get(cls, ())]
    return tuple(sorted(set(names)))


def auto_mixed_precision(network: Any, amp_level: str = "O0", dtype: Any = mstype.float16
                         ) -> Any:
    """MindSpore's levels: "O0" leaves the network; "O1" runs the white-listed Cells and
    primitives (``get_white_list``) in ``dtype``, their outputs cast back to float32; "O2"
    runs the network in ``dtype`` except the black-listed Cells (``get_black_list``: batch
    and layer norms, kept in float32); "O3" runs all of it in ``dtype``. O2 and O3 return
    the network wrapped so that its floating outputs come back in float32."""
    if amp_level == "auto":
        from msc.api_names import UnsupportedApiError

        raise UnsupportedApiError("auto_mixed_precision level 'auto' is not supported by msc; "
                                  "use 'O1', 'O2' or 'O3'.")
    _check_network(network, amp_level, dtype)
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        _white_list_scopes(network, dtype, _white_cells(), _prims_of(get_white_list()))
    elif amp_level == "O2":
        network = _OutputTo32(_auto_black_list(network, _black_cells(), dtype))
    elif amp_level == "O3":
        network = _OutputTo32(network.to_float(dtype))
    else:
        raise GraphValueError(f"The amp level {amp_level} is not supported")
    network._amp_level = amp_level
    return network


def _check_list(classes: Any, what: str) -> None:
    from msc.ops.primitive import Primitive

    if not isinstance(classes, list):
        raise GraphTypeError(f"The type of {what} should be list, but got {type(classes)}")
    for cls in classes:
        if not isinstance(cls, type):
            raise GraphTypeError(f"The element in {what} should be a class, but got {cls}")
        if what == "white_list" and not issubclass(cls, (Cell, Primitive)):
            raise GraphTypeError(f"The subclass of element in {what} should be one of 'Cell' "
                                 f"and 'Primitive', but got {cls}")
        if what == "black_list" and not issubclass(cls, Cell):
            raise GraphTypeError(f"The subclass of element in {what} should be one of 'Cell', "
                                 f"but got {cls}")


def custom_mixed_precision(network: Any, *, white_list: Any = None, black_list: Any = None,
                           dtype: Any = mstype.float16) -> Any:
    """O1 with ``white_list`` (Cells and primitive classes) or O2 with ``black_list``
    (Cells) for the lists given."""
    if not isinstance(network, Cell):
        raise GraphTypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise GraphValueError("For custom_mixed_precision, one of white_list and black_list "
                              "must be provided.")
    if white_list is not None and black_list is not None:
        raise GraphValueError("For custom_mixed_precision, the white_list or black_list "
                              "cannot be provided at the same time, please provide one or the "
                              "other.")
    _check_network(network, "custom", dtype)
    if white_list is not None:
        _check_list(white_list, "white_list")
        cells = tuple(c for c in white_list if issubclass(c, Cell))
        _white_list_scopes(network, dtype, cells, _prims_of([c for c in white_list
                                                             if not issubclass(c, Cell)]))
        return network
    _check_list(black_list, "black_list")
    return _OutputTo32(_auto_black_list(network, tuple(black_list), dtype))


# --- build_train_network -------------------------------------------------------------------

_CONFIG = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32,
           "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32,
           "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": mstype.float16,
           "loss_scale_manager": "dynamic"},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float16,
           "loss_scale_manager": None},
}


def _check_kwargs(kwargs: dict[str, Any]) -> None:
    for arg in kwargs:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise GraphValueError(f"Unsupported arg '{arg}'")
    if "cast_model_type" in kwargs and kwargs["cast_model_type"] not in (mstype.float16,
                                                                          mstype.float32):
        raise GraphTypeError("The type of 'cast_model_type' should be in [Float16, Float32], "
                             f"but got {kwargs['cast_model_type']}.")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise GraphTypeError("The type of 'keep_batchnorm_fp32' should be bool, but got "
                             f"{type(kwargs['keep_batchnorm_fp32']).__name__}.")
    manager = kwargs.get("loss_scale_manager")
    if manager and not isinstance(manager, LossScaleManager):
        raise GraphTypeError("The type of 'loss_scale_manager' should be LossScaleManager, "
                             f"but got {type(manager).__name__}.")


def _keep_batchnorm_fp32(network: Any) -> None:
    for name, child in list(network.name_cells().items()):
        if child is network:
            continue
        if isinstance(child, _black_cells()):
            network._replace_child(name, lambda c: _OutputTo16(c.to_float(mstype.float32)))
        else:
            _keep_batchnorm_fp32(child)


def _with_loss(network: Any, loss_fn: Any, cast_model_type: Any) -> Any:
    """``loss_fn(network(data), label)``; a low-precision network's output and the label
    cast to float32 first, so the loss is computed in float32."""
    from msc.nn.wrap.cell_wrapper import WithLossCell

    if not isinstance(loss_fn, Cell):
        raise GraphTypeError(f"The type of 'loss_fn' should be Cell, but got "
                             f"{type(loss_fn).__name__}.")
    if cast_model_type is mstype.float16 or getattr(network, "_amp_level", None) in ("O2",
                                                                                     "O3"):
        return _Float32LossCell(network, loss_fn)
    return WithLossCell(network, loss_fn)


def build_train_network(network: Any, optimizer: Any, loss_fn: Any = None, level: str = "O0",
                        boost_level: str = "O0", **kwargs: Any) -> Any:
    """The training step of ``network`` at an amp ``level`` (see ``auto_mixed_precision``):
    O2 and O3 cast the whole network to float16 (O2 keeps the batch norms in float32); the
    loss is computed in float32; O2 scales the loss with a ``DynamicLossScaleManager``
    (``nn.TrainOneStepWithLossScaleCell``). ``kwargs``: ``cast_model_type``,
    ``keep_batchnorm_fp32``, ``loss_scale_manager`` override the level's."""
    from msc.nn.optim.optimizer import Optimizer
    from msc.nn.wrap.cell_wrapper import TrainOneStepCell
    from msc.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell

    if not isinstance(optimizer, Optimizer):
        raise GraphTypeError("The type of 'optimizer' should be Optimizer, but got "
                             f"{type(optimizer).__name__}.")
    if not isinstance(level, str):
        raise GraphTypeError("The argument `level` must be a string in ['O0', 'O1', 'O2', "
                             f"'O3', 'auto'],but got type {type(level)}.")
    if level not in ("O0", "O1", "O2", "O3", "auto"):
        raise GraphValueError(f"The `level` must be in ['O0', 'O1', 'O2', 'O3', 'auto'], but "
                              f"got {level!r}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise GraphValueError(f"The `boost_level` must be in ['O0', 'O1', 'O2'], but got "
                              f"{boost_level!r}.")
    if boost_level != "O0" or level == "auto":
        from msc.api_names import UnsupportedApiError

        raise UnsupportedApiError("build_train_network: boost levels and level 'auto' are not "
                                  "supported by msc.")
    _check_kwargs(kwargs)
    config = dict(_CONFIG[level], **kwargs)
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    if config["cast_model_type"] is mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_batchnorm_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif not (config["cast_model_type"] is mstype.float32 and level in ("O2", "O3")):
        network = auto_mixed_precision(network, level)
    if loss_fn:
        network = _with_loss(network, loss_fn, config["cast_model_type"])
    manager = config["loss_scale_manager"]
    loss_scale = 1.0
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer,
                                                 scale_sense=update_cell).set_train()
    return TrainOneStepCell(network, optimizer, loss_scale).set_train()

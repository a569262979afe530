"""The argument checks the layers and ops share (as MindSpore's ``_checkparam``): an int, a
bool, a float or an initialiser of the right shape, each failing with MindSpore's exception
type and wording at the user's line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import Tensor
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc


def _int(value: Any, arg: str, cls: str, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be int, but got "
                             f"{type(value).__name__}.", user_loc())
    if positive and value <= 0:
        raise GraphValueError(f"For '{cls}', the '{arg}' must be a positive int, but got "
                              f"{value}.", user_loc())
    return value


def _bool(value: Any, arg: str, cls: str) -> bool:
    if not isinstance(value, bool):
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be bool, but got "
                             f"{type(value).__name__}.", user_loc())
    return value


def _float(value: Any, arg: str, cls: str, ints: bool = False) -> float:
    kinds = (int, float) if ints else (float,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        want = "float or int" if ints else "float"
        raise GraphTypeError(f"For '{cls}', the '{arg}' must be {want}, but got "
                             f"{type(value).__name__}.", user_loc())
    return float(value)


def _check_init_shape(init: Any, shape: tuple[int, ...], arg: str, cls: str) -> None:
    if isinstance(init, (Tensor, np.ndarray)) and tuple(np.shape(init)) != shape:
        raise GraphValueError(f"For '{cls}', the shape of '{arg}' must be {shape}, but got "
                              f"{tuple(np.shape(init))}.", user_loc())

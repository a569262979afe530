"""The threads CPU kernels use: ``threads_num(n)`` is ``set_context(num_threads=n)``,
which generated code and numpy's BLAS follow. As in MindSpore, it is set once."""

from __future__ import annotations

from msc.context import set_context

_SET: list[int] = []  # the number set, once


def threads_num(num: int) -> None:
    if _SET:
        raise RuntimeError("The 'threads_num' can not be set repeatedly.")
    if not isinstance(num, int):
        raise TypeError(f"The parameter 'num' must be {int}, but got {type(num)}")
    if num <= 0 or isinstance(num, bool):
        raise ValueError(f"The 'num' must be int and must > 0, but got '{num}' with type "
                         f"'{type(num).__name__}'.")
    set_context(num_threads=num)
    _SET.append(num)

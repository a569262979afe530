"""``mindspore.dataset.config``: the seed behind shuffling and random transforms, and the
default number of map workers.

``map`` runs on ``get_num_parallel_workers()`` threads unless told otherwise: one by
default (MindSpore starts up to eight), so a map function need not be thread-safe unless
more are asked for.

Without ``set_seed`` every run shuffles differently, as in MindSpore; after it, a pipeline
gives the same order on every run (``msc.set_seed`` sets this seed too). Each random
source draws from its own generator derived from the seed, the epoch and what it is, so
adding a transform does not change the order a shuffle gives.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np

from msc.errors import GraphTypeError, GraphValueError

__all__ = ["set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers"]

_DEFAULT_SEED = 5489  # MindSpore's get_seed() before any set_seed (mt19937's default)
_seed: int | None = None
_workers = 1
_transform_rng: np.random.Generator = np.random.default_rng()
_row = threading.local()  # the stream of the row a map worker is transforming


def set_seed(seed: int) -> None:
    """Make shuffles and random transforms repeat from run to run."""
    global _seed, _transform_rng
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**32 - 1:
        raise GraphValueError(f"Input seed is not within the required interval of [0, "
                              f"4294967295], but got {seed!r}.")
    _seed = seed
    _transform_rng = np.random.default_rng([seed, 1])


def get_seed() -> int:
    return _DEFAULT_SEED if _seed is None else _seed


def set_num_parallel_workers(num: int) -> None:
    global _workers
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise GraphValueError(f"num_parallel_workers must be a positive int, but got {num!r}.")
    _workers = num


def get_num_parallel_workers() -> int:
    return _workers


def generator(*stream: int) -> np.random.Generator:
    """A generator for one random stream (an epoch of one shuffle): seeded from the
    config seed and ``stream`` after ``set_seed``, fresh entropy before it."""
    if _seed is None:
        return np.random.default_rng()
    return np.random.default_rng([_seed, *stream])


@contextlib.contextmanager
def row_generator(*stream: int) -> Iterator[None]:
    """While a map transforms one row, random transforms draw from a generator of that
    row's own stream (made on first use), so the draws do not depend on which worker
    thread runs the row, nor in what order."""
    previous = getattr(_row, "state", None)
    _row.state = [stream, None] if _seed is not None else None
    try:
        yield
    finally:
        _row.state = previous


def transform_generator() -> np.random.Generator:
    """The generator random transforms (RandomCrop, RandomHorizontalFlip) draw from: the
    current row's inside a seeded map, a process-wide one otherwise."""
    state = getattr(_row, "state", None)
    if state is None:
        return _transform_rng
    if state[1] is None:
        state[1] = np.random.default_rng([_seed, *state[0]])
    return state[1]


def check_positive_int(name: str, value: object, allow_minus_one: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphTypeError(f"Argument {name} with value {value!r} is not of type [<class "
                             f"'int'>], but got {type(value)}.")
    if value <= 0 and not (allow_minus_one and value == -1):
        raise GraphValueError(f"Input {name} is not within the required interval of [1, "
                              f"2147483647].")
    return value

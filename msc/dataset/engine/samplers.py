"""``mindspore.dataset.engine.samplers``: which indices of a random-access source an
epoch reads, and in what order (the ``shuffle``, ``num_samples``, ``num_shards`` and
``shard_id`` arguments of the sources)."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.dataset.core import config
from msc.errors import GraphTypeError, GraphValueError

__all__ = ["Sampling"]


def _optional_int(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphTypeError(f"Argument {name} with value {value!r} is not of type [<class "
                             f"'int'>], but got {type(value)}.")
    return value


class Sampling:
    """MindSpore's sequential, random and distributed samplers in one: a shard takes every
    ``num_shards``-th index from ``shard_id`` on, after the index list is padded from its
    start to a multiple of ``num_shards`` (every shard reads as many rows); a shuffle
    permutes the full list first, alike in every shard, so the shards stay disjoint."""

    def __init__(self, shuffle: bool, num_samples: Any, num_shards: Any, shard_id: Any):
        self.shuffle = shuffle
        self.num_samples = _optional_int("num_samples", num_samples)
        self.num_shards = _optional_int("num_shards", num_shards)
        self.shard_id = _optional_int("shard_id", shard_id)
        if (self.num_shards is None) != (self.shard_id is None):
            raise GraphValueError("num_shards and shard_id need to be passed in together.")
        if self.num_shards is not None and not 0 <= self.shard_id < self.num_shards:
            raise GraphValueError(f"Input shard_id is not within the required interval of "
                                  f"[0, {self.num_shards - 1}], but got {self.shard_id}.")
        if self.num_samples is not None and self.num_samples < 0:
            raise GraphValueError(f"num_samples must be non-negative, but got "
                                  f"{self.num_samples}.")

    def count(self, n: int) -> int:
        if self.num_shards is not None:
            n = -(-n // self.num_shards)
        return n if not self.num_samples else min(n, self.num_samples)

    def indices(self, n: int, epoch: int) -> np.ndarray:
        order = config.generator(3, epoch).permutation(n) if self.shuffle else np.arange(n)
        if self.num_shards is not None and n:
            padded = -(-n // self.num_shards) * self.num_shards
            order = np.resize(order, padded)[self.shard_id::self.num_shards]
        return order[:self.count(n)]

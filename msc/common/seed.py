"""``mindspore.common.seed``: the one seeded generator behind weight initialisation,
dropout and the random ops.

Every random weight and every eager random draw comes from one module-level numpy
``Generator``; ``set_seed`` (exported as ``msc.set_seed``) re-seeds it, so a script that
seeds first builds the same weights on every run.
"""

from __future__ import annotations

import numpy as np

from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.source import user_loc

_DEFAULT_SEED = 0
_seed: int = _DEFAULT_SEED
_rng: np.random.Generator = np.random.default_rng(_DEFAULT_SEED)


def set_seed(seed: int) -> None:
    """Re-seed the generator behind weight initialisation and dropout (``msc.set_seed``),
    and numpy's global one, as MindSpore's does (models initialise weights with
    ``np.random`` and expect ``set_seed`` to fix them).

    Example:
        >>> set_seed(1); a = initializer("normal", (2,)).asnumpy()
        >>> set_seed(1); bool((a == initializer("normal", (2,)).asnumpy()).all())
        True
    """
    global _seed, _rng
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise GraphTypeError(f"The argument 'seed' must be int, but got {type(seed).__name__}.",
                             user_loc())
    if seed < 0:
        raise GraphValueError(f"The argument 'seed' must be non-negative, but got {seed}.",
                              user_loc())
    _seed = seed
    _rng = np.random.default_rng(seed)
    np.random.seed(seed)
    from msc.dataset.core import config  # MindSpore's set_seed seeds the datasets too

    config.set_seed(seed)


def get_seed() -> int:
    return _seed


def generator() -> np.random.Generator:
    """The shared generator (looked up on every use, so ``set_seed`` takes effect)."""
    return _rng


__all__ = ["set_seed", "get_seed"]

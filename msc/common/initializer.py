"""``from msc.common.initializer import Normal, initializer``: MindSpore's import path."""

from msc.frontend.api.initializer import (  # noqa: F401
    Constant,
    HeNormal,
    HeUniform,
    Initializer,
    Normal,
    One,
    TruncatedNormal,
    Uniform,
    XavierNormal,
    XavierUniform,
    Zero,
    initializer,
)

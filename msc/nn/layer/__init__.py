"""``mindspore.nn.layer``: the layers of ``msc.nn``, one module per family, as MindSpore
has them (``from mindspore.nn.layer.conv import Conv2d``)."""

from msc.nn.layer import (
    activation,
    basic,
    container,
    conv,
    embedding,
    image,
    math,
    normalization,
    padding,
    pooling,
    rnn_cells,
    rnns,
    transformer,
)
from msc.nn.layer.activation import *  # noqa: F401,F403
from msc.nn.layer.basic import *  # noqa: F401,F403
from msc.nn.layer.container import *  # noqa: F401,F403
from msc.nn.layer.conv import *  # noqa: F401,F403
from msc.nn.layer.embedding import *  # noqa: F401,F403
from msc.nn.layer.image import *  # noqa: F401,F403
from msc.nn.layer.math import *  # noqa: F401,F403
from msc.nn.layer.normalization import *  # noqa: F401,F403
from msc.nn.layer.padding import *  # noqa: F401,F403
from msc.nn.layer.pooling import *  # noqa: F401,F403
from msc.nn.layer.rnn_cells import *  # noqa: F401,F403
from msc.nn.layer.rnns import *  # noqa: F401,F403
from msc.nn.layer.transformer import *  # noqa: F401,F403

__all__ = [name for module in (activation, basic, container, conv, embedding, image, math,
                               normalization, padding, pooling, rnn_cells, rnns, transformer)
           for name in module.__all__]

"""``mindspore.common.dtype`` (often ``as mstype``): the same names as ``msc.dtype``."""

from msc.dtype import *  # noqa: F401,F403
from msc.dtype import __all__  # noqa: F401

"""``mindspore.communication``: the collective backend (MPI here), ranks and groups; see
``management.py`` and ``docs/distributed.md``."""

from msc.communication.management import *  # noqa: F401,F403
from msc.communication.management import __all__  # noqa: F401

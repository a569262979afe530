"""``from msc.ops import functional as F``: MindSpore's functional namespace (``F.matmul``,
``F.reshape``, ``F.shape``, ...) and the side-effect ops (``F.assign``, ``F.depend``, ...).
"""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__  # noqa: F401
from msc.frontend.api.effects import assign, assign_add, assign_sub, depend, print_  # noqa: F401
from msc.frontend.api.hypermap import partial  # noqa: E402,F401

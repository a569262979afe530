"""``from msc.ops import functional as F``: MindSpore's functional namespace (``F.matmul``,
``F.reshape``, ``F.shape``, ...). Names such as ``F.assign`` and ``F.depend`` join as the
side-effect ops land.
"""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__  # noqa: F401
from msc.frontend.api.hypermap import partial  # noqa: E402,F401

"""``from msc.ops import composite as C``: MindSpore's composite namespace.

For now it re-exports the functional ops, which is what scripts reach through ``C`` for
plain tensor math. TODO: ``HyperMap``, ``MultitypeFuncGraph`` and ``GradOperation`` join
here when the hypermap and grad passes land.
"""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__  # noqa: F401

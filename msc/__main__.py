"""``python -m msc`` is the ``msc`` command."""

import sys

from msc.cli import main

sys.exit(main())

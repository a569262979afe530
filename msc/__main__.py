"""``python -m msc`` is the ``msc`` command."""

import sys

try:
    from msc.cli import interrupted, main
except KeyboardInterrupt:  # Ctrl-C while msc itself is imported (numpy, Numba)
    print("msc: interrupted", file=sys.stderr)
    sys.exit(130)

try:
    sys.exit(main())
except KeyboardInterrupt:  # a second Ctrl-C, or one before main's own handler
    sys.exit(interrupted())

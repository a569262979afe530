"""Print msc's coverage of MindSpore 2.10's public API (``--missing`` lists the gaps)."""

from msc.coverage import main

if __name__ == "__main__":
    raise SystemExit(main())

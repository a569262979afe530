"""``python -m msc.fuzz``: the differential fuzzer (see ``msc.fuzz``)."""

from msc.fuzz import main

if __name__ == "__main__":
    raise SystemExit(main())

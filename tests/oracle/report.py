"""Prints the oracle's counts and every configuration that does not agree:
``python -m tests.oracle.report [family ...] [--target python|numba] [--all]``."""

from __future__ import annotations

import argparse
from collections import Counter

from tests.oracle.cases import families
from tests.oracle.run_msc import run_family


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("families", nargs="*")
    parser.add_argument("--target", default="python")
    args = parser.parse_args()
    found = families()
    total: Counter[str] = Counter()
    for family in args.families or list(found):
        outcomes = run_family(found[family], args.target)
        counts = Counter(o.kind for o in outcomes)
        total.update(counts)
        print(f"{family}: {len(outcomes)} configurations, {dict(counts)}")
        for o in outcomes:
            if o.kind != "agree":
                print(f"  [{o.kind}] {o.case.id}: {o.detail}")
    print(f"total: {sum(total.values())} configurations, {dict(total)}")


if __name__ == "__main__":
    main()

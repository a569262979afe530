"""Runs configurations in msc and sorts each into agree / policy / open / unexplained
against MindSpore's record: shared by the tests and ``python -m tests.oracle.report``."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import Any

from tests.oracle.compare import differences, expected
from tests.oracle.harness import Runner
from tests.oracle.policy import verdict
from tests.oracle.record import batches
from tests.oracle.spec import Case


@dataclass
class Outcome:
    case: Case
    kind: str  # "agree", "policy", "open", "unrecorded" or "unexplained"
    detail: str = ""


def run_family(cases: list[Case], target: str, workdir: str | None = None) -> list[Outcome]:
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner("msc", workdir or tmp, target)
        got: dict[str, dict[str, Any]] = {}
        for batch in batches(cases):
            got.update(runner.run(batch))
    outcomes = []
    for case in cases:
        want = expected(case)
        if want is None:
            outcomes.append(Outcome(case, "unrecorded", "no MindSpore record: run record.py"))
            continue
        diff = differences(case, got[case.id], want)
        kind, detail = verdict(case, diff, got[case.id], want)
        outcomes.append(Outcome(case, kind, detail))
    return outcomes

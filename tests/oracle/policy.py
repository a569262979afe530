"""Where msc deliberately differs from MindSpore 2.10, configuration by configuration.

Each entry names the parts that may differ and why, in one of these classes:
- ``MINDSPORE_WRONG``: msc keeps its answer; the parts are checked against numpy written
  independently (``reference``) instead, and docs/differences.md lists the evidence;
- ``ACCEPTED``: MindSpore raises, msc runs (checked against ``reference`` where given);
- ``OPEN``: msc is wrong or lacks the form and it is not fixed yet: the suite expects the
  difference (so a fix shows) and reports it as open, never as agreeing.
Conventions at points without a derivative and gradients MindSpore defines as zero are
not listed: msc follows MindSpore there, so those configurations simply agree (see
``CONVENTIONS`` for the record of which they are)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

import numpy as np

from tests.oracle.spec import Case, case_inputs


class Why(Enum):
    MINDSPORE_WRONG = "MindSpore wrong"
    ACCEPTED = "accepted where MindSpore raises"
    OPEN = "open: msc differs, not fixed yet"


@dataclass(frozen=True)
class Policy:
    why: Why
    parts: frozenset[str]
    note: str
    reference: Callable[..., Any] | None = None


def _p(why: Why, parts: str, note: str, reference: Callable[..., Any] | None = None) -> Policy:
    return Policy(why, frozenset(parts.split()), note, reference)


# (regular expression over configuration ids, policy)
POLICIES: list[tuple[str, Policy]] = []

# Conventions msc follows (documentation: these configurations agree with MindSpore).
CONVENTIONS: dict[str, str] = {}


def policy_for(case: Case) -> Policy | None:
    for pattern, pol in POLICIES:
        if re.fullmatch(pattern, case.id):
            return pol
    return None


def verdict(case: Case, diff: dict[str, str], got: dict[str, Any],
            want: dict[str, Any]) -> tuple[str, str]:
    pol = policy_for(case)
    text = "; ".join(f"{k}: {v}" for k, v in diff.items())
    if pol is None:
        return ("agree", "") if not diff else ("unexplained", text)
    if pol.why is Why.OPEN:
        return ("open", pol.note) if diff else ("unexplained", "listed as open but agrees: "
                                                "remove its policy entry")
    extra = set(diff) - pol.parts
    if extra:
        return "unexplained", text
    if pol.reference is not None and "error" not in got:
        bad = pol.reference(case, case_inputs(case), got)
        if bad:
            return "unexplained", f"differs from the independent reference: {bad}"
    return "policy", pol.note

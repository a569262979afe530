"""The differential fuzzer: a short run finds no disagreement, and the fuzzer itself
works (deterministic programs that eager mode runs, a comparator and a shrinker that
catch and reduce planted failures)."""

from __future__ import annotations

import numpy as np

from msc.fuzz import fuzz
from msc.fuzz.generate import FEATURES, generate
from msc.fuzz.run import Leaf, Outcome, disagreement
from msc.fuzz.shrink import shrink, size


def test_a_short_run_finds_no_disagreement():
    """Every construct, eager == interpreter == python target; a numba sample too."""
    report = fuzz(seed=1000, programs=400, targets=("python",), time_limit=45, out=None,
                  shrink_seconds=20, log=print)
    assert report.programs >= 50, report.table()
    assert not report.findings, report.table()
    numba = fuzz(seed=5000, programs=40, targets=("numba",), time_limit=30, out=None,
                 shrink_seconds=20, log=print)
    assert numba.programs >= 5, numba.table()
    assert not numba.findings, numba.table()


def test_programs_are_deterministic_and_valid_python():
    for seed in range(20):
        source = generate(seed).source()
        assert source == generate(seed).source()
        compile(source, f"<program {seed}>", "exec")
    assert generate(1).source() != generate(2).source()
    plain = generate(3, FEATURES - {"tensor-if", "for", "while", "parameter"}).source()
    assert "while " not in plain and "Parameter(" not in plain


def _ok(*arrays, params=()):
    return Outcome("ok", (tuple(Leaf(np.asarray(a)) for a in arrays), tuple(params)))


def test_the_comparator_catches_planted_differences():
    eager = _ok(np.float32([1, 2]), np.int64(3), params=[np.float32([0.5])])
    assert disagreement(eager, _ok(np.float32([1, 2]), np.int64(3),
                                   params=[np.float32([0.5])])) is None
    assert disagreement(eager, _ok(np.float32([1, 2.5]), np.int64(3),
                                   params=[np.float32([0.5])])).startswith("output[0]: values")
    assert "dtype" in disagreement(eager, _ok(np.float64([1, 2]), np.int64(3),
                                              params=[np.float32([0.5])]))
    assert "parameter" in disagreement(eager, _ok(np.float32([1, 2]), np.int64(3),
                                                  params=[np.float32([0.7])]))
    raised = Outcome("raised", error="ValueError: too large")
    assert disagreement(raised, Outcome("raised", error="ValueError: other words")) is None
    assert disagreement(raised, eager) is not None
    assert disagreement(eager, raised) is not None
    assert disagreement(eager, Outcome("rejected", error="RuntimeError: no")) is None
    assert "internal" in disagreement(eager, Outcome("internal", error="Internal: bug"))


def test_the_shrinker_reduces_a_planted_failure():
    program = next(p for p in (generate(s) for s in range(100))
                   if size(p) > 12 and "ops.tanh(" in "\n".join(
                       line for st in p.body for line in st.lines(0)))

    def body_text(p):
        return "\n".join(line for st in p.body for line in st.lines(0))

    small = shrink(program, lambda p: "ops.tanh(" in body_text(p), seconds=30)
    assert "ops.tanh(" in body_text(small)
    assert size(small) <= 3 < size(program)

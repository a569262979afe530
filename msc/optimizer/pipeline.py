"""The one place the pass order is decided, and the pass manager that runs it.

``run_pipeline`` verifies the IR before the first pass and after each one, records
node counts and time per pass, dumps numbered IR files on request, and makes every
failure name the pass it happened in.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from msc._atomic import write_atomic
from msc.errors import GraphTypeError, InternalCompilerError, MscError, ShapeError
from msc.ir.nodes import Module, Node
from msc.ir.printer import print_module
from msc.ir.rewrite import all_graphs, walk
from msc.ir.verify import verify
from msc.optimizer.const_fold import const_fold
from msc.optimizer.cse import cse
from msc.optimizer.dce import dce
from msc.optimizer.if_to_select import if_to_select
from msc.optimizer.inline import inline
from msc.optimizer.load_elim import DEFAULT_LEVEL, load_elim
from msc.optimizer.slice_sink import sink_slices

#: A pass returns the new module, or (the module, notes for the compile report).
Pass = Callable[[Module], "Module | tuple[Module, list[str]]"]

PIPELINE: tuple[tuple[str, Pass], ...] = (
    # inline first: later passes then see across former call boundaries (constants reach
    # callee bodies, equal subexpressions of two blocks meet). Reusable graphs stay calls.
    ("inline", inline),
    # after inline, so constant arguments reach the nodes that use them. One forward sweep
    # is already a fixed point: each node is folded after its inputs were.
    ("const_fold", const_fold),
    # after const_fold (a folded branch costs nothing) and before cse, which then merges
    # what the two copied branches have in common (and the conditions of a loop's ifs).
    ("if_to_select", if_to_select),
    # after const_fold, which makes more nodes equal (Add(x, 1 + 2) and Add(x, 3)). cse
    # creates no constants and no identity patterns, so const_fold need not run again.
    ("cse", cse),
    # after cse, which makes equal slices of one value one (so it has a single user); it
    # leaves the nodes whose results it now slices unused, for dce.
    ("sink_slices", sink_slices),
    # folding and cse leave nodes nobody uses (forwarded MakeTuples, duplicates), and
    # removing them creates no work for the passes above, so one round suffices.
    ("dce", dce),
    # last: the copies it inserts must see the final order of reads and writes; no pass
    # after it may move a read of a loaded value past a write of its weight.
    ("load_elim", load_elim),
)


@dataclass(frozen=True)
class PassStat:
    name: str
    nodes_before: int | None  # None for the parse step, which starts from nothing
    nodes_after: int
    seconds: float


@dataclass
class PassReport:
    """Per step: node counts before and after, and wall time; the parse row comes first."""

    stats: list[PassStat] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # "<pass>: what it did and did not do"

    def add(self, name: str, before: int | None, after: int, seconds: float) -> None:
        self.stats.append(PassStat(name, before, after, seconds))

    @property
    def total_seconds(self) -> float:
        return sum(s.seconds for s in self.stats)

    def as_dicts(self) -> list[dict[str, object]]:
        """Plain data for a manifest or JSON."""
        return [{"name": s.name, "nodes_before": s.nodes_before,
                 "nodes_after": s.nodes_after, "seconds": s.seconds} for s in self.stats]

    def format(self) -> str:
        """A readable table, one row per step, and the total time."""
        width = max([len("pass"), len("total")] + [len(s.name) for s in self.stats])
        lines = [f"{'pass':<{width}}  {'nodes before':>12}  {'nodes after':>11}  {'ms':>9}"]
        for s in self.stats:
            before = "-" if s.nodes_before is None else str(s.nodes_before)
            lines.append(f"{s.name:<{width}}  {before:>12}  {s.nodes_after:>11}  "
                         f"{s.seconds * 1e3:>9.2f}")
        lines.append(f"{'total':<{width}}  {'':>12}  {'':>11}  {self.total_seconds * 1e3:>9.2f}")
        return "\n".join(lines + self.notes)


def count_nodes(module: Module) -> int:
    """Nodes of every graph the module reaches, regions included."""
    return sum(1 for g in all_graphs(module) for _ in walk(g))


def passes(*, if_to_select: bool = True,
           load_elim_level: int = DEFAULT_LEVEL) -> tuple[tuple[str, Pass], ...]:
    """``PIPELINE`` as the compile options ask: optional passes turned off removed, and
    load elimination at ``load_elim_level``."""
    chosen: list[tuple[str, Pass]] = []
    for name, fn in PIPELINE:
        if name == "if_to_select" and not if_to_select:
            continue
        if name == "load_elim":
            fn = functools.partial(load_elim, level=load_elim_level)
        chosen.append((name, fn))
    return tuple(chosen)


def run_pipeline(module: Module, *, dump_dir: str | os.PathLike[str] | None = None,
                 verify_each: bool = True, parse_seconds: float = 0.0,
                 passes: Sequence[tuple[str, Pass]] = PIPELINE) -> tuple[Module, PassReport]:
    """Run ``passes`` in order on ``module`` (which is not modified).

    ``parse_seconds`` is the frontend's time, reported in the ``parse`` row. With
    ``dump_dir``, the folder gets ``00_parse.ir`` then ``01_inline.ir``, ... (the IR after
    each pass). With ``verify_each``, the IR is verified before the first pass and after
    each one. A failing pass's error gets the note ``during pass: <name>``; an exception
    that is not an ``MscError`` becomes an ``InternalCompilerError`` naming the pass.
    """
    report = PassReport()
    count = count_nodes(module)
    report.add("parse", None, count, parse_seconds)
    dumps = Path(dump_dir) if dump_dir is not None else None
    if dumps is not None:
        dumps.mkdir(parents=True, exist_ok=True)
    typed: dict[int, Node] | None = {} if verify_each else None  # see ``verify``
    _checkpoint(module, 0, "parse", dumps, typed, "the module given to the optimizer")
    done: list[str] = []
    for i, (name, fn) in enumerate(passes, start=1):
        before, start = count, time.perf_counter()
        result = _run_one(name, fn, module, done)
        seconds = time.perf_counter() - start
        module, notes = result if isinstance(result, tuple) else (result, [])
        count = count_nodes(module)
        report.add(name, before, count, seconds)
        report.notes += [f"{name}: {note}" for note in notes]
        _checkpoint(module, i, name, dumps, typed, f"the output of pass: {name}")
        done.append(name)
    return module, report


def _run_one(name: str, fn: Pass, module: Module,
             done: list[str]) -> Module | tuple[Module, list[str]]:
    notes = [f"during pass: {name}"]
    if done:
        notes.append(f"passes run before it: {', '.join(done)}")
    try:
        return fn(module)
    except (ShapeError, GraphTypeError) as e:  # the IR was typed: re-typing it cannot fail
        raise InternalCompilerError(f"{type(e).__name__}: {e.message}", e.loc,
                                    tuple(notes)) from None
    except MscError as e:  # (a constant fold can raise what eager mode raises)
        for note in notes:
            e.add_note_line(note)
        raise
    except Exception as e:  # noqa: BLE001 - any other failure is a bug in that pass
        err = InternalCompilerError(f"{type(e).__name__}: {e}", None, tuple(notes))
        raise err from (e if os.environ.get("MSC_DEBUG") == "1" else None)


def _checkpoint(module: Module, index: int, name: str, dumps: Path | None,
                typed: dict[int, Node] | None, what: str) -> None:
    """Dump, then verify unless ``typed`` is None (the nodes already type-checked)."""
    if dumps is not None:  # NOTE: dump before verifying, so a bad IR can be inspected
        write_atomic(dumps / f"{index:02d}_{name}.ir", print_module(module))
    if typed is not None:
        try:
            verify(module, typed)
        except MscError as e:
            raise e.add_note_line(f"while verifying {what}")

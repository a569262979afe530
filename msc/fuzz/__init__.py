"""The differential fuzzer: random programs, run every way msc can, compared with eager.

``python -m msc.fuzz --seed 0 --programs 500`` generates programs from the op table's
MindSpore names and the Python constructs graphs accept (``generate.py``), runs each in
eager mode, through the reference interpreter, in GRAPH_MODE on every target and, for a
sample, from an artifact in a fresh process (``run.py``), and reports every disagreement
with the smallest program that still shows it (``shrink.py``), written to ``--out`` as a
runnable file. The same seed and options give the same programs.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from msc.fuzz.generate import FEATURES, Program, generate
from msc.fuzz.run import (
    Outcome,
    disagreement,
    load,
    run_artifact,
    run_eager,
    run_graph,
    run_interpreter,
)
from msc.fuzz.shrink import shrink, size


@dataclass
class Finding:
    """One disagreement: the program's index, the way of running, the problem, and the
    shrunk program."""

    index: int
    way: str
    problem: str
    program: Program


@dataclass
class Report:
    programs: int = 0
    runs: collections.Counter[str] = field(default_factory=collections.Counter)
    rejections: collections.Counter[str] = field(default_factory=collections.Counter)
    eager_raised: int = 0
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0

    def table(self) -> str:
        rate = self.programs / self.seconds if self.seconds else 0.0
        lines = ["| programs | runs | eager raised | rejected | disagreements | seconds | "
                 "programs/s |", "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
                 f"| {self.programs} | {', '.join(f'{k} {v}' for k, v in self.runs.items())} "
                 f"| {self.eager_raised} | {sum(self.rejections.values())} | "
                 f"{len(self.findings)} | {self.seconds:.0f} | {rate:.2f} |"]
        if self.rejections:
            lines.append("\nrejections (msc's own clear errors), most common first:")
            lines += [f"  {n:5d}  {msg}" for msg, n in self.rejections.most_common(12)]
        for f in self.findings:
            lines.append(f"\nDISAGREEMENT in program {f.index} ({f.way}): {f.problem}")
        return "\n".join(lines)


class Runner:
    """Runs programs the chosen ways in one scratch folder."""

    def __init__(self, targets: Sequence[str], folder: Path):
        self.targets, self.folder = list(targets), folder
        self.count = 0

    def ways(self, program: Program, artifact: bool) -> tuple[Outcome, dict[str, Outcome]]:
        self.count += 1
        folder = self.folder / f"p{self.count}"
        folder.mkdir()
        try:
            module = load(program, folder, f"msc_fuzz_{self.count}")
        except SyntaxError as e:  # a shrinking step moved a ``break`` out of its loop
            return Outcome("invalid", error=str(e)), {}
        eager = run_eager(module, program)
        if eager.kind == "timeout":
            return eager, {}
        others = {"interpreter": run_interpreter(module, program)}
        for target in self.targets:
            others[target] = run_graph(module, program, target)
        if artifact and eager.kind == "ok":
            others["artifact"] = run_artifact(program, folder, self.targets[0])
        shutil.rmtree(folder, ignore_errors=True)
        return eager, others

    def problems(self, program: Program, artifact: bool) -> dict[str, str]:
        eager, others = self.ways(program, artifact)
        return {way: p for way, o in others.items() if (p := disagreement(eager, o))}


def fuzz(seed: int = 0, programs: int = 100, targets: Sequence[str] = ("numba", "python"),
         artifact_every: int = 0, time_limit: float | None = None,
         features: frozenset[str] = FEATURES, out: Path | None = None,
         shrink_seconds: float = 60.0, log: Callable[[str], Any] = print) -> Report:
    """Generate and check ``programs`` programs from ``seed`` (program ``k`` is
    ``generate(seed + k)``), stopping early after ``time_limit`` seconds."""
    report = Report()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="msc-fuzz-") as scratch:
        runner = Runner(targets, Path(scratch))
        for k in range(programs):
            if time_limit is not None and time.monotonic() - start > time_limit:
                break
            program = generate(seed + k, features)
            artifact = bool(artifact_every) and k % artifact_every == 0
            eager, others = runner.ways(program, artifact)
            report.programs += 1
            report.eager_raised += eager.kind != "ok"
            for way, outcome in others.items():
                report.runs[way] += 1
                if outcome.kind == "rejected":
                    report.rejections[_message(outcome.error)] += 1
                problem = disagreement(eager, outcome)
                if problem is None:
                    continue
                kind = problem.split(":")[0]

                def still(p: Program, way: str = way, kind: str = kind) -> bool:
                    found = runner.problems(p, way == "artifact").get(way)
                    return found is not None and found.split(":")[0] == kind
                small = shrink(program, still, shrink_seconds)
                finding = Finding(seed + k, way, problem, small)
                report.findings.append(finding)
                log(f"program {seed + k}: {way} disagrees ({problem}); shrunk from "
                    f"{size(program)} to {size(small)} statements")
                if out is not None:
                    write_finding(finding, out)
                break
    report.seconds = time.monotonic() - start
    return report


def _message(error: str) -> str:
    """An error without its location and source excerpt: rejections of one kind group."""
    first = error.splitlines()[0]
    head, _, rest = first.partition(": ")
    if "/" in rest.split(" ")[0]:  # "RuntimeError: file:line:col: message"
        rest = rest.split(": ", 1)[-1]
    return f"{head}: {rest}"[:160]


def write_finding(finding: Finding, out: Path) -> Path:
    """The shrunk program as a runnable file that prints eager's and msc's results."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"finding_{finding.index}_{finding.way}.py"
    program = finding.program
    inputs = ", ".join(f"np.array({x.tolist()!r}, np.{x.dtype})" for x in program.inputs)
    target = "python" if finding.way in ("python", "interpreter") else "numba"
    path.write_text(f"# msc fuzz: program {finding.index}, {finding.way} disagrees with "
                    f"eager mode:\n# {finding.problem}\n" + program.source() + f'''

if __name__ == "__main__":
    inputs = [{inputs}]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    print("eager:", Net()(*[Tensor(x) for x in inputs]))
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="{target}")
    print("graph:", Net()(*[Tensor(x) for x in inputs]))
''')
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m msc.fuzz", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--targets", default="numba,python",
                        help="in-process targets, comma-separated (default: numba,python)")
    parser.add_argument("--artifact-every", type=int, default=50, metavar="K",
                        help="also run every K-th program from an artifact (0: never)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--without", default="", metavar="FEATURES",
                        help=f"constructs not to generate, of: {', '.join(sorted(FEATURES))}")
    parser.add_argument("--out", type=Path, default=Path("fuzz-findings"),
                        help="where shrunk programs are written (default: fuzz-findings)")
    parser.add_argument("--shrink-seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    without = {f for f in args.without.split(",") if f}
    unknown = without - FEATURES
    if unknown:
        parser.error(f"unknown features: {', '.join(sorted(unknown))}")
    report = fuzz(args.seed, args.programs, [t for t in args.targets.split(",") if t],
                  args.artifact_every, args.time_limit, FEATURES - without, args.out,
                  args.shrink_seconds)
    print(report.table())
    return 1 if report.findings else 0

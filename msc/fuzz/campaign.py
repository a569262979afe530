"""A fuzzing campaign: generate, run every way, compare, shrink, report.

Program ``k`` of seed ``S`` is ``generate(program_seed(S, k))``, so any program of a
run can be regenerated alone (``--start k --programs 1``). Each disagreement is shrunk
with the cheapest way of running that shows it (interpreter, python, numba, artifact);
a problem seen before (same ways, same kind, same exception) is counted but shrunk at
most ``shrink_per_kind`` times, so a known bug does not eat the time budget.
"""

from __future__ import annotations

import collections
import dataclasses
import shutil
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from msc.fuzz.compare import Problem, disagreement
from msc.fuzz.generate import FEATURES, Program, generate
from msc.fuzz.run import OUTLINED_THREADS, Outcome, Ways, artifact, load
from msc.fuzz.shrink import shrink, size

#: Cheapest first: the way a finding is shrunk with.
WAY_ORDER = ("interpreter", "python", "numba", "numba-outlined", "cuda", "onnx", "artifact",
             "native")


def program_seed(seed: int, index: int) -> int:
    """The generator seed of program ``index`` of a run with ``seed``."""
    return (seed * 1_000_003 + index) & 0xFFFFFFFF


#: Where the standard library and installed packages lie.
_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                          "platlib")})


def _library_module(name: str) -> bool:
    """Whether module ``name`` is msc's, built in or an installed library's: not a file of
    a program or of generated code."""
    path = getattr(sys.modules.get(name), "__file__", None)
    return name == "msc" or name.startswith("msc.") or not path or path.startswith(_LIBRARY_DIRS)


@dataclass
class Options:
    """What a campaign runs: the in-process ``targets``, numba on every ``numba_every``-th
    program, an artifact every ``artifact_every``-th (0: never), the features, and how
    long to shrink one finding."""

    targets: tuple[str, ...] = ("numba", "python")
    numba_every: int = 1
    artifact_every: int = 0
    features: frozenset[str] = FEATURES
    shrink_seconds: float = 60.0
    shrink_per_kind: int = 2
    eager_seconds: float = 20.0
    onnx_every: int = 0  # also export to ONNX and run onnxruntime (0: never)
    native_every: int = 0  # also compile natively and run the library (0: never)


@dataclass
class Finding:
    """One disagreement: where, which ways, the problem, the program before and after
    shrinking, and the problem the shrunk program shows."""

    seed: int
    index: int
    ways: tuple[str, ...]
    problem: Problem
    program: Program
    shrunk: Program | None = None
    shrunk_problem: Problem | None = None
    path: Path | None = None

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.ways, self.problem.kind, self.problem.exception)


@dataclass
class Report:
    programs: int = 0
    runs: collections.Counter[str] = field(default_factory=collections.Counter)
    eager_raised: int = 0
    eager_skipped: collections.Counter[str] = field(default_factory=collections.Counter)
    rejections: collections.Counter[str] = field(default_factory=collections.Counter)
    rejected_programs: int = 0
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    way_seconds: collections.Counter[str] = field(default_factory=collections.Counter)
    shrink_seconds: float = 0.0

    def table(self) -> str:
        rate = self.programs / self.seconds if self.seconds else 0.0
        ways = ", ".join(f"{w} {self.runs[w]}" for w in ("eager",) + WAY_ORDER if self.runs[w])
        lines = [
            "| programs | runs | eager raised | rejected | findings | seconds | programs/s |",
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
            f"| {self.programs} | {ways} | {self.eager_raised} | {self.rejected_programs} | "
            f"{len(self.findings)} | {self.seconds:.1f} | {rate:.2f} |",
            "",
            "seconds per way: " + ", ".join(
                f"{w} {self.way_seconds[w]:.1f} ({self.way_seconds[w] / self.runs[w]:.3f}/run)"
                for w in ("eager",) + WAY_ORDER if self.runs[w]) +
            f"; shrinking {self.shrink_seconds:.1f}",
        ]
        for why, n in self.eager_skipped.items():  # (eager mode gave no reference)
            lines.append(f"programs skipped (eager mode {why}): {n}")
        if self.rejections:
            lines.append("\nrejected with msc's own error (a program can count once per way), "
                         "by message:")
            lines += [f"  {n:5d}  {msg}" for msg, n in self.rejections.most_common(20)]
        kinds = collections.Counter(f.key for f in self.findings)
        if self.findings:
            lines.append("\nfindings:")
        for f in self.findings:
            shown = f.shrunk_problem or f.problem
            where = f" -> {f.path}" if f.path else ""
            small = f", shrunk to {size(f.shrunk)} statements" if f.shrunk else ""
            lines.append(f"  program {f.index} (seed {f.seed}) [{', '.join(f.ways)}] "
                         f"{f.problem.kind}: {shown}{small}{where}")
        if len(kinds) < len(self.findings):
            lines.append(f"  ({len(kinds)} distinct kinds of problem)")
        return "\n".join(lines)


class Runner:
    """Runs programs in a scratch folder, removing each program's modules afterwards."""

    def __init__(self, folder: Path, options: Options):
        self.folder, self.options = folder, options
        self.count = 0
        self.seconds: collections.Counter[str] = collections.Counter()

    def run(self, program: Program, ways: Sequence[str],
            eager_seconds: float | None = None) -> tuple[Outcome, dict[str, Outcome]]:
        self.count += 1
        folder = self.folder / f"p{self.count}"
        folder.mkdir()
        if "onnx" in ways:  # before the snapshot: onnx's extension cannot load twice
            import msc.onnx.graph  # noqa: F401
            import onnxruntime  # noqa: F401
        before = set(sys.modules)
        try:
            try:
                module = load(program.source, folder, f"msc_fuzz_{self.count}")
            except Exception as e:  # noqa: BLE001 - a candidate that does not import
                return Outcome("invalid", error=f"{type(e).__name__}: {e}"), {}
            run = Ways(module, program.inputs, eager_seconds or self.options.eager_seconds)
            eager = self._timed("eager", run.eager)
            if eager.kind == "timeout":
                return eager, {}
            in_process = [w for w in ways if w not in ("artifact", "native")]
            start = time.perf_counter()
            out = run.graph(in_process) if in_process else {}
            share = (time.perf_counter() - start) / max(len(in_process), 1)
            for way in in_process:  # NOTE: the build's time is shared among the ways
                self.seconds[way] += share
            if "artifact" in ways:
                target = self.options.targets[0] if self.options.targets else "python"
                out["artifact"] = self._timed("artifact", lambda: artifact(
                    program.source, program.inputs, folder, target))
            if "native" in ways:
                out["native"] = self._timed("native", lambda: artifact(
                    program.source, program.inputs, folder, "native"))
            return eager, out
        finally:
            # the program's and generated modules go; msc's and the libraries' (imported
            # lazily) stay: a re-import makes a 2nd Cell class, or registers Numba's types twice
            for name in set(sys.modules) - before:
                if not _library_module(name):
                    del sys.modules[name]
            shutil.rmtree(folder, ignore_errors=True)

    def _timed(self, way: str, go: Callable[[], Outcome]) -> Outcome:
        start = time.perf_counter()
        try:
            return go()
        finally:
            self.seconds[way] += time.perf_counter() - start


def ways_for(index: int, options: Options, program: Program | None = None) -> list[str]:
    ways = ["interpreter"]
    for t in options.targets:
        if t != "numba" or index % max(options.numba_every, 1) == 0:
            # every other program's numba code is outlined into library kernels
            ways.append("numba-outlined" if t == "numba" and index % 2 else t)
    if options.artifact_every and index % options.artifact_every == 0:
        ways.append("artifact")
    if options.native_every and index % options.native_every == 0:
        ways.append("native")
    if options.onnx_every and index % options.onnx_every == 0 and not (
            program is not None and "float16" in program.source):
        # (onnxruntime computes float16 ops in float32 and drops the rounding to float16
        # when a cast to a wider type follows: its results are not the model's there)
        ways.append("onnx")
    return ways


def fuzz(seed: int = 0, programs: int = 100, options: Options | None = None, *,
         start: int = 0, time_limit: float | None = None, out: Path | None = None,
         log: Callable[[str], Any] = print) -> Report:
    """Generate and check ``programs`` programs (indices ``start``...), stopping after
    ``time_limit`` seconds; findings are shrunk and, with ``out``, written there."""
    options = options or Options()
    report = Report()
    began = time.monotonic()
    shrunk_kinds: collections.Counter[tuple[Any, ...]] = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="msc-fuzz-") as scratch:
        runner = Runner(Path(scratch), options)
        for index in range(start, start + programs):
            if time_limit is not None and time.monotonic() - began > time_limit:
                break
            program = generate(program_seed(seed, index), options.features)
            eager, others = runner.run(program, ways_for(index, options, program))
            report.programs += 1
            report.runs["eager"] += 1
            report.eager_raised += eager.kind == "raised"
            if eager.kind in ("timeout", "ill-conditioned"):  # no reference to compare with
                report.eager_skipped[eager.error] += 1
            problems: dict[str, Problem] = {}
            rejected = False
            for way, outcome in others.items():
                report.runs[way] += 1
                if outcome.kind == "rejected":
                    rejected = True
                    report.rejections[f"[{way}] {outcome.error}"[:200]] += 1
                found = disagreement(eager, outcome, program.approx_half, program.approx_grad,
                                     program.approx_wide)
                if found is not None:
                    problems[way] = found
            report.rejected_programs += rejected
            if problems:
                finding = _finding(seed, index, program, problems)
                if shrunk_kinds[finding.key] < options.shrink_per_kind:
                    shrunk_kinds[finding.key] += 1
                    t0 = time.monotonic()
                    _shrink(finding, runner, eager, options)
                    report.shrink_seconds += time.monotonic() - t0
                if out is not None:
                    finding.path = write_finding(finding, out)
                report.findings.append(finding)
                log(f"program {index}: [{', '.join(finding.ways)}] {finding.problem.kind}: "
                    f"{finding.problem}" + (f" (shrunk from {size(program)} to "
                                             f"{size(finding.shrunk)} statements)"
                                             if finding.shrunk else ""))
        report.way_seconds = runner.seconds
    report.seconds = time.monotonic() - began
    return report


def _finding(seed: int, index: int, program: Program, problems: dict[str, Problem]) -> Finding:
    """One finding per program: the cheapest way's problem, with every way showing the
    same kind of problem listed."""
    first = min(problems, key=WAY_ORDER.index)
    problem = problems[first]
    ways = tuple(w for w in WAY_ORDER if w in problems and
                 problems[w].signature == problem.signature)
    return Finding(seed, index, ways, problem, program)


def _shrink(finding: Finding, runner: Runner, eager: Outcome, options: Options) -> None:
    way, want = finding.ways[0], finding.problem.signature
    last: list[Problem] = []

    def still(candidate: Program) -> bool:
        e, others = runner.run(candidate, [way], eager_seconds=5.0)
        if e.kind != eager.kind or (e.kind == "raised" and e.exception != eager.exception):
            return False
        found = disagreement(e, others.get(way, Outcome("invalid")), candidate.approx_half,
                             candidate.approx_grad, candidate.approx_wide)
        if found is None or found.signature != want:
            return False
        last[:] = [found]
        return True
    finding.shrunk = shrink(finding.program, still, options.shrink_seconds)
    finding.shrunk_problem = last[0] if last else finding.problem


_MAIN = '''

if __name__ == "__main__":
    import sys
    from msc.compiler import arg_spec, build
    from msc.ir.interpret import interpret

    inputs = [{inputs}]
    way = sys.argv[1] if len(sys.argv) > 1 else {way!r}

    def show(tag, net, out):
        print(tag, out, {{n: p.asnumpy() for n, p in net.parameters_and_names()}})

    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    try:
        show("eager:", net, net(*[Tensor(x.copy()) for x in inputs]))
    except Exception as e:
        print("eager raised", type(e).__name__, e)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python" if way == "interpreter" else way,
                   jit_tier="numba" if way == "numba" else None)  # (not the numpy tier's)
    net = Net()
    if way == "interpreter":
        built = build(net, [arg_spec(x) for x in inputs])
        weights = [p.asnumpy().copy() for p in built.weights]
        print("interpreter:", interpret(built.module, [x.copy() for x in inputs], weights),
              weights)
    else:
        show(way + ":", net, net(*[Tensor(x.copy()) for x in inputs]))
'''


def _commented(text: Any) -> str:
    """``text`` as comment lines (a problem's arrays may span several lines)."""
    return "\n".join(f"# {line}" for line in str(text).splitlines())


def write_finding(finding: Finding, out: Path) -> Path:
    """The shrunk program as a runnable file that prints eager's and msc's results."""
    out.mkdir(parents=True, exist_ok=True)
    program = finding.shrunk or finding.program
    problem = finding.shrunk_problem or finding.problem
    way = finding.ways[0] if finding.ways[0] not in ("artifact", "native") else "numba"
    if way == "numba-outlined":  # the numba target with every entry outlined and its loop
        way = "numba"            # nests spread over threads, as it ran
        program = dataclasses.replace(program, source=(
            "import os\nimport msc.codegen.outline\nimport msc.codegen.threads\n"
            "msc.codegen.outline.OUTLINE_LINES = msc.codegen.threads.MIN_WORK = 0\n"
            f"os.environ['MSC_NUM_THREADS'] = '{OUTLINED_THREADS}'\n" + program.source))
    path = out / f"finding_s{finding.seed}_p{finding.index}_{finding.ways[0]}.py"
    inputs = ", ".join(f"np.array({x.tolist()!r}, np.{x.dtype.name})" for x in program.inputs)
    head = (f"# msc fuzz: seed {finding.seed}, program {finding.index}: "
            f"{', '.join(finding.ways)} disagree with eager mode ({problem.kind})\n"
            f"{_commented(problem)}\n{_commented(f'original problem: {finding.problem}')}\n"
            f"# rerun: python -m msc.fuzz --seed {finding.seed} --start {finding.index} "
            "--programs 1\n")
    path.write_text(head + program.source + _MAIN.format(inputs=inputs, way=way))
    return path

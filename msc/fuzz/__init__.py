"""The differential fuzzer: random programs, run every way msc can, compared with eager.

``python -m msc.fuzz --seed 0 --programs 500`` generates MindSpore-style programs from the
op table's public names and the Python constructs graphs accept (``generate.py``,
``exprs.py``), runs each in eager mode, through the reference interpreter, in GRAPH_MODE
on every target and, for a sample, from an artifact in a fresh process (``run.py``),
compares them (``compare.py``), and reports every disagreement with the smallest program
that still shows it (``shrink.py``), written to ``--out`` as a runnable file
(``campaign.py``). The same seed and options give the same programs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from msc.codegen.targets import TARGETS
from msc.fuzz.campaign import Options, Report, fuzz, program_seed
from msc.fuzz.generate import FEATURES, Program, generate

__all__ = ["FEATURES", "Options", "Program", "Report", "fuzz", "generate",
           "main", "program_seed"]


def features_without(text: str) -> frozenset[str]:
    """``FEATURES`` less a comma-separated list."""
    names = {n.strip() for n in text.split(",") if n.strip()}
    unknown = names - FEATURES
    if unknown:
        raise ValueError(f"unknown features: {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(FEATURES))})")
    return FEATURES - names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m msc.fuzz",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--start", type=int, default=0, metavar="K",
                        help="first program index (rerun program K: --start K --programs 1)")
    parser.add_argument("--targets", default="numba,python",
                        help="in-process targets, comma-separated (default: numba,python; "
                             "cuda needs a GPU or NUMBA_ENABLE_CUDASIM=1, Numba's simulator)")
    parser.add_argument("--numba-every", type=int, default=1, metavar="K",
                        help="run the numba target on every K-th program only (default 1)")
    parser.add_argument("--artifact-every", type=int, default=50, metavar="K",
                        help="also run every K-th program from an artifact (0: never)")
    parser.add_argument("--onnx-every", type=int, default=0, metavar="K",
                        help="also export every K-th program to ONNX and run it with "
                             "onnxruntime (0: never, the default; needs msc[onnx])")
    parser.add_argument("--native-every", type=int, default=0, metavar="K",
                        help="also compile every K-th program natively (msc compile --native) "
                             "and run the library (0: never, the default; needs a C compiler)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--without", default="", metavar="FEATURES",
                        help="constructs not to generate, comma-separated, of: "
                        f"{', '.join(sorted(FEATURES))}")
    parser.add_argument("--out", type=Path, default=Path("fuzz-findings"),
                        help="where shrunk programs are written (default: fuzz-findings)")
    parser.add_argument("--shrink-seconds", type=float, default=60.0,
                        help="time to shrink one finding (default 60)")
    parser.add_argument("--shrink-per-kind", type=int, default=2, metavar="N",
                        help="shrink at most N findings of one kind (default 2)")
    args = parser.parse_args(argv)
    try:
        features = features_without(args.without)
    except ValueError as e:
        parser.error(str(e))
    targets = tuple(t for t in args.targets.split(",") if t)
    bad = [t for t in targets if t not in TARGETS]
    if bad:
        parser.error(f"unknown targets: {', '.join(bad)} (known: {', '.join(TARGETS)})")
    if "cuda" in targets:
        from numba import cuda

        if not cuda.is_available():  # (else every program's cuda run would be a "finding")
            parser.error("the cuda target needs a GPU, or Numba's CUDA simulator: set "
                         "NUMBA_ENABLE_CUDASIM=1")
    options = Options(targets, args.numba_every, args.artifact_every, features,
                      args.shrink_seconds, args.shrink_per_kind, onnx_every=args.onnx_every,
                      native_every=args.native_every)
    report = fuzz(args.seed, args.programs, options, start=args.start,
                  time_limit=args.time_limit, out=args.out)
    print(report.table())
    return 1 if report.findings else 0

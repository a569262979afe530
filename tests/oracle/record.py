"""Records the expectations from MindSpore 2.10: ``python -m tests.oracle.record
[family ...]`` runs every configuration of those families (all by default) in MindSpore's
interpreter (``.peers/ms/bin/python``, in a temporary working directory since MindSpore
writes ``rank_0/`` folders there) and rewrites ``expected/<family>.npz`` and the family's
part of ``expected/index.json``.

The worker side (``--worker OUT``) runs inside MindSpore's interpreter and writes what it
saw; it imports nothing of msc."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected"
PEER = ROOT / ".peers" / "ms" / "bin" / "python"
BATCH = 40


def batches(cases: list[Any], size: int = BATCH) -> list[list[Any]]:
    return [cases[i:i + size] for i in range(0, len(cases), size)]


def save(family: str, results: dict[str, dict[str, Any]], folder: Path) -> dict[str, Any]:
    """Writes the arrays to ``folder/<family>.npz``; returns the index entries."""
    arrays, index = {}, {}
    for cid, res in results.items():
        meta: dict[str, Any] = {}
        if "error" in res:
            meta["error"] = res["error"]
        else:
            meta["struct"] = res["struct"]
            meta["dtypes"] = [str(v.dtype) for v in res["out"]]
            for k, v in enumerate(res["out"]):
                arrays[f"{cid}|out{k}"] = v
            if "grad_error" in res:
                meta["grad_error"] = res["grad_error"]
            if "grad" in res:
                meta["grad"] = [g is not None for g in res["grad"]]
                for j, g in enumerate(res["grad"]):
                    if g is not None:
                        arrays[f"{cid}|grad{j}"] = g
        index[cid] = meta
    np.savez_compressed(folder / f"{family}.npz", **arrays)
    return index


def worker(out: str, families: list[str]) -> None:
    from tests.oracle.cases import families as all_families
    from tests.oracle.harness import Runner

    runner = Runner("mindspore", os.getcwd())
    chosen = all_families()
    index = {}
    for family in families:
        results: dict[str, dict[str, Any]] = {}
        for batch in batches(chosen[family]):
            results.update(runner.run(batch))
        index[family] = save(family, results, Path(out))
        print(f"{family}: {len(results)} configurations", flush=True)
    (Path(out) / "index.json").write_text(json.dumps(index))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("families", nargs="*")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.families)
        return
    from tests.oracle.cases import families as all_families

    wanted = args.families or list(all_families())
    if not PEER.exists():
        sys.exit(f"MindSpore 2.10 is not installed at {PEER} (see the peers notes)")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GLOG_v": "3"}
        subprocess.run([str(PEER), "-m", "tests.oracle.record", "--worker", tmp, *wanted],
                       cwd=tmp, env=env, check=True)
        EXPECTED.mkdir(exist_ok=True)
        index_path = EXPECTED / "index.json"
        index = json.loads(index_path.read_text()) if index_path.exists() else {}
        index.update(json.loads((Path(tmp) / "index.json").read_text()))
        for family in wanted:
            os.replace(Path(tmp) / f"{family}.npz", EXPECTED / f"{family}.npz")
        index_path.write_text(json.dumps(dict(sorted(index.items())), indent=1,
                                         sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

"""Native artifacts (``msc compile --native``) against the numba artifact and onnxruntime.

For each whole model (ResNet-18 at batch 4, 224x224, and the BERT-shaped encoder), with the
benchmark's weights: the numba artifact, the native library (through its ctypes wrapper:
the library's own time plus a ctypes call), and onnxruntime on msc's ONNX export of the
same network, each in a fresh process on one pinned CPU with one thread. Per call is the
median of batches; ``create`` is the native model's mapping and check of its weights; the
first call includes everything after loading. Then ``msc compile --native`` itself, with
an empty and a warm cache of compiled libraries, and the library's size.

    python bench/bench_native.py [--workloads resnet18,bert2] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import (
    ONE_CPU_NOTE,
    add_round_args,
    fmt_s,
    machine,
    round_defaults,
    row_problem,
    run_in_worker,
    save_json,
    time_per_call,
)
from models_workloads import WORKLOADS, inputs

CASES = ("numba-artifact", "native", "onnxruntime")
HERE = os.path.dirname(os.path.abspath(__file__))


def prepare(workload: str, folder: str) -> dict[str, Any]:
    """The three artifacts of ``workload`` in ``folder``, with the benchmark's weights;
    returns the times of ``msc compile --native`` (empty, then warm cache) and its size."""
    import msc as ms
    from bench_models import cell_with_weights
    from msc.codegen.artifact import write_artifact
    from msc.codegen.native.build import write_native
    from msc.compiler import arg_spec, build, compile_entry

    net, _, _ = cell_with_weights(workload, "msc", ms.Tensor)
    xs = inputs(workload)
    specs = [arg_spec(ms.Tensor(x)) for x in xs]
    compiled = compile_entry(net, specs, target="numba", store=None,
                             layout=f"artifact:{workload}")
    write_artifact(compiled, os.path.join(folder, "numba"), entry_name=workload,
                   input_specs=specs, precompile=True)
    ms.export(net, *(ms.Tensor(x) for x in xs), file_name=os.path.join(folder, "model"),
              file_format="ONNX")
    cache = os.path.join(folder, "native-cache")
    times = {}
    for run in ("cold", "warm"):
        t0 = time.perf_counter()
        write_native(build(net, specs), os.path.join(folder, f"native-{run}"),
                            entry_name=workload, input_specs=specs,
                            cache=Path(cache))
        times[f"compile_{run}_s"] = time.perf_counter() - t0
    times["library_bytes"] = os.path.getsize(os.path.join(folder, "native-cold",
                                                          "libmsc_model.so"))
    times["weights_bytes"] = os.path.getsize(os.path.join(folder, "native-cold", "weights.bin"))
    return times


def worker(case: str, batches: int, batch_s: float) -> dict[str, Any]:
    import numpy as np

    name, workload = case.rsplit(":", 1)
    folder = os.environ["MSC_BENCH_NATIVE"]
    xs = inputs(workload)
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    if name == "native":
        sys.path.insert(0, os.path.join(folder, "native-cold"))
        import msc_model
        t1 = time.perf_counter()
        model = msc_model.Model()
        out["create_s"] = time.perf_counter() - t1
        call = lambda: model(*xs)  # noqa: E731
    elif name == "numba-artifact":
        import importlib.util
        path = next(os.path.join(folder, "numba", f) for f in os.listdir(
            os.path.join(folder, "numba")) if f.endswith(".py"))
        spec = importlib.util.spec_from_file_location("numba_artifact", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        call = lambda: module.forward(*xs)  # noqa: E731
    else:
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        session = ort.InferenceSession(os.path.join(folder, "model.onnx"), options,
                                       providers=["CPUExecutionProvider"])
        feed = {i.name: x for i, x in zip(session.get_inputs(), xs)}
        call = lambda: session.run(None, feed)  # noqa: E731
    result = call()
    out["first_s"] = time.perf_counter() - t0
    first = result[0] if isinstance(result, (tuple, list)) else result
    np.save(os.path.join(folder, f"{name}.npy"), np.asarray(first))
    out["per_call_s"], out["calls"] = time_per_call(call, batches, batch_s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--workloads", default="resnet18,bert2")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    add_round_args(ap)
    args = round_defaults(ap.parse_args())
    if args.worker:
        import json
        print("RESULT " + json.dumps(worker(args.worker, args.batches, args.batch_seconds)))
        return
    import numpy as np

    start = datetime.now(timezone.utc)
    print(f"# Native artifacts, {ONE_CPU_NOTE}, one thread\n\n{machine(start)}\n")
    results: dict[str, Any] = {}
    for workload in args.workloads.split(","):
        with tempfile.TemporaryDirectory(prefix="msc-native-bench-") as folder:
            built = prepare(workload, folder)
            rows = {case: [run_in_worker(__file__, "msc", f"{case}:{workload}", args,
                                         env={"MSC_BENCH_NATIVE": folder})
                           for _ in range(args.rounds)] for case in CASES}
            ref = np.load(os.path.join(folder, "numba-artifact.npy"))
            errors = {case: float(np.max(np.abs(np.load(os.path.join(folder, f"{case}.npy"))
                                                - ref)) / (np.max(np.abs(ref)) + 1e-30))
                      for case in CASES if os.path.exists(os.path.join(folder, f"{case}.npy"))}
        results[workload] = {"compile": built, "rows": rows, "errors": errors}
        print(f"## {WORKLOADS[workload][4]}\n")
        print("| system | per call | vs numba artifact | first call | create | max rel. "
              "difference from the numba artifact |\n| --- | ---: | ---: | ---: | ---: | ---: |")
        base = statistics.median(r["per_call_s"] for r in rows["numba-artifact"]
                                 if "per_call_s" in r) if not row_problem(
            rows["numba-artifact"]) else None
        for case in CASES:
            problem = row_problem(rows[case])
            if problem:
                print(f"| {case} | {problem} | | | | |")
                continue
            per = statistics.median(r["per_call_s"] for r in rows[case])
            first = statistics.median(r["first_s"] for r in rows[case])
            create = [r["create_s"] for r in rows[case] if "create_s" in r]
            ratio = f"{per / base:.2f}x" if base else "—"
            print(f"| {case} | {fmt_s(per)} | {ratio} | {fmt_s(first)} | "
                  f"{fmt_s(statistics.median(create)) if create else '—'} | "
                  f"{errors.get(case, float('nan')):.1e} |")
        print(f"\n`msc compile --native`: {fmt_s(built['compile_cold_s'])} with an empty "
              f"cache of compiled libraries, {fmt_s(built['compile_warm_s'])} warm; "
              f"libmsc_model.so {built['library_bytes'] / 1e3:.0f} KB, weights.bin "
              f"{built['weights_bytes'] / 1e6:.1f} MB\n")
    save_json(args.json, results)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()

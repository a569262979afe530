"""``bench_models.py``'s report: a table per workload (the whole models' with the numba
tier's timings and ``msc compile``'s on columns of their own), and notes below them.

This file imports only the standard library at top level (the peer interpreters import it
in their workers)."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from bench_compile_cache import init_note
from bench_control import med, ok
from harness import first_call_cell, fmt_s, machine, row_problem
from models_workloads import (
    CASES,
    CLI_CASES,
    SMALL_WORKLOADS,
    TRAIN,
    TRANSFORMERS,
    WORKLOADS,
    input_specs,
)

Results = dict[str, "list[dict[str, Any]] | None"]  # case -> one row per round


def table(results: Results) -> list[str]:
    jax_rows = results.get("jax")
    out = ["| case | first call (compile + run) | per call | ÷ JAX per call | max rel err |",
           "| --- | ---: | ---: | ---: | ---: |"]
    for case, (_, label) in CASES.items():
        if case not in results:
            continue
        rows = results[case]
        if (problem := row_problem(rows)) is not None:
            out.append(f"| {label} | {problem} | | | |")
            continue
        per = med(rows, lambda r: r["per_call_s"])
        ratio = f"{per / med(jax_rows, lambda r: r['per_call_s']):.2f}x" \
            if ok(jax_rows) else "—"
        out.append(f"| {label} | {first_call_cell(rows)} | {fmt_s(per)} | "
                   f"{ratio} | {max(r['max_rel_err'] for r in rows):.1e} |")
    return out


def model_table(workload: str, results: Results) -> list[str]:
    """The whole-model table: the numba tier's timings on their own columns, then the
    `msc compile` one."""
    train = workload in TRAIN
    call, err = ("step", "first-loss rel err") if train else ("call", "max rel err")
    jax_rows = results.get("jax")
    out = [f"| case | first {call} (compile + run) | numba tier ready, after the first {call} "
           f"returned | first numba-tier {call} | per {call} | ÷ JAX per {call} | {err} |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for case, (_, label) in CASES.items():
        if case not in results or case in CLI_CASES:
            continue
        label = case_label(case, workload)
        rows = results[case]
        if (problem := row_problem(rows)) is not None:
            out.append(f"| {label} | {problem} | | | | | |")
            continue
        tiered = all("numba_ready_s" in r for r in rows)  # type: ignore[union-attr]
        per = med(rows, lambda r: r["per_call_s"])
        ratio = f"{per / med(jax_rows, lambda r: r['per_call_s']):.2f}x" \
            if ok(jax_rows) else "—"
        ready = fmt_s(med(rows, lambda r: r["numba_ready_s"])) if tiered else "—"
        first_numba = fmt_s(med(rows, lambda r: r["first_numba_s"])) if tiered else "—"
        out.append(f"| {label} | {fmt_s(med(rows, lambda r: r['first_s']))} | {ready} | "
                   f"{first_numba} | {fmt_s(per)} | {ratio} | "
                   f"{max(r['max_rel_err'] for r in rows):.1e} |")  # type: ignore[union-attr]
    if any(c in results for c in CLI_CASES):
        file, entry = WORKLOADS[workload][:2]
        specs = " ".join(f"--input '{s}'" for s in input_specs(workload))
        out += ["", f"`python -m msc compile tests/e2e/models/{file} {entry} {specs} -o OUT "
                f"--no-cache --quiet`:", "",
                "| kernel library | wall time | kernel sources in the artifact | the artifact's "
                "first forward (loaded in another process) |", "| --- | ---: | ---: | ---: |"]
        for case in CLI_CASES:
            rows = results.get(case)
            label = CASES[case][1].split(", ", 1)[1]
            if case not in results:
                continue
            if (problem := row_problem(rows)) is not None:
                out.append(f"| {label} | {problem} | | |")
                continue
            out.append(f"| {label} | {fmt_s(med(rows, lambda r: r['first_s']))} | "
                       f"{rows[0]['kernel_files']} | "  # type: ignore[index]
                       f"{fmt_s(med(rows, lambda r: r['artifact_first_s']))} |")
    return out


def case_label(case: str, workload: str) -> str:
    """The case's label; the transformers' JAX networks have no convolutions (the ViT's
    cuts its patches by reshapes)."""
    label = CASES[case][1]
    return label.replace(" (`lax.conv_general_dilated`)", "") \
        if workload in TRANSFORMERS or workload == "vit" else label


def notes(workload: str, results: Results) -> list[str]:
    out = []
    for case, what in (("msc-numba-warm", "the numba target's"), ("msc-compile-warm",
                                                                 "`msc compile`'s")):
        libs = [r["library_files"] for r in results.get(case) or [] if "library_files" in r]
        if libs:
            out.append(f"- {what[0].upper()}{what[1:]} warm library is the folder its "
                       f"empty-library process of the same round filled: {libs[0]} files "
                       f"(kernel sources and Numba's cache of them), round 1.")
    if workload in TRAIN:
        second = {c: [r["loss1"] for r in rows if r.get("loss1") is not None]
                  for c, rows in results.items() if ok(rows)}
        second = {c: v for c, v in second.items() if v}
        if second:
            opt = "AdamWeightDecay" if workload == "bert2-train" else "Momentum"
            out.append(f"- Loss of the second step (after one {opt} update; msc's first "
                       "numba-tier step), round 1: " + ", ".join(
                           f"{case_label(c, workload)}: {v[0]:.6f}"
                           for c, v in second.items()) + ".")
    return out


def report(results: dict[str, Results], args: argparse.Namespace, start: datetime) -> str:
    found: dict[str, str] = {}
    for rs in results.values():
        for case, rows in rs.items():
            if ok(rows):
                found.setdefault(rows[0].get("system", CASES[case][0]),  # type: ignore[index]
                                 rows[0]["version"])  # type: ignore[index]
    threads = getattr(args, "threads", 0)
    setting = f"{threads} threads for every system, every CPU" if threads else \
        "One thread everywhere, one pinned CPU per process"
    out = [f"Machine: {machine(start)}. {setting}. Versions: "
           + ", ".join(f"{k} {v}" for k, v in found.items()) + ".",
           f"Fresh process per case and round; medians of {args.rounds} round(s); first "
           f"call after the imports; per call = median of {args.batches} batches of >= "
           f"{args.batch_seconds * 1e3:.0f} ms after warm-up; compile caches off.", ""]
    for workload, rs in results.items():
        body = model_table(workload, rs) if workload not in SMALL_WORKLOADS else table(rs)
        out += [f"### {WORKLOADS[workload][4]}", "", *body, "", *notes(workload, rs)]
        if out[-1]:
            out.append("")
    out += depth_note(results)
    inits = [r["init_s"] for rs in results.values() for case, rows in rs.items()
             if CASES[case][0] == "msc" and ok(rows) for r in rows  # type: ignore[union-attr]
             if "init_s" in r]
    return "\n".join(out + init_note(inits, "first-call"))


def depth_note(results: dict[str, Results]) -> list[str]:
    """``msc compile``'s wall time of the 4-layer encoder over the 2-layer one's, per kernel
    library (the goal: at most 1.3x, cost following distinct kernels, not depth)."""
    out = []
    for case in CLI_CASES:
        two, four = ((results.get(w) or {}).get(case) for w in ("bert2", "bert4"))
        if ok(two) and ok(four):
            ratio = med(four, lambda r: r["first_s"]) / med(two, lambda r: r["first_s"])
            out.append(f"- `msc compile` of the 4-layer encoder over the 2-layer one's, "
                       f"{CASES[case][1].split(', ', 1)[1]}: {ratio:.2f}x (goal: at most "
                       f"1.3x).")
    return out + [""] if out else out

"""The API coverage report: the names it counts resolve in msc, the names it lists as
missing raise msc's "not supported yet" error, and the script prints the live counts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import msc
from msc import coverage
from msc.api_names import NAMESPACES, UnsupportedApiError, mindspore_names


def test_names_file_splits_ops_into_functions_and_classes():
    names = mindspore_names()
    assert not names["ops_functions"] & names["ops_classes"]
    assert {"Add", "MatMul"} <= names["ops_classes"] and "add" in names["ops_functions"]
    assert all(names[ns] for ns in NAMESPACES)


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_counted_names_resolve_and_missing_ones_raise_unsupported(namespace):
    owner = {"ops_functions": msc.ops, "ops_classes": msc.ops, "nn": msc.nn,
             "tensor": msc.Tensor, "top": msc}[namespace]
    cov = coverage.coverage(namespace)
    assert cov.total == len(mindspore_names()[namespace])
    for name in cov.present:
        getattr(owner, name)  # raises if the report counted a name msc lacks
    probe = msc.Tensor(1.0) if namespace == "tensor" else owner
    for name in cov.missing[:50]:
        with pytest.raises(AttributeError) as info:
            getattr(probe, name)
        if name != "runtime":  # msc's own runtime package is not mindspore.runtime
            assert isinstance(info.value, UnsupportedApiError), name


def test_report_counts_follow_the_code(monkeypatch):
    before = coverage.coverage("nn")
    name = before.missing[0]
    monkeypatch.setattr(msc.nn, name, object(), raising=False)
    after = coverage.coverage("nn")
    assert len(after.present) == len(before.present) + 1 and name in after.present


def test_script_prints_counts_and_missing_names():
    script = Path(__file__).resolve().parents[1] / "scripts" / "api_coverage.py"
    out = subprocess.run([sys.executable, str(script), "--missing"], capture_output=True,
                         text=True, check=True).stdout
    ops = coverage.coverage("ops_classes")
    assert f"{len(ops.present)} / {ops.total}" in out
    assert "missing: " + ", ".join(ops.missing) in out

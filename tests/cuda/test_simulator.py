"""The cuda target under Numba's CUDA simulator: ``sim_checks.py`` runs every op family
and every example at tiny shapes in one subprocess (the simulator must be switched on
before numba.cuda is first imported, which this process has done or may do)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NAMES = ("elementwise", "gelu_far_left", "broadcasting", "reduce_families", "softmax", "layer_norm", "matmuls",
         "control_flow_on_the_host", "parameter_assign", "ops_on_the_host",
         "example_mlp_against_numba_target", "example_lazy_inline_gpt",
         "example_compile_cache", "example_select_vs_if", "example_side_effects",
         "example_hypermap_jit_class_vmap", "example_train_mlp")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
           "MSC_COMPILER_CACHE_PATH": str(tmp_path_factory.mktemp("cache"))}
    proc = subprocess.run([sys.executable, str(HERE / "sim_checks.py")], capture_output=True,
                          text=True, env=env, timeout=600)
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            found[record["name"]] = record
    if not found:
        pytest.fail(f"the simulator checks did not run:\n{proc.stderr[-3000:]}")
    return found


@pytest.mark.parametrize("name", NAMES)
def test_cuda_target_under_the_simulator(results, name):
    assert name in results, f"{name} did not report"
    assert results[name]["ok"], results[name]["detail"]


def test_every_check_is_listed(results):
    assert sorted(results) == sorted(NAMES)

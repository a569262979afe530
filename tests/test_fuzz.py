"""The differential fuzzer: a short run finds no disagreement, and the fuzzer itself
works (deterministic programs that eager mode runs, a comparator and a shrinker that
catch and reduce planted failures)."""

from __future__ import annotations

import numpy as np

from msc.fuzz import Options, fuzz
from msc.fuzz.compare import disagreement
from msc.fuzz.generate import FEATURES, generate
from msc.fuzz.run import Leaf, Outcome
from msc.fuzz.shrink import shrink, size


def test_a_short_run_finds_no_disagreement():
    """Every construct, eager == interpreter == python target; a numba sample too."""
    report = fuzz(1000, 60, Options(("python",), shrink_seconds=20))
    assert report.programs == 60, report.table()
    assert not report.findings, report.table()
    numba = fuzz(5000, 3, Options(("numba",), shrink_seconds=20))  # (12 s each, cold)
    assert numba.programs == 3, numba.table()
    assert not numba.findings, numba.table()


def test_the_cuda_target_without_a_gpu_or_the_simulator_is_a_usage_error(tmp_path):
    """Asked for the cuda target where Numba finds no GPU and its simulator is off, the
    fuzzer stops at once with the way to run it, instead of reporting every program."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["CUDA_VISIBLE_DEVICES"] = ""  # (hides a GPU where there is one)
    run = subprocess.run([sys.executable, "-m", "msc.fuzz", "--targets", "numba,cuda",
                          "--programs", "1", "--out", str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "NUMBA_ENABLE_CUDASIM=1" in run.stderr and not list(tmp_path.iterdir())


def test_a_program_s_modules_go_after_it_and_the_libraries_stay(tmp_path):
    """After each program the runner forgets the modules it imported, but not msc's nor
    an installed library's imported lazily meanwhile: Numba registers its types when a
    module of its own is first imported, and a second import raised 'duplicate
    registration' in every later program's numba run."""
    import importlib.util
    import sys

    from msc.fuzz.campaign import _library_module

    (tmp_path / "fuzz_program_module.py").write_text("X = 1\n")
    spec = importlib.util.spec_from_file_location("fuzz_program_module",
                                                  tmp_path / "fuzz_program_module.py")
    sys.modules["fuzz_program_module"] = importlib.util.module_from_spec(spec)
    try:
        assert not _library_module("fuzz_program_module")
    finally:
        del sys.modules["fuzz_program_module"]
    import numba.np.polynomial.polynomial_core  # noqa: F401
    import numpy.linalg  # noqa: F401
    for name in ("numba.np.polynomial.polynomial_core", "numpy.linalg", "json", "sys",
                 "msc.fuzz.campaign"):
        assert _library_module(name), name


def test_programs_are_deterministic_and_valid_python():
    for seed in range(20):
        source = generate(seed).source
        assert source == generate(seed).source
        compile(source, f"<program {seed}>", "exec")
    assert generate(1).source != generate(2).source
    # (without every feature that makes a Parameter: the plain ones, a ParameterTuple's,
    # vmap's and a chosen one's, and a product's own weight)
    plain = generate(3, FEATURES - {"tensor-if", "for", "while", "const-while", "parameter",
                                     "param-tuple", "vmap-param", "chosen-param",
                                     "matmul"}).source
    assert "while " not in plain and "Parameter(" not in plain


def _ok(*arrays, params=()):
    return Outcome("ok", tuple(Leaf(np.asarray(a)) for a in arrays),
                   {f"p{i}": np.asarray(p) for i, p in enumerate(params)})


def test_the_comparator_catches_planted_differences():
    eager = _ok(np.float32([1, 2]), np.int64(3), params=[np.float32([0.5])])
    assert disagreement(eager, _ok(np.float32([1, 2]), np.int64(3),
                                   params=[np.float32([0.5])])) is None
    assert disagreement(eager, _ok(np.float32([1, 2.5]), np.int64(3),
                                   params=[np.float32([0.5])])).kind == "values"
    assert disagreement(eager, _ok(np.float64([1, 2]), np.int64(3),
                                   params=[np.float32([0.5])])).kind == "dtype"
    assert disagreement(eager, _ok(np.float32([1, 2]), np.int64(3),
                                   params=[np.float32([0.7])])).kind == "parameters"
    raised = Outcome("raised", error="ValueError: too large", phase="run")
    assert disagreement(raised, Outcome("raised", error="ValueError: other words",
                                        phase="run")) is None
    assert disagreement(raised, Outcome("raised", error="TypeError: too large",
                                        phase="run")).kind == "kind"
    assert disagreement(raised, eager).kind == "returned"
    assert disagreement(eager, raised).kind == "raised"
    assert disagreement(eager, Outcome("rejected", error="RuntimeError: no")) is None
    assert disagreement(eager, Outcome("internal", error="Internal: bug")).kind == "internal"
    # float64 to 1e-12, unless float32 values were widened into it: then to float32's 1e-5
    wide, near = _ok(np.float64([0.9982604]), np.int64(3)), _ok(np.float64([0.9982604035]),
                                                                np.int64(3))
    assert disagreement(wide, near).kind == "values"
    assert disagreement(wide, near, approx_wide=True) is None
    assert disagreement(wide, _ok(np.float64([0.9983]), np.int64(3)), approx_wide=True)


def test_the_shrinker_reduces_a_planted_failure():
    program = next(p for p in (generate(s) for s in range(100))
                   if size(p) > 12 and "ops.tanh(" in p.source)
    small = shrink(program, lambda p: "ops.tanh(" in p.source, seconds=30)
    assert "ops.tanh(" in small.source
    # what is left: the statement holding tanh, and the class and functions around it
    assert size(small) <= 8 and size(small) * 2 < size(program)


def test_the_artifact_runner_catches_a_second_call_that_differs(tmp_path):
    """A call on the same inputs and unchanged weights must give the first call's bits
    (what a call keeps for the next, such as a Winograd layer's transformed filters, gone
    stale would not): the runner reports it, for a planted module whose calls count."""
    import json
    import subprocess
    import sys

    from msc.fuzz.run import _ARTIFACT_RUNNER

    np.savez(tmp_path / "inputs.npz", x0=np.float32([1, 2]))
    reports = {}
    for kind, body in (("stable", "x * 2"), ("counting", "x * next(_COUNT)")):
        module = tmp_path / f"{kind}.py"
        module.write_text("import itertools\nWEIGHTS = ('w',)\n_COUNT = itertools.count(1)\n"
                          "def load_weights():\n    return [_W]\n"
                          "import numpy as np\n_W = np.float32([0.5])\n"
                          f"def forward(x):\n    return {body}\n")
        done = subprocess.run([sys.executable, "-c", _ARTIFACT_RUNNER, str(module),
                               str(tmp_path / "inputs.npz"), str(tmp_path / f"{kind}.npz")],
                              capture_output=True, text=True, check=True)
        reports[kind] = json.loads(done.stdout.strip().splitlines()[-1])
    assert "ok" in reports["stable"] and reports["counting"] == {"unstable": True}


def test_a_float32_leaf_read_as_float64_compares_to_float32s_tolerance():
    """(Seed 9301's program 182 once:) a helper read its float32 argument (a float32 exp,
    one ulp apart between numpy and msc's vectorized exp) as a float64 leaf; the program's
    float64 results carry that ulp, so the comparator takes float32's tolerance, as for a
    cast."""
    import random

    from msc.fuzz.generate import Gen
    from msc.fuzz.types import TT, Var

    read = 0
    for seed in range(40):
        gen = Gen(random.Random(seed), FEATURES)
        text = gen.leaf(TT("float64", (2,)), [Var("arg", TT("float32", (2,)))])
        if "arg" in text:  # (else a constant)
            read += 1
            assert "ms.float64)" in text and gen.approx_wide, text
        else:
            assert not gen.approx_wide, text
    assert read > 20


_STEEP = '''
import numpy as np
from msc import Tensor, nn, ops


def helper(a):
    return ops.exp(ops.clip_by_value(a * 30.0, -110.0, 85.0)) * 1e-30{tail}


class Net(nn.Cell):
    def construct(self, x):
        a = x + Tensor(np.array([0.21738195029130725]))
        return ({call},)
'''


def test_finite_differences_across_a_jump_are_no_reference(tmp_path):
    """Seed 20000, program 156 (its ``AvgPool3D`` sat in a branch not taken), shrunk by
    hand: ``ops.grad`` of a helper's ``exp(30 a) * 1e-30 % 4`` at a = 2.717, where the
    slope is 7.6e6, so the remainder wraps 3 or 4 times within the finite differences' step
    of 1e-6: eager's reference was -389015 where msc's gradient (MindSpore 2.10's too) is
    7610984.6, and the program's int32 result -3 where msc's was 3. A step half as long
    wraps half as often and gives -389015 again; one 1/sqrt(2) as long does not, and eager
    mode gives no reference (the campaign skips the program). Without ``% 4`` the reference
    stands; NaN (``% 0``, where the shrinker went from there) is none either."""
    from msc.fuzz.run import Ways, load

    x = [np.array([2.5])]
    exact = 30 * np.exp(30 * 2.71738195029130725) * 1e-30
    calls = ("ops.grad(helper, 0)(a)", "ops.jvp(helper, (a,), (ops.ones_like(a),))[1]",
             "ops.jacrev(helper, 0)(a)")
    for n, (tail, call) in enumerate([(t, c) for t in ("", " % 4.0", " % 0.0") for c in calls]):
        ways = Ways(load(_STEEP.format(tail=tail, call=call), tmp_path, f"steep{n}"), x)
        eager, compiled = ways.eager(), ways.graph(["python"])["python"]
        assert compiled.kind == "ok", compiled.error
        if tail == " % 4.0":
            assert np.allclose(compiled.value[0].array.ravel(), exact, rtol=1e-12)
        assert eager.kind == ("ok" if tail == "" else "ill-conditioned"), (call, tail, eager)
        assert disagreement(eager, compiled, approx_grad=True) is None

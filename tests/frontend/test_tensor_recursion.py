"""Recursion whose depth a tensor condition decides compiles into a graph that calls itself
(one ``Recurse`` node, not an unrolled copy per level), with eager mode's results on the
python and numba targets, gradients included; numpy written here is the independent
reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
I32, F32 = np.int32, np.float32


def fact(n):
    if n <= 1:
        return ms.Tensor(1, ms.int32)
    return n * fact(n - 1)


def fib(n):
    if n < 2:
        return n * 0 + n
    return fib(n - 1) + fib(n - 2)


def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


def rsum(x, i):
    """x[i] + x[i + 1] + ...: the stop condition compares a tensor index with the length."""
    if i >= x.shape[0]:
        return x[0] * 0
    return x[i] + rsum(x, i + 1)


def is_even(n):
    if n == 0:
        return ms.Tensor(True)
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return ms.Tensor(False)
    return is_even(n - 1)


def in_loop(x, k):
    """The recursive call inside a tensor while loop's body."""
    if k <= 0:
        return x
    i = k * 0
    while i < 2:
        x = in_loop(x + 1, k - 1)
        i = i + 1
    return x


def doubling(pair):
    """A tuple argument and a tuple result."""
    k, x = pair
    if k <= 0:
        return (k, x)
    return doubling((k - 1, x * 2))


class Halving(nn.Cell):
    """A recursive helper method of a Cell, reading a Parameter at every level."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, 2.0], F32)), name="w")

    def scale(self, x, k):
        if k <= 0:
            return x
        return self.scale(x * self.w, k - 1)

    def construct(self, x, k):
        return self.scale(x, k) + 1


def _i(v):
    return Tensor(np.array(v, I32))


def _np_fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _np_even(n):
    return n % 2 == 0


CASES = [  # (function, arguments, numpy's answer)
    (fact, (_i(6),), np.array(720, I32)),
    (fact, (_i(0),), np.array(1, I32)),
    (fib, (_i(9),), np.array(_np_fib(9), I32)),
    (gcd, (_i(84), _i(36)), np.array(np.gcd(84, 36), I32)),
    (gcd, (_i(17), _i(5)), np.array(1, I32)),
    (rsum, (Tensor(np.arange(1, 6, dtype=F32)), _i(1)), np.arange(1, 6, dtype=F32)[1:].sum()),
    (in_loop, (Tensor(np.array([0.5], F32)), _i(3)), np.array([0.5 + 2 + 4 + 8], F32)),
    (is_even, (_i(7),), np.array(_np_even(7))),
    (is_even, (_i(10),), np.array(_np_even(10))),
]


def _array(v):
    return tuple(_array(x) for x in v) if isinstance(v, tuple) else np.asarray(v.asnumpy())


@pytest.mark.parametrize("target", ["python", "numba"])
@pytest.mark.parametrize("fn,args,want", CASES,
                         ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)])
def test_tensor_recursion_matches_eager_and_numpy(target, fn, args, want):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = _array(fn(*args))
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    got = _array(ms.jit(fn)(*args))
    assert got.dtype == eager.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(eager, want)


@pytest.mark.parametrize("target", ["python", "numba"])
def test_tuple_arguments_and_a_cell_method(target):
    x = np.array([1.0, 3.0], F32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = _array(doubling((_i(3), Tensor(x))))
    eager_cell = _array(Halving()(Tensor(x), _i(3)))
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    k, y = _array(ms.jit(doubling)((_i(3), Tensor(x))))
    assert int(k) == 0
    np.testing.assert_array_equal(y, x * 8)
    np.testing.assert_array_equal(eager[1], x * 8)
    got = _array(Halving()(Tensor(x), _i(3)))
    np.testing.assert_allclose(got, x * np.array([0.5, 2.0], F32) ** 3 + 1)
    np.testing.assert_array_equal(got, eager_cell)


def halve(x, k):
    if k <= 0:
        return x
    return halve(x * 0.5, k - 1)


def from_constant(k):
    """``halve``'s tensor is a constant (computed while the graph is built) at every level,
    a new one each time: the recursive graph takes it as an input."""
    return halve(ops.ones((2,), ms.float32) * 8, k)


def test_a_constant_tensor_argument_still_gives_one_recursive_graph():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    got = ms.jit(from_constant)(_i(3)).asnumpy()
    np.testing.assert_array_equal(got, np.full(2, 1.0, F32))


def test_one_recursive_graph_not_an_unrolled_copy_per_level():
    from msc.frontend.specialize import specialize
    from msc.ir.primitives import Op
    from msc.ir.rewrite import walk

    module = specialize(fib, [Tensor(np.array(30, I32))]).module
    ops_seen = [n.op for g in module.graphs for n in walk(g)]
    assert [g.name for g in module.graphs] == ["fib", "fib_rec"]
    assert ops_seen.count(Op.Recurse) == 2 and ops_seen.count(Op.Call) == 2
    assert len(ops_seen) < 40


def test_constant_recursion_still_unrolls():
    def power(x, n):
        if n == 0:
            return x
        return power(x * x, n - 1)

    from msc.frontend.specialize import specialize
    from msc.ir.nodes import iter_nodes
    from msc.ir.primitives import Op

    module = specialize(power, [Tensor(np.ones(2, F32)), 3]).module
    assert len(module.graphs) == 1
    assert sum(n.op is Op.Mul for n in iter_nodes(module)) == 3


def _line_of(text):
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def number_base(n):
    if n <= 1:
        return 1
    return n * number_base(n - 1)  # number_base: the recursive call


def float_step(n):
    if n <= 1:  # float_step: the if
        return n
    return float_step(n - 1) * 1.5


def squares(x, k):
    if k <= 0:
        return x
    return squares(x * x, k - 1)  # squares: the recursive call


def test_a_python_number_on_the_base_case_is_an_error_at_the_call():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(TypeError, match="'number_base' .* returns a Python number where "
                                        "its recursion ends") as info:
        ms.jit(number_base)(_i(4))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# number_base:"))


def test_return_types_that_differ_between_levels_are_an_error_at_the_if():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(TypeError, match="Int32.* in the if branch but Float32") as info:
        ms.jit(float_step)(_i(4))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# float_step:"))


def mixed(x, k):
    """Not a tail call: each level's backward needs the deeper level's value."""
    if k <= 0:
        return ops.sin(x)
    y = mixed(x * 1.5, k - 1)
    return y * y + x


def _np_mixed(x, k):
    return np.sin(x) if k <= 0 else _np_mixed(x * 1.5, k - 1) ** 2 + x


@pytest.mark.parametrize("target", ["python", "numba"])
def test_gradients_through_tensor_recursion(target):
    x = np.array([0.9, 1.1], F32)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=target)
    if target == "python":  # (one Numba compile below is enough for that target)
        got = ms.jit(ops.grad(lambda x, k: squares(x, k).sum()))(Tensor(x), _i(3))
        np.testing.assert_allclose(got.asnumpy(), 8 * x.astype(np.float64) ** 7, rtol=1e-5)
    value, grad = ms.jit(ops.value_and_grad(lambda x, k: mixed(x, k).sum()))(Tensor(x), _i(2))
    x64, eps = x.astype(np.float64), 1e-6
    numeric = [(_np_mixed(x64 + eps * e, 2).sum() - _np_mixed(x64 - eps * e, 2).sum()) / (2 * eps)
               for e in np.eye(2)]
    np.testing.assert_allclose(float(value.asnumpy()), _np_mixed(x64, 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(grad.asnumpy(), numeric, rtol=1e-4)


def test_gradients_of_a_cells_weights_through_tensor_recursion():
    net = Halving()
    x = np.array([1.0, 3.0], F32)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    grad = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    (dx, _), (dw,) = ms.jit(lambda x, k: grad(x, k))(Tensor(x), _i(3))
    w = np.array([0.5, 2.0], F32)  # out = sum(x * w**3 + 1)
    np.testing.assert_allclose(dx.asnumpy(), w ** 3)
    np.testing.assert_allclose(dw.asnumpy(), 3 * w ** 2 * x)


def test_second_derivatives_through_tensor_recursion_are_an_error_at_the_call():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    first = ops.grad(lambda x, k: squares(x, k).sum())
    with pytest.raises(RuntimeError, match="no second derivatives through recursion") as info:
        ms.jit(ops.grad(lambda x, k: first(x, k).sum()))(Tensor(np.ones(2, F32)), _i(2))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# squares:"))


def test_vmap_of_tensor_recursion_is_an_error_at_the_call():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(RuntimeError, match="vmap cannot batch 'Recurse'") as info:
        ms.jit(ms.vmap(squares, in_axes=(0, None)))(Tensor(np.ones((3, 2), F32)), _i(2))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# squares:"))


def shifted(x, k):
    def down(y, j):
        if j <= 0:
            return y
        return down(y - x, j - 1)  # down: the recursive call
    return down(x * 10, k)


def test_recursion_reading_an_outer_functions_tensor_is_an_error_at_the_call():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(RuntimeError, match="'down' recurses under a tensor condition and "
                                           "reads the tensor 'x'.*pass 'x'") as info:
        ms.jit(shifted)(Tensor(np.ones(2, F32)), _i(2))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# down:"))


def noisy(x, k):
    if k <= 0:
        return x
    print(x)
    return noisy(x + 1, k - 1)  # noisy: the recursive call


def test_a_print_inside_tensor_recursion_is_an_error_at_the_call():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    with pytest.raises(RuntimeError, match="'noisy' recurses under a tensor condition and "
                                           "writes a Parameter, prints or raises") as info:
        ms.jit(noisy)(Tensor(np.ones(2, F32)), _i(2))
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# noisy:"))


def test_native_target_refuses_at_the_call():
    from msc.codegen.native.build import lower_native
    from msc.frontend.specialize import specialize
    from msc.optimizer.pipeline import run_pipeline

    module, _ = run_pipeline(specialize(squares, [Tensor(np.ones(2, F32)), _i(2)]).module)
    with pytest.raises(RuntimeError, match="native target cannot compile recursion") as info:
        lower_native(module)
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line_of("# squares:"))


_SCRIPT = """
import json
import numpy as np
import {pkg} as ms


def fact(n):
    if n <= 1:
        return ms.Tensor(1, ms.int32)
    return n * fact(n - 1)


def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


def is_even(n):
    if n == 0:
        return ms.Tensor(True)
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return ms.Tensor(False)
    return is_even(n - 1)


def squares(x, k):
    if k <= 0:
        return x
    return squares(x * x, k - 1)


def loss(x, k):
    return squares(x, k).sum()


ms.set_context(mode=ms.GRAPH_MODE{extra})
i = lambda v: ms.Tensor(np.array(v, np.int32))
x = ms.Tensor(np.array([0.9, 1.1], np.float32))
out = [ms.jit(fact)(i(6)), ms.jit(gcd)(i(84), i(36)), ms.jit(is_even)(i(7)),
       ms.jit(ms.ops.grad(loss))(x, i(3))]
print(json.dumps([o.asnumpy().tolist() for o in out]))
"""

#: fact(6), gcd(84, 36), is_even(7), and the gradient of sum(x ** 8) at [0.9, 1.1]
EXPECTED = [720, 12, False, (8 * np.array([0.9, 1.1], np.float32) ** 7).tolist()]


def _run(python, tmp_path, pkg, extra="", env=None):
    """The functions above, written once more for a fresh process of ``python``."""
    script = tmp_path / "recursion_case.py"
    script.write_text(_SCRIPT.format(pkg=pkg, extra=extra))
    done = subprocess.run([str(python), str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_cuda_simulator_runs_recursive_drivers(tmp_path):
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "MSC_JIT_TIER": "numba",
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    _check(_run(sys.executable, tmp_path, "msc", ', jit_target="cuda"', env))


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore 2.10 is not installed in "
                    ".peers/ms; the numpy cases above hold the same values")
def test_same_results_as_mindspore(tmp_path):
    _check(_run(MINDSPORE, tmp_path, "mindspore"))


def _check(got):
    assert got[:3] == EXPECTED[:3]
    np.testing.assert_allclose(got[3], EXPECTED[3], rtol=1e-5)


ARTIFACT_MODEL = '''
import msc as ms
from msc import nn, ops


def halve(x, k):
    if k <= 0:
        return x
    return halve(x * 0.5, k - 1)


class Net(nn.Cell):
    def construct(self, k):
        return halve(ops.ones((2,), ms.float32) * 8, k)
'''

ARTIFACT_RUN = '''
import sys
sys.modules["msc"] = None  # (the artifact runs without msc)
sys.path.insert(0, sys.argv[1])
import numpy as np
import Net_construct as m
m.load_weights()
print(m.forward(np.array(int(sys.argv[2]), np.int32)).tolist())
'''


def test_an_artifact_passes_its_read_only_constants_into_the_recursion(tmp_path):
    """An artifact's constants are read-only arrays: a recursive kernel called with one,
    calling itself with arrays it made, was two types of one argument to Numba, and the
    compiled code crashed. A recursive graph's tensors are passed as fresh arrays."""
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root}
    (tmp_path / "m.py").write_text(ARTIFACT_MODEL)
    subprocess.run([sys.executable, "-m", "msc", "compile", "m.py", "Net", "-o", "art",
                    "--quiet", "--no-cache", "--input", "i32[]"], cwd=tmp_path, env=env,
                   check=True)
    for k, want in ((0, 8.0), (3, 1.0)):
        done = subprocess.run([sys.executable, "-c", ARTIFACT_RUN, str(tmp_path / "art"),
                               str(k)], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout) == [want, want]

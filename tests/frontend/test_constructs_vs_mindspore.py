"""The Python constructs of tests/frontend/test_with_statement.py, test_recursion.py and
test_lists_and_conditions.py run by MindSpore 2.10 itself in graph mode, where it is
installed: the same source, the same inputs, the same results and exception types."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"

# Run unchanged by both: ``ms`` is msc or mindspore.
CASES = '''
import numpy as np
from {pkg} import Parameter, Tensor, jit_class, nn, ops
import {pkg} as ms


@jit_class
class Twice:
    def __init__(self):
        self.num = Tensor(np.array([2.0], np.float32))

    def __enter__(self):
        return self.num * 2

    def __exit__(self, exc_type, exc_value, traceback):
        return self.num * 4


class Plain:
    def __enter__(self):
        return 1

    def __exit__(self, *exc):
        return False


class WithNet(nn.Cell):
    def construct(self, x):
        res = x
        with Twice() as a, Twice() as b:
            res = res + a * b
            with Twice() as c:
                if x.sum() > 0:
                    return res + c
        return res - 1


class WithPlain(nn.Cell):
    def construct(self, x):
        with Plain():
            x = x + 1
        return x


def doubled(x, n):
    if n == 0:
        return x
    return doubled(x * 2, n - 1)


class RecNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(2, 2, weight_init="ones", bias_init="zeros"),
                                   nn.ReLU()])

    def apply(self, x, i):
        if i == len(self.layers):
            return x
        return self.apply(self.layers[i](x), i + 1)

    def construct(self, x):
        return self.apply(x, 0), doubled(x, 5)


class InNet(nn.Cell):
    def construct(self, x, t1, t2, y):
        a = x * 0
        if x in [t1, t2] and y > 0:
            a = a + 1
        if x not in (t1, t2) or y < 0:
            a = a + 10
        return a


class PopNet(nn.Cell):
    def construct(self, x, y):
        lst = [x, y, x + y]
        last = lst.pop()
        first = lst.pop(0)
        return last, first, lst[0] * 1


class AssignNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
        self.b = Parameter(Tensor(np.ones(2, np.float32)), name="b")
        self.params = (self.a, self.b)

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.params[0], x)
            ops.assign(self.params[1], self.params[1] + x)
        else:
            ops.assign(self.params[0], self.params[0] - 1)
        return self.a + 0, self.b + 0


def run_all():
    ms.set_context(mode=ms.GRAPH_MODE)
    f = lambda *v: Tensor(np.array(v, np.float32))
    runs = {{
        "with_pos": lambda: WithNet()(f(1.0, 2.0)),
        "with_neg": lambda: WithNet()(f(-1.0, -2.0)),
        "with_plain": lambda: WithPlain()(f(1.0)),
        "rec": lambda: RecNet()(f(0.5, -1.0)),
        "in_a": lambda: InNet()(f(1.0, 2.0), f(1.0, 2.0), f(3.0, 4.0), f(1.0)),
        "in_b": lambda: InNet()(f(5.0, 5.0), f(1.0, 2.0), f(3.0, 4.0), f(-1.0)),
        "pop": lambda: PopNet()(f(1.0, 2.0), f(3.0, 5.0)),
        "assign_pos": lambda: AssignNet()(f(1.0, 2.0)),
        "assign_neg": lambda: AssignNet()(f(-1.0, -2.0)),
    }}
    out = {{}}
    for name, run in runs.items():
        try:
            value = run()
            value = value if isinstance(value, tuple) else (value,)
            out[name] = [v.asnumpy().tolist() for v in value]
        except Exception as e:  # noqa: BLE001 - compared by type
            out[name] = "raises " + [c.__name__ for c in type(e).__mro__
                                     if c.__name__ in ("TypeError", "RuntimeError",
                                                       "ValueError")][0]
    return out
'''


def _ours(folder: Path) -> dict:
    """The cases run by msc, from a file of their own (graphs are built from source)."""
    path = folder / "msc_cases.py"
    path.write_text(CASES.format(pkg="msc"))
    spec = importlib.util.spec_from_file_location("msc_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    msc.set_context(jit_target="python")  # the numpy target: these are frontend cases
    return module.run_all()


def test_msc_gives_the_documented_results(tmp_path):
    """What MindSpore 2.10 printed for these cases (see the oracle test below)."""
    got = _ours(tmp_path)
    assert got["with_pos"] == [[21.0, 22.0]]  # x + 4 * 4 + 4
    assert got["with_neg"] == [[14.0, 13.0]]  # x + 16 - 1
    assert got["with_plain"] == "raises TypeError"
    np.testing.assert_allclose(got["rec"], [[0.0, 0.0], [16.0, -32.0]])
    assert got["in_a"] == [[1.0, 1.0]] and got["in_b"] == [[10.0, 10.0]]
    assert got["pop"] == [[4.0, 7.0], [1.0, 2.0], [3.0, 5.0]]
    assert got["assign_pos"] == [[1.0, 2.0], [2.0, 3.0]]
    assert got["assign_neg"] == [[-1.0, -1.0], [1.0, 1.0]]


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "test_msc_gives_the_documented_results holds what it printed")
def test_same_results_as_mindspore_itself(tmp_path):
    script = CASES.format(pkg="mindspore") + "\nimport json\nprint(json.dumps(run_all()))\n"
    (tmp_path / "cases.py").write_text(script)
    proc = subprocess.run([str(MINDSPORE), "cases.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = _ours(tmp_path)
    assert ours.keys() == theirs.keys()
    for key in ours:
        if isinstance(theirs[key], str):
            assert ours[key] == theirs[key], key
        else:
            np.testing.assert_allclose(np.array(ours[key], dtype=object).tolist(),
                                       theirs[key], err_msg=key)

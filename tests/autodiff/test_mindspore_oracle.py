"""The structures gradients return, against MindSpore 2.10 itself (installed in
``.peers/ms``; skipped where it is not): one program, run by MindSpore and by msc with
``mindspore`` replaced, describes each result (tuple nesting, ids, names, values). What
MindSpore 2.10 showed, in GRAPH_MODE: GradOperation(get_by_list=True) over one
Parameter gives that gradient's Tensor; a Cell without inputs gives (); return_ids pairs
positions and parameter names; the sensitivity of a tuple output is a tuple; a tuple
argument's tensors get no gradient; jvp/vjp/jacfwd/jacrev nest as their docs say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MINDSPORE = ROOT / ".peers" / "ms" / "bin" / "python"
pytestmark = pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed "
                                "in .peers/ms; the structures are also checked, as MindSpore "
                                "2.10 gives them, in test_calling_forms.py")

PROGRAM = '''
import json, sys
import numpy as np
if sys.argv[1] == "ms":
    import mindspore as ms
    from mindspore import nn, ops, Tensor, Parameter, ParameterTuple
    from mindspore.ops import composite as C
    ms.set_context(mode=ms.GRAPH_MODE)
else:
    import msc as ms
    from msc import nn, ops, Tensor, Parameter, ParameterTuple
    from msc.ops import composite as C
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")

def desc(r):
    if isinstance(r, (tuple, list)):
        return [desc(v) for v in r]
    if isinstance(r, dict):
        return {k: desc(v) for k, v in r.items()}
    if isinstance(r, Tensor):
        return {"shape": list(r.shape), "value": np.round(r.asnumpy(), 4).ravel().tolist()}
    return r

x = Tensor(np.array([1.0, 2.0], np.float32))
y = Tensor(np.array([3.0, 5.0], np.float32))
s = Tensor(np.array([0.5, 2.0], np.float32))

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
    def construct(self, x, y):
        return x * self.w * y

class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
    def construct(self, x, y):
        return x * self.w, x * y

class NoInputs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
    def construct(self):
        return self.w * self.w

def aux(x, y):
    return x * y, x + 1

def tuple_arg(t, y):
    return t[0] * t[1] * y

def f(x, y):
    return x * y * y

net, two, ni = Net(), Two(), NoInputs()
params = ParameterTuple(net.trainable_params())
cases = {
    "sens": lambda: C.GradOperation(get_all=True, get_by_list=True, sens_param=True)(
        net, params)(x, y, s),
    "sens_tuple": lambda: C.GradOperation(get_all=True, sens_param=True)(two)(x, y, (s, s)),
    "multi_out": lambda: ms.value_and_grad(two, (0, 1))(x, y),
    "single_param": lambda: C.GradOperation(get_by_list=True)(net, net.w)(x, y),
    "one_param_tuple": lambda: C.GradOperation(get_by_list=True)(net, params)(x, y),
    "no_inputs": lambda: C.GradOperation()(ni)(),
    "no_inputs_all_list": lambda: C.GradOperation(get_all=True, get_by_list=True)(
        ni, ni.trainable_params())(),
    "return_ids": lambda: ms.grad(net, (0, 1), net.trainable_params(), return_ids=True)(x, y),
    "return_ids_one": lambda: ms.grad(net, None, net.w, return_ids=True)(x, y),
    "has_aux_ids": lambda: ms.grad(aux, (0, 1), has_aux=True, return_ids=True)(x, y),
    "grad_sens": lambda: ms.grad(aux, (0, 1), sens_param=True)(x, y, (s, s)),
    "tuple_arg": lambda: C.GradOperation(get_all=True)(tuple_arg)((x, s), y),
    "jvp": lambda: ops.jvp(aux, (x, y), (s, s), has_aux=True),
    "vjp": lambda: (lambda o: (o[0], o[1](s), o[2]))(ops.vjp(aux, x, y, has_aux=True)),
    "vjp_weights": lambda: (lambda o: (o[0], o[1](s)))(ops.vjp(net, x, y, weights=params)),
    "jacfwd": lambda: ops.jacfwd(two, (0, 1))(x, y),
    "jacrev": lambda: ops.jacrev(aux, 1, has_aux=True)(x, y),
}
out = {}
for name, case in cases.items():
    try:
        out[name] = desc(case())
    except Exception as e:
        out[name] = "error: " + type(e).__name__
json.dump(out, sys.stdout)
'''


def run(python: str, lib: str, cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GLOG_v": "3"}
    proc = subprocess.run([python, str(cwd / "program.py"), lib], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_structures_equal_mindspores(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    want = run(str(MINDSPORE), "ms", tmp_path)
    got = run(sys.executable, "msc", tmp_path)
    assert not any(isinstance(v, str) for v in want.values()), want
    for name in want:
        assert got[name] == want[name], name

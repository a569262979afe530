"""``@jit_class``: the reference tutorial's cases, compiled == eager, through both
targets and an artifact, and its documented errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.compiler import arg_spec, compile_entry
from msc.errors import GraphTypeError, GraphValueError
from msc.frontend.jit import cell_cache
from tests.codegen import check_module, to_numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from jit_class import (
    Act,
    CallInstance,
    CallWithoutCall,
    ClassAttribute,
    Create,
    InnerNet,
    Methods,
    Nested,
)


class ByClassNameNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner_net = Act(2)

    def construct(self, x, y):
        return Act.act(self.inner_net, x, y) + InnerNet.value


class Doubled(Act):  # a subclass of a jit_class is a jit_class
    def act(self, x, y):
        return super().act(x, y) * 2


class SubclassNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner_net = Doubled(3)

    def construct(self, x, y):
        return self.inner_net.act(x, y)


X, Y = np.array(2, np.int32), np.array(3, np.int32)
CASES = {  # name: (net factory, inputs, the tutorial's printed result or ours)
    "class attribute": (ClassAttribute, (), [1, 2, 3]),
    "nested": (Nested, (), [1, 2, 3]),
    "method": (Methods, (X, Y), 12),
    "by class name": (ByClassNameNet, (X, Y), [11, 12, 13]),
    "created in construct": (Create, (), 5),
    "__call__": (CallInstance, (X, Y), 10),
    "subclass": (SubclassNet, (X, Y), 30),
}


@pytest.mark.parametrize("name", CASES)
def test_tutorial_cases_compiled_equal_eager_and_the_printed_result(name, tmp_path):
    factory, inputs, printed = CASES[name]
    net = factory()
    eager = to_numpy(net(*[ms.Tensor(a) for a in inputs]))
    np.testing.assert_array_equal(eager, printed)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    compiled = net(*[ms.Tensor(a) for a in inputs])
    got = compiled.asnumpy() if isinstance(compiled, ms.Tensor) else compiled
    np.testing.assert_array_equal(got, printed)
    c = compile_entry(net, [arg_spec(a) for a in inputs], store=None, target="python")
    if isinstance(eager, np.ndarray):  # a constant result (5) is folded: no kernel to run
        check_module(c.module, list(inputs), tmp_path, eager, [p.asnumpy() for p in c.weights])
    else:
        assert c.module.entry_graph.nodes == () and got == printed


def test_in_pynative_mode_the_decorator_changes_nothing():
    class Plain:
        def scale(self, x):
            return x * 2

    assert ms.jit_class(Plain) is Plain and ms.ms_class is ms.jit_class
    assert Plain().scale(ms.Tensor(np.ones(2, np.float32))).asnumpy().tolist() == [2.0, 2.0]


def test_jit_class_on_a_cell_is_mindspores_type_error():
    with pytest.raises(TypeError) as err:
        @ms.jit_class
        class Net(nn.Cell):
            def construct(self, x):
                return x
    assert str(err.value) == ("Decorator jit_class is used for user-defined classes and cannot "
                              "be used for nn.Cell: Net<>.")
    assert isinstance(err.value, GraphTypeError)


def test_calling_an_instance_without_call_is_mindspores_value_error():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match=r"^.*MsClassObject: 'NoCall' has no __call__ function, "
                                         r"please check the code\.") as err:
        CallWithoutCall()(ms.Tensor(X), ms.Tensor(Y))
    assert isinstance(err.value, GraphValueError)
    assert err.value.loc.line == CallWithoutCall.construct.__code__.co_firstlineno + 2


class TensorArgsNet(nn.Cell):
    def construct(self, x):
        made = Act(x)
        return made(x, x)


def test_creating_an_instance_from_graph_tensors_is_an_error_at_its_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(GraphTypeError, match="'Act' object from graph tensors") as err:
        TensorArgsNet()(ms.Tensor(X))
    assert err.value.loc.line == TensorArgsNet.construct.__code__.co_firstlineno + 1


class Config:  # a plain class: its methods run in Python while compiling
    def __init__(self):
        self.base = 4

    def width(self, k):
        return self.base * k

    def scale(self, x):
        return x * self.base


class PlainConstantNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cfg = Config()

    def construct(self, x):
        return ms.ops.reshape(x, (self.cfg.width(2),)) + self.cfg.width(1)


class PlainTensorNet(PlainConstantNet):
    def construct(self, x):
        return self.cfg.scale(x)


def test_plain_class_methods_run_on_constants_and_ask_for_jit_class_on_tensors():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    net = PlainConstantNet()
    assert net(x).asnumpy().tolist() == [float(v + 4) for v in range(8)]
    module = cell_cache(net).entries[next(iter(cell_cache(net).entries))].module
    assert {n.op.name for n in module.entry_graph.nodes} == {"Reshape", "Add"}  # width() folded
    with pytest.raises(GraphTypeError, match="decorate 'Config' with @jit_class") as err:
        PlainTensorNet()(x)
    assert err.value.loc.line == PlainTensorNet.construct.__code__.co_firstlineno + 1


@ms.jit_class
class Affine:
    def __init__(self):
        self.shift = ms.Tensor(np.array([1.0, -1.0, 0.5], np.float32))  # a constant
        self.gain = ms.Parameter(ms.Tensor(np.full(3, 2.0, np.float32)), name="gain")  # a weight

    def __call__(self, x):
        return x * self.gain + self.shift


class AffineNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.affine = Affine()

    def construct(self, x):
        return self.affine(x)


def test_tensor_attributes_become_constants_and_parameters_weights(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = AffineNet()
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    assert net(x).asnumpy().tolist() == [3.0, 3.0, 6.5]
    net.affine.gain.set_data(ms.Tensor(np.full(3, 3.0, np.float32)))
    assert net(x).asnumpy().tolist() == [4.0, 5.0, 9.5]
    assert cell_cache(net).compiles == 1  # a weight, not a constant: no recompile
    net.affine.shift = ms.Tensor(np.zeros(3, np.float32))
    assert net(x).asnumpy().tolist() == [3.0, 6.0, 9.0]
    assert cell_cache(net).compiles == 2  # a constant attribute changed


def test_jit_class_through_an_artifact(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(
        "import numpy as np\nimport msc as ms\nfrom msc import nn\n\n"
        "@ms.jit_class\nclass Affine:\n    def __init__(self):\n"
        "        self.shift = ms.Tensor(np.array([1.0, -1.0, 0.5], np.float32))\n"
        "        self.gain = ms.Parameter(ms.Tensor(np.full(3, 2.0, np.float32)), name='gain')\n"
        "    def __call__(self, x):\n        return x * self.gain + self.shift\n\n"
        "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
        "        self.affine = Affine()\n    def construct(self, x):\n"
        "        return self.affine(x)\n")
    out = tmp_path / "art"
    proc = subprocess.run([sys.executable, "-m", "msc.cli", "compile", str(model), "Net",
                           "--input", "f32[3]", "--no-cache", "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert [w["name"] for w in manifest["weight_arrays"]] == ["gain", "__const0"]
    probe = ("import sys, json, numpy as np; sys.path.insert(0, sys.argv[1]); "
             "import Net_construct as m; "
             "print(json.dumps(m.forward(np.array([1, 2, 3], np.float32)).tolist()))")
    ran = subprocess.run([sys.executable, "-c", probe, str(out)], capture_output=True,
                         text=True, timeout=300)
    assert json.loads(ran.stdout) == [3.0, 3.0, 6.5], ran.stderr


def test_the_example_prints_the_tutorials_results():
    root = __file__.rsplit("/tests/", 1)[0]
    proc = subprocess.run([sys.executable, "examples/jit_class.py"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:5] == ["[1 2 3]", "[1 2 3]", "12", "5", "10"]
    assert lines[5] == ("TypeError: Decorator jit_class is used for user-defined classes and "
                        "cannot be used for nn.Cell: Net<>.")
    assert lines[6].startswith("ValueError: ") and lines[6].endswith(
        "jit_class.py:112:15: MsClassObject: 'NoCall' has no __call__ function, please check "
        "the code.")


@ms.jit_class
class _Table:
    def __init__(self) -> None:
        self.codes = ms.Tensor(np.array([1, 2, 3], np.int32))


class _ReturnsFoldedConstants(nn.Cell):
    """A jit_class tensor attribute folds to a constant, alone and inside a tuple."""

    def __init__(self) -> None:
        super().__init__()
        self.table = _Table()

    def construct(self, x):
        return self.table.codes, x + 1, (self.table.codes * 2, 5)


@pytest.mark.parametrize("target", ["numba", "python"])
def test_folded_array_constants_in_returned_tuples_travel_as_constants(target: str) -> None:
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    net = _ReturnsFoldedConstants()
    got = compile_entry(net, (arg_spec(x),), target=target).run([x])
    codes, y, (doubled, five) = got
    np.testing.assert_array_equal(codes.asnumpy(), np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(y.asnumpy(), np.arange(3, dtype=np.float32) + 1)
    np.testing.assert_array_equal(doubled.asnumpy(), np.array([2, 4, 6], np.int32))
    assert doubled.asnumpy().dtype == np.int32 and five == 5
    eager = net(x)
    np.testing.assert_array_equal(eager[2][0].asnumpy(), doubled.asnumpy())

"""The import paths MindSpore programs use resolve to msc's objects (a script runs after
replacing ``mindspore`` with ``msc``)."""

from __future__ import annotations

import numpy as np

import msc


def test_common_modules_and_operations_alias_the_same_objects():
    import msc.common.dtype as mstype
    from msc.common.parameter import Parameter, ParameterTuple
    from msc.common.tensor import Tensor
    from msc.ops import operations as P

    assert mstype.float32 is msc.float32 and mstype.int64 is msc.dtype.int64
    assert Tensor is msc.Tensor and Parameter is msc.Parameter
    assert ParameterTuple is msc.ParameterTuple
    assert P.Add is msc.ops.Add and P.Assign is msc.ops.Assign
    assert set(P.__all__) <= set(msc.ops.__all__)
    out = P.Mul()(Tensor(np.array([2.0], np.float32)), Tensor(np.array([3.0], np.float32)))
    assert out.asnumpy().tolist() == [6.0]


def test_dtype_conversions():
    import msc.common.dtype as mstype

    assert mstype.dtype_to_nptype(mstype.float16) is np.float16
    assert mstype.dtype_to_nptype(mstype.bool_) is np.bool_
    assert mstype.pytype_to_dtype(int) is mstype.int64
    assert mstype.pytype_to_dtype(np.int32) is mstype.int32
    assert mstype.pytype_to_dtype(float) is mstype.float64


def test_import_msc_loads_the_layers_ops_and_code_generators_on_first_use():
    """``import msc`` stays cheap (a cache-hit ``msc compile`` is mostly start-up); the
    lazily loaded names are the same objects as their modules' own. ``msc.ops`` itself
    loads (Tensor's methods are built on its functions) but not its namespace."""
    import subprocess
    import sys

    code = ("import sys, msc\n"
            "heavy = ('msc.nn', 'msc.ops.operations', 'msc.optimizer.pipeline', "
            "'msc.codegen.lower', 'jinja2', 'numba', 'llvmlite')\n"
            "print(sorted(m for m in heavy if m in sys.modules), "
            "'__all__' in vars(sys.modules['msc.ops']))\n"
            "from msc import nn, ops\n"
            "from msc.ops.function import grad_func as grad, vmap_func as vmap\n"
            "from msc.train import serialization as checkpoint\n"
            "print(msc.nn is nn, msc.ops is ops, msc.grad is grad.grad, "
            "msc.vmap is vmap.vmap, msc.load_checkpoint is checkpoint.load_checkpoint, "
            "'nn' in dir(msc) and 'set_seed' in dir(msc))\n"
            "star = {}\n"
            "exec('from msc import *', star)\n"
            "print(star['nn'] is nn, star['grad'] is msc.grad, 'numpy' in star)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[] False", "True True True True True True", "True True False"]

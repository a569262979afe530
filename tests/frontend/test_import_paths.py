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

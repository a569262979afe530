"""``from msc import dtype as mstype``: MindSpore's dtype module names."""

from msc.ir.dtypes import (  # noqa: F401
    DType,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

Type = DType
float_ = float32
int_ = int64
half = float16
single = float32
double = float64

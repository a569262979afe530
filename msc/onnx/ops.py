"""The conversion table: every op msc's IR may hold, to its ONNX form (``graph.py`` walks
the IR, ``math_ops.py`` and ``array_ops.py`` convert one node each). An op without an
entry is in ``NOT_EXPORTED`` with the reason; ``tests/onnx`` checks the two cover the
primitive table."""

from msc.onnx.array_ops import ARRAY, NOT_EXPORTED
from msc.onnx.graph import STRUCTURAL
from msc.onnx.math_ops import CONVERTERS as MATH

CONVERTERS = {**STRUCTURAL, **MATH, **ARRAY}

__all__ = ["CONVERTERS", "NOT_EXPORTED"]

"""The primitive table: importing this package registers every op.

Look ops up with ``get(name)``; ``PRIMITIVES`` maps MindSpore's op names to their
``Primitive`` records. One module per op family keeps each file readable.
"""

from msc.ir.primitives import (  # noqa: F401  (registration)
    creation,
    effects,
    elementwise,
    linalg,
    nn,
    reduce,
    shape,
    structural,
)
from msc.ir.primitives.base import PRIMITIVES, Primitive, evaluate, get, infer_type, register

__all__ = ["PRIMITIVES", "Primitive", "evaluate", "get", "infer_type", "register"]

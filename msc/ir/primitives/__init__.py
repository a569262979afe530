"""The primitive table: importing this package registers every op.

Code names an op by its record, ``Op.Add``; ``PRIMITIVES`` maps MindSpore's op names to
the records (``get(name)`` for parsers and tests). One module per op family keeps each
file readable.
"""

from msc.ir.primitives import (  # noqa: F401  (registration)
    activation,
    comm,
    conv,
    creation,
    ctc,
    decomp,
    effects,
    elementwise,
    linalg,
    nn,
    pool,
    random,
    reduce,
    scatter,
    shape,
    sorting,
    special,
    structural,
)
from msc.ir.primitives.base import (
    PRIMITIVES,
    TARGETS,
    Effect,
    Op,
    Primitive,
    evaluate,
    get,
    infer_type,
    register,
)

__all__ = ["PRIMITIVES", "TARGETS", "Effect", "Op", "Primitive", "evaluate", "get",
           "infer_type", "register"]

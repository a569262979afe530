"""Activations as functions and Cells, float32 and float16 (float64 for a few), on inputs
with the points where they have no derivative (0, the clip bounds: ``ties``), ordinary
values, large ones (overflow) and NaN/inf."""

from __future__ import annotations

import itertools

from tests.oracle.spec import Case, In

FAMILY = "activation"

FUNCTIONS = (
    "ops.relu({x0})", "ops.relu6({x0})", "ops.elu({x0})", "ops.elu({x0}, 0.5)",
    "ops.selu({x0})", "ops.leaky_relu({x0}, 0.01)", "ops.leaky_relu({x0}, 0.2)",
    "ops.hardtanh({x0})", "ops.hardtanh({x0}, -2.0, 0.5)", "ops.softplus({x0})",
    "ops.softplus({x0}, 2, 5)", "ops.softsign({x0})", "ops.mish({x0})", "ops.silu({x0})",
    "ops.gelu({x0})", "ops.gelu({x0}, 'tanh')", "ops.celu({x0})", "ops.celu({x0}, 0.5)",
    "ops.hardsigmoid({x0})", "ops.hardswish({x0})", "ops.hardshrink({x0})",
    "ops.hardshrink({x0}, 1.0)", "ops.softshrink({x0})", "ops.softshrink({x0}, 1.0)",
    "ops.logsigmoid({x0})", "ops.sigmoid({x0})", "ops.tanh({x0})", "ops.softmax({x0})",
    "ops.softmax({x0}, 0)", "ops.log_softmax({x0})", "ops.log_softmax({x0}, 0)",
    "ops.softmin({x0})", "ops.tanhshrink({x0})", "ops.glu({x0})", "ops.glu({x0}, 0)",
    "ops.threshold({x0}, 0.5, -1.0)",
)
CELLS = (
    "nn.ReLU()", "nn.ReLU6()", "nn.LeakyReLU()", "nn.LeakyReLU(0.3)", "nn.ELU()",
    "nn.SeLU()", "nn.Mish()", "nn.GELU()", "nn.GELU(False)", "nn.Hardtanh()",
    "nn.Softmax()", "nn.LogSoftmax()", "nn.Sigmoid()", "nn.Tanh()", "nn.SiLU()",
    "nn.HSwish()", "nn.HSigmoid()", "nn.Softsign()", "nn.Softplus()", "nn.SoftShrink()",
    "nn.HShrink()", "nn.LogSigmoid()", "nn.CELU()", "nn.Tanhshrink()", "nn.Softmin()",
)


def cases() -> list[Case]:
    out = []
    for call, kind in itertools.product(FUNCTIONS, ("ties", "normal", "big", "nan")):
        out.append(Case(f"{call.replace('{x0}', 'x')}[{kind}]", FAMILY, call,
                        (In((4, 6), kind=kind),)))
    for call in FUNCTIONS[::3]:
        out.append(Case(f"{call.replace('{x0}', 'x')}[float16]", FAMILY, call,
                        (In((4, 6), "float16", "ties"),), rtol=5e-3, atol=5e-3))
        out.append(Case(f"{call.replace('{x0}', 'x')}[float64]", FAMILY, call,
                        (In((4, 6), "float64", "normal"),)))
    for cell, kind in itertools.product(CELLS, ("ties", "big")):
        out.append(Case(f"{cell}[{kind}]", FAMILY, "{c}({x0})", (In((4, 6), kind=kind),),
                        setup=cell))
    for kind in ("ties", "normal"):
        out.append(Case(f"ops.prelu(x,w)[{kind}]", FAMILY, "ops.prelu({x0}, {x1})",
                        (In((2, 3, 4), kind=kind), In((3,)))))
        out.append(Case(f"nn.PReLU(3,0.3)[{kind}]", FAMILY, "{c}({x0})",
                        (In((2, 3, 4), kind=kind),), setup="nn.PReLU(3, 0.3)"))
    return out

"""The ops without a gradient or batching rule, each with the reason.

``grad`` and ``vmap`` name the reason in their error when a program needs a missing
rule; ``tests/ir/test_table.py`` checks that every op has each rule or is listed here,
and never both.
"""

from __future__ import annotations

_INTEGER = "its result is an integer or bool tensor: no gradient flows through it"
_CONST = "it has no tensor input"
_EFFECT = "a side effect: the grad transform orders it through the state token"
_REGIONS = "structural: the transform differentiates its regions or callee itself"

#: op name -> why it has no ``vjp`` rule.
NO_VJP: dict[str, str] = {
    **dict.fromkeys(("Zeros", "Ones", "Fill"), _CONST),
    **dict.fromkeys(("LogicalNot", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
                     "GreaterEqual", "LogicalAnd", "LogicalOr", "Argmax", "Argmin"), _INTEGER),
    **dict.fromkeys(("Sign", "Floor", "Ceil", "FloorDiv"),
                    "piecewise constant: the grad transform gives zeros without a rule"),
    **dict.fromkeys(("Load", "Assign", "AssignAdd", "AssignSub", "UpdateState", "Print",
                     "Raise"), _EFFECT),
    **dict.fromkeys(("MakeTuple", "TupleGetItem", "If", "While", "Call", "Recurse", "Depend"),
                    _REGIONS),
    "StopGradient": "it ends a gradient path: no gradient flows through it, by definition",
    **dict.fromkeys(("IsNan", "IsInf", "IsFinite", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                     "LeftShift", "RightShift", "Gcd", "Lcm", "PopulationCount"),
                    _INTEGER),
    **dict.fromkeys(("Trunc", "Round"),
                    "piecewise constant: the grad transform gives zeros without a rule"),
    "UniformReal": _CONST + ": a random draw, constant with respect to every input",
    **dict.fromkeys(("IgammaGradA", "IgammacGradA"),
                    "not yet: second derivatives of the incomplete gamma functions in a"),
    "CTCLossV2Grad": "not yet: second derivatives of the CTC loss",
    "Geqrf": "MindSpore 2.10 defines no gradient for it (its Householder vectors and "
             "scales are an encoding of Q, differentiated through ops.qr instead)",
}

#: op name -> why it has no ``batch`` rule.
NO_BATCH: dict[str, str] = {
    **dict.fromkeys(("Zeros", "Ones", "Fill"), _CONST + ": its result is never batched"),
    **dict.fromkeys(("MakeTuple", "TupleGetItem", "If", "While", "Call", "Depend",
                     "UpdateState"), "structural: the vmap transform batches it itself"),
    "Recurse": "not yet: a recursion's depth would differ between the batch's items",
    **dict.fromkeys(("Load", "Assign", "AssignAdd", "AssignSub", "Print", "Raise"),
                    "a side effect: the vmap transform checks what is batched and orders it"),
    "UniformReal": _CONST + ": the vmap transform copies it, one draw shared by the batch",
    **dict.fromkeys(("AllReduce", "AllGather", "ReduceScatter", "Broadcast"),
                    "not yet: a collective under vmap (batch the data before it instead)"),
    "CTCLoss": "not yet: CTCLoss under vmap (its sparse labels name their sequences; "
               "ops.ctc_loss batches)",
}

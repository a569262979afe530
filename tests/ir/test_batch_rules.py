"""Every op's batching rule against the same op applied example by example: each case of
the gradient tests (and the ops they leave out) with random batch axes per operand,
None (shared by every example) included, run in the reference interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from msc.ir import dtypes
from msc.ir.builder import Builder, as_value
from msc.ir.nodes import Var
from msc.ir.primitives import PRIMITIVES
from msc.ir.primitives.exempt import NO_BATCH
from msc.ir.types import TensorType
from tests.ir.test_rules import CASES, run

BOOL = (lambda rng, shape: rng.standard_normal(shape) > 0)
INDICES = (lambda rng, shape: rng.integers(-3, 3, shape))
SMALL = (lambda rng, shape: rng.integers(0, 4, shape))  # shift counts and shifted values
ORDERS = (lambda rng, shape: rng.integers(0, 3, shape))  # polygamma's n
ABOVE_1 = (lambda rng, shape: rng.uniform(1.5, 3.0, shape))  # zeta's exponent
LABELS = (lambda rng, shape: rng.integers(1, 3, shape))  # CTC targets
STEPS = (lambda rng, shape: np.full(shape, 4))  # every CTC sequence's length
LENGTHS = (lambda rng, shape: rng.integers(0, 3, shape))  # CTC target lengths
UNIT = (lambda rng, shape: rng.uniform(0.05, 0.95, shape))  # an incomplete beta's x
LOWER = (lambda rng, shape: np.tril(rng.uniform(0.5, 2.0, shape)) + 2 * np.eye(shape[-1]))

# ops the gradient cases leave out (integer or bool results, no gradient)
EXTRA: list[tuple[Any, ...]] = [
    ("Argmax", [(2, 3, 4)], {"axis": 1, "keep_dims": False}),
    ("Argmax", [(2, 3)], {"axis": None, "keep_dims": True}),
    ("Argmin", [(3, 4)], {"axis": -1, "keep_dims": True}),
    ("Argmin", [(4,)], {"axis": None, "keep_dims": False}),
    ("Cast", [(2, 3)], {"dtype": dtypes.int32}),
    ("Ceil", [(2, 3)], {}), ("Floor", [(3,)], {}), ("Sign", [(2, 3)], {}),
    ("FloorDiv", [(2, 3), (3,)], {}),
    ("Equal", [(2, 3), (3,)], {}), ("NotEqual", [(3,), (2, 3)], {}),
    ("Greater", [(2, 3), ()], {}), ("GreaterEqual", [(2, 1), (1, 3)], {}),
    ("Less", [(3,), (3,)], {}), ("LessEqual", [(2, 3), (2, 3)], {}),
    ("LogicalAnd", [(2, 3), (3,)], {}, [BOOL, BOOL]),
    ("LogicalOr", [(3,), (2, 3)], {}, [BOOL, BOOL]),
    ("LogicalNot", [(2, 3)], {}, [BOOL]),
    ("Select", [(2, 3), (2, 3), (3,)], {}, [BOOL, None, None]),
    ("ZerosLike", [(2, 3)], {}), ("OnesLike", [(3,)], {}), ("StopGradient", [(2, 2)], {}),
    ("Gather", [(5, 3), (2, 2)], {"axis": 1}, [None, INDICES]),
    ("Softmax", [(3,)], {"axis": (0,)}),
    ("ReduceSum", [()], {"axis": (), "keep_dims": False}),
    ("Trunc", [(2, 3)], {}), ("Round", [(3,)], {}), ("IsNan", [(2, 3)], {}),
    ("IsInf", [(3,)], {}), ("IsFinite", [(2, 3)], {}),
    ("BitwiseAnd", [(2, 3), (3,)], {}, [INDICES, INDICES]),
    ("BitwiseOr", [(3,), ()], {}, [INDICES, 5]), ("BitwiseXor", [(2, 3), (2, 3)], {}, [BOOL, BOOL]),
    ("MaxPoolGrad", [(2, 3, 5, 6), (2, 3, 3, 6)],
     {"kernel": (2, 3), "stride": (2, 1), "dilation": (1, 1), "pad": (1, 0, 1, 1)}),
    ("MaxPoolGradGrad", [(2, 3, 5, 6), (2, 3, 5, 6)],
     {"kernel": (2, 3), "stride": (2, 1), "dilation": (1, 1), "pad": (1, 0, 1, 1)}),
    ("LeftShift", [(2, 3), (3,)], {}, [SMALL, SMALL]),
    ("RightShift", [(3,), (2, 3)], {}, [INDICES, SMALL]),
    ("Gcd", [(2, 3), (3,)], {}, [INDICES, INDICES]), ("Lcm", [(3,), ()], {}, [INDICES, 4]),
    ("NextAfter", [(2, 3), (3,)], {}), ("Lgamma", [(2, 3)], {}), ("Digamma", [(3,)], {}),
    ("Polygamma", [(2, 3), (3,)], {}, [ORDERS, None]), ("Zeta", [(3,), (2, 3)], {}, [ABOVE_1, None]),
    *((name, [(2, 3)], {}) for name in ("BesselI0", "BesselI0e", "BesselI1", "BesselI1e",
                                        "BesselJ0", "BesselJ1", "BesselK0", "BesselK1",
                                        "BesselK0e", "BesselK1e")),
    *((name, [(2, 3), (3,)], {}) for name in ("Igamma", "Igammac", "IgammaGradA",
                                              "IgammacGradA")),
    # CTC over 4 steps, 2 sequences of up to 2 labels (1 or 2; blank 0) out of 3 classes
    ("CTCLossV2", [(4, 2, 3), (2, 2), (2,), (2,)], {"blank": 0, "zero_infinity": False},
     [None, LABELS, STEPS, LENGTHS]),
    ("CTCLossV2Grad", [(2,), (4, 2, 3), (2, 2), (2,), (2,), (2,), (2, 4, 5)],
     {"blank": 0, "zero_infinity": True}, [None, None, LABELS, STEPS, LENGTHS, None, None]),
    ("BesselY0", [(2, 3)], {}), ("BesselY1", [(3,)], {}),
    ("Betainc", [(3,), (3,), (3,)], {}, [None, None, UNIT]),
    ("PopulationCount", [(2, 3)], {}, [INDICES]),
    ("Qr", [(4, 3)], {"full_matrices": False}), ("Qr", [(3, 4)], {"full_matrices": True}),
    ("Geqrf", [(4, 3)], {}),
    ("Svd", [(4, 3)], {"full_matrices": False, "compute_uv": True}),
    ("Svd", [(3, 3)], {"full_matrices": False, "compute_uv": False}),
    ("MatrixExp", [(3, 3)], {}),
    ("MatrixTriangularSolve", [(3, 3), (3, 2)], {"lower": True, "adjoint": False},
     [LOWER, None]),
    ("MatrixTriangularSolve", [(3, 3), (3, 2)], {"lower": True, "adjoint": True},
     [LOWER, None]),
]
ALL = [c for c in CASES if PRIMITIVES[c[0]].batch is not None] + EXTRA
SIZE = 3


def test_every_op_is_batched_by_a_checked_rule_or_says_why_not() -> None:
    covered = {c[0] for c in ALL}
    for name, prim in PRIMITIVES.items():
        assert (prim.batch is not None) != (name in NO_BATCH), name
        if prim.batch is not None:
            assert name in covered, f"{name} has a batching rule no case checks"


def _inputs(rng: np.random.Generator, case: tuple[Any, ...]) -> list[Any]:
    """One example's operands: arrays, or Python numbers that stay numbers."""
    shapes, domains = case[1], case[3] if len(case) > 3 else [None] * len(case[1])
    values = []
    for shape, dom in zip(shapes, domains):
        if isinstance(dom, (int, float)):
            values.append(dom)
        else:
            values.append(rng.uniform(0.5, 2.0, shape) if dom is None else dom(rng, shape))
    return values


def _batch_dims(rng: np.random.Generator, values: list[Any], trial: int) -> list[Any]:
    """A batch axis (or None) per array operand: the first trial batches each one at its
    last axis, later ones pick at random; at least one operand is batched."""
    arrays = [i for i, v in enumerate(values) if isinstance(v, np.ndarray)]
    while True:
        dims: list[Any] = [None] * len(values)
        for i in arrays:
            ndim = np.ndim(values[i])
            dims[i] = ndim if trial == 0 else rng.choice([None, *range(ndim + 1)])
        if any(d is not None for d in dims):
            return dims


@pytest.mark.parametrize("case", ALL, ids=[c[0] for c in ALL])
def test_batch_rule_matches_the_op_on_each_example(case: tuple[Any, ...]) -> None:
    name, attrs = case[0], case[2]
    prim = PRIMITIVES[name]
    rng = np.random.default_rng(len(name))
    for trial in range(4):
        examples = [_inputs(rng, case) for _ in range(SIZE)]
        dims = _batch_dims(rng, examples[0], trial)
        operands, params, values = [], [], []
        for i, d in enumerate(dims):
            v = examples[0][i]
            if not isinstance(v, np.ndarray):
                operands.append(as_value(v))
                continue
            batch = v if d is None else np.stack([e[i] for e in examples], axis=int(d))
            params.append(Var(TensorType(dtypes.from_numpy(batch.dtype), batch.shape),
                              f"x{i}"))
            operands.append(params[-1])
            values.append(batch)
        arg_dims = [None if d is None else int(d) for d in dims]
        b = Builder()
        bound = prim.bind(attrs)
        out, out_dim = prim.batch(b, prim, operands, arg_dims, **bound)
        got = run(tuple(params), b, out, *values)
        for k, example in enumerate(examples):
            ex = [v if d is None else e for v, e, d in zip(examples[0], example, dims)]
            eparams = [Var(TensorType(dtypes.from_numpy(np.asarray(v).dtype),
                                      np.shape(v)), "e") for v in ex if isinstance(v, np.ndarray)]
            it = iter(eparams)
            eops = [next(it) if isinstance(v, np.ndarray) else v for v in ex]
            eb = Builder()
            want = run(tuple(eparams), eb, eb.emit(prim, *eops, **attrs),
                       *(v for v in ex if isinstance(v, np.ndarray)))
            _check(got, out_dim, k, want, f"{name} dims={dims} example {k}")


def _check(got: Any, dim: Any, k: int, want: Any, what: str) -> None:
    if isinstance(want, tuple):
        for g, d, w in zip(got, dim, want):
            _check(g, d, k, w, what)
        return
    row = np.asarray(got) if dim is None else np.take(got, k, axis=dim)
    assert row.dtype == np.asarray(want).dtype, what
    np.testing.assert_allclose(row, want, rtol=1e-12, atol=1e-12, err_msg=what)

"""The kernel IR's scalar expressions on their own: building, binding, rewriting, the
python-syntax renderer (evaluated against numpy), the float16 rounding pass, and the
cuda renderer's tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from msc.codegen.cuda.scalar import device_template, render_device
from msc.codegen.half import rounded
from msc.codegen.pyrender import literal, render, render_stmts
from msc.ir import dtypes, kernel
from msc.ir import kernel as kernel_ir
from msc.ir.kernel import (
    X0,
    X1,
    Binary,
    BinaryOp,
    Cast,
    Fn,
    Helper,
    Lit,
    Name,
    Select,
    attr,
    call,
    gt,
)
from msc.ir.primitives import PRIMITIVES, Op
from msc.ir.primitives.base import Elementwise
from msc.runtime import numpy_rt, numpy_special_rt

ELEMENTWISE = {name: p.lowering["numba"] for name, p in PRIMITIVES.items()
               if isinstance(p.lowering["numba"], Elementwise)}


def evaluate(e: kernel.Expr, **names: object) -> object:
    return eval(render(e), {"np": np, "math": math}, names)  # noqa: S307


def test_arithmetic_builds_nodes_and_prints_by_name() -> None:
    e = Select(gt(X0, 0), X0, attr("alpha") * call(Fn.EXPM1, X0))
    assert str(e) == "select(gt(%0, 0), %0, mul(@alpha, expm1(%0)))"
    assert X0 * 2 + X1 == Binary(BinaryOp.ADD, Binary(BinaryOp.MUL, X0, Lit(2)), X1)
    assert (1 - X0).a == Lit(1)  # reflected operators keep the order
    assert X0 + "a" == Binary(BinaryOp.ADD, X0, Name("a"))  # a string names a value
    with pytest.raises(TypeError):
        X0 + object()  # noqa: B018


def test_bind_and_substitute_replace_leaves_once() -> None:
    e = kernel.bind(attr("beta") * X0 + X1, {"beta": 2.5})
    assert e == Lit(2.5) * X0 + X1
    # an operand standing for another operand is not replaced again
    swapped = kernel.substitute(X0 - X1, [X1, X0])
    assert swapped == X1 - X0


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_every_elementwise_op_renders_what_its_impl_computes(name: str) -> None:
    """Each op's array form, rendered and evaluated by Python on float64 arrays, equals
    the primitive's own numpy implementation (the eager semantics)."""
    prim = PRIMITIVES[name]
    lowering = ELEMENTWISE[name]
    defaults = {a.name: a.default for a in prim.attrs}
    if name == "Cast":
        defaults["dtype"] = dtypes.float64
    rng = np.random.default_rng(0)
    n = 1 + max(a.index for a in kernel.nodes(lowering.expr) if isinstance(a, kernel.Arg))
    if name in ("Select",):
        values = [rng.uniform(-2, 2, 7) > 0, rng.uniform(-2, 2, 7), rng.uniform(-2, 2, 7)]
    elif name in ("LeftShift", "RightShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Gcd",
                  "Lcm"):
        values = [rng.integers(0, 8, 7) for _ in range(n)]
    elif name.startswith("Logical"):
        values = [rng.uniform(-1, 1, 7) > 0 for _ in range(n)]
    else:
        values = [rng.uniform(0.1, 0.9, 7) for _ in range(n)]
    if name == "Polygamma":  # the order n is an integer
        values[0] = rng.integers(0, 3, 7)
    names = {f"v{i}": v for i, v in enumerate(values)}
    e = kernel.substitute(kernel.bind(lowering.expr, defaults),
                          [Name(f"v{i}") for i in range(n)])
    helpers = {k: getattr(m, k) for m in (numpy_rt, numpy_special_rt) for k in dir(m)
               if k.startswith("_rt_")}
    with np.errstate(all="ignore"):
        got = eval(render(kernel.on_arrays(e)), {"np": np, "math": math, **helpers}, names)  # noqa
        want = prim.impl(*values, **defaults)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-6, equal_nan=True)


def test_scalar_and_array_forms_of_a_selection() -> None:
    e = Select(gt(Name("x"), 0), Name("x"), Lit(0.0))
    assert render(e) == "(x if (x > 0) else 0.0)"
    assert render(kernel.on_arrays(e)) == "np.where((x > 0), x, 0.0)"
    assert evaluate(e, x=-1.5) == 0.0
    assert list(evaluate(kernel.on_arrays(e), x=np.array([-1.0, 2.0]))) == [0.0, 2.0]


def test_literals_keep_their_dtype_and_special_values() -> None:
    assert literal(2.5, dtypes.float32) == "np.float32(2.5)"
    assert literal(float("inf")) == "np.inf" and literal(float("-inf")) == "(-np.inf)"
    assert literal(True) == "True"
    assert render(kernel.on_arrays(Cast(dtypes.int32, Name("a")))) == "a.astype(np.int32)"
    assert math.isnan(evaluate(Lit(float("nan"))))


def test_float16_rounding_rounds_each_operation_as_numpy_does() -> None:
    """``rounded`` of sigmoid, evaluated on float32 holding float16 values, gives numpy's
    float16 sigmoid to the bit (numpy rounds after every ufunc)."""
    x16 = np.linspace(-6, 6, 97).astype(np.float16)
    want = (np.float16(1) / (np.float16(1) + np.exp(-x16))).astype(np.float16)
    e = rounded(1 / (1 + call(Fn.EXP, -Name("a"))))
    src = render(e)
    assert src.startswith("_rt_f16_round(") and "np.float32(1.0)" in src

    def f16_round(v: object) -> np.float32:
        return np.float32(np.float16(v))

    got = [eval(src, {"np": np, "_rt_f16_round": f16_round}, {"a": np.float32(v)})  # noqa
           for v in x16]
    assert np.array_equal(np.asarray(got, np.float32), want.astype(np.float32))


def test_float16_rounding_of_math_functions_and_helpers() -> None:
    e = rounded(call(Fn.MATH_ERF, Name("a")))
    assert render(e) == "_rt_f16_round(math.erf(np.float64(a)))"
    e = rounded(Helper("_rt_gelu", (Name("a"), Lit("tanh"))))
    assert render(e) == "_rt_f16_round(_rt_gelu_f16(a, 'tanh'))"
    # a comparison is exact: only the selection's result is rounded
    e = rounded(Select(gt(Name("a"), 0), Name("a"), Lit(0.1)))
    assert render(e) == "_rt_f16_round((a if (a > np.float32(0.0)) else " \
        "np.float32(0.0999755859375)))"


@pytest.mark.parametrize("op, dt, device", [
    (Op.Exp, dtypes.float32, "math.exp(a)"),
    (Op.Floor, dtypes.float32,
     "(math.copysign(math.floor(a), a) if abs(a) < 4503599627370496.0 else a)"),
    (Op.Floor, dtypes.int32, None),  # math.floor of an int: the host computes it
    (Op.Erf, dtypes.float32, "math.erf(a)"),  # the scalar form
    (Op.Pow, dtypes.float32, "(a ** b)"),
    (Op.Mod, dtypes.int32, None),
    (Op.Lgamma, dtypes.float32, None),  # a runtime helper: no device form
    (Op.Maximum, dtypes.float32, "np.maximum(a, b)"),
])
def test_device_forms(op: object, dt: object, device: str | None) -> None:
    lowering = op.lowering["numba"]  # type: ignore[attr-defined]
    attrs = {a.name: a.default for a in op.attrs}  # type: ignore[attr-defined]
    template = device_template(op, lowering, attrs, dt)  # type: ignore[arg-type]
    if device is None:
        assert template is None
        return
    assert template is not None
    assert render_device(kernel.substitute(template, [Name("a"), Name("b")])) == device


def test_device_literals_are_kernel_source() -> None:
    assert render_device(Lit(float("inf"))) == "math.inf"
    assert render_device(Lit(float("-inf"), dtypes.float32)) == "np.float32((-math.inf))"
    assert render_device(Lit(float("nan"))) == "math.nan"


# --- statements, as the lowerer builds them -------------------------------------------------


def _dense_softmax_module() -> object:
    import msc as ms
    from msc import nn, ops
    from msc.compiler import arg_spec, build

    class Net(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Dense(8, 4)

        def construct(self, x):  # type: ignore[no-untyped-def]
            y = ops.relu(self.fc(x)) * 2.0 + 1.0
            return ops.softmax(y, axis=-1), ops.reduce_sum(y, 0)

    x = np.zeros((3, 8), np.float32)
    return build(Net(), [arg_spec(ms.Tensor(x))]).module


def test_the_kernel_ir_of_a_model_names_loop_roles_and_user_lines() -> None:
    """``msc ir --kernels``: the fused chain is a parallel loop, softmax's row maximum and
    sum are reductions inside a parallel loop over rows, and every computed value names
    the user's line."""
    from msc.cli import kernels_text

    text = kernels_text(_dense_softmax_module(), "numba")
    lines = text.splitlines()
    assert lines[0].startswith("# kernel Net_construct(")
    fused = next(i for i, line in enumerate(lines) if "maximum(" in line)
    assert lines[fused - 2].strip().startswith("parallel for")
    assert "test_kernel.py:" in lines[fused]
    assert any(line.strip().startswith("reduce for") for line in lines)
    assert sum("if gt(" in line and "or ne(" in line for line in lines) == 1  # NaN wins


def test_rendered_statements_are_the_kernels_source() -> None:
    """The lines of every generated function are its statements rendered, nothing else."""
    from msc.codegen.generate import lower_for_target

    spec = lower_for_target(_dense_softmax_module(), "numba", "")  # type: ignore[arg-type]
    for function in (*spec.callees, spec.kernel):
        assert tuple(render_stmts(function.body)) == function.lines
    roles = [s.role for s in spec.kernel.body if isinstance(s, kernel_ir.Loop)]
    # the fused chain, softmax's rows, the column sum's rows folded in, its result written
    assert roles == [kernel_ir.Role.PARALLEL, kernel_ir.Role.PARALLEL, kernel_ir.Role.REDUCE,
                     kernel_ir.Role.PARALLEL]

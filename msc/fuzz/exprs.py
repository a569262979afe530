"""Expressions of an exact tensor type, from the op table's public MindSpore names.

``Exprs.expr(t, scope, depth)`` returns source text whose eager value has dtype and shape
``t``. Each form is a method ``_f_<name>(t, scope, depth)`` that returns None where it does
not apply to ``t``; ``FORMS`` weighs them and names the feature that enables each. Values
stay bounded: products and exponentials are clipped, ``log``/``sqrt``/division take
``abs() + 1``, float-to-int casts clip first.
"""

from __future__ import annotations

import math
import random
import re
from typing import Callable

from msc.fuzz.types import (
    FLOATS,
    INTS,
    MS_DTYPE,
    PYFLOAT,
    PYINT,
    TT,
    Tup,
    Var,
    array_literal,
    broadcasts,
    literal_source,
    sub_shape,
)

#: (form, weight, feature that enables it or None).
FORMS: tuple[tuple[str, float, str | None], ...] = (
    ("unary", 3, None), ("binary", 4, None), ("scalar", 2, "scalar-mix"),
    ("mixed", 1, "promotion"), ("compare", 4, None), ("logic", 2, None),
    ("reduce", 2.5, "reduce"), ("argmax", 0.5, "reduce"), ("softmax", 1, "reduce"),
    ("rows", 0.5, "reduce"),
    ("cumsum", 0.5, "reduce"), ("select", 1.5, None), ("ternary", 0.7, "tensor-if"),
    ("clip", 1, None), ("cast", 1.5, None), ("reshape", 1, "shape-ops"),
    ("transpose", 1, "shape-ops"), ("expand", 1, "shape-ops"), ("squeeze", 1, "shape-ops"),
    ("concat", 1, "shape-ops"), ("stack", 1, "shape-ops"), ("tile", 0.5, "shape-ops"),
    ("split", 0.8, "shape-ops"), ("lone", 0.8, "reduce"),
    ("index", 2, "index"), ("gather", 0.4, "index"), ("scatter", 0.3, "index"),
    ("head", 0.5, "index"),
    ("matmul", 1.5, "matmul"), ("by_weight", 1, "matmul"),
    ("pool", 0.8, "pool"),
    ("conv", 0.4, "conv"), ("ctc", 0.2, "ctc"),
    ("tuple_item", 1, "tuple"),
    ("const", 0.7, None), ("call", 1.5, "helper"), ("subcell", 1.2, "subcell"),
    ("hypermap", 0.8, "hypermap"), ("prim_class", 0.4, "prim-class"),
    ("builtin", 0.6, "builtins"), ("vmap", 0.4, "vmap"), ("grad", 1.2, "grad"),
)

#: The pooling forms ``_f_pool`` draws per number of spatial dims; the functional forms
#: take their padding in mode 'pad' only.
_POOL_FORMS = {1: ("avg_pool1d", "MaxPool1d", "AvgPool1d"),
               2: ("max_pool2d", "MaxPool", "avg_pool2d", "AvgPool", "MaxPool2d", "AvgPool2d"),
               3: ("max_pool3d", "MaxPool3D", "avg_pool3d", "AvgPool3D", "AvgPool3d")}
_PAD_ONLY = ("max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d")
#: the adaptive forms per number of spatial dims (any input size gives the output size)
_ADAPTIVE_FORMS = {1: ("AdaptiveAvgPool1d",), 2: ("adaptive_avg_pool2d", "adaptive_max_pool2d",
                                                   "AdaptiveMaxPool2D"),
                   3: ("adaptive_avg_pool3d", "adaptive_max_pool3d")}


def _pooled_size(n: int, k: int, s: int, dil: int, mode: str, p: int, ceil: bool) -> int:
    """The output length of pooling ``n`` positions (0 where the window does not fit)."""
    if mode == "same":
        return -(-n // s)
    span = n + 2 * p - dil * (k - 1) - 1
    if span < 0:
        return 0
    count = (-(-span // s) if ceil else span // s) + 1
    return count - 1 if ceil and (count - 1) * s >= n + p else count


_FLOAT_UNARY = (
    "ops.tanh({0})", "ops.sin({0})", "ops.cos({0})", "ops.abs({0})", "(-{0})", "ops.neg({0})",
    "ops.relu({0})", "ops.sigmoid({0})", "ops.floor({0})", "ops.ceil({0})", "ops.sign({0})",
    "ops.exp(ops.clip_by_value({0}, -4.0, 4.0))", "ops.sqrt(ops.abs({0}) + 1.0)",
    "ops.log(ops.abs({0}) + 1.0)", "ops.log1p(ops.abs({0}))", "ops.rsqrt(ops.abs({0}) + 1.0)",
    "ops.reciprocal(ops.abs({0}) + 1.0)", "ops.square(ops.clip_by_value({0}, -8.0, 8.0))",
    "ops.erf({0})", "ops.gelu({0})", "ops.hardswish({0})", "{0}.abs()", "{0}.tanh()",
    "{0}.sigmoid()", "{0}.exp().clip(-50.0, 50.0)", "ops.pow(ops.abs({0}) + 1.0, 2)",
    "(ops.tanh({0}) ** 2)", "ops.lgamma(ops.abs({0}) + 0.5)", "ops.digamma(ops.abs({0}) + 0.5)",
    "ops.bessel_i0e({0})", "ops.bessel_i1(ops.clip_by_value({0}, -10.0, 10.0))",
    "ops.bessel_j0({0})", "ops.bessel_k1e(ops.abs({0}) + 0.5)", "ops.logit(ops.sigmoid({0}))",
    "ops.igamma(ops.abs({0}) + 0.5, ops.abs({0}))", "ops.selu({0})",
    "ops.gelu({0}, approximate='tanh')", "ops.erfc({0})",
    "(ops.exp(ops.clip_by_value({0} * 30.0, -110.0, 85.0)) * 1e-30)",
    "ops.gelu({0} * 6.0)",  # (float32 GeLU's tail, where exp(-x*x/2) underflows)
    "ops.gelu({0} * 6.0, approximate='tanh')",  # (the tanh GeLU's tails)
    "ops.tanh({0} * 0.3)",  # (float32 tanh's polynomial below 0.625 and its edge)
)
_INT_UNARY = ("(-{0})", "ops.abs({0})", "({0} % 5)", "({0} // 3)", "ops.neg({0})",
              "ops.square(ops.clip_by_value({0}, -30, 30))", "ops.sign({0})", "{0}.abs()")
_FLOAT_BINARY = (
    "({0} + {1})", "({0} - {1})", "ops.add({0}, {1})", "ops.sub({0}, {1})",
    "ops.clip_by_value({0} * {1}, -100.0, 100.0)", "ops.mul(ops.tanh({0}), {1})",
    "({0} / (ops.abs({1}) + 1.0))", "ops.div({0}, ops.abs({1}) + 1.0)",
    "ops.maximum({0}, {1})", "ops.minimum({0}, {1})", "({0} // (ops.abs({1}) + 1.0))",
    "({0} % (ops.abs({1}) + 1.0))", "ops.floor_mod({0}, ops.abs({1}) + 0.5)",
)
_INT_BINARY = (
    "({0} + {1})", "({0} - {1})", "ops.add({0}, {1})", "ops.maximum({0}, {1})",
    "ops.minimum({0}, {1})", "ops.clip_by_value({0} * {1}, -1000, 1000)",
    "({0} // (ops.abs({1}) + 1))", "({0} % (ops.abs({1}) + 1))",
    "ops.floor_div({0}, ops.abs({1}) + 2)", "ops.gcd({0}, {1})",
    "ops.bitwise_left_shift(ops.clip_by_value({0}, -100, 100), 2)", "ops.lcm({0}, {1})",
)
#: Float ops that a loop of their own computes, one or a chain of two: numpy's ufuncs in
#: an outlined driver.
_LONE = ("({0} + {1})", "({0} - {1})", "({0} * {1})", "ops.maximum({0}, {1})",
         "ops.minimum({0}, {1})", "(-{0})", "ops.relu({0})", "({0} / 4.0)", "ops.div({0}, 3.0)",
         "({0} * 0.9 + {1})", "(({0} - {1}) / 3.0)", "({1} - {0} * 0.5)")
_COMPARE = ("({0} > {1})", "({0} < {1})", "({0} >= {1})", "({0} <= {1})", "({0} == {1})",
            "({0} != {1})", "ops.equal({0}, {1})", "ops.greater({0}, {1})", "ops.le({0}, {1})",
            "ops.ne({0}, {1})")
_LOGIC = ("ops.logical_and({0}, {1})", "ops.logical_or({0}, {1})", "({0} & {1})",
          "({0} | {1})")


class Exprs:
    """The expression half of the generator (``Gen`` supplies ``rng``, ``features``,
    ``dtypes``, ``approx_half``, ``approx_wide`` and the call sites)."""

    rng: random.Random
    features: frozenset[str]
    dtypes: list[str]
    approx_half: bool
    approx_wide: bool

    # hooks ``Gen`` implements (helpers, sub-Cells, HyperMap need program-level state)
    def call_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        raise NotImplementedError

    def subcell_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        raise NotImplementedError

    def hypermap_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        raise NotImplementedError

    def vmap_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        raise NotImplementedError

    # --- the entry points ---------------------------------------------------------------

    def expr(self, t: TT, scope: list[Var], depth: int) -> str:
        """Source text of a value of exactly type ``t``."""
        if depth <= 0 or self.rng.random() < 0.22:
            return self.leaf(t, scope)
        forms = [(n, w) for n, w, need in FORMS if need is None or need in self.features]
        for _ in range(6):
            name = self.rng.choices([n for n, _ in forms], [w for _, w in forms])[0]
            build: Callable[[TT, list[Var], int], str | None] = getattr(self, "_f_" + name)
            text = build(t, scope, depth)
            if text is not None:
                return text
        return self.leaf(t, scope)

    def fresh_value(self, t: TT, scope: list[Var], depth: int) -> str:
        """An expression to bind to a variable that may later be updated in place: never
        another variable (or tuple item, or ``depend``'s result) itself, since an in-place
        update of the one would show through the other in eager mode only."""
        text = self.expr(t, scope, depth)
        if text.replace(".", "_").isidentifier() or text.endswith("]") or \
                text.startswith("ops.depend("):
            return f"ops.cast({text}, {MS_DTYPE[t.dtype]})"
        return text

    def sub(self, t: TT, scope: list[Var], depth: int) -> str:
        return self.expr(t, scope, depth - 1)

    def numeric_dtype(self) -> str:
        return self.rng.choice([d for d in self.dtypes if d != "bool"])

    def note_approx(self, dtype: str) -> None:
        """A float16 reduction or matmul: compare float16 to a tolerance, not exactly."""
        if dtype == "float16":
            self.approx_half = True

    # --- leaves ---------------------------------------------------------------------------

    def leaf(self, t: TT, scope: list[Var]) -> str:
        """A variable of the type, broadcast, cast or reduced to it; or a constant."""
        rng = self.rng
        tensors = [v for v in scope if isinstance(v.type, TT)]
        if not tensors or rng.random() < 0.08:
            return self.constant(t)
        same = [v for v in tensors if v.type.dtype == t.dtype]  # type: ignore[union-attr]
        v = rng.choice(same if same and rng.random() < 0.8 else tensors)
        vt = v.type
        assert isinstance(vt, TT)
        # a Parameter is read by value: a name bound to the Parameter itself and merged by
        # a tensor if holds its value at the if, not later writes (a listed difference)
        text = f"({v.name} * 1)" if v.name.startswith("self.") else v.name
        if vt.shape != t.shape:
            if broadcasts(vt.shape, t.shape):
                text = f"ops.broadcast_to({text}, {t.shape!r})"
            elif t.shape == () or rng.random() < 0.5:
                if t.shape == ():
                    text = f"{text}.max()" if vt.dtype != "bool" else f"{text}.any()"
                else:
                    text = f"ops.broadcast_to({text}.max(), {t.shape!r})" \
                        if vt.dtype != "bool" else f"ops.broadcast_to({text}.any(), {t.shape!r})"
            else:
                return self.constant(t)
        if vt.dtype != t.dtype:
            if vt.floating and t.integral:
                text = f"ops.clip_by_value({text}, -100.0, 100.0)"
            if vt.dtype in ("float32", "float16") and t.dtype == "float64":
                self.approx_wide = True  # (as _f_cast: a float32 ulp widened)
            text = f"ops.cast({text}, {MS_DTYPE[t.dtype]})"
        return text

    def constant(self, t: TT) -> str:
        rng, d = self.rng, MS_DTYPE[t.dtype]
        r = rng.random()
        if r < 0.25:
            return f"ops.zeros({t.shape!r}, {d})"
        if r < 0.45:
            return f"ops.ones({t.shape!r}, {d})"
        if r < 0.6 and t.dtype != "bool":
            value = rng.randint(-3, 3) + (0.5 if t.floating else 0)
            return f"ops.full({t.shape!r}, {value}, dtype={d})"
        return f"Tensor({literal_source(array_literal(rng, t))})"

    def scalar(self, t: TT) -> str:
        """A Python number to combine with a ``t`` tensor (keeps its dtype)."""
        if t.floating:
            return repr(self.rng.choice([0.5, 1.5, 2.0, -1.0, 0.25, 3]))
        return repr(self.rng.randint(-3, 3))

    def scalar_in(self, t: TT, scope: list[Var]) -> str:
        """A Python number, sometimes a Python-int variable in scope (a loop index)."""
        ints = [v.name for v in scope if v.type == PYINT or (t.floating and v.type == PYFLOAT)]
        if ints and self.rng.random() < 0.5:
            return self.rng.choice(ints)
        return self.scalar(t)

    # --- element-wise ---------------------------------------------------------------------

    def _f_unary(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype == "bool":
            return f"ops.logical_not({self.sub(t, scope, depth)})"
        form = self.rng.choice(_FLOAT_UNARY if t.floating else _INT_UNARY)
        return form.format(self.sub(t, scope, depth))

    def _f_binary(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype == "bool":
            return None
        a, b = self._two(t, scope, depth)
        form = self.rng.choice(_FLOAT_BINARY if t.floating else _INT_BINARY)
        return form.format(a, b)

    def _two(self, t: TT, scope: list[Var], depth: int) -> tuple[str, str]:
        """Two operands that broadcast to ``t`` (one of them has ``t``'s shape)."""
        other = t.with_shape(sub_shape(self.rng, t.shape))
        a, b = self.sub(t, scope, depth), self.sub(other, scope, depth)
        return (a, b) if self.rng.random() < 0.5 else (b, a)

    def _f_scalar(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype == "bool":
            return None
        a, k = self.sub(t, scope, depth), self.scalar_in(t, scope)
        forms = [f"({a} * {k})", f"({a} + {k})", f"({k} - {a})", f"({k} + {a})"]
        if t.floating:
            forms += [f"({a} / 2)", f"(({k} + 1) * {a})"]
        return self.rng.choice(forms)

    def _f_mixed(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """Tensors of two dtypes: the result takes the wider (float over int over bool)."""
        if t.dtype == "bool" or t.dtype == "int32":
            return None
        lower = [d for d in self.dtypes if d == "bool" or (t.floating and d in INTS) or
                 (t.dtype == "int64" and d == "int32")]
        if t.dtype == "float32" and "float16" in self.dtypes:
            lower.append("float16")
        if not lower:
            return None
        a = self.sub(t, scope, depth)
        other = TT(self.rng.choice(lower), sub_shape(self.rng, t.shape))
        b = self.sub(other, scope, depth)
        if other.dtype in INTS and t.dtype == "float32" and self.rng.random() < 0.3:
            return f"({b} * 0.5 + {a})"  # an int tensor times a Python float is float32
        return f"({a} + {b})" if self.rng.random() < 0.5 else f"({b} + {a})"

    def _f_compare(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype != "bool":
            return None
        d = TT(self.numeric_dtype(), t.shape)
        if self.rng.random() < 0.3:  # a Python number, off the grid now and then
            k = self.rng.randint(-3, 3)
            a = self.sub(d, scope, depth)
            b = repr(k + self.rng.choice([0, 0.5, 0.25])) if d.floating else repr(k)
        else:
            a, b = self._two(d, scope, depth)
        return self.rng.choice(_COMPARE).format(a, b)

    def _f_logic(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype != "bool":
            return None
        a, b = self._two(t, scope, depth)
        return self.rng.choice(_LOGIC).format(a, b)

    def _f_select(self, t: TT, scope: list[Var], depth: int) -> str | None:
        cond = self.sub(TT("bool", sub_shape(self.rng, t.shape)), scope, depth)
        a, b = self.sub(t, scope, depth), self.sub(t, scope, depth)
        return f"ops.{self.rng.choice(['select', 'where'])}({cond}, {a}, {b})"

    def _f_ternary(self, t: TT, scope: list[Var], depth: int) -> str | None:
        a, b = self.sub(t, scope, depth), self.sub(t, scope, depth)
        return f"({a} if {self.condition(scope, depth - 1)} else {b})"

    def _f_clip(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype == "bool":
            return None
        a = self.sub(t, scope, depth)
        lo, hi = (-1.5, 2.0) if t.floating else (-2, 3)
        return self.rng.choice([f"ops.clip_by_value({a}, {lo}, {hi})",
                                f"ops.clamp({a}, {lo}, {hi})", f"{a}.clip({lo}, {hi})",
                                f"ops.clip_by_value({a}, {lo})"])

    def _f_cast(self, t: TT, scope: list[Var], depth: int) -> str | None:
        src = TT(self.rng.choice(self.dtypes), t.shape)
        a = self.sub(src, scope, depth)
        if src.floating and t.integral:
            a = f"ops.clip_by_value({a}, -100.0, 100.0)"
        if src.dtype == "float64" and t.dtype == "float16":
            return None  # double rounding through float32 is documented (README)
        if src.dtype in ("float32", "float16") and t.dtype == "float64":
            self.approx_wide = True  # (a float32 ulp is far above float64's tolerance)
        d = MS_DTYPE[t.dtype]
        return f"ops.cast({a}, {d})" if self.rng.random() < 0.7 else f"{a}.astype({d})"

    def _f_const(self, t: TT, scope: list[Var], depth: int) -> str | None:
        return self.constant(t)

    # --- reductions -------------------------------------------------------------------------

    def _f_builtin(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """Python's ``max``/``min``: over a 1-D tensor's elements, or choosing among
        one-element tensors (``max(a, b)``, ``min((a, b, c))``)."""
        if t.dtype == "bool" or t.shape not in ((), (1,)):
            return None
        fn = self.rng.choice(["max", "min"])
        if t.shape == () and self.rng.random() < 0.5:
            return f"{fn}({self.sub(TT(t.dtype, (self.rng.randint(1, 4),)), scope, depth)})"
        items = [self.sub(t, scope, depth) for _ in range(self.rng.randint(2, 3))]
        if self.rng.random() < 0.5:
            return f"{fn}({', '.join(items)})"
        return f"{fn}(({', '.join(items)},))"

    def _f_reduce(self, t: TT, scope: list[Var], depth: int) -> str | None:
        rng = self.rng
        keep = rng.random() < 0.3 and t.ndim > 0 and 1 in t.shape
        if keep:
            axis = rng.choice([i for i, d in enumerate(t.shape) if d == 1])
            src_shape = t.shape[:axis] + (rng.randint(2, 3),) + t.shape[axis + 1:]
        else:
            axis = rng.randint(0, t.ndim)
            src_shape = t.shape[:axis] + (rng.randint(1, 3),) + t.shape[axis:]
        ax: int | tuple[int, int] = axis - len(src_shape) if rng.random() < 0.3 else axis
        if not keep and t.ndim and rng.random() < 0.2:  # two leading axes: rows added up
            src_shape, ax = (rng.randint(1, 3), rng.randint(2, 3)) + t.shape, (0, 1)
        ops_ok = self._reducers(t)
        if not ops_ok:
            return None
        op, src_dtype = rng.choice(ops_ok)
        a = self.sub(TT(src_dtype, src_shape), scope, depth)
        self.note_approx(src_dtype)
        if rng.random() < 0.2 and t.shape == () and not keep and op not in ("std", "logsumexp"):
            return {"sum": f"{a}.sum()", "mean": f"ops.mean({a})", "amax": f"{a}.max()",
                    "amin": f"{a}.min()", "prod": f"ops.prod(ops.clip_by_value({a}, -2, 2))",
                    "all": f"{a}.all()", "any": f"{a}.any()"}[op]
        k = ", keepdims=True" if keep else ""
        kd = ", keep_dims=True" if keep else ""
        ddof = rng.choice((0, 1) if isinstance(ax, tuple) else (0, 1, 1, 0))
        forms = {
            "sum": [f"ops.sum({a}, {ax}{', keepdim=True' if keep else ''})",
                    f"{a}.sum(axis={ax}{k})", f"ops.ReduceSum({keep})({a}, {ax})"],
            "mean": [f"ops.mean({a}, {ax}{kd})", f"{a}.mean({ax}{kd})",
                     f"ops.ReduceMean({keep})({a}, {ax})"],
            "amax": [f"ops.amax({a}, {ax}{k})", f"{a}.max(axis={ax}{k})",
                     f"ops.max({a}, {ax}{k})[0]", f"ops.ReduceMax({keep})({a}, {ax})"],
            "amin": [f"ops.amin({a}, {ax}{k})", f"{a}.min(axis={ax}{k})",
                     f"ops.ReduceMin({keep})({a}, {ax})"],
            "prod": [f"ops.prod(ops.clip_by_value({a}, -2, 2), {ax}{kd})"],
            # (smooth ones only: the grad feature differences them; std, norms and median
            # have points without a derivative that random data reaches)
            "std": [f"ops.var({a}, {ax}, {rng.choice((0, 1))}, {keep})",
                    f"ops.var({a}, {ax}, {rng.choice((0, 1))}, {keep})",
                    f"ops.nansum({a}, {ax}, {keep})", f"ops.var({a}, {ax}, {ddof}, {keep})",
                    f"ops.logsumexp({a}, {ax}, {keep})"],
            "logsumexp": [f"ops.logsumexp({a}, {ax}, {keep})"],
            "all": [f"ops.all({a}, {ax}{kd})", f"{a}.all({ax}{kd})"],
            "any": [f"ops.any({a}, {ax}{kd})", f"{a}.any({ax}{kd})"],
        }[op]
        if isinstance(ax, tuple):  # (ops.max takes one axis; so does the single form of
            forms = [f for f in forms if not f.startswith("ops.max(")]  # 'logsumexp' here)
            forms = [] if op == "logsumexp" else forms
        if not forms:
            return None
        return rng.choice(forms)

    def _reducers(self, t: TT) -> list[tuple[str, str]]:
        """(reduction, source dtype) pairs whose result has ``t``'s dtype."""
        d = t.dtype
        if d == "bool":
            return [("all", "bool"), ("any", "bool"), ("amax", "bool")]
        out = [(op, d) for op in ("amax", "amin")]
        if t.floating:
            out += [("sum", d), ("mean", d), ("prod", d), ("std", d), ("logsumexp", d)]
        if d == "int64":
            out += [(op, s) for op in ("sum", "prod") for s in self.dtypes
                    if s in INTS or s == "bool"]
        if d == "float32":
            out += [("mean", s) for s in self.dtypes if s in INTS]
        return out

    def _f_argmax(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype != "int64":
            return None
        axis = self.rng.randint(0, t.ndim)
        src = TT(self.rng.choice([d for d in self.dtypes if d != "bool"]),
                 t.shape[:axis] + (self.rng.randint(2, 3),) + t.shape[axis:])
        a = self.sub(src, scope, depth)
        op = self.rng.choice(["argmax", "argmin"])
        return self.rng.choice([f"ops.{op}({a}, {axis})", f"{a}.{op}(axis={axis})"])

    def _f_softmax(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if not t.floating or t.ndim == 0:
            return None
        self.note_approx(t.dtype)
        axis = self.rng.randint(-t.ndim, t.ndim - 1)
        a = self.sub(t, scope, depth)
        if self.rng.random() < 0.3:  # logsumexp reduces: the source has one more axis
            pos = self.rng.randint(0, t.ndim)
            src = t.with_shape(t.shape[:pos] + (2,) + t.shape[pos:])
            return f"ops.logsumexp({self.sub(src, scope, depth)}, {pos})"
        return self.rng.choice([f"ops.softmax({a}, {axis})", f"ops.log_softmax({a}, {axis})",
                                f"ops.Softmax({axis})({a})"])

    def _f_rows(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """A fold over long rows of 64 to 200 (the runtimes' 16-lane folds, a rest or none)
        of tanh of their values plus a ramp, reduced or indexed back to ``t``."""
        if t.dtype not in ("float32", "float64") or not 0 < t.size <= 8:
            return None
        self.note_approx(t.dtype)
        n = self.rng.choice([64, 67, 80, 128, 197, 200])
        rows = self.sub(t.with_shape(t.shape + (1,)), scope, depth)
        ramp = self.sub(t.with_shape((n,)), scope, depth)
        x = f"(ops.tanh({rows} * {ramp}) + ops.tanh({ramp}))"
        kind = self.rng.choice(["softmax", "log_softmax", "layer_norm", "sum", "mean", "max"])
        if kind in ("sum", "mean", "max"):
            return f"ops.reduce_{kind}({x}, -1)"
        ones = f"ops.ones(({n},), {MS_DTYPE[t.dtype]})"
        # (a layer norm's row plus a fixed ramp: the sub-expression "ramp" may be constant,
        # and a constant row's deviations are its mean's rounding, which the norm divides
        # by sqrt(eps): one float32 ulp of a mean near 1.5 moved a result by 4e-5)
        spread = f"Tensor(np.linspace(-1.0, 1.0, {n}).astype(np.{t.dtype}))"
        folded = f"ops.layer_norm({x} + {spread}, ({n},), {ones}, {ones} * 0.5)" \
            if kind == "layer_norm" else f"ops.{kind}({x}, -1)"
        return self.rng.choice([f"ops.reduce_mean({folded}, -1)",
                                f"{folded}[..., {self.rng.randrange(n)}]"])

    def _f_cumsum(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.ndim == 0 or t.dtype not in ("float32", "float64", "int32", "int64", "float16"):
            return None
        self.note_approx(t.dtype)
        return f"ops.cumsum({self.sub(t, scope, depth)}, {self.rng.randrange(t.ndim)})"

    def _f_lone(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """One float op alone in its loop (cumulative sums around it, which no loop fuses
        with), its second operand broadcast: the numba target's outlined driver calls
        numpy's ufunc for it."""
        if t.dtype not in ("float32", "float64") or t.ndim == 0:
            return None
        self.note_approx(t.dtype)
        axis = self.rng.randrange(t.ndim)
        a = f"ops.cumsum({self.sub(t, scope, depth)}, {axis})"
        other = t.with_shape(sub_shape(self.rng, t.shape))
        b = self.sub(other, scope, depth)
        if other.ndim:
            b = f"ops.cumsum({b}, {self.rng.randrange(other.ndim)})"
        return f"ops.cumsum({self.rng.choice(_LONE).format(a, b)}, {axis})"

    def _f_matmul(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """Products of every rank: ``ops.matmul``, ``bmm`` and ``MatMul`` (either operand
        stored transposed: a weight gradient's ``x.T @ dy``); attention's ``BatchMatMul``
        over two stack axes, one operand transposed; ``ops.dense`` with a bias (added by
        the product's parts on the numba and native targets)."""
        if t.dtype == "bool" or t.ndim > 4:
            return None
        self.note_approx(t.dtype)
        k = self.rng.randint(1, 3)
        rng = self.rng
        lo, hi = ("-100.0", "100.0") if t.floating else ("-1000", "1000")
        if t.ndim == 4 or (t.ndim == 2 and t.floating and rng.random() < 0.3):
            return f"ops.clip_by_value({self._stacked_or_dense(t, k, scope, depth)}, {lo}, {hi})"
        ta = tb = None
        if t.ndim == 0:
            a, b = t.with_shape((k,)), t.with_shape((k,))
        elif t.ndim == 1:
            a, b = t.with_shape((k,)), t.with_shape((k, t.shape[0]))
        elif t.ndim == 2:
            a, b = t.with_shape((t.shape[0], k)), t.with_shape((k, t.shape[1]))
            if rng.random() < 0.3:  # MatMul, each operand perhaps stored transposed
                ta, tb = rng.random() < 0.5, rng.random() < 0.5
                a = t.with_shape((k, t.shape[0])) if ta else a
                b = t.with_shape((t.shape[1], k)) if tb else b
        else:
            a = t.with_shape((t.shape[0], t.shape[1], k))
            b = t.with_shape((t.shape[0], k, t.shape[2]))
        x, y = self.sub(a, scope, depth), self.sub(b, scope, depth)
        if t.integral:
            x, y = f"ops.clip_by_value({x}, -9, 9)", f"ops.clip_by_value({y}, -9, 9)"
        call = f"ops.matmul({x}, {y})"
        if t.ndim == 3 and rng.random() < 0.5:
            call = f"ops.bmm({x}, {y})"
        elif ta is not None:
            call = f"ops.MatMul(transpose_a={ta}, transpose_b={tb})({x}, {y})"
        return f"ops.clip_by_value({call}, {lo}, {hi})"

    def _f_by_weight(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """A product by a 2-d float32 Parameter read where it lies, as a layer multiplies
        by its weights (the native target's packed kernel): ``ops.dense(x, W, b)``,
        ``x @ W`` or ``W @ x``; None where no Parameter's shape fits ``t``."""
        if t.ndim != 2 or t.dtype != "float32":
            return None
        (m, n), forms = t.shape, []
        for w in scope:
            if isinstance(w.type, TT) and w.type.dtype == "float32" and w.type.ndim == 2 \
                    and re.fullmatch(r"self\.(p\d+|w)", w.name):
                rows, cols = w.type.shape
                forms += [(form, w.name, rows, cols) for form, fits in
                          (("dense", rows == n), ("right", cols == n), ("left", rows == m)) if fits]
        if self.frame.kind == "construct" and (not forms or self.rng.random() < 0.5):
            form, k = self.rng.choice(("dense", "right", "left")), self.rng.randint(1, 5)
            rows, cols = {"dense": (n, k), "right": (k, n), "left": (m, k)}[form]
            w = f"self.d{len(self.net_init)}"  # (a Parameter of its own, made for this)
            value = literal_source(array_literal(self.rng, TT("float32", (rows, cols))))
            self.net_init.append(f"{w} = Parameter(Tensor({value}), name='{w[5:]}')")
            forms = [(form, w, rows, cols)]
        if not forms:
            return None
        self.note_approx(t.dtype)
        form, w, rows, cols = self.rng.choice(forms)
        if form == "left":
            call = f"ops.matmul({w}, {self.sub(t.with_shape((cols, n)), scope, depth)})"
        else:
            x = self.sub(t.with_shape((m, cols if form == "dense" else rows)), scope, depth)
            call = f"ops.matmul({x}, {w})" if form == "right" else \
                f"ops.dense({x}, {w}, {self.sub(t.with_shape((n,)), scope, depth)})"
        return f"ops.clip_by_value({call}, -100.0, 100.0)"

    def _stacked_or_dense(self, t: TT, k: int, scope: list[Var], depth: int) -> str:
        """A 4-d ``t`` as ``BatchMatMul`` of stacks (``transpose_b`` at random, its operand
        then laid out transposed); a 2-d one as ``ops.dense(x, w, bias)``."""
        if t.ndim == 2:
            x = self.sub(t.with_shape((t.shape[0], k)), scope, depth)
            w = self.sub(t.with_shape((t.shape[1], k)), scope, depth)
            return f"ops.dense({x}, {w}, {self.sub(t.with_shape((t.shape[1],)), scope, depth)})"
        s0, s1, m, n = t.shape
        turned = self.rng.random() < 0.5
        x = self.sub(t.with_shape((s0, s1, m, k)), scope, depth)
        y = self.sub(t.with_shape((s0, s1, n, k) if turned else (s0, s1, k, n)), scope, depth)
        if t.integral:
            x, y = f"ops.clip_by_value({x}, -9, 9)", f"ops.clip_by_value({y}, -9, 9)"
        return f"ops.BatchMatMul(transpose_b={turned})({x}, {y})"

    def _f_pool(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """Max or average pooling of 1 to 3 spatial dims whose windows give ``t``'s
        elements, reshaped to ``t``: kernel 1-3, stride 1-3, pad modes 'valid', 'same' and
        'pad' (up to half the kernel), ``ceil_mode``, dilation (max pooling),
        ``count_include_pad`` and ``divisor_override`` (average pooling), through the
        functional forms and the primitive classes."""
        if t.dtype not in ("float32", "float64") or t.ndim == 0:
            return None
        rng = self.rng
        nd = rng.choice((1, 2, 2, 3))
        if t.ndim > nd + 2:
            out = (math.prod(t.shape[:t.ndim - nd - 1]),) + t.shape[t.ndim - nd - 1:]
        else:
            out = (1,) * (nd + 2 - t.ndim) + t.shape
        if rng.random() < 0.25:
            return self._adaptive_pool(t, out, nd, scope, depth)
        form = rng.choice(_POOL_FORMS[nd])
        k, s = rng.randint(1, 3), rng.randint(1, 3)
        dil = rng.choice((1, 1, 2)) if form in ("max_pool2d", "max_pool3d", "MaxPool2d") else 1
        mode = "pad" if form in _PAD_ONLY else rng.choice(("valid", "same", "pad"))
        if form in ("MaxPool", "AvgPool") and mode == "pad":
            mode = "same"
        p = rng.randint(0, k // 2) if mode == "pad" else 0  # MindSpore's bound, not dil's
        ceil = mode == "pad" and rng.random() < 0.4
        spatial = []
        for o in out[2:]:
            sizes = [n for n in range(1, o * s + dil * k + 2)
                     if _pooled_size(n, k, s, dil, mode, p, ceil) == o]
            if not sizes:
                return None
            spatial.append(rng.choice(sizes))
        self.note_approx(t.dtype)
        x = self.sub(t.with_shape(out[:2] + tuple(spatial)), scope, depth)
        include, div = rng.random() < 0.5, rng.choice((0, 0, 2, 5))
        indices = rng.random() < 0.3  # return_indices: the values are item 0
        cell_mode = "pad" if mode == "pad" else mode
        call = {
            "MaxPool1d": f"nn.MaxPool1d({k}, {s}, {cell_mode!r}, {p}, ceil_mode={ceil})({x})",
            "AvgPool1d": f"nn.AvgPool1d({k}, {s}, {cell_mode!r}, {p}, {ceil}, {include})({x})",
            "MaxPool2d": f"nn.MaxPool2d({k}, {s}, {cell_mode!r}, {p}, {dil}, {indices}, "
                         f"{ceil})({x})" + ("[0]" if indices else ""),
            "AvgPool2d": f"nn.AvgPool2d({k}, {s}, {cell_mode!r}, {p}, {ceil}, {include}, "
                         f"{div or None})({x})",
            "AvgPool3d": f"nn.AvgPool3d({k}, {s}, {cell_mode!r}, {p}, {ceil}, {include}, "
                         f"{div or None})({x})",
            "max_pool2d": f"ops.max_pool2d({x}, {k}, {s}, {p}, {dil}, {indices}, {ceil})" +
                          ("[0]" if indices else ""),
            "max_pool3d": f"ops.max_pool3d({x}, {k}, {s}, {p}, {dil}, {ceil})",
            "MaxPool": f"ops.MaxPool({k}, {s}, {mode!r})({x})",
            "MaxPool3D": f"ops.MaxPool3D({k}, {s}, {mode!r}, {p}, {ceil})({x})",
            "avg_pool1d": f"ops.avg_pool1d({x}, {k}, {s}, {p}, {ceil}, {include})",
            "avg_pool2d": f"ops.avg_pool2d({x}, {k}, {s}, {p}, {ceil}, {include}, {div})",
            "avg_pool3d": f"ops.avg_pool3d({x}, {k}, {s}, {p}, {ceil}, {include}, {div})",
            "AvgPool": f"ops.AvgPool({k}, {s}, {mode!r})({x})",
            "AvgPool3D": f"ops.AvgPool3D({k}, {s}, {mode!r}, {p}, {ceil}, {include}, "
                         f"{div})({x})",
        }[form]
        return f"ops.reshape({call}, {t.shape!r})"

    def _adaptive_pool(self, t: TT, out: tuple[int, ...], nd: int, scope: list[Var],
                       depth: int) -> str | None:
        """Adaptive average or max pooling to ``out``'s spatial sizes from inputs as large
        or up to twice as large (windows that overlap, tile, or do not divide)."""
        rng = self.rng
        form = rng.choice(_ADAPTIVE_FORMS[nd])
        if form == "AdaptiveAvgPool1d":  # MindSpore's takes sizes that divide the length
            spatial = (out[2] * rng.randint(1, 3),)
        else:
            spatial = tuple(o + rng.randint(0, o + 1) for o in out[2:])
        x = self.sub(t.with_shape(out[:2] + spatial), scope, depth)
        size = out[2] if nd == 1 else tuple(out[2:])
        call = {"AdaptiveAvgPool1d": f"nn.AdaptiveAvgPool1d({size})({x})",
                "adaptive_avg_pool2d": f"ops.adaptive_avg_pool2d({x}, {size})",
                "adaptive_max_pool2d": f"ops.adaptive_max_pool2d({x}, {size})",
                "AdaptiveMaxPool2D": f"ops.AdaptiveMaxPool2D({size})({x})[0]",
                "adaptive_avg_pool3d": f"ops.adaptive_avg_pool3d({x}, {size})",
                "adaptive_max_pool3d": f"ops.adaptive_max_pool3d({x}, {size})"}[form]
        self.note_approx(t.dtype)
        return f"ops.reshape({call}, {t.shape!r})"

    def _f_ctc(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """A CTC loss of (T, N, C) values, per sequence for a vector ``t``, reduced for a
        scalar: ``ops.ctc_loss`` of their log_softmax (padded targets, blank 0 or the last
        class) or ``ops.CTCLoss`` of them as logits (sparse labels, blank last). Labels
        never repeat in a row and fit their sequence, so every loss is finite."""
        if t.dtype not in ("float32", "float64") or t.ndim > 1 or t.ndim and t.size > 4:
            return None
        rng = self.rng
        n = t.size if t.ndim else rng.randint(1, 3)
        steps, classes, width = rng.randint(2, 6), rng.randint(3, 5), rng.randint(1, 3)
        sparse = t.dtype == "float32" and rng.random() < 0.4
        blank = classes - 1 if sparse or rng.random() < 0.5 else 0
        labels = [c for c in range(classes) if c != blank]
        seq = [rng.randint(1, steps) for _ in range(n)]
        rows: list[list[int]] = []
        for b in range(n):
            row: list[int] = []
            for _ in range(rng.randint(0, min(width, seq[b]))):
                row.append(rng.choice([c for c in labels if not row or c != row[-1]]))
            rows.append(row)
        x = self.sub(t.with_shape((steps, n, classes)), scope, depth)
        ints = "np.int32"
        if sparse:
            idx = [[b, i] for b, row in enumerate(rows) for i in range(len(row))]
            values = [c for row in rows for c in row]
            call = (f"ops.CTCLoss()({x}, Tensor(np.array({idx!r}, np.int64).reshape(-1, 2)), "
                    f"Tensor(np.array({values!r}, {ints})), "
                    f"Tensor(np.array({seq!r}, {ints})))[0]")
            return call if t.ndim else f"ops.sum({call})"
        padded = [row + [labels[0]] * (width - len(row)) for row in rows]
        reduction = "'none'" if t.ndim else rng.choice(("'mean'", "'sum'"))
        return (f"ops.ctc_loss(ops.log_softmax({x}, -1), Tensor(np.array({padded!r}, {ints})), "
                f"Tensor(np.array({seq!r}, {ints})), "
                f"Tensor(np.array({[len(r) for r in rows]!r}, {ints})), {blank}, "
                f"{reduction})[0]")

    def _f_conv(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """The batch and spatial means of a 2-D convolution of 32 channels over about
        24x28 positions (kernel 3x3, 1x1, 3x2, 1x3, 5x5 or 7x7, stride 1-2, dilation 1-2,
        pad mode 'pad', 'same' or 'valid', 1 to 8 groups, with or without a bias,
        uneven padding, 1 to 3 examples): large enough for the numba target's products
        (im2col one example at a time or for the batch, 1x1 straight from the input,
        shifted taps). The input is tanh of (N, C, H) values times (W) values, the weight
        tanh of its own values over the taps' count, so every output is an average of
        bounded terms. Three in ten, where t's size divides 32, are a 3x3 convolution of
        stride 1 to 32 channels, which the numba target computes by Winograd's transforms
        (float32), each of t's elements the mean of a run of channels; half of those on
        7x7 to 13x13 inputs, where a batch of few tiles keeps the products' way, some on
        64 channels of 36x48 to 48x56, several blocks of tiles (on three threads, some
        left over after an even share). One in
        ten is a 7x7 convolution of stride 2 on a 40x40 to 48x48 map, whose im2col
        columns (1568 x 400 or more) go a chunk of output rows at a time."""
        if t.dtype not in ("float32", "float64") or not 0 < t.size <= 8:
            return None
        rng = self.rng
        kh, kw = rng.choice([(3, 3), (1, 1), (3, 2), (1, 3), (5, 5), (7, 7)])
        stride, dilation = rng.choice([1, 1, 2]), rng.choice([1, 1, 2])
        mode = rng.choice(["pad", "pad", "same", "valid"])
        stride = 1 if mode == "same" else stride  # (MindSpore's 'same' takes stride 1)
        pad = tuple(rng.randint(0, k // 2 + 1) for k in (kh, kh, kw, kw)) if mode == "pad" \
            else 0
        groups = rng.choice([g for g in (1, 1, 2, 4, 8) if t.size % g == 0])
        out, cin = t.size, 32
        h, w = rng.randint(20, 28), rng.randint(24, 34)
        if rng.random() < 0.3 and 32 % t.size == 0:  # the numba target's Winograd path
            (kh, kw), stride, dilation, groups, out = (3, 3), 1, 1, 1, 32
            pad = tuple(rng.randint(0, 1) for _ in range(4)) if mode == "pad" else 0
            if rng.random() < 0.5:  # (a small map: Winograd from enough tiles)
                h, w = rng.randint(7, 13), rng.randint(7, 13)
            elif rng.random() < 0.3:  # (several blocks of tiles, some left over on threads)
                cin, h, w = 64, rng.randint(36, 48), rng.randint(48, 56)
        elif rng.random() < 0.15:  # (im2col's columns over 1 MB: a chunk of rows at a time)
            (kh, kw), stride, dilation, groups, mode = (7, 7), 2, 1, 1, "pad"
            pad = tuple(rng.randint(0, 3) for _ in range(4))
            h, w = rng.randint(40, 48), rng.randint(40, 48)
        rows = self.sub(t.with_shape((rng.randint(1, 3), cin, h, 1)), scope, depth)
        cols = self.sub(t.with_shape((1, 1, 1, w)), scope, depth)
        weight = self.sub(t.with_shape((out, cin // groups, kh, kw)), scope, depth)
        bias = f"ops.tanh({self.sub(t.with_shape((out,)), scope, depth)})" \
            if rng.random() < 0.3 else "None"
        conv = (f"ops.conv2d(ops.tanh({rows} * {cols} + {cols}), "
                f"ops.tanh({weight}) * {groups / (cin * kh * kw)!r}, {bias}, stride={stride}, "
                f"pad_mode={mode!r}, padding={pad!r}, dilation={dilation}, groups={groups})")
        mean = f"ops.mean({conv}, (0, 2, 3))"
        if out != t.size:  # each of t's elements the mean of a run of out channels
            mean = f"ops.mean(ops.reshape({mean}, ({t.size}, {out // t.size})), 1)"
        return f"ops.reshape({mean}, {t.shape!r})"

    # --- tuples, calls ----------------------------------------------------------------------

    def _f_split(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """An item of ``ops.split``: a tuple of views of one array (along any axis, so
        strided where it is not the first), which the numba target's driver indexes and
        its foresight types. Rarely, a 0-d ``t`` split along axis 0: both modes must raise
        msc's ShapeError (the op has no dim to split)."""
        if t.ndim == 0 and t.dtype != "bool" and self.rng.random() < 0.05:
            return f"ops.split({self.sub(t, scope, depth)}, 1, 0)[0]"
        if t.ndim == 0 or min(t.shape) < 1:
            return None
        axis, parts = self.rng.randrange(t.ndim), self.rng.randint(2, 3)
        src = t.with_shape(t.shape[:axis] + (t.shape[axis] * parts,) + t.shape[axis + 1:])
        x = self.sub(src, scope, depth)
        return f"ops.split({x}, {t.shape[axis]}, {axis})[{self.rng.randrange(parts)}]"

    def _f_tuple_item(self, t: TT, scope: list[Var], depth: int) -> str | None:
        found = [(v.name, i) for v in scope if isinstance(v.type, Tup)
                 for i, item in enumerate(v.type.items) if item == t]
        if found and self.rng.random() < 0.8:
            name, i = self.rng.choice(found)
            n = len(next(v.type.items for v in scope if v.name == name))  # type: ignore
            return f"{name}[{i - n if self.rng.random() < 0.3 else i}]"
        other = self.sub(TT(self.rng.choice(self.dtypes), sub_shape(self.rng, t.shape)),
                         scope, depth)
        mine = self.sub(t, scope, depth)
        return f"({other}, {mine})[1]" if self.rng.random() < 0.5 else f"({mine}, {other})[0]"

    def _f_call(self, t: TT, scope: list[Var], depth: int) -> str | None:
        return self.call_form(t, scope, depth)

    def _f_subcell(self, t: TT, scope: list[Var], depth: int) -> str | None:
        return self.subcell_form(t, scope, depth)

    def _f_hypermap(self, t: TT, scope: list[Var], depth: int) -> str | None:
        return self.hypermap_form(t, scope, depth)

    def _f_vmap(self, t: TT, scope: list[Var], depth: int) -> str | None:
        return self.vmap_form(t, scope, depth)

    def _f_prim_class(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.floating:
            name = self.rng.choice(["Tanh", "Sin", "Abs", "Exp", "Sigmoid", "ReLU"])
            a = self.sub(t, scope, depth)
            if name == "Exp":
                a = f"ops.clip_by_value({a}, -4.0, 4.0)"
            return f"ops.{name}()({a})"
        if t.integral:
            a, b = self._two(t, scope, depth)
            return f"ops.{self.rng.choice(['Add', 'Sub', 'Maximum', 'Minimum'])}()({a}, {b})"
        return None

    # --- conditions -------------------------------------------------------------------------

    def condition(self, scope: list[Var], depth: int) -> str:
        """A tensor condition: one element, compared with a constant off the grid of the
        inputs' half-integers (an exact tie would make rounding decide)."""
        rng = self.rng
        r = rng.random()
        if r < 0.15:
            shape = rng.choice([(), (1,), (1, 1)])
            return self.expr(TT("bool", shape), scope, max(depth, 1))
        if r < 0.3:
            a = self.expr(TT("bool", rng.choice([(3,), (2, 3), (2,)])), scope, max(depth, 1))
            return f"{a}.{rng.choice(['any', 'all'])}()"
        d = TT(self.numeric_dtype(), rng.choice([(), (3,), (2, 3), (1,), (2, 1)]))
        value = self.expr(d, scope, max(depth, 1))
        self.note_approx(d.dtype)
        reduce = rng.choice(["sum", "max", "min", "mean"]) if d.ndim else \
            rng.choice(["sum", "max", ""])
        test = f"{value}.{reduce}()" if reduce else value
        c = rng.randint(-8, 8) + rng.choice([0.25, 0.75, 0.375])
        test = f"{test} {rng.choice(['>', '<', '>=', '<='])} {c}"
        if "boolop" in self.features and rng.random() < 0.25:
            other = self.condition(scope, depth - 1) if depth > 1 else \
                f"{self.expr(TT('float32', ()), scope, 1)} > 0.25"
            word = rng.choice(["and", "or"])
            test = f"({test}) {word} ({other})"
        elif "boolop" in self.features and rng.random() < 0.1:
            test = f"not ({test})"
        return test


__all__ = ["Exprs", "FLOATS"]

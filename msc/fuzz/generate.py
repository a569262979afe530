"""Random well-typed programs, written as the source text of a MindSpore-style module.

Every program has the same frame: state variables ``s0..sK`` of fixed dtypes and shapes
(made from the inputs at the top, returned at the bottom), which every construct may
rebind with a value of the same type, so tensor ``if``/``while`` merges, loop-carried
values and early ``return``s always agree on types; temporaries ``tN`` feed them.
The generator tracks each variable's dtype and shape and builds an expression of an
exact type (``Gen.expr``), choosing among the ops and Python forms MindSpore users write.
Values stay bounded (``clip``, ``tanh``, ``abs() + 1`` before ``log``/division) so a
disagreement is a real one, not float overflow in a different order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

#: Constructs the generator may use; ``--without`` removes some (``FEATURES - {...}``).
FEATURES = frozenset({"tensor-if", "const-if", "for", "while", "tensor-break", "return",
                      "raise", "parameter", "helper", "subcell", "lazy-inline", "hypermap",
                      "matmul", "shape-ops", "int", "bool", "float64", "float16",
                      "scalar-mix", "boolop", "item-assign"})

_DTYPES = {"float32": "ms.float32", "float64": "ms.float64", "float16": "ms.float16",
           "int32": "ms.int32", "int64": "ms.int64", "bool": "ms.bool_"}
_SHAPES = [(), (1,), (3,), (2, 3), (1, 3), (2, 1), (4, 1, 2)]


@dataclass
class Stmt:
    """One statement: its first lines and, for a compound one, its bodies (an ``if``'s
    second body renders after ``else:``)."""

    head: str
    bodies: list[list[Stmt]] = field(default_factory=list)
    keep: bool = False  # the shrinker never deletes it (a while loop's counter step)

    def lines(self, indent: int) -> list[str]:
        out = ["    " * indent + line for line in self.head.split("\n")]
        for i, body in enumerate(self.bodies):
            if i:
                out.append("    " * indent + "else:")
            out += [line for s in body for line in s.lines(indent + 1)] or \
                ["    " * (indent + 1) + "pass"]
        return out


@dataclass
class Program:
    """A generated module: ``Net``'s construct body, its inputs and Parameter values."""

    inputs: list[np.ndarray]
    params: list[np.ndarray]
    body: list[Stmt]
    features: frozenset[str]

    def source(self) -> str:
        args = ", ".join(f"x{i}" for i in range(len(self.inputs)))
        lazy = "    @lazy_inline\n" if "lazy-inline" in self.features else ""
        params = "".join(
            f"        self.p{i} = Parameter(Tensor(np.array({p.tolist()!r}, np.{p.dtype})), "
            f"name='p{i}')\n" for i, p in enumerate(self.params))
        body = "\n".join(line for s in self.body for line in s.lines(2))
        return f'''import numpy as np
import msc as ms
from msc import Parameter, Tensor, lazy_inline, nn, ops


def helper(a, b):
    return ops.tanh(a) * 0.5 + b


class Block(nn.Cell):
{lazy}    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def construct(self, a):
        return ops.sin(a) * self.scale - 0.25


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
{params}        self.block0 = Block(2.0)
        self.block1 = Block(0.5)
        self.hypermap = ops.HyperMap()

    def construct(self, {args}):
{body}
'''


@dataclass(frozen=True)
class Var:
    name: str
    dtype: str
    shape: tuple[int, ...]


class Gen:
    """Builds one program from ``rng``; ``features`` says which constructs it may use."""

    def __init__(self, rng: random.Random, features: frozenset[str]):
        self.rng, self.features = rng, features
        self.count = 0
        self.loop_depth = 0
        self.dtypes = ["float32"] + [d for d in ("float64", "float16") if d in features] + \
            ([] if "int" not in features else ["int32", "int64"]) + \
            (["bool"] if "bool" in features else [])

    # --- the program ----------------------------------------------------------------------

    def program(self) -> Program:
        rng = self.rng
        shape = rng.choice(_SHAPES)
        inputs = []
        scope: list[Var] = []
        for i in range(rng.randint(1, 3)):
            dtype = rng.choice(self.dtypes)
            s = self.sub_shape(shape)
            inputs.append(self.array(dtype, s))
            scope.append(Var(f"x{i}", dtype, s))
        self.params = [self.array("float32", shape)] if "parameter" in self.features else []
        params = [Var(f"self.p{i}", "float32", p.shape) for i, p in enumerate(self.params)]
        self.state = [Var(f"s{k}", rng.choice(self.dtypes), shape if k == 0 else
                          self.sub_shape(shape)) for k in range(rng.randint(1, 3))]
        body = [Stmt(f"{v.name} = {self.value(v.dtype, v.shape, scope + params, 1)}")
                for v in self.state]
        scope += self.state
        body += self.block(scope + params, rng.randint(2, 7), depth=0)
        body.append(Stmt(f"return {self.result()}"))
        return Program(inputs, self.params, body, self.features)

    def result(self) -> str:
        return "(" + ", ".join(v.name for v in self.state) + ",)"

    def array(self, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
        """Small values, half-integers for floats: most arithmetic on them is exact."""
        values = np.array([self.rng.randint(-6, 6) / 2 for _ in range(int(np.prod(shape)))])
        if dtype == "bool":
            return (values > 0).reshape(shape)
        return values.reshape(shape).astype(dtype)

    def sub_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """A shape that broadcasts to ``shape``."""
        r = self.rng.random()
        if r < 0.5:
            return shape
        if r < 0.7:
            return ()
        return tuple(1 if self.rng.random() < 0.5 else d for d in shape)

    # --- statements -----------------------------------------------------------------------

    def block(self, scope: list[Var], n: int, depth: int) -> list[Stmt]:
        scope = list(scope)
        out = []
        for _ in range(n):
            out.append(self.statement(scope, depth))
        return out

    def statement(self, scope: list[Var], depth: int) -> Stmt:
        rng, f = self.rng, self.features
        kinds = ["temp", "temp", "state", "state"]
        if depth < 2:
            kinds += [k for k, need in (("tensor-if", "tensor-if"), ("const-if", "const-if"),
                                        ("for", "for"), ("while", "while"))
                      if need in f]
        if self.params and "parameter" in f:
            kinds.append("assign")
        if "item-assign" in f:
            kinds.append("item")
        if self.loop_depth and "tensor-break" in f:
            kinds += ["jump", "jump"]
        if "return" in f and depth > 0:
            kinds.append("return")
        if "raise" in f and depth > 0:
            kinds.append("raise")
        kind = rng.choice(kinds)
        if kind == "temp":
            dtype, shape = rng.choice(self.dtypes), rng.choice(_SHAPES)
            v = Var(f"t{self.fresh()}", dtype, shape)
            stmt = Stmt(f"{v.name} = {self.value(dtype, shape, scope, 3)}")
            scope.append(v)
            return stmt
        if kind == "state":
            v = rng.choice(self.state)
            return Stmt(f"{v.name} = {self.value(v.dtype, v.shape, scope, 3)}")
        if kind == "item":
            v = rng.choice(self.state)
            if not v.shape:
                return Stmt(f"{v.name} = {self.expr(v.dtype, v.shape, scope, 2)}")
            i = rng.randrange(-v.shape[0], v.shape[0])
            return Stmt(f"{v.name}[{i}] = {self.expr(v.dtype, v.shape[1:], scope, 2)}")
        if kind == "assign":
            p = Var("self.p0", "float32", self.params[0].shape)
            value = self.expr("float32", p.shape, scope, 2)
            op = rng.choice(["ops.assign", "ops.assign_add"])
            if rng.random() < 0.5:
                s = self.state[0]
                return Stmt(f"{s.name} = ops.depend({s.name}, {op}(self.p0, "
                            f"ops.clip_by_value({value}, -50.0, 50.0)))")
            return Stmt(f"{op}(self.p0, ops.clip_by_value({value}, -50.0, 50.0))")
        if kind == "tensor-if":
            then = self.block(scope, rng.randint(1, 3), depth + 1)
            orelse = self.block(scope, rng.randint(0, 2), depth + 1)
            return Stmt(f"if {self.condition(scope)}:", [then, orelse] if orelse else [then])
        if kind == "const-if":
            test = rng.choice(["True", "False", "2 > 1", "len((1, 2)) == 3"])
            return Stmt(f"if {test}:", [self.block(scope, rng.randint(1, 2), depth + 1)])
        if kind == "for":
            self.loop_depth += 1
            i = f"i{self.fresh()}"
            inner = scope + [Var(i, "int", ())]
            body = self.block(inner, rng.randint(1, 3), depth + 1)
            self.loop_depth -= 1
            return Stmt(f"for {i} in range({rng.randint(1, 4)}):", [body])
        if kind == "while":
            self.loop_depth += 1
            c = f"c{self.fresh()}"
            body = [Stmt(f"{c} = {c} + 1", keep=True)] + \
                self.block(scope, rng.randint(1, 3), depth + 1)
            self.loop_depth -= 1
            bound = rng.randint(1, 4)
            test = f"{c} < {bound}" if rng.random() < 0.6 else \
                f"({c} < {bound}) and ({self.condition(scope)})"
            return Stmt(f"{c} = ops.zeros((), ms.int32)\nwhile {test}:", [body])
        if kind == "jump":
            word = rng.choice(["break", "continue"])
            return Stmt(f"if {self.condition(scope)}:", [[Stmt(word)]])
        if kind == "return":
            return Stmt(f"if {self.condition(scope)}:", [[Stmt(f"return {self.result()}")]])
        return Stmt(f"if {self.condition(scope)}:", [[Stmt("raise ValueError('too large')")]])

    def condition(self, scope: list[Var]) -> str:
        """A one-element bool tensor: a reduction compared with a constant."""
        rng = self.rng
        shape = rng.choice(_SHAPES)
        value = self.expr(rng.choice([d for d in self.dtypes if d != "bool"] or ["float32"]),
                          shape, scope, 2)
        reduce = rng.choice(["sum", "max", "min"])
        test = f"{value}.{reduce}() {rng.choice(['>', '<', '>=', '<='])} " \
            f"{rng.randint(-8, 8) + 0.25}"
        if "boolop" in self.features and rng.random() < 0.2:
            other = self.expr("float32", (), scope, 1)
            test = f"({test}) {rng.choice(['and', 'or'])} ({other} > 0.5)"
        return test

    def fresh(self) -> int:
        self.count += 1
        return self.count

    # --- expressions of an exact type ---------------------------------------------------------

    def value(self, dtype: str, shape: tuple[int, ...], scope: list[Var], depth: int) -> str:
        """An expression to bind to a variable: never another variable itself, whose
        tensor item assignment would then update in eager mode but not in a graph (a
        graph updates by rebinding, as MindSpore's does; README, differences)."""
        text = self.expr(dtype, shape, scope, depth)
        return f"ops.cast({text}, {_DTYPES[dtype]})" if text.isidentifier() else text

    def expr(self, dtype: str, shape: tuple[int, ...], scope: list[Var], depth: int) -> str:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.leaf(dtype, shape, scope)
        if dtype == "bool":
            return self.bool_expr(shape, scope, depth)
        floating = dtype.startswith("float")
        choices = ["unary", "binary", "binary", "reduce", "select", "scalar"]
        if "shape-ops" in self.features:
            choices += ["reshape", "index", "concat"]
        if floating and "matmul" in self.features and len(shape) == 2:
            choices.append("matmul")
        if floating and "helper" in self.features and dtype == "float32":
            choices.append("helper")
        if floating and "subcell" in self.features and dtype == "float32":
            choices.append("block")
        if floating and "hypermap" in self.features and dtype == "float32":
            choices.append("hypermap")
        kind = rng.choice(choices)
        sub = lambda d=dtype, s=shape: self.expr(d, s, scope, depth - 1)  # noqa: E731
        if kind == "unary":
            a = sub()
            if not floating:
                return rng.choice([f"(-{a})", f"ops.abs({a})", f"({a} % 5)", f"({a} // 3)"])
            return rng.choice([
                f"ops.tanh({a})", f"ops.sin({a})", f"ops.abs({a})", f"(-{a})", f"ops.relu({a})",
                f"ops.exp(ops.clip_by_value({a}, -4.0, 4.0))", f"ops.sqrt(ops.abs({a}) + 1.0)",
                f"ops.log(ops.abs({a}) + 1.0)", f"ops.sigmoid({a})", f"ops.floor({a})",
                f"ops.square(ops.clip_by_value({a}, -10.0, 10.0))",
            ])
        if kind == "binary":
            a, b = sub(), sub()
            if floating:
                return rng.choice([
                    f"({a} + {b})", f"({a} - {b})", f"ops.clip_by_value({a} * {b}, -100.0, 100.0)",
                    f"({a} / (ops.abs({b}) + 1.0))", f"ops.maximum({a}, {b})",
                    f"ops.minimum({a}, {b})"])
            return rng.choice([f"({a} + {b})", f"({a} - {b})",
                               f"ops.clip_by_value({a} * {b}, -1000, 1000)",
                               f"ops.maximum({a}, {b})"])
        if kind == "scalar" and "scalar-mix" in self.features:
            a = sub()
            k = rng.randint(-3, 3) + (0.5 if floating else 0)
            return rng.choice([f"({a} * {k})", f"({a} + {k})", f"({k} - {a})"])
        if kind == "reduce":
            axis = rng.randint(0, len(shape))
            source = shape[:axis] + (rng.randint(2, 3),) + shape[axis:]
            op = rng.choice(["sum", "max", "min"] + (["mean"] if floating else []))
            if dtype.startswith("int") and op == "sum":
                return f"ops.cast({self.expr(dtype, source, scope, depth - 1)}.sum(axis={axis})" \
                    f", ms.{dtype})"
            return f"{self.expr(dtype, source, scope, depth - 1)}.{op}(axis={axis})"
        if kind == "select":
            return f"ops.select({self.bool_expr(shape, scope, depth - 1)}, {sub()}, {sub()})"
        if kind == "reshape" and len(shape) >= 1:
            size = int(np.prod(shape))
            return f"ops.reshape({sub(dtype, (size,))}, {shape!r})"
        if kind == "index":
            n = rng.randint(2, 3)
            return f"{sub(dtype, (n,) + shape)}[{rng.randrange(-n, n)}]"
        if kind == "concat" and shape and shape[0] >= 2:
            k = rng.randint(1, shape[0] - 1)
            first, second = (k,) + shape[1:], (shape[0] - k,) + shape[1:]
            return f"ops.concat(({sub(dtype, first)}, {sub(dtype, second)}), 0)"
        if kind == "matmul":
            k = rng.randint(1, 3)
            a, b = sub(dtype, (shape[0], k)), sub(dtype, (k, shape[1]))
            return f"ops.clip_by_value(ops.matmul({a}, {b}), -100.0, 100.0)"
        if kind == "helper":
            return f"helper({sub()}, {sub()})"
        if kind == "block":
            return f"self.block{rng.randint(0, 1)}({sub()})"
        if kind == "hypermap":
            return f"self.hypermap(ops.tanh, ({sub()}, {sub()}))[{rng.randint(0, 1)}]"
        return self.leaf(dtype, shape, scope)

    def bool_expr(self, shape: tuple[int, ...], scope: list[Var], depth: int) -> str:
        rng = self.rng
        numeric = [d for d in self.dtypes if d != "bool"]
        d = rng.choice(numeric)
        a, b = self.expr(d, shape, scope, depth - 1), self.expr(d, shape, scope, depth - 1)
        test = f"({a} {rng.choice(['>', '<', '>=', '<=', '==', '!='])} {b})"
        if rng.random() < 0.3:
            other = self.expr("bool", shape, scope, depth - 1)
            test = rng.choice([f"ops.logical_and({test}, {other})",
                               f"ops.logical_or({test}, {other})",
                               f"ops.logical_not({test})"])
        return test

    def leaf(self, dtype: str, shape: tuple[int, ...], scope: list[Var]) -> str:
        """A variable of the type: broadcast, cast or reduced to it as needed."""
        rng = self.rng
        fits = [v for v in scope if v.dtype != "int" and _broadcasts(v.shape, shape)]
        if not fits:
            return f"ops.zeros({shape!r}, {_DTYPES[dtype]})"
        same = [v for v in fits if v.dtype == dtype]
        v = rng.choice(same if same and rng.random() < 0.8 else fits)
        # a Parameter is read by value: a variable bound to the Parameter itself would see
        # later writes in eager mode, but not once a tensor if merged it (docs/fuzzing.md)
        text = f"({v.name} * 1)" if v.name.startswith("self.") else v.name
        if v.dtype != dtype:
            text = f"ops.cast({text}, {_DTYPES[dtype]})"
        if v.shape != shape:
            text = f"ops.broadcast_to({text}, {shape!r})"
        return text


def _broadcasts(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    if len(src) > len(dst):
        return False
    return all(s in (1, d) for s, d in zip(reversed(src), reversed(dst)))


def generate(seed: int, features: frozenset[str] = FEATURES) -> Program:
    """The program of ``seed``: the same seed and features give the same program."""
    return Gen(random.Random(seed), features).program()

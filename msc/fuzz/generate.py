"""Random well-typed programs, written as the source text of a MindSpore-style module.

A program is a module with ``class Net(nn.Cell)`` (Parameters, sub-Cells, a HyperMap in
``__init__``; ``construct`` over input tensors), plus module-level helper functions and
sub-Cell classes created on demand. ``construct`` starts by binding *state* variables
``s0..sK`` (tensors of fixed types), maybe a tuple ``u0`` and a Python int ``n0``; every
construct may rebind them with values of the same type, so tensor ``if``/``while`` merges,
loop-carried values and early ``return``s always agree on types. Temporaries ``tN``
feed them and are never used outside the block that made them. ``generate(seed)`` is a
pure function of the seed and the features.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from msc.fuzz.exprs import Exprs
from msc.fuzz.grads import GradForms
from msc.fuzz.shapes import ShapeForms
from msc.fuzz.pyforms import PY_FEATURES, PyForms
from msc.fuzz.types import (MS_DTYPE, PYFLOAT, PYINT, SHAPES, TT, Tup, Var, array_literal,
                            literal_source, sub_shape)

#: Constructs the generator may use; ``--without`` removes some (``FEATURES - {...}``).
FEATURES = frozenset({
    "float64", "float16", "int", "bool", "scalar-mix", "promotion", "reduce", "shape-ops",
    "index", "matmul", "pool", "conv", "ctc", "tuple", "prim-class", "const-if", "tensor-if", "elif", "for",
    "for-tuple", "while", "const-while", "const-break", "tensor-break", "while-break",
    "return", "raise", "parameter", "item-assign", "aug-assign", "helper", "nested-def",
    "closure", "subcell", "lazy-inline", "hypermap", "boolop", "pyint", "builtins",
    "while-true", "vmap", "grad", "to-float",
}) | PY_FEATURES


@dataclass
class Stmt:
    """One statement: its first lines and, for a compound one, its bodies (rendered after
    ``heads[i]``: ``else:``, ``elif c:``)."""

    head: str
    bodies: list[list[Stmt]] = field(default_factory=list)
    heads: list[str] = field(default_factory=list)

    def lines(self, indent: int) -> list[str]:
        pad = "    " * indent
        out = [pad + line for line in self.head.split("\n")]
        for i, body in enumerate(self.bodies):
            if i:
                out.append(pad + (self.heads[i - 1] if i - 1 < len(self.heads) else "else:"))
            out += [line for s in body for line in s.lines(indent + 1)] or [pad + "    pass"]
        return out


@dataclass
class Program:
    """A generated module, the inputs of ``Net``'s construct, and whether float16 results
    went through a reduction or matmul (then compared to a tolerance, else exactly)."""

    source: str
    inputs: list[np.ndarray]
    approx_half: bool = False
    seed: int | None = None
    approx_grad: bool = False  # it takes gradients: compared to finite differences
    approx_wide: bool = False  # it widens float32 to float64: compared as float32


@dataclass
class Frame:
    """The function being generated: its rebindable variables, the text of its final
    ``return``, its loops (innermost last: "for", "while") and its ``self`` Parameters."""

    kind: str  # "construct", "helper", "nested", "cell"
    state: list[Var]
    ret: Callable[[list[Var]], str]
    params: list[Var] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)


@dataclass
class Callee:
    """A helper function, nested function or sub-Cell class made on demand."""

    name: str
    args: tuple[TT, ...]
    result: TT
    lines: list[str]
    instances: tuple[str, ...] = ()  # sub-Cells: the attributes of Net holding them
    to_float: bool = False  # sub-Cells: made with ``.to_float(ms.float16)``


class Gen(PyForms, Exprs, ShapeForms, GradForms):
    """Builds one program from ``rng``; ``features`` says which constructs it may use."""

    callee_type, stmt_type = Callee, Stmt

    def __init__(self, rng: random.Random, features: frozenset[str]):
        self.rng, self.features, self.recursive = rng, features, []
        self.dtypes = ["float32"] + [d for d in ("float64", "float16") if d in features] + \
            (["int32", "int64"] if "int" in features else []) + \
            (["bool"] if "bool" in features else [])
        self.approx_half = self.approx_wide = False
        self.count = 0
        self.helpers: list[Callee] = []
        self.nested: list[Callee] = []
        self.cells: list[Callee] = []
        self.limit = 10**9  # callees a body being generated may call (no recursion)
        self.frame: Frame | None = None
        self.net_init: list[str] = []
        self.init_phase = False

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def on(self, feature: str, p: float = 1.0) -> bool:
        return feature in self.features and self.rng.random() < p

    def tensor_type(self, shape: tuple[int, ...] | None = None) -> TT:
        return TT(self.rng.choice(self.dtypes), self.rng.choice(SHAPES) if shape is None
                  else shape)

    # --- the program -----------------------------------------------------------------------

    def program(self) -> Program:
        rng = self.rng
        base = rng.choice(SHAPES)
        inputs: list[np.ndarray] = []
        scope: list[Var] = []
        for i in range(rng.randint(1, 3)):
            t = TT(rng.choice(self.dtypes), sub_shape(rng, base))
            inputs.append(array_literal(rng, t))
            scope.append(Var(f"x{i}", t))
        params = self.parameters(base)
        state = [Var(f"s{k}", TT(rng.choice(self.dtypes), base if k == 0 else
                                 sub_shape(rng, base)), mutable=True)
                 for k in range(rng.randint(1, 3))]
        if self.on("tuple", 0.35):
            state.append(Var("u0", Tup((self.tensor_type(), self.tensor_type()))))
        if self.on("pyint", 0.3):
            state.append(Var("n0", PYINT))
        ret = self.return_form(state)
        self.frame = Frame("construct", state, lambda _scope: ret, params)
        self.init_phase = True  # nested functions are defined after these lines
        init = [Stmt(f"{v.name} = {self.init_value(v, scope + params)}") for v in state]
        self.init_phase = False
        scope = scope + params + state
        body = self.block(scope, rng.randint(3, 8), 0)
        body.append(Stmt(f"return {ret}"))
        lines = [line for s in init for line in s.lines(2)]
        lines += [line for c in self.nested for line in c.lines]
        lines += [line for s in body for line in s.lines(2)]
        args = ", ".join(f"x{i}" for i in range(len(inputs)))
        return Program(self.module_source(args, lines), inputs, self.approx_half,
                       approx_grad=self.approx_grad, approx_wide=self.approx_wide)

    def parameters(self, base: tuple[int, ...]) -> list[Var]:
        if not self.on("parameter", 0.6):
            return []
        out = []
        for i in range(self.rng.randint(1, 2)):
            t = TT("float32", base if i == 0 else self.rng.choice(SHAPES))
            self.net_init.append(f"self.p{i} = Parameter(Tensor("
                                 f"{literal_source(array_literal(self.rng, t))}), name='p{i}')")
            out.append(Var(f"self.p{i}", t))
        if self.on("int", 0.3):
            self.net_init.append("self.q0 = Parameter(Tensor(np.array(0, np.int32)), "
                                 "name='q0')")
            out.append(Var("self.q0", TT("int32", ())))
        return out

    def init_value(self, v: Var, scope: list[Var]) -> str:
        if v.type == PYINT:
            return str(self.rng.randint(0, 3))
        if isinstance(v.type, Tup):
            return "(" + ", ".join(self.fresh_value(t, scope, 2) for t in v.type.items) + ")"
        assert isinstance(v.type, TT)
        return self.fresh_value(v.type, scope, 2)

    def return_form(self, state: list[Var]) -> str:
        names = [v.name for v in state]
        if len(names) == 1 and self.rng.random() < 0.5:
            return names[0]
        if len(names) >= 3 and self.rng.random() < 0.4:
            return f"({names[0]}, ({', '.join(names[1:])}))"
        return "(" + ", ".join(names) + ",)"

    def module_source(self, args: str, construct: list[str]) -> str:
        head = ("import numpy as np\nimport msc as ms\n"
                "from msc import Parameter, Tensor, lazy_inline, nn, ops\n\nK = 2\n")
        parts = [head] + ["\n".join(c.lines) for c in self.helpers + self.cells]
        parts += self.py_prelude()
        init = [f"        {line}" for line in self.net_init + self.py_init()]
        for c in self.cells:
            amp = ".to_float(ms.float16)" if c.to_float else ""
            init += [f"        self.{name} = {c.name}({scale}){amp}"
                     for name, scale in zip(c.instances, ("2.0", "0.5", "-1.5"))]
        init.append("        self.flag = True")
        if "hypermap" in self.features:
            init.append("        self.hypermap = ops.HyperMap()")
        net = ["class Net(nn.Cell):", "    def __init__(self):", "        super().__init__()",
               *init, "", f"    def construct(self, {args}):", *construct]
        return "\n\n".join(parts + ["\n".join(net)]) + "\n"

    # --- statements -------------------------------------------------------------------------

    def block(self, scope: list[Var], n: int, depth: int) -> list[Stmt]:
        scope = list(scope)  # temporaries made here stay here
        return [self.statement(scope, depth) for _ in range(n)]

    def statement(self, scope: list[Var], depth: int) -> Stmt:
        frame = self.frame
        assert frame is not None
        kinds: dict[str, float] = {"temp": 3, "state": 4}
        f = self.features
        tensors = [v for v in frame.state if isinstance(v.type, TT)]
        if "aug-assign" in f and any(v.mutable and v.type.dtype != "bool"  # type: ignore
                                     for v in tensors):
            kinds["aug"] = 1
        if "item-assign" in f and any(v.mutable and v.type.ndim for v in tensors):  # type: ignore
            kinds["item"] = 1
        if "tuple" in f:
            kinds["tuple"] = 1
        if any(v.type == PYINT for v in frame.state):
            kinds["pyint"] = 0.7
        if frame.params:
            kinds["assign"] = 1.5
        if depth < 2:
            for k, w in (("tensor-if", 2), ("const-if", 0.7), ("for", 1.2), ("for-tuple", 0.5),
                         ("while", 0.8), ("const-while", 0.3)):
                if k in f:
                    kinds[k] = w
        if frame.loops:
            if "const-break" in f and frame.loops[-1].startswith("for:"):
                kinds["const-jump"] = 1
            if ("tensor-break" in f and frame.loops[-1].startswith("for")) or \
                    ("while-break" in f and frame.loops[-1] == "while"):
                kinds["jump"] = 1.5
        if depth > 0 and "return" in f:
            kinds["return"] = 0.6
        if "raise" in f:
            kinds["raise"] = 0.2
        if "grad" in f and "float64" in f and frame.kind == "construct" and depth < 2:
            kinds["grad"] = 1.0  # a state updated by a gradient call (``grads.py``)
        kinds.update(self.py_kinds(depth))
        kind = self.rng.choices(list(kinds), list(kinds.values()))[0]
        return getattr(self, "_s_" + kind.replace("-", "_"))(scope, depth)

    def _s_temp(self, scope: list[Var], depth: int) -> Stmt:
        t = self.tensor_type()
        v = Var(self.fresh("t"), t)
        text = self.expr(t, scope, 3)
        scope.append(v)
        return Stmt(f"{v.name} = {text}")

    def _state(self, pred: Callable[[Var], bool]) -> Var | None:
        assert self.frame is not None
        found = [v for v in self.frame.state if pred(v)]
        return self.rng.choice(found) if found else None

    def _s_state(self, scope: list[Var], depth: int) -> Stmt:
        v = self._state(lambda v: True)
        assert v is not None
        if v.type == PYINT:
            return self._s_pyint(scope, depth)
        if isinstance(v.type, Tup):
            items = ", ".join(self.fresh_value(t, scope, 2) for t in v.type.items)
            if len(set(v.type.items)) == 1 and self.rng.random() < 0.4:
                items = f"{v.name}[1], {v.name}[0]"
            return Stmt(f"{v.name} = ({items})")
        assert isinstance(v.type, TT)
        return Stmt(f"{v.name} = {self.fresh_value(v.type, scope, 3)}")

    def _s_aug(self, scope: list[Var], depth: int) -> Stmt:
        v = self._state(lambda v: v.mutable and isinstance(v.type, TT) and v.type.dtype != "bool")
        assert v is not None and isinstance(v.type, TT)
        t = v.type.with_shape(sub_shape(self.rng, v.type.shape))
        e = self.expr(t, scope, 2)
        e = f"ops.tanh({e})" if t.floating else f"ops.clip_by_value({e}, -3, 3)"
        return Stmt(f"{v.name} {self.rng.choice(['+=', '-='])} {e}")

    def _s_item(self, scope: list[Var], depth: int) -> Stmt:
        v = self._state(lambda v: v.mutable and isinstance(v.type, TT) and v.type.ndim > 0)
        assert v is not None and isinstance(v.type, TT)
        shape, rng = v.type.shape, self.rng
        kind = rng.choice(["int", "slice", "col", "ellipsis", "tensor"])
        if kind == "tensor":  # an integer tensor index, checked at run time
            key, rest = f"Tensor({rng.randrange(-shape[0], shape[0])}, ms.int32)", shape[1:]
        elif kind == "slice":
            start = rng.randrange(shape[0])
            key, rest = f"{start}:", (shape[0] - start,) + shape[1:]
        elif kind == "col" and len(shape) >= 2:
            key, rest = f":, {rng.randrange(-shape[1], shape[1])}", (shape[0],) + shape[2:]
        elif kind == "ellipsis":
            key, rest = "...", shape
        else:
            key, rest = str(rng.randrange(-shape[0], shape[0])), shape[1:]
        if rng.random() < 0.3:
            value = self.scalar(v.type)
        else:
            sub = sub_shape(rng, rest)
            if rest and rng.random() < 0.15:  # numpy drops a value's extra leading 1-dims
                sub = (1,) + sub
            value = self.expr(v.type.with_shape(sub), scope, 2)
        return Stmt(f"{v.name}[{key}] = {value}")

    def _s_tuple(self, scope: list[Var], depth: int) -> Stmt:
        items = tuple(self.tensor_type() for _ in range(self.rng.randint(2, 3)))
        if self.rng.random() < 0.5:  # unpack into temporaries
            names = [self.fresh("t") for _ in items]
            values = [self.expr(t, scope, 2) for t in items]
            source = "(" + ", ".join(values) + ")" if self.rng.random() < 0.5 else \
                ", ".join(values)
            scope += [Var(n, t) for n, t in zip(names, items)]
            return Stmt(f"{', '.join(names)} = {source}")
        v = Var(self.fresh("t"), Tup(items))
        text = "(" + ", ".join(self.fresh_value(t, scope, 2) for t in items) + ")"
        scope.append(v)
        return Stmt(f"{v.name} = {text}")

    def _s_pyint(self, scope: list[Var], depth: int) -> Stmt:
        ints = [v.name for v in scope if v.type == PYINT and v.name != "n0"]
        step = self.rng.choice(ints + ["1", "2"])
        return Stmt(f"n0 = (n0 + {step}) % 5")

    def _s_assign(self, scope: list[Var], depth: int) -> Stmt:
        assert self.frame is not None
        p = self.rng.choice(self.frame.params)
        assert isinstance(p.type, TT)
        rng = self.rng
        if p.type.dtype == "int32":
            return Stmt(rng.choice([f"ops.assign_add({p.name}, 1)",
                                    f"ops.assign_add({p.name}, ops.ones((), ms.int32))"]))
        if p.type.shape and rng.random() < 0.2:
            value = self.expr(p.type.with_shape(sub_shape(rng, p.type.shape[1:])), scope, 2)
            return Stmt(f"{p.name}[{rng.randrange(p.type.shape[0])}] = "
                        f"ops.clip_by_value({value}, -50.0, 50.0)")
        value = self.expr(p.type.with_shape(sub_shape(rng, p.type.shape)), scope, 2)
        value = f"ops.clip_by_value({value}, -50.0, 50.0)"
        op = rng.choice(["ops.assign", "ops.assign_add", "ops.assign_sub",
                         "ops.AssignAdd()", "ops.Assign()"])
        if rng.random() < 0.25:  # the value named and read again after its write (an
            t = Var(self.fresh("t"), p.type)  # optimizer's moment, read by the update)
            value = f"ops.clip_by_value({self.expr(p.type, scope, 2)}, -50.0, 50.0)"
            scope.append(t)
            if rng.random() < 0.5:  # every read first, then the writes (an optimizer's
                u = Var(self.fresh("t"), p.type)  # step: the update reads the moment)
                scope.append(u)
                same = [q for q in self.frame.params if q is not p and q.type == p.type]
                q = rng.choice(same) if same else p
                update = f"ops.clip_by_value({p.name} - {t.name} * 0.5, -50.0, 50.0)"
                return Stmt(f"{t.name} = {value}\n{u.name} = {update}\n"
                            f"{op}({p.name}, {t.name})\nops.assign({q.name}, {u.name})")
            return Stmt(f"{t.name} = {value}\n{op}({p.name}, {t.name})")
        write = f"{op}({p.name}, {value})"
        s = self._state(lambda v: isinstance(v.type, TT))
        if s is not None and rng.random() < 0.5:
            return Stmt(f"{s.name} = ops.depend({s.name}, {write})")
        return Stmt(write)

    def _s_tensor_if(self, scope: list[Var], depth: int) -> Stmt:
        bodies = [self.block(scope, self.rng.randint(1, 3), depth + 1)]
        heads = []
        while self.on("elif", 0.3) and len(bodies) < 3:
            heads.append(f"elif {self.condition(scope, 2)}:")
            bodies.append(self.block(scope, self.rng.randint(1, 2), depth + 1))
        if self.rng.random() < 0.6:
            heads.append("else:")
            bodies.append(self.block(scope, self.rng.randint(1, 2), depth + 1))
        return Stmt(f"if {self.condition(scope, 2)}:", bodies, heads)

    def _s_const_if(self, scope: list[Var], depth: int) -> Stmt:
        tests = ["True", "False", "K > 1", "K == 3"]
        if self.frame is not None and self.frame.kind == "construct":
            tests += ["self.flag", "not self.flag"]
        tensors = [v for v in scope if isinstance(v.type, TT)]
        if tensors:
            v = self.rng.choice(tensors)
            tests += [f"{v.name}.ndim > 1", f"{v.name}.shape == {v.type.shape!r}"]  # type: ignore
        bodies = [self.block(scope, self.rng.randint(1, 2), depth + 1)]
        heads = []
        if self.on("elif", 0.3):
            heads.append(f"elif {self.rng.choice(tests)}:")
            bodies.append(self.block(scope, 1, depth + 1))
        if self.rng.random() < 0.4:
            heads.append("else:")
            bodies.append(self.block(scope, 1, depth + 1))
        return Stmt(f"if {self.rng.choice(tests)}:", bodies, heads)

    def _loop(self, kind: str, scope: list[Var], depth: int, n: int) -> list[Stmt]:
        assert self.frame is not None
        self.frame.loops.append(kind)
        try:
            return self.block(scope, n, depth + 1)
        finally:
            self.frame.loops.pop()

    def _s_for(self, scope: list[Var], depth: int) -> Stmt:
        i = self.fresh("i")
        n = self.rng.randint(1, 4)
        body = self._loop(f"for:{i}:{n}", scope + [Var(i, PYINT)], depth, self.rng.randint(1, 3))
        rng = f"range({n})" if self.rng.random() < 0.7 else f"range(1, {n + 1})"
        return Stmt(f"for {i} in {rng}:", [body])

    def _s_for_tuple(self, scope: list[Var], depth: int) -> Stmt:
        t = self.tensor_type()
        v = self.fresh("v")
        items = ", ".join(self.fresh_value(t, scope, 2) for _ in range(self.rng.randint(1, 3)))
        body = self._loop("for", scope + [Var(v, t)], depth, self.rng.randint(1, 3))
        return Stmt(f"for {v} in ({items},):", [body])

    def _s_while(self, scope: list[Var], depth: int) -> Stmt:
        c = self.fresh("c")
        bound = self.rng.randint(1, 4)
        # the counter steps first, so a ``continue`` never skips it
        body = [Stmt(f"{c} = {c} + 1")] + self._loop("while", scope, depth,
                                                     self.rng.randint(1, 3))
        test = f"{c} < {bound}"
        if self.rng.random() < 0.4:
            test = f"({test}) and ({self.condition(scope, 2)})"
        init = self.rng.choice(["ops.zeros((), ms.int32)", "Tensor(0, ms.int32)",
                                "ops.zeros((), ms.int64)"])
        if "while-true" in self.features and self.rng.random() < 0.3:
            # ``while True`` left by a tensor break right after the counter steps
            body.insert(1, Stmt(f"if not ({test}):", [[Stmt("break")]]))
            return Stmt(f"{c} = {init}\nwhile True:", [body])
        return Stmt(f"{c} = {init}\nwhile {test}:", [body])

    def _s_const_while(self, scope: list[Var], depth: int) -> Stmt:
        k = self.fresh("k")
        body = [Stmt(f"{k} = {k} + 1")] + self._loop("const-while", scope + [Var(k, PYINT)],
                                                     depth, self.rng.randint(1, 2))
        return Stmt(f"{k} = 0\nwhile {k} < {self.rng.randint(1, 3)}:", [body])

    def _s_const_jump(self, scope: list[Var], depth: int) -> Stmt:
        assert self.frame is not None
        _, i, n = self.frame.loops[-1].split(":")
        word = self.rng.choice(["break", "continue"])
        return Stmt(f"if {i} {self.rng.choice(['==', '>=', '<'])} {self.rng.randrange(int(n))}:",
                    [[Stmt(word)]])

    def _s_jump(self, scope: list[Var], depth: int) -> Stmt:
        word = self.rng.choice(["break", "continue"])
        return Stmt(f"if {self.condition(scope, 2)}:", [[Stmt(word)]])

    def _s_return(self, scope: list[Var], depth: int) -> Stmt:
        assert self.frame is not None
        return Stmt(f"if {self.condition(scope, 2)}:",
                    [[Stmt(f"return {self.frame.ret(scope)}")]])

    def _s_raise(self, scope: list[Var], depth: int) -> Stmt:
        cond = self.condition(scope, 2)
        if self.rng.random() < 0.3:
            return Stmt(f"assert not ({cond}), 'fuzz assertion'")
        kind = self.rng.choice(["ValueError", "RuntimeError", "TypeError"])
        return Stmt(f"if {cond}:", [[Stmt(f"raise {kind}('fuzz: {kind}')")]])

    # --- helpers, nested functions, sub-Cells, HyperMap ---------------------------------------

    def callee_body(self, kind: str, args: list[Var], result: TT, extra: list[Var]
                    ) -> list[Stmt]:
        """The body of a helper/nested function/sub-Cell construct: a local ``h`` bound
        first, a few statements, ``return h`` (early returns give a fresh value)."""
        outer = self.frame
        h = Var(self.fresh("h"), result, mutable=True)
        scope = args + extra
        self.frame = Frame(kind, [h], lambda sc: self.fresh_value(result, sc, 2),
                           [v for v in extra if v.name.startswith("self.w")])
        try:
            body = [Stmt(f"{h.name} = {self.fresh_value(result, scope, 2)}")]
            body += self.block(scope + [h], self.rng.randint(0, 3), 1)
            body.append(Stmt(f"return {h.name}"))
        finally:
            self.frame = outer
        return body

    def call_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        assert self.frame is not None
        nested_ok = self.frame.kind == "construct" and "nested-def" in self.features and \
            not self.init_phase
        pool = [c for c in self.helpers[:self.limit] if c.result == t]
        if nested_ok:
            pool += [c for c in self.nested if c.result == t]
        if not pool or (self.rng.random() < 0.3 and len(self.helpers) + len(self.nested) < 4):
            made = self.new_callee(t, nested_ok and self.rng.random() < 0.4)
            if made is None:
                return None
            pool = [made]
        c = self.rng.choice(pool)
        return f"{c.name}({', '.join(self.sub(a, scope, depth) for a in c.args)})"

    def new_callee(self, t: TT, nested: bool) -> Callee | None:
        if self.limit < len(self.helpers):
            return None
        args = [Var("a", t if self.rng.random() < 0.6 else self.tensor_type())]
        if self.rng.random() < 0.5:
            args.append(Var("b", self.tensor_type()))
        extra: list[Var] = []
        if nested and "closure" in self.features and self.frame is not None:
            extra = [v for v in self.frame.state if isinstance(v.type, TT)][:1]
        saved, self.limit = self.limit, len(self.helpers)
        try:
            body = self.callee_body("nested" if nested else "helper", args, t, extra)
        finally:
            self.limit = saved
        name = self.fresh("inner" if nested else "helper")
        indent = 2 if nested else 0
        lines = ["    " * indent + f"def {name}({', '.join(a.name for a in args)}):"]
        lines += [line for s in body for line in s.lines(indent + 1)]
        c = Callee(name, tuple(a.type for a in args), t, lines)  # type: ignore[misc]
        (self.nested if nested else self.helpers).append(c)
        return c

    def subcell_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        found = [c for c in self.cells if c.result == t]
        if not found:
            if len(self.cells) >= 2 or not t.floating or self.frame is None \
                    or self.frame.kind != "construct":
                return None
            found = [self.new_cell(t)]
        if self.frame is None or self.frame.kind != "construct":
            return None
        c = self.rng.choice(found)
        return f"self.{self.rng.choice(c.instances)}({self.sub(c.args[0], scope, depth)})"

    def new_cell(self, t: TT) -> Callee:
        name = f"Sub{len(self.cells)}"
        arg = Var("a", t if self.rng.random() < 0.7 else self.tensor_type())
        extra = [Var("scale_t", t), Var("self.scale", PYFLOAT)]
        init = ["        super().__init__()", "        self.scale = scale"]
        if self.on("parameter", 0.5):
            w = TT("float32", sub_shape(self.rng, t.shape))
            init.append(f"        self.w = Parameter(Tensor({literal_source(array_literal(self.rng, w))}"
                        "), name='w')")
            extra.append(Var("self.w", w))
        saved, self.limit = self.limit, len(self.helpers)
        try:
            body = self.callee_body("cell", [arg], t, extra)
        finally:
            self.limit = saved
        lazy = ["    @lazy_inline"] if self.on("lazy-inline", 0.6) else []
        lines = [f"class {name}(nn.Cell):", *lazy, "    def __init__(self, scale):", *init, "",
                 "    def construct(self, a):",
                 f"        scale_t = ops.full({t.shape!r}, self.scale, "
                 f"dtype={MS_DTYPE[t.dtype]})"]
        lines += [line for s in body for line in s.lines(2)]
        n = self.rng.randint(1, 3)
        instances = tuple(f"{name.lower()}_{i}" for i in range(n))
        # a float16 cell run with to_float(float16) still returns float16: its float32
        # weights and temporaries are cast at each op (mixed precision, amp_scope.py)
        amp = t.dtype == arg.type.dtype == "float16" and self.on("to-float", 0.5)  # type: ignore
        c = Callee(name, (arg.type,), t, lines, instances, amp)  # type: ignore[arg-type]
        self.cells.append(c)
        return c

    def hypermap_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if self.frame is None or self.frame.kind != "construct":
            return None
        rng = self.rng
        other = TT(t.dtype, sub_shape(rng, t.shape)) if rng.random() < 0.5 else t
        k = rng.randint(0, 1)
        items = [t, other] if k == 0 else [other, t]
        if rng.random() < 0.5 and t.dtype != "bool":
            fn = rng.choice(["ops.tanh", "ops.sin", "ops.sigmoid"] if t.floating
                            else ["ops.abs", "ops.neg"])
            if rng.random() < 0.3 and t.floating:
                fn = "ops.partial(ops.mul, 0.5)"
            first = ", ".join(self.sub(i, scope, depth) for i in items)
            return f"self.hypermap({fn}, ({first}))[{k}]"
        if t.dtype == "bool":
            return None
        a = ", ".join(self.sub(i, scope, depth) for i in items)
        b = ", ".join(self.sub(i, scope, depth) for i in items)
        fn = rng.choice(["ops.add", "ops.maximum", "ops.minimum"])
        return f"self.hypermap({fn}, ({a}), ({b}))[{k}]"

    def vmap_form(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """``ops.vmap`` of a new helper whose result is ``t`` without its axis ``o``: the
        first argument batched, the others batched or shared, axes at random positions
        (negative ones too). Eager mode runs the helper example by example instead
        (``run.loop_vmap``), an independent reference for the batching transform."""
        if not t.shape or self.frame is None or self.init_phase:
            return None
        rng = self.rng
        o = rng.randrange(len(t.shape))
        size = t.shape[o]
        callee = self.new_callee(TT(t.dtype, t.shape[:o] + t.shape[o + 1:]), nested=False)
        if callee is None:
            return None
        axes, args = [], []
        for i, a in enumerate(callee.args):
            if i and rng.random() < 0.4:
                axes.append("None")
                args.append(self.sub(a, scope, depth))
                continue
            d = rng.randint(0, len(a.shape))
            args.append(self.sub(TT(a.dtype, a.shape[:d] + (size,) + a.shape[d:]), scope, depth))
            axes.append(str(d - len(a.shape) - 1 if rng.random() < 0.3 else d))
        out = o - len(t.shape) if rng.random() < 0.3 else o
        return (f"ops.vmap({callee.name}, in_axes=({', '.join(axes)},), out_axes={out})"
                f"({', '.join(args)})")


def generate(seed: int, features: frozenset[str] = FEATURES) -> Program:
    """The program of ``seed``: the same seed and features give the same program."""
    program = Gen(random.Random(seed), features).program()
    program.seed = seed
    return program

"""Python constructs MindSpore scripts use in graphs, for the generator: ``with`` over a
``@jit_class`` context manager, recursion on Python ints and recursion whose depth a
tensor counter decides (one recursive graph), lists whose tensor items are
popped under an ``in`` condition, ``ops.assign`` to Parameters held in a tuple, and
``ops.vmap`` of a helper that updates a stacked Parameter passed with a batch axis (each
example its own slice: ``ops.assign`` or an ``Apply*`` optimizer primitive).

``PyForms`` is a mixin of ``Gen``: ``py_kinds`` weighs its statements for ``statement``,
``py_prelude`` adds the module-level code they need (the context manager, the recursive
helpers) and ``py_init`` the lines of ``Net.__init__``.
"""

from __future__ import annotations

import random
from typing import Any

from msc.fuzz.types import MS_DTYPE, PYFLOAT, PYINT, TT, Var, array_literal, literal_source

#: The features these constructs add to the generator's.
PY_FEATURES = frozenset({"with", "recursion", "tensor-recursion", "list-pop", "param-tuple",
                         "vmap-param", "chosen-param"})

#: The stacked Parameter's update inside the vmapped helper, over ``p`` and ``a``.
_UPDATES = (
    "ops.assign(p, ops.tanh(p * 0.5 + a))\n    return p + a",
    "return ops.ApplyProximalGradientDescent()(p, 0.1, 0.01, 0.02, ops.tanh(a))",
    "return ops.ApplyGradientDescent()(p, 0.25, ops.tanh(a))",
    "ops.assign_add(p, ops.tanh(a))\n    return a * 2",
)

_CONTEXT = '''@ms.jit_class
class Ctx:
    """A context manager compiled into the graph: ``with CTX as w`` binds 0.5."""

    def __init__(self, scale):
        self.scale = scale

    def __enter__(self):
        return self.scale

    def __exit__(self, exc_type, exc_value, traceback):
        return None


CTX = Ctx(0.5)'''


class PyForms:
    """The statements; ``Gen`` supplies the rest (``rng``, ``frame``, ``block``, ``expr``)."""

    rng: random.Random
    features: frozenset[str]
    frame: Any
    recursive: list[str]
    net_init: list[str]

    def py_kinds(self, depth: int) -> dict[str, float]:
        f, frame = self.features, self.frame
        kinds: dict[str, float] = {}
        if "with" in f and depth < 2:
            kinds["with"] = 0.5
        numeric = [v for v in frame.state if isinstance(v.type, TT) and v.type.dtype != "bool"]
        if "recursion" in f and numeric:
            kinds["recurse"] = 0.4
        if "tensor-recursion" in f and numeric and frame.kind == "construct" and \
                not getattr(self, "in_grad", False):
            kinds["tensor_recurse"] = 0.4
        if "list-pop" in f and numeric and depth < 2:
            kinds["list_pop"] = 0.4
        if "param-tuple" in f and frame.kind == "construct" and \
                any(p.name.startswith("self.p") for p in frame.params):
            kinds["param_tuple"] = 0.6
        if "vmap-param" in f and frame.kind == "construct" and any(
                isinstance(v.type, TT) and v.type.dtype in ("float32", "float64")
                and v.type.ndim for v in frame.state):
            kinds["vmap_param"] = 0.4
        if "chosen-param" in f and frame.kind == "construct" and any(
                isinstance(v.type, TT) and v.type.floating for v in frame.state):
            kinds["chosen_param"] = 0.4
        return kinds

    def py_prelude(self) -> list[str]:
        return ([_CONTEXT] if "with" in self.features else []) + list(self.recursive)

    def py_init(self) -> list[str]:
        names = [line.split(" = ")[0] for line in self.net_init if line.startswith("self.p")]
        if "param-tuple" not in self.features or not names:
            return []
        return [f"self.ptup = ({', '.join(names)},)"]

    def _s_with(self, scope: list[Var], depth: int) -> Any:
        w = self.fresh("w")  # type: ignore[attr-defined]
        body = self.block(scope + [Var(w, PYFLOAT)], self.rng.randint(1, 3),  # type: ignore
                          depth + 1)
        return self.stmt_type(f"with CTX as {w}:", [body])

    def _s_recurse(self, scope: list[Var], depth: int) -> Any:
        """``s = recK(s, d)``: a module-level helper that calls itself ``d`` times."""
        v = self._numeric_state()
        t = v.type
        name = self.fresh("rec")  # type: ignore[attr-defined]
        step = self._bounded(t, [Var("a", t), Var("n", PYINT)])
        self.recursive.append(f"def {name}(a, n):\n    if n <= 0:\n        return a\n"
                              f"    return {name}({step}, n - 1)")
        return self.stmt_type(f"{v.name} = {name}({v.name}, {self.rng.randint(1, 4)})")

    def _s_tensor_recurse(self, scope: list[Var], depth: int) -> Any:
        """``s = trecK(s, k)``: a module-level helper that calls itself until the 0-d int32
        tensor ``k``, taken from an input (0 to 3), reaches 0, maybe adding each level's
        value to the deeper ones' result (not a tail call)."""
        rng = self.rng
        v = self._numeric_state()
        t = v.type
        name = self.fresh("trec")  # type: ignore[attr-defined]
        step = self._bounded(t, [Var("a", t)])
        deeper = f"{name}({step}, k - 1)"
        if rng.random() < 0.5:
            deeper = f"ops.tanh(a + {deeper})" if t.floating else \
                f"ops.clip_by_value(a + {deeper}, -3, 3)"
        self.recursive.append(f"def {name}(a, k):\n    if k <= 0:\n        return a\n"
                              f"    return {deeper}")
        x = rng.choice([x for x in scope if x.name.startswith("x") and isinstance(x.type, TT)])
        k = f"ops.cast(ops.clip_by_value(ops.abs(ops.cast({x.name}, ms.float32)).sum(), 0.0, " \
            "3.0), ms.int32)"
        return self.stmt_type(f"{v.name} = {name}({v.name}, {k})")

    def _s_list_pop(self, scope: list[Var], depth: int) -> Any:
        """A list of three tensors of ``s``'s type (one a copy of ``s``), popped in both
        branches of a tensor ``if`` whose test may ask ``s in (two items)``."""
        rng = self.rng
        v = self._numeric_state()
        t = v.type
        lst = self.fresh("lst")  # type: ignore[attr-defined]
        items = [f"ops.cast({v.name}, {MS_DTYPE[t.dtype]})"] + \
            [self.fresh_value(t, scope, 2) for _ in range(2)]  # type: ignore[attr-defined]
        rng.shuffle(items)
        cond = self.condition(scope, 2)  # type: ignore[attr-defined]
        if t.size == 1 and rng.random() < 0.7:  # eager Python's ``in`` needs one element
            i, j = rng.sample(range(3), 2)
            word = rng.choice(["in", "not in"])
            cond = f"{v.name} {word} ({lst}[{i}], {lst}[{j}]) {rng.choice(['and', 'or'])} " \
                   f"({cond})"
        elif rng.random() < 0.5:
            cond = f"len({lst}) == 3 and ({cond})"
        a, b = rng.choice([("", "0"), ("0", "1"), ("-1", "")])
        return self.stmt_type(f"{lst} = [{', '.join(items)}]\nif {cond}:",
                              [[self.stmt_type(f"{v.name} = {lst}.pop({a})")],
                               [self.stmt_type(f"{v.name} = {lst}.pop({b}) * 1")]], ["else:"])

    def _s_param_tuple(self, scope: list[Var], depth: int) -> Any:
        """``ops.assign`` (or ``assign_add``) to ``self.ptup[i]``."""
        params = [p for p in self.frame.params if p.name.startswith("self.p")]
        i = self.rng.randrange(len(params))
        t = params[i].type
        value = self.expr(t, scope, 2)  # type: ignore[attr-defined]
        op = self.rng.choice(["ops.assign", "ops.assign_add"])
        return self.stmt_type(f"{op}(self.ptup[{i}], ops.clip_by_value({value}, -50.0, 50.0))")

    def _s_vmap_param(self, scope: list[Var], depth: int) -> Any:
        """``s = ops.vmap(vupd, in_axes=(o, o), out_axes=o)(self.stackN, e)``: a new
        Parameter of ``s``'s type whose axis ``o`` indexes the examples, updated in place
        by a module-level helper (eager mode runs it example by example on Parameters of
        their own and writes them back: ``run.loop_vmap``)."""
        rng = self.rng
        v = rng.choice([v for v in self.frame.state if isinstance(v.type, TT)
                        and v.type.dtype in ("float32", "float64") and v.type.ndim])
        t = v.type
        name, param = self.fresh("vupd"), self.fresh("self.stack")  # type: ignore[attr-defined]
        self.net_init.append(f"{param} = Parameter(Tensor("
                             f"{literal_source(array_literal(rng, t))}), name='{param[5:]}')")
        self.recursive.append(f"def {name}(p, a):\n    {rng.choice(_UPDATES)}")
        o = rng.randrange(t.ndim)
        axis = str(o - t.ndim if rng.random() < 0.3 else o)
        value = self.expr(t, scope, 2)  # type: ignore[attr-defined]
        return self.stmt_type(f"{v.name} = ops.vmap({name}, in_axes=({axis}, {axis}), "
                              f"out_axes={o})({param}, {value})")

    def _s_chosen_param(self, scope: list[Var], depth: int) -> Any:
        """One of two new Parameters of ``s``'s type chosen by a tensor condition (``a if c
        else b``, or a tuple of both rebound swapped in a tensor ``if``), written through
        the choice and read after the write: ``s = pc * 1``."""
        rng = self.rng
        v = rng.choice([v for v in self.frame.state if isinstance(v.type, TT)
                        and v.type.floating])
        t = v.type
        names = [self.fresh("self.choice") for _ in range(2)]  # type: ignore[attr-defined]
        for name in names:
            self.net_init.append(f"{name} = Parameter(Tensor("
                                 f"{literal_source(array_literal(rng, t))}), name='{name[5:]}')")
        pc = self.fresh("pc")  # type: ignore[attr-defined]
        cond = self.condition(scope, 2)  # type: ignore[attr-defined]
        value = self.expr(t, scope, 2)  # type: ignore[attr-defined]
        op = rng.choice(["ops.assign", "ops.assign_add", "ops.assign_sub"])
        write = f"{op}({pc}, ops.clip_by_value({value}, -50.0, 50.0))"
        read = f"{v.name} = {pc} * 1"
        if rng.random() < 0.5:
            return self.stmt_type(f"{pc} = {names[0]} if {cond} else {names[1]}\n{write}\n"
                                  f"{read}")
        pair = self.fresh("pair")  # type: ignore[attr-defined]
        return self.stmt_type(f"{pair} = ({names[0]}, {names[1]})\nif {cond}:\n"
                              f"    {pair} = ({names[1]}, {names[0]})\n{pc} = {pair}[0]\n"
                              f"{write}\n{read}")

    def _numeric_state(self) -> Var:
        found = [v for v in self.frame.state
                 if isinstance(v.type, TT) and v.type.dtype != "bool"]
        return self.rng.choice(found)

    def _bounded(self, t: TT, scope: list[Var]) -> str:
        """One recursion step: an expression of ``t`` over ``a`` (and ``n``), kept bounded
        however often it repeats."""
        outer, limit = self.frame, self.limit  # type: ignore[attr-defined]
        self.frame = type(outer)("helper", [], lambda sc: "a", [])
        self.limit = len(self.helpers)  # type: ignore[attr-defined]
        try:
            e = self.expr(t, scope, 2)  # type: ignore[attr-defined]
        finally:
            self.frame, self.limit = outer, limit
        return f"ops.tanh({e})" if t.floating else f"ops.clip_by_value({e}, -3, 3)"


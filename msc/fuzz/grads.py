"""Gradient calls in the generated programs, and their reference: finite differences.

``GradForms.grad_form`` writes a value as a gradient call of a new float64 helper in one
of the forms MindSpore accepts: ``ops.grad`` (positions, ``has_aux``, ``sens_param``),
``ops.value_and_grad``, ``ops.GradOperation`` (``get_all``, ``sens_param``, a tuple of
sensitivities for a helper with two outputs), ``ops.vjp``, ``ops.jvp``, ``ops.jacrev``
and ``ops.jacfwd``. The differentiated arguments get a small irrational offset, so no
input sits on a kink (``relu`` at 0, ``floor`` at an integer) where the derivative is
one-sided.

Eager mode is not an independent reference for gradients (its gradients are msc's
compiled ones), so the eager run replaces those functions by central finite differences
in float64 (``finite_gradients``), each result snapped to a 2**-20 grid: an exact
gradient such as 2.0 stays exact (a later ``floor`` of it agrees), any other is within
the tolerance the comparison allows for programs with gradients. The price: a gradient
within half a grid step of an integer without being one (-0.99999994) snaps onto it, and
a later cast to int or ``floor`` then differs by one from msc's exact result; such a
finding (an integer output off by one in a program with gradients) is the reference's.

A jump, kink or NaN within a step of the argument makes finite differences meaningless
(``% 4`` of a value that moves by 8e6 per unit: its quotient steps within 1e-6), so each
estimate is checked against one with a shorter step (``_steady``): one that moves beyond
the comparison's tolerance, or is not finite, raises ``IllConditioned``, and the campaign
skips the program (eager mode gives no reference for it).
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import numpy as np

from msc.fuzz import finite_diff as fd
from msc.fuzz.types import MS_DTYPE, TT, Var, literal_source

#: Finite-difference gradients are snapped to multiples of 1 / _GRID (``_snap``): half a
#: unit off each, a few units once they combine (a loop adding a gradient to what the next
#: gradient reads), hence the values' (rtol, atol) in a program that takes gradients.
_GRID = 2.0 ** 20
GRAD_TOLERANCE = (1e-6, 4 / _GRID)


class GradForms:
    """The gradient form of the generator (mixed into ``generate.Gen``)."""

    rng: random.Random
    features: frozenset[str]
    dtypes: list[str]
    helpers: list[Any]
    frame: Any
    init_phase: bool
    approx_grad: bool = False
    in_grad: bool = False

    def sub(self, t: TT, scope: list[Var], depth: int) -> str:
        raise NotImplementedError

    limit: int
    callee_type: type  # ``generate.Callee``
    stmt_type: type  # ``generate.Stmt``

    def callee_body(self, kind: str, args: list[Var], result: TT, extra: list[Var]) -> Any:
        raise NotImplementedError

    def fresh(self, prefix: str) -> str:
        raise NotImplementedError

    def _s_grad(self, scope: list[Var], depth: int) -> Any:
        """A state tensor moved by a gradient call's (bounded) result, so gradients reach
        the program's outputs."""
        states = [v for v in self.frame.state if isinstance(v.type, TT) and v.mutable
                  and v.type.dtype != "bool"]
        grad = None
        if states:
            v = self.rng.choice(states)
            grad = self._f_grad(TT("float64", v.type.shape), scope, 3)
        if grad is None:
            return self._s_temp(scope, depth)
        return self.stmt_type(f"{v.name} = {v.name} + ops.cast(ops.clip_by_value({grad}, "
                              f"-100.0, 100.0), {MS_DTYPE[v.type.dtype]})")

    def _s_temp(self, scope: list[Var], depth: int) -> Any:
        raise NotImplementedError

    def _f_grad(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.dtype != "float64" or self.in_grad or self.frame is None or self.init_phase:
            return None
        rng = self.rng
        form = rng.choice(["grad", "grad", "value_and_grad", "grad_op", "sens", "vjp", "jvp",
                           "jac", "two_outputs"])
        if form == "jvp":
            callee = self._helper(t)
        elif form == "jac":
            callee = self._helper(TT("float64", ()), first=t)
        else:
            callee = self._helper(TT("float64", rng.choice([(), t.shape, (2,)]))
                                  if rng.random() < 0.5 else t, first=t)
        if callee is None:
            return None
        self.approx_grad = True
        args = [self._jittered(a, scope, depth) for a in callee.args]
        call = ", ".join(args)
        out = callee.result
        two = len(args) == 2
        k = rng.randint(0, 1) if two and callee.args[1] == t else 0
        name = callee.name
        if form == "grad":
            if two and rng.random() < 0.5:
                return f"ops.grad({name}, (0, 1))({call})[{k}]"
            return f"ops.grad({name}, 0)({call})"
        if form == "value_and_grad":
            return f"ops.value_and_grad({name}, {k})({call})[1]"
        if form == "grad_op":
            if rng.random() < 0.5:
                return f"ops.GradOperation(get_all=True)({name})({call})[{k}]"
            return f"ops.GradOperation()({name})({call})"
        if form == "sens":
            sens = self.sub(out, scope, depth)
            if rng.random() < 0.5:
                return f"ops.grad({name}, {k}, sens_param=True)({call}, {sens})"
            return f"ops.GradOperation(get_all=True, sens_param=True)({name})({call}, {sens})[{k}]"
        if form == "vjp":
            return f"ops.vjp({name}, {call})[1]({self.sub(out, scope, depth)})[{k}]"
        if form == "jvp":
            tangents = ", ".join(self.sub(a, scope, depth) for a in callee.args)
            return f"ops.jvp({name}, ({call},), ({tangents},))[1]"
        if form == "jac":
            jac = rng.choice(["jacrev", "jacfwd"])
            return f"ops.{jac}({name}, {k})({call})"
        pair = self._pair(callee)
        if rng.random() < 0.4:
            return f"ops.grad({pair}, {k}, has_aux=True)({call})[0]"
        if rng.random() < 0.5:
            return f"ops.grad({pair}, {k})({call})"
        sens = f"({self.sub(out, scope, depth)}, {self.sub(callee.args[0], scope, depth)})"
        return f"ops.GradOperation(get_all=True, sens_param=True)({pair})({call}, {sens})[{k}]"

    def _helper(self, result: TT, first: TT | None = None) -> Any:
        """A new helper ``(a[, b]) -> result`` computing in float64 alone (finite
        differences in float32 are too coarse) and calling no earlier helper; ``a`` of
        type ``first`` (random if None)."""
        if self.limit < len(self.helpers):  # (inside another helper: no new ones)
            return None
        shapes = [(), (2,), (3,), (2, 3), (1, 3)]
        args = [Var("a", first or TT("float64", self.rng.choice(shapes)))]
        if self.rng.random() < 0.5:
            args.append(Var("b", args[0].type if self.rng.random() < 0.5
                            else TT("float64", self.rng.choice(shapes))))
        saved = (self.dtypes, self.helpers, self.in_grad, self.limit)
        self.dtypes, self.helpers, self.in_grad, self.limit = ["float64"], [], True, 0
        try:
            body = self.callee_body("helper", args, result, [])
        finally:
            made = self.helpers
            self.dtypes, self.helpers, self.in_grad, self.limit = saved
        self.helpers.extend(made)
        name = self.fresh("helper")
        lines = [f"def {name}({', '.join(a.name for a in args)}):"]
        lines += [line for s in body for line in s.lines(1)]
        callee = self.callee_type(name, tuple(a.type for a in args), result, lines)
        self.helpers.append(callee)
        return callee

    def _pair(self, callee: Any) -> str:
        """A helper returning ``(callee(...), sin(first argument))``: two outputs."""
        name = f"{callee.name}_pair"
        params = ", ".join("ab"[:len(callee.args)])
        lines = [f"def {name}({params}):", f"    return {callee.name}({params}), ops.sin(a)"]
        self.helpers.append(self.callee_type(name, callee.args, callee.result, lines))
        return name

    def _jittered(self, t: TT, scope: list[Var], depth: int) -> str:
        offset = np.array([self.rng.uniform(0.013, 0.237) for _ in range(t.size)],
                          np.float64).reshape(t.shape)
        return f"({self.sub(t, scope, depth)} + Tensor({literal_source(offset)}))"


# --- the reference ---------------------------------------------------------------------------


class IllConditioned(BaseException):
    """Finite differences that move with their step: no reference for the program (a
    ``BaseException``, which no ``except Exception`` on the way takes for the program's)."""


def _steady(estimate: Callable[..., Any], *args: Any) -> list[np.ndarray]:
    """``estimate(*args, eps=fd.EPS)`` flattened, checked against a step 1/sqrt(2) as long
    (not half: ``% 4`` wrapping 2k times across a step wraps k times across its half)."""
    wide, narrow = (fd.flat(estimate(*args, eps=fd.EPS * r)) for r in (1.0, 2 ** -0.5))
    if not all(np.isfinite(w).all() and np.allclose(w, n, *GRAD_TOLERANCE)
               for w, n in zip(wide, narrow)):
        raise IllConditioned("took finite differences that moved with their step: a jump "
                             "or kink within it")
    return wide


def _snap(a: np.ndarray) -> np.ndarray:
    return np.round(a * _GRID) / _GRID


def _numpy_fn(fn: Callable[..., Any], aux: bool = False) -> Callable[..., Any]:
    """``fn`` over float64 arrays (with ``aux``, its first output alone).

    Inside a ``to_float`` Cell every op of ``fn`` computes in the Cell's type, the
    gradient's ops too (both modes, as MindSpore's PyNative mode): steps of 1e-6 vanish in
    float16, so finite differences are no reference there and the program is skipped."""
    import msc as ms
    from msc.common import amp_scope

    if amp_scope.current() is not None:
        raise IllConditioned("took a gradient inside a to_float Cell: finite differences "
                             "of float16 arithmetic are no reference")

    def run(*arrays: np.ndarray) -> Any:
        out = fn(*(ms.Tensor(a) for a in arrays))
        if aux:
            out = out[0]
        return _arrays(out)
    return run


def _arrays(out: Any) -> Any:
    if isinstance(out, (tuple, list)):
        return tuple(_arrays(o) for o in out)
    return np.asarray(out.asnumpy(), np.float64)


def _tensors(grads: list[np.ndarray], like: Any) -> list[Any]:
    import msc as ms
    return [ms.Tensor(_snap(g).astype(x.asnumpy().dtype)) for g, x in zip(grads, like)]


def _fd_vjp(fn: Callable[..., Any], args: tuple[Any, ...], sens: Any, aux: bool,
            positions: Any) -> list[Any]:
    arrays = [np.asarray(a.asnumpy(), np.float64) for a in args]
    f = _numpy_fn(fn, aux)
    cts = fd.flat(_arrays(sens)) if sens is not None else fd.ones_like_outputs(f, arrays)
    return _tensors(_steady(fd.vjp, f, arrays, cts, positions), [args[p] for p in positions])


def _grad(fn: Any, grad_position: Any = 0, weights: Any = None, has_aux: bool = False,
          return_ids: bool = False, sens_param: bool = False, value: bool = False) -> Any:
    def call(*args: Any) -> Any:
        sens = args[-1] if sens_param else None
        args = args[:-1] if sens_param else args
        single = isinstance(grad_position, int)
        positions = (grad_position,) if single else tuple(grad_position)
        grads = _fd_vjp(fn, args, sens, has_aux, positions)
        result = grads[0] if single or len(grads) == 1 else tuple(grads)  # (MindSpore's)
        if value:
            return fn(*args), result
        return (result, fn(*args)[1:]) if has_aux else result
    return call


class _GradOperation:
    def __init__(self, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False):
        self.get_all, self.sens_param = get_all, sens_param

    def __call__(self, fn: Any, weights: Any = None) -> Any:
        def call(*args: Any) -> Any:
            sens = args[-1] if self.sens_param else None
            args = args[:-1] if self.sens_param else args
            positions = range(len(args)) if self.get_all else (0,)
            grads = _fd_vjp(fn, args, sens, False, positions)
            return tuple(grads) if self.get_all else grads[0]
        return call


def _vjp(fn: Any, *inputs: Any, weights: Any = None, has_aux: bool = False) -> Any:
    return fn(*inputs), lambda v: tuple(_fd_vjp(fn, inputs, v, False, range(len(inputs))))


def _jvp(fn: Any, inputs: Any, v: Any, has_aux: bool = False) -> Any:
    import msc as ms

    xs = inputs if isinstance(inputs, tuple) else (inputs,)
    vs = v if isinstance(v, tuple) else (v,)
    out = fn(*xs)
    tangents = _steady(fd.jvp, _numpy_fn(fn), [x.asnumpy() for x in xs], [t.asnumpy() for t in vs])
    parts = [ms.Tensor(_snap(t)) for t in tangents]
    return out, (parts[0] if len(parts) == 1 else tuple(parts))


def _jacobian(fn: Any, grad_position: int = 0, has_aux: bool = False) -> Any:
    import msc as ms

    def call(*args: Any) -> Any:
        arrays = [np.asarray(a.asnumpy(), np.float64) for a in args]
        return ms.Tensor(_snap(_steady(fd.jacobian, _numpy_fn(fn), arrays, grad_position)[0]))
    return call


@contextmanager
def finite_gradients() -> Iterator[None]:
    """``ms.ops``'s gradient functions replaced by finite differences (eager runs)."""
    import msc as ms

    fakes = {"grad": _grad, "GradOperation": _GradOperation, "vjp": _vjp, "jvp": _jvp,
             "jacrev": _jacobian, "jacfwd": _jacobian,
             "value_and_grad": lambda *a, **k: _grad(*a, **k, value=True)}
    real = {name: getattr(ms.ops, name) for name in fakes}
    for name, fake in fakes.items():
        setattr(ms.ops, name, fake)
    try:
        yield
    finally:
        for name, fn in real.items():
            setattr(ms.ops, name, fn)

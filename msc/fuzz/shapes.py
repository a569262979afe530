"""Shape forms of the generator's expressions (mixed into ``generate.Gen`` beside
``exprs.Exprs``): reshape, transpose, expand, squeeze, concat, stack, tile, indexing and
gathers, each building a value of exactly the asked type from sub-expressions of other
shapes."""

from __future__ import annotations

import random

from msc.fuzz.types import MS_DTYPE, TT, Var


class ShapeForms:
    """``_f_<name>`` forms for ``exprs.FORMS``' shape entries."""

    rng: random.Random

    def sub(self, t: TT, scope: list[Var], depth: int) -> str:
        raise NotImplementedError  # ``Exprs.sub``

    def _f_reshape(self, t: TT, scope: list[Var], depth: int) -> str | None:
        rng = self.rng
        sizes = {(): [(1,), (1, 1)], (1,): [(), (1, 1)], (2,): [(2, 1), (1, 2)],
                 (3,): [(1, 3), (3, 1)], (4,): [(2, 2)], (6,): [(2, 3), (3, 2), (6, 1)],
                 (1, 1): [(1,), ()], (2, 1): [(2,)], (1, 3): [(3,)], (2, 3): [(6,), (3, 2)],
                 (2, 2): [(4,)], (3, 1, 2): [(6,), (3, 2)]}
        choices = sizes.get(t.shape) or [(t.size,)]
        src = rng.choice(choices)
        a = self.sub(t.with_shape(src), scope, depth)
        shape = list(t.shape)
        if shape and rng.random() < 0.3:
            shape[rng.randrange(len(shape))] = -1
        target = tuple(shape)
        return rng.choice([f"ops.reshape({a}, {target!r})", f"{a}.reshape({target!r})"])

    def _f_transpose(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.ndim < 2:
            return None
        perm = list(range(t.ndim))
        self.rng.shuffle(perm)
        # result dim i is source dim perm[i]: the source shape inverts the permutation
        src = [0] * t.ndim
        for i, p in enumerate(perm):
            src[p] = t.shape[i]
        a = self.sub(t.with_shape(tuple(src)), scope, depth)
        if t.ndim == 2 and perm == [1, 0] and self.rng.random() < 0.3:
            return f"{a}.T"
        return self.rng.choice([f"ops.transpose({a}, {tuple(perm)!r})",
                                f"ops.permute({a}, {tuple(perm)!r})",
                                f"{a}.transpose({tuple(perm)!r})"])

    def _f_expand(self, t: TT, scope: list[Var], depth: int) -> str | None:
        ones = [i for i, d in enumerate(t.shape) if d == 1]
        if not ones:
            return None
        axis = self.rng.choice(ones)
        a = self.sub(t.with_shape(t.shape[:axis] + t.shape[axis + 1:]), scope, depth)
        if axis == 0 and self.rng.random() < 0.25:
            return f"{a}[None]"
        return self.rng.choice([f"ops.expand_dims({a}, {axis})", f"ops.unsqueeze({a}, {axis})",
                                f"{a}.expand_dims({axis})"])

    def _f_squeeze(self, t: TT, scope: list[Var], depth: int) -> str | None:
        axis = self.rng.randint(0, t.ndim)
        src = t.with_shape(t.shape[:axis] + (1,) + t.shape[axis:])
        a = self.sub(src, scope, depth)
        if 1 not in t.shape and self.rng.random() < 0.4:
            return f"ops.squeeze({a})" if self.rng.random() < 0.5 else f"{a}.squeeze()"
        return f"ops.squeeze({a}, {axis})"

    def _f_concat(self, t: TT, scope: list[Var], depth: int) -> str | None:
        axes = [i for i, d in enumerate(t.shape) if d >= 2]
        if not axes:
            return None
        axis = self.rng.choice(axes)
        k = self.rng.randint(1, t.shape[axis] - 1)
        first = t.with_shape(t.shape[:axis] + (k,) + t.shape[axis + 1:])
        second = t.with_shape(t.shape[:axis] + (t.shape[axis] - k,) + t.shape[axis + 1:])
        a, b = self.sub(first, scope, depth), self.sub(second, scope, depth)
        fn = self.rng.choice(["concat", "cat"])
        return f"ops.{fn}(({a}, {b}), {axis})"

    def _f_stack(self, t: TT, scope: list[Var], depth: int) -> str | None:
        axes = [i for i, d in enumerate(t.shape) if d in (1, 2, 3)]
        if not axes:
            return None
        axis = self.rng.choice(axes)
        item = t.with_shape(t.shape[:axis] + t.shape[axis + 1:])
        parts = ", ".join(self.sub(item, scope, depth) for _ in range(t.shape[axis]))
        return f"ops.stack(({parts},), {axis})"

    def _f_tile(self, t: TT, scope: list[Var], depth: int) -> str | None:
        if t.ndim == 0:
            return None
        mult = tuple(d if d > 1 and self.rng.random() < 0.5 else 1 for d in t.shape)
        src = t.with_shape(tuple(d // m for d, m in zip(t.shape, mult)))
        return f"ops.tile({self.sub(src, scope, depth)}, {mult!r})"

    def _f_gather(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """``t`` as slices of a tensor picked along one axis by an index tensor, indices
        repeated (``ops.gather``: its gradient is a TensorScatterAdd, along a later axis
        between two transposes; repeated indices sum)."""
        if t.ndim == 0:
            return None
        rng = self.rng
        axis, n = rng.randrange(t.ndim), rng.randint(1, 4)
        idx = [rng.randrange(n) for _ in range(t.shape[axis])]
        src = self.sub(t.with_shape(t.shape[:axis] + (n,) + t.shape[axis + 1:]), scope, depth)
        ints = rng.choice(["np.int32", "np.int64"])
        return f"ops.gather({src}, Tensor(np.array({idx!r}, {ints})), {axis})"

    def _f_scatter(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """``t`` with rows added at repeated indices (``ops.tensor_scatter_add``): its loops
        work in the input's array where nothing else reads it, else in a copy."""
        if t.ndim == 0 or not t.floating:
            return None
        rng = self.rng
        k = rng.randint(1, 4)
        idx = [[rng.randrange(t.shape[0])] for _ in range(k)]
        base = self.sub(t, scope, depth)
        rows = self.sub(t.with_shape((k,) + t.shape[1:]), scope, depth)
        ints = rng.choice(["np.int32", "np.int64"])
        return f"ops.tensor_scatter_add({base}, Tensor(np.array({idx!r}, {ints})), {rows})"

    def _f_head(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """``t`` as one position of a block computed for several (a classifier's
        ``x[:, 0]``): a product by a weight, a softmax or a layer norm over the last
        axis, then tanh and a sum, which slice sinking computes at that position only."""
        if t.ndim == 0 or t.dtype not in ("float32", "float64"):
            return None
        rng, c, n = self.rng, t.shape[-1], self.rng.randint(2, 4)
        self.note_approx(t.dtype)
        src = t.with_shape(t.shape[:-1] + (n, c) if t.ndim == 1 else
                           t.shape[:1] + (n,) + t.shape[1:])
        x = self.sub(src, scope, depth)
        kind = rng.choice(["matmul", "softmax", "layer_norm"])
        if kind == "matmul":
            block = f"ops.matmul({x}, {self.sub(t.with_shape((c, c)), scope, depth)})"
        elif kind == "softmax":
            block = f"ops.softmax({x}, -1)"
        else:  # (a fixed ramp: a constant row's norm divides its rounding by sqrt(eps))
            ramp = f"Tensor(np.linspace(-1.0, 1.0, {c}).astype(np.{t.dtype}))"
            dt = MS_DTYPE[t.dtype]
            block = f"ops.layer_norm({x} + {ramp}, ({c},), ops.ones(({c},), {dt}), " \
                    f"ops.zeros(({c},), {dt}))"
        key = f"{rng.randrange(n)}" if t.ndim == 1 else f":, {rng.randrange(n)}"
        return f"(ops.tanh({block}) + {self.sub(src, scope, depth)})[{key}]"

    def _f_index(self, t: TT, scope: list[Var], depth: int) -> str | None:
        """``t`` as an item, a slice, a column or a strided view of a bigger tensor."""
        rng = self.rng
        n = rng.randint(1, 3)
        kind = rng.choice(["int", "pair", "ellipsis"] + (["slice", "col", "step"] * 2
                                                           if t.ndim else []))
        if kind == "int":
            src, key = (n,) + t.shape, str(rng.randrange(-n, n))
        elif kind == "pair":
            m = rng.randint(1, 2)
            src, key = (n, m) + t.shape, f"{rng.randrange(n)}, {rng.randrange(-m, m)}"
        elif kind == "ellipsis":
            src, key = t.shape + (n,), f"..., {rng.randrange(-n, n)}"
        elif kind == "col":
            src, key = (t.shape[0], n) + t.shape[1:], f":, {rng.randrange(n)}"
        elif kind == "step":
            m = t.shape[0]
            length, key = rng.choice([(2 * m, "::2"), (2 * m - 1, "::2"), (m, "::-1"),
                                      (m + 1, "1::1"), (2 * m, "-1::-2")])
            src = (length,) + t.shape[1:]
        else:
            m, start = t.shape[0], rng.randint(0, 2)
            length = start + m + rng.randint(0, 1)
            stop = start + m
            key = rng.choice([f"{start}:{stop}", f"{start}:{stop - length}" if stop < length
                              else f"{start}:", f"{start - length}:{stop}"])
            if start == 0 and stop == length:
                key = rng.choice([":", f":{stop}", "0:"])
            src = (length,) + t.shape[1:]
        return f"{self.sub(t.with_shape(src), scope, depth)}[{key}]"

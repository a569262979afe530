"""The partial evaluator: each supported construct, compiled (IR run by the reference
interpreter) against eager execution and against numpy written here."""

import numpy as np
import pytest

import msc as ms
from msc import nn, ops
from msc.compiler import compile_entry
from msc.ir.interpret import interpret

GLOBAL_SCALE = 3.0


def compiled(entry, *args):
    """(compiled object, its output on args)."""
    from msc.compiler import arg_spec

    c = compile_entry(entry, tuple(arg_spec(a) for a in args))
    return c, c.run(args)


def ops_of(c):
    return [n.op.name for n in c.module.entry_graph.nodes]


def close(a, b):
    a = a.asnumpy() if isinstance(a, ms.Tensor) else a
    b = b.asnumpy() if isinstance(b, ms.Tensor) else b
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


class MLP(nn.Cell):
    def __init__(self, d_in=8, d_hidden=16, d_out=4):
        super().__init__()
        self.fc1 = nn.Dense(d_in, d_hidden)
        self.fc2 = nn.Dense(d_hidden, d_out)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Cell):
    def __init__(self, d):
        super().__init__()
        self.w1 = ms.Parameter(ms.Tensor(np.random.default_rng(1).normal(size=(d, d)) * 0.2,
                                         ms.float32))
        self.b1 = ms.Parameter(ms.Tensor(np.zeros(d), ms.float32))
        self.norm = nn.LayerNorm((d,))

    def construct(self, x):
        h = ops.matmul(x, self.w1) + self.b1
        h = ops.softmax(h, axis=-1) * h
        return self.norm(x + h)


class GPT(nn.Cell):
    def __init__(self, n=3, d=8):
        super().__init__()
        self.blocks = nn.CellList([Block(d) for _ in range(n)])

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def numpy_layer_norm(x, eps=1e-7):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def numpy_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_mlp_eager_equals_ir_equals_numpy(rng):
    net = MLP()
    x = rng.normal(size=(5, 8)).astype(np.float32)
    eager = net(ms.Tensor(x))
    c, out = compiled(net, ms.Tensor(x))
    w1, b1 = net.fc1.weight.asnumpy(), net.fc1.bias.asnumpy()
    w2, b2 = net.fc2.weight.asnumpy(), net.fc2.bias.asnumpy()
    expect = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    close(eager, expect)
    close(out, expect)
    weights = [p.asnumpy() for p in c.weights]
    close(interpret(c.module, [x], weights), expect)
    assert [w.hint for w in c.module.entry_graph.weights] == \
        ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_gpt_block_stack_unrolls_celllist(rng):
    net = GPT(n=3)
    x = rng.normal(size=(4, 8)).astype(np.float32)
    c, out = compiled(net, ms.Tensor(x))
    expect = x
    for blk in net.blocks:
        h = expect @ blk.w1.asnumpy() + blk.b1.asnumpy()
        h = numpy_softmax(h) * h
        expect = numpy_layer_norm(expect + h)
    close(net(ms.Tensor(x)), expect)
    close(out, expect)
    assert ops_of(c).count("MatMul") == 3
    assert len(c.module.entry_graph.weights) == 3 * 4


def test_python_constructs_fold_at_compile_time():
    def helper(x, scale=2, *rest, shift=0.5):
        return x * scale + shift + len(rest)

    @ms.jit
    def f(x, n):
        pairs = [(i, i * 2) for i in range(n) if i % 2 == 0]   # comprehension with filter
        total = 0
        for i, (a, b) in enumerate(pairs):
            total += a + b + i
        k = 0
        while k < 3:
            k += 1
            if k == 2:
                continue
            total += k
        d = {"a": 1, **{"b": 2}}
        scale = (lambda v: v + 1)(d["b"])
        name = f"n={n:03d}"
        assert name == "n=005"
        first, *middle, last = (1, 2, 3, 4)
        y = helper(x, scale, *middle, shift=GLOBAL_SCALE)
        return y + total + first + last if isinstance(x, ms.Tensor) else None

    x = np.arange(3, dtype=np.float32)
    out = f(ms.Tensor(x), 5)
    # pairs (0,0),(2,4),(4,8) -> 0+6+12 + enumerate 0+1+2 = 21; while adds 1+3 = 4
    expect = x * 3 + 3.0 + 2 + 25 + 1 + 4
    close(out, expect)
    c, _ = compiled(f, ms.Tensor(x), 5)
    assert ops_of(c) == ["Mul", "Add", "Add", "Add", "Add", "Add"]   # all Python work folded


def test_nested_def_closure_and_super():
    class Base(nn.Cell):
        def construct(self, x):
            return x * 2

    class Child(Base):
        def __init__(self):
            super().__init__()
            self.offset = 1.5

        def construct(self, x):
            def add_offset(v, k=self.offset):
                return v + k
            return add_offset(super().construct(x))

    net = Child()
    x = np.array([1.0, 2.0], np.float32)
    _, out = compiled(net, ms.Tensor(x))
    close(out, x * 2 + 1.5)
    close(net(ms.Tensor(x)), x * 2 + 1.5)


def test_constant_outputs_come_back_as_python_values():
    class Shapes(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq = nn.CellList([nn.ReLU(), nn.ReLU()])
            self.factor = 4

        def construct(self, x):
            return x.shape, len(self.seq), self.factor * 2.5, x + 1

    ms.set_context(mode=ms.GRAPH_MODE)
    shape, n, f, y = Shapes()(ms.Tensor(np.zeros((2, 3), np.float32)))
    assert shape == (2, 3) and isinstance(shape, tuple)
    assert n == 2 and type(n) is int
    assert f == 10.0 and type(f) is float
    assert isinstance(y, ms.Tensor) and y.shape == (2, 3)


def test_graph_mode_recompiles_when_a_read_attribute_changes():
    class Scaled(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = 2

        def construct(self, x):
            return x * self.k

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Scaled()
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    close(net(x), [2.0, 4.0])
    net.k = 5
    close(net(x), [5.0, 10.0])


def test_jit_specialises_on_python_scalars_and_caches_by_type():
    @ms.jit
    def f(x, n):
        for _ in range(n):
            x = x + 1
        return x

    x = ms.Tensor(np.zeros(2, np.float32))
    close(f(x, 3), [3, 3])
    close(f(x, 4), [4, 4])
    close(f(x, 3), [3, 3])
    assert f.cache.compiles == 2
    f(ms.Tensor(np.zeros(5, np.float32)), 3)
    assert f.cache.compiles == 3


def test_jit_on_construct_compiles_in_pynative_mode():
    class Net(nn.Cell):
        @ms.jit
        def construct(self, x, y):
            return x * y + y

    net = Net()
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    y = ms.Tensor(np.array([3.0, 4.0], np.float32))
    close(net(x, y), [6.0, 12.0])
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_tuple_inputs_outputs_and_int_types():
    @ms.jit
    def f(pair, k):
        a, b = pair
        return (a + b) * k, (a > 0).sum(), a // 2

    a = ms.Tensor(np.array([1, -2, 3], np.int32))
    b = ms.Tensor(np.array([4, 5, 6], np.int32))
    s, count, half = f((a, b), 2)
    assert s.dtype == ms.int32 and count.dtype == ms.int64 and half.dtype == ms.int32
    np.testing.assert_array_equal(s.asnumpy(), [10, 6, 18])
    assert count.asnumpy() == 2
    np.testing.assert_array_equal(half.asnumpy(), [0, -1, 1])


def test_tensor_constant_attribute_is_a_const_and_global_reads_are_tracked():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bias = ms.Tensor(np.array([1.0, 2.0], np.float32))

        def construct(self, x):
            return x + self.bias * GLOBAL_SCALE

    c, out = compiled(Net(), ms.Tensor(np.zeros(2, np.float32)))
    close(out, [3.0, 6.0])
    assert c.module.entry_graph.weights == ()
    assert any(r.name == "GLOBAL_SCALE" for r in c.deps.reads.values())


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_sequential_and_indexing(mode):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq = nn.SequentialCell([nn.Dense(3, 3), nn.Tanh()])

        def construct(self, x):
            y = self.seq(x)
            return y[0], y[:, 1:], y[..., None].squeeze(-1).T

    net = Net()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b, t = net(ms.Tensor(x))
    w, bias = net.seq[0].weight.asnumpy(), net.seq[0].bias.asnumpy()
    y = np.tanh(x @ w.T + bias)
    close(a, y[0])
    close(b, y[:, 1:])
    close(t, y.T)


def test_user_cell_inside_native_container_is_interpreted():
    class Clamp(nn.Cell):
        def __init__(self, limit):
            super().__init__()
            self.limit = limit

        def construct(self, x):
            if self.limit > 0:          # a Python-constant branch: folded by the frontend
                return ops.minimum(x, self.limit)
            return x

    net = nn.SequentialCell([Clamp(1.0), nn.ReLU(), Clamp(0)])
    c, out = compiled(net, ms.Tensor(np.array([-2.0, 0.5, 3.0], np.float32)))
    close(out, [0.0, 0.5, 1.0])
    assert ops_of(c) == ["Minimum", "ReLU"]
    assert any(r.name == "limit" for r in c.deps.reads.values())


def test_set_train_after_compile_recompiles_native_layers():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.SequentialCell([nn.Dense(2, 2), nn.Dropout(p=0.5)])
    x = ms.Tensor(np.ones((1, 2), np.float32))
    kept = net(x).asnumpy()
    net.set_train(True)                  # Dropout now drops: a different graph
    out = net(ms.Tensor(np.ones((512, 2), np.float32))).asnumpy()
    assert set(np.unique(out / kept[0])) == {0.0, 2.0}


def test_a_list_built_in_the_function_does_not_recompile_every_call():
    """``output.append`` is a new built-in method object on every read: the recorded read
    must compare it by its list and name, or each call recompiles (the tutorial's for loop)."""
    @ms.jit
    def stacked(xs):
        output = []
        for i in range(xs.shape[0]):
            output.append(xs[i] * 2)
        return ops.stack(output)

    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    for _ in range(3):
        close(stacked(x), np.arange(6, dtype=np.float32).reshape(3, 2) * 2)
    assert stacked.cache.compiles == 1

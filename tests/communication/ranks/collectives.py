"""Run by tests/communication/test_collectives.py under ``mpiexec -n 2``: every
collective, eagerly, in a compiled graph (python target, and one numba graph) and through
its gradient, against numpy on the inputs of every rank (each rank can make them all).
Prints ``ok <what>`` per check; a failure raises and aborts both ranks."""

import sys

import numpy as np

import msc as ms
from msc import nn, ops
from msc.communication import (
    create_group,
    get_group_size,
    get_local_rank,
    get_rank,
    init,
)
from tests.communication.mpi import say


def inputs(r, shape=(4, 3)):
    """Rank ``r``'s input: distinct, nonzero values (so prod and its gradient are exact
    enough, and max/min have one winner)."""
    rng = np.random.default_rng(r)
    return (rng.permutation(np.prod(shape)).reshape(shape) / 4 + 0.5 + r / 8).astype(np.float32)


def weights(r, shape):
    return np.random.default_rng(10 + r).standard_normal(shape).astype(np.float32)


def same(got, want, what):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6, err_msg=what)
    say(f"ok {what} rank {get_rank()}")


def main():
    init()
    r, n = get_rank(), get_group_size()
    assert n == 2 and get_local_rank() == r
    xs = [inputs(k) for k in range(n)]
    x = ms.Tensor(xs[r])
    reductions = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}
    every = np.stack(xs)
    k = xs[0].shape[0] // n

    # eagerly
    for op, fn in reductions.items():
        same(ops.AllReduce(op)(x).asnumpy(), fn(every, axis=0), f"eager AllReduce {op}")
    same(ops.AllGather()(x).asnumpy(), np.concatenate(xs), "eager AllGather")
    same(ops.ReduceScatter()(x).asnumpy(), every.sum(0)[r * k:(r + 1) * k], "eager ReduceScatter")
    (b,) = ops.Broadcast(1)((x,))
    same(b.asnumpy(), xs[1], "eager Broadcast")
    same(ops.all_reduce(x, "avg")[0].asnumpy(), every.mean(0), "all_reduce avg")
    same(ops.all_gather_into_tensor(None, x)[0].asnumpy(), np.concatenate(xs),
         "all_gather_into_tensor")
    same(ops.reduce_scatter_tensor(None, x, "max")[0].asnumpy(),
         every.max(0)[r * k:(r + 1) * k], "reduce_scatter_tensor max")
    # a sum of 1 MiB or more goes through memory the ranks share: the same bits as
    # numpy's sum on every rank, for uneven shares, twice through the same window
    from msc.runtime import comm_rt

    for dtype in (np.float32, np.float64):
        big = [np.random.default_rng(q).standard_normal(300_001).astype(dtype) for q in range(n)]
        for _ in range(2):
            got = ops.AllReduce()(ms.Tensor(big[r])).asnumpy()
            np.testing.assert_array_equal(got, big[0] + big[1])
    assert sum(v is not None for v in comm_rt._RT_SHARED.values()) == 2
    say(f"ok eager AllReduce sum through shared memory rank {r}")
    t = ms.Tensor(xs[r].copy())
    assert ops.broadcast(t, 0) is None
    same(t.asnumpy(), xs[0], "broadcast in place")
    create_group("reversed", [1, 0])
    same(ops.AllGather("reversed")(x).asnumpy(), np.concatenate(xs[::-1]), "group AllGather")

    # in a graph, with its gradient: the loss is sum(w_r * collective(x_r)) on rank r
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    for op, fn in reductions.items():
        reduce = ops.AllReduce(op)
        out = fn(every, axis=0)
        w = [weights(q, out.shape) for q in range(n)]

        def loss(v, reduce=reduce, w=ms.Tensor(w[r])):
            return (reduce(v) * w).sum()

        same(ms.jit(lambda v, reduce=reduce: reduce(v))(x).asnumpy(), out, f"graph AllReduce {op}")
        local = {"sum": np.ones_like(out), "prod": out / xs[r]}.get(op, (xs[r] == out) * 1.0)
        same(ms.jit(ms.grad(loss))(x).asnumpy(), sum(w) * local, f"grad AllReduce {op}")
    gather, scatter = ops.AllGather(), ops.ReduceScatter()
    wg = [weights(q, (n * xs[0].shape[0], 3)) for q in range(n)]
    same(ms.jit(lambda v: gather(v))(x).asnumpy(), np.concatenate(xs), "graph AllGather")
    same(ms.jit(ms.grad(lambda v: (gather(v) * ms.Tensor(wg[r])).sum()))(x).asnumpy(),
         sum(wg)[r * 4:(r + 1) * 4], "grad AllGather")
    ws = [weights(q, (k, 3)) for q in range(n)]
    same(ms.jit(lambda v: scatter(v))(x).asnumpy(), every.sum(0)[r * k:(r + 1) * k],
         "graph ReduceScatter")
    same(ms.jit(ms.grad(lambda v: (scatter(v) * ms.Tensor(ws[r])).sum()))(x).asnumpy(),
         np.concatenate(ws), "grad ReduceScatter")
    bcast = ops.Broadcast(0)
    same(ms.jit(lambda v: bcast((v,))[0] * 2)(x).asnumpy(), xs[0] * 2, "graph Broadcast")
    wb = [weights(q, xs[0].shape) for q in range(n)]
    same(ms.jit(ms.grad(lambda v: (bcast((v,))[0] * ms.Tensor(wb[r])).sum()))(x).asnumpy(),
         sum(wb) if r == 0 else np.zeros_like(wb[0]), "grad Broadcast")

    # DistributedGradReducer's mean multiplies the sum by the float32 reciprocal of the
    # degree, as MindSpore does (dividing by 3 rounds some of these sums differently)
    reducer = nn.DistributedGradReducer([], mean=True, degree=3)
    grads = (x, ms.Tensor(xs[r][:2] * 3))
    want = [sum(xs) * np.float32(1 / 3), sum(q[:2] * 3 for q in xs) * np.float32(1 / 3)]
    assert any((w != sum(xs) / np.float32(3)).any() for w in want[:1])
    for mode, got in (("eager", reducer(grads)), ("graph", ms.jit(reducer.construct)(grads))):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.asnumpy(), w, err_msg=f"{mode} grad reducer")
        say(f"ok {mode} DistributedGradReducer mean rank {r}")

    # the numba target calls the helpers from object mode, in kernels of the kernel
    # library (outlined however small: their helpers come from the library's runtime file)
    import msc.codegen.outline

    msc.codegen.outline.OUTLINE_LINES = 0
    ms.set_context(jit_target="numba")
    total = ops.AllReduce()
    both = ms.jit(lambda v: (total(ops.exp(v)) + 1, gather(v * 2)))(x)
    same(both[0].asnumpy(), np.exp(every).sum(0) + 1, "numba AllReduce")
    same(both[1].asnumpy(), np.concatenate(xs) * 2, "numba AllGather")
    return 0


if __name__ == "__main__":
    sys.exit(main())

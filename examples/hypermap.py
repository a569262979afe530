"""The reference tutorial's "Using HyperMap": one update mapped over many tensors.

    python examples/hypermap.py 64

An SGD-style update ``p - lr * g`` registered on a ``MultitypeFuncGraph`` and mapped
with ``HyperMap`` over a ParameterTuple and a tuple of gradients, against the same
update written as a Python ``for`` loop. Both give the same results; with ``HyperMap``
the frontend builds the update once and calls it for every tensor, where the loop is
interpreted again for each. The script prints the parse-time IR node counts and the
compile times.
"""

import sys
import time

import numpy as np

import msc as ms
from msc import nn
from msc.ops import composite as C
from msc.ops import functional as F

update = C.MultitypeFuncGraph("update")


@update.register("Number", "Tensor", "Tensor")
def _update(lr, param, grad):
    return param - lr * grad


def make_params(n):
    return ms.ParameterTuple([ms.Parameter(ms.Tensor(np.full(16, i, np.float32)), name=f"p{i}")
                              for i in range(n)])


class HyperMapUpdate(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.params = make_params(n)
        self.hyper_map = C.HyperMap()

    def construct(self, grads):
        return self.hyper_map(F.partial(update, 0.1), self.params, grads)


class LoopUpdate(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.params = make_params(n)

    def construct(self, grads):
        out = ()
        for param, grad in zip(self.params, grads):
            out = out + (update(0.1, param, grad),)
        return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    grads = tuple(ms.Tensor(np.full(16, 1.0 + i, np.float32)) for i in range(n))
    ms.set_context(mode=ms.GRAPH_MODE)
    results = []
    for cls in (HyperMapUpdate, LoopUpdate):
        net = cls(n)
        start = time.time()
        out = net(grads)
        seconds = time.time() - start
        from msc.frontend.jit import cell_cache

        compiled = next(iter(cell_cache(net).entries.values()))
        parsed = compiled.report.stats[0].nodes_after
        print(f"{cls.__name__}: {n} tensors, {parsed} IR nodes after parsing, "
              f"compile and run {seconds:.2f} s, out[1][0] = {out[1].asnumpy()[0]:.2f}")
        results.append(out)
    same = all(np.array_equal(a.asnumpy(), b.asnumpy()) for a, b in zip(*results))
    print("same results:", same)


if __name__ == "__main__":
    main()

"""The reference tutorial's "Using select Operator": ``if_net`` and ``select_net``.

    python examples/select_vs_if.py
    msc ir examples/select_vs_if.py if_net --input 'i64[1]' --input 'i64[1]'

Both print -5050. MindSpore compiles ``if_net`` into 100 control-flow branches and asks
the user to rewrite it with ``ops.select``; msc's ``if_to_select`` pass does that
rewrite itself, so by default both functions compile to the same 100 ``Select`` nodes
(``--no-if-to-select`` keeps the branches). The script prints each result, its
compile time, and the node counts.
"""

import time

import msc as ms
from msc import ops


@ms.jit
def if_net(x, y):
    out = 0
    for _ in range(100):
        if x < y:
            x = x - y
        else:
            x = x + y
        out = out + x
    return out


@ms.jit
def select_net(x, y):
    out = x
    for _ in range(100):
        cond = x < y
        x = ops.select(cond, x - y, x + y)
        out = out + x
    return out


def main() -> None:
    for fn in (if_net, select_net):
        start = time.time()
        out = fn(ms.Tensor([0]), ms.Tensor([1]))
        seconds = time.time() - start
        compiled = next(iter(fn.cache.entries.values()))
        ops_ = [n.op.name for n in compiled.module.entry_graph.nodes]
        print(f"{fn.__name__}: {out}  compile and run {seconds:.2f} s, "
              f"{ops_.count('Select')} Select, {ops_.count('If')} If")


if __name__ == "__main__":
    main()

"""The reference tutorial's "Optimizing Redundant Video Memory Copy Operations".

    python examples/side_effects.py            # add --no-ir to skip the IR dumps
    python examples/side_effects.py --target python

Reading a Parameter in a graph is a ``Load``: the generated code reads the weight's
buffer without copying it. When that buffer is read again after a later
``ops.assign`` to the same weight, the read would see the new value, so msc's
``load_elim`` pass inserts ``TensorMove`` copies. How hard it tries to avoid them is
MindSpore's ``MS_DEV_SIDE_EFFECT_LOAD_ELIM`` level, here
``ms.set_context(side_effect_load_elim=level)``: 0 copies every ``Load``, 1 (the
default) only the hazardous ones, 2 first moves reads above the write, 3 never copies
(results may be wrong).

For each level the script compiles the tutorial's ``ForwardNet`` (3 ``Assign``s,
3 ``Load``s, result 3 at every level) and prints its optimized IR. Only level 0 copies
here: each loaded value is used before the next write. Then the tutorial's
``BackwardNet``, its gradient, which sums the three loaded values after the last write:
``(Tensor(3),)`` at levels 0-2 (two copies at levels 1 and 2: the last value read needs
none, where MindSpore copies all three) and 6, wrong, at level 3, as the tutorial warns.
Then two small patterns that differ in *when* the weight is read:

- ``a = self.w * 1; ops.assign(self.w, x); return a + self.w`` reads the old value
  after the write: [11 22] at levels 0-2, [20 40] (wrong) at level 3;
- ``a = self.w; ...``: ``a`` names the Parameter itself, read after the write:
  [20 40] at every level.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import arg_spec, compile_entry
from msc.ir.printer import print_module
from msc.ops import composite as C
from msc.ops import functional as F


class ForwardNet(nn.Cell):
    """The tutorial's model, as it writes it: the Python ``while`` unrolls 3 times."""

    def __init__(self):
        super(ForwardNet, self).__init__()  # noqa: UP008 - as the tutorial writes it
        self.weight = Parameter(Tensor(np.array(0), ms.int32), name="param")

    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            F.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


class BackwardNet(nn.Cell):
    """The tutorial's gradient of ForwardNet: the backward sums the three loaded values
    after the last write, so each Load must be copied before the next Assign."""

    def __init__(self, net):
        super(BackwardNet, self).__init__(auto_prefix=False)  # noqa: UP008
        self.forward_net = net
        self.grad = C.GradOperation(get_all=True)

    def construct(self, *inputs):
        grads = self.grad(self.forward_net)(*inputs)
        return grads


def tutorial_backward_net() -> nn.Cell:
    """The tutorial's gradient network (a Cell factory for ``msc compile``)."""
    return BackwardNet(ForwardNet())


class ReadCopy(nn.Cell):
    """Keeps the old value (``self.w * 1``), then writes the weight."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1, 2], np.int32)), name="w")

    def construct(self, x):
        a = self.w * 1
        ops.assign(self.w, x)
        return a + self.w


class ReadName(ReadCopy):
    """Names the Parameter (``a = self.w``): ``a`` is read after the write."""

    def construct(self, x):
        a = self.w
        ops.assign(self.w, x)
        return a + self.w


def compile_and_run(net: nn.Cell, x: Tensor, target: str) -> tuple[Any, Tensor]:
    """(the compiled object, its result on ``x``) at the context's level."""
    compiled = compile_entry(net, [arg_spec(x)], store=None, target=target)
    return compiled, compiled.run([x])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-ir", action="store_true", help="skip the IR dumps")
    ap.add_argument("--target", choices=("numba", "python"), default="numba")
    args = ap.parse_args()
    x = Tensor(np.array(1), ms.int32)
    wx = Tensor(np.array([10, 20], np.int32))
    for level in range(4):
        ms.set_context(side_effect_load_elim=level)
        compiled, out = compile_and_run(ForwardNet(), x, args.target)
        ops_ = [n.op.name for n in compiled.module.entry_graph.nodes]
        print(f"level {level}: result {out}, {ops_.count('Assign')} Assign, "
              f"{ops_.count('Load')} Load, {ops_.count('TensorMove')} TensorMove")
        if not args.no_ir:
            print(print_module(compiled.module, locs=False))
    print()
    for level in range(4):
        ms.set_context(side_effect_load_elim=level)
        compiled, grads = compile_and_run(BackwardNet(ForwardNet()), x, args.target)
        moves = [n.op.name for n in compiled.module.entry_graph.nodes].count("TensorMove")
        print(f"level {level}: BackwardNet gradient {grads}, {moves} TensorMove")
    print()
    for level in range(4):
        ms.set_context(side_effect_load_elim=level)
        _, copy = compile_and_run(ReadCopy(), wx, args.target)
        _, name = compile_and_run(ReadName(), wx, args.target)
        print(f"level {level}: a = self.w * 1 -> {copy}; a = self.w -> {name}")


if __name__ == "__main__":
    main()

"""The compile driver: frontend, optimizer and (for now) the reference engine.

``compile_entry`` turns a Cell or function plus input types into a ``Compiled``
object; ``Compiled.run`` executes it on concrete arguments. The driver is the one
place that reads the context and turns it into plain pass options.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from msc import context
from msc.frontend.api.tensor import Parameter, Tensor
from msc.frontend.specialize import Specialized, specialize
from msc.ir.interpret import interpret
from msc.ir.nodes import Module
from msc.optimizer.pipeline import PassReport, run_pipeline


@dataclass
class Compiled:
    """An optimized graph for one input signature, with the Parameters it reads."""

    module: Module
    parsed: Specialized
    report: PassReport
    timings: dict[str, float] = field(default_factory=dict)

    def run(self, args: Sequence[Any]) -> Any:
        inputs = [np.asarray(x.asnumpy() if isinstance(x, Tensor) else x)
                  for x in flatten_tensors(args)]
        weights = [p.asnumpy() for p in self.parsed.weights]
        return to_user(interpret(self.module, inputs, weights))


def compile_entry(entry: Any, specs: Sequence[Any]) -> Compiled:
    t0 = time.perf_counter()
    parsed = specialize(entry, specs)
    t1 = time.perf_counter()
    dump_root = context.save_graphs_dir()
    dump_dir = os.path.join(dump_root, parsed.module.entry) if dump_root else None
    module, report = run_pipeline(parsed.module, dump_dir=dump_dir,
                                  parse_seconds=t1 - t0)
    t2 = time.perf_counter()
    return Compiled(module, parsed, report, {"parse": t1 - t0, "optimize": t2 - t1})


def arg_spec(value: Any) -> Any:
    """What a runtime argument contributes to the signature: tensors by type, tuples
    element-wise, everything else by value (it is a compile-time constant)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return value.type
    if isinstance(value, np.ndarray):
        return Tensor(value).type
    if isinstance(value, (tuple, list)):
        return tuple(arg_spec(v) for v in value)
    return value


def flatten_tensors(args: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for a in args:
        if isinstance(a, (tuple, list)):
            out += flatten_tensors(a)
        elif isinstance(a, (Tensor, np.ndarray)) and not isinstance(a, Parameter):
            out.append(a)
    return out


def to_user(value: Any) -> Any:
    """Arrays become Tensors (copied: they may alias weights or constants)."""
    if isinstance(value, tuple):
        return tuple(to_user(v) for v in value)
    if isinstance(value, np.ndarray):
        return Tensor(np.array(value))
    return value


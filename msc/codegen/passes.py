"""The passes over the kernel IR, in the order they run, as ``optimizer/pipeline.py`` orders
the graph passes. Lowering (``lower.py``, ``fusion.py``, ``lanes.py``, ``half.py``) builds
the trees; these rewrite or cut them; only a renderer writes source after them.

``SCALAR_PASSES`` rewrite an elementwise op's expression where a fused loop computes it on
scalars, before its operands are substituted (each takes the lowerer, the node and the
expression, and returns the expression, itself where it does not apply):

1. ``round_float16``: a float16 result computed in float32 and rounded as numpy rounds
   (``half.rounded``), on a target that holds float16 as bits;
2. ``vector_math``: a float32 exp, tanh, sigmoid, erf, erfc or GeLU as the runtime's
   float64 form that LLVM vectorizes (``VECTOR_MATH``), on a ``vector_math`` target;
   a float16 result keeps its rounded form.

``MODULE_PASSES`` work on a lowered module's kernels (``Kernels``), each returning them:

1. ``outline_entry``: a large entry of a Numba target becomes a Python driver around
   kernels keyed by structure (``outline.py``);
2. ``spread_over_threads``: an outlined kernel that is one parallel loop nest takes its
   range as arguments, and the driver's calls doing enough work split it over threads
   (``threads.py``);
3. ``place_in_library``: the outlined kernels that read nothing of their module go to the
   kernel library's files (``library.py``), the others stay in the module;
4. ``foresee_calls``: the driver's calls of library kernels whose argument types can be
   foreseen, which workers compile ahead (``library.signatures``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from msc.codegen.half import rounded
from msc.codegen.library import in_library, kernel_file, kernel_lines, runtime_file, signatures
from msc.codegen.outline import outline, worth_outlining
from msc.codegen.pyrender import render_stmts
from msc.codegen.threads import spread
from msc.codegen.spec import KernelSpec
from msc.ir.dtypes import float32
from msc.ir.kernel import X0, Expr, Helper
from msc.ir.nodes import Node
from msc.ir.primitives import Op

#: The fused-loop forms of float32 ops on a ``vector_math`` target: numba_rt's functions
#: made of arithmetic and selects (LLVM vectorizes the loop; libm's scalar tanh and erf
#: cost 15-20 ns an element): exp, tanh and GeLU in float32, the others in float64
#: rounded to float32. (GeLU's helper is named after its form: ``_rt_gelu_tanh32``,
#: ``_rt_gelu_none32``.)
VECTOR_MATH = {Op.Exp: "_rt_exp32", Op.Tanh: "_rt_tanh32", Op.Sigmoid: "_rt_sigmoid64",
               Op.Erf: "_rt_erf64", Op.Erfc: "_rt_erfc64",
               Op.GeLU: "_rt_gelu_{approximate}32"}


def round_float16(lowerer: Any, node: Node, e: Expr) -> Expr:
    return rounded(e) if lowerer.is_half(node.out.type.dtype) else e


def vector_math(lowerer: Any, node: Node, e: Expr) -> Expr:
    if not lowerer.target.vector_math or node.op not in VECTOR_MATH or \
            lowerer.is_half(node.out.type.dtype) or \
            lowerer.compute_dtype(node, lowerer.lowering(node)) != float32:
        return e
    return Helper(VECTOR_MATH[node.op].format(**node.attr), (X0,))


SCALAR_PASSES = (round_float16, vector_math)


@dataclass(frozen=True)
class Kernels:
    """A lowered module's kernels as the module passes hand them on: the entry's,
    the module's other kernels (``callees``), the library's (kernel name, file stem), the
    library files' sources and user lines, and the foreseen calls (name, stem, argument
    types) with whether they are every call. ``outlines``: the target outlines a large
    entry (a Numba target, the entry not split); ``types``: the IR type of each value the
    entry names; ``arrays``: the entry's array parameters as Numba types them."""

    entry: KernelSpec
    callees: tuple[KernelSpec, ...]
    outlines: bool
    types: dict[str, Any]
    arrays: dict[str, Any]
    outlined: tuple[KernelSpec, ...] = ()
    library: tuple[tuple[str, str], ...] = ()
    files: dict[str, str] = field(default_factory=dict)
    lines: dict[str, tuple[tuple[int, str, int], ...]] = field(default_factory=dict)
    signatures: tuple[tuple[str, str, tuple[Any, ...]], ...] = ()
    foresees_all: bool = False


def outline_entry(k: Kernels) -> Kernels:
    if not (k.outlines and worth_outlining(k.entry)):
        return k
    driver, outlined = outline(k.entry, k.types)
    return dataclasses.replace(k, entry=driver, outlined=tuple(outlined))


def spread_over_threads(k: Kernels) -> Kernels:
    if not k.outlined:
        return k
    outlined, body = spread(list(k.outlined), k.entry.body)
    entry = dataclasses.replace(k.entry, body=body, lines=tuple(render_stmts(body)))
    return dataclasses.replace(k, entry=entry, outlined=tuple(outlined))


def place_in_library(k: Kernels) -> Kernels:
    library, files, lines, callees = [], {}, {}, k.callees
    for kernel in k.outlined:
        if in_library(kernel):
            stem, files[stem] = kernel_file(kernel)
            lines[stem] = kernel_lines(kernel)
            library.append((kernel.name, stem))
        else:
            callees += (kernel,)
    if files:  # (the runtime helpers' file first: the kernels import it)
        files = dict([runtime_file()]) | files
    return dataclasses.replace(k, callees=callees, library=tuple(library), files=files,
                               lines=lines)


def foresee_calls(k: Kernels) -> Kernels:
    stems = dict(k.library)
    calls, every = signatures(k.entry, k.arrays)
    foreseen = tuple((name, stems[name], args) for name, args in calls if name in stems)
    return dataclasses.replace(k, signatures=foreseen,
                               foresees_all=every and len(foreseen) == len(calls))


MODULE_PASSES = (outline_entry, spread_over_threads, place_in_library, foresee_calls)

"""Parts: loop nests and copies the native renderer cuts out of ``msc_forward`` into
functions of their own, which the runtime's ``msc_parallel`` runs over ranges of their
outer loops on its threads (``msc/runtime/native/msc_native.c``), as the numba target's
``threads.py`` spreads its outlined kernels.

A part reads what ``msc_forward`` declared: the weights', inputs' and workspace slots'
pointers, which it declares again from the same parameters, and scalars, which its
caller passes by value in a context struct of the part's own; a scalar the part assigns
is its own variable. ``Renderer.spread`` (``cgen.py``) decides what becomes a part.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from msc.codegen.native.scalars import ctype
from msc.codegen.native.views import View
from msc.ir import kernel as K


@dataclass
class Part:
    """A top-level parallel loop nest cut out of the function into a C function of its
    own, which ``msc_parallel`` runs over parts of its range on the runtime's threads:
    its lines, the scalars it reads from the function (passed by value; those it assigns
    are its own) and every name it reads."""

    name: str
    lines: list[str]
    captured: list[str]
    names: set[str]


#: The C names msc_forward's parameters have; a part receives them in its context.
FORWARD_PARAMS = (("char *const *", "blocks"), ("char *", "ws"), ("void *const *", "in"),
                  ("void *const *", "out"))
#: Kernel-IR names of a part's range ends (not identifiers: no kernel name meets them) and
#: of its loop's index.
PART_LO, PART_HI, PART_INDEX = "@lo", "@hi", "__part_index"
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def declared(decl: str) -> str:
    """The name a declaration (``T *const name = ...;``) declares."""
    return IDENTIFIER.findall(decl.split("=")[0])[-1]


def part_function(part: Part, given: dict[str, str], decls: dict[str, str],
                  types: dict[str, np.dtype]) -> str:
    """``part`` as a C function over ``[lo, hi)`` of its range, and the type of the
    context its caller passes: msc_forward's parameters and the scalars it reads."""
    fields = [f"{t}{name};" for t, name in FORWARD_PARAMS]
    fields += [f"{ctype(types[x])} {x};" for x in part.captured]
    body = [f"const {part.name}_ctx *c = ctx;"]
    body += [f"{t}{name} = c->{name};" for t, name in FORWARD_PARAMS]
    body += ["(void)blocks; (void)ws; (void)in; (void)out; (void)part;"]
    body += [d for name, d in given.items() if name in part.names]
    body += [d for name, d in decls.items() if name in part.names and name not in part.captured]
    body += [f"const {ctype(types[x])} {x} = c->{x};" for x in part.captured]
    return "\n".join(
        [f"typedef struct {{ {' '.join(fields)} }} {part.name}_ctx;",
         f"static int {part.name}(void *ctx, int64_t lo, int64_t hi, int part) {{"]
        + ["    " + line for line in body] + part.lines + ["    return 0;", "}"])


def row_length(env: dict[str, object], e: K.Helper) -> int:
    """How many elements a row helper's row has (its array's axes after the index)."""
    row = e.args[0]
    array, index = (row.array, row.index) if isinstance(row, K.Load) else (row, ())
    view = env.get(array.name) if isinstance(array, K.Name) else None
    return math.prod(view.shape[len(index):]) if isinstance(view, View) else 1


#: The fewest elements of a copy the runtime's ``msc_copy`` spreads on the threads where it
#: lies in the function's loops (where no part can hold it): im2col's chunks of columns.
COPY_ON_THREADS = 1 << 16


def copy_on_threads(dest: View, src: View) -> str:
    """The call copying ``src`` into ``dest`` (same shape and dtype) on the threads."""
    def ints(xs: tuple[int, ...]) -> str:
        return f"(const int64_t[]){{{', '.join(map(str, xs))}}}"
    return (f"msc_copy({dest.address()}, {src.address()}, {dest.dtype.itemsize}, "
            f"{len(dest.shape)}, {ints(dest.shape)}, {ints(dest.strides)}, {ints(src.strides)});")

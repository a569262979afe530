"""The native target: a model as a shared library with a C ABI (``msc compile --native``).

The entry graph, every shared graph inlined into it, is lowered with the numba target's
lowerings (``Lowerer`` with the ``NATIVE`` target object) and its kernel IR rendered as
one C function by ``cgen.py``. That function, a description of the model's inputs,
outputs and weights, and msc's C runtime (``msc/runtime/native``: the ABI of
``msc_model.h``, weights mapping and checking, BLAS products) are compiled by the system's
C compiler into ``libmsc_model.so``. Nothing Python remains: the weights are one file,
``weights.bin``, whose SHA-256 the library checks when it maps it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from msc.codegen.lower import Lowerer, Shared
from msc.codegen.native.cgen import View, c_strides, ctype, render_function
from msc.codegen.targets import NATIVE
from msc.errors import ExportError
from msc.ir.nodes import Module
from msc.ir.transform import InlineCalls
from msc.ir.types import RefType, tensor_of

RUNTIME = Path(__file__).resolve().parents[2] / "runtime" / "native"
ALIGN = 64  # bytes between blocks of the weights file and weights inside an arena
#: msc_model.h's dtype codes
DTYPE_CODES = {"bool": 0, "int8": 1, "uint8": 2, "int16": 3, "float16": 4, "int32": 5,
               "float32": 6, "int64": 7, "float64": 8, "uint16": 9, "uint32": 10, "uint64": 11}


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: np.dtype
    shape: tuple[int, ...]


@dataclass(frozen=True)
class NativeProgram:
    """A lowered and rendered model: the C source of ``msc_forward`` and its description.

    ``blocks``: the weights file's blocks in order, each (arena dtype or None for a
    constant, the weights' element offsets inside it); ``weights``: each Parameter's
    (name, block, element offset, dtype, shape); ``constants``: the tensor constants
    (blocks after the arenas); ``output``: the Python expression rebuilding the model's
    output structure from the list ``_r`` of outputs (the ctypes wrapper's)."""

    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    weights: tuple[tuple[str, int, int, np.dtype, tuple[int, ...]], ...]
    arenas: tuple[tuple[np.dtype, int], ...]  # dtype, elements
    constants: tuple[np.ndarray, ...]
    writes_weights: bool
    forward: str  # the C function
    workspace: int
    output: str


def lower_native(module: Module) -> NativeProgram:
    """``module``'s entry as one C function (see the module docstring)."""
    module = InlineCalls().module(module)
    graph = module.entry_graph
    shared = Shared()
    shared.kernels[graph.name] = "msc_forward"
    lowerer = Lowerer(graph, NATIVE, shared)
    kernel, output = lowerer.lower()
    leaves: list[str] = []
    lowerer.output_expr(graph.output, leaves)

    env: dict[str, Any] = {}
    decls: list[str] = []
    inputs = []
    for i, p in enumerate(graph.inputs):
        t = tensor_of(p.type)
        if t is None or isinstance(p.type, RefType):
            raise ExportError(f"the native target takes tensors as inputs; input {i} is {p.type}")
        dt = t.dtype.np
        inputs.append(Tensor(p.hint or f"input{i}", dt, t.shape))
        base = f"in{i}"
        decls.append(f"{ctype(dt)} *const {base} = ({ctype(dt)} *){('in')}[{i}];")
        env[lowerer.env[p]] = View(base, dt, t.shape, c_strides(t.shape))
    weights, arenas = [], []
    slots = {w: lowerer.slots[w] for w in graph.weights}
    for k, (buffer, offsets) in enumerate(lowerer.arenas):
        members = [w for w in graph.weights if slots[w][0] == k]
        dt = members[0].type.tensor.dtype.np  # type: ignore[union-attr]
        at, starts = 0, []
        for w in members:
            starts.append(at)
            weights.append((w.hint, k, at, dt, w.type.tensor.shape))  # type: ignore[union-attr]
            at += -(-w.type.tensor.size * dt.itemsize // ALIGN) * ALIGN // dt.itemsize  # type: ignore
        arenas.append((dt, at))
        base = f"w{k}"
        decls.append(f"{ctype(dt)} *const {base} = ({ctype(dt)} *)blocks[{k}];")
        env[buffer] = View(base, dt, (at,), (1,))
        env[offsets] = tuple(starts)
    for i, (c, name) in enumerate(shared.consts.items()):
        a = c.value
        base = f"k{i}"
        decls.append(f"{ctype(a.dtype)} *const {base} = ({ctype(a.dtype)} *)"
                     f"blocks[{len(arenas) + i}];")
        env[name] = View(base, a.dtype, a.shape, c_strides(a.shape))
    function = render_function(kernel.body, env, leaves)
    outputs = tuple(Tensor(f"output{k}", dt, shape) for k, (dt, shape) in enumerate(function.outputs))
    body = "\n".join(["int msc_forward(char *const *blocks, char *ws, void *const *in, "
                      "void *const *out) {", "    (void)blocks; (void)ws; (void)in; (void)out;"]
                     + ["    " + d for d in decls + function.decls] + function.lines
                     + ["    return 0;", "}"])
    writes = any(n.op.writes for n in graph.nodes)
    return NativeProgram(tuple(inputs), outputs, tuple(weights), tuple(arenas),
                         tuple(shared.arrays), writes, body, function.workspace, output)


# --- the weights file -----------------------------------------------------------------------


def weights_blob(program: NativeProgram, params: Sequence[np.ndarray]) -> tuple[bytes, list[int]]:
    """The weights file's bytes (each arena with its weights at their offsets, then each
    constant, every block aligned) and each block's byte offset."""
    parts, offsets, at = [], [], 0
    blocks = [np.zeros(n, dt) for dt, n in program.arenas]
    for (name, k, start, dt, shape), value in zip(program.weights, params):
        value = np.asarray(value)
        if value.shape != tuple(shape) or value.dtype != dt:
            raise ExportError(f"weight '{name}' is {value.dtype}{list(value.shape)}, the "
                              f"compiled model's is {dt}{list(shape)}")
        blocks[k][start:start + value.size] = value.reshape(-1)
    blocks += [np.ascontiguousarray(c) for c in program.constants]
    for b in blocks:
        pad = -at % ALIGN
        parts.append(b"\0" * pad)
        at += pad
        offsets.append(at)
        data = b.tobytes()
        parts.append(data)
        at += len(data)
    return b"".join(parts), offsets


# --- the C file -----------------------------------------------------------------------------


def _info(t: Tensor | tuple[Any, ...], offset: int = 0, nbytes: int = 0) -> str:
    name, dt, shape = (t.name, t.dtype, t.shape) if isinstance(t, Tensor) else t
    if len(shape) > 8:
        raise ExportError(f"the native target takes tensors of up to 8 dimensions, not {len(shape)}")
    dims = ", ".join(map(str, shape)) or "0"
    return (f'    {{"{name}", {DTYPE_CODES[np.dtype(dt).name]}, {len(shape)}, {{{dims}}}, '
            f"{offset}, {nbytes}}},")


def c_source(program: NativeProgram, blob: bytes, offsets: Sequence[int], header: str) -> str:
    """model.c: the forward function and the description the runtime reads."""
    weights = []
    for name, k, start, dt, shape in program.weights:
        weights.append(_info((name, dt, shape), offsets[k] + start * dt.itemsize,
                             int(np.prod(shape)) * dt.itemsize))
    tables = ["static const msc_info INPUTS[] = {", *(_info(t) for t in program.inputs),
              "    {0}", "};", "static const msc_info OUTPUTS[] = {",
              *(_info(t) for t in program.outputs), "    {0}", "};",
              "static const msc_info WEIGHTS[] = {", *weights, "    {0}", "};",
              f"static const int64_t BLOCKS[] = {{{', '.join(map(str, offsets)) or '0'}}};"]
    desc = ("const msc_desc msc_model_desc = {"
            f"{len(program.inputs)}, {len(program.outputs)}, {len(program.weights)}, "
            f"{len(offsets)}, INPUTS, OUTPUTS, WEIGHTS, BLOCKS, {len(blob)}, "
            f'"{hashlib.sha256(blob).hexdigest()}", {program.workspace}, '
            f"{int(program.writes_weights)}}};")
    return "\n".join([f"/* {header} */", '#include "msc_native.h"', "", *tables, desc, "",
                      program.forward, ""])


# --- compiling ------------------------------------------------------------------------------


def blas_library() -> Path | None:
    """OpenBLAS from the scipy-openblas32 package (the ``native`` extra), or None."""
    try:
        import scipy_openblas32  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(scipy_openblas32.get_lib_dir()) / f"lib{scipy_openblas32.get_library()}.so"
    return path if path.exists() else None


def compile_library(folder: Path, triple: str | None = None, blas: Path | None = None) -> list[str]:
    """Compile ``folder/model.c`` with msc's runtime into ``folder/libmsc_model.so``;
    with ``blas``, link that library, copied into the folder and found through $ORIGIN.
    Returns the command."""
    cc = os.environ.get("CC") or (f"{triple}-gcc" if triple else "cc")
    if shutil.which(cc) is None:
        raise ExportError(f"the native target needs a C compiler: '{cc}' is not on PATH"
                          + (f" (for {triple}: install gcc-{triple.replace('_', '-')})"
                             if triple else ""))
    cmd = [cc, "-std=gnu11", "-O3", "-fPIC", "-shared", "-fvisibility=hidden",
           "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math"]
    cmd += [] if triple else ["-march=native"]
    cmd += [f"-I{RUNTIME}", "-o", str(folder / "libmsc_model.so"), str(folder / "model.c"),
            str(RUNTIME / "msc_native.c")]
    if blas is not None:
        shutil.copy2(blas, folder / blas.name)
        cmd += ["-DMSC_BLAS", f"-L{folder}", f"-l:{blas.name}", "-Wl,-rpath,$ORIGIN"]
    cmd += ["-lm", "-lpthread", "-ldl"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise ExportError(f"the C compiler failed on the generated model.c:\n"
                          f"{done.stderr[-4000:]}")
    return cmd


def wrapper_source(program: NativeProgram, header: str) -> str:
    """msc_model.py: the ctypes wrapper (``forward``) for Python users without msc."""
    from msc.codegen.render import _environment as environment

    def table(tensors: Sequence[Tensor]) -> str:
        return repr([(t.name, t.dtype.name, tuple(t.shape)) for t in tensors])
    return environment().get_template("native_wrapper.py.j2").render(
        header=header, inputs=table(program.inputs), outputs=table(program.outputs),
        codes=repr(DTYPE_CODES), output=program.output)

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
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from msc._atomic import write_atomic
from msc.codegen.lower import Lowerer, Shared
from msc.codegen.native.cgen import ctype, render_function, storage
from msc.codegen.native.views import View, c_strides
from msc.codegen.targets import NATIVE
from msc.errors import ExportError, InternalCompilerError, UnsupportedSyntaxError
from msc.ir.nodes import Module
from msc.ir.primitives import Op
from msc.ir.rewrite import walk
from msc.ir.transform import InlineCalls
from msc.ir.types import RefType, tensor_of

RUNTIME = Path(__file__).resolve().parents[2] / "runtime" / "native"
LIBRARY = "libmsc_model.so"
HEADER = "msc_model.h"
WEIGHTS = "weights.bin"
ALIGN = 64  # bytes between blocks of the weights file and weights inside an arena
#: msc_model.h's dtype codes
DTYPE_CODES = {"bool": 0, "int8": 1, "uint8": 2, "int16": 3, "float16": 4, "int32": 5,
               "float32": 6, "int64": 7, "float64": 8, "uint16": 9, "uint32": 10, "uint64": 11}


@dataclass(frozen=True)
class TensorSpec:
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

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
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
    for node in walk(graph):
        if node.op is Op.Recurse:  # (one C function, every call inlined into it)
            raise UnsupportedSyntaxError(
                "the native target cannot compile recursion whose depth a tensor decides "
                "(it inlines every call into one C function): use the numba, python or cuda "
                "target, or write the recursion as a while loop over tensors", node.loc)
    shared = Shared()
    shared.kernels[graph.name] = "msc_forward"
    lowerer = Lowerer(graph, NATIVE, shared)
    kernel, output = lowerer.lower()
    leaves: list[str] = []
    lowerer.output_expr(graph.output, leaves)

    env: dict[str, Any] = {}
    decls: list[str] = []

    def bind(base: str, source: str, dt: np.dtype, shape: tuple[int, ...]) -> View:
        held = storage(dt)  # (float16 as its bits)
        decls.append(f"{ctype(held)} *const {base} = ({ctype(held)} *){source};")
        return View(base, held, tuple(shape), c_strides(shape))

    inputs = []
    for i, p in enumerate(graph.inputs):
        t = tensor_of(p.type)
        if t is None or isinstance(p.type, RefType):
            raise ExportError(f"the native target takes tensors as inputs; input {i} is {p.type}")
        inputs.append(TensorSpec(p.hint or f"input{i}", t.dtype.np, t.shape))
        env[lowerer.env[p]] = bind(f"in{i}", f"in[{i}]", t.dtype.np, t.shape)
    weights = []  # in graph.weights' order, which is build.weights'
    sizes = [0] * len(lowerer.arenas)
    starts: list[list[int]] = [[] for _ in lowerer.arenas]
    dtypes: list[Any] = [None] * len(lowerer.arenas)
    for w in graph.weights:
        k = lowerer.slots[w][0]
        t = w.type.tensor  # type: ignore[union-attr]
        dt = dtypes[k] = t.dtype.np
        weights.append((w.hint, k, sizes[k], dt, t.shape))
        starts[k].append(sizes[k])
        sizes[k] += -(-t.size * dt.itemsize // ALIGN) * ALIGN // dt.itemsize
    arenas = list(zip(dtypes, sizes))
    for k, (buffer, offsets) in enumerate(lowerer.arenas):
        env[buffer] = bind(f"w{k}", f"blocks[{k}]", dtypes[k], (sizes[k],))
        env[offsets] = tuple(starts[k])
    for i, (c, name) in enumerate(shared.consts.items()):
        env[name] = bind(f"k{i}", f"blocks[{len(arenas) + i}]", c.value.dtype, c.value.shape)
    function = render_function(kernel.body, env, leaves, decls)
    types = lowerer.value_types()
    outputs = tuple(TensorSpec(f"output{k}", tensor_of(types[leaf]).dtype.np  # type: ignore
                               if leaf in types and tensor_of(types[leaf]) else dt, shape)
                    for k, (leaf, (dt, shape)) in enumerate(zip(leaves, function.outputs)))
    body = "\n".join([*function.parts, "int msc_forward(char *const *blocks, char *ws, void *const *in, "
                      "void *const *out) {", "    (void)blocks; (void)ws; (void)in; (void)out;"]
                     + ["    " + d for d in decls + function.decls] + function.lines
                     + ["    return 0;", "}"])
    writes = any(n.op.writes for n in walk(graph))  # (in branches and loops too)
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


def _info(t: TensorSpec | tuple[Any, ...], offset: int = 0, nbytes: int = 0) -> str:
    name, dt, shape = (t.name, t.dtype, t.shape) if isinstance(t, TensorSpec) else t
    if len(shape) > 8:
        raise ExportError(f"the native target takes tensors of up to 8 dimensions, not {len(shape)}")
    dims = ", ".join(map(str, shape)) or "0"
    return (f'    {{"{name}", {DTYPE_CODES[np.dtype(dt).name]}, {len(shape)}, {{{dims}}}, '
            f"{offset}, {nbytes}}},")


def c_source(program: NativeProgram, blob: bytes, offsets: Sequence[int], header: str,
             embed: bool = False) -> str:
    """model.c: the forward function and the description the runtime reads; with
    ``embed``, the weights file (``weights.bin`` beside it when it compiles) inside."""
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
            f"{int(program.writes_weights)}, {'msc_embedded_weights' if embed else 'NULL'}}};")
    inside = ["extern const char msc_embedded_weights[];",
              '__asm__(".section .rodata\\n.balign 64\\n.hidden msc_embedded_weights\\n"',
              '        "msc_embedded_weights:\\n.incbin \\"' + WEIGHTS + '\\"\\n.previous");'] \
        if embed else []
    return "\n".join([f"/* {header} */", '#include "msc_native.h"', "", *inside, *tables, desc,
                      "", program.forward, ""])


# --- compiling ------------------------------------------------------------------------------


def blas_library(triple: str | None = None) -> Path | None:
    """OpenBLAS from the scipy-openblas32 package (the ``native`` extra) for this machine,
    or ``$MSC_NATIVE_BLAS`` (another machine's build of that library: a cross build's);
    None without one (the library's own loops compute products)."""
    given = os.environ.get("MSC_NATIVE_BLAS")
    if given:
        return Path(given)
    if triple is not None:
        return None
    try:
        import scipy_openblas32  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(scipy_openblas32.get_lib_dir()) / f"lib{scipy_openblas32.get_library()}.so"
    return path if path.exists() else None


def compiler_flags(triple: str | None, blas: Path | None) -> list[str]:
    """The C compiler and the flags both of a library's sources compile with."""
    cc = os.environ.get("CC") or (f"{triple}-gcc" if triple else "cc")
    if shutil.which(cc) is None:
        raise ExportError(f"the native target needs a C compiler: '{cc}' is not on PATH"
                          + (f" (for {triple}: install gcc-{triple})" if triple else ""))
    # ISO C's floating point: no contraction into fused multiply-adds, so the library
    # computes what the numba target computes; errno and traps are never read
    cmd = [cc, "-std=gnu11", "-O3", "-fPIC", "-fvisibility=hidden", "-ffp-contract=off",
           "-fno-math-errno", "-fno-trapping-math"]
    # GCC's tuning for Intel's AVX-512 cores vectorizes loops 8 floats wide, half what the
    # registers hold: the softmax's exponentials took twice as long
    wide = ["-mprefer-vector-width=512"] if platform.machine() in ("x86_64", "AMD64") else []
    return cmd + ([] if triple else ["-march=native", *wide]) + [f"-I{RUNTIME}"] + \
        (["-DMSC_BLAS"] if blas is not None else [])


def compile_command(folder: Path, triple: str | None, blas: Path | None,
                    runtime: Path | None = None) -> list[str]:
    """The C compiler's command building ``folder/libmsc_model.so`` from ``model.c`` and
    msc's runtime (its source, or ``runtime``, an object compiled from it), linking
    ``blas`` (found beside the library through $ORIGIN)."""
    cmd = compiler_flags(triple, blas) + ["-shared", "-o", str(folder / LIBRARY),
                                          str(folder / "model.c"),
                                          str(runtime or RUNTIME / "msc_native.c")]
    if blas is not None:
        cmd += [f"-L{blas.parent}", f"-l:{blas.name}", "-Wl,-rpath,$ORIGIN"]
    return cmd + ["-lm", "-lpthread", "-ldl"]


def runtime_sources() -> list[str]:
    """The text of msc's C runtime, part of every compiled library's cache key."""
    return [f.read_text() for f in sorted(RUNTIME.iterdir()) if f.suffix in (".c", ".h")]


def runtime_object(cache: Path, triple: str | None, blas: Path | None) -> Path | None:
    """msc's runtime compiled once per machine, compiler and flags into ``cache`` (its
    product kernels take the C compiler several seconds, the model's code often less);
    None where it cannot be written there."""
    flags = compiler_flags(triple, blas)
    key = hashlib.sha256("\0".join(
        [*runtime_sources(), *flags, compiler_version(flags[0])]).encode()).hexdigest()
    obj = cache / f"runtime-{key}.o"
    if obj.exists():
        return obj
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f".runtime-{key}-{os.getpid()}.o"
        done = subprocess.run(flags + ["-c", "-o", str(tmp), str(RUNTIME / "msc_native.c")],
                              capture_output=True, text=True)
        if done.returncode != 0:
            tmp.unlink(missing_ok=True)
            return None  # (the whole command then reports the compiler's error)
        os.replace(tmp, obj)
    except OSError:
        return None
    return obj


def compile_library(folder: Path, cache: Path | None, triple: str | None = None,
                    blas: Path | None = None) -> bool:
    """Compile ``folder/model.c`` into ``folder/libmsc_model.so`` (see ``compile_command``),
    or copy the library an earlier compile of the same source and command left in
    ``cache``; ``blas`` is copied into the folder. Returns whether the cache served."""
    if blas is not None:
        shutil.copy2(blas, folder / blas.name)
    cmd = compile_command(folder, triple, blas)
    key = hashlib.sha256("\0".join(
        [(folder / "model.c").read_text(), *runtime_sources(),
         *(c for c in cmd if not c.startswith(("-L", "-o", str(folder)))), compiler_version(cmd[0])]
    ).encode()).hexdigest()
    cached = cache / f"{key}.so" if cache is not None else None
    if cached is not None and cached.exists():
        shutil.copy2(cached, folder / LIBRARY)
        return True
    runtime = runtime_object(cache, triple, blas) if cache is not None else None
    if runtime is not None:
        cmd = compile_command(folder, triple, blas, runtime)
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=folder)  # (.incbin's file)
    if done.returncode != 0:
        raise InternalCompilerError(  # (msc wrote the C: its errors are msc's)
            f"the C compiler failed on the generated model.c ({' '.join(cmd)}):\n"
            f"{done.stderr[-4000:]}")
    if cached is not None:
        try:
            cache.mkdir(parents=True, exist_ok=True)
            write_atomic(cached, (folder / LIBRARY).read_bytes())
        except OSError:
            pass  # a cache that cannot be written only costs the next compile its time
    return False


def compiler_version(cc: str) -> str:
    done = subprocess.run([cc, "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0] if done.stdout else cc


def wrapper_source(program: NativeProgram, header: str) -> str:
    """msc_model.py: the ctypes wrapper (``forward``) for Python users without msc."""
    from msc.codegen.render import environment

    def table(tensors: Sequence[TensorSpec]) -> str:
        return repr([(t.name, t.dtype.name, tuple(t.shape)) for t in tensors])
    return environment().get_template("native_wrapper.py.j2").render(
        header=header, inputs=table(program.inputs), outputs=table(program.outputs),
        weights=repr([(n, dt.name, tuple(shape)) for n, _, _, dt, shape in program.weights]),
        codes=repr(DTYPE_CODES), output=program.output)


def write_native(built: Any, out_dir: str | os.PathLike[str], *, entry_name: str,
                 input_specs: Sequence[Any], triple: str | None = None,
                 cache: Path | None = None, embed: bool = False) -> Any:
    """Write the native artifact of ``built`` (a ``compiler.Build``) into ``out_dir``:
    libmsc_model.so, msc_model.h, weights.bin (inside the library with ``embed``),
    msc_model.py, model.c (the generated C), the BLAS library when one is linked, and
    manifest.json. Like every artifact, the folder appears whole or not at all."""
    import time

    from msc._version import VERSION
    from msc.codegen.artifact import describe_spec, write_folder

    t0 = time.perf_counter()
    program = lower_native(built.module)
    params = [np.asarray(p.asnumpy(), order="C") for p in built.weights]
    blob, offsets = weights_blob(program, params)
    header = f"Generated by msc {VERSION} from {entry_name} for target 'native'" + \
        (f" ({triple})" if triple else "") + "."
    source = c_source(program, blob, offsets, header, embed)
    codegen = time.perf_counter() - t0
    blas = blas_library(triple)

    def fill(tmp: Path, stage: list[str]) -> dict[str, Any]:
        timings = dict(built.timings, codegen=codegen)
        stage[0] = "writing model.c"
        (tmp / "model.c").write_text(source, encoding="utf-8")
        stage[0] = f"writing {WEIGHTS}"
        (tmp / WEIGHTS).write_bytes(blob)
        stage[0] = "compiling model.c"
        t1 = time.perf_counter()
        served = compile_library(tmp, cache, triple, blas)
        timings["cc (cached)" if served else "cc"] = time.perf_counter() - t1
        if embed:  # one file: the weights are inside the library
            (tmp / WEIGHTS).unlink()
        shutil.copy2(RUNTIME / HEADER, tmp / HEADER)
        (tmp / "msc_model.py").write_text(wrapper_source(program, header), encoding="utf-8")
        return {
            "format": 1, "msc_version": VERSION, "target": "native", "triple": triple,
            "entry": entry_name, "module": "msc_model.py", "library": LIBRARY, "header": HEADER, "weights": WEIGHTS,
            "blas": blas.name if blas is not None else None,
            "input_signature": [describe_spec(s) for s in input_specs],
            "inputs": [{"name": t.name, "dtype": t.dtype.name, "shape": list(t.shape)}
                       for t in program.inputs],
            "outputs": [{"dtype": t.dtype.name, "shape": list(t.shape)} for t in program.outputs],
            "weight_arrays": [{"name": n, "dtype": dt.name, "shape": list(shape)}
                              for n, _, _, dt, shape in program.weights],
            "writes_weights": program.writes_weights, "embedded_weights": embed,
            "workspace_bytes": program.workspace,
            "weights_sha256": hashlib.sha256(blob).hexdigest(),
            "timings": timings,
            "files": sorted(os.listdir(tmp)),
        }

    return write_folder(out_dir, LIBRARY, "msc_forward", fill,
                        checked=(LIBRARY, "model.c") + (() if embed else (WEIGHTS,)))

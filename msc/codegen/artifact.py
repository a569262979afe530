"""Artifact folders: the generated module, ``weights.npz`` and ``manifest.json``.

A folder appears complete or not at all: it is built in a temporary sibling and renamed
into place, and an existing artifact is swapped out only once the new one is complete.
Artifacts never import msc; this module is the only code that writes or reads them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from msc._version import VERSION
from msc.codegen.library import KernelWatch, compiled_for, learn, remember, share
from msc.codegen.linemap import raise_numba_failure, remember_lines, without_colours
from msc.codegen.numba_worker import foresee, stop
from msc.codegen.render import import_file, line_table
from msc.codegen.targets import target_named
from msc.errors import InternalCompilerError, MscError
from msc.ir.nodes import Const, Graph, Value
from msc.ir.primitives import Op
from msc.ir.types import TensorType, TupleType

if TYPE_CHECKING:
    from msc.codegen.spec import ModuleSpec

MANIFEST = "manifest.json"
WEIGHTS = "weights.npz"
FORMAT = 1  # bump when the manifest's fields change meaning

#: ``progress(kernel, seconds, note, watch=None)``: called with None (and a ``KernelWatch``
#: of the library kernels, if any) before Numba compiles, then with the time and a note on
#: the library kernels (how many compiled, how many were cached).
Progress = Callable[..., None]


class ArtifactError(MscError, OSError):
    """An artifact folder that cannot be written, or that is missing or corrupt when read."""


@dataclass(frozen=True)
class ArtifactInfo:
    """Where an artifact went and what it holds (``manifest`` is what manifest.json says)."""

    path: Path
    module_file: str
    kernel: str
    manifest: dict[str, Any]

    @property
    def timings(self) -> dict[str, float]:
        return dict(self.manifest["timings"])


# --- writing ------------------------------------------------------------------------------


def write_artifact(compiled: Any, out_dir: str | os.PathLike[str], *, entry_name: str,
                   input_specs: Sequence[Any], precompile: bool = False,
                   progress: Progress | None = None, library: Path | None = None,
                   ) -> ArtifactInfo:
    """Write the code of ``compiled`` (a ``compiler.Compiled`` generated in the layout
    "artifact:<entry_name>") into the folder ``out_dir``.

    With ``precompile`` and the numba target, the kernel is compiled once on zero inputs
    before the folder is renamed into place, so Numba's cache ships with the artifact and
    the time shows as the ``numba`` phase (``library``: the machine's kernel library,
    which seeds the artifact's kernels/ folder and keeps what it adds). Raises
    ``ArtifactError`` naming the folder when it cannot be written; no partial folder is
    left behind.
    """
    spec, source, digest = compiled.spec, compiled.source, compiled.generated.digest
    arrays = weight_arrays(compiled, spec)
    timings = dict(compiled.timings)
    module_file = f"{spec.kernel.name}.py"

    def fill(tmp: Path, stage: list[str]) -> dict[str, Any]:
        start = time.perf_counter()
        stage[0] = f"writing {module_file}"
        (tmp / module_file).write_text(source, encoding="utf-8")
        stage[0] = f"writing {WEIGHTS}"
        _save_weights(tmp / WEIGHTS, spec.weights, arrays)
        timings["write"] = time.perf_counter() - start
        if precompile and target_named(spec.target).numba:
            stage[0] = "compiling with Numba"
            timings["numba"] = precompile_kernel(tmp / module_file, spec, progress,
                                                 files=compiled.deps.files, library=library)
        return build_manifest(compiled, spec, arrays, timings=timings, entry_name=entry_name,
                              input_specs=input_specs, digest=digest)

    return write_folder(out_dir, module_file, spec.kernel.name, fill)


def export_artifact(compiled: Any, out_dir: str | os.PathLike[str]) -> ArtifactInfo:
    """Write the artifact of a compile-cache entry made for it (``compiled.entry_dir``, of
    layout "artifact:<name>"): its module and Numba's cache are copied, the weights are
    the Parameters' current values."""
    entry, manifest = Path(compiled.entry_dir), dict(compiled.manifest["artifact"])
    module_file = manifest["module"]
    arrays = [np.asarray(p.asnumpy(), order="C") for p in compiled.weights] + \
        [np.asarray(c, order="C") for c in compiled.constants]
    names = [w["name"] for w in manifest["weight_arrays"]]

    def fill(tmp: Path, stage: list[str]) -> dict[str, Any]:
        start = time.perf_counter()
        stage[0] = f"copying {module_file} and Numba's cache from {entry}"
        shutil.copy2(entry / module_file, tmp / module_file)
        for folder in ("__pycache__", "kernels"):  # (kernels: the library's files it uses)
            if (entry / folder).is_dir():
                shutil.copytree(entry / folder, tmp / folder)
        stage[0] = f"writing {WEIGHTS}"
        _save_weights(tmp / WEIGHTS, names, arrays)
        manifest["timings"] = {**compiled.timings, "write": time.perf_counter() - start}
        return manifest

    return write_folder(out_dir, module_file, Path(module_file).stem, fill)


def write_folder(out_dir: str | os.PathLike[str], module_file: str, kernel: str,
                 fill: Callable[[Path, list[str]], dict[str, Any]],
                 checked: Sequence[str] = ()) -> ArtifactInfo:
    """Build the artifact in a temporary sibling with ``fill(tmp, stage)`` (which returns
    the manifest, less checksums, and keeps ``stage[0]`` saying what it is doing), then
    swap it into place. The manifest holds the SHA-256 of ``module_file`` and the weights
    (or of the files ``checked`` names)."""
    out = Path(os.path.abspath(out_dir))
    stage = [""]
    _check_replaceable(out)
    created = _make_parents(out)
    tmp: Path | None = None
    try:
        stage[0] = "creating a temporary folder beside it"
        tmp = _make_temp_sibling(out)
        manifest = fill(tmp, stage)
        stage[0] = "keeping the files msc did not write"
        _keep_users_files(out, tmp)
        manifest["checksums"] = {n: file_sha256(tmp / n)
                                 for n in (checked or (module_file, WEIGHTS))}
        stage[0] = f"writing {MANIFEST}"
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        stage[0] = "renaming the finished folder into place"
        _swap_into_place(tmp, out)
    except ArtifactError:
        _discard(tmp, created)
        raise
    except OSError as e:
        _discard(tmp, created)
        raise ArtifactError(f"cannot write the artifact folder {out}: {e.strerror or e} "
                            f"(while {stage[0]})") from None
    except BaseException:
        _discard(tmp, created)
        raise
    return ArtifactInfo(out, module_file, kernel, manifest)


def weight_arrays(compiled: Any, spec: ModuleSpec) -> list[np.ndarray]:
    """The weights (the Parameters' current values) then the tensor constants, in WEIGHTS order."""
    params = [np.asarray(p.asnumpy(), order="C") for p in compiled.weights]
    arrays = params + [np.asarray(c, order="C") for c in spec.constants]
    if len(arrays) != len(spec.weights) or len(set(spec.weights)) != len(spec.weights):
        raise InternalCompilerError(f"weights {list(spec.weights)} do not match the "
                                    f"{len(arrays)} arrays of the compiled graph")
    for name, a in zip(spec.weights, arrays):
        if a.dtype.hasobject:
            raise InternalCompilerError(f"weight '{name}' holds Python objects")
    return arrays


def _raised_by_model(e: Exception, path: Path) -> bool:
    """Whether ``e`` is one the generated code raises itself (a ``raise``/``assert`` of the
    model under a tensor condition, an index checked at run time): zeros may well trip
    it, and the kernel compiled before it ran."""
    source = path.read_text(encoding="utf-8")
    return f"raise {type(e).__name__}({str(e)!r})" in source or \
        (type(e) is IndexError and "raise IndexError(" in source)


def precompile_kernel(path: Path, spec: ModuleSpec, progress: Progress | None,
                      arrays: Sequence[np.ndarray] | None = None,
                      files: Iterable[str] = (), *, library: Path | None = None) -> float:
    """Import the generated module and run it once on zeros (and copies of ``arrays``, the
    weights and constants, else of the bundled weights), prints silenced, so Numba
    compiles (and caches) the kernel now. Returns the seconds it took. The module is
    imported under its file's stem, as ``import <stem>`` would: Numba's cache records
    that name. A Numba failure names the user's line (``files``: the compile's sources)."""
    name = path.stem
    previous = sys.modules.get(name)
    start = time.perf_counter()
    stems = [stem for stem, _ in spec.library_files]
    kernels = path.parent / "kernels" if spec.library_dir is None else Path(spec.library_dir)
    seeded = bool(stems) and library is not None and spec.library_dir is None
    if seeded:  # an artifact's own kernels/: what the machine's library already compiled
        share(library, kernels, stems)  # type: ignore[arg-type]
    watch = KernelWatch(kernels, sorted({stem for _, stem in spec.library}))
    if progress is not None:
        progress(spec.kernel.name, None, watch=watch if spec.library else None)
    if seeded and compiled_for(library, spec):  # type: ignore[arg-type]
        seconds = time.perf_counter() - start  # every call compiled: Numba need not start
        if progress is not None:
            progress(spec.kernel.name, seconds, watch.summary())
        return seconds
    remember_lines(path, line_table(spec, path.read_text(encoding="utf-8")))
    try:
        module = import_file(str(path), name)
        zeros = [np.zeros(shape, dtype) for _, dtype, shape in spec.inputs]
        # packed copies: the run may write weights in place; and its prints are not the user's
        values = module.load_weights() if arrays is None else arrays
        arenas, _ = module.pack_weights(values[:len(module.SLOTS)])
        helpers = foresee(str(path), module)  # spare CPUs compile library kernels ahead
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                module.run(*zeros, *arenas, *values[len(module.SLOTS):])
        finally:
            stop(helpers)
    except (MscError, OSError):
        raise
    except Exception as e:  # noqa: BLE001 - a module that does not compile is msc's bug
        if _raised_by_model(e, path):
            return time.perf_counter() - start  # compiled; the model's own check fired
        raise_numba_failure(e, path, files)
        first = without_colours(str(e)).strip().splitlines()[:12]
        err = InternalCompilerError(f"the generated module {path.name} failed on zero "
                                    f"inputs: {type(e).__name__}: " + "\n".join(first))
        raise err from (e if os.environ.get("MSC_DEBUG") == "1" else None)
    finally:
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)
    seconds = time.perf_counter() - start
    if seeded:  # and the library keeps what this compile added: files and signatures
        with contextlib.suppress(OSError):
            share(kernels, library, stems)  # type: ignore[arg-type]
            learn(kernels, library, stems)  # type: ignore[arg-type]
            remember(library, stems)  # type: ignore[arg-type]
    if progress is not None:
        progress(spec.kernel.name, seconds,
                 watch.summary() if spec.library else "")
    return seconds


def _save_weights(path: Path, names: Sequence[str], arrays: Sequence[np.ndarray]) -> None:
    # NOTE: numeric arrays only (checked in weight_arrays), so the file loads with
    # allow_pickle=False; np.savez itself would pickle object arrays silently.
    np.savez(path, **dict(zip(names, arrays)))


# --- the manifest -------------------------------------------------------------------------


def build_manifest(compiled: Any, spec: ModuleSpec, arrays: Sequence[np.ndarray], *,
                   entry_name: str, input_specs: Sequence[Any], digest: str,
                   timings: dict[str, float]) -> dict[str, Any]:
    """Everything a reader needs to trust and call the artifact, as plain JSON data."""
    graph = compiled.module.entry_graph
    return {
        "format": FORMAT,
        "msc_version": VERSION,
        "target": spec.target,
        "entry": entry_name,
        "graph": graph.name,
        "graphs": [g.name for g in compiled.module.graphs],
        "module": f"{spec.kernel.name}.py",
        "weights": WEIGHTS,
        "input_signature": [describe_spec(s) for s in input_specs],
        "inputs": [{"name": n, "dtype": d, "shape": list(s)} for n, d, s in spec.inputs],
        "weight_arrays": [{"name": n, "dtype": a.dtype.name, "shape": list(a.shape)}
                          for n, a in zip(spec.weights, arrays)],
        "output": describe_output(graph, graph.output),
        "dependency_hash": digest,
        "pass_report": compiled.report.as_dicts(),
        "timings": dict(timings),
    }


def describe_spec(spec: Any) -> dict[str, Any]:
    """One argument of the signature: a tensor type, a tuple of them, or a constant."""
    if isinstance(spec, TensorType):
        return {"dtype": spec.dtype.np_name, "shape": list(spec.shape)}
    if isinstance(spec, (tuple, list)):
        return {"tuple": [describe_spec(s) for s in spec]}
    return {"constant": _jsonable(spec)}


def describe_output(graph: Graph, value: Value) -> dict[str, Any]:
    """The structure ``forward`` returns: arrays by dtype and shape, constants by value."""
    if isinstance(value, Const):
        if isinstance(value.value, np.ndarray):
            return {"dtype": value.value.dtype.name, "shape": list(value.value.shape)}
        return {"constant": _jsonable(value.value)}
    producer = next((n for n in graph.nodes if n.out is value), None)
    if producer is not None and producer.op is Op.MakeTuple:
        return {"tuple": [describe_output(graph, v) for v in producer.inputs]}
    return _describe_type(value.type)


def _describe_type(t: Any) -> dict[str, Any]:
    if isinstance(t, TensorType):
        return {"dtype": t.dtype.np_name, "shape": list(t.shape)}
    if isinstance(t, TupleType):
        return {"tuple": [_describe_type(e) for e in t.elems]}
    return {"type": str(t)}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return {"python_type": type(value).__name__}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- the folder swap ----------------------------------------------------------------------


def _check_replaceable(out: Path) -> None:
    """An existing ``out`` may be replaced only if it is an artifact or empty: ``-o .`` must
    never delete someone's project."""
    if out.is_symlink():
        raise ArtifactError(f"cannot write the artifact folder {out}: it is a symbolic link")
    if not out.exists():
        return
    if not out.is_dir():
        raise ArtifactError(f"cannot write the artifact folder {out}: a file of that name "
                            "exists")
    try:
        entries = os.listdir(out)
    except OSError as e:
        raise ArtifactError(f"cannot write the artifact folder {out}: {e.strerror}") from None
    if entries and MANIFEST not in entries:
        raise ArtifactError(f"refusing to replace {out}: it is not empty and holds no "
                            f"{MANIFEST}, so it is not an msc artifact folder")


def _keep_users_files(out: Path, tmp: Path) -> list[str]:
    """Copy into the new folder ``tmp`` what the user added to the artifact folder ``out``
    it replaces (all but msc's own files: the manifest, the module it names, the weights,
    Numba's cache and the kernels), so that a recompile never deletes them; returns their
    names. A file of the user's that the new artifact would overwrite is refused."""
    if not out.is_dir() or out.is_symlink():
        return []
    own = {MANIFEST, WEIGHTS, "__pycache__", "kernels"}
    with contextlib.suppress(ArtifactError):  # (a damaged manifest names no module)
        manifest = read_manifest(out)
        own.add(manifest["module"])
        own.update(f for f in manifest.get("files", ()) if isinstance(f, str) and "/" not in f)
    kept = [name for name in sorted(os.listdir(out)) if name not in own]
    clash = [name for name in kept if os.path.lexists(tmp / name)]
    if clash:
        raise ArtifactError(f"refusing to replace {out}: {', '.join(clash)} there "
                            "is not msc's, and the new artifact writes a file of that name")
    for name in kept:
        if (out / name).is_dir() and not (out / name).is_symlink():
            shutil.copytree(out / name, tmp / name, symlinks=True)
        else:
            shutil.copy2(out / name, tmp / name, follow_symlinks=False)
    return kept


def _make_parents(out: Path) -> list[Path]:
    """Create the missing parents of ``out``; returns those created, outermost first."""
    missing = [p for p in reversed(out.parents) if not p.exists()]
    try:
        for p in missing:
            p.mkdir()
    except OSError as e:
        _remove_empty(missing)
        raise ArtifactError(f"cannot write the artifact folder {out}: cannot create {p}: "
                            f"{e.strerror}") from None
    return missing


def _make_temp_sibling(out: Path) -> Path:
    # NOTE: os.mkdir (not tempfile.mkdtemp, which forces mode 0o700) so the finished
    # folder gets the same permissions as any folder the user creates.
    _remove_stale_siblings(out)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    os.mkdir(tmp)
    return tmp


def _remove_stale_siblings(out: Path) -> None:
    """Build folders of earlier compiles to ``out`` that were killed mid-way: ours by name
    (``.NAME.tmp-PID-HEX``, or its ``-old`` swap), owned by this user, and named after a
    process that no longer exists. A live process's folder is left alone."""
    try:
        siblings = list(out.parent.iterdir())
    except OSError:
        return
    for path in siblings:
        pid = _build_folder_pid(path.name, out.name)
        if pid is None or path.is_symlink() or not path.is_dir():
            continue
        try:
            if path.stat().st_uid != os.getuid() or _alive(pid):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)


def _build_folder_pid(name: str, out: str) -> int | None:
    """The process id in ``name`` if it is a build folder of ``out``'s
    (``.OUT.tmp-PID-HEX``, ``-old`` after it for its swap), else None."""
    prefix = f".{out}.tmp-"
    if not name.startswith(prefix):
        return None
    pid, _, token = name[len(prefix):].removesuffix("-old").partition("-")
    ascii_digits = pid.isascii() and pid.isdigit()
    hex_token = len(token) == 8 and all(c in "0123456789abcdef" for c in token)
    return int(pid) if ascii_digits and hex_token else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _swap_into_place(tmp: Path, out: Path) -> None:
    if not out.exists():
        os.rename(tmp, out)
        return
    old = tmp.with_name(tmp.name + "-old")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _discard(tmp: Path | None, created: list[Path]) -> None:
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    _remove_empty(created)


def _remove_empty(folders: list[Path]) -> None:
    for p in reversed(folders):
        try:
            p.rmdir()
        except OSError:
            return  # not ours any more (something was put there) or already gone


# --- reading ------------------------------------------------------------------------------


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    path = Path(folder) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArtifactError(f"{folder} is not an msc artifact: {MANIFEST} is missing") from None
    except (OSError, ValueError) as e:
        raise ArtifactError(f"cannot read {path}: {e}") from None
    module = manifest.get("module") if isinstance(manifest, dict) else None
    if not isinstance(module, str) or Path(module).name != module or not module.endswith(".py"):
        raise ArtifactError(f"{path} does not name the artifact's module file")
    return manifest


def verify_artifact(folder: str | os.PathLike[str]) -> list[str]:
    """What is wrong with the folder's files against its manifest's checksums (empty: all good)."""
    return check_checksums(Path(folder), dict(read_manifest(folder).get("checksums", {})))


def check_checksums(folder: Path, checksums: dict[str, str]) -> list[str]:
    """Files of ``checksums`` (paths relative to ``folder``) that are missing or altered."""
    problems = []
    for name, expected in sorted(checksums.items()):
        path = folder / name
        if Path(name).is_absolute() or ".." in Path(name).parts:
            problems.append(f"{name}: not a path inside {folder}")
        elif not path.is_file():
            problems.append(f"{path} is missing")
        elif file_sha256(path) != expected:
            problems.append(f"{path} does not match its checksum")
    return problems


def load_artifact(folder: str | os.PathLike[str], *, verify: bool = True) -> ModuleType:
    """Import the artifact's module by file path (under its file's stem, the name Numba's
    cache recorded) and return it; ``module.forward(*inputs)`` runs the model.

    With ``verify``, every file is checked against the manifest's checksums first.
    """
    manifest = read_manifest(folder)
    if verify:
        problems = verify_artifact(folder)
        if problems:
            raise ArtifactError(f"the artifact {folder} is damaged: " + "; ".join(problems))
    path = Path(folder) / manifest["module"]
    if not path.is_file():
        raise ArtifactError(f"the artifact's module {path} is missing")
    return import_file(str(path), path.stem)

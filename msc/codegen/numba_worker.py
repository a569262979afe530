"""The background Numba compile of the tiered execution (``msc/tiering.py``), run as a
script in a process of its own: ``python numba_worker.py MODULE.py ARGS.npz READY``.

It imports the generated module, runs ``run`` once on the arrays of the call that
started it (copies: the caller's Parameters are untouched; the same values the python
tier just ran on, so every loop ends as it did), which makes Numba compile every kernel
and write its on-disk cache beside the module (for the caller's arrays as they are,
read-only where theirs were). Then it writes READY, a pickle of each
kernel's compiled signatures, so the caller can load exactly those from Numba's cache
without running anything. Numba writes each cache file whole (a temporary file renamed
into place) and READY is written the same way, last: a worker killed at any moment
leaves no file half-written.

A module whose kernels are in the kernel library (``library.py``) lists the calls it
will make (``_SIGNATURES``); while ``run`` compiles them in order, one more process per
spare CPU (``foresee``: ``python numba_worker.py --foresee MODULE.py K N``) compiles them
from the other end into the same cache, so ``run`` mostly finds them compiled. Where that
list is every call the module makes, the caller passes ``-`` for ARGS: the worker compiles
the list and runs nothing (no arrays to hand over, no step to run: ResNet-18's training
step, about 0.5 s less).

Imports only the standard library, numpy and numba: it starts fast and needs no msc.
"""

import importlib.util
import os
import pickle
import subprocess
import sys


#: The ARGS of a module whose foreseen calls are all it makes: compile them, run nothing.
FORESEEN = "-"


def main(module_path: str, args_path: str, ready_path: str) -> int:
    module = load(module_path)
    arrays = None if args_path == FORESEEN else arguments(args_path)
    helpers = foresee(module_path, module)
    try:
        if arrays is None:
            compile_calls(module, module._SIGNATURES)
        else:
            run(module, arrays)
    finally:
        stop(helpers)
    write_ready(module, ready_path)
    return 0


def write_ready(module, ready_path: str) -> None:
    """READY: each kernel of ``module`` with the signatures compiled, written whole."""
    from numba.core.dispatcher import Dispatcher

    signatures = {key: list(value.signatures) for key, value in vars(module).items()
                  if isinstance(value, Dispatcher) and value.signatures}
    tmp = f"{ready_path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        pickle.dump(signatures, f)
    os.replace(tmp, ready_path)


def arguments(args_path: str) -> list:
    """The arrays the caller's call started from, read-only where the caller's were:
    Numba types a read-only array apart from a writable one, and compiling for other
    flags than the caller's would make the caller's next call compile again."""
    import numpy as np

    with np.load(args_path, allow_pickle=False) as f:
        arrays = [f[f"a{i}"] for i in range(len(f.files) - 1)]
        readonly = f["readonly"]
    for i in readonly:
        arrays[i].flags.writeable = False
    os.unlink(args_path)
    return arrays


def run(module, arrays: list) -> None:
    """``module.run`` on ``arrays``, which makes Numba compile each kernel it calls."""
    from numba.core.errors import NumbaError

    try:
        module.run(*arrays)
    except NumbaError:
        raise
    except Exception:  # noqa: BLE001 - the model's own raise: its kernels compiled
        pass


def load(module_path: str):
    name = os.path.splitext(os.path.basename(module_path))[0]
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba's cache=True looks the module up by name
    spec.loader.exec_module(module)
    return module


def spare_cpus() -> int:
    """CPUs this process may use besides its own (``MSC_COMPILE_JOBS`` caps the total)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
    jobs = int(os.environ.get("MSC_COMPILE_JOBS", "4") or 1)
    return max(0, min(cpus, jobs) - 1)


def foresee(module_path: str, module) -> list:
    """Start the processes compiling ``module``'s foreseen kernel calls, if some are not
    in Numba's cache yet and there are spare CPUs."""
    n = min(spare_cpus(), len(uncached(module)) // 2)
    return [subprocess.Popen([sys.executable, __file__, "--foresee", module_path, str(k), str(n)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for k in range(n)]


def stop(helpers: list) -> None:
    """The run is over: what the helpers still compile, it compiled itself."""
    for p in helpers:
        p.kill()
        p.wait()


def uncached(module) -> list:
    """``module``'s foreseen calls (``_SIGNATURES``) of library kernels that no process
    has compiled yet: those without an index file in Numba's cache."""
    calls = getattr(module, "_SIGNATURES", ())
    folder = os.path.join(module._KERNELS, "__pycache__") if calls else ""
    done = {f.split(".", 1)[0] for f in os.listdir(folder) if f.endswith(".nbi")} \
        if os.path.isdir(folder) else set()
    return [call for call in calls if call[1] not in done]


def compile_foreseen(module_path: str, k: int, n: int) -> int:
    """Compile every n-th uncached foreseen call from the last one, starting k from the
    end: the run compiles from the first."""
    module = load(module_path)
    compile_calls(module, list(reversed(uncached(module)))[k::n])
    return 0


def compile_calls(module, calls, stopped=lambda: False) -> None:
    """Compile each foreseen call (kernel name, library file, argument types) of
    ``module`` (or load it from Numba's cache), until ``stopped()``."""
    for name, _, args in calls:
        if stopped():
            return
        getattr(module, name).compile(numba_types(args))


def numba_types(args: tuple) -> tuple:
    """Numba's types of a foreseen call's arguments (see ``_SIGNATURES``): a scalar's
    name, or an array's (dtype, rank, read-only[, layout other than "C"])."""
    import numpy as np
    from numba import from_dtype, types

    return tuple(getattr(types, a[0]) if len(a) == 1 else
                 types.Array(from_dtype(np.dtype(a[0])), a[1], a[3] if len(a) > 3 else "C",
                             readonly=a[2])
                 for a in args)


if __name__ == "__main__":
    if sys.argv[1] == "--foresee":
        sys.exit(compile_foreseen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    status = main(*sys.argv[1:4])
    # READY is written and every cache file closed: end without the interpreter's
    # teardown of Numba's and LLVM's objects (0.4 s after a training step's kernels)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

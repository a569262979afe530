"""Tiered execution: in-process compiles answer at once from the python (numpy) tier
while Numba compiles the numba tier out of the caller's way.

Numba takes from half a second to minutes to compile a kernel; the numpy module of the
same graph runs as soon as it is written. Under ``set_context(jit_tier="auto")`` (the
default) the first call of a ``@jit`` function or GRAPH_MODE Cell runs the python tier
and starts a ``NumbaTier``: a worker process (``codegen/numba_worker.py``) compiles the
numba module into Numba's on-disk cache, then a thread of this process loads the
compiled kernels from that cache (on a process with one CPU, where every call is
foreseen, the thread compiles them itself: a worker would run nothing in parallel). The
caller checks ``NumbaTier.module`` on each call and switches when it is set, so it never
waits for Numba and never sees a half-loaded kernel. Each call runs exactly one tier, so
a Parameter write happens once per call. Both tiers come from the same optimized graph
and agree (the test suites compare the targets op by op); transcendental functions may
differ in the last bit between numpy's and Numba's implementations, as between the
targets.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import warnings
import weakref
from pathlib import Path
from types import ModuleType
from typing import Callable, Sequence

import numpy as np

from msc.codegen.library import KernelWatch
from msc.codegen.numba_worker import FORESEEN, compile_calls, spare_cpus, write_ready
from msc.codegen.render import import_file
from msc.collector import GC_PAUSE
from msc.progress import Ticker, wanted

WORKER = Path(__file__).with_name("codegen") / "numba_worker.py"
_RUNNING: weakref.WeakSet[NumbaTier] = weakref.WeakSet()
#: Worker processes of this process's tiers that run at once: one per CPU it may use
#: (each starts helpers of its own on spare CPUs). A test run or a sweep compiling many
#: graphs had dozens of Numba processes (36 seen, a few hundred MB each) share two CPUs;
#: the others now wait their turn, their calls answered by the python tier meanwhile.
_WORKER_SLOTS = threading.BoundedSemaphore(spare_cpus() + 1)


class TierWarning(UserWarning):
    """The numba tier failed to compile; calls stay on the python tier."""


#: What a numba tier's ``prepare`` returns: the module's path, whether its foreseen calls
#: are all it makes, its constants, and the watch of its library kernels (or None).
Prepared = tuple[Path, bool, Sequence[np.ndarray], "KernelWatch | None"]


class NumbaTier:
    """Numba compiling a generated module in a worker process, all of it in a thread of
    this process: ``prepare()`` writes the module and returns its path, whether its
    foreseen calls are all it makes (the worker compiles them, no array handed over, no
    step run: ``numba_worker.FORESEEN``), the constants
    its ``run`` takes after ``arrays`` (the first call's inputs and weights, copied before
    that call ran); a file hands them to the worker; the thread waits for it and loads.
    Where the foreseen calls are all and this process has one CPU, the thread compiles
    them itself (``_compile_here``).

    ``module`` (and ``constants``) are None until the compiled module is loaded;
    ``error`` says why it never will be. A ``detach``-ed worker fills a compile-cache
    entry and finishes its work even if this process exits first."""

    def __init__(self, prepare: Callable[[], Prepared],
                 arrays: Sequence[np.ndarray], *, detach: bool = False):
        self.module: ModuleType | None = None
        self.constants: Sequence[np.ndarray] = ()
        self.error: str | None = None
        self.watch: KernelWatch | None = None  # its library kernels, for a progress line
        self.done = threading.Event()
        self.detach = detach
        self.process: subprocess.Popen[bytes] | None = None
        self.here = False  # compiling in this process's thread (one CPU: no worker)
        self.args_file = ""
        self._lock = threading.Lock()  # no worker starts once ``stop`` ran
        self._stopped = False
        _RUNNING.add(self)
        threading.Thread(target=self._work, args=(prepare, arrays), daemon=True,
                         name="msc-numba-tier").start()

    def _work(self, prepare: Callable[[], Prepared],
              arrays: Sequence[np.ndarray]) -> None:
        try:
            path, foreseen, constants, self.watch = prepare()
            module = self._compile_here(path) if foreseen and not spare_cpus() else \
                self._compile_in_worker(path, foreseen, [*arrays, *constants])
            if module is not None:
                self.constants = constants
                self.module = module
        except Exception as e:  # noqa: BLE001 - reported to the caller as a TierWarning
            self.error = f"{type(e).__name__}: {e}"
        finally:
            self.done.set()

    def _compile_here(self, path: Path) -> ModuleType | None:
        """Compile the module's foreseen calls in this thread (None if stopped first). On
        one CPU a worker runs nothing in parallel and costs its start (Python's, numpy's
        and Numba's imports) and this process's loading what it compiled: ResNet-18's
        training step, about 1 s of 7. Numba writes its cache as the worker would."""
        with self._lock:
            if self._stopped:
                return None
            self.here = True
        module = import_file(str(path), path.stem)
        with GC_PAUSE:
            compile_calls(module, module._SIGNATURES, lambda: self._stopped)
        if self._stopped:
            return None
        write_ready(module, str(ready_file(path)))
        return module

    def _compile_in_worker(self, path: Path, foreseen: bool,
                           args: list[np.ndarray]) -> ModuleType | None:
        """Have a worker process compile the module (running it on ``args`` unless its
        calls are ``foreseen``) once a worker slot is free, then load what it compiled;
        None if stopped first, or failed (``error`` says why)."""
        if foreseen:
            self.args_file = FORESEEN
        else:
            fd, self.args_file = tempfile.mkstemp(prefix="msc-tier-", suffix=".npz")
            with os.fdopen(fd, "wb") as f:  # (and which are read-only: see numba_worker)
                np.savez(f, **{f"a{i}": a for i, a in enumerate(args)},
                         readonly=np.array([i for i, a in enumerate(args)
                                            if not a.flags.writeable], np.int64))
        slots = _WORKER_SLOTS
        while not slots.acquire(timeout=0.1):  # (a stop while waiting ends the wait)
            if self._stopped:
                self._remove_args()
                return None
        try:
            with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a detached
                with self._lock:                       # worker may outlive this process
                    if self._stopped:
                        self._remove_args()
                        return None
                    self.process = subprocess.Popen(
                        [sys.executable, str(WORKER), str(path), self.args_file,
                         str(ready_file(path))],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                        start_new_session=self.detach)
                if self.process.wait() != 0:
                    errors.seek(0)
                    lines = errors.read().decode(errors="replace").strip().splitlines()
                    self.error = "\n".join(lines[-12:]) or \
                        f"exit status {self.process.returncode}"
                    return None
        finally:
            slots.release()
        return load_compiled(path)  # Numba's first use here: a few tenths of a second

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the compile finished (loaded or failed); False on timeout."""
        return self.done.wait(timeout)

    def stop(self) -> None:
        """At exit: a worker writing into this process's temporary folder is stopped; a
        detached one filling the compile cache finishes its work for the next process."""
        with self._lock:
            self._stopped = True
        if self.here:  # the kernel compiling now ends, no other starts: Numba and LLVM
            self.done.wait()  # are not torn down under it
            return
        if self.detach or self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._remove_args()

    def _remove_args(self) -> None:
        if self.args_file and self.args_file != FORESEEN:
            with contextlib.suppress(OSError):  # the worker removes it once read
                os.unlink(self.args_file)


def ready_file(module_path: Path) -> Path:
    return module_path.with_name(module_path.stem + ".numba-ready")


def load_compiled(path: Path) -> ModuleType:
    """Import the module at ``path`` and load from Numba's cache every kernel signature
    its worker compiled (no kernel runs, nothing compiles when the cache is intact)."""
    with open(ready_file(path), "rb") as f:
        signatures = pickle.load(f)
    module = import_file(str(path), path.stem)
    for name, sigs in signatures.items():
        for sig in sigs:
            getattr(module, name).compile(sig)
    return module


def warn_failed(tier: NumbaTier, label: str) -> None:
    warnings.warn(f"the numba tier of {label} failed to compile; its calls run on the "
                  f"python tier:\n{tier.error}", TierWarning, stacklevel=4)


def wait_for_compiles(timeout: float | None = None) -> bool:
    """Wait for every background Numba compile of this process to finish: after it, the
    next call of each compiled function runs its numba tier. False if ``timeout`` (in
    seconds) ran out first. Useful before timing steady-state calls. On a terminal, a
    line on stderr counts the library kernels compiled so far (``MSC_PROGRESS=0``: not).

    Example:
        >>> msc.wait_for_compiles()
        True
    """
    tiers = [tier for tier in list(_RUNNING) if not tier.done.is_set()]
    ticker = Ticker(sys.stderr, "msc: waiting for Numba: ", lambda: _summary(tiers)) \
        if tiers and wanted(sys.stderr) else None
    try:
        return all(tier.wait(timeout) for tier in tiers)
    finally:
        if ticker is not None:
            ticker.stop()


def _summary(tiers: list[NumbaTier]) -> str:
    watches = [tier.watch for tier in tiers if tier.watch is not None]
    done = sum(len(w.compiled()) for w in watches)
    total = sum(len(w.stems) for w in watches)
    busy = sum(not tier.done.is_set() for tier in tiers)
    return f"{busy} of {len(tiers)} compiles running, {done}/{total} library kernels"


@atexit.register
def _stop_all() -> None:
    for tier in list(_RUNNING):
        tier.stop()

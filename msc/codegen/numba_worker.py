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

Imports only the standard library, numpy and numba: it starts fast and needs no msc.
"""

import importlib.util
import os
import pickle
import sys


def main(module_path: str, args_path: str, ready_path: str) -> int:
    import numpy as np
    from numba.core.dispatcher import Dispatcher
    from numba.core.errors import NumbaError

    name = os.path.splitext(os.path.basename(module_path))[0]
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba's cache=True looks the module up by name
    spec.loader.exec_module(module)
    with np.load(args_path, allow_pickle=False) as f:
        arrays = [f[f"a{i}"] for i in range(len(f.files) - 1)]
        readonly = f["readonly"]
    # Numba types a read-only array apart from a writable one: compiling for other flags
    # than the caller's arrays have would make the caller's next call compile again
    for i in readonly:
        arrays[i].flags.writeable = False
    os.unlink(args_path)
    try:
        module.run(*arrays)
    except NumbaError:
        raise
    except Exception:  # noqa: BLE001 - the model's own raise: its kernels compiled
        pass
    signatures = {key: list(value.signatures) for key, value in vars(module).items()
                  if isinstance(value, Dispatcher) and value.signatures}
    tmp = f"{ready_path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        pickle.dump(signatures, f)
    os.replace(tmp, ready_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))

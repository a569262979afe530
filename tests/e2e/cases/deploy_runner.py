"""Runs inside a deployment venv (numpy, maybe numba, no msc): imports an artifact's module
by file path or from ``sys.path``, calls ``forward`` and saves what it returned.

usage: deploy_runner.py path|syspath FOLDER MODULE_STEM INPUTS.npz OUTPUTS.npz
Prints one JSON line: the output's structure and which packages were importable.
"""

import importlib
import importlib.util
import json
import sys

import numpy as np


def encode(value, arrays):
    """Tuples and arrays by structure (arrays go to the npz), anything else by value."""
    if isinstance(value, tuple):
        return {"tuple": [encode(v, arrays) for v in value]}
    if isinstance(value, np.ndarray):
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"array": key}
    return {"value": value, "type": type(value).__name__}


def import_by_path(folder, stem):
    # NOTE: registered under its file's stem before it runs, as `import <stem>` would do;
    # Numba's cache records the module by that name.
    spec = importlib.util.spec_from_file_location(stem, f"{folder}/{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module
    spec.loader.exec_module(module)
    return module


def main():
    mode, folder, stem, inputs_file, outputs_file = sys.argv[1:]
    if mode == "path":
        module = import_by_path(folder, stem)
    else:
        sys.path.insert(0, folder)
        module = importlib.import_module(stem)
    with np.load(inputs_file, allow_pickle=False) as f:
        inputs = [f[f"x{i}"] for i in range(len(f.files))]
    out = module.forward(*inputs)
    arrays = {}
    structure = encode(out, arrays)
    np.savez(outputs_file, **arrays)
    loaded = sorted(m for m in ("msc", "numba") if m in sys.modules)
    try:
        import msc  # noqa: F401
        msc_importable = True
    except ModuleNotFoundError:
        msc_importable = False
    print(json.dumps({"structure": structure, "loaded": loaded,
                      "msc_importable": msc_importable, "module_file": module.__file__}))


if __name__ == "__main__":
    main()

"""Global compile settings: ``set_context`` / ``get_context``, as in MindSpore.

Passes never read this module; the compile driver reads it once per compile and
passes plain options down.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from msc.errors import GraphValueError

GRAPH_MODE = 0
PYNATIVE_MODE = 1


class ParallelMode:
    """MindSpore's parallel modes (``from mindspore.context import ParallelMode``). msc
    runs ``STAND_ALONE`` and ``DATA_PARALLEL`` (see ``set_auto_parallel_context``); the
    other names are here for the model code that compares against them."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]

_DEFAULTS: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "save_graphs": False,
    "save_graphs_path": ".",
    "jit_target": "numba",
    "jit_tier": None,  # None: MSC_JIT_TIER, else "auto"
    "enable_compile_cache": None,  # None: MSC_COMPILER_CACHE_ENABLE decides
    "compile_cache_path": "",  # "": MSC_COMPILER_CACHE_PATH, else the per-user default
    "reuse": "lazy_inline",  # which Cells become shared graphs: lazy_inline, auto or off
    "if_to_select": True,  # cheap tensor ifs that do not print become Select
    "side_effect_load_elim": None,  # 0-3; None: MSC_SIDE_EFFECT_LOAD_ELIM, else 1
    "num_threads": None,  # None: MSC_NUM_THREADS, else every CPU the process may use
}
#: The options that change generated code: they are part of the compile cache's key.
CODE_OPTIONS: tuple[str, ...] = ("reuse", "if_to_select", "side_effect_load_elim")
_context: dict[str, Any] = dict(_DEFAULTS)
#: Bumped by every change of the context: a compiled call path made under one
#: generation is only taken in it (``frontend/jit.py``).
generation = 0


def set_context(**kwargs: Any) -> None:
    """Set compile options: ``mode`` (GRAPH_MODE or PYNATIVE_MODE), ``save_graphs``
    (dump the IR after every pass), ``save_graphs_path``, ``device_target``,
    ``jit_target`` ("numba", "python" or "cuda": the code in-process compiles run;
    ``device_target="GPU"`` selects "cuda", "CPU" the default again),
    ``jit_tier`` (how the numba target's first calls run: "auto" runs the python tier
until Numba, compiling in the background, is ready (``msc/tiering.py``); "numba" waits
for Numba; "python" never compiles with Numba; it wins over MSC_JIT_TIER),
``enable_compile_cache`` and ``compile_cache_path`` (the on-disk compile cache;
    they win over MSC_COMPILER_CACHE_ENABLE and MSC_COMPILER_CACHE_PATH), and ``reuse``
    ("lazy_inline": ``@lazy_inline`` Cells are compiled once and called from every
    instance; "auto": any user Cell class with several instances too; "off"),
    ``if_to_select`` (True: a cheap tensor ``if`` becomes ``Select``), and
    ``side_effect_load_elim`` (0-3: where a value loaded from a Parameter is copied
    before a later write; see ``optimizer/load_elim.py``. It wins over
    MSC_SIDE_EFFECT_LOAD_ELIM; the default is 1), and ``num_threads`` (the threads
    generated code and numpy's BLAS use; it sets MSC_NUM_THREADS; None: every CPU the
    process may use; MindSpore's ``runtime_num_threads`` is the same, 0 meaning None).

    Example:
        >>> set_context(mode=GRAPH_MODE, save_graphs=True, save_graphs_path="ir")
    """
    global generation
    generation += 1
    for key, value in kwargs.items():
        if key == "runtime_num_threads":  # MindSpore's name for it (0: the default)
            key, value = "num_threads", (value or None)
        if key == "jit_target" and value not in ("numba", "python", "cuda"):
            raise GraphValueError(f"jit_target must be 'numba', 'python' or 'cuda', got "
                                  f"{value!r}")
        if key == "jit_tier" and value not in ("auto", "numba", "python", None):
            raise GraphValueError(f"jit_tier must be 'auto', 'numba' or 'python', got {value!r}")
        if key == "mode" and value not in (GRAPH_MODE, PYNATIVE_MODE):
            raise GraphValueError(f"mode must be GRAPH_MODE or PYNATIVE_MODE, got {value!r}")
        if key == "reuse" and value not in ("lazy_inline", "auto", "off"):
            raise GraphValueError(f"reuse must be 'lazy_inline', 'auto' or 'off', got {value!r}")
        if key == "if_to_select" and value not in (True, False):
            raise GraphValueError(f"if_to_select must be True or False, got {value!r}")
        if key == "side_effect_load_elim" and value not in (0, 1, 2, 3, None):
            raise GraphValueError(f"side_effect_load_elim must be 0, 1, 2 or 3, got {value!r}")
        if key == "enable_compile_cache" and value not in (True, False, None):
            raise GraphValueError(f"enable_compile_cache must be True or False, got {value!r}")
        if key == "compile_cache_path" and not isinstance(value, (str, os.PathLike)):
            raise GraphValueError(f"compile_cache_path must be a folder path, got {value!r}")
        if key == "num_threads" and value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise GraphValueError(f"num_threads must be a positive whole number or None, got "
                                  f"{value!r}")
        if key not in _DEFAULTS:
            raise GraphValueError(f"unknown context option '{key}' "
                                  f"(known: {', '.join(sorted(_DEFAULTS))})")
        _context[key] = value
        if key == "num_threads":
            _use_threads(value)
        if key == "device_target" and "jit_target" not in kwargs:
            on_gpu = value == "GPU"
            if on_gpu or _context["jit_target"] == "cuda":
                _context["jit_target"] = "cuda" if on_gpu else _DEFAULTS["jit_target"]


def _use_threads(count: int | None) -> None:
    """Generated code's threads (the runtime reads ``MSC_NUM_THREADS`` at each call, in
    this process and the workers it starts) and numpy's BLAS's (``count``, or every CPU
    the process may use for None)."""
    if count is None:
        os.environ.pop("MSC_NUM_THREADS", None)
    else:
        os.environ["MSC_NUM_THREADS"] = str(count)
    from msc.runtime.numba_rt import _rt_blas_threads, _rt_thread_count

    blas = _rt_blas_threads()
    if blas is not None:
        blas[0](_rt_thread_count())


def get_context(key: str) -> Any:
    if key not in _context:
        raise GraphValueError(f"unknown context option '{key}'")
    return _context[key]


def code_options() -> dict[str, Any]:
    """The settings of ``CODE_OPTIONS`` (and the environment variables behind them), and
    under MPI the parallel settings, the world's size and this rank (a graph may read
    its rank, and its collectives name their ranks)."""
    options = {key: _context[key] for key in CODE_OPTIONS}
    options["side_effect_load_elim"] = load_elim_level()
    comm = sys.modules.get("msc.communication.management")
    if comm is not None and comm.GlobalComm.INITED:
        options["parallel"] = (sorted(_parallel.items()), comm.get_group_size(),
                               comm.get_rank())
    elif _parallel != _PARALLEL_DEFAULTS:
        options["parallel"] = sorted(_parallel.items())
    return options


def load_elim_level() -> int:
    """The load-elimination level: the context's, else MSC_SIDE_EFFECT_LOAD_ELIM's, else 1."""
    level = _context["side_effect_load_elim"]
    if level is not None:
        return int(level)
    text = os.environ.get("MSC_SIDE_EFFECT_LOAD_ELIM", "").strip()
    if text == "":
        return 1
    if text not in ("0", "1", "2", "3"):
        raise GraphValueError(f"MSC_SIDE_EFFECT_LOAD_ELIM must be 0, 1, 2 or 3, got {text!r}")
    return int(text)


def jit_target() -> str:
    """The target of in-process compiles (read on every compiled call: kept cheap)."""
    return _context["jit_target"]  # type: ignore[no-any-return]


def jit_key() -> tuple[Any, ...]:
    """What of the context selects in-process code (read on every compiled call: cheap)."""
    return (_context["jit_target"], _context["jit_tier"])


def jit_tier() -> str:
    """The tier policy of in-process numba compiles: the context's, else MSC_JIT_TIER's,
    else "auto"."""
    tier = _context["jit_tier"] or os.environ.get("MSC_JIT_TIER", "").strip() or "auto"
    if tier not in ("auto", "numba", "python"):
        raise GraphValueError(f"MSC_JIT_TIER must be auto, numba or python, got {tier!r}")
    return tier  # type: ignore[no-any-return]


def save_graphs_dir() -> str | None:
    """Where to dump per-pass IR, or None: the context wins over MSC_SAVE_GRAPHS=1."""
    if _context["save_graphs"]:
        return str(_context["save_graphs_path"])
    if os.environ.get("MSC_SAVE_GRAPHS", "0") not in ("", "0"):
        return os.environ.get("MSC_SAVE_GRAPHS_PATH", ".")
    return None


def reset_context() -> None:
    """Back to the defaults (tests use this)."""
    global generation
    generation += 1
    _context.clear()
    _context.update(_DEFAULTS)


# --- the auto-parallel context ------------------------------------------------------------

_PARALLEL_DEFAULTS: dict[str, Any] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": None,  # None: the world's size once communication is initialised
    "global_rank": None,
    "parameter_broadcast": False,
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "full_batch": False,
    "comm_fusion": None,
    "all_reduce_fusion_config": None,
}
_parallel: dict[str, Any] = dict(_PARALLEL_DEFAULTS)


def set_auto_parallel_context(**kwargs: Any) -> None:
    """MindSpore's parallel settings: ``parallel_mode`` (``ParallelMode.STAND_ALONE`` or
    ``DATA_PARALLEL``: ``TrainOneStepCell`` then averages or sums its gradients over the
    ranks with ``nn.DistributedGradReducer``), ``gradients_mean`` (average rather than
    sum), ``device_num`` (the divisor of the mean; default the world's size), and the
    other keys of ``get_auto_parallel_context``, kept for the scripts that read them.
    msc runs no sharded (semi-)auto or hybrid parallel mode."""
    global generation
    for key, value in kwargs.items():
        if key not in _PARALLEL_DEFAULTS:
            raise GraphValueError(f"unknown auto-parallel option '{key}' "
                                  f"(known: {', '.join(sorted(_PARALLEL_DEFAULTS))})")
        if key == "parallel_mode" and value not in (ParallelMode.STAND_ALONE,
                                                    ParallelMode.DATA_PARALLEL):
            if value in ParallelMode.MODE_LIST:
                raise GraphValueError(f"parallel_mode '{value}' is not supported: msc "
                                      "trains stand-alone or data-parallel")
            raise GraphValueError(f"parallel_mode must be one of {ParallelMode.MODE_LIST}, "
                                  f"but got {value!r}")
        if key in ("gradients_mean", "parameter_broadcast", "full_batch") and \
                not isinstance(value, bool):
            raise GraphValueError(f"{key} must be a bool, but got {value!r}")
        if key == "device_num" and (not isinstance(value, int) or isinstance(value, bool)
                                    or value < 1):
            raise GraphValueError(f"device_num must be a positive int, but got {value!r}")
        _parallel[key] = value
    generation += 1


def get_auto_parallel_context(attr_key: str) -> Any:
    """One parallel setting (``device_num`` is the world's size until set)."""
    if attr_key not in _parallel:
        raise GraphValueError(f"unknown auto-parallel option '{attr_key}'")
    value = _parallel[attr_key]
    if attr_key in ("device_num", "global_rank") and value is None:
        comm = sys.modules.get("msc.communication.management")
        inited = comm is not None and comm.GlobalComm.INITED
        if attr_key == "device_num":
            return comm.get_group_size() if inited else 1
        return comm.get_rank() if inited else 0
    return value


def reset_auto_parallel_context() -> None:
    """Back to stand-alone and the other defaults."""
    global generation
    _parallel.clear()
    _parallel.update(_PARALLEL_DEFAULTS)
    generation += 1

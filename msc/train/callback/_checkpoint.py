"""``mindspore.train.callback._checkpoint``: save checkpoints while training.

Files are named as MindSpore names them, ``PREFIX-EPOCH_STEP.ckpt`` (STEP counted within
the epoch), in ``directory``; a prefix already used by ``.ckpt`` files there becomes
``PREFIX_1``, ``PREFIX_2``..., and only the newest ``keep_checkpoint_max`` files of this
run's prefix are kept. In GRAPH_MODE MindSpore also writes ``PREFIX-graph.meta``, its
serialized graph: msc has no such format and writes none.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from typing import Any

from msc.errors import GraphTypeError, GraphValueError
from msc.train.callback._callback import Callback, RunContext

__all__ = ["CheckpointConfig", "ModelCheckpoint"]


def _non_negative(name: str, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GraphValueError(f"For 'CheckpointConfig', '{name}' must be a non-negative int, but "
                              f"got {value!r}.")
    return value


class CheckpointConfig:
    """When to save (every ``save_checkpoint_steps`` steps, or every
    ``save_checkpoint_seconds`` seconds) and how many files to keep."""

    def __init__(self, save_checkpoint_steps: int = 1, save_checkpoint_seconds: int = 0,
                 keep_checkpoint_max: int = 5, keep_checkpoint_per_n_minutes: int = 0,
                 integrated_save: bool = True, async_save: bool = False,
                 saved_network: Any = None, append_info: Any = None, enc_key: Any = None,
                 enc_mode: str = "AES-GCM", exception_save: bool = False,
                 crc_check: bool = False, remove_redundancy: bool = False,
                 format: str = "ckpt", **kwargs: Any):
        steps = _non_negative("save_checkpoint_steps", save_checkpoint_steps)
        seconds = _non_negative("save_checkpoint_seconds", save_checkpoint_seconds)
        keep = _non_negative("keep_checkpoint_max", keep_checkpoint_max)
        minutes = _non_negative("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)
        if not steps and not seconds and not keep and not minutes:
            raise GraphValueError("For 'CheckpointConfig', the input arguments "
                                  "'save_checkpoint_steps', 'save_checkpoint_seconds', "
                                  "'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' "
                                  "can't be all None or 0.")
        if enc_key is not None or format != "ckpt":
            raise GraphValueError("For 'CheckpointConfig', msc writes unencrypted 'ckpt' files "
                                  "only.")
        from msc.nn.cell import Cell

        if saved_network is not None and not isinstance(saved_network, Cell):
            raise GraphTypeError("For 'CheckpointConfig', the type of 'saved_network' must be "
                                 f"None or Cell, but got {type(saved_network)}.")
        self.save_checkpoint_steps = steps
        self.save_checkpoint_seconds = None if steps else seconds
        self.keep_checkpoint_max = keep
        self.keep_checkpoint_per_n_minutes = None if keep else minutes
        if not keep and not minutes:
            self.keep_checkpoint_max = 1
        self.integrated_save = integrated_save
        self.async_save = async_save
        self.saved_network = saved_network
        self.crc_check = crc_check
        self.format = format
        self.append_dict = self._append_dict(append_info)

    @staticmethod
    def _append_dict(append_info: Any) -> dict[str, Any]:
        if append_info is None:
            return {}
        if not isinstance(append_info, list):
            raise GraphTypeError(f"For 'CheckpointConfig', 'append_info' must be a list, but got "
                                 f"{type(append_info)}.")
        out: dict[str, Any] = {}
        for item in append_info:
            if item in ("epoch_num", "step_num"):
                out[item] = 0
            elif isinstance(item, dict):
                out.update(item)
            else:
                raise GraphValueError(f"For 'CheckpointConfig', an element of 'append_info' must "
                                      f"be 'epoch_num', 'step_num' or a dict, but got {item!r}.")
        return out

    def get_checkpoint_policy(self) -> dict[str, Any]:
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes}


def _free_prefix(directory: str, prefix: str) -> str:
    """``prefix``, or ``prefix_N`` past the ``.ckpt`` files of earlier runs in the folder."""
    taken = 0
    pattern = re.compile(re.escape(prefix) + r"(?:_(\d+))?-.*\.ckpt")
    for name in os.listdir(directory):
        match = pattern.fullmatch(name)
        if match and not name.endswith("_breakpoint.ckpt"):
            taken = max(taken, int(match[1]) + 1 if match[1] else 1)
    return f"{prefix}_{taken}" if taken else prefix


class ModelCheckpoint(Callback):
    """Saves the train network's parameters (the optimizer's state included, as MindSpore
    does) by ``config``, and once more at the end of training."""

    def __init__(self, prefix: str = "CKP", directory: str | None = None,
                 config: CheckpointConfig | None = None):
        if not isinstance(prefix, str) or "/" in prefix:
            raise GraphValueError("For 'ModelCheckpoint', the argument 'prefix' for checkpoint "
                                  "file name is callable or string that does not contain '/', "
                                  f"but got {prefix}.")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise GraphTypeError("For 'ModelCheckpoint', the type of argument 'config' should be "
                                 f"'CheckpointConfig', but got {type(config)}.")
        self._config = config or CheckpointConfig()
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._prefix = _free_prefix(self._directory, prefix)
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._saved: list[str] = []
        self._latest_ckpt_file_name = ""

    @property
    def latest_ckpt_file_name(self) -> str:
        return self._latest_ckpt_file_name

    def step_end(self, run_context: RunContext) -> None:
        self._save(run_context.original_args(), force=False)

    def end(self, run_context: RunContext) -> None:
        self._save(run_context.original_args(), force=True)

    def _due(self, cb_params: Any, force: bool) -> bool:
        config = self._config
        if config.save_checkpoint_steps:
            return force or cb_params.cur_step_num >= \
                self._last_triggered_step + config.save_checkpoint_steps
        if config.save_checkpoint_seconds:
            now = time.time()
            if force or now - self._last_time > config.save_checkpoint_seconds:
                self._last_time = now
                return True
        return False

    def _save(self, cb_params: Any, force: bool) -> None:
        from msc.train.serialization import save_checkpoint

        if cb_params.cur_step_num == self._last_triggered_step or not self._due(cb_params, force):
            return
        step = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        path = os.path.join(self._directory,
                            f"{self._prefix}-{cb_params.cur_epoch_num}_{step}.ckpt")
        self._last_triggered_step = cb_params.cur_step_num
        append = dict(self._config.append_dict)
        if "epoch_num" in append:
            append["epoch_num"] = cb_params.cur_epoch_num
        if "step_num" in append:
            append["step_num"] = cb_params.cur_step_num
        network = self._config.saved_network or cb_params.train_network
        save_checkpoint(network, path, self._config.integrated_save, append_dict=append or None,
                        crc_check=self._config.crc_check)
        # NOTE: the oldest go only once the new file is whole (save_checkpoint writes it
        # under a temporary name, then renames it): a run killed while saving keeps them
        keep = self._config.keep_checkpoint_max
        self._saved = [p for p in self._saved if os.path.exists(p) and p != path] + [path]
        while keep and len(self._saved) > keep:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self._saved.pop(0))
        self._latest_ckpt_file_name = path
